// The arm64 port's data and probe encoder. Host-neutral: built for every target.
#include "platforms/arm64/port.h"

#include "platforms/common/code_builder.h"

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

}  // namespace

const PortInfo kArm64Port = {
    .name = "arm64",
    .elf_machine = 183,  // EM_AARCH64
    .uname_machine = "aarch64",
    .qemu_binary = "qemu-aarch64",
    .qemu_cpu = "cortex-a72",
    .capabilities = kCapAsyncPreemption | kCapLinkRegister,
    .insn_align = 4,
    .insn_max_len = 4,
    .breakpoint = {0x00, 0x00, 0x20, 0xD4},  // BRK #0
    .pc_after_trap = 0,
    .sp_reg = "RSP",
    .g_reg = "R28",
    .link_reg = "R30",
    .regtmp_reg = "R27",
    .counting = Counting,
    .pushcall_pair = PushCallPair,
};

}  // namespace safepoint
