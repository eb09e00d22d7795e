// Goroutine stacks and newstack (chapter 9.7.3, and 14.5 as the chapter
// cites it for stack growth and shrinking).
//
// A goroutine's stack is an mmap'd region with a guard page below; the
// runtime owns it and only emitted frames live on it (runtime.h invariant
// 1), which is what makes a stack copyable. Every emitted non-leaf function
// (and every leaf with a large frame) starts with the stack-check prologue:
// compare SP (or SP minus the frame beyond StackSmall) with g.stackguard0,
// and call morestack when it is not above. The same check serves two
// purposes, and newstack tells them apart:
//
//   1. growth: stackguard0 is the real bound (stack.lo + StackGuard, 928
//      bytes: StackNosplit 800 + StackSmall 128); the stack is doubled by
//      copying (copystack) and the function is re-entered;
//   2. a preemption request: stackguard0 is stackPreempt (0x...fade), a
//      value above every valid SP, written by preemptone. newstack checks
//      canPreemptM and either defers (restores the real bound, resumes the
//      goroutine where it was; releasem re-arms it) or marks a synchronous
//      safe point and calls gopreempt_m.
//
// Invariants a change must keep: newstack runs on g0 and never holds the
// scheduler lock across gogo; every deferral, preemption and growth is an
// event; a stack never exceeds kStackMax (a larger one is the fatal "stack
// overflow", as in Go); a pointer into a goroutine's own stack is adjusted
// by copystack only where a stack map declares it (a declared pointer
// slot), so a stack never moves where its top frames have no map:
// isShrinkStackSafe refuses at an asynchronous safe point.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "platforms/asm.h"
#include "runtime/mempool.h"
#include "runtime/runtime.h"

namespace safepoint {

// --- stacks ------------------------------------------------------------

bool Runtime::AllocStack(G* gp, size_t size, std::string* err) {
  size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  size_t body = (size + page - 1) / page * page;
  size_t mapped = body + page;  // one guard page below
  // A stack a finished runtime gave back (runtime/mempool.h), its guard
  // page still inaccessible, the stack itself, [lo, hi), zeroed as a fresh
  // mapping's is. (Not the rest of the body below lo, which nothing reads:
  // a new goroutine's 2 KiB stack has a page of 4 KiB, and this memset was
  // newproc's largest cost in a fuzzing process.)
  void* mem = TakeMapping(Mapping::kGoroutineStack, mapped);
  if (mem != nullptr) {
    memset(static_cast<char*>(mem) + mapped - size, 0, size);
  } else {
    mem = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) {
      if (err) *err = std::string("mmap of a goroutine stack failed: ") + strerror(errno);
      return false;
    }
    mprotect(mem, page, PROT_NONE);
    CountFreshMapping(Mapping::kGoroutineStack);
  }
  gp->stack_mapping = mem;
  gp->stack_mapped = mapped;
  gp->stack.hi = reinterpret_cast<uintptr_t>(mem) + mapped;
  gp->stack.lo = gp->stack.hi - size;
  gp->stackguard0.store(gp->stack.lo + kStackGuard);
  gp->stackguard1 = gp->stack.lo + kStackGuard;
  return true;
}

// At the runtime's end only (every M stopped): kept for the next runtime.
// copystack retires an old stack instead (RetireStack).
void Runtime::FreeStack(G* gp) {
  if (gp->stack_mapping) GiveMapping(Mapping::kGoroutineStack, gp->stack_mapping, gp->stack_mapped);
  gp->stack_mapping = nullptr;
}

