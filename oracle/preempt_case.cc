#include "oracle/preempt_case.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <ctime>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <utility>

#include "core/ir.h"
#include "harness/generator.h"
#include "harness/runtime_under_test.h"
#include "harness/sweep.h"
#include "oracle/decision.h"
#include "oracle/invisibility.h"
#include "oracle/semantics.h"
#include "platforms/native.h"

namespace safepoint::oracle {

namespace {

// A generated program's text by the generator's bytes, and a parsed
// program by its text: the last kMemo of each (cleared when full, as the
// references are). Inputs that differ only in their points (MutateCasePoints)
// bring the same program again.
constexpr size_t kMemo = 256;
std::mutex g_memo_mu;
std::map<std::string, std::string>& GeneratedTexts() {
  static auto* m = new std::map<std::string, std::string>;
  return *m;
}
std::map<std::string, std::shared_ptr<const ir::Program>>& ParsedPrograms() {
  static auto* m = new std::map<std::string, std::shared_ptr<const ir::Program>>;
  return *m;
}

std::string GeneratedProgram(const uint8_t* data, size_t n) {
  std::string key(reinterpret_cast<const char*>(data), n);
  {
    std::lock_guard<std::mutex> lk(g_memo_mu);
    auto it = GeneratedTexts().find(key);
    if (it != GeneratedTexts().end()) return it->second;
  }
  std::string text = harness::GenerateProgramFromBytes(n > 0 ? data : nullptr, n);
  std::lock_guard<std::mutex> lk(g_memo_mu);
  if (GeneratedTexts().size() >= kMemo) GeneratedTexts().clear();
  GeneratedTexts().emplace(std::move(key), text);
  return text;
}

}  // namespace

std::shared_ptr<const ir::Program> CaseProgram(const std::string& text, std::string* err) {
  {
    std::lock_guard<std::mutex> lk(g_memo_mu);
    auto it = ParsedPrograms().find(text);
    if (it != ParsedPrograms().end()) return it->second;
  }
  auto prog = std::make_shared<ir::Program>();
  if (!ir::ParseProgram(text, prog.get(), err)) return nullptr;
  std::lock_guard<std::mutex> lk(g_memo_mu);
  if (ParsedPrograms().size() >= kMemo) ParsedPrograms().clear();
  ParsedPrograms().emplace(text, prog);
  return prog;
}

namespace {

// Where a case's chain begins (its mark and count valid), else `size`:
// the one reading of it, DecodeCase's and MutateCasePoints's.
bool ChainMarked(const uint8_t* data, size_t size) {
  return size >= 3 && data[size - 2] == 0x5A && data[size - 1] == 0xA5;
}

// Where a case's chain begins, its points in *then (none for no chain or a
// bad count), else `size`: the one reading of it, DecodeCase's and
// MutateCasePoints's.
size_t ReadChain(const uint8_t* data, size_t size, std::vector<Case::Point>* then) {
  then->clear();
  if (!ChainMarked(data, size)) return size;
  size_t n = data[size - 3];
  if (n < 1 || n > harness::kMaxArmThen || size < 3 + 3 * n + 1) return size;
  const uint8_t* p = data + size - 3 - 3 * n;
  for (size_t i = 0; i < n; i++, p += 3)
    then->push_back({static_cast<uint16_t>(p[0] | p[1] << 8), static_cast<harness::RequestSource>(p[2] & 3)});
  return size - 3 - 3 * n;
}

}  // namespace

size_t MutateCasePoints(uint8_t* data, size_t size, size_t max_size, uint32_t seed) {
  if (size == 0 || max_size < 4) return 0;
  std::vector<Case::Point> then;
  const size_t body = ReadChain(data, size, &then);
  if (then.empty() && ChainMarked(data, size)) return 0;  // a bad chain: no case
  // splitmix64: a mutation draws a handful of numbers, not worth seeding a
  // Mersenne twister's 624 words for.
  uint64_t state = seed;
  auto rng = [&state] {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return static_cast<uint32_t>((z ^ (z >> 31)) >> 32);
  };
  auto pick = [&](uint32_t k) { return rng() % k; };
  auto source = [&] { return static_cast<harness::RequestSource>(pick(4)); };
  // The armed point (bytes 2-3, zeros past the body's end).
  uint16_t armed = static_cast<uint16_t>((body > 2 ? data[2] : 0) | (body > 3 ? data[3] : 0) << 8);
  auto move = [&](uint16_t off) -> uint16_t {
    // Anywhere, or the next few instructions (the same operation's
    // lowering, the instruction after a refused one).
    if (pick(2) == 0) return static_cast<uint16_t>(rng());
    int d = 1 + static_cast<int>(pick(8));
    return static_cast<uint16_t>(pick(2) ? off + d : off - d);
  };
  switch (pick(8)) {
    case 0: case 1: case 2: case 3: case 4:
      armed = move(armed);
      break;
    default: {  // the chain
      size_t i = then.empty() ? 0 : pick(static_cast<uint32_t>(then.size()));
      switch (then.empty() ? 0 : pick(5)) {
        case 0:  // a point more
          if (then.size() < harness::kMaxArmThen) {
            then.push_back({static_cast<uint16_t>(rng()), source()});
            break;
          }
          [[fallthrough]];
        case 1: then[i].armed = move(then[i].armed); break;
        case 2: then[i].source = source(); break;
        case 3: then.erase(then.begin() + static_cast<long>(i)); break;  // the last one gone ends the chain
        default: then.clear(); break;
      }
    }
  }
  // The bytes again: settings, the program's bytes as they were (padded to
  // the armed point's two bytes), then the chain.
  std::vector<uint8_t> b(data, data + body);
  b.resize(std::max<size_t>(body, 4), 0);
  b[2] = static_cast<uint8_t>(armed), b[3] = static_cast<uint8_t>(armed >> 8);
  if (!then.empty()) {
    const std::string chain = EncodeChain(then);
    b.insert(b.end(), chain.begin(), chain.end());
  }
  // Without a chain the input must not end in what reads as one's mark.
  if (b.size() > max_size || (then.empty() && ChainMarked(b.data(), b.size()))) return 0;
  memcpy(data, b.data(), b.size());
  return b.size();
}

bool DecodeCase(const uint8_t* data, size_t size, Case* out, std::string* err) {
  auto at = [&](size_t i) -> uint8_t { return i < size ? data[i] : 0; };
  Case c;
  if (size == 0) {
    *err = "empty: a case has at least its settings byte";
    return false;
  }
  c.settings = at(0);
  c.source = static_cast<harness::RequestSource>(c.settings >> 6);
  c.opts = CaseOptions(c.settings);
  // The chain, if the input ends in one: it is cut off before the
  // generator reads the rest.
  const size_t body = ReadChain(data, size, &c.then);
  if (c.then.empty() && ChainMarked(data, size)) {
    *err = "a chain's mark with a bad count (want 1.." + std::to_string(harness::kMaxArmThen) +
           " points after the case's own bytes)";
    return false;
  }
  size = body;
  uint8_t which = at(1);
  c.armed = static_cast<uint16_t>(at(2) | at(3) << 8);
  if (which == 0) {
    c.program = harness::BuiltinSweepProgram(), c.program_name = "the built-in sweep program";
  } else if (which == 1) {
    c.program = harness::BuiltinHeapSweepProgram(), c.program_name = "the collection sweep's program";
  } else {
    c.program = GeneratedProgram(size > 4 ? data + 4 : nullptr, size > 4 ? size - 4 : 0);
    c.program_name = "a generated program";
  }
  *out = std::move(c);
  return true;
}

RuntimeOptions CaseOptions(uint8_t settings) {
  RuntimeOptions o;
  o.hooks.sysmon = false;  // preemption only where the input arms it
  // A generated program may run thousands of goroutines (a go loop): the
  // log keeps a run's first events, and the progress oracle needs those
  // after the trap (oracle/judge.cc).
  o.hooks.event_capacity = 1 << 15;
  o.hooks.event_times = false;  // judged by order only
  if (settings & 1) o.settings.godebug = "asyncpreemptoff=1";
  o.experiments.runtimesecret = (settings & 2) != 0;
  o.experiments.simd = (settings & 4) != 0;
  o.settings.xstate_scan = (settings & 8) ? XStateScan::kGo126 : XStateScan::kGo127;
  if (settings & 16) harness::CollectAtEveryPreemption(&o);
  o.settings.gomaxprocs = (settings & 32) ? 2 : 1;
  return o;
}

std::string EncodeChain(const std::vector<Case::Point>& then) {
  std::string s;
  for (const Case::Point& p : then) {
    s += static_cast<char>(p.armed & 0xFF);
    s += static_cast<char>(p.armed >> 8);
    s += static_cast<char>(static_cast<uint8_t>(p.source));
  }
  s += static_cast<char>(then.size());
  s += '\x5A';
  s += '\xA5';
  return s;
}

namespace {
// The reference of each program under each settings byte: the
// invisibility oracle's. Inputs repeat programs often.
// (Looked up by a view of the case's text, and kept as a shared, never
// changed, reference: a copy of the program's text for the key and of the
// function table and end state for the value, at every execution, were
// most of a cached case's time outside its run under QEMU.)
template <typename Text>
struct BaselineKeyOf {
  Text program;
  uint8_t settings;
  bool predict;  // a reference predicted or run (Case::predict): never one for the other
};
using BaselineKey = BaselineKeyOf<std::string>;
using BaselineKeyView = BaselineKeyOf<const std::string&>;
struct BaselineLess {
  using is_transparent = void;
  template <typename A, typename B>
  bool operator()(const A& a, const B& b) const {
    if (a.predict != b.predict) return a.predict < b.predict;
    return a.settings != b.settings ? a.settings < b.settings : a.program < b.program;
  }
};
struct Reference {
  harness::Baseline base;  // its end state an unpreempted run's, or predicted
  bool predicted = false;
  // With a prediction: where the code may run (MayRun), and the first armed
  // run that never reached its armed instruction and was judged sound (its
  // end state the predicted one), shared by the reference's copies and
  // set once, under g_mu. An instruction the program never reaches is
  // answered from that run (harness::ObserveUnreachedAt), not run again:
  // without a preemption the run is the unpreempted one, whichever
  // unreached instruction was armed.
  MayRun may_run;
  struct Unreached {
    std::shared_ptr<const harness::Observation> run;
  };
  std::shared_ptr<Unreached> unreached = std::make_shared<Unreached>();
  // The function table: the kept runtime's own, shared (not a copy for
  // every new reference), or the one an unpreempted run made (base.table
  // moved here). Null until the reference is made.
  std::shared_ptr<const FuncTable> table;
};

// Whether the unpreempted run of a predicted program never reaches the
// instruction at `pos`: one of an operation the interpreter never ran, the
// entry of a function it never called, or the stub of a service no
// operation it ran called. Not the morestack path after a body (stack
// growth is the runtime's business), nor runtime code that is no service's
// stub.
bool NeverReached(const ir::Program& prog, const MayRun& may, const IrPosition& pos) {
  if (pos.stub) {
    const size_t s = static_cast<size_t>(pos.service);
    return pos.service != ir::Service::kCount && s < may.services.size() && !may.services[s];
  }
  if (pos.fn == nullptr || pos.after_body) return false;
  const size_t f = static_cast<size_t>(pos.fn - prog.funcs.data());
  if (f >= prog.funcs.size() || f >= may.entered.size()) return false;
  if (pos.op < 0) return !may.entered[f];
  return static_cast<size_t>(pos.op) < may.ops[f].size() && !may.ops[f][static_cast<size_t>(pos.op)];
}
std::mutex g_mu;
// A reference once kept here is never changed (a change is made to a copy,
// which is kept instead).
std::map<BaselineKey, std::shared_ptr<Reference>, BaselineLess>& Baselines() {
  static auto* m = new std::map<BaselineKey, std::shared_ptr<Reference>, BaselineLess>;
  return *m;
}

// The vector registers the program's vfill and vdump reach at `tier`.
VectorLayout LayoutOf(const PortInfo& port, int tier) {
  VectorLayout l;
  for (const SavedReg& r : port.saved_regs)
    if (r.kind == SavedReg::kVector && r.tier == tier) l.regs.push_back({r.offset, r.size});
  return l;
}

}  // namespace

// (200,000 operations: beyond, a run is cheaper to make than to predict.)
bool PredictEndState(const PortInfo& port, const ir::Program& prog, int tier, harness::EndState* end,
                     MayRun* may_run) {
  if (tier < 0) return false;
  std::string why;
  return InterpretEndState(prog, "main.main", LayoutOf(port, tier), &end->globals, &end->vdump, &why, 200'000,
                           may_run);
}

namespace {
// Where RunCase's time goes, for the fuzzer's report (CaseTimeSummary).
struct PhaseClock {
  std::atomic<int64_t> ns[4] = {};
  std::atomic<int64_t> cases{0}, baselines{0}, reached{0}, predicted{0}, contradicted{0}, answered{0};
};
PhaseClock g_phases;
int64_t NowNs() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}
// Adds the time since *t to phase i and restarts *t.
void Lap(int i, int64_t* t) {
  int64_t now = NowNs();
  g_phases.ns[i].fetch_add(now - *t);
  *t = now;
}
}  // namespace

