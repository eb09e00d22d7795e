// The preemption fuzzer's cases: an input's chain of further armed points
// (its trailer) decoded, and chains run on this port: every point reached
// is trapped in order, decided, and judged as the first point is.
#include "oracle/preempt_case.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/ir.h"
#include "harness/mutations.h"
#include "harness/runtime_under_test.h"
#include "harness/sweep.h"
#include "oracle/invisibility.h"
#include "platforms/native.h"

namespace safepoint::oracle {
namespace {

using Src = harness::RequestSource;

Case Decode(const std::string& bytes) {
  Case c;
  std::string err;
  EXPECT_TRUE(DecodeCase(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), &c, &err)) << err;
  return c;
}

TEST(PreemptCase, AChainIsCutOffTheInputBeforeTheGeneratorReadsIt) {
  // A generated program (byte 1 = 7) from some choices.
  const std::string head = std::string("\x00\x07\x10\x00", 4) + "choices for the generator";
  Case plain = Decode(head);
  EXPECT_TRUE(plain.then.empty());
  Case chained = Decode(head + EncodeChain({{300, Src::kSuspendG}, {5, Src::kPreemptOne}}));
  EXPECT_EQ(chained.program, plain.program) << "the chain must not change the program";
  EXPECT_EQ(chained.armed, plain.armed);
  ASSERT_EQ(chained.then.size(), 2u);
  EXPECT_EQ(chained.then[0].armed, 300);
  EXPECT_EQ(chained.then[0].source, Src::kSuspendG);
  EXPECT_EQ(chained.then[1].armed, 5);
  EXPECT_EQ(chained.then[1].source, Src::kPreemptOne);
}

TEST(PreemptCase, AChainMarkWithABadCountIsNoCase) {
  for (const std::string& tail : {std::string("\x00\x5A\xA5", 3), std::string("\x04\x5A\xA5", 3),
                                  std::string("\x01\x02\x03\x03\x5A\xA5", 6)}) {
    std::string bytes = std::string("\x00\x00\x01\x00", 4) + tail;
    Case c;
    std::string err;
    EXPECT_FALSE(DecodeCase(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), &c, &err));
    EXPECT_NE(err.find("chain"), std::string::npos) << err;
  }
}

// The built-in sweep program, armed at instruction k with further points.
CaseResult RunChain(uint16_t k, const std::vector<Case::Point>& then, Src first = Src::kPreemptOne,
                    uint8_t settings = 0) {
  std::string bytes = std::string(1, static_cast<char>(static_cast<uint8_t>(first) << 6 | settings)) + std::string(1, '\0') +
                      std::string(1, static_cast<char>(k & 0xFF)) + std::string(1, static_cast<char>(k >> 8));
  if (!then.empty()) bytes += EncodeChain(then);
  Case c = Decode(bytes);
  std::string err;
  CaseResult r = RunCase(c, &err);
  EXPECT_TRUE(r.ok) << err;
  return r;
}

// The fuzzer's mutation of a case's points (MutateCasePoints): from inputs
// of every form (short ones, the built-in programs, generated ones with and
// without a chain), a long walk of mutations keeps the program's text and
// the settings byte, always decodes, stays within max_size, and reaches
// every chain length and back.
TEST(PreemptCase, AMutationOfThePointsKeepsTheProgramAndTheSettings) {
  std::vector<std::string> starts = {std::string("\x21", 1), std::string("\x05\x00\x07", 3),
                                     std::string("\x10\x01\x03\x00", 4)};
  for (const std::string& in : CoverageRandomInputs(6, 5)) starts.push_back(in);
  starts.push_back(starts.back() + EncodeChain({{9, Src::kSuspendG}, {300, Src::kSysmon}}));
  for (size_t k = 0; k < starts.size(); k++) {
    const std::string& start = starts[k];
    const size_t max_size = start.size() + 16;
    std::vector<uint8_t> buf(start.begin(), start.end());
    buf.resize(max_size);
    size_t size = start.size();
    const Case first = Decode(start);
    std::set<size_t> lengths;
    int moved = 0;
    for (uint32_t seed = 0; seed < 400; seed++) {
      const Case before = Decode(std::string(buf.begin(), buf.begin() + static_cast<long>(size)));
      size_t n = MutateCasePoints(buf.data(), size, max_size, seed * 7919 + static_cast<uint32_t>(k));
      if (n == 0) continue;  // no room for what it chose: the bytes as they were
      ASSERT_LE(n, max_size);
      size = n;
      const Case after = Decode(std::string(buf.begin(), buf.begin() + static_cast<long>(size)));
      ASSERT_EQ(after.program, first.program) << "input " << k << ", seed " << seed;
      ASSERT_EQ(after.settings, first.settings) << "input " << k << ", seed " << seed;
      ASSERT_LE(after.then.size(), harness::kMaxArmThen);
      lengths.insert(after.then.size());
      moved += after.armed != before.armed;
    }
    EXPECT_GT(moved, 100) << "input " << k << ": the armed instruction moved " << moved << " times in 400";
    EXPECT_EQ(lengths.size(), harness::kMaxArmThen + 1) << "input " << k << ": not every chain length was reached";
  }
}

