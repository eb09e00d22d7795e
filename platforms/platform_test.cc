// Platform checks: the primitives the harness is built on, proved on the
// architecture and emulator of the current config. These are the first
// checks of the port contract (platforms/port.h); every port must pass them.
//
// The expected architecture comes from the build (SAFEPOINT_CONFIG_ARCH, set
// per config in .bazelrc), never from the compiler's macros, so a binary
// that runs on the wrong machine, or a config that builds the wrong port,
// fails here.
#include <elf.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "platforms/native.h"
#include "platforms/port.h"
#include "core/code_page.h"

namespace safepoint {
namespace {

using Ctx = NativeContext;

const PortInfo& ExpectedPort() {
  const char* arch = getenv("SAFEPOINT_CONFIG_ARCH");
  if (arch == nullptr) {
    ADD_FAILURE() << "SAFEPOINT_CONFIG_ARCH is not set: run through bazel test --config=<arch>";
    return NativePort();
  }
  const PortInfo* p = FindPort(arch);
  if (p == nullptr) {
    ADD_FAILURE() << "SAFEPOINT_CONFIG_ARCH=" << arch << " names no port (" << PortNames() << ")";
    return NativePort();
  }
  return *p;
}

long Tid() { return syscall(SYS_gettid); }
int Tgkill(int sig) { return static_cast<int>(syscall(SYS_tgkill, getpid(), Tid(), sig)); }

void Install(int sig, void (*fn)(int, siginfo_t*, void*), std::initializer_list<int> mask) {
  struct sigaction sa = {};
  sa.sa_sigaction = fn;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  for (int s : mask) sigaddset(&sa.sa_mask, s);
  ASSERT_EQ(sigaction(sig, &sa, nullptr), 0) << strerror(errno);
}

// A sigaltstack for the calling thread, kept for the whole test binary.
struct AltStack {
  static constexpr size_t kSize = 64 * 1024;
  std::unique_ptr<char[]> mem{new char[kSize]};
  AltStack() {
    stack_t ss = {};
    ss.ss_sp = mem.get();
    ss.ss_size = kSize;
    if (sigaltstack(&ss, nullptr) != 0) abort();
  }
  bool contains(const void* p) const {
    auto a = reinterpret_cast<uintptr_t>(p), b = reinterpret_cast<uintptr_t>(mem.get());
    return a >= b && a < b + kSize;
  }
};
AltStack& Alt() {
  static AltStack s;
  return s;
}

std::unique_ptr<CodePage> MakePage(const std::vector<uint8_t>& bytes) {
  std::string err;
  auto page = CodePage::Create(bytes, &err);
  EXPECT_NE(page, nullptr) << err;
  return page;
}

// The permissions /proc/self/maps shows for the mapping holding addr.
std::string MapPerms(uintptr_t addr) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    unsigned long lo, hi;
    char perms[5] = {};
    if (sscanf(line.c_str(), "%lx-%lx %4s", &lo, &hi, perms) == 3 && addr >= lo && addr < hi)
      return perms;
  }
  return "?";
}

// --- the binary runs where the config says ------------------------------

TEST(Platform, RunsOnTheConfiguredArchitecture) {
  const PortInfo& want = ExpectedPort();
  EXPECT_EQ(NativePort().name, want.name) << "this binary was built for another port";

  int fd = open("/proc/self/exe", O_RDONLY);
  ASSERT_GE(fd, 0);
  Elf64_Ehdr eh;
  ASSERT_EQ(read(fd, &eh, sizeof eh), static_cast<ssize_t>(sizeof eh));
  close(fd);
  ASSERT_EQ(memcmp(eh.e_ident, ELFMAG, SELFMAG), 0);
  EXPECT_EQ(eh.e_machine, want.elf_machine) << "ELF machine of /proc/self/exe";

  struct utsname u;
  ASSERT_EQ(uname(&u), 0);
  EXPECT_EQ(std::string(u.machine), want.uname_machine) << "uname -m from inside";

  // Emulated configs run under the port's QEMU; native ones under none. The
  // mode comes from the port's CONFIGS through the build's test env, the
  // emulator from the runner: the two must agree.
  const char* config = getenv("SAFEPOINT_CONFIG");
  const char* mode = getenv("SAFEPOINT_CONFIG_MODE");
  const char* emu = getenv("SAFEPOINT_EMULATOR");
  ASSERT_NE(config, nullptr);
  ASSERT_NE(mode, nullptr) << "SAFEPOINT_CONFIG_MODE is not set: run through bazel test --config=<config>";
  ASSERT_NE(emu, nullptr) << "not started through a platforms/toolchains runner";
  if (std::string(mode) == "native") {
    EXPECT_STREQ(emu, "");
  } else {
    EXPECT_NE(std::string(emu).find(std::string(want.qemu_binary)), std::string::npos) << emu;
    EXPECT_NE(std::string(emu).find(std::string(want.qemu_cpu)), std::string::npos)
        << "the emulator must run the port's pinned CPU model: " << emu;
  }
}

