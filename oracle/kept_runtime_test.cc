// A kept runtime (harness/reference.cc, Runtime::Reset) behaves exactly as
// a fresh one, over a long sequence of mixed preemption-fuzzer inputs: the
// seed corpus and generated programs under random settings, sources and
// chains, one after another in one process, so that kept runtimes are
// reused with their program loaded, reloaded with another program, and
// evicted. For each input: the same judgement and end state, and where one
// thread runs it all (one P, no requester thread, no collector's worker)
// the same decisions at every point and the same events in the same order.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "core/files.h"
#include "harness/runtime_under_test.h"
#include "oracle/case_showing.h"
#include "oracle/preempt_case.h"

namespace safepoint::oracle {
namespace {

TEST(KeptRuntime, BehavesExactlyAsAFreshOneOverMixedInputs) {
  std::vector<std::string> inputs = MixedInputs();
  ASSERT_GT(inputs.size(), 60u) << "no fuzz/corpus/preempt inputs in the runfiles";
  harness::KeptRuntimeCounts before = harness::KeptRuntimeCountsNow();
  size_t compared = 0, events_compared = 0, timing = 0;
  for (size_t i = 0; i < inputs.size(); i++) {
    const std::string& in = inputs[i];
    Case c;
    std::string err;
    if (!DecodeCase(reinterpret_cast<const uint8_t*>(in.data()), in.size(), &c, &err)) continue;
    auto run = [&](bool keep) {
      Case k = c;
      k.keep_runtime = keep;
      std::string e;
      CaseResult r = RunCase(k, &e);
      return Show(r, e);
    };
    Showing fresh = run(false), fresh2 = run(false), kept = run(true);
    if (fresh.verdict != fresh2.verdict) {
      timing++;  // its verdict depends on thread timing: nothing to hold the kept runtime to
      continue;
    }
    compared++;
    EXPECT_EQ(kept.verdict, fresh.verdict) << "input " << i;
    // What each point showed, and the events in order, only where one
    // thread runs the program and nothing else raises requests: one P, the
    // trapping M's own preemptone for every point, no collection.
    // Elsewhere which M takes a goroutine, when the collector's worker
    // meets one (a stack shrunk or not), is timing: two fresh runs agree on
    // it now and then, and a kept runtime, whose memory is warm, the other
    // way (input 89 here: a shrink the fresh runs both made and the kept
    // one's collection found deferred).
    bool one_thread = (c.settings & (16 | 32)) == 0 && c.source == harness::RequestSource::kPreemptOne;
    for (const Case::Point& p : c.then) one_thread = one_thread && p.source == harness::RequestSource::kPreemptOne;
    // (A program's own `gc` runs on the collector's worker too.)
    one_thread = one_thread && fresh.events.find("gc-start/") == std::string::npos;
    if (one_thread && fresh.points == fresh2.points && fresh.events == fresh2.events) {
      events_compared++;
      EXPECT_EQ(kept.points, fresh.points) << "input " << i;
      EXPECT_TRUE(kept.events == fresh.events)
          << "input " << i << ": the kept runtime's events differ\n  " << FirstDifference(fresh.events, kept.events);
    }
  }
  harness::KeptRuntimeCounts after = harness::KeptRuntimeCountsNow();
  printf("%zu inputs: %zu compared (%zu with their events), %zu depend on timing; %s\n", inputs.size(), compared,
         events_compared, timing, harness::KeptRuntimeSummary().c_str());
  // The comparison must have had something to compare, of every kind.
  EXPECT_GE(compared, inputs.size() * 3 / 4);
  EXPECT_GE(events_compared, 30u);
  EXPECT_GT(after.reused_loaded, before.reused_loaded) << "no kept runtime was reused with its program loaded";
  EXPECT_GT(after.reused_reloaded, before.reused_reloaded) << "no kept runtime took another program";
  EXPECT_GT(after.reused_shelved, before.reused_shelved) << "no kept runtime switched back to a shelved program";
}

}  // namespace
}  // namespace safepoint::oracle
