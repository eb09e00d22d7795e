#include "harness/sweep.h"

#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>

namespace safepoint::harness {

const std::string& BuiltinHeapSweepProgram() {
  // Every object holds 1000+i at offset 8 and is read back into g[20+i]
  // at the end; pointers never reach the globals. `fillregs 0` leaves no
  // copy of a pointer in a register (the runtime's C++ may have left one
  // after an alloc) (each run's heap is at
  // its own address). main.hold keeps its object in a declared pointer slot
  // across a call (precise); main.args prepares a call with a pointer in
  // its outgoing-argument area; main.vcopy moves a pointer through a vector
  // register while no other copy of it exists.
  static const std::string p = R"(
func main.main frame=16 ptrs=0
  alloc 16
  movi r1, 1000
  stm r0, 8, r1
  stslot 0, r0
  call main.hold
  st g[21], r0
  call main.args
  st g[22], r0
  call main.vcopy
  st g[23], r0
  ldslot r2, 0
  ldm r3, r2, 8
  st g[20], r3
  call main.garbage
  ret
end
func main.hold frame=16 ptrs=8
  alloc 16
  movi r1, 1001
  stm r0, 8, r1
  mov r7, r0
  addi r7, 0
  stslot 8, r7
  drop r7
  drop r0
  call main.garbage
  ldslot r2, 8
  ldm r0, r2, 8
  ret
end
func main.args frame=32 args=16
  alloc 16
  movi r1, 1002
  stm r0, 8, r1
  starg 0, r0
  fillregs 0
  addi r5, 1
  addi r5, 1
  ldslot r0, 0
  call main.deref
  ret
end
func main.deref
  ldm r0, r0, 8
  ret
end
func main.vcopy frame=16 ptrs=0
  alloc 16
  stslot 0, r0
  alloc 16
  movi r1, 1003
  stm r0, 8, r1
  ldslot r2, 0
  stm r2, 0, r0
  fillregs 0
  ldslot r2, 0
  vload r2, 0
  movi r1, 0
  stm r2, 0, r1
  addi r5, 1
  addi r5, 1
  vstore r2, 0
  ldm r3, r2, 0
  drop r2
  ldm r0, r3, 8
  ret
end
func main.garbage
  alloc 64
  drop r0
  alloc 32
  ret
end
)";
  return p;
}

void CollectAtEveryPreemption(RuntimeOptions* o) {
  o->hooks.collect_at_async_preempt = true;
  o->hooks.initial_stack = 8192;
}

const std::string& BuiltinSweepProgram() {
  // Registers are compared only where the IR keeps them live (no call or
  // service between fillregs/vfill and the dump), as every call clobbers
  // them in Go's ABI.
  static const std::string p = R"(
func main.main frame=32
  go main.worker
  wait 1
  call main.arith
  call main.leafy
  call main.regions
  call main.callees
  movi r0, 3
  stslot 8, r0
loop:
  call main.leafy
  ldslot r0, 8
  addi r0, -1
  stslot 8, r0
  jnz r0, loop
  movi r0, 40
  call main.rec
  st g[30], r0
  gosched
  ret
end
func main.worker
  movi r1, 77
  st g[31], r1
  handshake 1
  ret
end
func main.arith
  fillregs 1000
  vfill 5
  setflags 2261
  addi r1, 7
  muli r2, 100003
  add r3, r1
  mov r4, r2
  addi r5, 70000
  ld r6, g[3]
  st g[4], r6
  usetmp r7
  atomic_add g[5], r8
  wb_store g[6], r9
  inline runtime.add
  addi r10, 2
  endinline
  inline main.inlined
  addi r11, 3
  endinline
  inline runtime.outer
  addi r10, 1
  inline main.mid
  addi r11, 1
  inline main.inner
  addi r10, 1
  endinline
  addi r11, 1
  endinline
  addi r10, 1
  endinline
  inline main.outer
  addi r11, 1
  inline main.mid
  addi r10, 1
  inline runtime.inner
  addi r11, 1
  endinline
  addi r10, 1
  endinline
  addi r11, 1
  endinline
  flagsdump g[7]
  dumpregs 10
  vdump 0
  ret
end
func main.leafy frame=16
  movi r0, 5
  call main.leaf
  stslot 8, r0
  ldslot r1, 8
  ld r2, g[22]
  add r2, r1
  st g[22], r2
  ret
end
func main.leaf
  muli r0, 3
  addi r0, 1
  ret
end
func main.regions frame=16
  acquirem
  movi r1, 1
  atomic_add g[24], r1
  releasem
  mallocing_begin
  movi r1, 1
  atomic_add g[24], r1
  mallocing_end
  preemptoff_begin
  movi r1, 1
  atomic_add g[24], r1
  preemptoff_end
  secret_begin
  movi r1, 1
  atomic_add g[24], r1
  secret_end
  entersyscall
  movi r1, 1
  atomic_add g[24], r1
  exitsyscall
  ret
end
func main.callees frame=16
  call main.asmf
  call main.foreign
  call main.nosp
  call runtime.helper
  call main.again
  ret
end
func main.asmf asm
  movi r1, 1
  st g[25], r1
  ret
end
func main.foreign nongo
  movi r1, 2
  st g[26], r1
  ret
end
func main.nosp nosplit
  movi r0, 2
  call main.leaf
  st g[27], r0
  ret
end
func runtime.helper
  movi r1, 4
  st g[28], r1
  ret
end
func main.again restartatentry
  movi r1, 9
  st g[29], r1
  ret
end
func main.rec frame=48
  jz r0, done
  stslot 0, r0
  addi r0, -1
  call main.rec
  ldslot r1, 0
  add r0, r1
done:
  ret
end
)";
  return p;
}

