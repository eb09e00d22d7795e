// The port contract: everything architecture-specific that safepoint needs,
// behind one interface. A port is a folder under platforms/ that defines
//
//   1. a PortInfo (identity, registers, breakpoint, emulator), as data that
//      any host can read: emitters and their tests run on the host for every
//      target;
//   2. a SignalContext class (read and write PC, SP and the link register in
//      the kernel's signal frame), compiled only into that target's binaries;
//      CheckSignalContext<> below checks at compile time that it is complete;
//   3. the probe code the platform checks run (ProbeCode), built by the
//      port's encoder;
//   4. a Lowerer (platforms/emitter.h), the assembly entry points
//      (platforms/asm.h), and the spelling of asyncPreempt
//      (platforms/mkpreempt.h);
//   5. its facts (port.env: ELF machine, emulator, compiler, objdump) and
//      its setup steps (setup.sh), read by the build and the scripts.
//
// Adding a port (riscv64, say) is a new folder plus one line in
// platforms/PORTS; nothing else changes (conformance/PORTING.md).
#ifndef SAFEPOINT_PLATFORMS_PORT_H_
#define SAFEPOINT_PLATFORMS_PORT_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <ucontext.h>

#include "core/ir.h"

namespace safepoint {

// Machine code with the offsets of its instruction boundaries.
struct ProbeCode {
  std::vector<uint8_t> bytes;
  std::vector<uint32_t> insns;  // offset of every instruction, ascending
  uint32_t entry = 0;           // where a caller starts it
};

// Capabilities a port may lack. Tests that need one skip, naming it.
enum Capability : uint32_t {
  kCapAsyncPreemption = 1u << 0,  // preemptMSupported
  kCapLinkRegister = 1u << 1,     // calls leave the return address in a register
};

// One register asyncPreempt saves, and where. The table drives both the
// generated assembly (platforms/mkpreempt.cc) and the save-area tests.
struct SavedReg {
  enum Kind : uint8_t {
    kGeneral,  // on the goroutine stack, at `offset` from asyncPreempt's SP
    kFlags,    // on the goroutine stack, at `offset`
    kVector,   // in the P's scratch area, at `offset`
  };
  std::string_view name;  // as the port's assembler spells it
  Kind kind;
  uint32_t offset;
  uint32_t size;  // bytes
  // For kVector: the extended-register tier (PortInfo::tiers) that saves
  // it; asyncPreempt for tier t saves exactly the vectors of tier t, and
  // `vfill`/`vdump` reach exactly those, at full width (core/ir.h).
  uint8_t tier = 0;
  // For kFlags: the bits `setflags IMM` sets from IMM (the register becomes
  // IMM & setflags_mask) and the save-area checks compare. Never zero: every
  // flag and control register asyncPreempt saves is checked.
  uint64_t setflags_mask = 0;
};

// One tier of extended register state: the asyncPreempt variant that saves
// it (the generated preempt.S lists them in order in sp_asyncPreempt_tiers)
// and when the runtime uses it. The runtime takes the highest tier whose
// conditions, and those of every tier below it, hold.
struct XTier {
  std::string_view name;         // "base", "simd" ...
  uint32_t scratch_bytes;        // bytes of the P's scratch area it uses
  bool needs_simd;               // only under GOEXPERIMENT=simd
  std::string_view cpu_feature;  // "" or a feature the native port's cpu_has() must report
};

constexpr uint64_t OpBit(ir::Op op) { return uint64_t(1) << static_cast<int>(op); }
// The operations the REGTMP ports expand through REGTMP in this harness's
// lowerings, as Go's assemblers would: addresses of globals, large constants.
// (vdump's address goes through a saved scratch register: it resumes in
// place.)
constexpr uint64_t kRegtmpAddressOps = OpBit(ir::Op::kLdGlobal) | OpBit(ir::Op::kStGlobal) |
                                       OpBit(ir::Op::kDumpRegs) | OpBit(ir::Op::kFlagsDump) |
                                       OpBit(ir::Op::kAddi) | OpBit(ir::Op::kMuli);

// The facts about a port the decision oracle may know (oracle/), declared
// apart from the lowerer that emits code by them: the shape of the
// stack-check prologue Go's assembler emits, and whether the assembler has a
// temporary register whose expansions are restartable sequences.
struct PortModel {
  bool has_regtmp;        // expansions through REGTMP are restartable sequences
  // Instructions of the stack check Go's assembler emits for a function
  // with `locals` bytes of locals (leaf or not): the port's frame rounding,
  // StackSmall, and the immediate range of the compare's adjustment. Checked
  // against the Lowerer by //platforms:model_test, never read from it.
  int (*check_insns)(int locals, bool leaf);
  // The signed immediate width of an add-immediate: a larger `addi` operand
  // is expanded through REGTMP (12 bits on arm64 and loong64).
  int addi_imm_bits;
  // How the port's assembler treats an IR operation it expands through
  // REGTMP: as a restartable sequence (Go's arm64 and loong64 assemblers) or
  // as an unsafe point (Go's riscv64 assembler marks every instruction that
  // uses REGTMP unsafe and has no restartable sequences).
  bool regtmp_restartable;
  // The IR operations the port expands through REGTMP (bit ir::Op; `addi`
  // only beyond addi_imm_bits), as its assembler would.
  uint64_t regtmp_ops;
  // Whether the port expands this IR operation through REGTMP.
  bool ExpandsThroughRegtmp(const ir::Insn& in) const {
    if (!has_regtmp || !(regtmp_ops & (uint64_t(1) << static_cast<int>(in.op)))) return false;
    if (in.op != ir::Op::kAddi) return true;
    return in.imm < -(int64_t(1) << (addi_imm_bits - 1)) || in.imm >= (int64_t(1) << (addi_imm_bits - 1));
  }
  // How far the last instruction of a restartable sequence may start after
  // its first, in bytes: a restart rewinds at most this far.
  uint32_t max_sequence_bytes;
  // How far an IR branch reaches: the largest distance, in bytes, forward
  // or back from the branch instruction's first byte to its target, that
  // the port's branch encoding takes (`jnz`/`jz` and `jmp`). The emitter
  // refuses a farther branch with the IR line, the same way on every port;
  // //platforms:model_test checks the numbers against the Lowerer.
  struct BranchReach {
    int64_t cond;  // jnz, jz
    int64_t jump;  // jmp
  } branch_reach;
};

struct PortInfo {
  // Identity.
  // These four come from the port's port.env (its facts.h), the one place
  // the build, the runner and the scripts read them too.
  std::string_view name;           // as in platforms/PORTS
  uint16_t elf_machine;            // e_machine of this port's ELF files
  std::string_view uname_machine;  // uname -m as seen from inside
  std::string_view qemu_binary;    // qemu-x86_64 ...
  std::string_view qemu_cpu;       // the pinned -cpu model the port is tested on
  uint32_t capabilities;

