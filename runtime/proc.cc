// The scheduler of the reference runtime: Ms (OS threads) each with a g0
// stack, Ps with local run queues, a global run queue, timers for Sleep,
// handshakes, goroutine creation and exit, and the service functions the
// emitted stubs reach through mcall and systemstack.
//
// Simplifications, each deliberate: one scheduler lock guards every queue;
// an M keeps its P for the whole run (an idle M releases it while it sleeps,
// so preemptone sees "no M" there, as in Go); system calls are markers
// (entersyscall/exitsyscall) around emitted code and never block the M.
#include "runtime/runtime.h"

#include <algorithm>

#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <array>
#include <new>
#include <chrono>
#include <utility>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "platforms/asm.h"
#include "platforms/native.h"
#include "platforms/emitter.h"
#include "core/code_page.h"
#include "runtime/mempool.h"

namespace safepoint {

namespace {
thread_local M* tls_m = nullptr;
// The reservation around the program's data pages (Runtime::ProgramData).
constexpr size_t kDataReservation = 2 << 20;
}  // namespace

int64_t MonotonicNanos() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

namespace {
class MonotonicClock : public Clock {
 public:
  int64_t Now() override { return MonotonicNanos(); }
};

// One C entry point per service, so the stub can hand its address to
// mcall/systemstack. Each finds the runtime through the G's M.
// A systemstack service's result is its return value: r0, the C ABI's
// result register on every port, comes back to the goroutine (`alloc`).
template <ir::Service S>
uint64_t ServiceEntry(G* gp) {
  Runtime* rt = gp->m->rt;
  if constexpr (ir::ServiceParks(S)) {
    rt->ParkingService(S, gp);
  } else {
    rt->Service(S, gp);
  }
  return gp->param;
}

template <size_t... I>
constexpr std::array<uint64_t (*)(G*), sizeof...(I)> MakeServiceTable(std::index_sequence<I...>) {
  return {&ServiceEntry<static_cast<ir::Service>(I)>...};
}
constexpr auto kServiceEntries = MakeServiceTable(std::make_index_sequence<static_cast<size_t>(ir::Service::kCount)>());
}  // namespace

extern "C" void sp_newstack(G* gp) { gp->m->rt->newstack(gp); }

bool ParseGodebug(const std::string& s, Debug* out, std::string* err) {
  Debug d;
  size_t i = 0;
  while (i <= s.size()) {
    size_t j = s.find(',', i);
    if (j == std::string::npos) j = s.size();
    std::string kv = s.substr(i, j - i);
    i = j + 1;
    if (kv.empty()) {
      if (j >= s.size()) break;
      continue;
    }
    size_t eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) {
      *err = "GODEBUG: malformed entry '" + kv + "' (want key=value)";
      return false;
    }
    std::string k = kv.substr(0, eq), v = kv.substr(eq + 1);
    if (k == "asyncpreemptoff") {
      if (v != "0" && v != "1") {
        *err = "GODEBUG: asyncpreemptoff=" + v + ": want 0 or 1";
        return false;
      }
      d.asyncpreemptoff = v == "1";
    }
    // Unknown keys are ignored, as Go does.
    if (j >= s.size()) break;
  }
  *out = d;
  return true;
}