IrPosition PositionOf(const ir::Program& prog, const FuncTable& t, size_t k) {
  IrPosition pos;
  uint32_t off = t.insns[k];
  const FuncInfo* f = t.Find(off);
  if (!f) return pos;
  pos.fn = prog.Find(f->name);
  if (!pos.fn) {
    pos.stub = true;  // a runtime service stub
    pos.prog = &prog;
    for (int s = 0; s < static_cast<int>(ir::Service::kCount); s++)
      if (f->name == ir::ServiceSymbol(static_cast<ir::Service>(s))) pos.service = static_cast<ir::Service>(s);
    return pos;
  }
  size_t first = k;
  while (first > 0 && t.insns[first - 1] >= f->entry) first--;
  pos.insn_in_fn = static_cast<int>(k - first);
  pos.op = t.insn_op[k];
  if (pos.op < 0) {
    for (size_t j = first; j < k; j++) pos.after_body = pos.after_body || t.insn_op[j] >= 0;
    return pos;
  }
  size_t op_first = k;
  while (op_first > first && t.insn_op[op_first - 1] == pos.op) op_first--;
  pos.insn_in_op = static_cast<int>(k - op_first);
  pos.last_in_op = k + 1 >= t.insns.size() || t.insns[k + 1] >= f->end || t.insn_op[k + 1] != pos.op;
  return pos;
}

uint32_t OpStart(const FuncTable& t, size_t k) {
  while (k > 0 && t.insn_op[k - 1] == t.insn_op[k] && t.Find(t.insns[k - 1]) == t.Find(t.insns[k])) k--;
  return t.insns[k];
}

bool RunBaseline(const ir::Program& prog, const std::string& main, const RuntimeFactory& make, Baseline* base,
                 std::string* err) {
  if (!prog.Find(main)) {
    *err = "program: no function " + main;
    return false;
  }
  std::unique_ptr<RuntimeUnderTest> rt = make();
  if (!rt->Load(prog, err) || !rt->Run(main, err)) return false;
  base->end = rt->end_state();
  base->table = rt->table();
  return true;
}