std::string CaseTimeSummary() {
  int64_t n = g_phases.cases.load();
  if (n == 0) return "no cases run";
  const char* names[4] = {"parse", "unpreempted run", "armed run", "judge"};
  char b[512];
  snprintf(b, sizeof b,
           "%lld cases (%lld unpreempted runs, %lld predicted from the program's meaning of which %lld were "
           "contradicted by an armed run and run, the rest cached; the armed instruction reached in %lld; %lld "
           "armed where the program never goes, answered from an earlier such run): per case",
           static_cast<long long>(n), static_cast<long long>(g_phases.baselines.load()),
           static_cast<long long>(g_phases.predicted.load()), static_cast<long long>(g_phases.contradicted.load()),
           static_cast<long long>(g_phases.reached.load()), static_cast<long long>(g_phases.answered.load()));
  std::string s = b;
  for (int i = 0; i < 4; i++) {
    snprintf(b, sizeof b, "%s %s %.0f us", i ? "," : "", names[i], g_phases.ns[i].load() / 1e3 / n);
    s += b;
  }
  return s;
}

namespace {
// The key a kept runtime is found by: its settings, source, clock and
// mutation. Made once per combination a thread sees without a mutation
// (five strings joined at every execution before).
std::string KeepOptions(const Case& c, bool sysmon) {
  auto make = [&] {
    return "settings " + std::to_string(c.settings) + ", source " + harness::RequestSourceName(c.source) +
           (sysmon ? ", sysmon's clock" : "") + ", mutation " + c.mutation;
  };
  const size_t source = static_cast<size_t>(c.source);
  constexpr size_t kSources = harness::kRequestSources;
  if (!c.mutation.empty() || source >= kSources) return make();
  thread_local std::vector<std::string> made(256 * kSources * 2);
  std::string& s = made[(c.settings * kSources + source) * 2 + (sysmon ? 1 : 0)];
  if (s.empty()) s = make();
  return s;
}
}  // namespace