// --- SIGURG by tgkill on a sigaltstack ------------------------------------

struct UrgSeen {
  std::atomic<int> count{0};
  int code = 0;
  int signo = 0;
  pid_t pid = 0;
  bool on_altstack = false;
  uintptr_t pc = 0;
} g_urg;

void OnUrg(int sig, siginfo_t* si, void* uc) {
  g_urg.signo = sig;
  g_urg.code = si->si_code;
  g_urg.pid = si->si_pid;
  // The frame itself, not a local's address: under ASan (amd64_san) a
  // local may live on ASan's fake stack, off the stack the handler runs on.
  g_urg.on_altstack = Alt().contains(__builtin_frame_address(0));
  g_urg.pc = Ctx::pc(static_cast<ucontext_t*>(uc));
  g_urg.count.fetch_add(1);
}

TEST(Platform, SigurgByTgkillOnSigaltstack) {
  Alt();
  Install(SIGURG, OnUrg, {});
  int before = g_urg.count.load();
  ASSERT_EQ(Tgkill(SIGURG), 0) << strerror(errno);
  ASSERT_EQ(g_urg.count.load(), before + 1) << "a signal sent to the own thread arrives before tgkill returns";
  EXPECT_EQ(g_urg.signo, SIGURG);
  EXPECT_EQ(g_urg.code, SI_TKILL) << "si_code must say the signal came from tgkill";
  EXPECT_EQ(g_urg.pid, getpid());
  EXPECT_TRUE(g_urg.on_altstack) << "SA_ONSTACK handler did not run on the sigaltstack";
}

// --- rewriting PC, SP and the link register, resuming elsewhere -----------

struct Redirect {
  uintptr_t trap_pc = 0;    // where the breakpoint sits
  uintptr_t first = 0;      // push_call target
  uintptr_t second = 0;     // push_call resume PC
  uintptr_t seen_pc = 0, seen_sp = 0, seen_lr = 0;
  uintptr_t after_sp = 0, after_lr = 0, after_pc = 0;
  int hits = 0;
} g_redirect;

void OnTrapRedirect(int, siginfo_t*, void* p) {
  auto* uc = static_cast<ucontext_t*>(p);
  g_redirect.hits++;
  g_redirect.seen_pc = Ctx::pc(uc);
  g_redirect.seen_sp = Ctx::sp(uc);
  g_redirect.seen_lr = Ctx::lr(uc);
  Ctx::push_call(uc, g_redirect.first, g_redirect.second);
  g_redirect.after_pc = Ctx::pc(uc);
  g_redirect.after_sp = Ctx::sp(uc);
  g_redirect.after_lr = Ctx::lr(uc);
}

TEST(Platform, SignalContextRewritesPcSpAndLinkRegister) {
  const PortInfo& port = NativePort();
  Alt();
  ProbeCode pair = port.pushcall_pair();
  std::vector<uint8_t> bytes = pair.bytes;
  while (bytes.size() % port.insn_align) bytes.push_back(0);
  uint32_t trap_off = static_cast<uint32_t>(bytes.size());
  bytes.insert(bytes.end(), port.breakpoint.begin(), port.breakpoint.end());
  auto page = MakePage(bytes);
  ASSERT_NE(page, nullptr);

  g_redirect = {};
  g_redirect.trap_pc = page->base() + trap_off;
  g_redirect.first = page->base() + pair.insns[0];
  g_redirect.second = page->base() + pair.insns[1];
  Install(SIGTRAP, OnTrapRedirect, {SIGURG});

  int result = page->as<int (*)()>(trap_off)();

  EXPECT_EQ(result, 42) << "2 from the injected call, +40 from the resume PC, then back to the caller";
  EXPECT_EQ(g_redirect.hits, 1);
  EXPECT_EQ(g_redirect.seen_pc, g_redirect.trap_pc + port.pc_after_trap);
  EXPECT_EQ(g_redirect.after_pc, g_redirect.first);
  if (port.has(kCapLinkRegister)) {
    EXPECT_EQ(g_redirect.after_lr, g_redirect.second);
    EXPECT_NE(g_redirect.seen_lr, 0u) << "a call from C leaves its return address in the link register";
    EXPECT_EQ(g_redirect.after_sp, g_redirect.seen_sp - port.pushcall_bytes) << "pushCall's bytes, as the port declares";
  } else {
    EXPECT_EQ(g_redirect.after_sp, g_redirect.seen_sp - 8);
  }
}