namespace {
// The decision at `p`'s PC after its trap at evs[trap]: the first decision
// event there of the goroutine that trapped, before that goroutine runs
// again from the scheduler. Another goroutine at the same instruction (a
// goroutine's exit path, a function that several run) may take a signal
// there too: a late one from an earlier request, used up, finds no request
// (the one-hour campaign's arm64 finding at runtime.goexit, two Ps); its
// decision is not this point's. `asked`: a request for the goroutine stood
// when the decision came (raised since it last ran, before or after the
// trap).
void NoteDecision(const std::vector<Event>& evs, size_t trap, Observation* p) {
  const int64_t goid = evs[trap].goid;
  for (size_t i = trap; i-- > 0 && !p->asked;) {
    if (evs[i].goid != goid) continue;
    if (evs[i].kind == Ev::kResume) break;
    p->asked = evs[i].kind == Ev::kRequest;
  }
  for (size_t i = trap + 1; i < evs.size() && !p->decided; i++) {
    const Event& ev = evs[i];
    if (ev.goid != goid) continue;
    if (ev.kind == Ev::kResume) return;
    if (ev.kind == Ev::kRequest) p->asked = true;
    if (ev.pc != p->pc) continue;
    if (ev.kind == Ev::kAsyncAccept) p->decided = p->accepted = true, p->resume = static_cast<uintptr_t>(ev.arg);
    if (ev.kind == Ev::kAsyncRefuse) p->decided = true, p->reason = ev.reason;
    if (ev.kind == Ev::kSigNoRequest) p->decided = p->not_wanted = true;
  }
}

// Where instruction k is, before the run.
bool PointAt(const ir::Program& prog, const FuncTable& table, size_t k, Observation* o) {
  uint32_t off = table.insns[k];
  const FuncInfo* f = table.Find(off);
  if (f == nullptr) return false;
  o->k = k;
  o->off = off;
  o->func = f->name;
  o->func_entry = f->entry;
  o->pos = PositionOf(prog, table, k);
  return true;
}

// Where instruction k and its chain's points are, before the run: false
// when one belongs to no function.
bool PointsAt(const ir::Program& prog, const FuncTable& table, size_t k, const std::vector<ChainPoint>& then,
              Observation* o) {
  if (!PointAt(prog, table, k, o)) return false;
  for (const ChainPoint& c : then) {
    Observation p;
    if (!PointAt(prog, table, c.k, &p)) return false;
    p.source = c.src;
    o->then.push_back(std::move(p));
  }
  return true;
}

// A point's absolute PCs, its code loaded at `base`.
void PlaceAt(const FuncTable& table, uintptr_t base, Observation* o) {
  o->pc = base + o->off;
  o->op_start = base + OpStart(table, o->k);
  o->entry = base + o->func_entry;
}
}  // namespace

bool ObserveAt(const ir::Program& prog, const std::string& main, const RuntimeFactory& make, const FuncTable& table,
               size_t k, Observation* out, const std::vector<ChainPoint>& then) {
  Observation o;
  if (!PointsAt(prog, table, k, then, &o)) return false;
  std::vector<ArmPoint> chain;
  for (const ChainPoint& c : then) chain.push_back({table.insns[c.k], c.src});
  std::unique_ptr<RuntimeUnderTest> rt = make();
  o.ran = rt->Load(prog, &o.run_error) && rt->ArmAt(o.off, &o.run_error) && rt->ArmThen(chain, &o.run_error) &&
          rt->Run(main, &o.run_error);
  o.events = rt->events();  // one snapshot, read below
  o.events_dropped = rt->events_dropped();
  const std::vector<Event>& evs = o.events;
  for (const Event& ev : evs) {
    if (ev.kind == Ev::kGCDone && ev.arg >= 0) o.collections++;
    if (ev.kind == Ev::kFree) o.objects_freed++;
    if (ev.kind == Ev::kFreedAccess) o.freed_accesses++;
  }
  // The trap and the decision are noted for a run that failed too (a wrong
  // frame table at an accepted point may crash the walk that follows); the
  // end state only for one that completed.
  if (rt->code_base() != 0) {
    PlaceAt(table, rt->code_base(), &o);
    // The armed point's trap is the first at its PC (a chained point at the
    // same instruction traps there again later); `from` is where it is.
    size_t from = evs.size();
    for (size_t i = 0; i < evs.size() && from == evs.size(); i++) {
      const Event& ev = evs[i];
      if (ev.kind == Ev::kTrap && ev.pc == o.pc) from = i, o.trapped = true, o.stack_room = ev.arg, o.unseen = ev.reason;
    }
    if (o.trapped) NoteDecision(evs, from, &o);
    if (o.ran) o.end = rt->end_state();
    // The chain: each point's trap after the one before's.
    for (Observation& p : o.then) {
      p.ran = o.ran;
      PlaceAt(table, rt->code_base(), &p);
      size_t i = from + 1;
      while (i < evs.size() && !(evs[i].kind == Ev::kTrap && evs[i].pc == p.pc)) i++;
      if (from >= evs.size() || i >= evs.size()) break;  // not reached: nor are the points after it
      p.trapped = true, p.stack_room = evs[i].arg, p.unseen = evs[i].reason;
      NoteDecision(evs, i, &p);
      from = i;
    }
  }
  o.source = rt->request_source();
  if (o.ran && o.accepted) o.save = rt->save_area();
  // Recorded at each trap: kept whether or not the run then completed (a
  // wrong table at an accepted point may crash its collection).
  o.frame = rt->trap_frame(0);
  for (size_t i = 0; i < o.then.size(); i++) o.then[i].frame = rt->trap_frame(i + 1);
  *out = std::move(o);
  return true;
}

