// The stall watchdog and the artifacts, as a fuzz target uses them: in a
// child process whose fuzzing thread blocks every signal (as M0 does while
// it runs the main goroutine), an execution that never ends must become a
// timeout- artifact holding exactly its input, a line saying so, and
// libFuzzer's timeout status, within a bounded time; an execution that ends
// in time must leave nothing.
#include "fuzz/artifacts.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include <gtest/gtest.h>

namespace safepoint::fuzz {
namespace {

std::string TempDir() {
  const char* t = getenv("TEST_TMPDIR");
  std::string d = std::string(t ? t : "/tmp") + "/artifacts_XXXXXX";
  char* made = mkdtemp(d.data());
  return made ? std::string(made) + "/" : "";
}

// Runs `body` in a child with the watchdog at one second; returns its wait
// status (bounded: the parent gives up after 60 s and kills it).
int InChild(const std::string& prefix, void (*body)()) {
  pid_t pid = fork();
  if (pid == 0) {
    std::string a0 = "fuzz", a1 = "-timeout=1", a2 = "-artifact_prefix=" + prefix;
    char* argv[] = {a0.data(), a1.data(), a2.data(), nullptr};
    StartStallWatchdog("artifacts_test", 3, argv, "replay-me");
    body();
    _exit(0);
  }
  for (int i = 0; i < 600; i++) {
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) return status;
    usleep(100'000);
  }
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  ADD_FAILURE() << "the child ran 60 s: the watchdog never fired";
  return status;
}

const uint8_t kInput[] = {0x10, 0x00, 0xff, 0x42, 0x07};

TEST(StallWatchdog, AnExecutionThatNeverEndsIsATimeoutWithItsInputKept) {
  std::string dir = TempDir();
  ASSERT_NE(dir, "");
  int status = InChild(dir, [] {
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, nullptr);  // as an M: no SIGALRM here
    ExecutionBegins(kInput, sizeof kInput);
    for (;;) pause();
  });
  ASSERT_TRUE(WIFEXITED(status)) << "status " << status;
  EXPECT_EQ(WEXITSTATUS(status), 70);
  std::string path = dir + "timeout-" + Sha1Hex(kInput, sizeof kInput);
  std::ifstream f(path, std::ios::binary);
  ASSERT_TRUE(f.good()) << "no artifact at " << path;
  std::string got((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  EXPECT_EQ(got, std::string(reinterpret_cast<const char*>(kInput), sizeof kInput));
}

TEST(StallWatchdog, ExecutionsThatEndInTimeLeaveNothing) {
  std::string dir = TempDir();
  ASSERT_NE(dir, "");
  int status = InChild(dir, [] {
    for (int i = 0; i < 15; i++) {  // 1.5 s in all, each well under the limit
      ExecutionBegins(kInput, sizeof kInput);
      usleep(100'000);
      ExecutionEnds();
    }
  });
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  std::ifstream f(dir + "timeout-" + Sha1Hex(kInput, sizeof kInput));
  EXPECT_FALSE(f.good());
}

TEST(Artifacts, NamesAreLibFuzzersSha1) {
  EXPECT_EQ(Sha1Hex(reinterpret_cast<const uint8_t*>("abc"), 3), "a9993e364706816aba3e25717850c26c9cd0d89d");
  EXPECT_EQ(Sha1Hex(nullptr, 0), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
}

}  // namespace
}  // namespace safepoint::fuzz
