// The riscv64 Lowerer, checked instruction by instruction against objdump on
// the host (`-M no-aliases`: every instruction under its own name): the
// shared program (a non-leaf with the stack check, a small-frame leaf
// without one, a large frame, frame slots, globals, a branch and a service
// call), then the encodings the shared program does not reach (frames and
// slots beyond 12 bits, every immediate form, go F, the goexit stub), the
// unsafe sequences the function table records, the FP
// ("vector") and fflags operations, the constant chains evaluated
// instruction by instruction, and the branch ranges Resolve enforces.
#include "platforms/riscv64/lower.h"

#include <gtest/gtest.h>

#include <random>

#include "platforms/common/emit_test_util.h"

namespace safepoint {
namespace {

// The five instructions of an address chain into `r` (lui, addiw, slli,
// addi, slli) for `v`, and the low 12 bits its consumer adds, as objdump
// prints them: lui's operand in hex (bits 31:12), the others in decimal.
struct Chain {
  std::vector<std::string> lines;
  int64_t lo;
};
int64_t Lo12(int64_t v) { return static_cast<int64_t>(static_cast<uint64_t>(v) << 52) >> 52; }
Chain AddrChain(const std::string& r, uint64_t addr) {
  int64_t v = static_cast<int64_t>(addr);
  int64_t c = Lo12(v), v1 = (v - c) >> 12, b = Lo12(v1), v2 = (v1 - b) >> 12;
  v2 = static_cast<int32_t>(static_cast<uint32_t>(v2));
  int64_t a2 = Lo12(v2);
  char lui[64];
  snprintf(lui, sizeof lui, "lui %s,0x%x", r.c_str(), static_cast<uint32_t>(v2 - a2) >> 12);
  return {{lui, "addiw " + r + "," + r + "," + std::to_string(a2), "slli " + r + "," + r + ",0xc",
           "addi " + r + "," + r + "," + std::to_string(b), "slli " + r + "," + r + ",0xc"},
          c};
}
// The same with the consumer appended: `use` gets the low part as "%d".
std::vector<std::string> AddrUse(const std::string& r, uint64_t addr, const std::string& pre, const std::string& post) {
  Chain c = AddrChain(r, addr);
  c.lines.push_back(pre + std::to_string(c.lo) + post);
  return c.lines;
}
void Append(std::vector<std::string>& v, const std::vector<std::string>& w) { v.insert(v.end(), w.begin(), w.end()); }

TEST(Riscv64Lower, MatchesObjdump) {
  Emitted e = EmitForTest(*NewRiscv64Lowerer(), kLowerTestProgram);
  ExpectDisasm("riscv64", e, "main.nonleaf", {
      "ld t1,16(s11)",                  // MOV 16(g), X6
      "bgeu t1,sp,0x24",                // not BLTU X6, SP, done: the tail at 0x24
      "addi sp,sp,-32",                 // 8 (RA) + 16 locals, 16-aligned
      "sd ra,0(sp)",
      "jal ra,0x48",                    // main.leaf
      "addi a0,a0,1",
      "ld ra,0(sp)",
      "addi sp,sp,32",
      "jalr zero,0(ra)",                // ret
      "sd a0,80(s11)",                  // tail: spill the argument to g
      "lui t6,0x0",                     // REGTMP = 0x4000 (morestack): ((0<<12)+4)<<12
      "addiw t6,t6,0",
      "slli t6,t6,0xc",
      "addi t6,t6,4",
      "slli t6,t6,0xc",
      "jalr t0,0(t6)",                  // JAL X5, morestack: RA keeps f's return address
      "ld a0,80(s11)",
      "jal zero,0x0",                   // and check again
  });
  ExpectDisasm("riscv64", e, "main.leaf", {
      "addi t6,zero,3",                 // no stack check, no frame: small leaf
      "mul a0,a0,t6",
      "addi a0,a0,1",
      "jalr zero,0(ra)",
  });
  ExpectDisasm("riscv64", e, "main.big", {
      "ld t1,16(s11)",
      "addi t2,sp,-400",                // frame 528 > StackSmall: SP-(528-128)
      "bgeu t1,t2,0xb8",                // tail at 0xb8
      "addi sp,sp,-528",                // 8 + 512, 16-aligned
      "sd ra,0(sp)",
      "sd s1,512(sp)",                  // slot 504 is 8+504(SP); r1 is s1
      "ld s4,8(sp)",                    // slot 0; r11 is s4
      "lui t6,0x0",                     // &g[3] = 0x1018 = (1<<12) + 24
      "addiw t6,t6,0",
      "slli t6,t6,0xc",
      "addi t6,t6,1",
      "slli t6,t6,0xc",
      "ld a1,24(t6)",                   // r2 is a1
      "lui t6,0x0",                     // &g[4] = 0x1020
      "addiw t6,t6,0",
      "slli t6,t6,0xc",
      "addi t6,t6,1",
      "slli t6,t6,0xc",
      "sd s4,32(t6)",
      "bne a2,zero,0xac",               // out
      "jal ra,0xf8",                    // runtime.Gosched stub
      "ld ra,0(sp)",
      "addi sp,sp,528",
      "jalr zero,0(ra)",
      "sd a0,80(s11)",
      "lui t6,0x0",
      "addiw t6,t6,0",
      "slli t6,t6,0xc",
      "addi t6,t6,4",
      "slli t6,t6,0xc",
      "jalr t0,0(t6)",
      "ld a0,80(s11)",
      "jal zero,0x58",                  // entry
  });
  ExpectDisasm("riscv64", e, "main.nosplit", {
      "addi sp,sp,-16",                 // nosplit: no check even with a call
      "sd ra,0(sp)",
      "addi a0,a0,2",
      "jal ra,0x48",                    // main.leaf
      "ld ra,0(sp)",
      "addi sp,sp,16",
      "jalr zero,0(ra)",
  });
  ExpectDisasm("riscv64", e, "runtime.Gosched", {
      "sd a0,72(s11)",                  // operand into g.param
      "lui a0,0x0",                     // the C++ service function, 0x10000
      "addiw a0,a0,0",
      "slli a0,a0,0xc",
      "addi a0,a0,16",
      "slli a0,a0,0xc",
      "addi a0,a0,0",
      "lui t6,0x0",                     // mcall, 0x2000
      "addiw t6,t6,0",
      "slli t6,t6,0xc",
      "addi t6,t6,2",
      "slli t6,t6,0xc",
      "jalr zero,0(t6)",                // tail jump: RA is the call site's
  });
  ExpectTable(e, "main.nonleaf", /*check=*/true, /*nosplit=*/false);
  ExpectTable(e, "main.leaf", false, false);
  ExpectTable(e, "main.big", true, false);
  ExpectTable(e, "main.nosplit", false, true);
  EXPECT_EQ(e.table.Find("main.nonleaf")->frame, 32);
  EXPECT_EQ(e.table.Find("main.leaf")->frame, 0);
  EXPECT_EQ(e.table.Find("main.big")->frame, 528);
  // The stack check is Go's two instructions (three for large frames).
  EXPECT_EQ(e.table.Find("main.nonleaf")->prologue.hi - e.table.Find("main.nonleaf")->prologue.lo, 8u);
  EXPECT_EQ(e.table.Find("main.big")->prologue.hi - e.table.Find("main.big")->prologue.lo, 12u);
}

constexpr const char* kWideProgram = R"(
func main.huge frame=3000
  stslot 2992, r1
  ldslot r2, 8
  movi r3, -2
  movi r4, 0x123456789abcdef0
  addi r5, 2047
  addi r5, -2048
  addi r6, 2048
  addi r6, -100000
  muli r7, -7
  muli r7, 65536
  add r8, r9
  mov r10, r11
  jz r0, skip
  jmp skip
skip:
  go main.huge
  sleep 1000
  ret
end
func main.leafslots frame=16
  stslot 0, r0
  ldslot r1, 8
  ret
end
func main.leafbig frame=128
  stslot 120, r0
  ret
end
func main.regs
  fillregs 100
  sumregs r1
  ret
end
)";

TEST(Riscv64Lower, WideImmediatesAndFrames) {
  Emitted e = EmitForTest(*NewRiscv64Lowerer(), kWideProgram);
  std::vector<std::string> huge = {
      "ld t1,16(s11)",
      "lui t2,0xfffff",                 // -(3008-128) = -2880 = -4096 + 1216
      "addiw t2,t2,1216",
      "add t2,sp,t2",
      "bgeu t1,t2,0xc0",                // tail at 0xc0
      "lui t1,0xfffff",                 // -3008 = -4096 + 1088: one add moves SP
      "addiw t1,t1,1088",
      "add sp,sp,t1",
      "sd ra,0(sp)",
      "lui t2,0x1",                     // 8+2992 = 3000 = 4096 - 1096: beyond sd's reach,
      "add t2,sp,t2",                   // through the saved scratch t2
      "sd s1,-1096(t2)",
      "ld a1,16(sp)",
      "addi a2,zero,-2",                // movi -2: a 32-bit value, one instruction
      "lui a3,0x12345",                 // movi 0x123456789abcdef0: eight instructions
      "addiw a3,a3,1657",               // 0x12345679 = 0x12345000 + 0x679
      "slli a3,a3,0xc",
      "addi a3,a3,-1620",               // 0x9ac - 0x1000
      "slli a3,a3,0xc",
      "addi a3,a3,-801",                // 0xcdf - 0x1000
      "slli a3,a3,0x8",
      "addi a3,a3,-16",                 // 0xf0 - 0x100
      "addi a4,a4,2047",                // the ends of addi's range
      "addi a4,a4,-2048",
      "lui t6,0x1",                     // 2048 = 4096 - 2048, through REGTMP
      "addiw t6,t6,-2048",
      "add a5,a5,t6",
      "lui t6,0xfffe8",                 // -100000 = -98304 - 1696
      "addiw t6,t6,-1696",
      "add a5,a5,t6",
      "addi t6,zero,-7",
      "mul a6,a6,t6",
      "lui t6,0x10",                    // 65536: no low bits to add
      "mul a6,a6,t6",
      "add a7,a7,s2",                   // r8 += r9
      "addi s3,s4,0",                   // r10 = r11 (mv)
      "beq a0,zero,0x98",               // skip
      "jal zero,0x98",
      "auipc a0,0x0",                   // go main.huge: a0 = 0x98 - 152 = 0x0
      "addi a0,a0,-152",
      "jal ra,0x208",                   // runtime.newproc stub
      "addi a0,zero,1000",              // sleep's operand
      "jal ra,0x1d4",                   // time.Sleep stub
      "ld ra,0(sp)",
      "lui t1,0x1",                     // +3008 = 4096 - 1088
      "addiw t1,t1,-1088",
      "add sp,sp,t1",
      "jalr zero,0(ra)",
  };
  Append(huge, {"sd a0,80(s11)"});
  Append(huge, AddrUse("t6", 0x4000, "jalr t0,", "(t6)"));
  Append(huge, {"ld a0,80(s11)", "jal zero,0x0"});
  ExpectDisasm("riscv64", e, "main.huge", huge);
  ExpectDisasm("riscv64", e, "main.leafslots", {
      "addi sp,sp,-32",                 // a leaf keeps the RA slot but leaves it unused
      "sd a0,8(sp)",
      "ld s1,16(sp)",
      "addi sp,sp,32",
      "jalr zero,0(ra)",
  });
  std::vector<std::string> leafbig = {
      "ld t1,16(s11)",                  // a leaf of StackSmall locals is checked
      "addi t2,sp,-16",                 // frame 144
      "bgeu t1,t2,0x114",
      "addi sp,sp,-144",
      "sd a0,128(sp)",
      "addi sp,sp,144",
      "jalr zero,0(ra)",
      "sd a0,80(s11)",
  };
  Append(leafbig, AddrUse("t6", 0x4000, "jalr t0,", "(t6)"));
  Append(leafbig, {"ld a0,80(s11)", "jal zero,0xf8"});
  ExpectDisasm("riscv64", e, "main.leafbig", leafbig);
  std::vector<std::string> regs;
  const char* names[] = {"a0", "s1", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "s2", "s3", "s4"};
  for (int r = 0; r < 12; r++) regs.push_back(std::string("addi ") + names[r] + ",zero," + std::to_string(100 + r));
  regs.push_back("addi t1,a0,0");  // sumregs accumulates in t1, which asyncPreempt saves
  for (int r = 1; r < 12; r++) regs.push_back(std::string("add t1,t1,") + names[r]);
  regs.insert(regs.end(), {"addi s1,t1,0", "jalr zero,0(ra)"});
  ExpectDisasm("riscv64", e, "main.regs", regs);
  uint64_t goexit_fn = TestEnv().service_fn[static_cast<int>(ir::Service::kGoexit)];
  std::vector<std::string> goexit = AddrUse("a0", goexit_fn, "addi a0,a0,", "");
  Append(goexit, AddrUse("t6", 0x2000, "jalr ra,", "(t6)"));  // mcall
  goexit.push_back("ebreak");                                 // mcall never returns
  ExpectDisasm("riscv64", e, "runtime.goexit", goexit);
  ExpectTable(e, "main.huge", true, false);
  ExpectTable(e, "main.leafslots", false, false);
  ExpectTable(e, "main.leafbig", true, false);
  EXPECT_EQ(e.table.Find("main.huge")->frame, 3008);
  EXPECT_EQ(e.table.Find("main.leafslots")->frame, 32);
  EXPECT_EQ(e.table.Find("main.leafbig")->frame, 144);
}

// The operations asynchronous preemption's rules are about, and the
// regions the table records: as Go's riscv64 assembler has no restartable
// sequences, REGTMP expansions are unsafe, like atomics, write barriers and
// explicit REGTMP uses; nothing is restartable.
TEST(Riscv64Lower, RegtmpExpansionsAreUnsafeSequences) {
  Emitted e = EmitForTest(*NewRiscv64Lowerer(), R"(
func main.async
  ld r1, g[2]
  addi r1, 5
  addi r1, 5000
  atomic_add g[5], r1
  wb_store g[6], r2
  usetmp r3
  dumpregs 20
  sumregs r4
  ret
end
)");
  std::vector<std::string> want = AddrUse("t6", 0x1010, "ld s1,", "(t6)");  // 0x00: &g[2], unsafe
  Append(want, {
      "addi s1,s1,5",                   // 0x18: one instruction, no region
      "lui t6,0x1",                     // 0x1c: 5000 = 4096 + 904, unsafe
      "addiw t6,t6,904",
      "add s1,s1,t6",
  });
  Append(want, AddrUse("t6", 0x1028, "addi t6,t6,", ""));  // 0x28: atomic_add g[5], unsafe
  want.push_back("amoadd.d.aqrl zero,s1,(t6)");
  Append(want, AddrUse("t6", 0, "ld t6,", "(t6)"));         // 0x44: wb_store: the flag (0 here), unsafe
  want.push_back("beq t6,zero,0x78");                       // flag clear: skip the slow path
  Append(want, AddrUse("t6", 0x11f8, "sd a1,", "(t6)"));    // &g[63]
  Append(want, AddrUse("t6", 0x1030, "sd a1,", "(t6)"));    // 0x78: &g[6]
  Append(want, {"addi t6,zero,1", "add a2,a2,t6"});         // 0x90: usetmp r3, unsafe
  const char* names[] = {"a0", "s1", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "s2", "s3", "s4"};
  for (int r = 0; r < 12; r++)  // 0x98: dumpregs 20, one unsafe store each
    Append(want, AddrUse("t6", 0x1000 + 8 * (20 + r), std::string("sd ") + names[r] + ",", "(t6)"));
  want.push_back("addi t1,a0,0");  // 0x1b8: sumregs r4, in place (no region)
  for (int r = 1; r < 12; r++) want.push_back(std::string("add t1,t1,") + names[r]);
  want.insert(want.end(), {"addi a3,t1,0", "jalr zero,0(ra)"});
  ExpectDisasm("riscv64", e, "main.async", want);

  const FuncInfo* f = e.table.Find("main.async");
  ASSERT_NE(f, nullptr);
  std::vector<std::pair<uint32_t, uint32_t>> unsafe;
  for (const CodeRange& r : f->unsafe) unsafe.push_back({r.lo, r.hi});
  std::vector<std::pair<uint32_t, uint32_t>> want_unsafe = {{0x00, 0x18}, {0x1c, 0x28}, {0x28, 0x44},
                                                            {0x44, 0x90}, {0x90, 0x98}};
  for (uint32_t k = 0; k < 12; k++) want_unsafe.push_back({0x98 + 24 * k, 0x98 + 24 * k + 24});
  EXPECT_EQ(unsafe, want_unsafe);
  EXPECT_TRUE(f->restarts.empty()) << "Go's riscv64 assembler marks no restartable sequences";
}

// The FP ("vector") and flag operations: everything through t1 (saved by
// asyncPreempt, so resumed in place) but flagsdump, whose store goes
// through REGTMP: the whole operation is one unsafe region. vfill sets all
// 64 bits of f_i to word i of the layout; setflags writes the whole fcsr
// (fflags from IMM, frm zero).
TEST(Riscv64Lower, VectorAndFlagOperations) {
  Emitted e = EmitForTest(*NewRiscv64Lowerer(), R"(
func main.vec
  vfill 1
  vdump 1
  setflags 0xAD0A08C5
  flagsdump g[7]
  ret
end
)");
  // Mov64's eight instructions for v into t1: the chain for the top 56
  // bits, then slli 8 and the low byte.
  auto mov64 = [&](uint64_t v) {
    int64_t d = static_cast<int64_t>(v << 56) >> 56;
    int64_t w = static_cast<int64_t>(v - static_cast<uint64_t>(d)) >> 8;
    std::vector<std::string> l = AddrUse("t1", static_cast<uint64_t>(w), "addi t1,t1,", "");
    l.insert(l.end(), {"slli t1,t1,0x8", "addi t1,t1," + std::to_string(d)});
    return l;
  };
  const char* fnames[] = {"ft0", "ft1", "ft2", "ft3", "ft4",  "ft5",  "ft6", "ft7", "fs0", "fs1", "fa0",
                          "fa1", "fa2", "fa3", "fa4", "fa5",  "fa6",  "fa7", "fs2", "fs3", "fs4", "fs5",
                          "fs6", "fs7", "fs8", "fs9", "fs10", "fs11", "ft8", "ft9", "ft10", "ft11"};
  std::vector<std::string> want;
  for (int f = 0; f < 32; f++) {
    uint64_t pattern = VectorPattern(1, f);  // f_i is word i
    ASSERT_FALSE(static_cast<int64_t>(pattern) >= INT32_MIN && static_cast<int64_t>(pattern) <= INT32_MAX);
    Append(want, mov64(pattern));
    want.push_back(std::string("fmv.d.x ") + fnames[f] + ",t1");
  }
  Append(want, AddrUse("t1", TestEnv().vdump + kVDumpBytes, "addi t1,t1,", ""));
  for (int f = 0; f < 32; f++) want.push_back(std::string("fsd ") + fnames[f] + "," + std::to_string(8 * f) + "(t1)");
  want.insert(want.end(), {"addi t1,zero,5", "csrrw zero,fcsr,t1"});  // 0xAD0A08C5 & 0x1f: fflags NX OF, frm 0
  uint32_t flags_at = 4 * static_cast<uint32_t>(want.size());
  want.push_back("csrrs t1,fcsr,zero");
  uint32_t region_at = 4 * static_cast<uint32_t>(want.size());
  Append(want, AddrUse("t6", TestEnv().globals + 8 * 7, "sd t1,", "(t6)"));
  want.push_back("jalr zero,0(ra)");
  ExpectDisasm("riscv64", e, "main.vec", want);
  const FuncInfo* f = e.table.Find("main.vec");
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(f->restarts.empty());
  ASSERT_EQ(f->unsafe.size(), 1u);
  EXPECT_EQ(f->unsafe[0].lo, flags_at) << "from the fcsr read";
  EXPECT_EQ(f->unsafe[0].hi, region_at + 24) << "to the store";
  EXPECT_EQ(region_at - flags_at, 4u);
}

// In a restartatentry function too, a REGTMP expansion is an unsafe point
// (checked before the function's mark, as in isAsyncSafePoint), and nothing
// is a restartable sequence.
TEST(Riscv64Lower, RegtmpUnsafeInARestartAtEntryFunctionToo) {
  Emitted e = EmitForTest(*NewRiscv64Lowerer(), R"(
func main.again restartatentry
  movi r1, 9
  st g[29], r1
  muli r1, 3
  ret
end
func main.plain
  st g[29], r1
  ret
end
)");
  const FuncInfo* f = e.table.Find("main.again");
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(f->restarts.empty());
  EXPECT_EQ(f->unsafe.size(), 2u) << "the store and the multiplication";
  EXPECT_TRUE(f->has(kFuncRestartAtEntry));
  const FuncInfo* g = e.table.Find("main.plain");
  ASSERT_NE(g, nullptr);
  EXPECT_TRUE(g->restarts.empty());
  EXPECT_EQ(g->unsafe.size(), 1u);
}

// The constant chains, run: a tiny RV64I interpreter of lui, addiw, slli
// and addi over the emitted words (decoded from the encoding, independently
// of objdump) must leave exactly the value in the register, for movi of
// edge and random 64-bit values and for addresses up to 2^47.
uint64_t Interpret(const std::vector<uint8_t>& code, uint32_t from, uint32_t to, int reg) {
  uint64_t x[32] = {};
  for (uint32_t at = from; at < to; at += 4) {
    uint32_t w = code[at] | code[at + 1] << 8 | code[at + 2] << 16 | uint32_t(code[at + 3]) << 24;
    int rd = (w >> 7) & 31, rs1 = (w >> 15) & 31;
    int64_t imm = static_cast<int32_t>(w) >> 20;
    uint32_t op = w & 0x7f, f3 = (w >> 12) & 7;
    if (op == 0x37) {
      x[rd] = static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(w & 0xfffff000u)));
    } else if (op == 0x1b && f3 == 0) {
      x[rd] = static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(static_cast<uint32_t>(x[rs1] + imm))));
    } else if (op == 0x13 && f3 == 1) {
      x[rd] = x[rs1] << (imm & 0x3f);
    } else if (op == 0x13 && f3 == 0) {
      x[rd] = x[rs1] + static_cast<uint64_t>(imm);
    } else {
      ADD_FAILURE() << "unexpected instruction 0x" << std::hex << w;
    }
    x[0] = 0;
  }
  return x[reg];
}