bool ObserveUnreachedAt(const ir::Program& prog, const FuncTable& table, size_t k, const Observation& run,
                        Observation* out, const std::vector<ChainPoint>& then) {
  if (!run.ran || run.trapped || run.pc < run.off) return false;
  Observation o;
  if (!PointsAt(prog, table, k, then, &o)) return false;
  // What the run did, as it did it: nothing was armed where it went.
  o.ran = true;
  o.end = run.end;
  o.collections = run.collections, o.objects_freed = run.objects_freed, o.freed_accesses = run.freed_accesses;
  o.events = run.events;
  o.events_dropped = run.events_dropped;
  o.source = run.source;
  o.frame = run.frame;  // (none: nothing trapped)
  // Where k and the chain's points are in the run's code.
  const uintptr_t base = run.pc - run.off;
  PlaceAt(table, base, &o);
  for (Observation& p : o.then) {
    p.ran = true;
    PlaceAt(table, base, &p);
  }
  *out = std::move(o);
  return true;
}

namespace {

// The sweep's watchdog: a thread that waits for each instruction to finish
// and, when one does not within the limit, says which and ends the process.
class StallWatch {
 public:
  explicit StallWatch(double seconds) : seconds_(seconds) {
    if (seconds_ > 0) thread_ = std::thread([this] { Watch(); });
  }
  ~StallWatch() {
    if (!thread_.joinable()) return;
    {
      std::lock_guard<std::mutex> lk(mu_);
      over_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  void At(std::string where) {
    std::lock_guard<std::mutex> lk(mu_);
    where_ = std::move(where);
    tick_++;
    cv_.notify_all();
  }

 private:
  void Watch() {
    std::unique_lock<std::mutex> lk(mu_);
    while (!over_) {
      uint64_t seen = tick_;
      if (cv_.wait_for(lk, std::chrono::duration<double>(seconds_), [&] { return over_ || tick_ != seen; })) continue;
      fprintf(stderr, "sweep: stall: %s has not finished in %.0f s (each run is bounded at %.0f s); giving up\n",
              where_.c_str(), seconds_, kRunBoundSeconds);
      fflush(stderr);
      _exit(1);
    }
  }
  double seconds_;
  std::mutex mu_;
  std::condition_variable cv_;
  uint64_t tick_ = 0;
  bool over_ = false;
  std::string where_ = "the unpreempted run";
  std::thread thread_;
};

}  // namespace

bool SweepEngine(const ir::Program& prog, const std::string& main, const RuntimeFactory& make, Baseline* base,
                 const std::function<void(const Observation&)>& observe, std::string* err,
                 const std::function<bool(size_t, size_t)>& proceed, double stall_seconds) {
  StallWatch watch(stall_seconds);
  if (!RunBaseline(prog, main, make, base, err)) return false;
  const FuncTable& table = base->table;
  size_t total = 0, done = 0;
  for (uint32_t off : table.insns) total += table.Find(off) != nullptr;
  for (size_t k = 0; k < table.insns.size(); k++) {
    const FuncInfo* f = table.Find(table.insns[k]);
    if (f == nullptr) continue;
    if (proceed && !proceed(done, total)) break;
    done++;
    char at[64];
    snprintf(at, sizeof at, "+0x%x (instruction %zu)", table.insns[k] - f->entry, k);
    watch.At("the run armed at " + f->name + at);
    Observation o;
    ObserveAt(prog, main, make, table, k, &o);
    observe(o);
  }
  return true;
}

}  // namespace safepoint::harness