// --- a breakpoint in a fresh W^X code page --------------------------------

struct Armed {
  CodePage* page = nullptr;
  uint32_t offset = 0;
  uint8_t saved[16] = {};
  size_t len = 0;
  int traps = 0;
  int bad = 0;                // traps at an unexpected PC or a failed restore
  bool send_urg = false;
  uintptr_t urg_pc = 0;       // the PC the SIGURG handler saw
  int urgs = 0;
} g_armed;

bool Arm(CodePage* page, uint32_t offset, const PortInfo& port) {
  g_armed.page = page;
  g_armed.offset = offset;
  g_armed.len = port.breakpoint.size();
  page->Read(offset, g_armed.saved, g_armed.len);
  return page->Patch(offset, port.breakpoint.data(), port.breakpoint.size());
}

void OnTrapArmed(int, siginfo_t*, void* p) {
  auto* uc = static_cast<ucontext_t*>(p);
  uintptr_t at = Ctx::pc(uc) - NativePort().pc_after_trap;
  g_armed.traps++;
  if (at != g_armed.page->base() + g_armed.offset) {
    g_armed.bad++;
    return;
  }
  if (!g_armed.page->Patch(g_armed.offset, g_armed.saved, g_armed.len)) g_armed.bad++;
  Ctx::set_pc(uc, at);
  // SIGURG is in this handler's mask: it stays pending until sigreturn and
  // then arrives with the PC at the restored instruction.
  if (g_armed.send_urg) Tgkill(SIGURG);
}

void OnUrgArmed(int, siginfo_t*, void* p) {
  g_armed.urg_pc = Ctx::pc(static_cast<ucontext_t*>(p));
  g_armed.urgs++;
}

TEST(Platform, BreakpointInFreshCodePageRestoresAndResumes) {
  const PortInfo& port = NativePort();
  Alt();
  ProbeCode code = port.counting(16);
  auto page = MakePage(code.bytes);
  ASSERT_NE(page, nullptr);
  // Natively patched in place, no system call per patch; under an emulator
  // never writable and executable at once (core/code_page.h says why).
  const std::string perms = CodePage::Flips() ? "r-xp" : "rwxp";
  EXPECT_EQ(MapPerms(page->base()), perms) << (CodePage::Flips() ? "W^X under an emulator" : "RWX natively");
  Install(SIGTRAP, OnTrapArmed, {SIGURG});
  auto f = page->as<int (*)()>(code.entry);
  ASSERT_EQ(f(), 16);

  for (size_t k = 0; k < code.insns.size(); k++) {
    g_armed = {};
    ASSERT_TRUE(Arm(page.get(), code.insns[k], port));
    EXPECT_EQ(MapPerms(page->base()), perms) << "as mapped, after a patch";
    EXPECT_EQ(f(), 16) << "armed at instruction " << k;
    EXPECT_EQ(g_armed.traps, 1) << "instruction " << k;
    EXPECT_EQ(g_armed.bad, 0) << "instruction " << k;
  }
  // Restored: runs without trapping.
  g_armed = {};
  g_armed.page = page.get();
  EXPECT_EQ(f(), 16);
  EXPECT_EQ(g_armed.traps, 0);
}

// --- self-modifying code after a cache flush ------------------------------