TEST(Riscv64Lower, ConstantChainsComputeTheirValue) {
  std::vector<uint64_t> values = {0,
                                  1,
                                  2047,
                                  2048,
                                  0x7ffff7ff,
                                  0x7ffff800,
                                  0x7fffffff,
                                  0x80000000,
                                  0xffffffff,
                                  0x100000000,
                                  0x7fffffffffffffffull,
                                  0x8000000000000000ull,
                                  0xffffffff7ffff800ull,
                                  0xfffffffffffff800ull,
                                  0x00007ffffffff800ull,
                                  0x0080000000000000ull,
                                  0x123456789abcdef0ull};
  std::mt19937_64 rng(42);
  for (int i = 0; i < 2000; i++) values.push_back(rng());
  for (int i = 0; i < 200; i++) values.push_back(rng() >> (i % 64));
  for (uint64_t v : values) {
    Emitted e = EmitForTest(*NewRiscv64Lowerer(), "func main.m\n  movi r1, " + std::to_string(static_cast<int64_t>(v)) +
                                                      "\n  ret\nend\n");
    const FuncInfo* f = e.table.Find("main.m");
    ASSERT_NE(f, nullptr);
    uint32_t n = (f->end - f->entry) / 4 - 1;  // without the ret
    bool small = static_cast<int64_t>(v) >= INT32_MIN && static_cast<int64_t>(v) <= INT32_MAX;
    EXPECT_TRUE(small ? n <= 2 : n == 8) << std::hex << v << ": " << n << " instructions";
    EXPECT_EQ(Interpret(e.code, f->entry, f->end - 4, 9), v) << "movi 0x" << std::hex << v;  // r1 is s1 (x9)
  }
  // Addresses: the globals' base anywhere below 2^47 (a user address),
  // through the six-instruction chain whose last instruction is the load.
  for (int i = 0; i < 500; i++) {
    uint64_t base = (rng() >> 17) & ~uint64_t(7);
    EmitEnv env = TestEnv();
    env.globals = base;
    ir::Program p;
    std::string err;
    ASSERT_TRUE(ir::ParseProgram("func main.m\n  ld r2, g[5]\n  ret\nend\n", &p, &err)) << err;
    Emitted e;
    ASSERT_TRUE(Emit(*NewRiscv64Lowerer(), p, env, &e, &err)) << err;
    const FuncInfo* f = e.table.Find("main.m");
    ASSERT_EQ(f->end - f->entry, 7u * 4) << "six instructions and ret";
    uint32_t ld = e.code[f->entry + 20] | e.code[f->entry + 21] << 8 | e.code[f->entry + 22] << 16 |
                  uint32_t(e.code[f->entry + 23]) << 24;
    ASSERT_EQ(ld & 0x707f, 0x3003u) << "ld";
    ASSERT_EQ((ld >> 15) & 31, 31u) << "through REGTMP";
    uint64_t addr = Interpret(e.code, f->entry, f->entry + 20, 31) + static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(ld) >> 20));
    EXPECT_EQ(addr, base + 40) << std::hex << base;
  }
}

