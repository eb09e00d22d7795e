// The tracer on a real program (realgo/tracer_testprog.cc, built for the
// config's port): natively through ptrace, under an emulated config through
// QEMU's gdbstub (SAFEPOINT_EMULATOR, set by platforms/toolchains/run, names
// the emulator; empty natively).
#include "realgo/tracer.h"

#include <elf.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "platforms/port.h"

namespace safepoint::realgo {
namespace {

std::string Env(const char* k) {
  const char* v = getenv(k);
  return v ? v : "";
}

std::vector<std::string> Words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  std::string w;
  while (in >> w) out.push_back(w);
  return out;
}

std::string ProgramPath() {
  std::string base = Env("TEST_SRCDIR");
  if (base.empty()) base = Env("RUNFILES_DIR");
  std::string ws = Env("TEST_WORKSPACE");
  if (ws.empty()) ws = "safepoint";
  return base + "/" + ws + "/realgo/tracer_testprog";
}

// The program's symbols (a static ELF64's .symtab).
std::map<std::string, uint64_t> Symbols(const std::string& path) {
  std::map<std::string, uint64_t> out;
  std::ifstream f(path, std::ios::binary);
  std::string b((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (b.size() < sizeof(Elf64_Ehdr)) return out;
  const auto* eh = reinterpret_cast<const Elf64_Ehdr*>(b.data());
  if (eh->e_shoff == 0 || eh->e_shoff + eh->e_shnum * sizeof(Elf64_Shdr) > b.size()) return out;
  const auto* sh = reinterpret_cast<const Elf64_Shdr*>(b.data() + eh->e_shoff);
  for (int i = 0; i < eh->e_shnum; ++i) {
    if (sh[i].sh_type != SHT_SYMTAB) continue;
    const Elf64_Shdr& strs = sh[sh[i].sh_link];
    size_t n = sh[i].sh_size / sizeof(Elf64_Sym);
    const auto* sym = reinterpret_cast<const Elf64_Sym*>(b.data() + sh[i].sh_offset);
    for (size_t j = 0; j < n; ++j) {
      if (sym[j].st_name == 0 || sym[j].st_value == 0) continue;
      out[std::string(b.data() + strs.sh_offset + sym[j].st_name)] = sym[j].st_value;
    }
  }
  return out;
}

std::string ReadFile(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

bool ProcessGone(int pid) { return kill(pid, 0) != 0 && errno == ESRCH; }

class TracerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    prog_ = ProgramPath();
    machine_ = ElfMachineOf(prog_);
    ASSERT_NE(machine_, 0) << "cannot read the test program " << prog_;
    ASSERT_TRUE(LayoutFor(machine_, &layout_)) << "machine " << machine_;
    emulator_ = Words(Env("SAFEPOINT_EMULATOR"));
    timeout_ = emulator_.empty() ? 5 : 30;
    syms_ = Symbols(prog_);
    for (const char* s : {"tp_leaf", "tp_print_value", "tp_urg_point", "tp_in_thread", "tp_global", "tp_calls",
                          "tp_urg_count", "tp_thread_tid"}) {
      ASSERT_TRUE(syms_.count(s)) << "no symbol " << s << " in " << prog_;
    }
    // The first argument register, and where a call's return address is.
    switch (machine_) {
      case kEmX86_64: arg0_ = 5; lr_ = -1; break;
      case kEmAarch64: arg0_ = 0; lr_ = 30; break;
      case kEmLoongarch: arg0_ = 4; lr_ = 1; break;
      case kEmRiscv: arg0_ = 10; lr_ = 1; break;
    }
  }

  void TearDown() override {
    if (t_) {
      int pid = t_->pid();
      t_->Kill();
      if (pid > 0) EXPECT_TRUE(ProcessGone(pid)) << "pid " << pid << " still there after Kill";
    }
  }

  // Starts the program in `mode`; the tracer holds it at its entry.
  void Start(const std::string& mode) {
    std::string dir = Env("TEST_TMPDIR");
    if (dir.empty()) dir = "/tmp";
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    out_ = dir + "/" + info->name() + ".out";
    LaunchSpec spec;
    spec.argv = {prog_, mode};
    // detect_leaks=0: under the sanitizer config the tracee is linked with
    // ASan, whose leak check at exit needs ptrace, taken by the tracer.
    spec.env = {"PATH=/usr/bin:/bin", "GLIBC_TUNABLES=glibc.pthread.rseq=0", "ASAN_OPTIONS=detect_leaks=0"};
    spec.emulator = emulator_;
    spec.elf_machine = machine_;
    spec.stdout_path = out_;
    spec.stderr_path = dir + "/" + info->name() + ".err";
    t_ = NewTracer(spec);
    std::string err;
    ASSERT_TRUE(t_->Start(spec, &err)) << err;
    main_ = t_->pid();
  }

  // The next stop, which must be of `kind` (and at `pc` when nonzero).
  Stop Expect(Stop::Kind kind, uint64_t pc, const std::string& what) {
    Stop s = t_->Wait(timeout_);
    EXPECT_EQ(s.kind, kind) << "waiting for " << what << " (" << timeout_ << " s): got " << DescribeStop(s);
    if (pc) EXPECT_EQ(s.pc, pc) << "waiting for " << what << ": " << DescribeStop(s);
    return s;
  }

  void Go(int tid, int sig) {
    std::string err;
    ASSERT_TRUE(t_->Continue(tid, sig, &err)) << err;
  }

  void Break(const char* sym) {
    std::string err;
    ASSERT_TRUE(t_->SetBreakpoint(syms_[sym], &err)) << err;
  }

  void Unbreak(const char* sym) {
    std::string err;
    ASSERT_TRUE(t_->ClearBreakpoint(syms_[sym], &err)) << err;
  }

  uint64_t Word(const char* sym) {
    uint64_t v = 0;
    std::string err;
    EXPECT_TRUE(t_->ReadMemory(syms_[sym], &v, 8, &err)) << err;
    return v;
  }
  uint32_t U32(const char* sym) {
    uint32_t v = 0;
    std::string err;
    EXPECT_TRUE(t_->ReadMemory(syms_[sym], &v, 4, &err)) << err;
    return v;
  }

  std::vector<uint64_t> Regs(int tid) {
    std::vector<uint64_t> r;
    std::string err;
    EXPECT_TRUE(t_->ReadRegs(tid, &r, &err)) << err;
    EXPECT_GE(static_cast<int>(r.size()), layout_.count) << "registers read";
    r.resize(std::max<size_t>(r.size(), 64));
    return r;
  }

  void SetReg(int tid, int regno, uint64_t v) {
    std::string err;
    ASSERT_TRUE(t_->WriteReg(tid, regno, v, &err)) << err;
  }

  // Runs to the end with no breakpoints left; returns the program's stdout.
  std::string Finish(int tid, int status) {
    Go(tid, 0);
    Stop s = Expect(Stop::kExited, 0, "the program's exit");
    EXPECT_EQ(s.status, status);
    return ReadFile(out_);
  }

  std::string prog_, out_;
  uint16_t machine_ = 0;
  RegLayout layout_{};
  int arg0_ = 0, lr_ = -1;
  std::vector<std::string> emulator_;
  double timeout_ = 5;
  std::map<std::string, uint64_t> syms_;
  std::unique_ptr<Tracer> t_;
  int main_ = 0;
};

TEST_F(TracerTest, BreakpointAtEntryOfAFunction) {
  Start("leaf");
  Break("tp_leaf");
  Go(main_, 0);
  Stop s = Expect(Stop::kBreakpoint, syms_["tp_leaf"], "the breakpoint at tp_leaf");
  EXPECT_EQ(s.tid, main_);
  auto r = Regs(s.tid);
  EXPECT_EQ(r[layout_.pc], syms_["tp_leaf"]);
  uint64_t sp = r[layout_.sp];
  EXPECT_NE(sp, 0u);
  EXPECT_EQ(sp % 8, 0u) << std::hex << sp;
  uint64_t top = 0;
  std::string err;
  EXPECT_TRUE(t_->ReadMemory(sp, &top, 8, &err)) << "the stack at SP: " << err;
  EXPECT_EQ(r[arg0_], 0u) << "tp_leaf(0)'s argument";
}

TEST_F(TracerTest, ContinueStepsOverTheBreakpoint) {
  Start("leaf");
  Break("tp_leaf");
  Go(main_, 0);
  for (uint64_t i = 0; i < 3; ++i) {
    Stop s = Expect(Stop::kBreakpoint, syms_["tp_leaf"], "hit " + std::to_string(i) + " of tp_leaf");
    if (s.kind != Stop::kBreakpoint) return;
    EXPECT_EQ(Regs(s.tid)[arg0_], i);
    EXPECT_EQ(Word("tp_calls"), i) << "the body ran " << i << " times before this hit";
    if (i < 2) Go(s.tid, 0);
  }
  Unbreak("tp_leaf");
  std::string out = Finish(main_, 3);
  EXPECT_NE(out.find("leaf(0)=1\nleaf(1)=3\nleaf(2)=5\n"), std::string::npos) << out;
}

TEST_F(TracerTest, MemoryReadWriteAndBreakpointsInvisible) {
  Start("leaf");
  uint64_t f = syms_["tp_leaf"];
  uint8_t before[8], after[8];
  std::string err;
  ASSERT_TRUE(t_->ReadMemory(f, before, 8, &err)) << err;
  Break("tp_leaf");
  ASSERT_TRUE(t_->ReadMemory(f, after, 8, &err)) << err;
  EXPECT_EQ(memcmp(before, after, 8), 0) << "the breakpoint shows in memory";
  EXPECT_EQ(Word("tp_global"), 0x1122334455667788u);
  uint64_t v = 0xabcdef;
  ASSERT_TRUE(t_->WriteMemory(syms_["tp_global"], &v, 8, &err)) << err;
  EXPECT_EQ(Word("tp_global"), 0xabcdefu);
  Go(main_, 0);
  Stop s = Expect(Stop::kBreakpoint, f, "tp_leaf");
  // Written while stopped at the breakpoint: its bytes read back unchanged.
  ASSERT_TRUE(t_->WriteMemory(f, before, 8, &err)) << err;
  ASSERT_TRUE(t_->ReadMemory(f, after, 8, &err)) << err;
  EXPECT_EQ(memcmp(before, after, 8), 0);
  Unbreak("tp_leaf");
  std::string out = Finish(s.tid, 3);
  EXPECT_NE(out.find("global=abcdef\n"), std::string::npos) << out;
}

TEST_F(TracerTest, RegistersWritten) {
  Start("leaf");
  Break("tp_leaf");
  Break("tp_print_value");
  Go(main_, 0);
  Stop s = Expect(Stop::kBreakpoint, syms_["tp_leaf"], "tp_leaf");
  if (s.kind != Stop::kBreakpoint) return;
  // Make tp_leaf(0) return 1234 at once: the return value register, SP and
  // the PC written as its return would.
  auto r = Regs(s.tid);
  uint64_t ret_to = 0, sp = r[layout_.sp];
  std::string err;
  if (lr_ < 0) {
    ASSERT_TRUE(t_->ReadMemory(sp, &ret_to, 8, &err)) << err;
    SetReg(s.tid, layout_.sp, sp + 8);
  } else {
    ret_to = r[lr_];
  }
  SetReg(s.tid, layout_.ret, 1234);
  SetReg(s.tid, layout_.pc, ret_to);
  auto r2 = Regs(s.tid);
  EXPECT_EQ(r2[layout_.ret], 1234u);
  EXPECT_EQ(r2[layout_.pc], ret_to);
  Go(s.tid, 0);
  s = Expect(Stop::kBreakpoint, syms_["tp_leaf"], "the second call of tp_leaf");
  Unbreak("tp_leaf");
  Go(s.tid, 0);
  s = Expect(Stop::kBreakpoint, syms_["tp_print_value"], "tp_print_value");
  EXPECT_EQ(Word("tp_calls"), 2u) << "tp_leaf(0)'s body was skipped";
  SetReg(s.tid, arg0_, 777);
  Unbreak("tp_print_value");
  std::string out = Finish(s.tid, 3);
  EXPECT_NE(out.find("leaf(0)=1234\n"), std::string::npos) << out;
  EXPECT_NE(out.find("value=777\n"), std::string::npos) << out;
}

TEST_F(TracerTest, SignalAtABreakpointRunsTheHandlerThenHitsItAgain) {
  Start("urg");
  Break("tp_urg_point");
  Go(main_, 0);
  uint64_t pc = syms_["tp_urg_point"];
  Stop s = Expect(Stop::kBreakpoint, pc, "tp_urg_point");
  if (s.kind != Stop::kBreakpoint) return;
  EXPECT_EQ(U32("tp_urg_count"), 0u);
  Go(s.tid, SIGURG);
  Stop again = Expect(Stop::kBreakpoint, pc, "tp_urg_point again after the SIGURG handler");
  EXPECT_EQ(again.tid, s.tid);
  EXPECT_EQ(U32("tp_urg_count"), 1u) << "the handler ran once";
  Go(s.tid, 0);  // steps over: the first call's body, then the second call
  again = Expect(Stop::kBreakpoint, pc, "the second call of tp_urg_point");
  EXPECT_EQ(U32("tp_urg_count"), 1u);
  Unbreak("tp_urg_point");
  std::string out = Finish(s.tid, 0);
  EXPECT_NE(out.find("urg=1\n"), std::string::npos) << out;
}

TEST_F(TracerTest, SecondThreadsBreakpointNamesItsThread) {
  Start("thread");
  Break("tp_in_thread");
  Go(main_, 0);
  Stop s = Expect(Stop::kBreakpoint, syms_["tp_in_thread"], "tp_in_thread in the second thread");
  if (s.kind != Stop::kBreakpoint) return;
  EXPECT_NE(s.tid, main_);
  EXPECT_EQ(static_cast<int>(Word("tp_thread_tid")), s.tid) << "the thread's own gettid()";
  EXPECT_EQ(Regs(s.tid)[layout_.pc], syms_["tp_in_thread"]);
  Unbreak("tp_in_thread");
  std::string out = Finish(s.tid, 0);
  EXPECT_NE(out.find("thread=" + std::to_string(s.tid) + " "), std::string::npos) << out;
}

TEST_F(TracerTest, ProgramsOwnSignalIsReportedAndDelivered) {
  Start("usr1");
  Go(main_, 0);
  Stop s = Expect(Stop::kSignal, 0, "SIGUSR1 from raise()");
  EXPECT_EQ(s.signal, SIGUSR1);
  EXPECT_EQ(s.tid, main_);
  EXPECT_NE(s.pc, 0u);
  Go(s.tid, SIGUSR1);
  s = Expect(Stop::kExited, 0, "the exit");
  EXPECT_EQ(s.status, 0);
  std::string out = ReadFile(out_);
  EXPECT_NE(out.find("usr1=1\n"), std::string::npos) << out;
}

TEST_F(TracerTest, ExitStatusReported) {
  Start("leaf");
  EXPECT_NE(Finish(main_, 3).find("value=5\n"), std::string::npos);
  Stop s = t_->Wait(0.1);
  EXPECT_EQ(s.kind, Stop::kError) << "after the end: " << DescribeStop(s);
}

TEST_F(TracerTest, WaitTimesOutFastAndKillLeavesNoProcess) {
  Start("spin");
  Go(main_, 0);
  double t0 = internal::NowSeconds();
  Stop s = t_->Wait(0.3);
  double took = internal::NowSeconds() - t0;
  EXPECT_EQ(s.kind, Stop::kError) << DescribeStop(s);
  EXPECT_FALSE(s.error.empty());
  EXPECT_LT(took, 1.5) << "a 0.3 s wait took " << took << " s";
  int pid = t_->pid();
  t_->Kill();
  t_->Kill();  // twice is fine
  EXPECT_TRUE(ProcessGone(pid)) << "pid " << pid;
}

TEST_F(TracerTest, KillAtEntry) {
  Start("spin");
  int pid = t_->pid();
  t_->Kill();
  EXPECT_TRUE(ProcessGone(pid)) << "pid " << pid;
  std::string err;
  EXPECT_FALSE(t_->SetBreakpoint(syms_["tp_leaf"], &err));
}

// What tracer_testprog's "vec" mode loads into the registers before
// tp_vec_stop (its TpVecFill): byte j of the k-th vector register 0x40 +
// 0x11 k + 3 j, the control registers as below.
std::vector<VecReg> VecLoaded(uint16_t machine) {
  std::vector<VecReg> out;
  int k = 0;
  auto u32 = [](uint32_t v) {
    return std::vector<uint8_t>{uint8_t(v), uint8_t(v >> 8), uint8_t(v >> 16), uint8_t(v >> 24)};
  };
  for (const VecRegInfo& r : VecRegsFor(machine)) {
    VecReg v{r.name, {}};
    if (r.bytes >= 8) {
      for (int j = 0; j < r.bytes; ++j) v.bytes.push_back(uint8_t(0x40 + 0x11 * k + 3 * j));
      ++k;
    } else if (r.name == "mxcsr") {
      v.bytes = u32(0x5f81);
    } else if (r.name == "fpsr") {
      v.bytes = u32(0x08000011);
    } else if (r.name == "fpcr") {
      v.bytes = u32(0x00400000);
    } else if (r.name == "fcsr") {
      v.bytes = u32(machine == kEmLoongarch ? 0x00030100 : 0x25);
    } else if (r.name.rfind("fcc", 0) == 0) {
      v.bytes = {uint8_t((0x5a >> atoi(r.name.c_str() + 3)) & 1)};
    }
    out.push_back(v);
  }
  return out;
}

std::string HexOf(const std::vector<uint8_t>& b) {
  std::string s;
  char d[3];
  for (uint8_t x : b) {
    snprintf(d, sizeof d, "%02x", x);
    s += d;
  }
  return s;
}

TEST_F(TracerTest, VectorRegistersReadAtAStop) {
  Start("vec");
  ASSERT_TRUE(syms_.count("tp_vec_stop")) << "no symbol tp_vec_stop in " << prog_;
  Break("tp_vec_stop");
  Go(main_, 0);
  Stop s = Expect(Stop::kBreakpoint, syms_["tp_vec_stop"], "tp_vec_stop");
  if (s.kind != Stop::kBreakpoint) return;
  std::vector<VecReg> got;
  std::string err;
  ASSERT_TRUE(t_->ReadVecRegs(s.tid, &got, &err)) << err;
  std::vector<VecReg> want = VecLoaded(machine_);
  ASSERT_FALSE(want.empty());
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(got[i].name, want[i].name) << "register " << i;
    EXPECT_EQ(HexOf(got[i].bytes), HexOf(want[i].bytes)) << want[i].name;
  }
  // Read twice, the same (a cached layout, the same source).
  std::vector<VecReg> again;
  ASSERT_TRUE(t_->ReadVecRegs(s.tid, &again, &err)) << err;
  ASSERT_EQ(again.size(), got.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(again[i].bytes, got[i].bytes) << got[i].name;
  Unbreak("tp_vec_stop");
  std::string out = Finish(s.tid, 0);
  for (const VecReg& w : want) {
    EXPECT_NE(out.find(w.name + "=" + HexOf(w.bytes) + "\n"), std::string::npos)
        << w.name << " after the stop, as loaded:\n" << out;
  }
}

TEST_F(TracerTest, VectorRegisterWrittenIsSeenByTheProgram) {
  Start("vec");
  Break("tp_vec_stop");
  Go(main_, 0);
  Stop s = Expect(Stop::kBreakpoint, syms_["tp_vec_stop"], "tp_vec_stop");
  if (s.kind != Stop::kBreakpoint) return;
  std::vector<VecReg> want = VecLoaded(machine_);
  ASSERT_FALSE(want.empty());
  // The sixth vector register, every byte new, and the last control register.
  VecReg& vec = want[5];
  for (size_t j = 0; j < vec.bytes.size(); ++j) vec.bytes[j] = uint8_t(0xc3 ^ (j * 0x1d));
  VecReg& ctl = want.back();
  uint32_t ctl_value = 0;
  switch (machine_) {
    case kEmX86_64: ctl_value = 0x7fa0; break;     // mxcsr: truncate, PE
    case kEmAarch64: ctl_value = 0x01c00000; break;  // fpcr: FZ, round towards zero
    case kEmLoongarch: ctl_value = 0x00100200; break;  // fcsr0: RM 2, flag V
    case kEmRiscv: ctl_value = 0x4a; break;        // fcsr: frm 2, fflags UF and DZ
  }
  ctl.bytes = {uint8_t(ctl_value), uint8_t(ctl_value >> 8), uint8_t(ctl_value >> 16), uint8_t(ctl_value >> 24)};
  std::string err;
  ASSERT_TRUE(t_->WriteVecReg(s.tid, vec.name, vec.bytes, &err)) << err;
  ASSERT_TRUE(t_->WriteVecReg(s.tid, ctl.name, ctl.bytes, &err)) << err;
  // Refused: a wrong size, an unknown name.
  EXPECT_FALSE(t_->WriteVecReg(s.tid, vec.name, {1, 2, 3}, &err));
  EXPECT_FALSE(t_->WriteVecReg(s.tid, "nosuchreg", vec.bytes, &err));
  std::vector<VecReg> got;
  ASSERT_TRUE(t_->ReadVecRegs(s.tid, &got, &err)) << err;
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(HexOf(got[i].bytes), HexOf(want[i].bytes)) << want[i].name;
  Unbreak("tp_vec_stop");
  std::string out = Finish(s.tid, 0);
  for (const VecReg& w : want) {
    EXPECT_NE(out.find(w.name + "=" + HexOf(w.bytes) + "\n"), std::string::npos)
        << w.name << " as the program saw it after the write:\n" << out;
  }
}

// Each port's GoFacts::preserved_vec names registers ReadVecRegs returns,
// no wider than it returns them (the probe compares them by name).
TEST(PortFacts, PreservedVectorRegistersAreOnesTheTracerReads) {
  ASSERT_FALSE(AllPorts().empty());
  for (const PortInfo* p : AllPorts()) {
    std::vector<VecRegInfo> regs = VecRegsFor(p->elf_machine);
    EXPECT_FALSE(regs.empty()) << p->name;
    EXPECT_FALSE(p->go.preserved_vec.empty()) << p->name;
    for (const PortInfo::GoFacts::PreservedVec& v : p->go.preserved_vec) {
      auto it = std::find_if(regs.begin(), regs.end(), [&](const VecRegInfo& r) { return r.name == v.name; });
      ASSERT_NE(it, regs.end()) << p->name << ": " << v.name << " is not a register the tracer reads";
      EXPECT_GT(v.bytes, 0u) << p->name << " " << v.name;
      EXPECT_LE(v.bytes, static_cast<uint32_t>(it->bytes)) << p->name << " " << v.name;
    }
  }
}

// Not a check: the cost of one ReadVecRegs at a stop, printed.
TEST_F(TracerTest, VectorRegisterReadCost) {
  Start("vec");
  Break("tp_vec_stop");
  Go(main_, 0);
  Stop s = Expect(Stop::kBreakpoint, syms_["tp_vec_stop"], "tp_vec_stop");
  if (s.kind != Stop::kBreakpoint) return;
  std::vector<VecReg> got;
  std::string err;
  double t0 = internal::NowSeconds();
  ASSERT_TRUE(t_->ReadVecRegs(s.tid, &got, &err)) << err;  // the first: the layout found too
  double first = internal::NowSeconds() - t0;
  int n = emulator_.empty() ? 2000 : 100;
  t0 = internal::NowSeconds();
  for (int i = 0; i < n; ++i) ASSERT_TRUE(t_->ReadVecRegs(s.tid, &got, &err)) << err;
  double each = (internal::NowSeconds() - t0) / n;
  printf("ReadVecRegs: first %.3f ms, then %.3f ms each (%zu registers, %s)\n", first * 1e3, each * 1e3,
         got.size(), emulator_.empty() ? "ptrace" : "gdbstub");
  RecordProperty("read_vec_regs_us", static_cast<int>(each * 1e6));
  RecordProperty("read_vec_regs_first_us", static_cast<int>(first * 1e6));
}

// Not a check: the cost of one breakpoint round trip (hit, continue with a
// step over it, next hit), printed.
TEST_F(TracerTest, RoundTripRate) {
  Start("loop");
  Break("tp_leaf");
  Go(main_, 0);
  Stop s = Expect(Stop::kBreakpoint, syms_["tp_leaf"], "the first hit");
  if (s.kind != Stop::kBreakpoint) return;
  int n = emulator_.empty() ? 2000 : 300;
  double t0 = internal::NowSeconds();
  for (int i = 0; i < n; ++i) {
    Go(s.tid, 0);
    s = t_->Wait(timeout_);
    ASSERT_EQ(s.kind, Stop::kBreakpoint) << "round trip " << i << ": " << DescribeStop(s);
  }
  double took = internal::NowSeconds() - t0;
  printf("round trips: %d in %.3f s: %.0f a second (%s)\n", n, took, n / took,
         emulator_.empty() ? "ptrace" : "gdbstub");
  RecordProperty("round_trips_per_second", static_cast<int>(n / took));
}

}  // namespace
}  // namespace safepoint::realgo