  // Instructions.
  uint32_t insn_align;    // every instruction starts at a multiple of this
  uint32_t insn_max_len;  // longest encoding, in bytes
  std::vector<uint8_t> breakpoint;  // the trap instruction
  // Where the PC stands after the breakpoint traps, relative to the trap
  // instruction: 1 on amd64 (int3 reports the next byte), 0 where the
  // kernel reports the trapping instruction itself (brk, break).
  uint32_t pc_after_trap;

  // Register names, as the chapter and Go's assemblers spell them.
  std::string_view sp_reg;
  std::string_view g_reg;       // holds the current g in generated code
  std::string_view link_reg;    // empty when the return address is on the stack
  std::string_view regtmp_reg;  // the assembler's temporary; empty if none

  // asyncPreempt's layout: every saved register, the frame it allocates on
  // the goroutine stack (bytes below the SP at which it is entered, the
  // injected return address or saved link register included), and the
  // bytes of the P's scratch area it uses (without and with simd).
  std::vector<SavedReg> saved_regs;
  // The machine registers IR registers r0..r11 live in (names as in saved_regs).
  std::vector<std::string_view> ir_regs;
  uint32_t async_frame = 0;
  // The tiers of extended state, lowest first; tiers[0] is always used.
  std::vector<XTier> tiers;
  // Bytes the injected call itself needs below the interrupted SP (pushCall):
  // 8 on amd64 and loong64, 16 on arm64.
  uint32_t pushcall_bytes = 0;
  // Bytes mcall uses on the goroutine stack when asyncPreempt calls it.
  uint32_t mcall_frame = 0;
  // Generated code keeps SP a multiple of this above stack.lo at every
  // instruction (stacks are 16-aligned): 8 on amd64 (frames in words, return
  // addresses pushed), 16 where every frame rounds to 16 (the lowerer's
  // FrameSize). Only such an SP can meet the stack-room rule's boundary; the
  // sweep's tests check it (Sweep.StackRoomIsAMultipleOfSpAlign).
  uint32_t sp_align = 0;

