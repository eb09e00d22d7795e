#include "oracle/judge.h"

#include "oracle/invisibility.h"
#include "oracle/liveness.h"
#include "oracle/save_area.h"

namespace safepoint::oracle {

namespace {

// The request's source did its part: sysmon, shown a goroutine that has run
// forcePreemptNS (10 ms, chapter 9.7.6) on one time slice, retakes its P.
// Not asked of it when the goroutine was not to be seen running (a system
// call's P is handed off, not preempted), when a request was standing at
// the trap (raised since the goroutine last ran: the program's end asking
// every goroutine to stop, say), or when another source asked first: the
// signal answered that request. Its evidence is an absence, told only by
// the whole log: when the runtime's log filled before the retake came (a
// generated program that runs thousands of goroutines: the one-hour
// campaign's loong64 finding), the run went on past what was kept, and the
// oracle says nothing.
std::string SourceProgress(const harness::Observation& o) {
  if (o.source != harness::RequestSource::kSysmon || o.unseen != Reason::kNone) return "";
  size_t trap = o.events.size();
  for (size_t i = 0; i < o.events.size() && trap == o.events.size(); i++)
    if (o.events[i].kind == Ev::kTrap && o.events[i].pc == o.pc) trap = i;
  if (trap == o.events.size()) return "";
  const int64_t goid = o.events[trap].goid;
  bool standing = false;
  for (size_t i = 0; i < trap; i++) {
    const Event& e = o.events[i];
    if (e.goid == goid && e.kind == Ev::kResume) standing = false;
    if (e.goid == goid && e.kind == Ev::kRequest) standing = true;
  }
  if (standing) return "";
  for (size_t i = trap; i < o.events.size(); i++) {
    const Event& e = o.events[i];
    if (e.kind == Ev::kRetake) return "";
    if (e.kind == Ev::kRequest && e.goid == goid) return "";  // another source asked first
  }
  if (o.events_dropped > 0) return "";
  return "sysmon did not retake a P whose goroutine ran forcePreemptNS (10 ms) on one time slice";
}

// `dropped`: the run's events the log did not keep (a chain's further
// points share the first's log).
void Decision(const PortModel& model, const State& state, const harness::Observation& o, size_t dropped,
              Judgement* jp) {
  Judgement& j = *jp;
  State st = state;
  if (st.async_preempt_stack != 0 && o.stack_room >= 0)
    st.stack_ok = static_cast<size_t>(o.stack_room) >= st.async_preempt_stack;
  j.expect = Decide(model, st, o.pos);
  if (state.asyncpreemptoff) {
    // No asynchronous preemption: nothing may be injected, whatever the rules say.
    j.expect = {Verdict::kNotWanted, Rule::kNone};
    j.got = !o.decided ? "no decision" : o.not_wanted ? "not wanted" : o.accepted ? "accepted" : "refused";
    j.agree = !o.decided || o.not_wanted;
  } else if (!o.decided) {
    // Only preemptone, raised by the trap handler itself, makes the signal
    // arrive at the armed instruction by construction. The other sources
    // raise theirs from another thread, and whether its SIGURG is pending
    // before the handler returns rests on the handler's wait, which under
    // QEMU (riscv64: the suite's fixed campaign, a sysmon request whose
    // signal came after the goroutine had gone on) is not always enough:
    // their "no decision" is not judged; their requests are (protocol,
    // progress). Nor is anyone's when the log filled: the decision may be
    // among the events it did not keep.
    j.got = dropped > 0 ? "no decision in the events kept" : "no decision";
    j.agree = o.source != harness::RequestSource::kPreemptOne || dropped > 0;
  } else if (o.not_wanted) {
    // A signal that found no request where none was raised (a source that
    // settled without asking, then a late signal from an earlier request)
    // is Go's behaviour, not a wrong decision; preemptone always asks.
    j.got = "not wanted";
    j.agree = j.expect.verdict == Verdict::kNotWanted || (o.source != harness::RequestSource::kPreemptOne && !o.asked);
  } else {
    j.got = !o.accepted ? std::string("refused (") + ReasonName(o.reason) + ")"
                        : o.resume == o.pc ? "accepted" : "resumed at +" + std::to_string(o.resume - (o.pc - o.off));
    j.agree = Agrees(model, j.expect, o.accepted, o.pc, o.resume, o.reason, o.op_start, o.entry);
  }
}

// The frame table at one point, judged where the goroutine stopped: the
// armed PC, or where an accepted preemption resumes (a restart's start),
// since that is the PC every walk of the stopped goroutine starts from.
void FrameTable(const FuncTable& table, const harness::Observation& o, size_t point, Judgement* jp) {
  Judgement& j = *jp;
  if (!o.frame.seen || !o.trapped) return;
  const bool stopped = o.decided && o.accepted && !o.not_wanted;
  FrameCheck c = CheckFrameTable(table, o.frame, stopped && o.resume != 0 ? o.resume : o.frame.pc);
  if (!c.judged) {
    if (j.frame_unjudged.empty()) j.frame_unjudged = c.unjudged;
    return;
  }
  j.frame_judged++;
  if (c.ok()) return;
  if (!stopped) {
    j.frame_allowed.push_back(c.problem);
  } else if (j.frame.empty()) {
    j.frame = c.problem;
    j.frame_point = point;
  }
}

}  // namespace

Judgement Judge(const PortInfo& port, const State& state, const harness::EndState& baseline,
                const harness::Observation& o, const FuncTable* table) {
  const PortModel& model = port.model;
  Judgement j;
  if (table != nullptr) {
    FrameTable(*table, o, 0, &j);
    for (size_t i = 0; i < o.then.size(); i++) FrameTable(*table, o.then[i], i + 1, &j);
  }
  j.lost = LivenessProblem(o);
  j.protocol = CheckProtocol(o.events);
  if (!o.ran) {
    if (j.lost.empty()) j.run_error = o.run_error.empty() ? "the run failed" : o.run_error;
    return j;
  }
  if (!o.trapped) return j;
  j.reached = true;
  j.progress = SourceProgress(o);
  Decision(model, state, o, o.events_dropped, &j);
  // A chain's further points: each decision judged as the first's.
  for (size_t i = 0; i < o.then.size() && j.agree; i++) {
    if (!o.then[i].trapped) break;
    Judgement p;
    Decision(model, state, o.then[i], o.events_dropped, &p);
    if (!p.agree) j.agree = false, j.expect = p.expect, j.got = p.got, j.point = i + 1;
  }
  j.state_diff = DiffEndState(baseline, o.end);
  if (o.save.seen)
    j.save_wrong = CheckAgainstTrap(port, o.save.frame, o.save.tier, o.save.xstate, o.save.trap, &j.save_compared);
  return j;
}

std::string Judgement::Oracle() const {
  if (!frame.empty()) return "frame-table";
  if (!lost.empty()) return "liveness";
  if (!run_error.empty()) return "run";
  if (!semantics.empty()) return "semantics";
  if (!progress.empty()) return "progress";
  if (!agree) return "decision";
  if (!save_wrong.empty()) return "save-area";
  if (!state_diff.empty()) return "invisibility";
  if (!protocol.ok()) return "protocol";
  return "";
}

std::string Judgement::Headline() const {
  std::string o = Oracle();
  if (o == "decision") return "decision oracle: expected " + Describe(expect) + ", runtime " + got;
  if (o == "invisibility") return "invisibility oracle: the end state differs after a preemption the runtime " + got;
  if (o == "save-area") return "save-area oracle: asyncPreempt's save area does not hold the registers of the trap";
  if (o == "frame-table")
    return "frame-table oracle: the function table's frame differs from the machine's where a preemption was accepted";
  if (o == "liveness") return "liveness oracle: a collection freed a reachable object";
  if (o == "run") return "run failed";
  if (o == "semantics") return "semantics oracle: the unpreempted run's end state is not the program's meaning";
  if (o == "progress") return "progress oracle: " + progress;
  if (o == "protocol") return "protocol oracle: " + protocol.rule;
  return "";
}

}  // namespace safepoint::oracle