Runtime::Runtime(RuntimeOptions opts)
    : opts_(std::move(opts)),
      events_(opts_.hooks.event_capacity, opts_.hooks.event_times),
      data_mapping_(TakeMapping(Mapping::kData, kDataReservation)) {
  char* mid;
  size_t len = (sizeof(ProgramData) + 4095) & ~size_t(4095);
  if (data_mapping_ != nullptr) {
    // A finished runtime's (runtime/mempool.h): its pages writable, zeroed
    // here as fresh ones are.
    mid = static_cast<char*>(data_mapping_) + kDataReservation / 2;
    memset(mid, 0, len);
  } else {
    data_mapping_ = mmap(nullptr, kDataReservation, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (data_mapping_ == MAP_FAILED) Throw("out of memory", "cannot reserve the program's data pages");
    CountFreshMapping(Mapping::kData);
    mid = static_cast<char*>(data_mapping_) + kDataReservation / 2;
    if (mprotect(mid, len, PROT_READ | PROT_WRITE) != 0) Throw("out of memory", "cannot map the program's data pages");
  }
  data_ = new (mid) ProgramData();
  for (int i = 0; i < ir::kGlobals; i++) data_->globals[i].store(0);
  data_->wbflag.store(0);
  if (opts_.hooks.clock) {
    clock_ = opts_.hooks.clock;
  } else {
    own_clock_ = std::make_unique<MonotonicClock>();
    clock_ = own_clock_.get();
  }
  sysmon_clock_ = opts_.hooks.sysmon_clock ? opts_.hooks.sysmon_clock : clock_;
}

Runtime::~Runtime() {
  if (running_ms_.load() > 0) {
    data_mapping_ = nullptr;  // the abandoned Ms may still write there
    // Some M never stopped (a goroutine that reached no safe point); its
    // thread still runs our code on our memory. Leak everything it may touch.
    code_.release();
    for (auto& m : ms_) m.release();
    for (auto& g : allgs_) g.release();
    for (auto& p : ps_) p.release();
    return;
  }
  // Every M stopped: nothing reaches this memory any more, and the next
  // runtime in the process takes it (runtime/mempool.h).
  ReleaseGsAndMs();
  if (data_mapping_ != nullptr && data_mapping_ != MAP_FAILED) GiveMapping(Mapping::kData, data_mapping_, kDataReservation);
  HeapRelease();
}

uintptr_t Runtime::code_base() const { return code_ ? code_->base() : 0; }

// Every G and M gone, their stacks kept for the next runtime or run (every
// M stopped: ~Runtime and Reset).
void Runtime::ReleaseGsAndMs() {
  for (auto& g : allgs_) FreeStack(g.get());
  allgs_.clear();
  ReleaseRetiredStacks();
  for (auto& m : ms_)
    if (m && m->g0_mapping) GiveMapping(Mapping::kG0Stack, m->g0_mapping, m->g0_mapped);
  ms_.clear();
}

bool Runtime::Reset(std::string* why) {
  // What a reset cannot put back.
  if (running_ms_.load() > 0) {
    *why = "an M never stopped (its goroutine reached no safe point)";
    return false;
  }
  if (faulted_.load()) {
    *why = "the run faulted";
    return false;
  }
  if (fatal_ || aborted_) {
    *why = fatal_ ? "the run ended in a fatal error" : "the run was aborted";
    return false;
  }
  if (suspending_.load() != 0) {
    *why = "a suspendG was not resumed";
    return false;
  }
  if (sysmon_thread_.joinable() || gc_worker_.joinable() || gc_worker_started_.load()) {
    *why = "sysmon or the collector's worker still runs";
    return false;
  }
  if (code_ && !code_->Matches(emitted_)) {
    *why = "the code is not as emitted (a patch was left in it)";
    return false;
  }
  // The goroutines and Ms of the run (all stopped): their memory kept for
  // reuse (runtime/mempool.h), the objects gone.
  for (auto& m : ms_)
    if (m->thread.joinable()) m->thread.Join();
  ReleaseGsAndMs();
  ps_.clear();  // Run makes them again, scratch areas zeroed
  globrunq_.clear();
  sleepers_.clear();
  handshakes_.assign(ir::kGlobals, false);
  waiters_.assign(ir::kGlobals, {});
  next_goid_.store(1);
  main_done_.store(false);
  stopping_.store(false);
  deadlock_ = false;
  aborted_ = false;
  abort_why_.clear();
  fault_sig_ = 0;
  fault_pc_ = fault_addr_ = fault_g_ = 0;
  fault_goid_ = 0;
  fault_g_curg_ = fault_curg_m_ = false;
  fault_code_ = 0;
  idle_ms_ = 0;
  abandoned_ms_ = 0;
  sysmon_started_ = false;
  sysmon_stop_.store(false);
  {
    std::lock_guard<std::mutex> lk(sysmon_mu_);
    sysmon_nudges_seen_ = sysmon_nudges_;  // the run's end's nudge is no look of the next run's
  }
  // The heap: every object unused, zeroed again as mallocgc hands its page
  // out. A page the run freed stays inaccessible until then; a page it
  // allocated and never freed stays accessible (making it inaccessible
  // here was a TLB shootdown across CPUs per reset, 12% of a fuzzing
  // process): only an address no object of the next run has reached yet,
  // which nothing the program holds can point to.
  if (heap_base_ != 0) {
    for (size_t i = 0; i < heap_next_; i++) {
      bool open = heap_objs_[i].state == 1;
      heap_objs_[i] = HeapObj{};
      heap_objs_[i].open = open;
    }
    heap_next_ = 0;
    heap_reused_ = true;
  }
  gc_marking_ = false;
  gc_work_.clear();
  gc_cycles_ = 0;
  gc_requests_.clear();
  gc_worker_stop_ = false;
  gc_active_.store(false);
  gc_worker_once_ = std::make_unique<std::once_flag>();
  freed_access_ = FreedAccess{};
  gcwaiting_.store(false);
  stopped_ps_.store(0);
  safe_point_fn_ = nullptr;
  safe_point_pending_.clear();
  safe_point_left_.store(0);
  // The program's memory as a fresh runtime's: zeroed.
  for (int i = 0; i < ir::kGlobals; i++) data_->globals[i].store(0);
  data_->wbflag.store(0);
  memset(data_->vdump, 0, sizeof data_->vdump);
  events_.Clear();
  return true;
}

const FuncInfo* Runtime::FuncAt(uintptr_t pc) const {
  if (!code_ || !code_->contains(pc)) return nullptr;
  return table_->Find(static_cast<uint32_t>(pc - code_->base()));
}

M* Runtime::CurrentM() { return tls_m; }
void Runtime::UnbindThread() { tls_m = nullptr; }

namespace {
std::atomic<bool> g_fatal_aborts{false};
}  // namespace
void SetFatalErrorsAbort(bool on) { g_fatal_aborts.store(on); }
const char* FatalPrefix() { return g_fatal_aborts.load() ? "==safepoint== ERROR: " : ""; }
void FatalExit() {
  if (g_fatal_aborts.load()) abort();
  _exit(2);
}

void casgstatus(G* gp, uint32_t from, uint32_t to) {
  for (;;) {
    uint32_t expect = from;
    if (gp->atomicstatus.compare_exchange_weak(expect, to)) return;
    if (expect != from && expect != (from | _Gscan)) {
      fprintf(stderr, "%sfatal error: casgstatus: goroutine %lld from %#x to %#x, but it is %#x\n", FatalPrefix(),
              static_cast<long long>(gp->goid), from, to, expect);
      FatalExit();
    }
    sched_yield();
  }
}

void Runtime::Throw(const char* msg, const std::string& detail) {
  // As Go's throw: the message, then the process exits with status 2 (never
  // a raw abort or signal of the harness).
  if (!detail.empty()) fprintf(stderr, "%sruntime: %s\n", FatalPrefix(), detail.c_str());
  fprintf(stderr, "%sfatal error: %s\n", FatalPrefix(), msg);
  fflush(stderr);
  FatalExit();
}

bool Runtime::Load(const ir::Program& prog, std::string* err) {
  Emitted out;
  // A runtime loading another program (after Reset, every M stopped)
  // writes it over its old code where it fits.
  return EmitProgram(prog, &out, err) && WriteCode(std::move(code_), "", &out, err);
}

bool Runtime::LoadKept(const ir::Program& prog, const std::string& key, std::string* err) {
  if (Unshelve(key)) return true;
  Emitted out;
  // Written over the code of the program the shelf gives up, where it fits.
  return EmitProgram(prog, &out, err) && WriteCode(ShelveCurrent(), key, &out, err);
}

bool Runtime::Unshelve(const std::string& key) {
  if (IsLoaded(key)) return true;
  for (size_t i = 0; i < shelf_.size(); i++) {
    if (shelf_[i].key != key) continue;
    Shelved back = std::move(shelf_[i]);
    shelf_.erase(shelf_.begin() + static_cast<long>(i));
    ShelveCurrent();  // (the shelf has room: it just gave this one back; Load's code, keyless, is unmapped)
    code_ = std::move(back.code);
    key_ = key;
    Install(std::move(back.emitted), std::move(back.table), back.goexit_off);
    return true;
  }
  return false;
}

bool Runtime::LoadKeptEmitted(const EmitEnv& env, Emitted emitted, const std::string& key, std::string* err) {
  if (Unshelve(key)) return true;
  EmitEnv mine;
  if (!EmitEnvironment(&mine, err)) return false;
  if (!SameEmitEnv(env, mine)) {
    *err = "the program was emitted against another runtime's environment";
    return false;
  }
  if (emitted.table.insns.empty() || emitted.goexit >= emitted.code.size()) {
    *err = "the emitted program has no instructions or no goexit stub";
    return false;
  }
  if (heap_base_ == 0) HeapInit();
  EditTable(opts_, &emitted.table);
  // Written over the code of the program the shelf gives up, where it
  // fits, as LoadKept writes its own emission.
  return WriteCode(ShelveCurrent(), key, &emitted, err);
}

bool Runtime::WriteCode(std::unique_ptr<CodePage> spare, const std::string& key, Emitted* out, std::string* err) {
  if (!spare || !spare->Rewrite(out->code)) {
    spare = CodePage::Create(out->code, err);
    if (!spare) return false;
  }
  code_ = std::move(spare);
  key_ = key;
  Install(std::move(out->code), std::make_shared<const FuncTable>(std::move(out->table)), out->goexit);
  return true;
}

bool Runtime::HasKept(const std::string& key) const {
  if (IsLoaded(key)) return true;
  for (const Shelved& s : shelf_)
    if (s.key == key) return true;
  return false;
}

std::unique_ptr<CodePage> Runtime::ShelveCurrent() {
  if (!code_) return nullptr;
  if (key_.empty()) return std::move(code_);  // Load's: no key to find it by
  shelf_.push_back({std::move(key_), std::move(code_), std::move(emitted_), std::move(table_), goexit_off_});
  table_ = EmptyTable();
  key_.clear();
  if (shelf_.size() <= kShelved) return nullptr;
  std::unique_ptr<CodePage> out = std::move(shelf_.front().code);
  shelf_.erase(shelf_.begin());
  return out;
}

bool Runtime::EmitProgram(const ir::Program& prog, Emitted* out, std::string* err) {
  EmitEnv env;
  if (!EmitEnvironment(&env, err)) return false;
  std::unique_ptr<Lowerer> low = NewLowerer(NativePort().name);
  if (!low) {
    *err = "no lowerer registered for port " + std::string(NativePort().name);
    return false;
  }
  if (!Emit(*low, prog, env, out, err)) return false;
  if (heap_base_ == 0) HeapInit();
  EditTable(opts_, &out->table);
  return true;
}

void Runtime::EditTable(const RuntimeOptions& opts, FuncTable* t) {
  if (opts.hooks.edit_table) opts.hooks.edit_table(*t);
  if (opts.mutations.pcsp_late) OpenFramesLate(t);
}

bool Runtime::EmitEnvironment(EmitEnv* out, std::string* err) {
  if (!ParseGodebug(opts_.settings.godebug, &debug_, err)) return false;
  if (opts_.settings.gomaxprocs < 1 || opts_.settings.gomaxprocs > 64) {
    *err = "GOMAXPROCS must be in [1, 64]";
    return false;
  }
  EmitEnv env;
  env.globals = reinterpret_cast<uint64_t>(&data_->globals[0]);
  env.mcall = reinterpret_cast<uint64_t>(&sp_mcall);
  env.systemstack = reinterpret_cast<uint64_t>(&sp_systemstack);
  env.morestack = reinterpret_cast<uint64_t>(&sp_morestack);
  env.omit_stack_check = opts_.mutations.omit_stack_check;
  env.vdump = reinterpret_cast<uint64_t>(data_->vdump);
  env.wbflag = reinterpret_cast<uint64_t>(&data_->wbflag);
  for (size_t i = 0; i < kServiceEntries.size(); i++) env.service_fn[i] = reinterpret_cast<uint64_t>(kServiceEntries[i]);
  env.port = &NativePort();
  // Each function on a page of its own where a patch makes its page
  // writable for the write (under an emulator: QEMU then throws away only
  // that page's translations); natively a patch is a store to RWX code, and
  // a page per function only made every load and reset move and compare
  // tens of KB of padding: there functions start 32 bytes apart at least,
  // as Go's do on amd64.
  env.isolate = CodePage::Flips() ? static_cast<uint32_t>(sysconf(_SC_PAGESIZE)) : 32;
  xstate_tier_ = ChooseXTier();  // vfill and vdump reach the tier asyncPreempt saves
  env.xtier = xstate_tier_;
  *out = env;
  return true;
}

std::shared_ptr<const FuncTable> Runtime::EmptyTable() {
  static const auto* empty = new std::shared_ptr<const FuncTable>(std::make_shared<const FuncTable>());
  return *empty;
}

void Runtime::Install(std::vector<uint8_t> code, std::shared_ptr<const FuncTable> table, uint32_t goexit) {
  emitted_ = std::move(code);
  table_ = std::move(table);
  goexit_off_ = goexit;
  InitAsync();
  handshakes_.assign(ir::kGlobals, false);
  waiters_.assign(ir::kGlobals, {});
}

// The pcsp_late mutation: each generated function's first SP move is
// recorded one instruction after the instruction that follows it.
void Runtime::OpenFramesLate(FuncTable* t) {
  for (FuncInfo& f : t->funcs) {
    if (f.has(kFuncAsm)) continue;
    for (size_t i = 0; i < f.pcsp.size(); i++) {
      if (f.pcsp[i].delta == 0) continue;
      auto next = std::upper_bound(t->insns.begin(), t->insns.end(), f.pcsp[i].from);
      uint32_t later = next != t->insns.end() ? *next : f.end;
      if (i + 1 < f.pcsp.size() && later >= f.pcsp[i + 1].from) later = f.pcsp[i + 1].from;
      f.pcsp[i].from = later;
      break;
    }
  }
}

void Runtime::Abort(const std::string& why) {
  std::lock_guard<std::mutex> lk(mu_);
  AbortLocked(why);
}

void Runtime::AbortLocked(const std::string& why) {
  if (aborted_) return;
  aborted_ = true;
  abort_why_ = why;
  done_cv_.notify_all();
}

// --- goroutines ----------------------------------------------------------

G* Runtime::newproc(uintptr_t entry, bool is_main) {
  auto g = std::make_unique<G>();
  G* gp = g.get();
  std::string err;
  // A goroutine bomb ends here, as Go's ends in "fatal error: out of memory".
  if (!AllocStack(gp, opts_.hooks.initial_stack, &err))
    Throw("out of memory", "cannot allocate a " + std::to_string(opts_.hooks.initial_stack) + "-byte goroutine stack (" +
                               err + ", " + std::to_string(allgs_.size()) + " goroutines)");
  gp->goid = next_goid_.fetch_add(1);
  gp->entry = entry;
  gp->is_main = is_main;
  uintptr_t goexit = code_->base() + goexit_off_;
  // gostartcall: make it look as if goexit called entry.
  uintptr_t sp = FrameBase(gp);
  if (NativePort().has(kCapLinkRegister)) {
    gp->sched.lr = goexit;
  } else {
    sp -= 8;
    *reinterpret_cast<uintptr_t*>(sp) = goexit;
    gp->sched.lr = 0;
  }
  gp->sched.sp = sp;
  gp->sched.pc = entry;
  gp->sched.g = reinterpret_cast<uintptr_t>(gp);
  gp->atomicstatus.store(_Grunnable);
  events_.Record(Ev::kGoStart, gp->goid, Reason::kNone, entry, static_cast<int64_t>(entry - code_->base()));
  allgs_.push_back(std::move(g));
  return gp;
}

void Runtime::runqput(P* pp, G* gp) { pp->runq.push_back(gp); }

void Runtime::ready(G* gp) {
  casgstatus(gp, _Gwaiting, _Grunnable);
  enqueueReady(gp);
}

void Runtime::enqueueReady(G* gp) {
  M* m = tls_m;
  events_.Record(Ev::kReady, gp->goid, Reason::kNone, 0, m && m->p ? 0 : 1);
  if (m && m->p) {
    runqput(m->p, gp);
  } else {
    globrunq_.push_back(gp);
    events_.Record(Ev::kGlobalRunq, gp->goid);
  }
  idle_cv_.notify_all();
}

void Runtime::dropg(M* m) {
  G* gp = m->curg.load();
  if (gp) gp->m = nullptr;
  m->curg.store(nullptr);
}

void Runtime::CheckTimers() {
  if (sleepers_.empty()) return;
  int64_t now = MonotonicNanos();
  for (size_t i = 0; i < sleepers_.size();) {
    if (sleepers_[i]->wake_at <= now) {
      G* gp = sleepers_[i];
      sleepers_.erase(sleepers_.begin() + static_cast<long>(i));
      ready(gp);
    } else {
      i++;
    }
  }
}

// The pop is its own event: execute may wait for a scan bit without the
// lock before it records kResume, and meanwhile the queue is already empty
// for every other P (the protocol oracle's fairness rule counts from here).
G* Runtime::globrunqget(P* pp) {
  G* gp = globrunq_.front();
  globrunq_.pop_front();
  events_.Record(Ev::kGlobalRunqGet, gp->goid, Reason::kNone, 0, pp->id);
  return gp;
}

G* Runtime::findRunnable(M* m) {
  P* pp = m->p;
  for (;;) {
    if (main_done_.load() || stopping_.load()) return nullptr;
    SchedSafePoints(m);
    if (main_done_.load() || stopping_.load()) return nullptr;
    CheckTimers();
    // Every 61st tick the global queue goes first, so it cannot starve.
    if (!opts_.mutations.no_global_fairness && pp->schedtick.load() % 61 == 0 && !globrunq_.empty()) {
      return globrunqget(pp);
    }
    if (!pp->runq.empty()) {
      G* gp = pp->runq.front();
      pp->runq.pop_front();
      return gp;
    }
    if (!globrunq_.empty()) return globrunqget(pp);
    // Steal half of another P's local run queue, as findRunnable does.
    for (auto& other : ps_) {
      if (other.get() == pp || other->runq.empty()) continue;
      size_t n = (other->runq.size() + 1) / 2;
      for (size_t k = 0; k < n; k++) {
        pp->runq.push_back(other->runq.back());
        other->runq.pop_back();
      }
      G* gp = pp->runq.front();
      pp->runq.pop_front();
      return gp;
    }
    // Idle: release the P while sleeping, as an idle M does in Go.
    if (gcwaiting_.load()) continue;  // stop for the world instead
    pp->status.store(_Pidle);
    pp->m.store(nullptr);
    int64_t next = -1;
    for (G* s : sleepers_)
      if (next < 0 || s->wake_at < next) next = s->wake_at;
    std::unique_lock<std::mutex> lk(mu_, std::adopt_lock);
    if (next >= 0) {
      int64_t wait = next - MonotonicNanos();
      if (wait > 0) idle_cv_.wait_for(lk, std::chrono::nanoseconds(wait));
    } else {
      // Every M idle with no timer pending and nothing runnable: every
      // goroutine is waiting for another, as Go's checkdead finds.
      // (Once: an M woken spuriously comes back here.)
      // A goroutine suspendG holds is not asleep: resumeG wakes us again.
      if (++idle_ms_ == static_cast<int>(ms_.size()) && !main_done_.load() && !deadlock_ && suspending_.load() == 0 &&
          gc_requests_.empty()) {
        deadlock_ = true;
        events_.Record(Ev::kDeadlock, 0);
        done_cv_.notify_all();
      }
      // Woken by whatever makes work: ready, newproc, main's exit, Run's stop.
      idle_cv_.wait(lk);
      idle_ms_--;
    }
    lk.release();
    pp->m.store(m);
    if (pp->status.load() == _Pidle) pp->status.store(_Prunning);
  }
}

void Runtime::execute(M* m, G* gp) {
  P* pp = m->p;
  // A G whose scan bit suspendG holds waits for resumeG (without the
  // scheduler lock, which resumeG may need).
  for (uint32_t expect = _Grunnable; !gp->atomicstatus.compare_exchange_weak(expect, _Grunning); expect = _Grunnable) {
    if ((expect & ~static_cast<uint32_t>(_Gscan)) != _Grunnable) casgstatus(gp, _Grunnable, _Grunning);  // throws
    mu_.unlock();
    sched_yield();
    mu_.lock();
  }
  // The request is used up and kResume recorded before the M shows gp as
  // its curg: a request preemptone raises on seeing gp there (sysmon's,
  // say) then comes after both and stands for this run, in the runtime and
  // in the events alike. (With curg set first, a request raised in between
  // was recorded before kResume but survived it: the protocol oracle,
  // under //fuzz:preempt_fuzz with sysmon as the source, saw a preemption
  // "without a request".)
  {
    RequestOrder order(gp, pp);  // a request raised now (for gp, or on pp) is wholly before this or wholly after
    if (!opts_.mutations.live_request) {
      // The request that stopped it (if any) is used up.
      gp->preempt.store(false);
      pp->preempt.store(false);
    }
    gp->stackguard0.store(gp->stack.lo + kStackGuard);
    events_.Record(Ev::kResume, gp->goid, Reason::kNone, gp->sched.pc, pp->id);
  }
  pp->schedtick.fetch_add(1);
  if (gp->xstate_live) {
    // xRegRestore: the G's extended state into this P's scratch area, where
    // asyncPreempt reloads it from.
    memcpy(pp->xscratch, gp->xstate.get(), xstate_bytes_);
    gp->xstate_live = false;
  }
  gp->asyncSafePoint = false;  // it runs again: no longer stopped anywhere
  gp->m = m;
  m->curg.store(gp);
  mu_.unlock();
  sp_gogo(&gp->sched);
}

void Runtime::schedule(M* m) {
  mu_.lock();
  G* gp = findRunnable(m);
  if (gp == nullptr) {
    mu_.unlock();
    siglongjmp(m->exit_jmp, 1);
  }
  execute(m, gp);
}

void Runtime::goschedImpl(G* gp) {
  M* m = gp->m;
  mu_.lock();
  casgstatus(gp, _Grunning, _Grunnable);
  dropg(m);
  globrunq_.push_back(gp);
  events_.Record(Ev::kGlobalRunq, gp->goid);
  mu_.unlock();
  schedule(m);
}

// --- services ------------------------------------------------------------

void Runtime::Service(ir::Service s, G* gp) {
  M* m = gp->m;
  switch (s) {
    case ir::Service::kGo: {
      {
        std::lock_guard<std::mutex> lk(mu_);
        G* ng = newproc(static_cast<uintptr_t>(gp->param), false);
        runqput(m->p, ng);
      }
      idle_cv_.notify_all();  // after the lock (runtime.h: kNotifyUnlocked)
      break;
    }
    case ir::Service::kHandshake: {
      std::lock_guard<std::mutex> lk(mu_);
      size_t key = static_cast<size_t>(gp->param) % handshakes_.size();
      handshakes_[key] = true;
      for (G* w : waiters_[key]) ready(w);
      waiters_[key].clear();
      break;
    }
    case ir::Service::kAcquirem:
      m->locks++;
      break;
    case ir::Service::kReleasem:
      // releasem: making up for a request deferred while locks were held.
      m->locks--;
      if (m->locks == 0 && gp->preempt.load()) {
        gp->stackguard0.store(kStackPreempt);
        events_.Record(Ev::kRearm, gp->goid);
      }
      break;
    case ir::Service::kMallocingBegin:
      m->mallocing++;
      break;
    case ir::Service::kAlloc:
      m->mallocing++;
      gp->param = mallocgc(static_cast<size_t>(gp->param), gp);
      m->mallocing--;
      break;
    case ir::Service::kMallocingEnd:
      m->mallocing--;
      break;
    case ir::Service::kPreemptoffBegin:
      m->preemptoff = "test preemptoff";
      break;
    case ir::Service::kPreemptoffEnd:
      m->preemptoff = "";
      break;
    case ir::Service::kEntersyscall:
      casgstatus(gp, _Grunning, _Gsyscall);
      m->p->status.store(_Psyscall);
      m->p->syscalltick.fetch_add(1);
      break;
    case ir::Service::kExitsyscall: {
      uint32_t st = _Psyscall;
      if (!m->p->status.compare_exchange_strong(st, _Prunning)) {
        // forEachP took the P meanwhile and ran its function on the P's
        // behalf, under mu_: the P is taken back once that is done.
        std::lock_guard<std::mutex> lk(mu_);
        m->p->status.store(_Prunning);
      }
      casgstatus(gp, _Gsyscall, _Grunning);  // waits while suspendG holds it
      // As Go's exitsyscall: a request that arrived meanwhile is re-armed.
      if (gp->preempt.load()) {
        gp->stackguard0.store(kStackPreempt);
        events_.Record(Ev::kRearm, gp->goid);
      }
      break;
    }
    case ir::Service::kSecretBegin:
      gp->secret++;
      break;
    case ir::Service::kSecretEnd:
      gp->secret--;
      break;
    case ir::Service::kCallback: {
      size_t n = static_cast<size_t>(gp->param);
      if (n >= opts_.hooks.callbacks.size() || !opts_.hooks.callbacks[n]) Throw("callback: no such test hook");
      opts_.hooks.callbacks[n](*this, gp);
      break;
    }
    default:
      Throw("a parking service reached systemstack");
  }
}

void Runtime::ParkingService(ir::Service s, G* gp) {
  M* m = gp->m;
  switch (s) {
    case ir::Service::kGosched:
      events_.Record(Ev::kGosched, gp->goid, Reason::kNone, gp->sched.pc);
      goschedImpl(gp);
    case ir::Service::kSleep: {
      mu_.lock();
      gp->wake_at = MonotonicNanos() + static_cast<int64_t>(gp->param);
      casgstatus(gp, _Grunning, _Gwaiting);
      events_.Record(Ev::kPark, gp->goid, Reason::kNone, gp->sched.pc);
      dropg(m);
      sleepers_.push_back(gp);
      mu_.unlock();
      schedule(m);
    }
    case ir::Service::kWait: {
      mu_.lock();
      size_t key = static_cast<size_t>(gp->param) % handshakes_.size();
      if (handshakes_[key]) {
        mu_.unlock();
        sp_gogo(&gp->sched);  // already signalled: carry on
      }
      casgstatus(gp, _Grunning, _Gwaiting);
      events_.Record(Ev::kPark, gp->goid, Reason::kNone, gp->sched.pc);
      dropg(m);
      waiters_[key].push_back(gp);
      mu_.unlock();
      schedule(m);
    }
    case ir::Service::kGC: {
      // runtime.GC: the collector's worker runs it; the caller waits
      // (_Gwaiting, scanned like any blocked goroutine) and is readied after.
      StartGCWorker();
      mu_.lock();
      casgstatus(gp, _Grunning, _Gwaiting);
      events_.Record(Ev::kPark, gp->goid, Reason::kNone, gp->sched.pc);
      dropg(m);
      gc_requests_.push_back({gp, false});
      mu_.unlock();
      gc_cv_.notify_all();  // after the lock (runtime.h: kNotifyUnlocked)
      schedule(m);
    }
    case ir::Service::kGoexit: {
      mu_.lock();
      casgstatus(gp, _Grunning, _Gdead);
      events_.Record(Ev::kGoExit, gp->goid);
      dropg(m);
      bool main_returned = gp->is_main;
      if (main_returned) {
        if (opts_.hooks.exit_on_main_return) _exit(0);
        main_done_.store(true);
      }
      mu_.unlock();
      if (main_returned) {  // (after the lock: the woken take it at once; this M keeps the Runtime alive)
        idle_cv_.notify_all();
        done_cv_.notify_all();
      }
      schedule(m);
    }
    default:
      Throw("a returning service reached mcall");
  }
}

// --- Ms -----------------------------------------------------------------

void Runtime::mstart1(M* m) {
  tls_m = m;
  EventLog::BindThread(m->id, m->p->id);  // every M here holds its own P for the run
  m->tid = OSThread::Tid();
  // g0.sched.sp: where mcall and systemstack start C++ on this M. Below this
  // frame, so that schedule() can leave through exit_jmp.
  m->g0->sched.sp = (sp_getsp() - 1024) & ~uintptr_t(15);
  // The mask is not saved with the jump (a system call to read it, and one
  // to put it back): the M runs with MSignalMask throughout, and only a
  // fault's jump, out of its handler, leaves the handler's blocked.
  if (int how = sigsetjmp(m->exit_jmp, 0); how == 0) {
    mu_.lock();
    m->p->m.store(m);
    m->p->status.store(_Prunning);
    mu_.unlock();
    schedule(m);
  } else if (how == 2) {
    pthread_sigmask(SIG_SETMASK, &MSignalMask(), nullptr);
  }
  // Leaving: the run is over, or this M's goroutine faulted.
  mu_.lock();
  m->p->status.store(_Pidle);
  m->p->m.store(nullptr);
  if (faulted_.load()) done_cv_.notify_all();
  mu_.unlock();
  tls_m = nullptr;
  // A SIGURG aimed at this M that its handler has not taken (a late
  // preemptM's) is taken off before the thread is another M's.
  if (m->urg_sent.load() != m->urg_taken.load()) OSThread::SignalsOutstanding();
}

void Runtime::MStartTrampoline(void* arg) {
  M* m = static_cast<M*>(arg);
  m->rt->mstart1(m);
}

void Runtime::MThreadMain(void* arg) {
  M* m = static_cast<M*>(arg);
  sp_call_on_stack(m->g0->stack.hi, &MStartTrampoline, m);
  Runtime* rt = m->rt;
  // Counted under mu_: Run's stop loop waits on done_cv_ for the last one.
  // Notified after the lock is given back (the waiter, woken holding
  // nothing, takes it at once instead of sleeping on it again); the Runtime
  // is still there, as Run joins this thread before it returns.
  {
    std::lock_guard<std::mutex> lk(rt->mu_);
    rt->running_ms_.fetch_sub(1);
  }
  rt->done_cv_.notify_all();
}

void Runtime::StartM(int i) {
  auto m = std::make_unique<M>();
  m->id = i;
  m->rt = this;
  m->p = ps_[i].get();
  m->g0 = &m->g0_storage;
  m->is_m0 = i == 0;
  // The g0 stack: 256 KiB of our own, so the M's pthread stack stays clean.
  size_t size = 256 * 1024;
  void* mem = TakeMapping(Mapping::kG0Stack, size);
  if (mem == nullptr) {
    mem = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) Throw("cannot map a g0 stack");
    CountFreshMapping(Mapping::kG0Stack);
  }
  m->g0_mapping = mem;
  m->g0_mapped = size;
  m->g0->stack.lo = reinterpret_cast<uintptr_t>(mem);
  m->g0->stack.hi = m->g0->stack.lo + size;
  m->g0->goid = -(i + 1);
  M* raw = m.get();
  ms_.push_back(std::move(m));
  running_ms_.fetch_add(1);
  if (!raw->thread.StartTakingSignals(&MThreadMain, raw, MSignalMask())) Throw("cannot start an M's thread");
}

