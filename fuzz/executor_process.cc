#include "fuzz/executor_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "fuzz/verdict_protocol.h"

namespace safepoint::fuzz {

namespace {
std::string Ended(int status) {
  if (WIFEXITED(status)) return "exit status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  return "status " + std::to_string(status);
}
}  // namespace

std::string StopExecutor(ExecutorProcess& e, bool force) {
  if (e.to >= 0) close(e.to);
  if (e.from >= 0) close(e.from);
  e.to = e.from = -1;
  if (e.pid <= 0) return "";
  // Closing its input ends a healthy executor; give it 2 s, then kill it
  // (by the process id this driver started).
  int status = 0;
  for (int i = 0; i < 200 && !force; i++) {
    if (waitpid(e.pid, &status, WNOHANG) == e.pid) {
      e.pid = -1;
      return Ended(status);
    }
    usleep(10000);
  }
  kill(e.pid, SIGKILL);
  waitpid(e.pid, &status, 0);
  e.pid = -1;
  return Ended(status);
}

bool StartExecutor(ExecutorProcess& e, const std::string& runner, int hello_ms, std::string* err) {
  int in[2], out[2];
  if (pipe2(in, O_CLOEXEC) != 0) return *err = "pipe: " + std::string(strerror(errno)), false;
  if (pipe2(out, O_CLOEXEC) != 0) {
    close(in[0]), close(in[1]);
    return *err = "pipe: " + std::string(strerror(errno)), false;
  }
  std::string cfg = "--config=" + e.config;
  char* argv[] = {const_cast<char*>(runner.c_str()), const_cast<char*>(cfg.c_str()), const_cast<char*>(e.path.c_str()),
                  nullptr};
  const pid_t parent = getpid();
  pid_t pid = fork();
  if (pid == 0) {
    // The child: only async-signal-safe calls until the exec.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);  // the driver is already gone
    if (dup2(in[0], STDIN_FILENO) < 0 || dup2(out[1], STDOUT_FILENO) < 0) _exit(127);
    execv(runner.c_str(), argv);
    _exit(127);
  }
  close(in[0]), close(out[1]);
  e.to = in[1], e.from = out[0];
  if (pid < 0) {
    int errno_was = errno;
    e.pid = -1;
    StopExecutor(e, true);
    return *err = "cannot start " + runner + ": " + strerror(errno_was), false;
  }
  e.pid = pid;
  verdict::Header h;
  std::string payload, config;
  if (!verdict::ReadFrame(e.from, verdict::kResponseMagic, &h, &payload, err, hello_ms) || h.kind != verdict::kHello ||
      !verdict::DecodeHello(payload, &e.port, &config, err)) {
    *err = "waiting for the hello of " + e.path + " under --config=" + e.config + ": " +
           (err->empty() ? "a frame that is no hello" : *err);
    std::string how = StopExecutor(e, true);
    if (!how.empty()) *err += " (it ended: " + how + ")";
    return false;
  }
  return true;
}

int TakeStdoutForProtocol(const char* who) {
  int out = dup(STDOUT_FILENO);
  if (out < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
    fprintf(stderr, "%s: cannot set up its output: %s\n", who, strerror(errno));
    return -1;
  }
  return out;
}

bool ParseExecutors(const std::string& s, std::vector<ExecutorProcess>* out, std::string* err) {
  for (size_t at = 0; at <= s.size();) {
    size_t comma = s.find(',', at);
    if (comma == std::string::npos) comma = s.size();
    std::string item = s.substr(at, comma - at);
    at = comma + 1;
    size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
      return *err = "'" + item + "' is not CONFIG=PATH", false;
    ExecutorProcess e;
    e.config = item.substr(0, eq), e.path = item.substr(eq + 1);
    if (access(e.path.c_str(), X_OK) != 0) return *err = e.path + " is not an executable file", false;
    out->push_back(e);
  }
  return true;
}

}  // namespace safepoint::fuzz