  // Probe code for the platform checks.
  // counting(n): int f(void) that sets its result register to 0, adds 1 to
  // it n times (insns[1..n] are the adds) and returns.
  ProbeCode (*counting)(int n);
  // pushcall_pair(): two functions at entries given by insns[0] and insns[1].
  // The first sets the result to 2 and returns; the second adds 40, undoes
  // what push_call below did to the stack and returns. Calling the first as
  // if push_call had injected it from a function of the port's C ABI returns
  // 42 to that function's caller.
  ProbeCode (*pushcall_pair)();

  PortModel model;
  // The host's disassembler for this port (lowering tests); "$TOOLS" in
  // `tool` is the tool directory.
  struct Objdump {
    std::string_view tool, machine, flags, comment;
  } objdump;

  // What the real Go runtime's code looks like on this CPU, for the
  // harness that stops unmodified Go binaries (realgo/): GOARCH, the GDB
  // register numbers a tracer reads them by (ptrace's and QEMU's gdbstub's
  // numbering, the same), and how a call looks from its return address.
  struct GoFacts {
    std::string_view goarch;
    int gdb_pc = -1, gdb_sp = -1, gdb_lr = -1, gdb_g = -1;  // gdb_lr -1: none
    // Where a goroutine's first frame returns to: runtime.goexit's entry
    // plus this (newproc1's goexit+PCQuantum; riscv64's gostartcall takes
    // twice the quantum so that it stays 4 even where Go 1.26 compresses).
    uint32_t goexit_return = 0;
    // The registers (GDB numbers, with the bits that count) Go's
    // asyncPreempt must give back unchanged to the goroutine at its resume
    // PC: every one it saves, the link register pushCall kept, SP and the
    // flags; not REGTMP, not the thread's own (tp, fs_base: the goroutine
    // may come back on another M).
    struct Preserved {
      int reg;
      uint64_t mask;
    };
    std::vector<Preserved> preserved;
    // The floating-point / vector registers asyncPreempt gives back
    // unchanged, by the name a tracer reads them by (realgo/tracer.h's
    // VecRegsFor: GDB's): the low `bytes` bytes count. What every Go version
    // the harness runs (1.19, 1.24, 1.26) restores, as their binaries show;
    // a register only some restore is not listed (each port.cc says which).
    struct PreservedVec {
      std::string_view name;
      uint32_t bytes;  // the low `bytes` bytes count
    };
    std::vector<PreservedVec> preserved_vec;
    // The length of a call instruction ending exactly at `end` (`before`
    // bytes of code precede it, `end` excluded), 0 when none could; a
    // variable-length encoding answers for every call form Go emits.
    uint32_t (*call_before)(const uint8_t* end, size_t before) = nullptr;
  } go;

