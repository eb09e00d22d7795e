// Every conformance scenario is bounded: a check that fails inside a
// driver thread ends the run at once ("run aborted: ..."), so a broken
// runtime fails its test in seconds instead of leaving the program waiting
// for a driver that gave up until Bazel's timeout (harness::DriverThread
// bounds the rest). Include it in any test that runs scenarios.
#ifndef SAFEPOINT_CONFORMANCE_BOUNDED_H_
#define SAFEPOINT_CONFORMANCE_BOUNDED_H_

#include <gtest/gtest.h>

#include "harness/scenario.h"

namespace safepoint::conformance {

inline const bool kDriverFailureEndsTheRun =
    (harness::TestFailed() = [] { return ::testing::Test::HasFailure(); }, true);

}  // namespace safepoint::conformance

#endif