CaseResult RunCase(const Case& c, std::string* err) {
  g_phases.cases.fetch_add(1);
  int64_t t = NowNs();
  CaseResult r;
  const PortInfo& port = c.target ? *c.target->port : NativePort();
  r.port = &port;
  std::shared_ptr<const ir::Program> parsed = CaseProgram(c.program, err);
  if (parsed == nullptr) {
    *err = c.program_name + ": " + *err;
    return r;
  }
  const ir::Program& prog = *parsed;
  r.program = parsed;  // Observation::pos points into it (found by ASan under //fuzz:preempt_fuzz)
  bool sysmon = false;
  for (const Case::Point& p : c.then) sysmon = sysmon || p.source == harness::RequestSource::kSysmon;
  harness::KeepAs keep;
  if (c.keep_runtime) {
    keep.options = KeepOptions(c, sysmon);
    keep.program = c.program;
  }
  harness::RuntimeFactory make = c.target ? c.target->runtimes(c, sysmon, std::move(keep))
                                          : harness::ReferenceRuntimeFactory(c.opts, c.source, sysmon, std::move(keep));
  std::shared_ptr<Reference> held;
  {
    std::lock_guard<std::mutex> lk(g_mu);
    auto it = Baselines().find(BaselineKeyView{c.program, c.settings, c.predict});
    if (it != Baselines().end() && !c.edit_prediction) held = it->second;
  }
  if (!held) held = std::make_shared<Reference>();
  Reference& ref = *held;  // (until the contradiction below, which copies it)
  harness::Baseline& base = ref.base;
  Lap(0, &t);
  auto keep_baseline = [&] {
    if (c.edit_prediction) return;  // a test's: for its case alone
    std::lock_guard<std::mutex> lk(g_mu);
    if (Baselines().size() > 256) Baselines().clear();
    Baselines()[BaselineKey{c.program, c.settings, c.predict}] = held;
  };
  // A real unpreempted run into *run (a fresh or kept runtime from make).
  auto unpreempted = [&](harness::Baseline* run) {
    g_phases.baselines.fetch_add(1);
    return harness::RunBaseline(prog, "main.main", make, run, err);
  };
  // The reference, unless cached: the function table the program's load
  // gives, and its end state predicted from the program's meaning where
  // the interpreter can. Otherwise a kept runtime runs the armed run first
  // (the program stays loaded for it), and an unpreempted run only when
  // the armed instruction was reached: an armed run that never trapped is
  // an unpreempted run, and its end state the reference (a third of a
  // fuzzing campaign's cases); a fresh runtime runs the unpreempted run
  // first, as it always did.
  const bool cached = ref.table && !ref.table->insns.empty();
  bool deferred = false;
  if (!cached) {
    if (!prog.Find("main.main")) {
      *err = "program: no function main.main";
      return r;
    }
    if (!c.keep_runtime && !c.predict) {
      if (!unpreempted(&base)) return r;
      ref.table = std::make_shared<const FuncTable>(std::move(base.table));
    } else {
      std::unique_ptr<harness::RuntimeUnderTest> rt = make();
      if (!rt->Load(prog, err)) return r;
      ref.table = rt->shared_table();
      ref.predicted = c.predict && PredictEndState(port, prog, rt->xstate_tier(), &base.end, &ref.may_run);
      if (ref.predicted && c.edit_prediction) c.edit_prediction(&base.end);
      if (ref.predicted) {
        g_phases.predicted.fetch_add(1);
      } else if (c.keep_runtime) {
        deferred = true;
      } else {
        // A fresh runtime with the program loaded: its run is the
        // unpreempted one (not a second runtime made and loaded for it).
        g_phases.baselines.fetch_add(1);
        if (!rt->Run("main.main", err)) return r;
        base.end = rt->end_state();
      }
    }
    if (!deferred) keep_baseline();
  }
  const FuncTable& table = *ref.table;  // (the contradiction below copies the reference, sharing the table)
  r.instructions = table.insns.size();
  for (const FuncInfo& f : table.funcs) r.code_bytes = std::max(r.code_bytes, f.end);
  if (r.instructions == 0) {
    *err = "the program has no instructions";
    return r;
  }
  size_t k = c.armed % r.instructions;
  std::vector<harness::ChainPoint> then;
  for (const Case::Point& p : c.then) then.push_back({p.armed % r.instructions, p.source});
  Lap(1, &t);
  // (Not for a test's edited prediction: its case alone.)
  const bool answering = c.answer_unreached && !c.edit_prediction;
  std::shared_ptr<const harness::Observation> unreached_run;
  if (ref.predicted && answering) {
    std::lock_guard<std::mutex> lk(g_mu);
    unreached_run = ref.unreached->run;
  }
  bool answered = unreached_run && NeverReached(prog, ref.may_run, harness::PositionOf(prog, table, k)) &&
                  harness::ObserveUnreachedAt(prog, table, k, *unreached_run, &r.obs, then);
  if (answered) {
    r.answered = true;
    g_phases.answered.fetch_add(1);
  } else if (!harness::ObserveAt(prog, "main.main", make, table, k, &r.obs, then)) {
    *err = "instruction " + std::to_string(k) + " belongs to no function";
    return r;
  }
  Lap(2, &t);
  if (r.obs.trapped) g_phases.reached.fetch_add(1);
  // The semantics oracle: a real unpreempted run's end state against the
  // prediction (an armed run that never trapped is one).
  std::string semantics;
  if (deferred) {
    if (!r.obs.trapped && r.obs.ran) {
      base.end = r.obs.end;
    } else {
      harness::Baseline run;
      if (!unpreempted(&run)) return r;
      base.end = run.end;
    }
    keep_baseline();
    Lap(1, &t);
  } else if (ref.predicted && !r.obs.trapped && r.obs.ran) {
    semantics = DiffEndState(base.end, r.obs.end);
  }
  State state;
  state.runtimesecret = c.opts.experiments.runtimesecret;
  state.asyncpreemptoff = (c.settings & 1) != 0;
  state.async_preempt_stack = AsyncPreemptStack(port);
  r.judgement = Judge(port, state, base.end, r.obs, &table);
  if (ref.predicted && r.obs.trapped && !r.judgement.state_diff.empty()) {
    // The armed run contradicts the prediction: a real unpreempted run
    // decides, and is the reference from now on.
    g_phases.contradicted.fetch_add(1);
    harness::Baseline run;
    if (!unpreempted(&run)) return r;
    semantics = DiffEndState(base.end, run.end);
    auto changed = std::make_shared<Reference>(ref);  // the kept one may be another case's now
    changed->base.end = run.end;
    changed->predicted = false;
    held = changed;  // (ref and base are the old one's from here)
    keep_baseline();
    r.judgement = Judge(port, state, held->base.end, r.obs, held->table.get());
  }
  r.judgement.semantics = semantics;
  // The first sound run that never reached its armed instruction answers
  // for the instructions the program never reaches from now on.
  // (held, not ref: a contradiction above replaced the reference, and ref
  // may be gone with it.)
  if (!answered && answering && held->predicted && r.obs.ran && !r.obs.trapped && r.judgement.ok()) {
    std::lock_guard<std::mutex> lk(g_mu);
    if (!held->unreached->run) held->unreached->run = std::make_shared<const harness::Observation>(r.obs);
  }
  Lap(3, &t);
  r.ok = true;
  if (!r.judgement.lost.empty() && c.opts.settings.xstate_scan == XStateScan::kGo126) {
    Case again = c;
    again.opts.settings.xstate_scan = XStateScan::kGo127;
    again.settings &= static_cast<uint8_t>(~8);
    std::string e2;
    CaseResult r2 = RunCase(again, &e2);
    if (r2.ok && r2.judgement.ok()) {
      r.known_hazard = "Go 1.26's hazard: " + r.judgement.lost + "; kept under Go 1.27's policy";
      r.judgement = r2.judgement;
    }
  }
  return r;
}

