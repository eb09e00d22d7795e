// The loong64 port's data and probe encoder. Host-neutral: built for every target.
#include "platforms/loong64/port.h"

#include "platforms/common/code_builder.h"

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

}  // namespace

const PortInfo kLoong64Port = {
    .name = "loong64",
    .elf_machine = 258,  // EM_LOONGARCH
    .uname_machine = "loongarch64",
    .qemu_binary = "qemu-loongarch64",
    .qemu_cpu = "la464",
    .capabilities = kCapAsyncPreemption | kCapLinkRegister,
    .insn_align = 4,
    .insn_max_len = 4,
    .breakpoint = {0x00, 0x00, 0x2A, 0x00},  // BREAK 0
    .pc_after_trap = 0,
    .sp_reg = "R3",
    .g_reg = "R22",
    .link_reg = "R1",
    .regtmp_reg = "R30",
    .counting = Counting,
    .pushcall_pair = PushCallPair,
};

}  // namespace safepoint
