#include "harness/experiment.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "core/chapter.h"
#include "runtime/runtime.h"

extern char** environ;

namespace safepoint {

const char* const kExperimentLoops[3] = {
    "loop calling a non-leaf function",
    "loop calling a leaf function",
    "loop without calls",
};

namespace {

// The child's program: main starts the loop, waits until it has run once
// (a handshake, not a bare sleep, so emulation cannot make the table lie),
// sleeps 1 ms and returns; returning ends the process.
std::string ChildProgram(int loop) {
  static const char* const bodies[3] = {"  call main.nonleaf", "  call main.leaf", "  addi r0, 1"};
  return std::string(R"(
func main.main
  go main.loop
  wait 1
  sleep 1000000
  ret
end
func main.loop frame=16
  handshake 1
  movi r0, 0
again:
)") + bodies[loop] + R"(
  jmp again
end
)" + std::string(kChapterLeafAndNonleaf);
}

std::vector<std::string> SplitWords(const char* s) {
  std::vector<std::string> out;
  if (!s) return out;
  std::istringstream in(s);
  std::string w;
  while (in >> w) out.push_back(w);
  return out;
}

std::string FormatDeadline(double s) {
  char buf[32];
  snprintf(buf, sizeof buf, "%g s", s);
  return buf;
}

}  // namespace

std::string FormatRow(const ExperimentRow& r) {
  return "GODEBUG=\"" + r.godebug + "\", " + r.loop + ": " + r.result;
}

int ExperimentChild(const std::string& loop, bool omit_stack_check) {
  int idx = -1;
  for (int i = 0; i < 3; i++)
    if (loop == kExperimentLoops[i]) idx = i;
  if (idx < 0) {
    fprintf(stderr, "safepoint child: unknown loop '%s'\n", loop.c_str());
    return 2;
  }
  ir::Program prog;
  std::string err;
  if (!ir::ParseProgram(ChildProgram(idx), &prog, &err)) {
    fprintf(stderr, "safepoint child: %s\n", err.c_str());
    return 2;
  }
  RuntimeOptions opts;
  opts.settings.gomaxprocs = 1;
  const char* gd = getenv("GODEBUG");
  opts.settings.godebug = gd ? gd : "";
  opts.hooks.exit_on_main_return = true;
  opts.mutations.omit_stack_check = omit_stack_check;
  Runtime rt(std::move(opts));
  if (!rt.Load(prog, &err) || !rt.Run("main.main", &err)) {
    fprintf(stderr, "safepoint child: %s\n", err.c_str());
    return 2;
  }
  return 0;
}

std::vector<std::string> EmulatorCommand() { return SplitWords(getenv("SAFEPOINT_EMULATOR")); }

std::string SelfExe() {
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return "";
  exe[n] = '\0';
  return exe;
}

ChildExit RunChild(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                   const std::vector<std::string>& unset, bool quiet, int64_t bound_ns) {
  ChildExit out;
  std::vector<std::string> args = argv, vars = env;
  std::vector<char*> cargv;
  for (std::string& a : args) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  fflush(nullptr);
  pid_t pid = fork();
  if (pid < 0) {
    out.error = std::string("fork: ") + strerror(errno);
    return out;
  }
  if (pid == 0) {
    if (quiet) {
      int null = open("/dev/null", O_WRONLY);
      if (null >= 0) dup2(null, 1), dup2(null, 2);
    }
    for (std::string& v : vars) putenv(v.data());
    for (const std::string& u : unset) unsetenv(u.c_str());
    execv(cargv[0], cargv.data());
    fprintf(stderr, "exec %s: %s\n", cargv[0], strerror(errno));
    _exit(127);
  }
  out.started = true;
  int64_t deadline = MonotonicNanos() + bound_ns;
  for (;;) {
    pid_t r = waitpid(pid, &out.status, WNOHANG);
    if (r == pid) break;
    if (MonotonicNanos() >= deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &out.status, 0);
      out.timed_out = true;
      break;
    }
    usleep(1000);
  }
  return out;
}

bool RunExperiment(const ExperimentOptions& opts, std::vector<ExperimentRow>* rows, std::string* err) {
  std::string exe = SelfExe();
  if (exe.empty()) {
    *err = "cannot find this executable (/proc/self/exe)";
    return false;
  }
  std::vector<std::string> emulator = EmulatorCommand();
  for (const std::string& gd : opts.godebugs) {
    for (const char* loop : kExperimentLoops) {
      std::vector<std::string> argv = emulator;
      argv.push_back(exe);
      argv.push_back("child");
      argv.push_back(loop);
      if (opts.omit_stack_check) argv.push_back("--omit-stack-check");
      ChildExit c = RunChild(argv, {"GODEBUG=" + gd}, {}, false, static_cast<int64_t>(opts.deadline_s * 1e9));
      if (!c.started) {
        *err = c.error;
        return false;
      }
      ExperimentRow row{gd, loop, "main got back on the P", false};
      if (c.timed_out) {
        row.timed_out = true;
        row.result = "not preempted within " + FormatDeadline(opts.deadline_s);
      } else if (WIFEXITED(c.status) && WEXITSTATUS(c.status) != 0) {
        row.result = "exit status " + std::to_string(WEXITSTATUS(c.status));
      } else if (WIFSIGNALED(c.status)) {
        row.result = std::string("signal: ") + strsignal(WTERMSIG(c.status));
      }
      rows->push_back(row);
    }
  }
  return true;
}

}  // namespace safepoint
