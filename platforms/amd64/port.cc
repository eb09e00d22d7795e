// The amd64 port's data and probe encoder. Host-neutral: built for every target.
#include "platforms/amd64/port.h"

#include "platforms/common/code_builder.h"
#include "platforms/amd64/facts.h"

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

// asyncPreempt's frame, from the SP it leaves (offsets upward): the general
// registers, RFLAGS, RBP, then the resume PC pushCall pushed. 128 bytes are
// allocated with LEAQ (which leaves the flags alone) before anything is
// saved. Vector registers go to the P's scratch area: X0-X15, or Y0-Y15
// under the simd setting.
std::vector<SavedReg> Amd64SavedRegs() {
  static const char* const gprs[] = {"rax", "rcx", "rdx", "rbx", "rsi", "rdi", "r8",
                                     "r9",  "r10", "r11", "r12", "r13", "r14", "r15"};
  static const char* const xmm[] = {"xmm0", "xmm1", "xmm2",  "xmm3",  "xmm4",  "xmm5",  "xmm6",  "xmm7",
                                    "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15"};
  static const char* const ymm[] = {"ymm0", "ymm1", "ymm2",  "ymm3",  "ymm4",  "ymm5",  "ymm6",  "ymm7",
                                    "ymm8", "ymm9", "ymm10", "ymm11", "ymm12", "ymm13", "ymm14", "ymm15"};
  std::vector<SavedReg> v;
  uint32_t off = 0;
  for (const char* r : gprs) v.push_back({r, SavedReg::kGeneral, off, 8}), off += 8;
  // setflags sets CF PF AF ZF SF OF (never DF, TF or the system bits).
  v.push_back({"rflags", SavedReg::kFlags, 112, 8, 0, 0x8D5});
  v.push_back({"rbp", SavedReg::kGeneral, 120, 8});
  for (int i = 0; i < 16; i++) v.push_back({xmm[i], SavedReg::kVector, 16u * i, 16});
  for (int i = 0; i < 16; i++) v.push_back({ymm[i], SavedReg::kVector, 32u * i, 32, 1});
  // Under simd on a CPU with AVX-512 (F and BW: KMOVQ moves the mask
  // registers at their full 64 bits): Z0-Z15 (64 bytes) and the mask
  // registers K0-K7, 1088 bytes: the 2.5 KiB the chapter says would not fit
  // a nosplit frame, which is why it lives off the stack.
  static const char* const zmm[] = {"zmm0", "zmm1", "zmm2",  "zmm3",  "zmm4",  "zmm5",  "zmm6",  "zmm7",
                                    "zmm8", "zmm9", "zmm10", "zmm11", "zmm12", "zmm13", "zmm14", "zmm15"};
  static const char* const kregs[] = {"k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7"};
  for (int i = 0; i < 16; i++) v.push_back({zmm[i], SavedReg::kVector, 64u * i, 64, 2});
  for (int i = 0; i < 8; i++) v.push_back({kregs[i], SavedReg::kVector, 1024u + 8 * i, 8, 2});
  return v;
}

// Go's amd64 stack check: CMPQ SP, 16(R14); JLS, with a LEAQ
// -(frame-StackSmall)(SP) first for frames above StackSmall (a 32-bit
// displacement: always one instruction). The frame is the locals.
int CheckInsns(int locals, bool) { return locals <= 128 ? 2 : 3; }

// The calls Go's amd64 code makes, by the bytes that end at the return
// address: CALL rel32 (E8), and CALL r/m64 (FF /2) through a register, a
// register's memory, or with an 8- or 32-bit displacement (a REX prefix
// naming r8-r15 included).
uint32_t GoCallBefore(const uint8_t* end, size_t before) {
  auto at = [&](size_t back) -> int { return back <= before ? end[-static_cast<ptrdiff_t>(back)] : -1; };
  if (at(5) == 0xE8) return 5;
  auto ff2 = [&](size_t len, int mod, size_t extra) -> uint32_t {
    // FF, then ModRM with reg 2 and this mod, then `extra` bytes.
    size_t modrm_back = extra + 1;
    int m = at(modrm_back);
    if (m < 0 || at(modrm_back + 1) != 0xFF || (m >> 6) != mod || ((m >> 3) & 7) != 2) return 0;
    int rm = m & 7;
    if (mod == 3) return static_cast<uint32_t>(len);
    if (rm == 4) return 0;                // a SIB byte: only [rsp]-based forms, handled below
    if (mod == 0 && rm == 5) return 0;    // RIP-relative: Go does not call through it
    return static_cast<uint32_t>(len);
  };
  for (uint32_t n : {ff2(2, 3, 0), ff2(2, 0, 0), ff2(3, 1, 1), ff2(6, 2, 4)}) {
    if (n == 0) continue;
    int rex = at(n + 1);
    return (rex & 0xF0) == 0x40 ? n + 1 : n;
  }
  // FF 14 24: CALL (SP); FF 54 24 d8: CALL d8(SP).
  if (at(3) == 0xFF && at(2) == 0x14 && at(1) == 0x24) return 3;
  if (at(4) == 0xFF && at(3) == 0x54 && at(2) == 0x24) return 4;
  return 0;
}

