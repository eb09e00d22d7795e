// The collector (chapter 9.7.5 and 9.7.6): why safe points exist. "Once
// the goroutine is stopped, the garbage collector must be able to interpret
// its stack correctly."
//
// A collection (GC) marks from the roots and sweeps what it did not reach:
//
//   1. Marking begins: every allocated object white, allocation black
//      (mallocgc marks what it makes while gc_marking_ holds). The globals
//      are roots (their words are untyped: scanned conservatively).
//   2. Stacks, one goroutine at a time, without stopping the world: suspendG
//      stops the goroutine at a safe point (or only takes the scan bit of
//      one already blocked), scanstack scans it (and shrinks it, or defers
//      the shrink), resumeG lets it go.
//   3. Mark termination with the world stopped. Go needs no second look at
//      the stacks here since its hybrid write barrier; this runtime's `stm`
//      has no barrier, so termination scans the globals and every stack
//      again: what moved between a stack and the heap behind the
//      collector's back is still found. (The events show both passes.)
//   4. Sweep: every object still white is poisoned and freed
//      (runtime/mheap.cc), and the world starts again.
//
// Scanning one stack (gcScanStack) walks its frames with the function
// table's pcsp entries, from where the goroutine stopped:
//   - stopped at a synchronous safe point (a call, a prologue check), every
//     frame is at a call or has not opened yet: precise, only the slots its
//     stack map declares;
//   - stopped at an asynchronous safe point (gp.asyncSafePoint), the top
//     two frames have no map: the asyncPreempt frame (every saved register)
//     and the interrupted frame (every word, the outgoing-argument area at
//     its bottom included: it may have been preparing a call) are scanned
//     conservatively, then the rest precisely. The extended register state
//     asyncPreempt saved is scanned conservatively under Go 1.27's policy
//     and not at all under Go 1.26's (RuntimeSettings::xstate_scan).
// A word marks an object only when it points into an allocated one. A
// declared pointer slot holding anything else is skipped (Go zeroes such
// slots and would throw; programs here may leave stale words in them). A
// word that points into the goroutine's own stack (addrslot) makes the
// frame it points into a stack object, scanned conservatively. When a stack
// moves (copystack), the declared pointer slots that point into it are
// adjusted (adjustpointers), as the stack maps allow.
//
// Invariants a change must keep: marking and sweeping hold heap_mu_; a
// stack is read only while its goroutine cannot run (the scan bit, or the
// world stopped), except a goroutine in a system call, whose whole stack is
// read conservatively; at most one collection runs at a time (gc_mu_).
#include <pthread.h>

#include <cstdio>

#include "core/code_page.h"
#include "platforms/native.h"
#include "runtime/runtime.h"

