// Conformance: the chapter's experiment of 9.7.1, as a test. Every port.
//
// With cooperative preemption only (asyncpreemptoff=1), a loop calling a
// non-leaf function is preempted at the callee's prologue check, and loops
// calling a small-frame leaf or nothing are not. The mutation with the
// prologue check removed must flip the first row, so the test can fail.
//
// Children are this test binary, re-executed with "child LOOP" (through the
// config's emulator); the deadline is generous for emulation and only
// decides "not preempted", which no amount of waiting would change.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "harness/experiment.h"
#include "platforms/native.h"

namespace safepoint {
namespace {

constexpr double kDeadline = 2.0;

std::vector<ExperimentRow> Rows(bool omit_stack_check) {
  ExperimentOptions opts;
  opts.deadline_s = kDeadline;
  opts.godebugs = {"asyncpreemptoff=1"};
  opts.omit_stack_check = omit_stack_check;
  std::vector<ExperimentRow> rows;
  std::string err;
  EXPECT_TRUE(RunExperiment(opts, &rows, &err)) << err;
  return rows;
}

TEST(Experiment_9_7_1, AsyncPreemptOffRows) {
  std::vector<ExperimentRow> rows = Rows(false);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(FormatRow(rows[0]), "GODEBUG=\"asyncpreemptoff=1\", loop calling a non-leaf function: main got back on the P");
  EXPECT_EQ(FormatRow(rows[1]), "GODEBUG=\"asyncpreemptoff=1\", loop calling a leaf function: not preempted within 2 s");
  EXPECT_EQ(FormatRow(rows[2]), "GODEBUG=\"asyncpreemptoff=1\", loop without calls: not preempted within 2 s");
}

// With asynchronous preemption (the default), all three loops are
// preempted: the chapter's last three lines. A port without asynchronous
// preemption keeps the cooperative table.
TEST(Experiment_9_7_1, DefaultRows) {
  ExperimentOptions opts;
  opts.deadline_s = kDeadline;
  opts.godebugs = {""};
  std::vector<ExperimentRow> rows;
  std::string err;
  ASSERT_TRUE(RunExperiment(opts, &rows, &err)) << err;
  ASSERT_EQ(rows.size(), 3u);
  if (!NativePort().async_preemption())
    GTEST_SKIP() << "port " << NativePort().name << " declares asynchronous preemption missing";
  EXPECT_EQ(FormatRow(rows[0]), "GODEBUG=\"\", loop calling a non-leaf function: main got back on the P");
  EXPECT_EQ(FormatRow(rows[1]), "GODEBUG=\"\", loop calling a leaf function: main got back on the P");
  EXPECT_EQ(FormatRow(rows[2]), "GODEBUG=\"\", loop without calls: main got back on the P");
}

TEST(Experiment_9_7_1, WithoutThePrologueCheckTheNonLeafLoopIsNotPreempted) {
  std::vector<ExperimentRow> rows = Rows(true);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_TRUE(rows[0].timed_out) << FormatRow(rows[0]);
  EXPECT_EQ(rows[0].result, "not preempted within 2 s");
}

TEST(Experiment_9_7_1, AMalformedGodebugIsReportedByTheChild) {
  ExperimentOptions opts;
  opts.deadline_s = kDeadline;
  opts.godebugs = {"asyncpreemptoff=yes"};
  std::vector<ExperimentRow> rows;
  std::string err;
  ASSERT_TRUE(RunExperiment(opts, &rows, &err)) << err;
  ASSERT_EQ(rows.size(), 3u);
  for (const ExperimentRow& r : rows) {
    EXPECT_FALSE(r.timed_out);
    EXPECT_EQ(r.result, "exit status 2");
  }
}

}  // namespace
}  // namespace safepoint

int main(int argc, char** argv) {
  if (argc >= 3 && std::string(argv[1]) == "child") {
    bool omit = argc > 3 && std::string(argv[3]) == "--omit-stack-check";
    return safepoint::ExperimentChild(argv[2], omit);
  }
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