std::vector<int64_t> Runtime::GlobalRunq() {
  std::lock_guard<std::mutex> lk(mu_);
  std::vector<int64_t> ids;
  for (G* gp : globrunq_) ids.push_back(gp->goid);
  return ids;
}

bool Runtime::Run(const std::string& main_fn, std::string* err) {
  if (!code_) {
    *err = "Run before Load";
    return false;
  }
  const FuncInfo* f = table_->Find(main_fn);
  if (!f || f->has(kFuncAsm)) {
    *err = "no function " + main_fn + " in the program";
    return false;
  }
  for (int i = 0; i < opts_.settings.gomaxprocs; i++) {
    auto p = std::make_unique<P>();
    p->id = i;
    ps_.push_back(std::move(p));
  }
  {
    std::lock_guard<std::mutex> lk(mu_);
    G* mg = newproc(code_->base() + f->entry, true);
    globrunq_.push_back(mg);
    events_.Record(Ev::kGlobalRunq, mg->goid);
  }
  // Every M is a thread of its own; the calling thread only waits, as the
  // process does in Go, for main to return (or for a deadlock), so a
  // goroutine that never reaches a safe point cannot hold the run hostage.
  if (opts_.hooks.sysmon) {
    // Before any M and before its thread: a look asked for at once (by
    // main, by a trap's requester) waits for sysmon's first pass.
    std::lock_guard<std::mutex> lk(sysmon_mu_);
    sysmon_running_ = true;
  }
  for (int i = 0; i < opts_.settings.gomaxprocs; i++) StartM(i);
  // (The collector's worker starts with the first collection: a `gc`, or
  // preemptPark under hooks.collect_at_async_preempt.)
  if (opts_.hooks.sysmon && !sysmon_driven()) {
    sysmon_started_ = true;
    sysmon_thread_.Start([](void* a) {
      // sysmon runs on an M of its own, without a P, as in Go.
      Runtime* rt = static_cast<Runtime*>(a);
      EventLog::BindThread(rt->opts_.settings.gomaxprocs, -1);
      rt->SysmonLoop();
    }, this);
  }
  {
    std::unique_lock<std::mutex> lk(mu_);
    auto over = [&] { return main_done_.load() || deadlock_ || faulted_.load() || aborted_; };
    if (run_bound_ns_ > 0) {
      auto deadline = std::chrono::steady_clock::now() + std::chrono::nanoseconds(run_bound_ns_);
      if (!done_cv_.wait_until(lk, deadline, over)) {
        char b[96];
        snprintf(b, sizeof b, "main did not return within the bound (%g s)", static_cast<double>(run_bound_ns_) / 1e9);
        AbortLocked(b);
      }
    } else {
      done_cv_.wait(lk, over);
    }
  }

  // The program is over. Go's process exits here; the harness asks every
  // goroutine still running user code to stop at its next safe point,
  // repeatedly, for a while, and abandons the Ms that never reach one
  // (their memory is leaked, see ~Runtime): the run still ended as Go's.
  stopping_.store(true);
  idle_cv_.notify_all();
  // (Waiting on done_cv_, which each M's end notifies, rather than
  // sleeping a millisecond: nearly every run's Ms end within microseconds,
  // and the sleep was a fuzz execution's largest wait.)
  for (int round = 0; round < 2000 && running_ms_.load() > 0; round++) {
    preemptall(Source::kNone);
    std::unique_lock<std::mutex> lk(mu_);
    idle_cv_.notify_all();
    done_cv_.wait_for(lk, std::chrono::milliseconds(1), [&] { return running_ms_.load() == 0; });
  }
  if (sysmon_started_) {
    sysmon_stop_.store(true);
    NudgeSysmon();
    sysmon_thread_.Join();
  } else if (sysmon_driven()) {
    std::lock_guard<std::mutex> lk(sysmon_mu_);  // (after a pass under way)
    sysmon_running_ = false;
  }
  StopGCWorker();
  abandoned_ms_ = running_ms_.load();
  if (abandoned_ms_ == 0)
    for (auto& m : ms_) m->thread.Join();
  if (faulted_.load() && freed_access_.hit) {
    // The liveness oracle's evidence: the collector freed what the program
    // still reached.
    char buf[320];
    const FuncInfo* f = FuncAt(freed_access_.pc);
    snprintf(buf, sizeof buf,
             "unexpected signal %s in goroutine %lld: pc=%s+0x%lx addr=0x%lx: found pointer to free object: "
             "heap object %lld was freed by collection %lld while still reachable",
             SignalName(fault_sig_), static_cast<long long>(fault_goid_), f ? f->name.c_str() : "?",
             static_cast<unsigned long>(f ? freed_access_.pc - code_base() - f->entry : freed_access_.pc),
             static_cast<unsigned long>(freed_access_.addr), static_cast<long long>(freed_access_.object),
             static_cast<long long>(freed_access_.freed_by));
    *err = buf;
    fatal_ = true;
    return false;
  }
  if (faulted_.load()) {
    // Go: a fault in user code is a panic ("[signal SIGSEGV: segmentation
    // violation ...]") and exit status 2.
    // With the g register, for a fault outside generated code (asyncPreempt,
    // mcall): whether it held the goroutine, and whether that had an M.
    // A signal that was no access says what it was instead (the sixth
    // one-hour campaign's arm64 "pc=0x...704 addr=0x0" was asyncPreempt's
    // first instruction, which reads no memory).
    char buf[512];
    std::string forced = DescribeFaultCode(fault_code_);
    snprintf(buf, sizeof buf, "unexpected signal %s in goroutine %lld: pc=%s addr=0x%lx%s%s (g register %s%lx, curg.m %s)",
             SignalName(fault_sig_), static_cast<long long>(fault_goid_), DescribePC(fault_pc_).c_str(),
             static_cast<unsigned long>(fault_addr_), forced.empty() ? "" : " ", forced.c_str(),
             fault_g_curg_ ? "= curg 0x" : "0x", static_cast<unsigned long>(fault_g_), fault_curg_m_ ? "set" : "nil");
    *err = buf;
    fatal_ = true;
    return false;
  }
  // A store through a pointer left into a stack copystack moved (its
  // poison changed): memory corruption, found now rather than at the store.
  if (abandoned_ms_ == 0 && !CheckRetiredStacks(err)) {
    fatal_ = true;
    return false;
  }
  bool aborted;
  {
    std::lock_guard<std::mutex> lk(mu_);
    aborted = aborted_ && !main_done_.load();
  }
  if (aborted) {
    *err = "run aborted: " + abort_why_;
    return false;
  }
  if (deadlock_) {
    // Go: "fatal error: all goroutines are asleep - deadlock!", exit status 2.
    *err = "all goroutines are asleep - deadlock!";
    fatal_ = true;
    return false;
  }
  return true;
}

}  // namespace safepoint
