// The native tracer (ptrace, x86-64 hosts), and what both tracers share:
// spawning, the register layouts, NewTracer.
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstddef>
#include <cstdio>
#include <deque>
#include <map>
#include <set>

#include "realgo/tracer.h"

namespace safepoint::realgo {

const char* StopKindName(Stop::Kind k) {
  switch (k) {
    case Stop::kBreakpoint: return "breakpoint";
    case Stop::kSignal: return "signal";
    case Stop::kExited: return "exited";
    case Stop::kKilled: return "killed";
    case Stop::kError: return "error";
  }
  return "?";
}

std::string DescribeStop(const Stop& s) {
  char buf[160];
  snprintf(buf, sizeof buf, "%s tid=%d signal=%d status=%d pc=0x%llx", StopKindName(s.kind), s.tid,
           s.signal, s.status, static_cast<unsigned long long>(s.pc));
  std::string out = buf;
  if (!s.error.empty()) out += " error=" + s.error;
  return out;
}

bool LayoutFor(uint16_t m, RegLayout* out) {
  switch (m) {
    case kEmX86_64: *out = RegLayout{16, 7, 0, 26}; return true;
    case kEmAarch64: *out = RegLayout{32, 31, 0, 34}; return true;
    case kEmLoongarch: *out = RegLayout{33, 3, 4, 35}; return true;
    case kEmRiscv: *out = RegLayout{32, 2, 10, 33}; return true;
  }
  return false;
}

std::vector<VecRegInfo> VecRegsFor(uint16_t m) {
  std::vector<VecRegInfo> v;
  auto run = [&](const char* prefix, int n, int bytes) {
    for (int i = 0; i < n; ++i) v.push_back({prefix + std::to_string(i), bytes});
  };
  switch (m) {
    case kEmX86_64:
      run("xmm", 16, 16);
      v.push_back({"mxcsr", 4});
      break;
    case kEmAarch64:
      run("v", 32, 16);
      v.push_back({"fpsr", 4});
      v.push_back({"fpcr", 4});
      break;
    case kEmLoongarch:
      run("f", 32, 8);
      run("fcc", 8, 1);
      v.push_back({"fcsr", 4});
      break;
    case kEmRiscv:
      run("f", 32, 8);
      v.push_back({"fcsr", 4});
      break;
  }
  return v;
}

uint16_t ElfMachineOf(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  Elf64_Ehdr eh;
  ssize_t n = pread(fd, &eh, sizeof eh, 0);
  close(fd);
  if (n != static_cast<ssize_t>(sizeof eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) return 0;
  return eh.e_machine;
}

namespace internal {

double NowSeconds() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

namespace {

struct SpawnChild {
  char** args;
  char** envp;
  const char* out;
  const char* errp;
  int pipe_w;
  void (*before_exec)();
};

// The spawned child, until execve: only system calls (it shares the
// parent's memory), its own process group, default dispositions, then an
// empty signal mask, standard streams from the files, the caller's hook.
// An exec that fails sends its errno down the pipe.
int SpawnChildMain(void* p) {
  const SpawnChild* c = static_cast<const SpawnChild*>(p);
  setpgid(0, 0);
  for (int s = 1; s < NSIG; ++s) {
    if (s != SIGKILL && s != SIGSTOP) signal(s, SIG_DFL);
  }
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  int in = open("/dev/null", O_RDONLY);
  int o = open(c->out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  int e = open(c->errp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  int code = 0;
  if (in < 0 || o < 0 || e < 0) {
    code = errno;
  } else {
    dup2(in, 0);
    dup2(o, 1);
    dup2(e, 2);
    if (c->before_exec) c->before_exec();
    execve(c->args[0], c->args, c->envp);
    code = errno;
  }
  ssize_t ignored = write(c->pipe_w, &code, sizeof code);
  (void)ignored;
  _exit(127);
}

}  // namespace

int Spawn(const std::vector<std::string>& argv, const std::vector<std::string>& env,
          const std::string& stdout_path, const std::string& stderr_path, void (*before_exec)(),
          std::string* err) {
  if (argv.empty()) {
    *err = "no program given";
    return -1;
  }
  // Everything the child needs is made before the clone: after it, only
  // system calls.
  std::vector<char*> args, envp;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  const char* out = stdout_path.empty() ? "/dev/null" : stdout_path.c_str();
  const char* errp = stderr_path.empty() ? "/dev/null" : stderr_path.c_str();
  int pipefd[2];
  if (pipe2(pipefd, O_CLOEXEC) != 0) {
    *err = std::string("pipe2: ") + strerror(errno);
    return -1;
  }
  // The child shares this process's memory until it execs (CLONE_VM |
  // CLONE_VFORK, as posix_spawn does; posix_spawn itself has no place for
  // PTRACE_TRACEME): a fork would copy the page tables of a caller that may
  // be large (a fuzzer holding six binaries' tables: 56 MB) once per guest.
  // It runs on a stack of its own, with every signal blocked until it has
  // put each disposition back to the default (a handler of ours must not
  // run in it). Under QEMU user mode the emulator makes it a fork.
  SpawnChild child{args.data(), envp.data(), out, errp, pipefd[1], before_exec};
  std::vector<char> stack(256 * 1024);
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  pid_t pid = clone(SpawnChildMain, stack.data() + stack.size(), CLONE_VM | CLONE_VFORK | SIGCHLD, &child);
  const int clone_errno = errno;
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  if (pid < 0) {
    *err = std::string("clone: ") + strerror(clone_errno);
    close(pipefd[0]);
    close(pipefd[1]);
    return -1;
  }
  close(pipefd[1]);
  int code = 0;
  ssize_t n;
  do {
    n = read(pipefd[0], &code, sizeof code);
  } while (n < 0 && errno == EINTR);
  close(pipefd[0]);
  if (n == static_cast<ssize_t>(sizeof code)) {
    *err = "cannot start " + argv[0] + ": " + strerror(code);
    int st;
    waitpid(pid, &st, __WALL);
    return -1;
  }
  return pid;
}

}  // namespace internal

#if defined(__x86_64__)
namespace {

using internal::NowSeconds;

void TraceMe() { ptrace(PTRACE_TRACEME, 0, nullptr, nullptr); }

struct Thread {
  bool held = false;     // stopped, its stop reported (or the start's), not yet continued
  bool new_thread = false;  // created, its first SIGSTOP not yet seen
  Stop stop;             // the reported stop, while held
};

class PtraceTracer : public Tracer {
 public:
  ~PtraceTracer() override { Kill(); }

  bool Start(const LaunchSpec& spec, std::string* err) override {
    if (pid_ > 0) {
      *err = "already started";
      return false;
    }
    machine_ = spec.elf_machine ? spec.elf_machine : ElfMachineOf(spec.argv.empty() ? "" : spec.argv[0]);
    if (machine_ != kEmX86_64) {
      *err = "the ptrace tracer traces x86-64 programs only (ELF machine " + std::to_string(machine_) + ")";
      return false;
    }
    int pid = internal::Spawn(spec.argv, spec.env, spec.stdout_path, spec.stderr_path, TraceMe, err);
    if (pid < 0) return false;
    pid_ = pid;
    int st = 0;
    if (waitpid(pid_, &st, __WALL) != pid_ || !WIFSTOPPED(st)) {
      *err = "the program did not stop at its exec";
      Kill();
      return false;
    }
    if (ptrace(PTRACE_SETOPTIONS, pid_, nullptr,
               reinterpret_cast<void*>(PTRACE_O_TRACECLONE | PTRACE_O_EXITKILL)) != 0) {
      *err = std::string("PTRACE_SETOPTIONS: ") + strerror(errno);
      Kill();
      return false;
    }
    mem_fd_ = open(("/proc/" + std::to_string(pid_) + "/mem").c_str(), O_RDWR | O_CLOEXEC);
    if (mem_fd_ < 0) {
      *err = std::string("open /proc/PID/mem: ") + strerror(errno);
      Kill();
      return false;
    }
    Thread& t = threads_[pid_];
    t.held = true;
    t.stop = Stop{Stop::kSignal, pid_, 0, 0, 0, ""};
    // Run to the program's entry (AT_ENTRY) when exec stopped elsewhere
    // (an interpreter, a static-pie's self-relocation does not apply here).
    uint64_t entry = AuxvEntry();
    user_regs_struct r;
    if (!GetRegs(pid_, &r, err)) return Fail(err);
    if (entry != 0 && r.rip != entry) {
      if (!SetBreakpoint(entry, err)) return Fail(err);
      if (!Continue(pid_, 0, err)) return Fail(err);
      Stop s = Wait(10);
      std::string e2;
      ClearBreakpoint(entry, &e2);
      if (s.kind != Stop::kBreakpoint || s.pc != entry) {
        *err = "running to the entry point: " + DescribeStop(s);
        Kill();
        return false;
      }
    }
    threads_[pid_].stop = Stop{Stop::kSignal, pid_, 0, 0, entry ? entry : r.rip, ""};
    return true;
  }

  bool SetBreakpoint(uint64_t pc, std::string* err) override {
    if (!Alive(err)) return false;
    if (bps_.count(pc)) return true;
    uint8_t orig;
    if (!RawRead(pc, &orig, 1, err)) return false;
    uint8_t int3 = 0xcc;
    if (!RawWrite(pc, &int3, 1, err)) return false;
    bps_[pc] = orig;
    removed_.erase(pc);
    return true;
  }

  bool ClearBreakpoint(uint64_t pc, std::string* err) override {
    if (!Alive(err)) return false;
    auto it = bps_.find(pc);
    if (it == bps_.end()) return true;
    if (!RawWrite(pc, &it->second, 1, err)) return false;
    bps_.erase(it);
    removed_.insert(pc);
    return true;
  }

  bool ReadRegs(int tid, std::vector<uint64_t>* regs, std::string* err) override {
    user_regs_struct r;
    if (!HeldCheck(tid, err) || !GetRegs(tid, &r, err)) return false;
    *regs = {r.rax, r.rbx, r.rcx, r.rdx, r.rsi, r.rdi, r.rbp, r.rsp, r.r8,  r.r9,   r.r10, r.r11,   r.r12,
             r.r13, r.r14, r.r15, r.rip, r.eflags, r.cs, r.ss, r.ds, r.es, r.fs, r.gs, r.fs_base, r.gs_base};
    return true;
  }

  bool WriteReg(int tid, int regno, uint64_t v, std::string* err) override {
    user_regs_struct r;
    if (!HeldCheck(tid, err) || !GetRegs(tid, &r, err)) return false;
    unsigned long long* slots[] = {&r.rax, &r.rbx, &r.rcx, &r.rdx, &r.rsi, &r.rdi, &r.rbp,    &r.rsp,    &r.r8,
                                   &r.r9,  &r.r10, &r.r11, &r.r12, &r.r13, &r.r14, &r.r15,    &r.rip,    &r.eflags,
                                   &r.cs,  &r.ss,  &r.ds,  &r.es,  &r.fs,  &r.gs,  &r.fs_base, &r.gs_base};
    if (regno < 0 || regno >= static_cast<int>(sizeof slots / sizeof slots[0])) {
      *err = "no register " + std::to_string(regno);
      return false;
    }
    *slots[regno] = v;
    if (ptrace(PTRACE_SETREGS, tid, nullptr, &r) != 0) {
      *err = std::string("PTRACE_SETREGS: ") + strerror(errno);
      return false;
    }
    if (regno == 16) threads_[tid].stop.pc = v;
    return true;
  }

  // The FXSAVE image PTRACE_GETFPREGS gives: MXCSR at byte 24, XMM0-15 at 160.
  static_assert(offsetof(user_fpregs_struct, mxcsr) == 24, "mxcsr");
  static_assert(offsetof(user_fpregs_struct, xmm_space) == 160, "xmm_space");

  bool ReadVecRegs(int tid, std::vector<VecReg>* out, std::string* err) override {
    user_fpregs_struct f;
    if (!HeldCheck(tid, err) || !GetFpRegs(tid, &f, err)) return false;
    const uint8_t* raw = reinterpret_cast<const uint8_t*>(&f);
    out->clear();
    for (const VecRegInfo& r : VecRegsFor(kEmX86_64)) {
      size_t off = FpOffset(r.name);
      out->push_back({r.name, std::vector<uint8_t>(raw + off, raw + off + r.bytes)});
    }
    return true;
  }

  bool WriteVecReg(int tid, const std::string& name, const std::vector<uint8_t>& bytes,
                   std::string* err) override {
    int size = 0;
    for (const VecRegInfo& r : VecRegsFor(kEmX86_64))
      if (name == r.name) size = r.bytes;
    if (size == 0) {
      *err = "no vector register '" + name + "' on x86-64";
      return false;
    }
    if (static_cast<int>(bytes.size()) != size) {
      *err = name + " has " + std::to_string(size) + " bytes, not " + std::to_string(bytes.size());
      return false;
    }
    user_fpregs_struct f;
    if (!HeldCheck(tid, err) || !GetFpRegs(tid, &f, err)) return false;
    memcpy(reinterpret_cast<uint8_t*>(&f) + FpOffset(name), bytes.data(), bytes.size());
    if (ptrace(PTRACE_SETFPREGS, tid, nullptr, &f) != 0) {
      *err = "PTRACE_SETFPREGS(" + std::to_string(tid) + "): " + strerror(errno);
      return false;
    }
    return true;
  }

  bool ReadMemory(uint64_t addr, void* buf, size_t n, std::string* err) override {
    if (!Alive(err) || !RawRead(addr, buf, n, err)) return false;
    uint8_t* p = static_cast<uint8_t*>(buf);
    for (auto it = bps_.lower_bound(addr); it != bps_.end() && it->first < addr + n; ++it) {
      p[it->first - addr] = it->second;
    }
    return true;
  }

  bool WriteMemory(uint64_t addr, const void* buf, size_t n, std::string* err) override {
    if (!Alive(err)) return false;
    std::vector<uint8_t> copy(static_cast<const uint8_t*>(buf), static_cast<const uint8_t*>(buf) + n);
    for (auto it = bps_.lower_bound(addr); it != bps_.end() && it->first < addr + n; ++it) {
      it->second = copy[it->first - addr];
      copy[it->first - addr] = 0xcc;
    }
    return RawWrite(addr, copy.data(), n, err);
  }

  bool Continue(int tid, int signal, std::string* err) override {
    if (!HeldCheck(tid, err)) return false;
    // The others first, each with its own signal handed back.
    std::vector<int> others;
    for (auto& [t, th] : threads_) {
      if (t != tid && th.held) others.push_back(t);
    }
    for (int t : others) {
      Thread& th = threads_[t];
      int sig = th.stop.kind == Stop::kSignal ? th.stop.signal : 0;
      if (!Resume(t, sig, err)) return false;
    }
    return Resume(tid, signal, err);
  }

  Stop Wait(double timeout_s) override {
    double deadline = NowSeconds() + timeout_s;
    useconds_t nap = 10;
    for (;;) {
      if (!queue_.empty()) {
        Stop s = queue_.front();
        queue_.pop_front();
        return s;
      }
      if (exited_) return Error("the program has ended");
      // The tracee's process group only (Spawn made it its own): children
      // the caller runs besides are not ours to reap. The group's threads
      // are in it too, and reported here because we trace them.
      int st = 0;
      pid_t t = waitpid(-pid_, &st, __WALL | WNOHANG);
      if (t < 0) {
        if (errno == EINTR) continue;
        return Error(std::string("waitpid: ") + strerror(errno));
      }
      if (t == 0) {
        if (NowSeconds() >= deadline) return Error("timed out waiting for a stop");
        usleep(nap);
        if (nap < 1000) nap *= 2;
        continue;
      }
      nap = 10;
      Handle(t, st);
    }
  }

  void Kill() override {
    if (mem_fd_ >= 0) {
      close(mem_fd_);
      mem_fd_ = -1;
    }
    if (pid_ <= 0) return;
    if (!reaped_) {
      kill(pid_, SIGKILL);
      double deadline = NowSeconds() + 10;
      while (NowSeconds() < deadline) {
        // Reap the threads (traced, each reports its end), then the leader.
        std::set<int> tids;
        for (auto& [t, th] : threads_) tids.insert(t);
        if (DIR* d = opendir(("/proc/" + std::to_string(pid_) + "/task").c_str())) {
          while (dirent* e = readdir(d)) {
            if (e->d_name[0] != '.') tids.insert(atoi(e->d_name));
          }
          closedir(d);
        }
        bool leader_gone = false;
        for (int t : tids) {
          int st;
          pid_t r = waitpid(t, &st, __WALL | WNOHANG);
          if (r == t && t == pid_ && (WIFEXITED(st) || WIFSIGNALED(st))) leader_gone = true;
          if (r < 0 && errno == ECHILD && t == pid_) leader_gone = true;
          if (r == t && (WIFEXITED(st) || WIFSIGNALED(st))) threads_.erase(t);
        }
        if (leader_gone) break;
        usleep(1000);
      }
      reaped_ = true;
    }
    exited_ = true;
    threads_.clear();
  }

  int pid() const override { return pid_; }

 private:
  Stop Error(const std::string& e) {
    Stop s;
    s.kind = Stop::kError;
    s.error = e;
    return s;
  }

  bool Fail(std::string* err) {
    std::string saved = *err;
    Kill();
    *err = saved;
    return false;
  }

  bool Alive(std::string* err) {
    if (pid_ <= 0 || exited_) {
      *err = "no live program";
      return false;
    }
    return true;
  }

  bool HeldCheck(int tid, std::string* err) {
    if (!Alive(err)) return false;
    auto it = threads_.find(tid);
    if (it == threads_.end() || !it->second.held) {
      *err = "thread " + std::to_string(tid) + " is not stopped";
      return false;
    }
    return true;
  }

  bool GetRegs(int tid, user_regs_struct* r, std::string* err) {
    if (ptrace(PTRACE_GETREGS, tid, nullptr, r) != 0) {
      *err = "PTRACE_GETREGS(" + std::to_string(tid) + "): " + strerror(errno);
      return false;
    }
    return true;
  }

  bool GetFpRegs(int tid, user_fpregs_struct* f, std::string* err) {
    if (ptrace(PTRACE_GETFPREGS, tid, nullptr, f) != 0) {
      *err = "PTRACE_GETFPREGS(" + std::to_string(tid) + "): " + strerror(errno);
      return false;
    }
    return true;
  }

  // Where a VecRegsFor(kEmX86_64) register is in user_fpregs_struct.
  static size_t FpOffset(const std::string& name) {
    if (name == "mxcsr") return offsetof(user_fpregs_struct, mxcsr);
    return offsetof(user_fpregs_struct, xmm_space) + 16 * static_cast<size_t>(atoi(name.c_str() + 3));
  }

  bool RawRead(uint64_t addr, void* buf, size_t n, std::string* err) {
    ssize_t got = pread(mem_fd_, buf, n, static_cast<off_t>(addr));
    if (got != static_cast<ssize_t>(n)) {
      char b[96];
      snprintf(b, sizeof b, "reading %zu bytes at 0x%llx: %s", n, static_cast<unsigned long long>(addr),
               got < 0 ? strerror(errno) : "short read");
      *err = b;
      return false;
    }
    return true;
  }

  bool RawWrite(uint64_t addr, const void* buf, size_t n, std::string* err) {
    ssize_t put = pwrite(mem_fd_, buf, n, static_cast<off_t>(addr));
    if (put != static_cast<ssize_t>(n)) {
      char b[96];
      snprintf(b, sizeof b, "writing %zu bytes at 0x%llx: %s", n, static_cast<unsigned long long>(addr),
               put < 0 ? strerror(errno) : "short write");
      *err = b;
      return false;
    }
    return true;
  }

  uint64_t AuxvEntry() {
    int fd = open(("/proc/" + std::to_string(pid_) + "/auxv").c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    uint64_t buf[512];
    ssize_t n = read(fd, buf, sizeof buf);
    close(fd);
    for (ssize_t i = 0; i + 1 < n / 8; i += 2) {
      if (buf[i] == AT_ENTRY) return buf[i + 1];
    }
    return 0;
  }

  // Resumes one held thread: a thread at an inserted breakpoint with no
  // signal steps over it first.
  bool Resume(int tid, int signal, std::string* err) {
    Thread& th = threads_[tid];
    uint64_t pc = th.stop.pc;
    if (signal == 0 && bps_.count(pc)) {
      user_regs_struct r;
      if (!GetRegs(tid, &r, err)) return false;
      if (r.rip == pc) {
        bool stopped_again = false;
        if (!StepOver(tid, pc, &stopped_again, err)) return false;
        if (stopped_again) return true;  // a signal came first: its stop is queued, the thread held
      }
    }
    th.held = false;
    if (ptrace(PTRACE_CONT, tid, nullptr, reinterpret_cast<void*>(static_cast<long>(signal))) != 0) {
      *err = "PTRACE_CONT(" + std::to_string(tid) + "): " + strerror(errno);
      return false;
    }
    return true;
  }

  bool StepOver(int tid, uint64_t pc, bool* stopped_again, std::string* err) {
    uint8_t orig = bps_[pc];
    if (!RawWrite(pc, &orig, 1, err)) return false;
    bool ok = true;
    if (ptrace(PTRACE_SINGLESTEP, tid, nullptr, nullptr) != 0) {
      *err = "PTRACE_SINGLESTEP: " + std::string(strerror(errno));
      ok = false;
    }
    double deadline = NowSeconds() + 10;
    useconds_t nap = 5;
    while (ok) {
      int st = 0;
      pid_t r = waitpid(tid, &st, __WALL | WNOHANG);
      if (r < 0 && errno == EINTR) continue;
      if (r == 0) {
        if (NowSeconds() > deadline) {
          *err = "a single step over the breakpoint did not finish in 10 s (a blocking system call?)";
          ok = false;
          break;
        }
        usleep(nap);
        if (nap < 1000) nap *= 2;
        continue;
      }
      if (r != tid) {
        *err = "waitpid during a step: " + std::string(strerror(errno));
        ok = false;
        break;
      }
      if (WIFEXITED(st) || WIFSIGNALED(st)) {
        Handle(r, st);
        *stopped_again = true;
        break;
      }
      int sig = WSTOPSIG(st);
      if (sig == SIGTRAP && (st >> 16) == PTRACE_EVENT_CLONE) {
        // The stepped instruction was a clone: note the thread, step on.
        unsigned long child = 0;
        ptrace(PTRACE_GETEVENTMSG, tid, nullptr, &child);
        NoteClone(static_cast<int>(child));
        ptrace(PTRACE_SINGLESTEP, tid, nullptr, nullptr);
        continue;
      }
      if (sig == SIGTRAP) {
        siginfo_t si;
        if (ptrace(PTRACE_GETSIGINFO, tid, nullptr, &si) == 0 && si.si_code == TRAP_TRACE) break;  // stepped
        if (ptrace(PTRACE_GETSIGINFO, tid, nullptr, &si) == 0 && si.si_code != SI_KERNEL) break;
      }
      // A signal arrived before the instruction ran: the thread stays at the
      // breakpoint, held, with that signal reported.
      user_regs_struct rr;
      uint64_t at = GetRegs(tid, &rr, err) ? rr.rip : pc;
      Stop s{Stop::kSignal, tid, sig, 0, at, ""};
      threads_[tid].held = true;
      threads_[tid].stop = s;
      queue_.push_back(s);
      *stopped_again = true;
      break;
    }
    uint8_t int3 = 0xcc;
    if (bps_.count(pc)) {
      std::string e2;
      if (!RawWrite(pc, &int3, 1, &e2) && ok) {
        *err = e2;
        ok = false;
      }
    }
    return ok;
  }

  void NoteClone(int child) {
    // Its first SIGSTOP is still to come unless already seen.
    if (!started_.count(child)) threads_[child].new_thread = true;
  }

  // One waitpid result.
  void Handle(pid_t t, int st) {
    if (WIFEXITED(st) || WIFSIGNALED(st)) {
      threads_.erase(t);
      if (t == pid_) {
        Stop s;
        s.tid = t;
        if (WIFEXITED(st)) {
          s.kind = Stop::kExited;
          s.status = WEXITSTATUS(st);
        } else {
          s.kind = Stop::kKilled;
          s.signal = WTERMSIG(st);
        }
        queue_.push_back(s);
        exited_ = true;
        reaped_ = true;
      }
      return;
    }
    if (!WIFSTOPPED(st)) return;
    int sig = WSTOPSIG(st);
    int event = st >> 16;
    if (sig == SIGTRAP && event == PTRACE_EVENT_CLONE) {
      unsigned long child = 0;
      ptrace(PTRACE_GETEVENTMSG, t, nullptr, &child);
      NoteClone(static_cast<int>(child));
      ptrace(PTRACE_CONT, t, nullptr, nullptr);
      return;
    }
    if (event != 0) {  // other events are not asked for
      ptrace(PTRACE_CONT, t, nullptr, nullptr);
      return;
    }
    auto it = threads_.find(t);
    if (sig == SIGSTOP && (it == threads_.end() || it->second.new_thread)) {
      // A new thread's first stop (possibly seen before its clone event).
      threads_[t].new_thread = false;
      started_.insert(t);
      ptrace(PTRACE_CONT, t, nullptr, nullptr);
      return;
    }
    if (it == threads_.end()) threads_[t];
    user_regs_struct r;
    std::string err;
    uint64_t pc = 0;
    if (GetRegs(t, &r, &err)) pc = r.rip;
    if (sig == SIGTRAP) {
      siginfo_t si;
      bool int3 = ptrace(PTRACE_GETSIGINFO, t, nullptr, &si) == 0 && si.si_code == SI_KERNEL;
      if (int3 && pc > 0 && (bps_.count(pc - 1) || removed_.count(pc - 1))) {
        r.rip = pc - 1;
        ptrace(PTRACE_SETREGS, t, nullptr, &r);
        if (!bps_.count(pc - 1)) {
          // It hit a breakpoint cleared since: run the original instruction.
          ptrace(PTRACE_CONT, t, nullptr, nullptr);
          return;
        }
        Stop s{Stop::kBreakpoint, t, 0, 0, pc - 1, ""};
        threads_[t].held = true;
        threads_[t].stop = s;
        queue_.push_back(s);
        return;
      }
    }
    Stop s{Stop::kSignal, t, sig, 0, pc, ""};
    threads_[t].held = true;
    threads_[t].stop = s;
    queue_.push_back(s);
  }

  uint16_t machine_ = 0;
  int pid_ = -1;
  int mem_fd_ = -1;
  bool exited_ = false;
  bool reaped_ = false;
  std::map<int, Thread> threads_;
  std::map<uint64_t, uint8_t> bps_;  // address -> the original byte
  std::set<uint64_t> removed_;       // cleared breakpoints (a thread may still trap on one)
  std::set<int> started_;           // threads whose first SIGSTOP was seen
  std::deque<Stop> queue_;
};

}  // namespace

std::unique_ptr<Tracer> NewPtraceTracer() { return std::make_unique<PtraceTracer>(); }

#else  // not an x86-64 host

namespace {
class NoPtraceTracer : public Tracer {
 public:
  bool Start(const LaunchSpec&, std::string* err) override { return No(err); }
  bool SetBreakpoint(uint64_t, std::string* err) override { return No(err); }
  bool ClearBreakpoint(uint64_t, std::string* err) override { return No(err); }
  bool ReadRegs(int, std::vector<uint64_t>*, std::string* err) override { return No(err); }
  bool WriteReg(int, int, uint64_t, std::string* err) override { return No(err); }
  bool ReadVecRegs(int, std::vector<VecReg>*, std::string* err) override { return No(err); }
  bool WriteVecReg(int, const std::string&, const std::vector<uint8_t>&, std::string* err) override {
    return No(err);
  }
  bool ReadMemory(uint64_t, void*, size_t, std::string* err) override { return No(err); }
  bool WriteMemory(uint64_t, const void*, size_t, std::string* err) override { return No(err); }
  bool Continue(int, int, std::string* err) override { return No(err); }
  Stop Wait(double) override {
    Stop s;
    s.error = "no ptrace tracer on this host";
    return s;
  }
  void Kill() override {}
  int pid() const override { return -1; }

 private:
  static bool No(std::string* err) {
    *err = "the ptrace tracer runs on x86-64 hosts only";
    return false;
  }
};
}  // namespace

std::unique_ptr<Tracer> NewPtraceTracer() { return std::make_unique<NoPtraceTracer>(); }

#endif

std::unique_ptr<Tracer> NewTracer(const LaunchSpec& spec) {
  if (spec.emulator.empty()) return NewPtraceTracer();
  return NewGdbstubTracer();
}

}  // namespace safepoint::realgo
