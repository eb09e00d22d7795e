// The riscv64 port's data and probe encoder. Host-neutral: built for every target.
#include "platforms/riscv64/port.h"

#include "platforms/common/code_builder.h"
#include "platforms/riscv64/facts.h"

namespace safepoint {
namespace {

// RV64I encodings used here (RISC-V unprivileged ISA, chapter 2/4; no
// compressed instructions, so every instruction is 4 bytes):
//   ADDI rd, rs1, imm12   imm<<20 | rs1<<15 | 0<<12 | rd<<7 | 0x13
//   LD   rd, imm12(rs1)   imm<<20 | rs1<<15 | 3<<12 | rd<<7 | 0x03
//   JALR rd, imm12(rs1)   imm<<20 | rs1<<15 | 0<<12 | rd<<7 | 0x67
//   EBREAK                0x00100073
constexpr uint32_t IType(uint32_t opcode, uint32_t f3, int rd, int rs1, int imm) {
  return (uint32_t(imm) & 0xfff) << 20 | uint32_t(rs1) << 15 | f3 << 12 | uint32_t(rd) << 7 | opcode;
}
constexpr uint32_t Addi(int rd, int rs1, int imm) { return IType(0x13, 0, rd, rs1, imm); }
constexpr uint32_t Ld(int rd, int rs1, int imm) { return IType(0x03, 3, rd, rs1, imm); }
constexpr int kZero = 0, kRA = 1, kSP = 2, kA0 = 10;
constexpr uint32_t kRet = IType(0x67, 0, kZero, kRA, 0);  // JALR zero, 0(ra)

ProbeCode Counting(int n) {
  CodeBuilder b;
  b.insn32(Addi(kA0, kZero, 0));
  for (int i = 0; i < n; i++) b.insn32(Addi(kA0, kA0, 1));
  b.insn32(kRet);
  return b.take();
}

ProbeCode PushCallPair() {
  CodeBuilder b;
  b.insn32(Addi(kA0, kZero, 2));  // first: a0 = 2
  b.insn32(kRet);                 //        return through RA (the second)
  uint32_t second = b.here();
  b.insn32(Addi(kA0, kA0, 40));   // second: a0 += 40
  b.insn32(Ld(kRA, kSP, 0));      //         RA = [sp]; sp += 8 (undo push_call)
  b.insn32(Addi(kSP, kSP, 8));
  b.insn32(kRet);
  ProbeCode c = b.take();
  c.insns = {0, second};
  return c;
}

// asyncPreempt's frame, from the SP it leaves (offsets upward):
//   0         the resume PC (RA at entry; private to the printer)
//   8..200    x5..x26, x28..x30: every register but zero, RA, SP, GP, TP,
//             g (x27) and REGTMP (x31), as Go's preempt_riscv64.s
//   208       fcsr (frm and fflags)
//   216       REGTMP (x31; private to the printer, see mkpreempt.cc)
//   224       padding
// It allocates 232 bytes below the 8 pushCall took (the interrupted RA), so
// SP stays 16-byte aligned. The FP registers F0-F31 (64 bits each) go to
// the P's scratch area, f_i at 8*i: the port's vector registers of
// vfill/vdump (README.md). The pinned CPU (rv64) has no V extension: there
// is no vector state to save.
constexpr uint32_t kRiscv64GprBase = 8, kRiscv64FcsrOff = 208, kRiscv64Alloc = 232;

std::vector<SavedReg> Riscv64SavedRegs() {
  static const char* const gprs[] = {"x5",  "x6",  "x7",  "x8",  "x9",  "x10", "x11", "x12", "x13",
                                     "x14", "x15", "x16", "x17", "x18", "x19", "x20", "x21", "x22",
                                     "x23", "x24", "x25", "x26", "x28", "x29", "x30"};
  static const char* const fregs[] = {"f0",  "f1",  "f2",  "f3",  "f4",  "f5",  "f6",  "f7",  "f8",  "f9",  "f10",
                                      "f11", "f12", "f13", "f14", "f15", "f16", "f17", "f18", "f19", "f20", "f21",
                                      "f22", "f23", "f24", "f25", "f26", "f27", "f28", "f29", "f30", "f31"};
  std::vector<SavedReg> v;
  uint32_t off = kRiscv64GprBase;
  for (const char* r : gprs) v.push_back({r, SavedReg::kGeneral, off, 8}), off += 8;
  // setflags sets fflags (NX UF OF DZ NV, bits 0..4), never frm.
  v.push_back({"fcsr", SavedReg::kFlags, kRiscv64FcsrOff, 8, 0, 0x1F});
  for (int i = 0; i < 32; i++) v.push_back({fregs[i], SavedReg::kVector, 8u * i, 8});
  return v;
}
static_assert(kRiscv64GprBase + 8 * 25 == kRiscv64FcsrOff);
static_assert(kRiscv64Alloc % 16 == 8, "with pushCall's 8 bytes the frame keeps SP 16-byte aligned");

// Go's riscv64 stack check: MOV 16(g), X6; BLTU (taken to the morestack
// path when not below), with an ADD $-(frame-StackSmall), SP, X7 first for
// frames above StackSmall: one ADDI when it fits 12 signed bits, else the
// constant (LUI, and ADDIW unless its low 12 bits are zero) and an ADD. The
// frame is 8 + locals rounded up to 16 (none for a leaf without locals).
int CheckInsns(int locals, bool leaf) {
  int frame = leaf && locals == 0 ? 0 : (8 + locals + 15) & ~15;
  if (frame <= 128) return 2;
  int32_t adj = -(frame - 128);
  if (adj >= -2048) return 3;
  int32_t lo = static_cast<int32_t>(static_cast<uint32_t>(adj) << 20) >> 20;  // sign-extended low 12 bits
  return 2 + (lo != 0 ? 2 : 1) + 1;
}

uint32_t Word(const uint8_t* end) {
  return uint32_t{end[-4]} | uint32_t{end[-3]} << 8 | uint32_t{end[-2]} << 16 | uint32_t{end[-1]} << 24;
}
// JAL and JALR with rd = ra (x1), and C.JALR (which links ra): Go 1.26
// emits compressed instructions on riscv64 (its PC quantum is 2), earlier
// versions none.
uint32_t GoCallBefore(const uint8_t* end, size_t before) {
  if (before >= 2) {
    uint32_t h = uint32_t{end[-2]} | uint32_t{end[-1]} << 8;
    if ((h & 0xF07F) == 0x9002 && ((h >> 7) & 0x1F) != 0) return 2;
  }
  if (before < 4) return 0;
  uint32_t w = Word(end);
  bool link = ((w >> 7) & 0x1F) == 1;
  return link && ((w & 0x7F) == 0x6F || (w & 0x707F) == 0x67) ? 4 : 0;
}

// X1 (ra, reloaded), X2 (SP), X5-X26, X27 (g), X28-X30; not X3 (gp),
// X4 (tp: the thread's) or X31 (REGTMP).
std::vector<PortInfo::GoFacts::Preserved> GoPreserved() {
  std::vector<PortInfo::GoFacts::Preserved> v;
  for (int r = 1; r <= 30; r++)
    if (r != 3 && r != 4) v.push_back({r, ~uint64_t{0}});
  return v;
}

// F0-F31, 8 bytes each, as runtime.asyncPreempt.abi0 of the goprogs
// binaries saves and restores them (`go tool objdump`, GNU objdump): FSD
// to 208..456(sp) and FLD back in Go 1.19, 1.24 and 1.26 (compressed
// C.FSDSP/C.FLDSP in 1.26). No version saves fcsr (no CSR access), and none
// saves vector (V) state.
std::vector<PortInfo::GoFacts::PreservedVec> GoPreservedVec() {
  static const char* const kNames[32] = {"f0",  "f1",  "f2",  "f3",  "f4",  "f5",  "f6",  "f7",
                                         "f8",  "f9",  "f10", "f11", "f12", "f13", "f14", "f15",
                                         "f16", "f17", "f18", "f19", "f20", "f21", "f22", "f23",
                                         "f24", "f25", "f26", "f27", "f28", "f29", "f30", "f31"};
  std::vector<PortInfo::GoFacts::PreservedVec> v;
  for (const char* n : kNames) v.push_back({n, 8});
  return v;
}

}  // namespace

const PortInfo kRiscv64Port = {
    .name = facts::kName,
    .elf_machine = facts::kElfMachine,
    .uname_machine = facts::kUnameMachine,
    .qemu_binary = facts::kQemu,
    .qemu_cpu = facts::kQemuCpu,
    .capabilities = kCapAsyncPreemption | kCapLinkRegister,
    .insn_align = 4,
    .insn_max_len = 4,
    .breakpoint = {0x73, 0x00, 0x10, 0x00},  // EBREAK
    .pc_after_trap = 0,
    .sp_reg = "X2",
    .g_reg = "X27",
    .link_reg = "X1",
    .regtmp_reg = "X31",
    .saved_regs = Riscv64SavedRegs(),
    // As platforms/riscv64/lower.cc's kRegs.
    .ir_regs = {"x10", "x9", "x11", "x12", "x13", "x14", "x15", "x16", "x17", "x18", "x19", "x20"},
    .async_frame = kRiscv64Alloc + 8,
    // F0-F31 in the P's scratch area; no wider tier: the pinned rv64 CPU has
    // no V extension, and asyncPreempt saves no RVV state (README.md).
    .tiers = {{"base", 256, false, ""}},
    .pushcall_bytes = 8,
    .mcall_frame = 0,
    .sp_align = 16,
    .counting = Counting,
    .pushcall_pair = PushCallPair,
    // The stack check: LD 16(g), X6; BLTU X6, SP (an ADDI first for large
    // frames). As Go's riscv64 assembler, every operation expanded through
    // REGTMP is an unsafe point, never a restartable sequence (README.md);
    // vdump goes through a saved scratch register, not REGTMP.
    .model = {.has_regtmp = true, .check_insns = CheckInsns, .addi_imm_bits = 12,
              .regtmp_restartable = false, .regtmp_ops = kRegtmpAddressOps, .max_sequence_bytes = 0,
              // BEQ/BNE 13-bit byte offsets (+-4 KiB), JAL 21 bits (+-1 MiB)
              .branch_reach = {(int64_t{1} << 12) - 4, (int64_t{1} << 20) - 4}},
    .objdump = {facts::kObjdump, facts::kObjdumpMachine, facts::kObjdumpFlags, facts::kObjdumpComment},
    .go = {.goarch = "riscv64", .gdb_pc = 32, .gdb_sp = 2, .gdb_lr = 1, .gdb_g = 27, .goexit_return = 4, .call_before = GoCallBefore,
           .preserved = GoPreserved(), .preserved_vec = GoPreservedVec()},
};
SAFEPOINT_REGISTER_PORT(kRiscv64Port);

}  // namespace safepoint