// An old stack after copystack: its used part, [sp, hi), filled with a
// poison byte (kStackPoison, as Go's stackPoisonCopy fills a stack it
// copied from) and kept until the run has ended (CheckRetiredStacks) and
// every M has stopped (ReleaseRetiredStacks), then given back for reuse,
// never handed to another goroutine meanwhile. A pointer left into it
// (one adjustpointers missed) reads poison, not the value it held: the
// program's results differ, or the poison, used as an address, faults;
// and a store through it is found at the run's end, where the poison
// changed. Only the used part: every pointer into a stack is into a live
// frame (addrslot's, adjusted or not), all of them above sp.
// (It was made inaccessible instead, which faulted at the access itself,
// at the price of two mprotects a copy, one of them a TLB flush, on these
// VMs a hypervisor's call of 10 us and more: 7% of a native fuzzing
// process's time, the largest system cost left in it.)
void Runtime::RetireStack(void* mapping, size_t mapped, uintptr_t sp, int64_t goid) {
  const uintptr_t lo = reinterpret_cast<uintptr_t>(mapping), hi = lo + mapped;
  const uintptr_t from = std::clamp(sp, lo, hi);
  memset(reinterpret_cast<void*>(from), kStackPoison, hi - from);
  std::lock_guard<std::mutex> lk(retired_mu_);
  retired_stacks_.push_back({mapping, mapped, from, goid});
}

bool Runtime::CheckRetiredStacks(std::string* err) {
  std::lock_guard<std::mutex> lk(retired_mu_);
  constexpr uint64_t kPoisonWord = 0x0101010101010101ull * kStackPoison;
  for (const RetiredStack& r : retired_stacks_) {
    const uint8_t* p = reinterpret_cast<const uint8_t*>(r.poisoned);
    const uint8_t* end = static_cast<const uint8_t*>(r.mapping) + r.mapped;
    // Eight bytes at a time to the first change, if any (every run's end
    // reads every retired stack, and under QEMU a byte loop is emulated
    // byte by byte); then byte by byte from there.
    for (uint64_t w; p + 8 <= end; p += 8) {
      memcpy(&w, p, 8);
      if (w != kPoisonWord) break;
    }
    size_t changed = 0;
    const uint8_t* first = nullptr;
    for (; p < end; p++) {
      if (*p == kStackPoison) continue;
      if (first == nullptr) first = p;
      changed++;
    }
    if (first == nullptr) continue;
    char b[320];
    snprintf(b, sizeof b,
             "a store into a stack copystack had moved: goroutine %lld's old stack changed at 0x%lx "
             "(%zu of its %zu poisoned bytes; a pointer into the stack was not adjusted)",
             static_cast<long long>(r.goid), static_cast<unsigned long>(reinterpret_cast<uintptr_t>(first)), changed,
             static_cast<size_t>(end - reinterpret_cast<const uint8_t*>(r.poisoned)));
    *err = b;
    return false;
  }
  return true;
}

void Runtime::ReleaseRetiredStacks() {
  std::lock_guard<std::mutex> lk(retired_mu_);
  // (AllocStack zeroes the stack when it takes it; the guard page below it
  // stayed inaccessible.)
  for (const RetiredStack& r : retired_stacks_) GiveMapping(Mapping::kGoroutineStack, r.mapping, r.mapped);
  retired_stacks_.clear();
}

// copystack: move the used part, adjust sched.sp, then the pointers into
// the stack that the stack maps know (adjustpointers, mgc.cc): generated
// code uses no frame pointers and saves only return addresses (code), so
// what a program keeps in declared pointer slots (addrslot's addresses) and
// its spilled argument are all there is.
void Runtime::copystack(G* gp, size_t newsize) {
  Stack old = gp->stack;
  void* old_mapping = gp->stack_mapping;
  size_t old_mapped = gp->stack_mapped;
  size_t used = old.hi - gp->sched.sp;
  std::string err;
  if (!AllocStack(gp, newsize, &err))
    Throw("out of memory", "cannot allocate a " + std::to_string(newsize) + "-byte goroutine stack (" + err + ")");
  uintptr_t delta = gp->stack.hi - old.hi;
  const uintptr_t old_sp = gp->sched.sp;
  memcpy(reinterpret_cast<void*>(gp->sched.sp + delta), reinterpret_cast<void*>(gp->sched.sp), used);
  gp->sched.sp += delta;
  adjustpointers(gp, old, delta);
  RetireStack(old_mapping, old_mapped, old_sp, gp->goid);
}

bool Runtime::isShrinkStackSafe(const G* gp) const {
  if ((gp->atomicstatus.load() & ~static_cast<uint32_t>(_Gscan)) == _Gsyscall) return false;
  if (gp->asyncSafePoint && !opts_.mutations.shrink_at_async) return false;
  return true;
}

