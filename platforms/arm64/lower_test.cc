// The arm64 Lowerer, checked instruction by instruction against objdump on
// the host: the shared test program (a non-leaf with the stack check, a
// small-frame leaf without one, a large frame with slots, globals, a branch
// and a service call, a nosplit function), then constants, immediates,
// frame sizes at the encoding limits, the other stubs, branch ranges, and
// the unsafe and restartable sequences REGTMP and the atomics need.
#include "platforms/arm64/lower.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <sstream>
#include <utility>

#include "platforms/common/emit_test_util.h"

namespace safepoint {
namespace {

// objdump's aarch64 text, through the shared helper (which keeps '#':
// on arm64 it starts immediates, and comments are "//").
std::vector<DisasmLine> Objdump(const std::vector<uint8_t>& code) {
  std::vector<DisasmLine> out;
  std::string err;
  EXPECT_TRUE(Disassemble("arm64", code, &out, &err)) << err;
  return out;
}

using Restarts = std::vector<std::pair<uint32_t, uint32_t>>;

// The restartable sequences of `fn`, with the alternating marks checked.
Restarts RestartsOf(const Emitted& e, const std::string& fn) {
  Restarts out;
  const FuncInfo* f = e.table.Find(fn);
  if (!f) return out;
  int want = -3;
  for (const FuncInfo::Restart& r : f->restarts) {
    EXPECT_EQ(r.mark, want) << fn << ": restart at +" << r.lo;
    want = want == -3 ? -4 : -3;
    out.push_back({r.lo, r.hi});
  }
  return out;
}

Restarts UnsafeOf(const Emitted& e, const std::string& fn) {
  Restarts out;
  if (const FuncInfo* f = e.table.Find(fn))
    for (const CodeRange& r : f->unsafe) out.push_back({r.lo, r.hi});
  return out;
}

void ExpectA64(const Emitted& e, const std::string& fn, const std::vector<std::string>& want) {
  const FuncInfo* f = e.table.Find(fn);
  ASSERT_NE(f, nullptr) << fn;
  std::vector<DisasmLine> lines = Objdump(e.code);
  ASSERT_FALSE(lines.empty()) << "aarch64-linux-gnu-objdump gave nothing";
  std::vector<std::string> got;
  for (const DisasmLine& l : lines) {
    if (l.offset < f->entry || l.offset >= f->end) continue;
    got.push_back(l.text);
    EXPECT_TRUE(e.table.IsBoundary(l.offset)) << fn << ": objdump sees an instruction at +" << l.offset
                                              << " that the emitter did not record";
  }
  EXPECT_EQ(got, want) << "in " << fn;
}

TEST(Arm64Lower, MatchesObjdump) {
  Emitted e = EmitForTest(*NewArm64Lowerer(), kLowerTestProgram);
  ExpectA64(e, "main.nonleaf", {
      "ldr x16, [x28, #16]",            // MOVD 16(g), R16
      "cmp sp, x16",                    // frame 32 <= StackSmall
      "b.ls 0x20",                      // BLS tail
      "str x30, [sp, #-32]!",           // 8 (LR) + 16 locals, 16-aligned; opened with LR saved
      "bl 0x38",                        // main.leaf
      "add x0, x0, #0x1",
      "ldr x30, [sp], #32",
      "ret",
      "str x0, [x28, #80]",             // tail: spill the argument (G_ARGSPILL)
      "mov x3, x30",                    // f's caller, for morestack
      "mov x17, #0x4000",               // morestack, through IP1 (saved by asyncPreempt)
      "blr x17",
      "ldr x0, [x28, #80]",
      "b 0x0",                          // and check again
  });
  ExpectA64(e, "main.leaf", {
      "mov x27, #0x3",                  // no stack check, no frame: small-frame leaf
      "mul x0, x0, x27",
      "add x0, x0, #0x1",
      "ret",
  });
  ExpectA64(e, "main.big", {
      "ldr x16, [x28, #16]",
      "sub x17, sp, #0x190",            // frame 528 > StackSmall: SP-(528-128)
      "cmp x17, x16",
      "b.ls 0x8c",
      "sub sp, sp, #0x210",             // 8 + 512, 16-aligned: too big for one STR
      "str x30, [sp]",
      "str x1, [sp, #512]",             // slot 504 is 8+504 above SP
      "ldr x11, [sp, #8]",              // slot 0
      "mov x27, #0x1018",               // &g[3]
      "ldr x2, [x27]",
      "mov x27, #0x1020",               // &g[4]
      "str x11, [x27]",
      "cbnz x3, 0x80",
      "bl 0xb8",                        // runtime.Gosched stub
      "ldr x30, [sp]",
      "add sp, sp, #0x210",
      "ret",
      "str x0, [x28, #80]",
      "mov x3, x30",
      "mov x17, #0x4000",
      "blr x17",
      "ldr x0, [x28, #80]",
      "b 0x48",
  });
  ExpectA64(e, "main.nosplit", {
      "str x30, [sp, #-16]!",           // nosplit: no check even with a call; LR still saved
      "add x0, x0, #0x2",
      "bl 0x38",
      "ldr x30, [sp], #16",
      "ret",
  });
  ExpectA64(e, "runtime.Gosched", {
      "str x0, [x28, #72]",             // operand into g.param
      "mov x0, #0x10000",               // the C++ service function
      "mov x27, #0x2000",               // mcall: gosched parks
      "br x27",                         // LR still the call site's
  });
  ExpectTable(e, "main.nonleaf", /*check=*/true, /*nosplit=*/false);
  ExpectTable(e, "main.leaf", false, false);
  ExpectTable(e, "main.big", true, false);
  ExpectTable(e, "main.nosplit", false, true);
  EXPECT_EQ(e.table.Find("main.nonleaf")->frame, 32);
  EXPECT_EQ(e.table.Find("main.big")->frame, 528);
  EXPECT_EQ(e.table.Find("main.nosplit")->frame, 16);
  EXPECT_EQ(e.table.Find("main.leaf")->frame, 0);
  // Each constant load through REGTMP and the instruction consuming it is
  // restartable; nothing here is unsafe beyond the prologue and the tail.
  EXPECT_EQ(RestartsOf(e, "main.leaf"), (Restarts{{0x38, 0x40}}));
  EXPECT_EQ(RestartsOf(e, "main.big"), (Restarts{{0x68, 0x70}, {0x70, 0x78}}));
  EXPECT_EQ(RestartsOf(e, "main.nonleaf"), Restarts{});
  for (const char* fn : {"main.nonleaf", "main.leaf", "main.big", "main.nosplit"})
    EXPECT_EQ(UnsafeOf(e, fn), Restarts{}) << fn;
}

TEST(Arm64Lower, ConstantsAndImmediates) {
  Emitted e = EmitForTest(*NewArm64Lowerer(), R"(
func main.consts
  movi r0, 0
  movi r1, 0x123456789abcdef0
  movi r2, -1
  movi r3, -65537
  movi r4, 0xffff12340000ffff
  movi r5, 0x0000800000000000
  addi r0, -1
  addi r0, 2047
  addi r0, -2048
  addi r0, 2048
  addi r0, -2049
  addi r0, 4096
  addi r0, -8192
  addi r0, 4097
  addi r0, -2147483648
  muli r6, -7
  add r7, r8
  mov r9, r10
  ret
end
)");
  ExpectA64(e, "main.consts", {
      "mov x0, #0x0",
      "mov x1, #0xdef0",                // MOVZ, then MOVK per non-zero halfword
      "movk x1, #0x9abc, lsl #16",
      "movk x1, #0x5678, lsl #32",
      "movk x1, #0x1234, lsl #48",
      "mov x2, #0xffffffffffffffff",    // MOVN #0
      "mov x3, #0xfffffffffffeffff",    // MOVN #0x1, lsl #16
      "mov x4, #0xffffffff0000ffff",    // mostly 0xffff: MOVN for one halfword, MOVK for the rest
      "movk x4, #0x1234, lsl #32",
      "mov x5, #0x800000000000",        // MOVZ #0x8000, lsl #32
      "sub x0, x0, #0x1",
      "add x0, x0, #0x7ff",             // |imm| < 2048: one ADD/SUB (immediate)
      "sub x0, x0, #0x800",
      "mov x27, #0x800",                // anything larger through REGTMP, as the oracle models it
      "add x0, x0, x27",
      "mov x27, #0xfffffffffffff7ff",
      "add x0, x0, x27",
      "mov x27, #0x1000",               // no two-instruction LSL #12 form either
      "add x0, x0, x27",
      "mov x27, #0xffffffffffffe000",
      "add x0, x0, x27",
      "mov x27, #0x1001",
      "add x0, x0, x27",
      "mov x27, #0xffffffffffff0000",   // INT32_MIN, sign-extended
      "movk x27, #0x8000, lsl #16",
      "add x0, x0, x27",
      "mov x27, #0xfffffffffffffff9",   // -7, sign-extended
      "mul x6, x6, x27",
      "add x7, x7, x8",
      "mov x9, x10",
      "ret",
  });
  EXPECT_EQ(RestartsOf(e, "main.consts"), (Restarts{{0x34, 0x3c},
                                                    {0x3c, 0x44},
                                                    {0x44, 0x4c},
                                                    {0x4c, 0x54},
                                                    {0x54, 0x5c},
                                                    {0x5c, 0x68},
                                                    {0x68, 0x70}}));
}

TEST(Arm64Lower, BranchesServicesAndRegisters) {
  Emitted e = EmitForTest(*NewArm64Lowerer(), R"(
func main.main frame=8
top:
  jz r4, top
  go main.child
  sleep 70000
  handshake 3
  jmp top
end
func main.child
  fillregs 100
  sumregs r1
  ret
end
)");
  // Frame: 8 (LR) + 8, aligned to 16.
  ExpectA64(e, "main.main", {
      "ldr x16, [x28, #16]",
      "cmp sp, x16",
      "b.ls 0x34",
      "str x30, [sp, #-16]!",
      "cbz x4, 0x10",                   // top: after the frame setup
      "adr x0, 0x4c",                   // go: the child's entry in r0
      "bl 0xd8",                        // runtime.newproc
      "mov x0, #0x1170",                // 70000 = 0x11170
      "movk x0, #0x1, lsl #16",
      "bl 0xc4",                        // time.Sleep
      "mov x0, #0x3",
      "bl 0xec",                        // runtime.handshake
      "b 0x10",
      "str x0, [x28, #80]",
      "mov x3, x30",
      "mov x17, #0x4000",
      "blr x17",
      "ldr x0, [x28, #80]",
      "b 0x0",
  });
  std::vector<std::string> child;
  for (int r = 0; r < 12; r++) {
    char buf[64];
    snprintf(buf, sizeof buf, "mov x%d, #0x%x", r, 100 + r);
    child.push_back(buf);
  }
  child.push_back("mov x16, x0");  // X16 accumulates: asyncPreempt saves it
  for (int r = 1; r < 12; r++) child.push_back("add x16, x16, x" + std::to_string(r));
  child.push_back("mov x1, x16");
  child.push_back("ret");
  ExpectA64(e, "main.child", child);
  EXPECT_EQ(UnsafeOf(e, "main.child"), Restarts{}) << "sumregs is an ordinary safe point";
  EXPECT_EQ(RestartsOf(e, "main.child"), Restarts{});
  ExpectA64(e, "runtime.handshake", {
      "str x0, [x28, #72]",
      "mov x0, #0x300",                 // service 3: 0x10300
      "movk x0, #0x1, lsl #16",
      "mov x27, #0x3000",               // systemstack: handshake returns
      "br x27",
  });
  // The goexit service is the last; its C++ function is at 0x10000 + 0x100*index.
  char goexit_fn[64];
  snprintf(goexit_fn, sizeof goexit_fn, "mov x0, #0x%x", 0x100 * static_cast<int>(ir::Service::kGoexit) & 0xffff);
  ExpectA64(e, "runtime.goexit", {
      goexit_fn,
      "movk x0, #0x1, lsl #16",
      "mov x27, #0x2000",               // mcall
      "blr x27",
      "udf #0",                         // mcall never returns
  });
  EXPECT_EQ(e.table.Find("runtime.goexit")->entry, e.goexit);
  const FuncInfo* m = e.table.Find("main.main");
  // The call sites the driver recorded are the BLs, not the instructions
  // that load their operands.
  EXPECT_EQ(m->call_sites, (std::vector<uint32_t>{0x18, 0x24, 0x2c}));
}

TEST(Arm64Lower, FramesAtTheEncodingLimits) {
  Emitted e = EmitForTest(*NewArm64Lowerer(), R"(
func main.leafframe frame=24
  stslot 16, r0
  ldslot r1, 0
  ret
end
func main.f232 frame=232
  call main.leafframe
  stslot 224, r0
  ret
end
func main.f240 frame=240
  call main.leafframe
  ret
end
func main.f4080 frame=4080
  call main.leafframe
  stslot 4072, r0
  ret
end
)");
  ExpectA64(e, "main.leafframe", {
      "sub sp, sp, #0x20",              // a leaf saves no LR: slots start at SP
      "str x0, [sp, #16]",
      "ldr x1, [sp]",
      "add sp, sp, #0x20",
      "ret",
  });
  ExpectA64(e, "main.f232", {
      "ldr x16, [x28, #16]",
      "sub x17, sp, #0x70",             // 240 - 128
      "cmp x17, x16",
      "b.ls 0x38",
      "str x30, [sp, #-240]!",          // 8 + 232 = 240: the largest one-instruction frame
      "bl 0x0",
      "str x0, [sp, #232]",
      "ldr x30, [sp], #240",
      "ret",
      "str x0, [x28, #80]",
      "mov x3, x30",
      "mov x17, #0x4000",
      "blr x17",
      "ldr x0, [x28, #80]",
      "b 0x14",
  });
  ExpectA64(e, "main.f240", {
      "ldr x16, [x28, #16]",
      "sub x17, sp, #0x80",             // 256 - 128
      "cmp x17, x16",
      "b.ls 0x78",
      "sub sp, sp, #0x100",             // 256: beyond LDR's post-index reach
      "str x30, [sp]",
      "bl 0x0",
      "ldr x30, [sp]",
      "add sp, sp, #0x100",
      "ret",
      "str x0, [x28, #80]",
      "mov x3, x30",
      "mov x17, #0x4000",
      "blr x17",
      "ldr x0, [x28, #80]",
      "b 0x50",
  });
  ExpectA64(e, "main.f4080", {
      "ldr x16, [x28, #16]",
      "sub x17, sp, #0xf80",            // 4096 - 128
      "cmp x17, x16",
      "b.ls 0xbc",
      "sub sp, sp, #0x1, lsl #12",      // 4096, the largest frame
      "str x30, [sp]",
      "bl 0x0",
      "str x0, [sp, #4080]",
      "ldr x30, [sp]",
      "add sp, sp, #0x1, lsl #12",
      "ret",
      "str x0, [x28, #80]",
      "mov x3, x30",
      "mov x17, #0x4000",
      "blr x17",
      "ldr x0, [x28, #80]",
      "b 0x90",
  });
  auto low = NewArm64Lowerer();
  EXPECT_EQ(low->FrameSize(0, true), 0);
  EXPECT_EQ(low->FrameSize(8, true), 16);
  EXPECT_EQ(low->FrameSize(0, false), 16);
  EXPECT_EQ(low->FrameSize(8, false), 16);
  EXPECT_EQ(low->FrameSize(16, false), 32);
  EXPECT_EQ(low->FrameSize(ir::kMaxFrame, false), 4096);
  EXPECT_EQ(low->NumAllocatable(), ir::kPortableRegs);
}

// objdump's text for MovImm's sequence loading `v` into x`reg`: MOVZ (or
// MOVN) shown as "mov" with the value it produces, then a MOVK per halfword.
std::vector<std::string> MovLines(int reg, uint64_t v) {
  int zeros = 0, ones = 0;
  for (int hw = 0; hw < 4; hw++) {
    uint32_t h = (v >> (16 * hw)) & 0xffff;
    zeros += h == 0;
    ones += h == 0xffff;
  }
  bool inverted = ones > zeros;
  uint64_t background = inverted ? 0xffff : 0;
  std::vector<std::string> out;
  char buf[96];
  for (int hw = 0; hw < 4; hw++) {
    uint64_t h = (v >> (16 * hw)) & 0xffff;
    if (h == background) continue;
    if (out.empty()) {
      uint64_t first = inverted ? ~((~h & 0xffff) << (16 * hw)) : h << (16 * hw);
      snprintf(buf, sizeof buf, "mov x%d, #0x%llx", reg, static_cast<unsigned long long>(first));
    } else if (hw == 0) {
      snprintf(buf, sizeof buf, "movk x%d, #0x%llx", reg, static_cast<unsigned long long>(h));
    } else {
      snprintf(buf, sizeof buf, "movk x%d, #0x%llx, lsl #%d", reg, static_cast<unsigned long long>(h), 16 * hw);
    }
    out.push_back(buf);
  }
  if (out.empty()) out.push_back("mov x" + std::to_string(reg) + (inverted ? ", #0xffffffffffffffff" : ", #0x0"));
  return out;
}

// The operations that exist for asynchronous preemption's tests: atomics and
// write barriers are unsafe as a whole, an explicit REGTMP use is unsafe,
// dumpregs is one restartable sequence per register, flagsdump one per flag
// register (NZCV, FPSR, FPCR); vfill, vdump and setflags work through X16
// (saved by asyncPreempt) and are ordinary safe points. vfill sets all 128
// bits of each V register (Qv is words 2v, 2v+1 of the layout).
TEST(Arm64Lower, AtomicsBarriersAndDumps) {
  ir::Program p;
  std::string err;
  ASSERT_TRUE(ir::ParseProgram(R"(
func main.ops
  atomic_add g[5], r1
  wb_store g[6], r2
  usetmp r3
  dumpregs 20
  inline main.inl
  addi r0, 1
  endinline
  vfill 1
  vdump 0
  setflags 0xAD0A08C5
  flagsdump g[7]
  ret
end
)", &p, &err)) << err;
  EmitEnv env = TestEnv();
  env.wbflag = 0x5000;
  env.vdump = 0x6000;
  Emitted e;
  ASSERT_TRUE(Emit(*NewArm64Lowerer(), p, env, &e, &err)) << err;
  std::vector<std::string> want = {
      "mov x13, #0x1028",               // &g[5], in a register asyncPreempt saves
      "ldxr x16, [x13]",                // ARMv8.0 has no LDADD: exclusive pair
      "add x17, x16, x1",
      "stxr w12, x17, [x13]",
      "cbnz w12, 0x4",                  // lost the reservation: again (r1 keeps the addend)
      "mov x16, #0x5000",               // the write-barrier flag
      "ldr x16, [x16]",
      "cbz x16, 0x28",
      "mov x16, #0x11f8",               // &g[63]: the barrier's record
      "str x2, [x16]",
      "mov x16, #0x1030",               // &g[6]
      "str x2, [x16]",
      "mov x27, #0x1",                  // usetmp: r3 += 1 through REGTMP
      "add x3, x3, x27",
  };
  for (int r = 0; r < 12; r++) {
    char buf[64];
    snprintf(buf, sizeof buf, "mov x27, #0x%x", 0x1000 + 8 * (20 + r));
    want.push_back(buf);
    want.push_back("str x" + std::to_string(r) + ", [x27]");
  }
  want.push_back("add x0, x0, #0x1");
  // vfill 1: V0-V31, each half through X16.
  for (int v = 0; v < 32; v++) {
    for (const std::string& l : MovLines(16, VectorPattern(1, 2 * v))) want.push_back(l);
    want.push_back("fmov d" + std::to_string(v) + ", x16");
    for (const std::string& l : MovLines(16, VectorPattern(1, 2 * v + 1))) want.push_back(l);
    want.push_back("fmov v" + std::to_string(v) + ".d[1], x16");
  }
  // vdump 0: the area's address in X16, V0-V31 in pairs.
  want.push_back("mov x16, #0x6000");
  want.push_back("stp q0, q1, [x16]");
  for (int v = 2; v < 32; v += 2)
    want.push_back("stp q" + std::to_string(v) + ", q" + std::to_string(v + 1) + ", [x16, #" + std::to_string(16 * v) +
                   "]");
  // setflags 0xAD0A08C5: NZCV N and C; FPSR IOC OFC IDC QC; FPCR FZ AHP.
  const std::pair<const char*, uint64_t> flags[] = {{"nzcv", 0xA0000000}, {"fpsr", 0x08000085}, {"fpcr", 0x05000000}};
  for (const auto& [reg, value] : flags) {
    for (const std::string& l : MovLines(16, value)) want.push_back(l);
    want.push_back(std::string("msr ") + reg + ", x16");
  }
  Restarts dumps;
  for (uint32_t r = 0; r < 12; r++) dumps.push_back({0x38 + 8 * r, 0x40 + 8 * r});
  for (int k = 0; k < 3; k++) {  // flagsdump g[7]: g[7+k] = the k-th flag register
    uint32_t at = 4 * static_cast<uint32_t>(want.size());
    dumps.push_back({at, at + 12});  // one sequence each, MRS included
    want.push_back(std::string("mrs x16, ") + flags[k].first);
    char addr[32];
    snprintf(addr, sizeof addr, "mov x27, #0x%x", 0x1038 + 8 * k);
    want.push_back(addr);
    want.push_back("str x16, [x27]");
  }
  want.push_back("ret");
  ExpectA64(e, "main.ops", want);
  EXPECT_EQ(UnsafeOf(e, "main.ops"), (Restarts{{0x0, 0x14}, {0x14, 0x30}, {0x30, 0x38}}));
  EXPECT_EQ(RestartsOf(e, "main.ops"), dumps);
  const FuncInfo* f = e.table.Find("main.ops");
  ASSERT_EQ(f->inlines.size(), 1u);
  EXPECT_EQ(f->inlines[0].lo, 0x98u);
  EXPECT_EQ(f->inlines[0].hi, 0x9cu);
}

// A restartatentry function is restarted at its entry as a whole: its REGTMP
// expansions carry no restart sequences of their own (the runtime looks at
// those first and would resume there instead).
TEST(Arm64Lower, RestartAtEntryHasNoInnerSequences) {
  Emitted e = EmitForTest(*NewArm64Lowerer(), R"(
func main.again restartatentry
  movi r1, 9
  st g[29], r1
  flagsdump g[7]
  ret
end
func main.plain
  st g[29], r1
  ret
end
)");
  ExpectA64(e, "main.again", {
      "mov x1, #0x9",
      "mov x27, #0x10e8",               // &g[29]
      "str x1, [x27]",
      "mrs x16, nzcv",
      "mov x27, #0x1038",               // &g[7]
      "str x16, [x27]",
      "mrs x16, fpsr",
      "mov x27, #0x1040",               // &g[8]
      "str x16, [x27]",
      "mrs x16, fpcr",
      "mov x27, #0x1048",               // &g[9]
      "str x16, [x27]",
      "ret",
  });
  EXPECT_EQ(RestartsOf(e, "main.again"), Restarts{});
  EXPECT_EQ(UnsafeOf(e, "main.again"), Restarts{});
  const FuncInfo* f = e.table.Find("main.plain");
  EXPECT_EQ(RestartsOf(e, "main.plain"), (Restarts{{f->entry, f->entry + 8}}));
}

// Branch ranges: CBZ/B.cond/ADR reach +-1 MiB, B/BL +-128 MiB. A target
// beyond the reach is an error, not a silently truncated offset.
TEST(Arm64Lower, BranchRanges) {
  auto low = NewArm64Lowerer();
  ir::Function fn;
  fn.name = "main.f";
  FuncCtx ctx{&fn, 0, false, -1, -1, true};
  EmitEnv env;
  auto emit = [&](ir::Op op, uint32_t distance, std::string* err) {
    Asm a;
    int label = a.NewLabel();
    ir::Insn insn;
    insn.op = op;
    insn.rs = 0;
    low->Lower(a, ctx, insn, label, -1, env);
    while (a.pos() < distance) a.U32(0);
    a.Bind(label);
    bool ok = true;
    for (const Asm::Fixup& f : a.fixups()) ok = ok && low->Resolve(a, f, static_cast<uint32_t>(a.LabelPos(label)), err);
    return ok;
  };
  std::string err;
  EXPECT_TRUE(emit(ir::Op::kJz, (1u << 20) - 4, &err)) << err;
  EXPECT_FALSE(emit(ir::Op::kJz, 1u << 20, &err));
  EXPECT_NE(err.find("out of range"), std::string::npos) << err;
  EXPECT_TRUE(emit(ir::Op::kJmp, 1u << 20, &err)) << err;
}

// The heap operations, and the frame facts the collector walks stacks by
// (pcsp, slot base, stack map).
TEST(Arm64Lower, HeapOperationsAndFrameFacts) {
  Emitted e = EmitForTest(*NewArm64Lowerer(), kHeapOpsProgram);
  ExpectDisasm("arm64", e, "main.heap", {
      "ldr x16, [x28, #16]",
      "cmp sp, x16",
      "b.ls 0x3c",
      "str x30, [sp, #-32]!",
      "mov x0, #0x18",
      "bl 0x190",
      "ldr x1, [x0, #8]",
      "str x1, [x0, #16]",
      "ldur q0, [x0]",  // vload: 16 bytes through V0
      "stur q0, [x1, #240]",
      "str x0, [sp, #8]",  // starg 0: slot 0 is above the saved LR
      "mov x1, #0x0",
      "add x2, sp, #0x10",  // addrslot r2, 8
      "ldr x30, [sp], #32",
      "ret",
      "str x0, [x28, #80]",
      "mov x3, x30",
      "mov x17, #0x4000",
      "blr x17",
      "ldr x0, [x28, #80]",
      "b 0x0",
  });
  ExpectFrameFacts(e, "main.heap", true, 8, {8});
  Emitted l = EmitForTest(*NewArm64Lowerer(), kLowerTestProgram);
  ExpectFrameFacts(l, "main.nonleaf", true, 8, {});
}

}  // namespace
}  // namespace safepoint
