// The judge on observations written by hand, one field at a time: for each
// thing an observation carries that the judge reads (where the preemption
// was and what the model says there, whether it trapped, what the runtime
// decided and where it resumed, the stack room, who asked, the run's error,
// its lost objects, its events, its save area, its end state, a chain's
// further points), a passing observation and a twin differing in that
// alone, which the judge must report in its own field of the Judgement.
// The decision path's branches (asyncpreemptoff, a signal that found no
// request, no decision at all) are here; the progress oracle's are in
// judge_test.cc, the frame table's in frame_table_test.cc.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "core/event_script.h"
#include "oracle/judge.h"
#include "platforms/native.h"

namespace safepoint::oracle {
namespace {

using harness::Observation;
using harness::RequestSource;

constexpr uintptr_t kBase = 0x10000;  // where the program's code is
constexpr uint32_t kEntryOff = 0x40;  // the function's entry
constexpr uint32_t kOff = 0x48;       // the armed instruction
constexpr uintptr_t kPc = kBase + kOff;
constexpr uintptr_t kEntry = kBase + kEntryOff;

ir::Insn Movi(int rd, int64_t imm) { return ir::Insn{.op = ir::Op::kMovi, .rd = rd, .imm = imm}; }

// main.f: a leaf without a frame (no stack check), `movi r0, 1; ret`: the
// model accepts in place at its first operation. `edit` makes another kind
// of function of it.
ir::Function Leaf(void (*edit)(ir::Function&) = nullptr) {
  ir::Function f;
  f.name = "main.f";
  f.package = "main";
  f.body = {Movi(0, 1), ir::Insn{.op = ir::Op::kRet}};
  if (edit != nullptr) edit(f);
  return f;
}
const ir::Function& Accepting() {
  static const ir::Function f = Leaf();
  return f;
}
const ir::Function& Assembly() {  // refused: asm
  static const ir::Function f = Leaf([](ir::Function& f) { f.is_asm = true; });
  return f;
}
const ir::Function& AtEntry() {  // restarted at the entry
  static const ir::Function f = Leaf([](ir::Function& f) { f.restart_at_entry = true; });
  return f;
}
const ir::Function& InSyscall() {  // op 1 is in a system call: not wanted
  static const ir::Function f = Leaf([](ir::Function& f) {
    f.body.insert(f.body.begin(), ir::Insn{.op = ir::Op::kService, .service = ir::Service::kEntersyscall});
  });
  return f;
}
const ir::Function& LoadsAGlobal() {  // `ldg r0, g[1]`: through REGTMP on arm64 and loong64
  static const ir::Function f =
      Leaf([](ir::Function& f) { f.body[0] = ir::Insn{.op = ir::Op::kLdGlobal, .rd = 0, .imm = 1}; });
  return f;
}

// Trapped at kPc, op `op` of f, asked by preemptone; nothing decided yet.
Observation TrappedIn(const ir::Function& f, int op = 0) {
  Observation o;
  o.off = kOff;
  o.func = f.name;
  o.func_entry = kEntryOff;
  o.pos.fn = &f;
  o.pos.op = op;
  o.pos.insn_in_fn = 2;
  o.pos.last_in_op = true;
  o.ran = o.trapped = true;
  o.pc = kPc;
  o.op_start = kPc;
  o.entry = kEntry;
  o.asked = true;
  o.stack_room = 4096;
  return o;
}
Observation Accepted(Observation o, uintptr_t resume) {
  o.decided = o.accepted = true;
  o.resume = resume;
  return o;
}
Observation Refused(Observation o, Reason why) {
  o.decided = true;
  o.reason = why;
  return o;
}
Observation NotWanted(Observation o) {
  o.decided = o.not_wanted = true;
  return o;
}

Judgement JudgeIt(const Observation& o, const State& s = {}, const PortInfo& port = NativePort()) {
  return Judge(port, s, o.end, o);
}

TEST(JudgeFields, AnAcceptanceInPlaceAgreesAndAResumeElsewhereDoesNot) {
  Judgement j = JudgeIt(Accepted(TrappedIn(Accepting()), kPc));
  EXPECT_TRUE(j.reached);
  EXPECT_EQ(j.expect.verdict, Verdict::kAccept);
  EXPECT_EQ(j.got, "accepted");
  EXPECT_TRUE(j.agree);
  EXPECT_TRUE(j.ok()) << j.Headline();
  // resume: one instruction on; `got` says where, from the code's base
  // (pc - off).
  j = JudgeIt(Accepted(TrappedIn(Accepting()), kPc + 4));
  EXPECT_FALSE(j.agree);
  EXPECT_EQ(j.got, "resumed at +" + std::to_string(kOff + 4));
  EXPECT_EQ(j.Oracle(), "decision");
  EXPECT_EQ(j.Headline(), "decision oracle: expected accepted, runtime resumed at +" + std::to_string(kOff + 4));
  // pc: the same resume, the trap recorded one instruction later.
  Observation o = Accepted(TrappedIn(Accepting()), kPc);
  o.pc = kPc + 4;
  o.off = kOff + 4;
  EXPECT_FALSE(JudgeIt(o).agree);
}

TEST(JudgeFields, ARefusalIsJudgedByItsReason) {
  Judgement j = JudgeIt(Refused(TrappedIn(Assembly()), Reason::kAsm));
  EXPECT_EQ(j.expect.verdict, Verdict::kRefuse);
  EXPECT_EQ(j.expect.rule, Rule::kAsm);
  EXPECT_EQ(j.got, "refused (asm)");
  EXPECT_TRUE(j.agree);
  // reason: refused, but by another rule.
  j = JudgeIt(Refused(TrappedIn(Assembly()), Reason::kNosplit));
  EXPECT_FALSE(j.agree);
  EXPECT_EQ(j.got, "refused (nosplit)");
  EXPECT_EQ(j.Headline(), "decision oracle: expected refused (asm), runtime refused (nosplit)");
  // accepted: the same point, accepted in place.
  j = JudgeIt(Accepted(TrappedIn(Assembly()), kPc));
  EXPECT_FALSE(j.agree);
  EXPECT_EQ(j.got, "accepted");
  // pos: the same refusal where the model accepts.
  EXPECT_FALSE(JudgeIt(Refused(TrappedIn(Accepting()), Reason::kAsm)).agree);
}

TEST(JudgeFields, ARestartAtEntryIsJudgedAgainstTheObservedEntry) {
  EXPECT_TRUE(JudgeIt(Accepted(TrappedIn(AtEntry()), kEntry)).agree);
  EXPECT_FALSE(JudgeIt(Accepted(TrappedIn(AtEntry()), kPc)).agree);
  // entry: the function's entry recorded one instruction later.
  Observation o = Accepted(TrappedIn(AtEntry()), kEntry);
  o.entry = kEntry + 4;
  EXPECT_FALSE(JudgeIt(o).agree);
}

TEST(JudgeFields, ARestartIsJudgedAgainstTheObservedOperationStart) {
  int ports = 0;
  for (const PortInfo* p : AllPorts()) {
    if (!p->model.regtmp_restartable || p->model.max_sequence_bytes < 8) continue;
    SCOPED_TRACE(p->name);
    ports++;
    Observation o = Accepted(TrappedIn(LoadsAGlobal()), kPc - 4);
    o.op_start = kPc - 4;
    Judgement j = JudgeIt(o, {}, *p);
    EXPECT_EQ(j.expect.verdict, Verdict::kRestart);
    EXPECT_TRUE(j.expect.single_sequence);
    EXPECT_TRUE(j.agree) << j.Headline();
    // op_start: the operation recorded as starting at the PC.
    o.op_start = kPc;
    EXPECT_FALSE(JudgeIt(o, {}, *p).agree);
  }
  EXPECT_GE(ports, 2) << "arm64 and loong64 restart REGTMP sequences";
}

// stack_room: the judge decides the stack rule from the room the trap saw,
// against the port's asyncPreemptStack, when the state gives it.
TEST(JudgeFields, TheStackRoomDecidesTheStackRule) {
  State s;
  s.async_preempt_stack = AsyncPreemptStack(NativePort());
  ASSERT_GT(s.async_preempt_stack, 0u);
  Observation enough = TrappedIn(Accepting());
  enough.stack_room = static_cast<int64_t>(s.async_preempt_stack);
  Observation short_one = enough;
  short_one.stack_room--;
  EXPECT_TRUE(JudgeIt(Accepted(enough, kPc), s).agree);
  Judgement j = JudgeIt(Accepted(short_one, kPc), s);
  EXPECT_EQ(j.expect.rule, Rule::kStack);
  EXPECT_FALSE(j.agree);
  EXPECT_TRUE(JudgeIt(Refused(short_one, Reason::kStack), s).agree);
  EXPECT_FALSE(JudgeIt(Refused(enough, Reason::kStack), s).agree);
  // No room recorded (-1): the state's own stack_ok stands.
  Observation unknown = short_one;
  unknown.stack_room = -1;
  EXPECT_TRUE(JudgeIt(Accepted(unknown, kPc), s).agree);
  s.stack_ok = false;
  EXPECT_EQ(JudgeIt(Accepted(unknown, kPc), s).expect.rule, Rule::kStack);
}

// asyncpreemptoff=1: whatever the rules say, nothing may be decided; a
// signal that arrives finds nothing to do.
TEST(JudgeFields, UnderAsyncpreemptoffOnlyNoDecisionOrNotWantedAgree) {
  State off;
  off.asyncpreemptoff = true;
  struct Case {
    Observation o;
    const char* got;
    bool agree;
  } cases[] = {
      {TrappedIn(Accepting()), "no decision", true},
      {NotWanted(TrappedIn(Accepting())), "not wanted", true},
      {Accepted(TrappedIn(Accepting()), kPc), "accepted", false},
      {Refused(TrappedIn(Accepting()), Reason::kAsyncOff), "refused", false},
  };
  for (const Case& c : cases) {
    Judgement j = JudgeIt(c.o, off);
    EXPECT_EQ(j.expect.verdict, Verdict::kNotWanted);
    EXPECT_EQ(j.got, c.got);
    EXPECT_EQ(j.agree, c.agree) << c.got;
  }
  // The same observations with asynchronous preemption on: the model's
  // verdict again.
  EXPECT_TRUE(JudgeIt(cases[2].o).agree);
  EXPECT_FALSE(JudgeIt(cases[1].o).agree);
}

// decided: no decision at the armed instruction is wrong for preemptone
// only, whose signal arrives there by construction, and only on a log
// that kept every event (events_dropped).
TEST(JudgeFields, NoDecisionIsWrongForPreemptoneOnTheWholeLog) {
  Observation o = TrappedIn(Accepting());
  Judgement j = JudgeIt(o);
  EXPECT_EQ(j.got, "no decision");
  EXPECT_FALSE(j.agree);
  EXPECT_TRUE(JudgeIt(Accepted(o, kPc)).agree);
  for (RequestSource src : {RequestSource::kSysmon, RequestSource::kSuspendG, RequestSource::kForEachP}) {
    o.source = src;
    j = JudgeIt(o);
    EXPECT_EQ(j.got, "no decision");
    EXPECT_TRUE(j.agree) << RequestSourceName(src);
  }
  o.source = RequestSource::kPreemptOne;
  o.events_dropped = 1;
  j = JudgeIt(o);
  EXPECT_EQ(j.got, "no decision in the events kept");
  EXPECT_TRUE(j.agree);
}

// not_wanted: right where the model expects no decision (a system call);
// elsewhere wrong where a request stood (asked) or preemptone asked.
TEST(JudgeFields, NotWantedIsRightWhereTheModelWantsNoDecision) {
  Judgement j = JudgeIt(NotWanted(TrappedIn(InSyscall(), 1)));
  EXPECT_EQ(j.expect.verdict, Verdict::kNotWanted);
  EXPECT_EQ(j.got, "not wanted");
  EXPECT_TRUE(j.agree);
  j = JudgeIt(NotWanted(TrappedIn(Accepting())));
  EXPECT_EQ(j.got, "not wanted");
  EXPECT_FALSE(j.agree);
  // The runtime decided in the system call anyway.
  EXPECT_FALSE(JudgeIt(Accepted(TrappedIn(InSyscall(), 1), kPc)).agree);
  // source and asked: sysmon, which settled without asking.
  Observation o = NotWanted(TrappedIn(Accepting()));
  o.source = RequestSource::kSysmon;
  EXPECT_FALSE(JudgeIt(o).agree);
  o.asked = false;
  EXPECT_TRUE(JudgeIt(o).agree);
}

// trapped: nothing is judged where the armed instruction never ran.
TEST(JudgeFields, NothingIsJudgedWhereTheArmedInstructionWasNotReached) {
  Observation o = Accepted(TrappedIn(Assembly()), kPc);  // a wrong decision
  Judgement j = JudgeIt(o);
  EXPECT_TRUE(j.reached);
  EXPECT_FALSE(j.agree);
  o.trapped = false;
  j = JudgeIt(o);
  EXPECT_FALSE(j.reached);
  EXPECT_TRUE(j.agree);
  EXPECT_EQ(j.got, "");
  EXPECT_TRUE(j.ok()) << j.Headline();
}

// ran and run_error: a run that failed is a finding of its own, with the
// harness's words or, without them, the judge's.
TEST(JudgeFields, AFailedRunIsReportedWithItsError) {
  Observation o = Accepted(TrappedIn(Accepting()), kPc);
  EXPECT_EQ(JudgeIt(o).run_error, "");
  o.ran = false;
  Judgement j = JudgeIt(o);
  EXPECT_FALSE(j.reached);
  EXPECT_EQ(j.run_error, "the run failed");
  EXPECT_EQ(j.Oracle(), "run");
  o.run_error = "fault at 0x48";
  EXPECT_EQ(JudgeIt(o).run_error, "fault at 0x48");
}

// freed_accesses: a touched freed object is the liveness oracle's finding,
// and the run's failure it caused is not reported again.
TEST(JudgeFields, ATouchedFreedObjectIsLost) {
  Observation o = Accepted(TrappedIn(Accepting()), kPc);
  EXPECT_EQ(JudgeIt(o).lost, "");
  o.freed_accesses = 2;
  Judgement j = JudgeIt(o);
  EXPECT_NE(j.lost.find("2 access(es)"), std::string::npos) << j.lost;
  EXPECT_EQ(j.Oracle(), "liveness");
  o.ran = false;
  o.run_error = "found pointer to free object";
  j = JudgeIt(o);
  EXPECT_NE(j.lost.find("found pointer to free object"), std::string::npos) << j.lost;
  EXPECT_EQ(j.run_error, "");
}

// events: judged by the protocol oracle, in a run that failed too.
TEST(JudgeFields, TheEventsAreJudgedByTheProtocol) {
  Observation o = Accepted(TrappedIn(Accepting()), kPc);
  EventScript s;
  s.Add(Ev::kResume).Add(Ev::kRequest, {.source = Source::kArmed}).Add(Ev::kPreemptAsync).Add(Ev::kResume);
  o.events = s.evs;
  EXPECT_TRUE(JudgeIt(o).protocol.ok());
  s.Add(Ev::kPreemptSync);  // nobody asked
  o.events = s.evs;
  Judgement j = JudgeIt(o);
  EXPECT_EQ(j.protocol.rule, "a preemption without a request");
  EXPECT_EQ(j.Oracle(), "protocol");
  o.ran = false;
  EXPECT_EQ(JudgeIt(o).protocol.rule, "a preemption without a request");
}

// unseen: sysmon is not asked to retake a goroutine no P-watching source
// could see running.
TEST(JudgeFields, SysmonIsNotAskedForAGoroutineItCouldNotSee) {
  State off;
  off.asyncpreemptoff = true;
  Observation o = TrappedIn(Accepting());
  o.source = RequestSource::kSysmon;
  o.events = EventScript().Add(Ev::kResume).Add(Ev::kTrap, {.pc = kPc}).evs;
  EXPECT_FALSE(JudgeIt(o, off).progress.empty());
  o.unseen = Reason::kGSyscall;
  EXPECT_EQ(JudgeIt(o, off).progress, "");
}

// end: the invisibility oracle's, against the baseline.
TEST(JudgeFields, TheEndStateIsComparedWithTheBaseline) {
  Observation o = Accepted(TrappedIn(Accepting()), kPc);
  o.end.globals = {1, 2, 3};
  o.end.vdump.assign(32, 0x5a);
  harness::EndState baseline = o.end;
  EXPECT_EQ(Judge(NativePort(), {}, baseline, o).state_diff, "");
  o.end.globals[2] = 4;
  Judgement j = Judge(NativePort(), {}, baseline, o);
  EXPECT_EQ(j.state_diff, " g[2]=4 want 3");
  EXPECT_EQ(j.Oracle(), "invisibility");
}

// semantics: set by the caller that predicted the unpreempted end state
// (oracle/preempt_case.cc; its test makes a prediction wrong), never by
// Judge; alone it fails the judgement under its own name, before the
// decision and invisibility oracles (a reference that is not the program's
// meaning spoils what is judged against it).
TEST(JudgeFields, ASemanticsDifferenceIsAFindingOfItsOwn) {
  Observation o = Accepted(TrappedIn(Accepting()), kPc);
  o.end.globals = {1, 2, 3};
  Judgement j = Judge(NativePort(), {}, o.end, o);
  ASSERT_TRUE(j.ok()) << j.Headline();
  EXPECT_EQ(j.semantics, "");
  j.semantics = " g[1]=5 want 2";
  EXPECT_FALSE(j.ok());
  EXPECT_EQ(j.Oracle(), "semantics");
  EXPECT_NE(j.Headline().find("semantics oracle"), std::string::npos) << j.Headline();
  j.agree = false;
  j.state_diff = " g[0]=9 want 1";
  EXPECT_EQ(j.Oracle(), "semantics");
}

// save: the save area against the trap's registers, when one was seen.
TEST(JudgeFields, TheSaveAreaIsComparedWithTheTrapsRegisters) {
  const PortInfo& p = NativePort();
  if (!p.async_preemption()) GTEST_SKIP() << p.name << " has no asynchronous preemption";
  Observation o = Accepted(TrappedIn(Accepting()), kPc);
  harness::SaveAreaImage& s = o.save;
  s.frame.assign(p.async_frame, 0);
  s.xstate.assign(p.tiers[0].scratch_bytes, 0);
  s.trap.count = p.saved_regs.size();
  size_t general = p.saved_regs.size();
  for (size_t i = 0; i < p.saved_regs.size(); i++) {
    const SavedReg& r = p.saved_regs[i];
    if (r.kind == SavedReg::kVector && r.tier != 0) continue;
    if (r.kind == SavedReg::kGeneral && general == p.saved_regs.size()) general = i;
    std::vector<uint8_t>& area = r.kind == SavedReg::kVector ? s.xstate : s.frame;
    s.trap.known[i] = static_cast<uint8_t>(r.size);
    for (uint32_t b = 0; b < r.size; b++)
      s.trap.bytes[i][b] = area[r.offset + b] =
          static_cast<uint8_t>(r.kind == SavedReg::kFlags ? 0 : 0x31 * (i + 1) + b);
  }
  ASSERT_LT(general, p.saved_regs.size());
  // Not seen: nothing compared, whatever the frame holds.
  Judgement j = JudgeIt(o);
  EXPECT_EQ(j.save_compared, 0u);
  s.seen = true;
  j = JudgeIt(o);
  EXPECT_GT(j.save_compared, 0u);
  EXPECT_TRUE(j.save_wrong.empty());
  EXPECT_TRUE(j.ok()) << j.Headline();
  s.frame[p.saved_regs[general].offset] ^= 1;
  j = JudgeIt(o);
  ASSERT_EQ(j.save_wrong.size(), 1u);
  EXPECT_EQ(j.save_wrong[0].rfind(std::string(p.saved_regs[general].name) + ": saved", 0), 0u) << j.save_wrong[0];
  EXPECT_EQ(j.Oracle(), "save-area");
}

// then: each further point of a chain is judged as the first, and the
// first wrong one is named (point n, with its expectation and decision);
// a point that never trapped ends the chain.
TEST(JudgeFields, AChainsFurtherPointsAreJudgedAndTheWrongOneNamed) {
  Observation o = Accepted(TrappedIn(Accepting()), kPc);
  o.then = {Refused(TrappedIn(Assembly()), Reason::kAsm), Accepted(TrappedIn(AtEntry()), kEntry)};
  Judgement j = JudgeIt(o);
  EXPECT_TRUE(j.agree) << j.Headline();
  EXPECT_EQ(j.point, 0u);
  o.then[1] = Refused(TrappedIn(Accepting()), Reason::kNosplit);
  j = JudgeIt(o);
  EXPECT_FALSE(j.agree);
  EXPECT_EQ(j.point, 2u);
  EXPECT_EQ(j.expect.verdict, Verdict::kAccept);
  EXPECT_EQ(j.got, "refused (nosplit)");
  o.then[0].trapped = false;
  j = JudgeIt(o);
  EXPECT_TRUE(j.agree) << j.Headline();
  EXPECT_EQ(j.point, 0u);
}

}  // namespace
}  // namespace safepoint::oracle
