// A tracer: stops an unmodified (static, Go) Linux program at chosen PCs,
// reads and writes its registers and memory, and continues one thread with a
// signal. Two implementations behind one interface: natively through ptrace
// (x86-64 host; realgo/ptrace_tracer.cc), and emulated through QEMU user
// mode's gdbstub (`qemu-ARCH -g PORT prog`; realgo/gdbstub_tracer.cc, a GDB
// remote-protocol client of our own, realgo/rsp.h).
#ifndef SAFEPOINT_REALGO_TRACER_H_
#define SAFEPOINT_REALGO_TRACER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace safepoint::realgo {

// ELF machine numbers of the programs a tracer knows the registers of.
constexpr uint16_t kEmX86_64 = 62;
constexpr uint16_t kEmAarch64 = 183;
constexpr uint16_t kEmRiscv = 243;
constexpr uint16_t kEmLoongarch = 258;

struct LaunchSpec {
  std::vector<std::string> argv;       // argv[0] is the program
  std::vector<std::string> env;        // the whole environment, KEY=VALUE
  // Empty: native (ptrace). Else the emulator's command words, e.g.
  // {"/opt/.../qemu-aarch64", "-cpu", "max"}: gdbstub (the tracer adds
  // "-g PORT" before the program).
  std::vector<std::string> emulator;
  uint16_t elf_machine = 0;            // of the program: the register layout (0: read from argv[0])
  std::string stdout_path, stderr_path;  // the program's output (files; empty: /dev/null)
};

struct Stop {
  enum Kind { kBreakpoint, kSignal, kExited, kKilled, kError } kind = kError;
  int tid = 0;        // thread (Linux TID natively; QEMU's thread id, its host TID)
  int signal = 0;     // Linux signal number (kSignal, kKilled)
  int status = 0;     // exit status (kExited)
  uint64_t pc = 0;    // kBreakpoint: the breakpoint's address (the PC is at it); kSignal: the PC
  std::string error;  // kError: what happened (desync, time-out, guest died)
};

const char* StopKindName(Stop::Kind k);
std::string DescribeStop(const Stop& s);  // one line, for test messages and logs

// Register numbers, GDB's for each architecture.
struct RegLayout {
  int pc;
  int sp;
  int ret;      // the first integer return/argument register (rax, x0, a0)
  int count;    // how many ReadRegs returns (64-bit general registers and the few after them)
};
// False for a machine the tracers do not know.
bool LayoutFor(uint16_t elf_machine, RegLayout* out);
// e_machine of an ELF file (0 when it cannot be read).
uint16_t ElfMachineOf(const std::string& path);

// A floating-point or vector register, or its control/status register, by
// GDB's (lower-case) name; `bytes` little-endian, as the register holds them.
struct VecReg {
  std::string name;
  std::vector<uint8_t> bytes;
};

// What ReadVecRegs returns on each architecture, in this order:
//   x86-64:      xmm0..xmm15 (16 bytes each), mxcsr (4)
//   aarch64:     v0..v31 (16 bytes each), fpsr (4), fpcr (4)
//   loongarch64: f0..f31 (8 bytes each: the low 64 bits of the LSX/LASX
//                registers), fcc0..fcc7 (1 byte each), fcsr (4)
//   riscv64:     f0..f31 (8 bytes each; GDB also calls them ft0, fs0, fa0
//                ...), fcsr (4: QEMU's stub sends 8, of which the low 4)
// Natively (ptrace) only x86-64. Empty for a machine the tracers do not know.
struct VecRegInfo {
  std::string name;
  int bytes;
};
std::vector<VecRegInfo> VecRegsFor(uint16_t elf_machine);

