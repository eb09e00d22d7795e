// Every program under examples/ runs on this port at GOMAXPROCS 1 to 4 and
// leaves the globals its "# expect: g[N] = V" lines name; and a program
// ends when main.main returns, whatever its other goroutines do, every
// time (100 runs of examples/spinner.sp over GOMAXPROCS 1 to 4).
#include <dirent.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "harness/scenario.h"
#include "platforms/native.h"
#include "runtime/runtime.h"

namespace safepoint {
namespace {

std::string ExamplesDir() {
  const char* src = getenv("TEST_SRCDIR");
  return std::string(src ? src : ".") + "/safepoint/examples";
}

struct Example {
  std::string name, text;
  std::vector<std::pair<int, uint64_t>> expect;
};

std::vector<Example> LoadExamples() {
  std::vector<Example> out;
  DIR* d = opendir(ExamplesDir().c_str());
  if (!d) return out;
  while (dirent* e = readdir(d)) {
    std::string n = e->d_name;
    if (n.size() < 4 || n.compare(n.size() - 3, 3, ".sp") != 0) continue;
    std::ifstream in(ExamplesDir() + "/" + n);
    std::stringstream ss;
    ss << in.rdbuf();
    Example ex{n, ss.str(), {}};
    std::istringstream lines(ex.text);
    std::string l;
    while (std::getline(lines, l)) {
      int g;
      unsigned long long v;
      if (sscanf(l.c_str(), "# expect: g[%d] = %llu", &g, &v) == 2) ex.expect.push_back({g, v});
    }
    out.push_back(ex);
  }
  closedir(d);
  return out;
}

bool RunOnce(const std::string& text, int procs, std::unique_ptr<Runtime>* rt, std::string* err) {
  ir::Program prog;
  if (!ir::ParseProgram(text, &prog, err)) return false;
  RuntimeOptions o;
  o.settings.gomaxprocs = procs;
  *rt = std::make_unique<Runtime>(std::move(o));
  return (*rt)->Load(prog, err) && harness::RunBounded(**rt, "main.main", err);
}

TEST(Examples, EveryExampleRunsAndLeavesWhatItSays) {
  std::vector<Example> all = LoadExamples();
  ASSERT_GE(all.size(), 5u) << "examples missing from " << ExamplesDir();
  for (const Example& ex : all) {
    EXPECT_FALSE(ex.expect.empty()) << ex.name << " says nothing it leaves (# expect: g[N] = V)";
    for (int procs = 1; procs <= 4; procs++) {
      std::unique_ptr<Runtime> rt;
      std::string err;
      ASSERT_TRUE(RunOnce(ex.text, procs, &rt, &err)) << ex.name << " at GOMAXPROCS=" << procs << ": " << err;
      for (const auto& [g, v] : ex.expect)
        EXPECT_EQ(rt->global(g), v) << ex.name << " at GOMAXPROCS=" << procs << ": g[" << g << "]";
    }
  }
}

TEST(Examples, AProgramEndsWhenMainReturns) {
  if (!NativePort().async_preemption()) GTEST_SKIP() << "the spinner stops only asynchronously";
  std::string text;
  for (const Example& ex : LoadExamples())
    if (ex.name == "spinner.sp") text = ex.text;
  ASSERT_FALSE(text.empty()) << "examples/spinner.sp";
  int ended = 0;
  for (int run = 0; run < 100; run++) {
    std::unique_ptr<Runtime> rt;
    std::string err;
    int procs = 1 + run % 4;
    bool ok = RunOnce(text, procs, &rt, &err);
    EXPECT_TRUE(ok) << "run " << run << " at GOMAXPROCS=" << procs << ": " << err;
    EXPECT_EQ(rt->abandoned_ms(), 0) << "the spinner is preempted asynchronously once main has returned";
    ended += ok && rt->global(1) == 1;
  }
  EXPECT_EQ(ended, 100) << "main returned and the program ended, 100 times of 100";
}

}  // namespace
}  // namespace safepoint