// Bytes that are no case are left as they were (the fuzzer's own mutations
// take them instead).
TEST(PreemptCase, AMutationOfThePointsLeavesNoCaseAlone) {
  for (const std::string& bad : {std::string(), std::string("\x00\x02\x05\x00\x09\x00\x5A\xA5", 8),
                                 std::string("\x00\x02\x05\x00\x00\x5A\xA5", 7)}) {
    std::string err;
    Case c;
    ASSERT_FALSE(DecodeCase(reinterpret_cast<const uint8_t*>(bad.data()), bad.size(), &c, &err));
    std::vector<uint8_t> buf(bad.begin(), bad.end());
    buf.resize(64);
    for (uint32_t seed = 0; seed < 50; seed++) {
      EXPECT_EQ(MutateCasePoints(buf.data(), bad.size(), 64, seed), 0u);
      EXPECT_EQ(std::string(buf.begin(), buf.begin() + static_cast<long>(bad.size())), bad);
    }
  }
}

TEST(PreemptCase, AChainTrapsEachPointInTurnAndJudgesEachDecision) {
  if (!NativePort().async_preemption()) GTEST_SKIP() << "port " << NativePort().name << " declares asynchronous preemption missing";
  // Points reached one after another: main.main's instructions, in the
  // order they run, are not known here, so look for pairs whose second
  // point is reached after the first (bounded: 24 tries).
  size_t n = RunChain(0, {}).instructions;
  ASSERT_GT(n, 40u);
  int chained = 0, decided_later = 0;
  for (size_t i = 0; i < 24 && chained < 3; i++) {
    uint16_t k = static_cast<uint16_t>((i * 7) % n), k2 = static_cast<uint16_t>((i * 7 + 5) % n);
    CaseResult r = RunChain(k, {{k2, Src::kPreemptOne}, {k2, Src::kPreemptOne}});
    EXPECT_TRUE(r.judgement.ok()) << "points " << k << ", " << k2 << ": " << r.judgement.Headline() << "\n"
                                  << r.judgement.state_diff << r.judgement.run_error;
    ASSERT_EQ(r.obs.then.size(), 2u);
    if (!r.obs.trapped || !r.obs.then[0].trapped) continue;
    chained++;
    EXPECT_GT(r.obs.then[0].pc, 0u);
    decided_later += r.obs.then[0].decided;
    // The second point's trap came after the first's, in the events.
    size_t first = 0, second = 0;
    for (size_t e = 0; e < r.obs.events.size(); e++) {
      const Event& ev = r.obs.events[e];
      if (ev.kind != Ev::kTrap) continue;
      if (first == 0 && ev.pc == r.obs.pc) first = e + 1;
      else if (first != 0 && second == 0 && ev.pc == r.obs.then[0].pc) second = e + 1;
    }
    EXPECT_GT(second, first) << "the chain's second trap follows the first";
    // What repro --show prints names each chained point and what it showed.
    Case c;
    c.source = Src::kPreemptOne;
    std::string seen = Observed(c, r);
    EXPECT_NE(seen.find("; then point 1 at " + r.obs.then[0].func + "+0x"), std::string::npos) << seen;
    EXPECT_NE(seen.find("; then point 2 at "), std::string::npos) << seen;
    size_t p1 = seen.find("; then point 1 at "), p2 = seen.find("; then point 2 at ");
    if (p1 != std::string::npos && p2 != std::string::npos && r.obs.then[0].decided) {
      std::string one = seen.substr(p1, p2 - p1);
      EXPECT_NE(one.find(r.obs.then[0].accepted ? ": accepted" : ": refused ("), std::string::npos) << seen;
    }
  }
  EXPECT_GT(chained, 0) << "no pair of points among 24 was reached one after the other";
  EXPECT_GT(decided_later, 0) << "no chained point was decided";
}