class Tracer {
 public:
  virtual ~Tracer() = default;
  // Starts the program and runs it to its entry point, stopped there (no
  // stop is pending: the first Wait follows a Continue).
  virtual bool Start(const LaunchSpec&, std::string* err) = 0;
  virtual bool SetBreakpoint(uint64_t pc, std::string* err) = 0;
  virtual bool ClearBreakpoint(uint64_t pc, std::string* err) = 0;
  // Registers in GDB's numbering for the architecture (x86-64: rax 0 rbx 1
  // rcx 2 rdx 3 rsi 4 rdi 5 rbp 6 rsp 7 r8..r15 8..15 rip 16 eflags 17 cs ss
  // ds es fs gs 18..23 fs_base 24 gs_base 25; aarch64: x0..x30 0..30, sp 31,
  // pc 32, cpsr 33; loongarch64: r0..r31 0..31, orig_a0 32, pc 33, badv 34;
  // riscv64: zero 0, ra 1 ... t6 31, pc 32). ReadRegs returns the 64-bit
  // general registers and those listed (regs->size() says how many).
  virtual bool ReadRegs(int tid, std::vector<uint64_t>* regs, std::string* err) = 0;
  virtual bool WriteReg(int tid, int regno, uint64_t value, std::string* err) = 0;
  // The floating-point / vector registers of a stopped thread, every one
  // VecRegsFor lists for the program's machine, in that order and of those
  // sizes. ptrace: PTRACE_GETFPREGS. gdbstub: the register numbers found by
  // name in the stub's target description (read once per tracer), the
  // values from the 'g' reply where it holds them (x86-64 under QEMU), else
  // one 'p' a register.
  virtual bool ReadVecRegs(int tid, std::vector<VecReg>* out, std::string* err) = 0;
  // Writes one of them: `name` as VecRegsFor spells it, exactly its size in
  // `bytes`. False, with *err, for an unknown name or a wrong size.
  virtual bool WriteVecReg(int tid, const std::string& name, const std::vector<uint8_t>& bytes,
                           std::string* err) = 0;
  // Breakpoints are invisible to ReadMemory and survive WriteMemory.
  virtual bool ReadMemory(uint64_t addr, void* buf, size_t n, std::string* err) = 0;
  virtual bool WriteMemory(uint64_t addr, const void* buf, size_t n, std::string* err) = 0;
  // Resumes thread `tid` (and every other thread the tracer holds stopped,
  // each with the signal it stopped with, if any, handed back), `signal`
  // (Linux's number) delivered to `tid` (0: none). Continuing a thread
  // stopped at a breakpoint with no signal executes that instruction (steps
  // over it) and keeps the breakpoint; with a signal the signal is delivered
  // first, before the instruction: after the handler returns to the same PC
  // the breakpoint is hit again.
  virtual bool Continue(int tid, int signal, std::string* err) = 0;
  // The next stop of any thread, waiting at most timeout_s; a time-out, a
  // desync or a dead guest is a kError stop, never a hang.
  virtual Stop Wait(double timeout_s) = 0;
  // Ends the guest and its emulator; safe to call twice.
  virtual void Kill() = 0;
  // The process started (the guest natively, the emulator under QEMU).
  virtual int pid() const = 0;
};

std::unique_ptr<Tracer> NewPtraceTracer();
std::unique_ptr<Tracer> NewGdbstubTracer();
// ptrace when spec.emulator is empty, else gdbstub.
std::unique_ptr<Tracer> NewTracer(const LaunchSpec&);

// Helpers shared by the two implementations (tracer_common.cc).
namespace internal {
// Forks and execs `argv` with `env`, stdout/stderr to the files, in a new
// process group; `before_exec` runs in the child (e.g. PTRACE_TRACEME).
// Returns the pid, -1 with *err on failure to fork.
int Spawn(const std::vector<std::string>& argv, const std::vector<std::string>& env,
          const std::string& stdout_path, const std::string& stderr_path,
          void (*before_exec)(), std::string* err);
double NowSeconds();
}  // namespace internal

}  // namespace safepoint::realgo

#endif  // SAFEPOINT_REALGO_TRACER_H_
