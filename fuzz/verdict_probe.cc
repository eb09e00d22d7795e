#include "oracle/frame_table.h"
#include "fuzz/verdict_probe.h"

#include <map>
#include <memory>
#include <utility>

#include "core/events.h"
#include "core/ir.h"
#include "harness/runtime_under_test.h"
#include "harness/sweep.h"
#include "oracle/decision.h"
#include "platforms/native.h"

namespace safepoint::verdict {

namespace {

RuntimeOptions OptionsFor(uint32_t settings) {
  RuntimeOptions o;
  o.hooks.sysmon = false;  // preemption only where a probe arms it
  o.hooks.event_capacity = 4096;
  o.hooks.event_times = false;
  if (settings & kSetAsyncPreemptOff) o.settings.godebug = "asyncpreemptoff=1";
  o.experiments.runtimesecret = (settings & kSetRuntimeSecret) != 0;
  o.settings.gomaxprocs = (settings & kSetGomaxprocs2) ? 2 : 1;
  return o;
}

// A program's unpreempted run and, per operation (global index), the index
// of its first instruction in the function table (-1: none).
struct Prepared {
  harness::Baseline base;
  std::vector<long> first_insn;
};

// Inputs repeat programs often (a mutation of the probes keeps the program).
std::map<std::pair<std::string, uint32_t>, std::shared_ptr<const Prepared>>& Cache() {
  static auto* m = new std::map<std::pair<std::string, uint32_t>, std::shared_ptr<const Prepared>>;
  return *m;
}

std::vector<long> FirstInstructions(const ir::Program& prog, const FuncTable& t) {
  std::map<std::string, size_t> base;  // function name -> its first global operation index
  size_t total = 0;
  for (const ir::Function& f : prog.funcs) base[f.name] = total, total += f.body.size();
  std::vector<long> first(total, -1);
  for (size_t k = 0; k < t.insns.size(); k++) {
    const FuncInfo* f = t.Find(t.insns[k]);
    if (f == nullptr || t.insn_op[k] < 0) continue;
    auto it = base.find(f->name);
    if (it == base.end()) continue;  // a runtime stub
    size_t g = it->second + static_cast<size_t>(t.insn_op[k]);
    if (g < total && first[g] < 0) first[g] = static_cast<long>(k);
  }
  return first;
}

ProbeResult Probe(const ir::Program& prog, const harness::RuntimeFactory& make, const Prepared& p, uint32_t settings,
                  uint32_t op) {
  ProbeResult r;
  r.op = op;
  if (p.first_insn[op] < 0) return r;  // kNotEmitted
  size_t k = static_cast<size_t>(p.first_insn[op]);
  r.insn = static_cast<uint32_t>(k);
  harness::Observation o;
  if (!harness::ObserveAt(prog, "main.main", make, p.base.table, k, &o)) {
    r.actual = Outcome::kRunError, r.detail = "instruction " + std::to_string(k) + " belongs to no function";
    return r;
  }
  oracle::State state;
  state.runtimesecret = (settings & kSetRuntimeSecret) != 0;
  // The stack rule from the room the trap saw, as oracle::Judge has it: the
  // room and asyncPreemptStack are the port's own (its frames, its
  // asyncPreempt), so ports may differ here by their data.
  state.async_preempt_stack = oracle::AsyncPreemptStack(NativePort());
  if (o.stack_room >= 0) state.stack_ok = static_cast<size_t>(o.stack_room) >= state.async_preempt_stack;
  oracle::Expect x = oracle::Decide(NativePort().model, state, o.pos);
  if (settings & kSetAsyncPreemptOff) x = {oracle::Verdict::kNotWanted, oracle::Rule::kNone};  // as oracle::Judge says
  r.expect = static_cast<uint8_t>(x.verdict);
  if (x.verdict == oracle::Verdict::kRefuse) r.expect_rule = oracle::RuleName(x.rule);
  if (x.single_sequence) r.flags |= kSingleSequence;
  if (o.off == o.func_entry) r.flags |= kAtEntry;
  if (!o.ran) {
    r.actual = Outcome::kRunError, r.detail = o.run_error.empty() ? "the run failed" : o.run_error;
  } else if (!o.trapped) {
    r.actual = Outcome::kNotReached;
  } else if (!o.decided) {
    r.actual = Outcome::kNoDecision;
  } else if (o.not_wanted) {
    r.actual = Outcome::kNotWanted;
  } else if (!o.accepted) {
    r.actual = Outcome::kRefused, r.detail = ReasonName(o.reason);
  } else {
    r.actual = o.resume == o.pc ? Outcome::kAccepted : o.resume == o.entry ? Outcome::kRestartedAtEntry
                                                                            : Outcome::kResumedElsewhere;
    if (o.resume == o.entry) r.flags |= kResumeAtEntry;
    // The frame table where the goroutine stopped, against its stack at the
    // trap: a disagreement is this port's finding whatever the others do.
    oracle::FrameCheck fc = oracle::CheckFrameTable(p.base.table, o.frame, o.resume);
    if (fc.judged && !fc.ok()) r.actual = Outcome::kRunError, r.detail = kFrameTableFinding + fc.problem;
  }
  return r;
}

}  // namespace

ProbeResponse ProbeOnNativePort(const ProbeRequest& q, void (*mutate)(RuntimeMutations&)) {
  ProbeResponse resp;
  ir::Program prog;
  std::string err;
  if (!ir::ParseProgram(q.program, &prog, &err)) {
    resp.status = Status::kBadProgram, resp.message = "the program does not parse: " + err;
    return resp;
  }
  if (!prog.Find("main.main")) {
    resp.status = Status::kBadProgram, resp.message = "the program has no main.main";
    return resp;
  }
  size_t total = 0;
  for (const ir::Function& f : prog.funcs) total += f.body.size();
  for (uint32_t op : q.ops)
    if (op >= total) {
      resp.status = Status::kMalformed;
      resp.message = "operation " + std::to_string(op) + " of a program of " + std::to_string(total);
      return resp;
    }
  RuntimeOptions opts = OptionsFor(q.settings);
  if (mutate) mutate(opts.mutations);
  harness::RuntimeFactory make = harness::ReferenceRuntimeFactory(opts);
  auto key = std::make_pair(q.program, q.settings);
  std::shared_ptr<const Prepared> p;
  if (auto it = Cache().find(key); it != Cache().end()) p = it->second;
  if (!p) {
    auto fresh = std::make_shared<Prepared>();
    if (!harness::RunBaseline(prog, "main.main", make, &fresh->base, &err)) {
      // The port's emitter may refuse the program (its declared branch
      // reach, say): that is the port's data, not a failed run.
      std::string load_err;
      if (!make()->Load(prog, &load_err)) {
        resp.status = Status::kPortRefused, resp.message = load_err;
      } else {
        resp.status = Status::kBaselineFailed, resp.message = err;
      }
      return resp;
    }
    fresh->first_insn = FirstInstructions(prog, fresh->base.table);
    if (Cache().size() > 64) Cache().clear();
    Cache()[key] = fresh;
    p = fresh;
  }
  resp.insns = static_cast<uint32_t>(p->base.table.insns.size());
  for (uint32_t op : q.ops) resp.probes.push_back(Probe(prog, make, *p, q.settings, op));
  return resp;
}

}  // namespace safepoint::verdict