TEST(PreemptCase, EverySourceRaisesAChainedPointsRequest) {
  if (!NativePort().async_preemption()) GTEST_SKIP() << "port " << NativePort().name << " declares asynchronous preemption missing";
  size_t n = RunChain(0, {}).instructions;
  for (Src s : {Src::kSysmon, Src::kSuspendG, Src::kForEachP}) {
    SCOPED_TRACE(harness::RequestSourceName(s));
    for (size_t i = 0; i < 6; i++) {
      uint16_t k = static_cast<uint16_t>((i * 11) % n), k2 = static_cast<uint16_t>((i * 11 + 3) % n);
      CaseResult r = RunChain(k, {{k2, s}});
      EXPECT_TRUE(r.judgement.ok()) << "points " << k << ", " << k2 << ": " << r.judgement.Headline() << "\n"
                                    << r.judgement.state_diff << r.judgement.run_error;
    }
  }
}

TEST(PreemptCase, EachChainedPointsRequestIsServed) {
  if (!NativePort().async_preemption()) GTEST_SKIP() << "port " << NativePort().name << " declares asynchronous preemption missing";
  // Every point asks through suspendG, and each point's handler waits until
  // its request is raised (suspendG records it first) or suspendG has
  // returned: so between each point's trap and the next's, suspendG acted
  // for that point's post (each post has its own slot in the requester;
  // none is lost to the next).
  size_t n = RunChain(0, {}).instructions;
  int checked = 0;
  for (size_t i = 0; i < 12 && checked < 2; i++) {
    uint16_t k = static_cast<uint16_t>((i * 13) % n), k2 = static_cast<uint16_t>((i * 13 + 4) % n),
             k3 = static_cast<uint16_t>((i * 13 + 9) % n);
    CaseResult r = RunChain(k, {{k2, Src::kSuspendG}, {k3, Src::kSuspendG}}, Src::kSuspendG);
    EXPECT_TRUE(r.judgement.ok()) << "points " << k << ", " << k2 << ", " << k3 << ": " << r.judgement.Headline();
    if (!r.obs.trapped || !r.obs.then[0].trapped) continue;
    std::vector<uintptr_t> pcs = {r.obs.pc};
    for (const harness::Observation& p : r.obs.then)
      if (p.trapped) pcs.push_back(p.pc);
    // The traps in order (a point's trap is the first at its PC after the
    // one before's), and suspendG's events between them.
    size_t next = 0;
    std::vector<int> served(pcs.size(), 0);
    for (const Event& ev : r.obs.events) {
      if (next < pcs.size() && ev.kind == Ev::kTrap && ev.pc == pcs[next]) next++;
      else if (next > 0 && ev.source == Source::kSuspendG &&
               (ev.kind == Ev::kRequest || ev.kind == Ev::kSuspend || ev.kind == Ev::kSuspendGiveUp))
        served[next - 1]++;
    }
    ASSERT_EQ(next, pcs.size()) << "points " << k << ", " << k2 << ", " << k3 << ": traps in the events";
    for (size_t p = 0; p < pcs.size(); p++)
      EXPECT_GT(served[p], 0) << "points " << k << ", " << k2 << ", " << k3 << ": point " << p
                              << "'s suspendG acted before the next trap";
    checked++;
  }
  EXPECT_GT(checked, 0) << "no chain among 12 reached a second point";
}