void Runtime::shrinkstack(G* gp) {
  size_t oldsize = gp->stack.hi - gp->stack.lo;
  size_t newsize = oldsize / 2;
  if (newsize < kStackMin) return;
  // Only when less than a quarter is in use (counting the nosplit room).
  constexpr size_t kStackNosplit = 800;
  size_t used = gp->stack.hi - gp->sched.sp + kStackNosplit;
  if (used >= oldsize / 4) return;
  copystack(gp, newsize);
  events_.Record(Ev::kShrink, gp->goid, Reason::kNone, gp->sched.pc, static_cast<int64_t>(newsize));
}

void Runtime::scanstack(G* gp) {
  if (heap_base_ != 0) {
    std::lock_guard<std::mutex> lk(heap_mu_);
    if (gc_marking_) {
      gcScanStack(gp);
      gcDrain();
    }
  }
  if (isShrinkStackSafe(gp)) {
    shrinkstack(gp);
    return;
  }
  gp->preemptShrink = true;
  bool syscall = (gp->atomicstatus.load() & ~static_cast<uint32_t>(_Gscan)) == _Gsyscall;
  events_.Record(Ev::kShrinkDeferred, gp->goid, Reason::kNone, gp->sched.pc, syscall ? 2 : 1);
}

void Runtime::newstack(G* gp) {
  M* thism = gp->m;
  if (thism == nullptr || thism->curg.load() != gp) Throw("newstack: not on the M's curg");
  bool preempt = gp->stackguard0.load() == kStackPreempt;
  if (preempt) {
    Reason why = canPreemptM(thism);
    if (why != Reason::kNone) {
      // Not a good time: restore the normal bound and let the goroutine go
      // on. gp.preempt stays set; releasem re-arms stackPreempt.
      gp->stackguard0.store(gp->stack.lo + kStackGuard);
      events_.Record(Ev::kDeferred, gp->goid, why, gp->sched.pc);
      sp_gogo(&gp->sched);
    }
  }
  if (gp->sched.sp < gp->stack.lo || gp->sched.sp > gp->stack.hi) Throw("newstack: sp out of the goroutine stack");
  if (preempt) {
    gp->syncSafePoint = true;
    // A shrink the collector deferred (it found the goroutine at an
    // asynchronous safe point): now, at a synchronous one, it is safe.
    if (gp->preemptShrink) {
      gp->preemptShrink = false;
      shrinkstack(gp);
    }
    // suspendG's request: park for the scan instead of rescheduling. The
    // look at preemptStop and the record of an ordinary preemption are one
    // step against suspendG's record and raise of its request (RequestOrder):
    // a request recorded before the preemption was raised before the look.
    // (Found by //fuzz:preempt_fuzz, a chain of a preemptone point and a
    // suspendG point under asyncpreemptoff, two Ms: newstack answering the
    // earlier request looked before suspendG raised its own, and recorded
    // its preemption after suspendG had recorded it, so the protocol
    // oracle saw "suspendG's request ended without a park".)
    if (opts_.hooks.before_preempt_decision) opts_.hooks.before_preempt_decision(*this, gp);
    bool park;
    {
      RequestOrder order(gp, nullptr);
      park = gp->preemptStop.load();
      if (!park) events_.Record(Ev::kPreemptSync, gp->goid, Reason::kNone, gp->sched.pc);
    }
    if (park) preemptPark(gp, false);
    goschedImpl(gp);
  }
  // Real growth: twice the size, copied.
  size_t oldsize = gp->stack.hi - gp->stack.lo;
  size_t newsize = oldsize * 2;
  if (newsize > kStackMax)
    Throw("stack overflow", "goroutine stack exceeds " + std::to_string(kStackMax) + "-byte limit");
  copystack(gp, newsize);
  events_.Record(Ev::kGrow, gp->goid, Reason::kNone, gp->sched.pc, static_cast<int64_t>(newsize));
  gp->stackguard0.store(gp->preempt.load() ? kStackPreempt : gp->stack.lo + kStackGuard);
  sp_gogo(&gp->sched);
}

}  // namespace safepoint