// RAX..R15 (GDB 0-15) and the arithmetic flags and DF of EFLAGS (17):
// asyncPreempt pushes and restores all of them.
std::vector<PortInfo::GoFacts::Preserved> GoPreserved() {
  std::vector<PortInfo::GoFacts::Preserved> v;
  for (int r = 0; r <= 15; r++) v.push_back({r, ~uint64_t{0}});
  v.push_back({17, 0xCD5});
  return v;
}

// X0-X15, all 16 bytes, as runtime.asyncPreempt.abi0 of the goprogs
// binaries saves and restores them (`go tool objdump`, GNU objdump):
//   Go 1.19, 1.24: MOVUPS X0..X15 to 0x70..0x160(SP) of its frame (SUBQ
//     $0x170, SP), MOVUPS back after the CALL of asyncPreempt2.
//   Go 1.26: MOVUPS X0..X15 to p.xRegs.scratch (LEAQ 0x35e8(p)), back from
//     the block p.xRegs.cache points to (MOVQ 0x3e28(p)) after the CALL. Its
//     AVX (VMOVDQU) and AVX-512 paths are assembled only under
//     GOEXPERIMENT=simd: in these binaries nothing branches to them (the
//     SSE path JMPs over them both ways), so the upper halves of Y/Z are not
//     kept by any version (legacy-SSE MOVUPS leaves them as they were).
// No version saves MXCSR (no STMXCSR/LDMXCSR) or x87 state.
std::vector<PortInfo::GoFacts::PreservedVec> GoPreservedVec() {
  static const char* const kNames[16] = {"xmm0", "xmm1", "xmm2",  "xmm3",  "xmm4",  "xmm5",  "xmm6",  "xmm7",
                                         "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15"};
  std::vector<PortInfo::GoFacts::PreservedVec> v;
  for (const char* n : kNames) v.push_back({n, 16});
  return v;
}

}  // namespace

const PortInfo kAmd64Port = {
    .name = facts::kName,
    .elf_machine = facts::kElfMachine,
    .uname_machine = facts::kUnameMachine,
    .qemu_binary = facts::kQemu,
    .qemu_cpu = facts::kQemuCpu,
    .capabilities = kCapAsyncPreemption,
    .insn_align = 1,
    .insn_max_len = 15,
    .breakpoint = {0xCC},
    .pc_after_trap = 1,
    .sp_reg = "RSP",
    .g_reg = "R14",
    .link_reg = "",
    .regtmp_reg = "",
    .saved_regs = Amd64SavedRegs(),
    .ir_regs = {"rax", "rbx", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r12", "r13", "r15"},
    .async_frame = 136,
    .tiers = {{"base", 256, false, ""}, {"simd", 512, true, "avx"}, {"simd-avx512", 1088, true, "avx512bw"}},
    .pushcall_bytes = 8,
    .mcall_frame = 8,
    .sp_align = 8,
    .counting = Counting,
    .pushcall_pair = PushCallPair,
    // Go's stack check: CMPQ SP, 16(R14); JLS (a LEAQ first for large frames). No REGTMP.
    .model = {.has_regtmp = false, .check_insns = CheckInsns, .addi_imm_bits = 32,
              .regtmp_restartable = false, .regtmp_ops = 0, .max_sequence_bytes = 0,
              // rel32, counted from the end of a 6-byte Jcc or a 5-byte JMP
              .branch_reach = {(int64_t{1} << 31) - 8, (int64_t{1} << 31) - 8}},
    .objdump = {facts::kObjdump, facts::kObjdumpMachine, facts::kObjdumpFlags, facts::kObjdumpComment},
    .go = {.goarch = "amd64", .gdb_pc = 16, .gdb_sp = 7, .gdb_lr = -1, .gdb_g = 14, .goexit_return = 1, .call_before = GoCallBefore,
           .preserved = GoPreserved(), .preserved_vec = GoPreservedVec()},
};
SAFEPOINT_REGISTER_PORT(kAmd64Port);

}  // namespace safepoint