// A suspendG point refused (main.main's first instructions are its
// prologue, an unsafe point), then a sysmon point at the next instruction:
// sysmon's hand-moved clock stands still, and suspendG sends preemptM again
// only once 5 us have passed on it. Time must pass while suspendG runs, or
// the refused signal is never sent again, the sysmon point's handler waits
// behind suspendG, and suspendG gives up after its 30 s bound (a one-hour
// campaign's slow inputs, 30 s each).
TEST(PreemptCase, ASuspendGRefusedSendsAgainWhileSysmonsClockStandsStill) {
  if (!NativePort().async_preemption()) GTEST_SKIP() << "port " << NativePort().name << " declares asynchronous preemption missing";
  int refused = 0;
  for (uint16_t k = 0; k < 4; k++) {
    CaseResult r = RunChain(k, {{static_cast<uint16_t>(k + 1), Src::kSysmon}}, Src::kSuspendG);
    EXPECT_TRUE(r.judgement.ok()) << "points " << k << ", " << k + 1 << ": " << r.judgement.Headline();
    if (!r.obs.trapped || !r.obs.decided || r.obs.accepted) continue;
    refused++;
    // suspendG ends in a suspension, or finds the goroutine gone (the
    // program may end first); before the fix it gave up after 30 s.
    size_t gave_up = 0;
    for (const Event& ev : r.obs.events)
      if (ev.source == Source::kSuspendG && ev.kind == Ev::kSuspendGiveUp) gave_up++;
    EXPECT_EQ(gave_up, 0u) << "point " << k << ": suspendG gave up (its preemptM never sent again)";
  }
  EXPECT_GT(refused, 0) << "none of main.main's first 4 instructions was refused";
}

// A point whose source settles without a signal (here sysmon, which under
// the slow-sysmon mutation never retakes) while a request stands from the
// point before (preemptone's, its signal taken) lets its goroutine go on:
// the trap handler waited for a signal nobody would send until its 60 s
// bound (an input the fuzzer found from an empty corpus). The bound here
// is a hang's, not a timing: the case takes milliseconds.
TEST(PreemptCase, APointWhoseSourceSettledWithoutASignalDoesNotWaitForOne) {
  const std::string bytes("\x0a\x00\xcb\x14\xab\xfa\x02\x0a\x5a\x0a\x4e\xee\x01\x01\x5a\xa5", 16);
  const harness::MutationDef* slow = harness::FindMutation("slow-sysmon");
  ASSERT_NE(slow, nullptr);
  for (int round = 0; round < 3; round++) {
    SCOPED_TRACE("round " + std::to_string(round));
    Case c = Decode(bytes);
    ASSERT_EQ(c.then.size(), 1u);
    ASSERT_EQ(c.then[0].source, Src::kSysmon);
    slow->apply(c.opts.mutations);
    c.mutation = slow->name;
    std::string err;
    const auto t0 = std::chrono::steady_clock::now();
    CaseResult r = RunCase(c, &err);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ASSERT_TRUE(r.ok) << err;
    EXPECT_LT(s, 30.0) << "the trap handler waited " << s << " s for a signal the settled sysmon point never sends";
  }
}