TEST(Platform, SelfModifyingCodeAfterCacheFlush) {
  const PortInfo& port = NativePort();
  ProbeCode code = port.counting(3);
  auto page = MakePage(code.bytes);
  ASSERT_NE(page, nullptr);
  auto f = page->as<int (*)()>(code.entry);
  // The return instruction, copied over the second add, cuts the count to 1.
  std::vector<uint8_t> ret(code.bytes.begin() + code.insns.back(), code.bytes.end());
  std::vector<uint8_t> add(code.bytes.begin() + code.insns[2], code.bytes.begin() + code.insns[2] + ret.size());
  for (int i = 0; i < 200; i++) {
    ASSERT_EQ(f(), 3) << "round " << i;
    ASSERT_TRUE(page->Patch(code.insns[2], ret.data(), ret.size()));
    ASSERT_EQ(f(), 1) << "round " << i << ": the patched code did not run";
    ASSERT_TRUE(page->Patch(code.insns[2], add.data(), add.size()));
  }
}

// --- SIGURG from the SIGTRAP handler lands at the armed instruction --------

TEST(Platform, SigurgFromTrapHandlerLandsAtArmedInstruction) {
  const PortInfo& port = NativePort();
  Alt();
  ProbeCode code = port.counting(16);
  auto page = MakePage(code.bytes);
  ASSERT_NE(page, nullptr);
  Install(SIGTRAP, OnTrapArmed, {SIGURG});
  Install(SIGURG, OnUrgArmed, {});
  auto f = page->as<int (*)()>(code.entry);

  constexpr int kRounds = 1000;
  int misplaced = 0, lost = 0, wrong = 0;
  std::string first_problem;
  for (int i = 0; i < kRounds; i++) {
    size_t k = static_cast<size_t>(i) % code.insns.size();
    g_armed = {};
    g_armed.send_urg = true;
    ASSERT_TRUE(Arm(page.get(), code.insns[k], port));
    int r = f();
    uintptr_t want = page->base() + code.insns[k];
    if (r != 16) wrong++;
    if (g_armed.urgs != 1 || g_armed.traps != 1 || g_armed.bad != 0) {
      lost++;
    } else if (g_armed.urg_pc != want) {
      misplaced++;
      if (first_problem.empty()) {
        char buf[128];
        snprintf(buf, sizeof buf, "round %d: SIGURG at +0x%lx, armed +0x%x", i,
                 static_cast<unsigned long>(g_armed.urg_pc - page->base()), code.insns[k]);
        first_problem = buf;
      }
    }
  }
  EXPECT_EQ(lost, 0) << "rounds without exactly one trap and one SIGURG";
  EXPECT_EQ(misplaced, 0) << first_problem;
  EXPECT_EQ(wrong, 0) << "rounds whose result was not 16";
}

// --- every port's data is self-consistent (host-neutral, all ports) -------

TEST(PortContract, EveryPortIsComplete) {
  std::string want = SAFEPOINT_PORT_LIST;  // platforms/PORTS, comma-separated
  for (size_t at = want.find(','); at != std::string::npos; at = want.find(',', at + 2)) want.replace(at, 1, ", ");
  ASSERT_EQ(PortNames(), want) << "AllPorts() must list platforms/PORTS, in order";
  for (const PortInfo* p : AllPorts()) {
    SCOPED_TRACE(std::string(p->name));
    EXPECT_EQ(FindPort(p->name), p);
    EXPECT_FALSE(p->qemu_binary.empty());
    EXPECT_FALSE(p->qemu_cpu.empty());
    EXPECT_FALSE(p->breakpoint.empty());
    EXPECT_EQ(p->breakpoint.size() % p->insn_align, 0u);
    EXPECT_FALSE(p->g_reg.empty());
    EXPECT_EQ(p->has(kCapLinkRegister), !p->link_reg.empty());
    ProbeCode c = p->counting(5);
    ASSERT_EQ(c.insns.size(), 7u) << "mov, five adds, ret";
    for (uint32_t off : c.insns) EXPECT_EQ(off % p->insn_align, 0u);
    for (size_t i = 1; i < c.insns.size(); i++) {
      EXPECT_GT(c.insns[i], c.insns[i - 1]);
      EXPECT_LE(c.insns[i] - c.insns[i - 1], p->insn_max_len);
    }
  }
  EXPECT_EQ(FindPort("no-such-port"), nullptr) << "an unknown name finds no port";
}

}  // namespace
}  // namespace safepoint