namespace {
std::string Where(const harness::Observation& o) {
  char b[16];
  snprintf(b, sizeof b, "%x", o.off - o.func_entry);
  return o.func + "+0x" + b;
}
}  // namespace

namespace {
// One point's showing: reached or not, and the decision there.
std::string Showed(const harness::Observation& o) {
  if (!o.trapped) return "not reached";
  if (!o.decided) return "no decision there";
  if (o.accepted) return o.resume == o.pc ? "accepted" : "accepted, resumed elsewhere (restarted)";
  return std::string("refused (") + ReasonName(o.reason) + ")";
}
}  // namespace

std::string Observed(const Case& c, const CaseResult& r) {
  const harness::Observation& o = r.obs;
  std::string s = "armed at " + Where(o) + " (instruction " + std::to_string(o.k) + " of " +
                  std::to_string(r.instructions) + "), request from " + harness::RequestSourceName(c.source) + ": ";
  if (o.trapped)
    s += "stack room " + std::to_string(o.stack_room) + " bytes (asyncPreemptStack " +
         std::to_string(AsyncPreemptStack(r.port ? *r.port : NativePort())) + "), ";
  s += Showed(o);
  if (r.judgement.frame_judged > 0)
    s += "; frame table: " + std::string(r.judgement.frame.empty() ? "as the machine's" : "differs") + " at " +
         std::to_string(r.judgement.frame_judged) + " point(s)" +
         (r.judgement.frame_allowed.empty() ? "" : ", " + std::to_string(r.judgement.frame_allowed.size()) +
                                                       " where no preemption stopped (allowed)");
  if (o.accepted && r.judgement.save_compared > 0)
    s += "; save area: " + std::to_string(r.judgement.save_compared - r.judgement.save_wrong.size()) + " of " +
         std::to_string(r.judgement.save_compared) + " registers as the trap had them";
  for (size_t i = 0; i < o.then.size(); i++)
    s += "; then point " + std::to_string(i + 1) + " at " + Where(o.then[i]) + " (instruction " +
         std::to_string(o.then[i].k) + "), request from " + harness::RequestSourceName(o.then[i].source) + ": " +
         Showed(o.then[i]);
  return s;
}