// A goroutine in a system call, at a chained suspendG point inside
// main.regions's entersyscall region, after a forEachP point: the point's
// handler held its M until its request came, and the requester, serving
// the forEachP first, waited for that P to reach a safe point, both to
// forEachP's 30 s bound (a fuzz campaign's input, one run in five
// natively). Go's forEachP runs the function on behalf of a P in a system
// call (taken to _Pidle, as handoffp does), and a handler does not wait
// behind an earlier request that needs its M: no bound is reached while
// main runs, with asynchronous preemption off (the campaign's input) or on.
// (Under load the requester may start its forEachP only after main's last
// safe point: then it gives up at the run's end, which is no stall.)
TEST(PreemptCase, AForEachPRunsOnBehalfOfAPInASystemCall) {
  // The instruction of main.regions's store between entersyscall and
  // exitsyscall (its ops: ... 16 entersyscall, 17 movi, 18 atomic_add).
  std::string err;
  ir::Program prog;
  ASSERT_TRUE(ir::ParseProgram(harness::BuiltinSweepProgram(), &prog, &err)) << err;
  std::unique_ptr<harness::RuntimeUnderTest> rt = harness::NewReferenceRuntime(RuntimeOptions{});
  ASSERT_TRUE(rt->Load(prog, &err)) << err;
  const FuncTable& table = rt->table();
  const FuncInfo* regions = table.Find(std::string("main.regions"));
  ASSERT_NE(regions, nullptr);
  const ir::Function* body = prog.Find("main.regions");
  ASSERT_NE(body, nullptr);
  ASSERT_GT(body->body.size(), 18u);
  ASSERT_EQ(body->body[16].service, ir::Service::kEntersyscall);
  int in_call = -1;
  for (size_t i = 0; i < table.insns.size() && in_call < 0; i++)
    if (table.insns[i] >= regions->entry && table.insns[i] < regions->end && table.insn_op[i] == 18)
      in_call = static_cast<int>(i);
  ASSERT_GE(in_call, 0) << "no instruction of main.regions's op 18";
  int safe_point_fns = 0;
  for (uint8_t settings : {uint8_t{1}, uint8_t{0}}) {
    for (int round = 0; round < 6; round++) {
      SCOPED_TRACE("settings " + std::to_string(settings) + ", round " + std::to_string(round));
      CaseResult r = RunChain(0, {{0, Src::kForEachP}, {static_cast<uint16_t>(in_call), Src::kSuspendG}},
                              Src::kPreemptOne, settings);
      EXPECT_TRUE(r.judgement.ok()) << r.judgement.Headline();
      ASSERT_EQ(r.obs.then.size(), 2u);
      // A give-up after main has returned is the run's end (forEachP and
      // suspendG stop there, as Go's process would); one before it is a
      // bound waited out while main still ran.
      bool main_returned = false;
      for (const Event& ev : r.obs.events) {
        main_returned = main_returned || (ev.kind == Ev::kGoExit && ev.goid == 1);
        if (!main_returned) {
          EXPECT_NE(ev.kind, Ev::kSafePointGiveUp) << "forEachP waited out its bound while main ran";
          EXPECT_NE(ev.kind, Ev::kSuspendGiveUp) << "suspendG waited out its bound while main ran";
        }
        safe_point_fns += ev.kind == Ev::kSafePointFn;
      }
      EXPECT_TRUE(main_returned) << "main.main never returned";
    }
  }
  EXPECT_GT(safe_point_fns, 0) << "forEachP's function never ran";
}

// --- the reference predicted from the program's meaning -----------------

// Generated programs (the fuzzer's random inputs, fixed seed) parsed.
std::vector<std::pair<Case, std::shared_ptr<ir::Program>>> GeneratedCases(int n) {
  std::vector<std::pair<Case, std::shared_ptr<ir::Program>>> out;
  for (const std::string& in : CoverageRandomInputs(n, 31)) {
    Case c = Decode(in);
    auto p = std::make_shared<ir::Program>();
    std::string err;
    EXPECT_TRUE(ir::ParseProgram(c.program, p.get(), &err)) << err;
    out.push_back({std::move(c), std::move(p)});
  }
  return out;
}

// Where the end state is predicted, it is the unpreempted run's on this
// port, globals and vector dumps alike; and most generated programs are
// predicted (else the fuzzer runs them, and this test proves little).
TEST(PreemptCase, APredictedEndStateIsTheUnpreemptedRunsOnThisPort) {
  int predicted = 0, vdumps = 0, n = 0;
  for (auto& [c, prog] : GeneratedCases(60)) {
    n++;
    harness::RuntimeFactory make = harness::ReferenceRuntimeFactory(c.opts, c.source);
    std::unique_ptr<harness::RuntimeUnderTest> rt = make();
    std::string err;
    ASSERT_TRUE(rt->Load(*prog, &err)) << err;
    harness::EndState want;
    if (!PredictEndState(NativePort(), *prog, rt->xstate_tier(), &want)) continue;
    rt.reset();
    predicted++;
    harness::Baseline run;
    ASSERT_TRUE(harness::RunBaseline(*prog, "main.main", make, &run, &err)) << err;
    EXPECT_EQ(want.globals, run.end.globals) << c.program;
    EXPECT_EQ(want.vdump, run.end.vdump) << "vector dumps differ:\n" << c.program;
    bool dumped = false;
    for (uint8_t b : run.end.vdump) dumped = dumped || b != 0;
    vdumps += dumped;
  }
  EXPECT_GE(predicted, n / 2) << "of " << n << " generated programs";
  EXPECT_GE(vdumps, 3) << "predicted programs that dump vector registers, of " << predicted;
}

