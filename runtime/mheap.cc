// The heap: what goroutine code allocates (`alloc N`) and the collector
// frees (runtime/mgc.cc).
//
// Deliberately simple and deliberately unforgiving. Every object is one
// page of a PROT_NONE reservation: a 16-byte header (a magic word and the
// size) at the start of the page, the payload after it. The runtime's side
// table (HeapObj) holds the state and the mark bit, so the collector never
// touches a freed page. When the sweep frees an object it fills the page
// with a poison pattern and makes it inaccessible, and the page is never
// handed out again: any later load or store through a pointer to a freed
// object faults at once, and the fault handler names the object and the
// collection that freed it (Runtime::FreedAccess). That is the liveness
// oracle's evidence: an object the program still reaches was freed.
//
// Invariants a change must keep: the side table is written with heap_mu_
// held and read by the fault handler without it (a freed entry never goes
// back to allocated); a page is writable exactly while its object is
// allocated; objects allocated while marking is on are black (marked), as
// Go's are.
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include "runtime/mempool.h"
#include "runtime/runtime.h"

namespace safepoint {

namespace {
constexpr size_t kHeapObjects = 8192;
constexpr uint64_t kHeaderMagic = 0x5afe9017b1ec7000ull;  // | the object's index
constexpr uint8_t kPoison = 0xdb;
}  // namespace

void Runtime::HeapInit() {
  heap_page_ = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  heap_pages_ = kHeapObjects;
  // A finished runtime's reservation (runtime/mempool.h) comes back with
  // every page inaccessible, as a fresh one; its pages still hold what that
  // runtime left (objects, poison), so mallocgc zeroes each it hands out.
  void* mem = TakeMapping(Mapping::kHeap, heap_page_ * heap_pages_);
  heap_reused_ = mem != nullptr;
  if (mem == nullptr) {
    mem = mmap(nullptr, heap_page_ * heap_pages_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (mem == MAP_FAILED) Throw("out of memory", std::string("cannot reserve the heap: ") + strerror(errno));
    CountFreshMapping(Mapping::kHeap);
  }
  heap_base_ = reinterpret_cast<uintptr_t>(mem);
  static_assert(std::is_trivially_copyable_v<HeapObj> && std::is_aggregate_v<HeapObj>, "an unused HeapObj is zero bytes");
  // The object table: a finished runtime's, which it zeroed where its runs
  // wrote (GiveObjectTable), or a fresh mapping, zero and faulted in only
  // where a run reaches. (A calloc zeroed all 128 KiB of it for every
  // fresh runtime, one execution in thirty of a fuzzing process: 1% of
  // its time.)
  const size_t table_bytes = kHeapObjects * sizeof(HeapObj);
  void* objs = TakeMapping(Mapping::kHeapObjects, table_bytes);
  if (objs == nullptr) {
    objs = mmap(nullptr, table_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (objs == MAP_FAILED) Throw("out of memory", std::string("cannot map the heap's object table: ") + strerror(errno));
    CountFreshMapping(Mapping::kHeapObjects);
  }
  heap_objs_.reset(static_cast<HeapObj*>(objs));
}

void Runtime::FreeHeapObjs::operator()(HeapObj* p) const { munmap(p, kHeapObjects * sizeof(HeapObj)); }

// Every page back to inaccessible in one call (the pages a run handed out
// are one span from the base, and after a Reset the run before's too),
// and the reservation kept for the next runtime.
void Runtime::HeapRelease() {
  if (heap_base_ == 0) return;
  if (heap_high_ > 0 && mprotect(reinterpret_cast<void*>(heap_base_), heap_high_ * heap_page_, PROT_NONE) != 0) {
    munmap(reinterpret_cast<void*>(heap_base_), heap_page_ * heap_pages_);
  } else {
    GiveMapping(Mapping::kHeap, reinterpret_cast<void*>(heap_base_), heap_page_ * heap_pages_);
  }
  // The object table zeroed where the runs wrote, as a fresh mapping is.
  memset(static_cast<void*>(heap_objs_.get()), 0, heap_high_ * sizeof(HeapObj));
  GiveMapping(Mapping::kHeapObjects, heap_objs_.release(), kHeapObjects * sizeof(HeapObj));
  heap_base_ = 0;
  heap_next_ = heap_high_ = 0;
}

int64_t Runtime::HeapFind(uintptr_t w) const {
  if (heap_base_ == 0 || w < heap_base_ || w >= heap_base_ + heap_page_ * heap_pages_) return -1;
  size_t idx = (w - heap_base_) / heap_page_;
  const HeapObj& o = heap_objs_[idx];
  uintptr_t start = HeapObjAddr(static_cast<int64_t>(idx));
  if (o.state != 1 || w < start || w >= start + o.size) return -1;
  return static_cast<int64_t>(idx);
}

uintptr_t Runtime::mallocgc(size_t size, G* gp) {
  if (size < 8 || size > static_cast<size_t>(ir::kMaxAlloc) || size % 8 != 0)
    Throw("mallocgc: bad size", "alloc of " + std::to_string(size) + " bytes");
  std::lock_guard<std::mutex> lk(heap_mu_);
  if (heap_next_ >= heap_pages_)
    Throw("out of memory", "the heap's " + std::to_string(heap_pages_) + " objects are used up (freed ones are never reused)");
  size_t idx = heap_next_++;
  if (heap_next_ > heap_high_) heap_high_ = heap_next_;
  void* page = reinterpret_cast<void*>(heap_base_ + idx * heap_page_);
  HeapObj& o = heap_objs_[idx];
  if (!o.open && mprotect(page, heap_page_, PROT_READ | PROT_WRITE) != 0)
    Throw("out of memory", std::string("cannot map a heap page: ") + strerror(errno));
  if (heap_reused_) memset(page, 0, heap_page_);
  auto* hdr = static_cast<uint64_t*>(page);
  hdr[0] = kHeaderMagic | idx;
  hdr[1] = size;
  o.size = static_cast<uint32_t>(size);
  o.marked = gc_marking_;  // black allocation
  o.state = 1;
  uintptr_t addr = HeapObjAddr(static_cast<int64_t>(idx));
  int64_t id = static_cast<int64_t>(idx);
  events_.Record(Ev::kAlloc, gp ? gp->goid : 0, Reason::kNone, addr, o.marked ? -(id + 1) : id);
  return addr;
}

bool Runtime::HeapObjectLive(uintptr_t addr) {
  std::lock_guard<std::mutex> lk(heap_mu_);
  return HeapFind(addr) >= 0;
}

int64_t Runtime::gcSweep() {
  int64_t freed = 0;
  for (size_t idx = 0; idx < heap_next_; idx++) {
    HeapObj& o = heap_objs_[idx];
    if (o.state != 1) continue;
    if (o.marked) {
      o.marked = false;
      continue;
    }
    // Header and payload poisoned, then the page made inaccessible.
    void* page = reinterpret_cast<void*>(heap_base_ + idx * heap_page_);
    const uint64_t* hdr = static_cast<const uint64_t*>(page);
    if (hdr[0] != (kHeaderMagic | idx) || hdr[1] != o.size)
      Throw("heap object header corrupted", "object " + std::to_string(idx) + " at " + std::to_string(HeapObjAddr(static_cast<int64_t>(idx))));
    memset(page, kPoison, heap_page_);
    mprotect(page, heap_page_, PROT_NONE);
    o.state = 2;
    o.freed_by = gc_cycles_;
    events_.Record(Ev::kFree, 0, Reason::kNone, HeapObjAddr(static_cast<int64_t>(idx)), static_cast<int64_t>(idx));
    freed++;
  }
  return freed;
}

// From the fault handler, on the faulting M's signal stack: no locks. A
// freed entry never changes again, so reading it unlocked is safe.
bool Runtime::FreedAccessAt(uintptr_t addr, uintptr_t pc) {
  if (heap_base_ == 0 || addr < heap_base_ || addr >= heap_base_ + heap_page_ * heap_pages_) return false;
  size_t idx = (addr - heap_base_) / heap_page_;
  const HeapObj& o = heap_objs_[idx];
  if (o.state != 2) return false;
  events_.Record(Ev::kFreedAccess, 0, Reason::kNone, pc, static_cast<int64_t>(idx));
  if (!freed_access_.hit) {
    freed_access_.hit = true;
    freed_access_.object = static_cast<int64_t>(idx);
    freed_access_.freed_by = o.freed_by;
    freed_access_.addr = addr;
    freed_access_.pc = pc;
  }
  return true;
}

}  // namespace safepoint