std::string Describe(const Case& c, const CaseResult& r) {
  const harness::Observation& o = r.obs;
  std::string where = Where(o);
  // "ERROR:" in the first line: libFuzzer's -fork echoes a job's lines that
  // hold it to the campaign's log (the job's own log is deleted).
  std::string s = "==safepoint-fuzz== ERROR: " + r.judgement.Headline() + " [" +
                  std::string((r.port ? *r.port : NativePort()).name) + "]\n";
  s += "  at " + where + " of " + c.program_name + ", settings 0x" + [&] {
    char b[8];
    snprintf(b, sizeof b, "%02x", c.settings);
    return std::string(b);
  }() + ", request from " + harness::RequestSourceName(c.source) + "\n";
  for (size_t i = 0; i < o.then.size(); i++)
    s += "  then point " + std::to_string(i + 1) + ": " + Where(o.then[i]) + ", request from " +
         harness::RequestSourceName(o.then[i].source) + (o.then[i].trapped ? "" : ", not reached") + "\n";
  if (!r.judgement.frame.empty())
    s += "  frame table (point " + std::to_string(r.judgement.frame_point) + "): " + r.judgement.frame + "\n";
  if (r.judgement.point > 0) s += "  the decision that disagreed: point " + std::to_string(r.judgement.point) + "\n";
  for (const std::string& w : r.judgement.save_wrong) s += "  save area: " + w + "\n";
  if (!r.judgement.state_diff.empty()) s += "  end state:" + r.judgement.state_diff + "\n";
  if (!r.judgement.semantics.empty())
    s += "  the unpreempted run against the program's meaning (oracle/semantics.h):" + r.judgement.semantics + "\n";
  if (!r.judgement.lost.empty()) s += "  " + r.judgement.lost + "\n";
  if (!r.judgement.run_error.empty()) s += "  " + r.judgement.run_error + "\n";
  if (!r.judgement.protocol.ok()) s += "  " + r.judgement.protocol.detail + "\n";
  // The point that disagreed: the armed one, or a chained one.
  const harness::Observation& d =
      r.judgement.point > 0 && r.judgement.point <= o.then.size() ? o.then[r.judgement.point - 1] : o;
  if (r.judgement.reached &&
      (!d.decided || !r.judgement.agree || !r.judgement.progress.empty() || !r.judgement.protocol.ok())) {
    // What the runtime did after the trap instead of deciding there (for a
    // chained point, from the trap of the point before it, whose request
    // may still be in flight).
    // For the protocol oracle, the 64 events that end in the one where the
    // problem showed.
    const uintptr_t from_pc = r.judgement.point > 1 ? o.then[r.judgement.point - 2].pc : o.pc;
    const bool protocol = !r.judgement.protocol.ok();
    size_t first = 0, end = o.events.size();
    if (protocol) {
      size_t last = 0;
      while (last + 1 < o.events.size() && o.events[last].seq < r.judgement.protocol.seq) last++;
      first = last >= 63 ? last - 63 : 0;
      end = last + 1;
      s += "  the events up to #" + std::to_string(r.judgement.protocol.seq) + ":";
    } else {
      s += std::string("  events after the ") + (&d == &o ? "trap" : "trap of the point before") + ":";
    }
    int shown = 0;
    bool after = false;
    for (size_t i = first; i < end; i++) {
      const Event& e = o.events[i];
      after = after || (e.kind == Ev::kTrap && e.pc == from_pc) || protocol;
      if (!after || shown == 64) continue;
      s += std::string(" ") + EvName(e.kind) + (e.source != Source::kNone ? std::string("/") + SourceName(e.source) : "") +
           (e.goid != 0 ? ":g" + std::to_string(e.goid) : "") +
           // The P a goroutine runs on, and the P whose flag a request raised.
           ((e.kind == Ev::kResume || e.kind == Ev::kRequest) && e.arg >= 0 ? ",p" + std::to_string(e.arg) : "") +
           (e.pc == d.pc ? "@armed" : "") +
           (&d != &o && e.pc == from_pc ? "@before" : "");
      shown++;
    }
    s += "\n";
  }
  return s;
}