// An armed instruction a predicted program never reaches is answered from
// an earlier run of the program (same settings) that did not reach its own
// armed instruction: answered or run, a case shows the same. Over generated
// programs armed at instructions in steps, each answered case is run as
// well: the run must not reach the instruction, and must leave the same end
// state, collections, objects freed and program events (goroutines
// started, objects, collections), and the same verdict (the other events differ
// from run to run where a second P or the collector's rounds take part).
// Some must be answered, or this proves nothing.
TEST(PreemptCase, AnInstructionNeverReachedIsAnsweredAsARunWouldShowIt) {
  int answered = 0;
  for (auto& [c, prog] : GeneratedCases(40)) {
    for (uint16_t step = 0; step < 24; step++) {
      Case t = c;
      t.keep_runtime = true;
      t.armed = static_cast<uint16_t>(c.armed + 131 * step);
      std::string err;
      CaseResult a = RunCase(t, &err);
      ASSERT_TRUE(a.ok) << err;
      if (!a.answered) continue;
      answered++;
      Case u = t;
      u.answer_unreached = false;
      CaseResult b = RunCase(u, &err);
      ASSERT_TRUE(b.ok) << err;
      ASSERT_FALSE(b.answered);
      const std::string where = "instruction " + std::to_string(a.obs.k) + " (" + a.obs.func + "), settings " +
                                std::to_string(c.settings) + ":\n" + c.program;
      EXPECT_FALSE(b.obs.trapped) << "answered as never reached, but a run reached " << where;
      EXPECT_EQ(a.obs.k, b.obs.k);
      EXPECT_EQ(a.obs.off, b.obs.off);
      EXPECT_EQ(a.obs.func, b.obs.func);
      EXPECT_EQ(a.obs.pos.fn, b.obs.pos.fn);
      EXPECT_EQ(a.obs.pos.op, b.obs.pos.op);
      EXPECT_EQ(a.obs.ran, b.obs.ran);
      EXPECT_EQ(a.obs.end.globals, b.obs.end.globals) << where;
      EXPECT_EQ(a.obs.end.vdump, b.obs.end.vdump) << where;
      EXPECT_EQ(a.obs.collections, b.obs.collections) << where;
      EXPECT_EQ(a.obs.objects_freed, b.obs.objects_freed) << where;
      // The program's own events, by kind (the scheduler's and the
      // collector's rounds vary from run to run with the second P's timing,
      // and so do the goroutine exits seen before main's: a silent
      // goroutine may still run when main returns).
      auto program_events = [](const std::vector<Event>& evs) {
        std::map<int, int> n;
        for (const Event& e : evs)
          if (e.kind == Ev::kGoStart || e.kind == Ev::kAlloc || e.kind == Ev::kGCStart ||
              e.kind == Ev::kGCDone || e.kind == Ev::kFree)
            n[static_cast<int>(e.kind)]++;
        return n;
      };
      EXPECT_EQ(program_events(a.obs.events), program_events(b.obs.events)) << where;
      EXPECT_EQ(a.judgement.ok(), b.judgement.ok()) << where;
      EXPECT_EQ(a.obs.then.size(), b.obs.then.size());
    }
  }
  EXPECT_GE(answered, 20) << "cases answered from an earlier run";
  printf("%d cases answered, each run as well\n", answered);
}

