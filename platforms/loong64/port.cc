// The loong64 port's data and probe encoder. Host-neutral: built for every target.
#include "platforms/loong64/port.h"

#include "platforms/common/code_builder.h"
#include "platforms/loong64/facts.h"

namespace safepoint {
namespace {

// LoongArch encodings used here (LoongArch Reference Manual vol. 1, 2RI12/2RI16):
//   ADDI.W rd, rj, si12   0x02800000 | (si12&0xfff)<<10 | rj<<5 | rd
//   ADDI.D rd, rj, si12   0x02C00000 | ...
//   LD.D   rd, rj, si12   0x28C00000 | ...
//   JIRL   rd, rj, offs16 0x4C000000 | (offs16&0xffff)<<10 | rj<<5 | rd
//   BREAK  0              0x002A0000
constexpr uint32_t Ri12(uint32_t op, int rd, int rj, int imm) {
  return op | (uint32_t(imm) & 0xfff) << 10 | rj << 5 | rd;
}
constexpr uint32_t AddiW(int rd, int rj, int imm) { return Ri12(0x02800000u, rd, rj, imm); }
constexpr uint32_t AddiD(int rd, int rj, int imm) { return Ri12(0x02C00000u, rd, rj, imm); }
constexpr uint32_t LdD(int rd, int rj, int imm) { return Ri12(0x28C00000u, rd, rj, imm); }
constexpr uint32_t kRet = 0x4C000000u | 1 << 5;  // JIRL R0, R1, 0
constexpr int kZero = 0, kRA = 1, kSP = 3, kA0 = 4;

ProbeCode Counting(int n) {
  CodeBuilder b;
  b.insn32(AddiW(kA0, kZero, 0));
  for (int i = 0; i < n; i++) b.insn32(AddiW(kA0, kA0, 1));
  b.insn32(kRet);
  return b.take();
}

ProbeCode PushCallPair() {
  CodeBuilder b;
  b.insn32(AddiW(kA0, kZero, 2));  // first: a0 = 2
  b.insn32(kRet);                  //        return through RA (the second)
  uint32_t second = b.here();
  b.insn32(AddiW(kA0, kA0, 40));   // second: a0 += 40
  b.insn32(LdD(kRA, kSP, 0));      //         RA = [sp]; sp += 8 (undo push_call)
  b.insn32(AddiD(kSP, kSP, 8));
  b.insn32(kRet);
  ProbeCode c = b.take();
  c.insns = {0, second};
  return c;
}

// asyncPreempt's frame, from the SP it leaves (offsets upward):
//   0         the resume PC (RA at entry; private to the printer)
//   8..208    $r4..$r21, $r23..$r29, $r31 (every register but $r0, RA,
//             $tp, SP, g and REGTMP), 8 bytes each
//   216       fcc0..fcc7 packed: bit i = fcc_i
//   224       fcsr0
//   232       padding
//   240       REGTMP ($r30; private to the printer, see mkpreempt.cc)
// It allocates 248 bytes below the 8 pushCall took (the interrupted RA), so
// SP stays 16-byte aligned. The 32 LASX registers go to the P's scratch
// area, 32 bytes each; their low 128 bits are the LSX registers and their
// low 64 the FPRs.
constexpr uint32_t kLoong64GprBase = 8, kLoong64FccOff = 216, kLoong64FcsrOff = 224, kLoong64Alloc = 248;

std::vector<SavedReg> Loong64SavedRegs() {
  static const char* const gprs[] = {"$r4",  "$r5",  "$r6",  "$r7",  "$r8",  "$r9",  "$r10", "$r11", "$r12",
                                     "$r13", "$r14", "$r15", "$r16", "$r17", "$r18", "$r19", "$r20", "$r21",
                                     "$r23", "$r24", "$r25", "$r26", "$r27", "$r28", "$r29", "$r31"};
  static const char* const xr[] = {"$xr0",  "$xr1",  "$xr2",  "$xr3",  "$xr4",  "$xr5",  "$xr6",  "$xr7",
                                   "$xr8",  "$xr9",  "$xr10", "$xr11", "$xr12", "$xr13", "$xr14", "$xr15",
                                   "$xr16", "$xr17", "$xr18", "$xr19", "$xr20", "$xr21", "$xr22", "$xr23",
                                   "$xr24", "$xr25", "$xr26", "$xr27", "$xr28", "$xr29", "$xr30", "$xr31"};
  std::vector<SavedReg> v;
  uint32_t off = kLoong64GprBase;
  for (const char* r : gprs) v.push_back({r, SavedReg::kGeneral, off, 8}), off += 8;
  // setflags sets FCC0-FCC7 (packed, bit i = fcc_i) and FCSR0's Flags
  // (16..20) and Cause (24..28), never its rounding mode or enables.
  v.push_back({"fcc", SavedReg::kFlags, kLoong64FccOff, 8, 0, 0xFF});
  v.push_back({"fcsr0", SavedReg::kFlags, kLoong64FcsrOff, 8, 0, 0x1F1F0000});
  for (int i = 0; i < 32; i++) v.push_back({xr[i], SavedReg::kVector, 32u * i, 32});
  return v;
}
static_assert(kLoong64GprBase + 8 * 26 == kLoong64FccOff);

// Go's loong64 stack check: MOVV 16(g), R20; SGTU; BEQ, with an ADDV
// $-(frame-StackSmall), SP first for frames above StackSmall: one ADDI.D
// when it fits 12 signed bits, else the constant (LU12I.W, and ORI unless
// its low 12 bits are zero) and an ADD.D. The frame is 8 + locals rounded up
// to 16 (none for a leaf without locals).
int CheckInsns(int locals, bool leaf) {
  int frame = leaf && locals == 0 ? 0 : (8 + locals + 15) & ~15;
  if (frame <= 128) return 3;
  int32_t adj = -(frame - 128);
  if (adj >= -2048) return 4;
  return 3 + ((adj & 0xfff) != 0 ? 2 : 1) + 1;
}

uint32_t Word(const uint8_t* end) {
  return uint32_t{end[-4]} | uint32_t{end[-3]} << 8 | uint32_t{end[-2]} << 16 | uint32_t{end[-1]} << 24;
}
// BL offs26, and JIRL with rd = RA (R1).
uint32_t GoCallBefore(const uint8_t* end, size_t before) {
  if (before < 4) return 0;
  uint32_t w = Word(end);
  return (w >> 26) == 0x15 || ((w >> 26) == 0x13 && (w & 0x1F) == 1) ? 4 : 0;
}

// R1 (pushCall's slot), R3 (SP), R4-R21, R22 (g), R23-R29, R31; not R0,
// R2 (tp: the thread's) or R30 (REGTMP).
std::vector<PortInfo::GoFacts::Preserved> GoPreserved() {
  std::vector<PortInfo::GoFacts::Preserved> v;
  for (int r = 1; r <= 31; r++)
    if (r != 2 && r != 30) v.push_back({r, ~uint64_t{0}});
  return v;
}

// F0-F31, 8 bytes each, as runtime.asyncPreempt(.abi0) of the goprogs
// binaries saves and restores them (`go tool objdump` of Go 1.26, GNU
// objdump; Go 1.19's objdump has no loong64):
//   Go 1.19, 1.24: FST.D F0..F31 to 216..464($sp), FLD.D back.
//   Go 1.26: F0-F31 to p.xRegs.scratch as wide as the CPU has them:
//     XVST/XVLD when internal/cpu.Loong64.HasLASX, else VST/VLD when HasLSX,
//     else FST.D/FLD.D; the low 64 bits (F) come back on every path.
// The condition flags differ by version: 1.19 saves no FCC; 1.24 saves
// FCC0 only (MOVCF2GR to 472($sp), MOVGR2CF back); 1.26 saves FCC0-FCC7
// (packed into one word at 216($sp)). So no fcc is listed. No version saves
// FCSR0.
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

const PortInfo kLoong64Port = {
    .name = facts::kName,
    .elf_machine = facts::kElfMachine,
    .uname_machine = facts::kUnameMachine,
    .qemu_binary = facts::kQemu,
    .qemu_cpu = facts::kQemuCpu,
    .capabilities = kCapAsyncPreemption | kCapLinkRegister,
    .insn_align = 4,
    .insn_max_len = 4,
    .breakpoint = {0x00, 0x00, 0x2A, 0x00},  // BREAK 0
    .pc_after_trap = 0,
    .sp_reg = "R3",
    .g_reg = "R22",
    .link_reg = "R1",
    .regtmp_reg = "R30",
    .saved_regs = Loong64SavedRegs(),
    // As platforms/loong64/lower.cc's kRegs.
    .ir_regs = {"$r4", "$r23", "$r5", "$r6", "$r7", "$r8", "$r9", "$r10", "$r11", "$r24", "$r25", "$r26"},
    .async_frame = kLoong64Alloc + 8,
    .tiers = {{"base", 1024, false, ""}},
    .pushcall_bytes = 8,
    .mcall_frame = 0,
    .sp_align = 16,
    .counting = Counting,
    .pushcall_pair = PushCallPair,
    // Go's stack check: MOVV 16(g), R20; SGTU; BEQ (an ADDV first for large frames).
    .model = {.has_regtmp = true, .check_insns = CheckInsns, .addi_imm_bits = 12,
              .regtmp_restartable = true, .regtmp_ops = kRegtmpAddressOps,
              .max_sequence_bytes = 20,
              // BEQZ/BNEZ offs21 words (+-4 MiB), B offs26 words (+-128 MiB)
              .branch_reach = {(int64_t{1} << 22) - 4, (int64_t{1} << 27) - 4}},
    .objdump = {facts::kObjdump, facts::kObjdumpMachine, facts::kObjdumpFlags, facts::kObjdumpComment},
    .go = {.goarch = "loong64", .gdb_pc = 33, .gdb_sp = 3, .gdb_lr = 1, .gdb_g = 22, .goexit_return = 4, .call_before = GoCallBefore,
           .preserved = GoPreserved(), .preserved_vec = GoPreservedVec()},
};
SAFEPOINT_REGISTER_PORT(kLoong64Port);

}  // namespace safepoint