// One instruction with a fixup, resolved against `target` (bytes from it).
struct Resolved {
  bool ok;
  std::string text;  // objdump's reading when ok (both instructions for go F)
};
Resolved ResolveOne(ir::Op op, uint32_t target) {
  auto low = NewRiscv64Lowerer();
  Asm a;
  int label = a.NewLabel();
  ir::Function fn;
  FuncCtx ctx{&fn, 0, false, -1, -1, true};
  ir::Insn i;
  i.op = op;
  i.rs = 0;
  i.service = ir::Service::kGo;
  low->Lower(a, ctx, i, label, label, TestEnv());
  EXPECT_FALSE(a.fixups().empty());
  std::string err;
  if (!low->Resolve(a, a.fixups()[0], target, &err)) {
    EXPECT_NE(err.find("out of range"), std::string::npos) << err;
    return {false, ""};
  }
  std::vector<DisasmLine> lines;
  EXPECT_TRUE(Disassemble("riscv64", a.code(), &lines, &err)) << err;
  if (lines.empty()) return {true, ""};
  return {true, op == ir::Op::kService && lines.size() > 1 ? lines[0].text + "; " + lines[1].text : lines[0].text};
}

TEST(Riscv64Lower, BranchRanges) {
  // beq/bne: 13-bit signed byte offsets.
  EXPECT_EQ(ResolveOne(ir::Op::kJz, 4094 - 2).text, "beq a0,zero,0xffc");
  EXPECT_FALSE(ResolveOne(ir::Op::kJz, 4096).ok);
  EXPECT_EQ(ResolveOne(ir::Op::kJnz, 4092).text, "bne a0,zero,0xffc");
  // jal: 21 bits.
  EXPECT_EQ(ResolveOne(ir::Op::kJmp, (1u << 20) - 4).text, "jal zero,0xffffc");
  EXPECT_FALSE(ResolveOne(ir::Op::kJmp, 1u << 20).ok);
  // auipc+addi (go F): 32-bit PC-relative, the low part signed.
  EXPECT_EQ(ResolveOne(ir::Op::kService, 0x12345ffc).text, "auipc a0,0x12346; addi a0,a0,-4");
  EXPECT_EQ(ResolveOne(ir::Op::kService, 0x7ffff7fc).text, "auipc a0,0x7ffff; addi a0,a0,2044");
  EXPECT_FALSE(ResolveOne(ir::Op::kService, 0x7ffff800).ok);
}