namespace safepoint {

namespace {
// Every aligned word in [lo, hi), to fn: what a conservative scan reads.
template <typename F>
void ForEachWord(uintptr_t lo, uintptr_t hi, F fn) {
  for (uintptr_t p = (lo + 7) & ~uintptr_t(7); p + 8 <= hi; p += 8) fn(*reinterpret_cast<const uintptr_t*>(p));
}
}  // namespace

std::vector<G*> Runtime::AllGs() {
  std::lock_guard<std::mutex> lk(mu_);
  std::vector<G*> gs;
  for (auto& g : allgs_) gs.push_back(g.get());
  return gs;
}

void Runtime::gcMarkWord(uintptr_t w) {
  int64_t idx = HeapFind(w);
  if (idx < 0) return;
  HeapObj& o = heap_objs_[idx];
  if (o.marked) return;
  o.marked = true;
  gc_work_.push_back(idx);
}

void Runtime::gcScanRange(uintptr_t lo, uintptr_t hi) {
  ForEachWord(lo, hi, [this](uintptr_t w) { gcMarkWord(w); });
}

void Runtime::gcDrain() {
  while (!gc_work_.empty()) {
    int64_t idx = gc_work_.back();
    gc_work_.pop_back();
    uintptr_t a = HeapObjAddr(idx);
    gcScanRange(a, a + heap_objs_[idx].size);
  }
}

void Runtime::gcMarkRoots(bool with_stacks) {
  gcScanRange(reinterpret_cast<uintptr_t>(&data_->globals[0]), reinterpret_cast<uintptr_t>(&data_->globals[ir::kGlobals]));
  if (!with_stacks) return;
  for (G* gp : AllGs()) gcScanStack(gp);
}

void Runtime::walkFrames(G* gp, std::vector<StackFrame>* out) {
  out->clear();
  out->reserve(16);  // (one allocation for most stacks, not a growth per doubling)
  const bool lr_machine = NativePort().has(kCapLinkRegister);
  const uintptr_t goexit = code_->base() + goexit_off_;
  uintptr_t pc = gp->sched.pc, sp = gp->sched.sp, lr = gp->sched.lr;
  bool async = gp->asyncSafePoint && gp->async_sp != 0;
  if (async) pc = gp->async_pc, sp = gp->async_sp, lr = gp->async_lr;
  for (int depth = 0;; depth++) {
    const FuncInfo* f = FuncAt(pc);
    if (f == nullptr || f->has(kFuncAsm) || depth > 100000 || sp < gp->stack.lo || sp >= gp->stack.hi) {
      char detail[200];
      snprintf(detail, sizeof detail, "unexpected return pc 0x%lx at sp 0x%lx in goroutine %lld (frame %d)",
               static_cast<unsigned long>(pc), static_cast<unsigned long>(sp), static_cast<long long>(gp->goid), depth);
      Throw("unknown caller pc", detail);
    }
    FuncInfo::SpState st = f->SpAt(static_cast<uint32_t>(pc - code_->base()));
    out->push_back({f, sp, st.delta, depth == 0 && async});
    uintptr_t ret, caller_sp;
    if (lr_machine) {
      ret = st.lr_saved ? *reinterpret_cast<const uintptr_t*>(sp) : lr;
      caller_sp = sp + static_cast<uintptr_t>(st.delta);
    } else {
      ret = *reinterpret_cast<const uintptr_t*>(sp + static_cast<uintptr_t>(st.delta));
      caller_sp = sp + static_cast<uintptr_t>(st.delta) + 8;
    }
    if (ret == goexit) return;
    pc = ret, sp = caller_sp, lr = 0;  // a caller stopped at its call: its LR is saved
  }
}

void Runtime::gcScanStack(G* gp) {
  uint32_t status = gp->atomicstatus.load() & ~static_cast<uint32_t>(_Gscan);
  if (status == _Gdead) return;
  if (status == _Gsyscall) {
    // It may still run its own code: every word of its stack, conservatively.
    gcScanRange(gp->stack.lo, gp->stack.hi);
    return;
  }
  std::vector<StackFrame> frames;
  walkFrames(gp, &frames);
  // A word that points into this stack names a stack object: the frame
  // holding that address, scanned conservatively (once).
  std::vector<bool> queued(frames.size(), false);
  std::vector<size_t> objects;
  auto frame_hi = [&](size_t i) { return i + 1 < frames.size() ? frames[i + 1].sp : gp->stack.hi; };
  auto word = [&](uintptr_t w) {
    if (w < frames.front().sp || w >= gp->stack.hi) return gcMarkWord(w);
    for (size_t i = 0; i < frames.size(); i++)
      if (w >= frames[i].sp && w < frame_hi(i) && !queued[i]) queued[i] = true, objects.push_back(i);
  };
  auto range = [&](uintptr_t lo, uintptr_t hi) { ForEachWord(lo, hi, word); };
  bool async = frames.front().top_async;
  if (async) {
    // asyncPreempt's frame, below the interrupted SP: every register it saved.
    range(gp->sched.sp, gp->async_sp);
    if (opts_.settings.xstate_scan == XStateScan::kGo127 && gp->xstate && gp->xstate_live) {
      uintptr_t x = reinterpret_cast<uintptr_t>(gp->xstate.get());
      range(x, x + xstate_bytes_);
    }
  }
  for (size_t i = 0; i < frames.size(); i++) {
    const StackFrame& fr = frames[i];
    if (fr.top_async) {
      // The interrupted frame, its outgoing-argument area at the bottom
      // included (unless the mutation skips it).
      uintptr_t lo = fr.sp;
      if (opts_.mutations.scan_skips_outgoing_args) lo = fr.sp + static_cast<uintptr_t>(fr.f->slot_base + fr.f->args);
      range(lo, fr.sp + static_cast<uintptr_t>(fr.delta));
    } else {
      for (int off : fr.f->ptr_slots)
        if (off + 8 <= fr.delta) word(*reinterpret_cast<const uintptr_t*>(fr.sp + static_cast<uintptr_t>(off)));
    }
  }
  for (size_t k = 0; k < objects.size(); k++) range(frames[objects[k]].sp, frame_hi(objects[k]));
  events_.Record(Ev::kGCScanStack, gp->goid, Reason::kNone, async ? gp->async_pc : gp->sched.pc, async ? 2 : 0);
}

void Runtime::adjustpointers(G* gp, const Stack& old, uintptr_t delta) {
  auto moved = [&](uintptr_t* p) {
    if (*p >= old.lo && *p < old.hi) *p += delta;
  };
  moved(&gp->argspill);
  moved(&gp->async_sp);  // only a mutation moves a stack stopped asynchronously
  std::vector<StackFrame> frames;
  walkFrames(gp, &frames);
  for (const StackFrame& fr : frames) {
    if (fr.top_async) continue;  // no map: nothing known to adjust
    for (int off : fr.f->ptr_slots)
      if (off + 8 <= fr.delta) moved(reinterpret_cast<uintptr_t*>(fr.sp + static_cast<uintptr_t>(off)));
  }
}

int64_t Runtime::GC() { return GC(nullptr); }

int64_t Runtime::GC(G* held) {
  std::lock_guard<std::mutex> one(gc_mu_);
  gc_active_.store(true);
  int64_t cycle;
  {
    std::lock_guard<std::mutex> lk(heap_mu_);
    cycle = ++gc_cycles_;
    for (size_t i = 0; i < heap_next_; i++) heap_objs_[i].marked = false;
    gc_work_.clear();
    gc_marking_ = true;
  }
  events_.Record(Ev::kGCStart, 0, Reason::kNone, 0, cycle);
  SuspendState hold;
  if (held) {
    hold = suspendG(held);
    if (!hold.stopped) {
      // Another suspendG claimed it from preemptPark first (a scan of
      // its own, or the harness's suspendG source): it is not parked for
      // this collection, and holding it through the stop-the-world would
      // leave an execute waiting on its scan bit while the world waits on
      // that execute. An ordinary goroutine, then. (Found by
      // //fuzz:preempt_fuzz: 15 s until the stop-the-world gave up.)
      resumeG(hold);
      hold = SuspendState{};
      held = nullptr;
    }
  }
  {
    std::lock_guard<std::mutex> lk(heap_mu_);
    gcMarkRoots(false);
    gcDrain();
  }
  // The stacks, one goroutine at a time.
  for (G* gp : AllGs()) {
    if (gp == held) {
      if (hold.held) scanstack(gp);
      continue;
    }
    SuspendState s = suspendG(gp);
    if (s.held) scanstack(gp);
    resumeG(s);
    if (opts_.hooks.gc_after_stack_scan) opts_.hooks.gc_after_stack_scan(*this, gp);
  }
  // Mark termination, with the world stopped.
  int64_t freed = -1;
  if (stopTheWorldWithSema(100000) >= 0) {
    events_.Record(Ev::kGCMarkTermination, 0, Reason::kNone, 0, cycle);
    std::lock_guard<std::mutex> lk(heap_mu_);
    gcMarkRoots(true);
    gcDrain();
    gc_marking_ = false;
    freed = gcSweep();
  } else {
    std::lock_guard<std::mutex> lk(heap_mu_);
    gc_marking_ = false;  // abandoned: nothing is freed
  }
  startTheWorld();
  if (held) resumeG(hold);
  events_.Record(Ev::kGCDone, 0, Reason::kNone, 0, freed);
  gc_active_.store(false);
  return freed;
}

// --- the collection at every accepted asynchronous preemption -------------

// From preemptPark, once the goroutine is _Gpreempted: the worker's
// suspendG claims it at once, without a signal.
void Runtime::gcRequestAtAsyncPreempt(G* gp) {
  {
    std::lock_guard<std::mutex> lk(mu_);
    gc_requests_.push_back({gp, true});
  }
  gc_cv_.notify_all();  // after the lock (runtime.h: kNotifyUnlocked)
}

void Runtime::gcWorkerLoop() {
  for (;;) {
    GCRequest req;
    {
      std::unique_lock<std::mutex> lk(mu_);
      gc_cv_.wait(lk, [&] { return !gc_requests_.empty() || gc_worker_stop_; });
      if (gc_requests_.empty()) return;
      req = gc_requests_.front();
    }
    GC(req.held ? req.g : nullptr);
    {
      std::lock_guard<std::mutex> lk(mu_);
      gc_requests_.pop_front();
      if (!req.held) ready(req.g);  // runtime.GC returns
    }
    idle_cv_.notify_all();  // after the lock (runtime.h: kNotifyUnlocked)
  }
}

void Runtime::StartGCWorker() {
  std::call_once(*gc_worker_once_, [this] {
    gc_worker_.Start([](void* a) {
      Runtime* rt = static_cast<Runtime*>(a);
      EventLog::BindThread(-1, -1);
      rt->gcWorkerLoop();
    }, this);
    gc_worker_started_.store(true);
  });
}

void Runtime::StopGCWorker() {
  if (!gc_worker_started_.load()) return;
  {
    std::lock_guard<std::mutex> lk(mu_);
    gc_worker_stop_ = true;
  }
  gc_cv_.notify_all();  // after the lock (runtime.h: kNotifyUnlocked)
  gc_worker_.Join();
  gc_worker_started_.store(false);
}

}  // namespace safepoint
