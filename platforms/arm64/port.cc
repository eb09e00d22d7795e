// The arm64 port's data and probe encoder. Host-neutral: built for every target.
#include "platforms/arm64/port.h"

#include "platforms/common/code_builder.h"
#include "platforms/arm64/facts.h"

namespace safepoint {
namespace {

// A64 encodings used here (Arm ARM, C6):
//   MOVZ Wd, #imm16            0x52800000 | imm16<<5 | Rd
//   ADD  Wd, Wn, #imm12        0x11000000 | imm12<<10 | Rn<<5 | Rd
//   LDR  Xt, [Xn|SP], #imm9    0xF8400400 | (imm9&0x1ff)<<12 | Rn<<5 | Rt
//   RET                        0xD65F03C0
//   BRK  #0                    0xD4200000
constexpr uint32_t MovzW(int rd, uint32_t imm) { return 0x52800000u | (imm & 0xffff) << 5 | rd; }
constexpr uint32_t AddImmW(int rd, int rn, uint32_t imm) { return 0x11000000u | (imm & 0xfff) << 10 | rn << 5 | rd; }
constexpr uint32_t LdrPost(int rt, int rn, int imm) { return 0xF8400400u | (uint32_t(imm) & 0x1ff) << 12 | rn << 5 | rt; }
constexpr uint32_t kRet = 0xD65F03C0u;
constexpr int kSP = 31, kLR = 30;

ProbeCode Counting(int n) {
  CodeBuilder b;
  b.insn32(MovzW(0, 0));
  for (int i = 0; i < n; i++) b.insn32(AddImmW(0, 0, 1));
  b.insn32(kRet);
  return b.take();
}

ProbeCode PushCallPair() {
  CodeBuilder b;
  b.insn32(MovzW(0, 2));             // first: w0 = 2
  b.insn32(kRet);                    //        return through LR (the second)
  uint32_t second = b.here();
  b.insn32(AddImmW(0, 0, 40));       // second: w0 += 40
  b.insn32(LdrPost(kLR, kSP, 16));   //         LR = [sp]; sp += 16 (undo push_call)
  b.insn32(kRet);
  ProbeCode c = b.take();
  c.insns = {0, second};
  return c;
}

// asyncPreempt's frame, from the SP it leaves (offsets upward; 240 bytes
// allocated, then the 16-byte pushCall slot holding the interrupted LR):
//     0  the resume PC (LR at entry), reloaded into X27 (REGTMP) to return
//     8  x0 .. x17      (8 bytes each, 8..151)
//   152  x19 .. x26     (152..215)
//   216  nzcv, 224 fpsr, 232 fpcr
//   240  the interrupted LR (pushCall's slot, not part of the table)
// X18 (platform register), X27 (REGTMP), X28 (g), X29 (never used by
// generated code) and X30 (in the pushCall slot) are not in the table, as in
// Go. Vector registers: the 128-bit Q0-Q31 in the P's scratch area.
std::vector<SavedReg> Arm64SavedRegs() {
  static const char* const gprs[] = {"x0",  "x1",  "x2",  "x3",  "x4",  "x5",  "x6",  "x7",  "x8",
                                     "x9",  "x10", "x11", "x12", "x13", "x14", "x15", "x16", "x17",
                                     "x19", "x20", "x21", "x22", "x23", "x24", "x25", "x26"};
  static const char* const q[] = {"q0",  "q1",  "q2",  "q3",  "q4",  "q5",  "q6",  "q7",  "q8",  "q9",  "q10",
                                  "q11", "q12", "q13", "q14", "q15", "q16", "q17", "q18", "q19", "q20", "q21",
                                  "q22", "q23", "q24", "q25", "q26", "q27", "q28", "q29", "q30", "q31"};
  std::vector<SavedReg> v;
  v.push_back({"lr", SavedReg::kGeneral, 0, 8});
  uint32_t off = 8;
  for (const char* r : gprs) v.push_back({r, SavedReg::kGeneral, off, 8}), off += 8;
  // setflags sets N Z C V (bits 31..28); FPSR's cumulative exception bits
  // IOC DZC OFC UFC IXC IDC (0..4, 7) and QC (27); FPCR's FZ, DN and AHP
  // (24..26), never its rounding mode or trap enables.
  v.push_back({"nzcv", SavedReg::kFlags, 216, 8, 0, 0xF0000000});
  v.push_back({"fpsr", SavedReg::kFlags, 224, 8, 0, 0x0800009F});
  v.push_back({"fpcr", SavedReg::kFlags, 232, 8, 0, 0x07000000});
  for (int i = 0; i < 32; i++) v.push_back({q[i], SavedReg::kVector, 16u * i, 16});
  return v;
}

// Go's arm64 stack check: MOVD 16(g), R16; CMP R16, RSP; BLS, with a SUB
// $(frame-StackSmall), RSP, R17 first for frames above StackSmall (frames
// stay below StackBig, so the 12-bit immediate always fits). The frame is
// the locals (plus the saved LR in a non-leaf), rounded up to 16.
int CheckInsns(int locals, bool leaf) {
  int frame = leaf ? (locals + 15) & ~15 : (8 + locals + 15) & ~15;
  return frame <= 128 ? 3 : 4;
}

uint32_t Word(const uint8_t* end) {
  return uint32_t{end[-4]} | uint32_t{end[-3]} << 8 | uint32_t{end[-2]} << 16 | uint32_t{end[-1]} << 24;
}
// BL imm26 and BLR Xn.
uint32_t GoCallBefore(const uint8_t* end, size_t before) {
  if (before < 4) return 0;
  uint32_t w = Word(end);
  return (w & 0xFC000000u) == 0x94000000u || (w & 0xFFFFFC1Fu) == 0xD63F0000u ? 4 : 0;
}

// X0-X17, X19-X26 (saved), X28 (g), X29 (restored from its frame record),
// X30 (pushCall's slot), SP, and NZCV of CPSR; not X18 (the platform's)
// or X27 (REGTMP).
std::vector<PortInfo::GoFacts::Preserved> GoPreserved() {
  std::vector<PortInfo::GoFacts::Preserved> v;
  for (int r = 0; r <= 31; r++)
    if (r != 18 && r != 27) v.push_back({r, ~uint64_t{0}});
  v.push_back({33, 0xF0000000});
  return v;
}

// The low 8 bytes of V0-V31, and FPSR, as runtime.asyncPreempt.abi0 of
// the goprogs binaries saves and restores them (`go tool objdump`, GNU
// objdump):
//   Go 1.19, 1.24: FSTPD (F0, F1) .. (F30, F31) to 232..472(RSP), FLDPD
//     back: D registers only, and loading Dn zeroes the upper 64 bits of Vn.
//   Go 1.26: VST1.P [V0.B16-V3.B16] .. [V28.B16-V31.B16] to p.xRegs.scratch,
//     VLD1.P back: all 16 bytes (only this version keeps the upper half).
//   All three: MRS FPSR to 224(RSP), MSR back (with NZCV); FPCR is not
//     saved by any.
std::vector<PortInfo::GoFacts::PreservedVec> GoPreservedVec() {
  static const char* const kNames[32] = {"v0",  "v1",  "v2",  "v3",  "v4",  "v5",  "v6",  "v7",
                                         "v8",  "v9",  "v10", "v11", "v12", "v13", "v14", "v15",
                                         "v16", "v17", "v18", "v19", "v20", "v21", "v22", "v23",
                                         "v24", "v25", "v26", "v27", "v28", "v29", "v30", "v31"};
  std::vector<PortInfo::GoFacts::PreservedVec> v;
  for (const char* n : kNames) v.push_back({n, 8});
  v.push_back({"fpsr", 4});
  return v;
}

}  // namespace

const PortInfo kArm64Port = {
    .name = facts::kName,
    .elf_machine = facts::kElfMachine,
    .uname_machine = facts::kUnameMachine,
    .qemu_binary = facts::kQemu,
    .qemu_cpu = facts::kQemuCpu,
    .capabilities = kCapAsyncPreemption | kCapLinkRegister,
    .insn_align = 4,
    .insn_max_len = 4,
    .breakpoint = {0x00, 0x00, 0x20, 0xD4},  // BRK #0
    .pc_after_trap = 0,
    .sp_reg = "RSP",
    .g_reg = "R28",
    .link_reg = "R30",
    .regtmp_reg = "R27",
    .saved_regs = Arm64SavedRegs(),
    .ir_regs = {"x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9", "x10", "x11"},
    .async_frame = 256,
    .tiers = {{"base", 512, false, ""}},
    .pushcall_bytes = 16,
    .mcall_frame = 0,
    .sp_align = 16,
    .counting = Counting,
    .pushcall_pair = PushCallPair,
    // Go's stack check: MOVD 16(g), R16; CMP R16, RSP; BLS (a SUB first for large frames).
    .model = {.has_regtmp = true, .check_insns = CheckInsns, .addi_imm_bits = 12,
              .regtmp_restartable = true, .regtmp_ops = kRegtmpAddressOps,
              .max_sequence_bytes = 20,
              // CBZ/CBNZ imm19 words (+-1 MiB), B imm26 words (+-128 MiB)
              .branch_reach = {(int64_t{1} << 20) - 4, (int64_t{1} << 27) - 4}},
    .objdump = {facts::kObjdump, facts::kObjdumpMachine, facts::kObjdumpFlags, facts::kObjdumpComment},
    .go = {.goarch = "arm64", .gdb_pc = 32, .gdb_sp = 31, .gdb_lr = 30, .gdb_g = 28, .goexit_return = 4, .call_before = GoCallBefore,
           .preserved = GoPreserved(), .preserved_vec = GoPreservedVec()},
};
SAFEPOINT_REGISTER_PORT(kArm64Port);

}  // namespace safepoint