// The heap operations, and the frame facts the collector walks stacks by
// (pcsp, slot base, stack map).
TEST(Riscv64Lower, HeapOperationsAndFrameFacts) {
  Emitted e = EmitForTest(*NewRiscv64Lowerer(), kHeapOpsProgram);
  ExpectDisasm("riscv64", e, "main.heap", {
      "ld t1,16(s11)",
      "bgeu t1,sp,0x48",
      "addi sp,sp,-32",
      "sd ra,0(sp)",
      "addi a0,zero,24",
      "jal ra,0x3ac",
      "ld s1,8(a0)",
      "sd s1,16(a0)",
      "fld ft0,0(a0)",  // vload: 16 bytes through F0 and F1
      "fld ft1,8(a0)",
      "fsd ft0,240(s1)",
      "fsd ft1,248(s1)",
      "sd a0,8(sp)",
      "addi s1,zero,0",
      "addi a1,sp,16",  // addrslot r2, 8
      "ld ra,0(sp)",
      "addi sp,sp,32",
      "jalr zero,0(ra)",
      "sd a0,80(s11)",
      "lui t6,0x0",
      "addiw t6,t6,0",
      "slli t6,t6,0xc",
      "addi t6,t6,4",
      "slli t6,t6,0xc",
      "jalr t0,0(t6)",
      "ld a0,80(s11)",
      "jal zero,0x0",
  });
  ExpectFrameFacts(e, "main.heap", true, 8, {8});
  Emitted l = EmitForTest(*NewRiscv64Lowerer(), kLowerTestProgram);
  ExpectFrameFacts(l, "main.nonleaf", true, 8, {});
}

}  // namespace
}  // namespace safepoint
