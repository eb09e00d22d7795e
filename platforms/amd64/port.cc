// The amd64 port's data and probe encoder. Host-neutral: built for every target.
#include "platforms/amd64/port.h"

#include "platforms/common/code_builder.h"

namespace safepoint {
namespace {

// Encodings used here (Intel SDM vol. 2):
//   B8+r id      mov r32, imm32
//   83 /0 ib     add r/m32, imm8     (83 C0 ib: add eax, imm8)
//   48 83 C4 ib  add rsp, imm8
//   C3           ret
//   CC           int3
ProbeCode Counting(int n) {
  CodeBuilder b;
  b.insn({0xB8, 0, 0, 0, 0});  // mov eax, 0
  for (int i = 0; i < n; i++) b.insn({0x83, 0xC0, 0x01});  // add eax, 1
  b.insn({0xC3});
  return b.take();
}

ProbeCode PushCallPair() {
  CodeBuilder b;
  b.insn({0xB8, 2, 0, 0, 0});  // first: mov eax, 2
  b.insn({0xC3});              //        ret (to the pushed resume PC: the second)
  uint32_t second = b.here();
  b.insn({0x83, 0xC0, 40});    // second: add eax, 40
  b.insn({0xC3});              //         ret (to the original caller)
  ProbeCode c = b.take();
  c.insns = {0, second};
  return c;
}

}  // namespace

const PortInfo kAmd64Port = {
    .name = "amd64",
    .elf_machine = 62,  // EM_X86_64
    .uname_machine = "x86_64",
    .qemu_binary = "qemu-x86_64",
    .qemu_cpu = "Haswell-v4",
    .capabilities = kCapAsyncPreemption,
    .insn_align = 1,
    .insn_max_len = 15,
    .breakpoint = {0xCC},
    .pc_after_trap = 1,
    .sp_reg = "RSP",
    .g_reg = "R14",
    .link_reg = "",
    .regtmp_reg = "",
    .counting = Counting,
    .pushcall_pair = PushCallPair,
};

}  // namespace safepoint