// A case found by the predicate among the generated inputs, armed at an
// instruction reached (trapped) or not.
bool FindCase(bool trapped, Case* out) {
  for (auto& [c, prog] : GeneratedCases(60)) {
    harness::RuntimeFactory make = harness::ReferenceRuntimeFactory(c.opts, c.source);
    std::unique_ptr<harness::RuntimeUnderTest> rt = make();
    std::string err;
    harness::EndState e;
    if (!rt->Load(*prog, &err) || !PredictEndState(NativePort(), *prog, rt->xstate_tier(), &e)) continue;
    for (uint16_t k = 0; k < 8; k++) {
      Case t = c;
      t.armed = static_cast<uint16_t>(c.armed + 97 * k);
      CaseResult r = RunCase(t, &err);
      if (r.ok && r.obs.trapped == trapped && r.judgement.ok()) {
        *out = t;
        return true;
      }
    }
  }
  return false;
}

// A wrong prediction does not pass for a finding of the invisibility
// oracle: where the armed instruction was never reached, the run is an
// unpreempted one and differs from the prediction; where it was, the
// armed run differs from it too, a real unpreempted run is made, and that
// one differs. Either way the semantics oracle reports it, naming the
// global, and nothing else does.
TEST(PreemptCase, AWrongPredictionIsASemanticsFinding) {
  for (bool trapped : {false, true}) {
    if (trapped && !NativePort().async_preemption()) continue;
    Case c;
    ASSERT_TRUE(FindCase(trapped, &c)) << "no predicted generated case with its armed instruction "
                                       << (trapped ? "reached" : "not reached");
    c.edit_prediction = [](harness::EndState* e) { e->globals[7] ^= 1; };
    std::string err;
    CaseResult r = RunCase(c, &err);
    ASSERT_TRUE(r.ok) << err;
    EXPECT_EQ(r.obs.trapped, trapped);
    EXPECT_FALSE(r.judgement.ok());
    EXPECT_EQ(r.judgement.Oracle(), "semantics") << r.judgement.Headline();
    EXPECT_NE(r.judgement.semantics.find("g[7]"), std::string::npos) << r.judgement.semantics;
    EXPECT_EQ(r.judgement.state_diff, "") << "judged against the real unpreempted run";
    EXPECT_NE(Describe(c, r).find("the program's meaning"), std::string::npos) << Describe(c, r);
    // The same case predicted rightly, and not predicted: clean.
    c.edit_prediction = nullptr;
    EXPECT_TRUE(RunCase(c, &err).judgement.ok());
    c.predict = false;
    EXPECT_TRUE(RunCase(c, &err).judgement.ok());
  }
}

// Under a mutation that spoils the registers an asynchronous preemption
// restores, the armed run's end state differs from the prediction: a real
// unpreempted run is made, it agrees with the prediction (no semantics
// finding), and the difference is reported against it. (Compared with the
// end state of an unpreempted run made here, not with another armed run:
// what a dropped register holds is whatever the runtime's own code left in
// it, and differs from run to run.)
TEST(PreemptCase, AnArmedRunThatContradictsThePredictionIsJudgedAgainstARealRun) {
  if (!NativePort().async_preemption()) GTEST_SKIP() << "port " << NativePort().name << " declares asynchronous preemption missing";
  const harness::MutationDef* m = harness::FindMutation("drop-register");
  ASSERT_NE(m, nullptr);
  int found = 0;
  for (auto& [c0, prog] : GeneratedCases(60)) {
    for (uint16_t k = 0; k < 4 && found < 2; k++) {
      Case c = c0;
      c.armed = static_cast<uint16_t>(c0.armed + 131 * k);
      m->apply(c.opts.mutations);
      c.mutation = m->name;
      std::string err;
      CaseResult r = RunCase(c, &err);
      ASSERT_TRUE(r.ok) << err;
      if (r.judgement.state_diff.empty()) continue;
      found++;
      EXPECT_EQ(r.judgement.semantics, "") << "the real unpreempted run is the prediction";
      EXPECT_FALSE(r.judgement.ok());
      harness::Baseline run;
      ASSERT_TRUE(harness::RunBaseline(*prog, "main.main", harness::ReferenceRuntimeFactory(c.opts, c.source), &run, &err))
          << err;
      EXPECT_EQ(r.judgement.state_diff, DiffEndState(run.end, r.obs.end));
    }
  }
  EXPECT_GE(found, 1) << "no generated case showed the mutation in its end state";
}

}  // namespace
}  // namespace safepoint::oracle
