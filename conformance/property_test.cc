// The property: every program the generator makes (harness/generator.h)
// passes the validator, runs to its end on this port's runtime at
// GOMAXPROCS 1 to 4 with sysmon preempting it, and leaves exactly the
// globals the port-independent interpreter says, so no generated program
// crashes the harness, hangs, or ends differently on another port.
//
// Fixed seeds; SAFEPOINT_PROPERTY_PROGRAMS sets how many (default 200; for
// a long run: bazel test //conformance:property_test
// --test_env=SAFEPOINT_PROPERTY_PROGRAMS=10000). A run that does not end
// within 60 s fails the test at once, naming its seed.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "harness/generator.h"
#include "oracle/semantics.h"
#include "platforms/native.h"
#include "runtime/runtime.h"

namespace safepoint {
namespace {

std::atomic<int64_t> g_running_seed{-1};
std::atomic<int64_t> g_started_at{0};

void Watchdog() {
  std::thread([] {
    for (;;) {
      std::this_thread::sleep_for(std::chrono::seconds(1));
      int64_t seed = g_running_seed.load();
      if (seed >= 0 && MonotonicNanos() - g_started_at.load() > 60'000'000'000LL) {
        fprintf(stderr, "FAIL: the program of seed %lld did not end within 60 s:\n%s\n",
                static_cast<long long>(seed), harness::GenerateProgram(seed).c_str());
        fflush(nullptr);
        _exit(1);
      }
    }
  }).detach();
}

TEST(Property, GeneratedProgramsRunToTheInterpretersEndStateOnThisPort) {
  const char* env = getenv("SAFEPOINT_PROPERTY_PROGRAMS");
  int n = env ? atoi(env) : 200;
  ASSERT_GT(n, 0);
  Watchdog();
  std::map<std::string, int> outcomes;
  for (int64_t seed = 1; seed <= n; seed++) {
    std::string text = harness::GenerateProgram(seed);
    ir::Program prog;
    std::string err;
    if (!ir::ParseProgram(text, &prog, &err)) {
      ADD_FAILURE() << "seed " << seed << ": the generator made an invalid program: " << err << "\n" << text;
      outcomes["invalid"]++;
      continue;
    }
    std::vector<uint64_t> want;
    ASSERT_TRUE(oracle::Interpret(prog, "main.main", &want, &err)) << "seed " << seed << ": " << err << "\n" << text;
    RuntimeOptions o;
    o.settings.gomaxprocs = 1 + static_cast<int>(seed % 4);
    Runtime rt(std::move(o));
    g_started_at.store(MonotonicNanos());
    g_running_seed.store(seed);
    bool ok = rt.Load(prog, &err) && rt.Run("main.main", &err);
    g_running_seed.store(-1);
    if (!ok) {
      ADD_FAILURE() << "seed " << seed << ": " << err << "\n" << text;
      outcomes["failed"]++;
      continue;
    }
    int diffs = 0;
    for (int g = 0; g < ir::kGlobals; g++)
      if (rt.global(g) != want[g] && diffs++ < 3)
        ADD_FAILURE() << "seed " << seed << ": g[" << g << "] = " << rt.global(g) << ", the interpreter says "
                      << want[g] << "\n"
                      << text;
    outcomes[diffs ? "different" : "same"]++;
  }
  std::string s;
  for (const auto& [k, v] : outcomes) s += " " + k + "=" + std::to_string(v);
  printf("%d generated programs on port %s:%s\n", n, std::string(NativePort().name).c_str(), s.c_str());
  EXPECT_EQ(outcomes["same"], n);
}

}  // namespace
}  // namespace safepoint