  bool has(Capability c) const { return (capabilities & c) != 0; }
  // Asynchronous preemption as the runtime can do it: declared, and with an
  // asyncPreempt layout table to inject (a port without one runs
  // cooperatively only).
  bool async_preemption() const { return has(kCapAsyncPreemption) && !saved_regs.empty(); }
};

// Registers as a signal context held them, in PortInfo::saved_regs order
// (SignalContext::saved_reg for each): the armed trap's record of the
// registers at its instruction, which the save-area oracle compares with
// what asyncPreempt saved there. Fixed size: filled in a signal handler.
struct RegisterImage {
  static constexpr size_t kMaxRegs = 96, kMaxBytes = 64;
  size_t count = 0;                 // saved_regs entries recorded
  uint8_t known[kMaxRegs] = {};     // leading bytes of each the context held (0: not held)
  uint8_t bytes[kMaxRegs][kMaxBytes] = {};
  // On a port with a link register (PortInfo::link_reg): its value at the
  // trap. Not in saved_regs: pushCall keeps it in its own slot, the lowest
  // word of the pushcall_bytes at the top of asyncPreempt's frame, and
  // asyncPreempt returns through it.
  bool link_known = false;
  uint64_t link = 0;
};

// The number after `prefix` in a register's name ("x17" -> 17), -1 when the
// name is not prefix + digits. Async-signal-safe.
inline int RegNumber(std::string_view name, std::string_view prefix) {
  if (name.size() <= prefix.size() || name.substr(0, prefix.size()) != prefix) return -1;
  int n = 0;
  for (char c : name.substr(prefix.size())) {
    if (c < '0' || c > '9' || n > 1000) return -1;
    n = n * 10 + (c - '0');
  }
  return n;
}
// Copies `n` bytes (at most `cap`) of `src` to `out`; returns what it copied.
inline uint32_t CopyReg(uint8_t* out, const void* src, uint32_t n, uint32_t cap) {
  uint32_t k = n < cap ? n : cap;
  const uint8_t* s = static_cast<const uint8_t*>(src);
  for (uint32_t i = 0; i < k; i++) out[i] = s[i];  // no libc call: signal handlers use it
  return k;
}

// The port's flag and control registers (kind kFlags), in table order: what
// `setflags` sets and `flagsdump` stores, the i-th in g[N+i] (core/ir.h).
inline std::vector<const SavedReg*> FlagRegs(const PortInfo& p) {
  std::vector<const SavedReg*> v;
  for (const SavedReg& r : p.saved_regs)
    if (r.kind == SavedReg::kFlags) v.push_back(&r);
  return v;
}

// Every port known to this build (all of platforms/PORTS, on every host, in
// the list's order). Each port registers itself from its port.cc.
const std::vector<const PortInfo*>& AllPorts();
struct PortRegistration {
  explicit PortRegistration(const PortInfo* p);
};
#define SAFEPOINT_REGISTER_PORT(info) static const ::safepoint::PortRegistration kRegistration_##info(&info)
// The port named `name`, or nullptr.
const PortInfo* FindPort(std::string_view name);
// The names, comma-separated in list order: for error messages.
std::string PortNames();

// The signal-context half of the contract. Each port's SignalContext has
// exactly these static members; CheckSignalContext<T> is instantiated in
// each port's context file so a missing one fails to compile.
template <typename T>
struct CheckSignalContext {
  static_assert(std::is_same_v<decltype(&T::pc), uintptr_t (*)(const ucontext_t*)>, "pc");
  static_assert(std::is_same_v<decltype(&T::sp), uintptr_t (*)(const ucontext_t*)>, "sp");
  static_assert(std::is_same_v<decltype(&T::lr), uintptr_t (*)(const ucontext_t*)>, "lr");
  // The g register (R14, R28, R22) at the interrupted instruction.
  static_assert(std::is_same_v<decltype(&T::greg), uintptr_t (*)(const ucontext_t*)>, "greg");
  static_assert(std::is_same_v<decltype(&T::set_pc), void (*)(ucontext_t*, uintptr_t)>, "set_pc");
  static_assert(std::is_same_v<decltype(&T::set_sp), void (*)(ucontext_t*, uintptr_t)>, "set_sp");
  static_assert(std::is_same_v<decltype(&T::set_lr), void (*)(ucontext_t*, uintptr_t)>, "set_lr");
  // Rewrite the context so that the thread appears to have called `target`
  // from `resume`, the way the port's injected calls do (Go's pushCall):
  // amd64 pushes `resume`; arm64 saves LR on the stack (16 bytes, keeping
  // alignment) and sets LR; loong64 saves RA on the stack (8 bytes) and
  // sets RA.
  static_assert(std::is_same_v<decltype(&T::push_call), void (*)(ucontext_t*, uintptr_t, uintptr_t)>,
                "push_call");
  static_assert(std::is_same_v<decltype(T::kPort), const PortInfo&>, "kPort");
  // Whether the running CPU has an XTier::cpu_feature ("avx", "avx512f").
  static_assert(std::is_same_v<decltype(&T::cpu_has), bool (*)(std::string_view)>, "cpu_has");
  // The leading bytes of saved register `r` (a PortInfo::saved_regs entry)
  // that the context holds, copied to `out` (at most r.size); 0 when the
  // context does not hold it (the save-area oracle then cannot judge it).
  // Async-signal-safe: the armed trap handler calls it.
  static_assert(std::is_same_v<decltype(&T::saved_reg), uint32_t (*)(const ucontext_t*, const SavedReg&, uint8_t*)>,
                "saved_reg");
  static constexpr bool ok = true;
};

}  // namespace safepoint

#endif  // SAFEPOINT_PLATFORMS_PORT_H_