bool AddDecoderCoverage(const std::vector<std::string>& inputs, harness::GeneratorCoverage* cov, std::string* err) {
  for (const std::string& in : inputs) {
    Case c;
    std::string why;
    if (!DecodeCase(reinterpret_cast<const uint8_t*>(in.data()), in.size(), &c, &why)) continue;
    const bool collect = (c.settings & 16) != 0;
    std::vector<harness::RequestSource> sources{c.source};
    for (const Case::Point& p : c.then) sources.push_back(p.source);
    for (harness::RequestSource s : sources)
      cov->Count("request", std::string(harness::RequestSourceName(s)) +
                                (collect ? ", a collection at the preemption" : ", no collection"));
    if (c.program_name != "a generated program") continue;
    if (!cov->Add(c.program, &why)) {
      *err = "a decoded input's program does not parse: " + why + "\n" + c.program;
      return false;
    }
  }
  return true;
}

std::vector<std::string> CoverageRandomInputs(int n, uint64_t seed) {
  constexpr size_t kMaxInput = 512;  // the preemption fuzzer's -max_len
  std::mt19937_64 rng(seed);
  std::vector<std::string> out;
  for (int k = 0; k < n; k++) {
    std::string in(1 + rng() % kMaxInput, '\0');
    for (char& c : in) c = static_cast<char>(rng());
    in[1] = static_cast<char>(2 + rng() % 254);  // a generated program
    out.push_back(std::move(in));
  }
  return out;
}

}  // namespace safepoint::oracle
