// The loong64 Lowerer, checked instruction by instruction against objdump on
// the host: the shared program (a non-leaf with the stack check, a
// small-frame leaf without one, a large frame, frame slots, globals, a
// branch and a service call), then the encodings the shared program does not
// reach (frames beyond addi.d's 12 bits, every immediate form, go F, the
// goexit stub), the unsafe and restartable sequences the function table
// records, the vector and flag operations, and the branch ranges Resolve
// enforces.
#include "platforms/loong64/lower.h"

#include <gtest/gtest.h>

#include "platforms/common/emit_test_util.h"

namespace safepoint {
namespace {

TEST(Loong64Lower, MatchesObjdump) {
  Emitted e = EmitForTest(*NewLoong64Lowerer(), kLowerTestProgram);
  ExpectDisasm("loong64", e, "main.nonleaf", {
      "ld.d $t8, $fp, 16",              // MOVV 16(g), R20
      "sltu $t8, $t8, $sp",             // R20 = stackguard0 < SP
      "beqz $t8, 32",                   // tail at 0x28
      "addi.d $sp, $sp, -32",           // 8 (RA) + 16 locals, 16-aligned
      "st.d $ra, $sp, 0",
      "bl 56",                          // main.leaf at 0x4c
      "addi.d $a0, $a0, 1",
      "ld.d $ra, $sp, 0",
      "addi.d $sp, $sp, 32",
      "ret",
      "st.d $a0, $fp, 80",              // tail: spill the argument to g
      "move $s8, $ra",                  // f's return address, for morestack
      "lu12i.w $s7, 4",                 // REGTMP = 0x4000 (morestack)
      "ori $s7, $s7, 0x0",
      "lu32i.d $s7, 0",
      "lu52i.d $s7, $s7, 0",
      "jirl $ra, $s7, 0",
      "ld.d $a0, $fp, 80",
      "b -72",                          // and check again at 0x0
  });
  ExpectDisasm("loong64", e, "main.leaf", {
      "li.w $s7, 0x3",                  // no stack check, no frame: small leaf
      "mul.d $a0, $a0, $s7",
      "addi.d $a0, $a0, 1",
      "ret",
  });
  ExpectDisasm("loong64", e, "main.big", {
      "ld.d $t8, $fp, 16",
      "addi.d $t7, $sp, -400",          // frame 528 > StackSmall: SP-(528-128)
      "sltu $t8, $t8, $t7",
      "beqz $t8, 80",                   // tail at 0xb8
      "addi.d $sp, $sp, -528",          // 8 + 512, 16-aligned
      "st.d $ra, $sp, 0",
      "st.d $s0, $sp, 512",             // slot 504 is 8+504(SP); r1 is $s0
      "ld.d $s3, $sp, 8",               // slot 0; r11 is $s3
      "lu12i.w $s7, 1",                 // &g[3] = 0x1018
      "ori $s7, $s7, 0x18",
      "lu32i.d $s7, 0",
      "lu52i.d $s7, $s7, 0",
      "ld.d $a1, $s7, 0",               // r2 is $a1
      "lu12i.w $s7, 1",                 // &g[4] = 0x1020
      "ori $s7, $s7, 0x20",
      "lu32i.d $s7, 0",
      "lu52i.d $s7, $s7, 0",
      "st.d $s3, $s7, 0",
      "bnez $a2, 8",                    // out: at 0xac
      "bl 80",                          // runtime.Gosched stub at 0xf8
      "ld.d $ra, $sp, 0",
      "addi.d $sp, $sp, 528",
      "ret",
      "st.d $a0, $fp, 80",
      "move $s8, $ra",
      "lu12i.w $s7, 4",
      "ori $s7, $s7, 0x0",
      "lu32i.d $s7, 0",
      "lu52i.d $s7, $s7, 0",
      "jirl $ra, $s7, 0",
      "ld.d $a0, $fp, 80",
      "b -124",                         // entry at 0x5c
  });
  ExpectDisasm("loong64", e, "main.nosplit", {
      "addi.d $sp, $sp, -16",           // nosplit: no check even with a call
      "st.d $ra, $sp, 0",
      "addi.d $a0, $a0, 2",
      "bl -156",                        // main.leaf at 0x4c
      "ld.d $ra, $sp, 0",
      "addi.d $sp, $sp, 16",
      "ret",
  });
  ExpectDisasm("loong64", e, "runtime.Gosched", {
      "st.d $a0, $fp, 72",              // operand into g.param
      "lu12i.w $a0, 16",                // the C++ service function, 0x10000
      "ori $a0, $a0, 0x0",
      "lu32i.d $a0, 0",
      "lu52i.d $a0, $a0, 0",
      "lu12i.w $s7, 2",                 // mcall, 0x2000
      "ori $s7, $s7, 0x0",
      "lu32i.d $s7, 0",
      "lu52i.d $s7, $s7, 0",
      "jr $s7",                         // tail jump: RA is the call site's
  });
  ExpectTable(e, "main.nonleaf", /*check=*/true, /*nosplit=*/false);
  ExpectTable(e, "main.leaf", false, false);
  ExpectTable(e, "main.big", true, false);
  ExpectTable(e, "main.nosplit", false, true);
  EXPECT_EQ(e.table.Find("main.nonleaf")->frame, 32);
  EXPECT_EQ(e.table.Find("main.leaf")->frame, 0);
  EXPECT_EQ(e.table.Find("main.big")->frame, 528);
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

TEST(Loong64Lower, WideImmediatesAndFrames) {
  Emitted e = EmitForTest(*NewLoong64Lowerer(), kWideProgram);
  ExpectDisasm("loong64", e, "main.huge", {
      "ld.d $t8, $fp, 16",
      "lu12i.w $t7, -1",                // -(3008-128) = -2880 = 0x...f4c0
      "ori $t7, $t7, 0x4c0",
      "add.d $t7, $sp, $t7",
      "sltu $t8, $t8, $t7",
      "beqz $t8, 164",                  // tail at 0xb8
      "lu12i.w $t8, -1",                // -3008 = 0x...f440: one add moves SP
      "ori $t8, $t8, 0x440",
      "add.d $sp, $sp, $t8",
      "st.d $ra, $sp, 0",
      "stptr.d $s0, $sp, 3000",         // 8+2992: beyond ld.d/st.d's reach
      "ld.d $a1, $sp, 16",
      "lu12i.w $a2, -1",                // movi -2: always four instructions
      "ori $a2, $a2, 0xffe",
      "lu32i.d $a2, -1",
      "lu52i.d $a2, $a2, -1",
      "lu12i.w $a3, -414771",           // 0x9abcd
      "ori $a3, $a3, 0xef0",
      "lu32i.d $a3, 284280",            // 0x45678
      "lu52i.d $a3, $a3, 291",          // 0x123
      "addi.d $a4, $a4, 2047",          // the ends of addi.d's range
      "addi.d $a4, $a4, -2048",
      "li.w $s7, 0x800",                // ori $s7, $zero, 0x800
      "add.d $a5, $a5, $s7",
      "lu12i.w $s7, -25",               // -100000 = 0xfffe7960
      "ori $s7, $s7, 0x960",
      "add.d $a5, $a5, $s7",
      "li.w $s7, -7",                   // addi.w $s7, $zero, -7
      "mul.d $a6, $a6, $s7",
      "lu12i.w $s7, 16",                // 65536: no low bits to or in
      "mul.d $a6, $a6, $s7",
      "add.d $a7, $a7, $s1",            // r8 += r9
      "move $s2, $s3",                  // r10 = r11
      "beqz $a0, 8",                    // skip at 0x8c
      "b 4",
      "pcaddi $a0, -35",                // go main.huge: $a0 = 0x0 (4-byte units)
      "bl 492",                         // runtime.newproc stub at 0x27c
      "lu12i.w $a0, 0",                 // sleep's operand, 1000
      "ori $a0, $a0, 0x3e8",
      "lu32i.d $a0, 0",
      "lu52i.d $a0, $a0, 0",
      "bl 432",                         // time.Sleep stub at 0x254
      "ld.d $ra, $sp, 0",
      "li.w $t8, 0xbc0",                // +3008
      "add.d $sp, $sp, $t8",
      "ret",
      "st.d $a0, $fp, 80",
      "move $s8, $ra",
      "lu12i.w $s7, 4",
      "ori $s7, $s7, 0x0",
      "lu32i.d $s7, 0",
      "lu52i.d $s7, $s7, 0",
      "jirl $ra, $s7, 0",
      "ld.d $a0, $fp, 80",
      "b -216",                         // entry at 0x0
  });
  ExpectDisasm("loong64", e, "main.leafslots", {
      "addi.d $sp, $sp, -32",           // a leaf keeps the RA slot but leaves it unused
      "st.d $a0, $sp, 8",
      "ld.d $s0, $sp, 16",
      "addi.d $sp, $sp, 32",
      "ret",
  });
  ExpectDisasm("loong64", e, "main.leafbig", {
      "ld.d $t8, $fp, 16",              // a leaf of StackSmall locals is checked
      "addi.d $t7, $sp, -16",           // frame 144
      "sltu $t8, $t8, $t7",
      "beqz $t8, 20",
      "addi.d $sp, $sp, -144",
      "st.d $a0, $sp, 128",
      "addi.d $sp, $sp, 144",
      "ret",
      "st.d $a0, $fp, 80",
      "move $s8, $ra",
      "lu12i.w $s7, 4",
      "ori $s7, $s7, 0x0",
      "lu32i.d $s7, 0",
      "lu52i.d $s7, $s7, 0",
      "jirl $ra, $s7, 0",
      "ld.d $a0, $fp, 80",
      "b -64",
  });
  std::vector<std::string> regs;
  const char* names[] = {"$a0", "$s0", "$a1", "$a2", "$a3", "$a4", "$a5", "$a6", "$a7", "$s1", "$s2", "$s3"};
  for (int r = 0; r < 12; r++) {
    std::string n = names[r];
    char lo[16];
    snprintf(lo, sizeof lo, "0x%x", 100 + r);
    regs.insert(regs.end(), {"lu12i.w " + n + ", 0", "ori " + n + ", " + n + ", " + lo, "lu32i.d " + n + ", 0",
                             "lu52i.d " + n + ", " + n + ", 0"});
  }
  regs.push_back("move $t8, $a0");  // sumregs accumulates in $t8, which asyncPreempt saves
  for (int r = 1; r < 12; r++) regs.push_back(std::string("add.d $t8, $t8, ") + names[r]);
  regs.insert(regs.end(), {"move $s0, $t8", "ret"});
  ExpectDisasm("loong64", e, "main.regs", regs);
  // The goexit service's function is 0x10000 + 0x100 * its index (the last
  // service), below 1 MiB: lu12i.w and ori carry it all.
  uint64_t goexit_fn = TestEnv().service_fn[static_cast<int>(ir::Service::kGoexit)];
  ASSERT_LT(goexit_fn, 1u << 20);
  char hi[32], lo[32];
  snprintf(hi, sizeof hi, "lu12i.w $a0, %d", static_cast<int>(goexit_fn >> 12));
  snprintf(lo, sizeof lo, "ori $a0, $a0, 0x%x", static_cast<unsigned>(goexit_fn & 0xfff));
  ExpectDisasm("loong64", e, "runtime.goexit", {
      hi,
      lo,
      "lu32i.d $a0, 0",
      "lu52i.d $a0, $a0, 0",
      "lu12i.w $s7, 2",                 // mcall
      "ori $s7, $s7, 0x0",
      "lu32i.d $s7, 0",
      "lu52i.d $s7, $s7, 0",
      "jirl $ra, $s7, 0",
      "break 0x0",                      // mcall never returns
  });
  ExpectTable(e, "main.huge", true, false);
  ExpectTable(e, "main.leafslots", false, false);
  ExpectTable(e, "main.leafbig", true, false);
  EXPECT_EQ(e.table.Find("main.huge")->frame, 3008);
  EXPECT_EQ(e.table.Find("main.leafslots")->frame, 32);
  EXPECT_EQ(e.table.Find("main.leafbig")->frame, 144);
}

// The operations asynchronous preemption's rules are about, and the
// regions the table records: REGTMP expansions are restartable, atomics,
// write barriers and explicit REGTMP uses are unsafe.
TEST(Loong64Lower, UnsafeAndRestartableSequences) {
  Emitted e = EmitForTest(*NewLoong64Lowerer(), R"(
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
  std::vector<std::string> want = {
      "lu12i.w $s7, 1",                 // 0x00: &g[2], restartable
      "ori $s7, $s7, 0x10",
      "lu32i.d $s7, 0",
      "lu52i.d $s7, $s7, 0",
      "ld.d $s0, $s7, 0",
      "addi.d $s0, $s0, 5",             // 0x14: one instruction, no region
      "lu12i.w $s7, 1",                 // 0x18: 5000 = 0x1388, restartable
      "ori $s7, $s7, 0x388",
      "add.d $s0, $s0, $s7",
      "lu12i.w $s7, 1",                 // 0x24: atomic_add g[5] (0x1028), unsafe
      "ori $s7, $s7, 0x28",
      "lu32i.d $s7, 0",
      "lu52i.d $s7, $s7, 0",
      "amadd_db.d $zero, $s0, $s7",
      "lu12i.w $s7, 0",                 // 0x38: wb_store: the flag (0 here), unsafe
      "ori $s7, $s7, 0x0",
      "lu32i.d $s7, 0",
      "lu52i.d $s7, $s7, 0",
      "ld.d $s7, $s7, 0",
      "beqz $s7, 24",                   // flag clear: skip the slow path
      "lu12i.w $s7, 1",                 // &g[63] = 0x11f8
      "ori $s7, $s7, 0x1f8",
      "lu32i.d $s7, 0",
      "lu52i.d $s7, $s7, 0",
      "st.d $a1, $s7, 0",
      "lu12i.w $s7, 1",                 // 0x60: &g[6] = 0x1030
      "ori $s7, $s7, 0x30",
      "lu32i.d $s7, 0",
      "lu52i.d $s7, $s7, 0",
      "st.d $a1, $s7, 0",
      "li.w $s7, 0x1",                  // 0x78: usetmp r3, unsafe
      "add.d $a2, $a2, $s7",
  };
  const char* names[] = {"$a0", "$s0", "$a1", "$a2", "$a3", "$a4", "$a5", "$a6", "$a7", "$s1", "$s2", "$s3"};
  for (int r = 0; r < 12; r++) {  // 0x80: dumpregs 20, one restartable store each
    char lo[32];
    snprintf(lo, sizeof lo, "ori $s7, $s7, 0x%x", 0xa0 + 8 * r);
    want.insert(want.end(), {"lu12i.w $s7, 1", lo, "lu32i.d $s7, 0", "lu52i.d $s7, $s7, 0",
                             std::string("st.d ") + names[r] + ", $s7, 0"});
  }
  want.push_back("move $t8, $a0");  // 0x170: sumregs r4, in place (no region)
  for (int r = 1; r < 12; r++) want.push_back(std::string("add.d $t8, $t8, ") + names[r]);
  want.insert(want.end(), {"move $a3, $t8", "ret"});
  ExpectDisasm("loong64", e, "main.async", want);

  const FuncInfo* f = e.table.Find("main.async");
  ASSERT_NE(f, nullptr);
  std::vector<std::pair<uint32_t, uint32_t>> unsafe, restarts;
  for (const CodeRange& r : f->unsafe) unsafe.push_back({r.lo, r.hi});
  std::vector<std::pair<uint32_t, uint32_t>> want_unsafe = {{0x24, 0x38}, {0x38, 0x78}, {0x78, 0x80}};
  EXPECT_EQ(unsafe, want_unsafe);
  std::vector<std::pair<uint32_t, uint32_t>> want_restarts = {{0x00, 0x14}, {0x18, 0x24}};
  for (uint32_t k = 0; k < 12; k++) want_restarts.push_back({0x80 + 20 * k, 0x80 + 20 * k + 20});
  for (size_t k = 0; k < f->restarts.size(); k++) {
    restarts.push_back({f->restarts[k].lo, f->restarts[k].hi});
    EXPECT_EQ(f->restarts[k].mark, k % 2 == 0 ? -3 : -4) << "adjacent sequences alternate";
  }
  EXPECT_EQ(restarts, want_restarts);
}

// The vector and flag operations: everything through $t8/$t7 (saved by
// asyncPreempt, so resumed in place) but flagsdump's addresses and stores,
// which go through REGTMP and are one restartable sequence per flag
// register. vfill and vdump reach all 256 bits of $xr0-$xr31, lane l of
// $xr_v being word 4v+l of the layout; setflags sets fcc0-7 and fcsr0.
TEST(Loong64Lower, VectorAndFlagOperations) {
  Emitted e = EmitForTest(*NewLoong64Lowerer(), R"(
func main.vec
  vfill 1
  vdump 1
  setflags 0xAD0A08C5
  flagsdump g[7]
  ret
end
)");
  // Mov64's four instructions for v into $t8, as objdump prints them.
  auto mov64 = [&](const std::string& r, uint64_t v) {
    int64_t hi20 = static_cast<int64_t>(static_cast<int32_t>(static_cast<uint32_t>(v >> 12) << 12) >> 12);
    int64_t mid20 = static_cast<int64_t>(static_cast<int32_t>(static_cast<uint32_t>(v >> 32) << 12) >> 12);
    int64_t top12 = static_cast<int64_t>(static_cast<int32_t>(static_cast<uint32_t>(v >> 52) << 20) >> 20);
    char a[64], b[64], c[64], d[64];
    snprintf(a, sizeof a, "lu12i.w %s, %lld", r.c_str(), static_cast<long long>(hi20));
    snprintf(b, sizeof b, "ori %s, %s, 0x%llx", r.c_str(), r.c_str(), static_cast<unsigned long long>(v & 0xfff));
    snprintf(c, sizeof c, "lu32i.d %s, %lld", r.c_str(), static_cast<long long>(mid20));
    snprintf(d, sizeof d, "lu52i.d %s, %s, %lld", r.c_str(), r.c_str(), static_cast<long long>(top12));
    return std::vector<std::string>{a, b, c, d};
  };
  std::vector<std::string> want;
  for (int v = 0; v < 32; v++) {
    for (int l = 0; l < 4; l++) {
      auto m = mov64("$t8", VectorPattern(1, 4 * v + l));
      want.insert(want.end(), m.begin(), m.end());
      want.push_back("xvinsgr2vr.d $xr" + std::to_string(v) + ", $t8, 0x" + std::to_string(l));
    }
  }
  auto m = mov64("$t8", TestEnv().vdump + kVDumpBytes);
  want.insert(want.end(), m.begin(), m.end());
  for (int v = 0; v < 32; v++) want.push_back("xvst $xr" + std::to_string(v) + ", $t8, " + std::to_string(32 * v));
  for (int f = 0; f < 8; f++) {  // fcc_i = bit i of 0xC5
    want.push_back((0xC5 >> f) & 1 ? "li.w $t8, 0x1" : "li.w $t8, 0x0");
    want.push_back("movgr2cf $fcc" + std::to_string(f) + ", $t8");
  }
  want.push_back("lu12i.w $t8, " + std::to_string(0x0D0A0000 >> 12));  // fcsr0: Flags 0x0A, Cause 0x0D
  want.push_back("movgr2fcsr $fcsr0, $t8");
  uint32_t flags_at = 4 * static_cast<uint32_t>(want.size());
  want.push_back("movcf2gr $t8, $fcc0");
  for (int f = 1; f < 8; f++) {
    want.push_back("movcf2gr $t7, $fcc" + std::to_string(f));
    want.push_back("bstrins.d $t8, $t7, 0x" + std::to_string(f) + ", 0x" + std::to_string(f));
  }
  uint32_t region_at = 4 * static_cast<uint32_t>(want.size());
  m = mov64("$s7", TestEnv().globals + 8 * 7);
  want.insert(want.end(), m.begin(), m.end());
  want.push_back("st.d $t8, $s7, 0");
  want.push_back("movfcsr2gr $t8, $fcsr0");
  uint32_t region2_at = 4 * static_cast<uint32_t>(want.size());
  m = mov64("$s7", TestEnv().globals + 8 * 8);
  want.insert(want.end(), m.begin(), m.end());
  want.insert(want.end(), {"st.d $t8, $s7, 0", "ret"});
  ExpectDisasm("loong64", e, "main.vec", want);
  const FuncInfo* f = e.table.Find("main.vec");
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(f->unsafe.empty());
  ASSERT_EQ(f->restarts.size(), 2u);
  EXPECT_EQ(f->restarts[0].lo, region_at);
  EXPECT_EQ(f->restarts[0].hi, region_at + 20);
  EXPECT_EQ(f->restarts[1].lo, region2_at);
  EXPECT_EQ(f->restarts[1].hi, region2_at + 20);
  EXPECT_EQ(region_at - flags_at, 4u * 15);
}

// In a restartatentry function a preemption anywhere resumes at the entry,
// which rewinds REGTMP sequences too: none is recorded there.
TEST(Loong64Lower, NoSequencesInARestartAtEntryFunction) {
  Emitted e = EmitForTest(*NewLoong64Lowerer(), R"(
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
  EXPECT_TRUE(f->has(kFuncRestartAtEntry));
  const FuncInfo* g = e.table.Find("main.plain");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->restarts.size(), 1u);
}

// One instruction with a fixup, resolved against `target` (bytes from it).
struct Resolved {
  bool ok;
  std::string text;  // objdump's reading when ok
};
Resolved ResolveOne(ir::Op op, uint32_t target) {
  auto low = NewLoong64Lowerer();
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
  EXPECT_TRUE(Disassemble("loong64", a.code(), &lines, &err)) << err;
  return {true, lines.empty() ? "" : lines[0].text};
}

TEST(Loong64Lower, BranchRanges) {
  // beqz/bnez: 21 bits of 4-byte units.
  EXPECT_EQ(ResolveOne(ir::Op::kJz, 4 * ((1u << 20) - 1)).text, "beqz $a0, 4194300");
  EXPECT_FALSE(ResolveOne(ir::Op::kJz, 4 * (1u << 20)).ok);
  // b/bl: 26 bits.
  EXPECT_EQ(ResolveOne(ir::Op::kJmp, 4 * ((1u << 25) - 1)).text, "b 134217724");
  EXPECT_FALSE(ResolveOne(ir::Op::kJmp, 4 * (1u << 25)).ok);
  // pcaddi (go F): 20 bits.
  EXPECT_EQ(ResolveOne(ir::Op::kService, 4 * ((1u << 19) - 1)).text, "pcaddi $a0, 524287");
  EXPECT_FALSE(ResolveOne(ir::Op::kService, 4 * (1u << 19)).ok);
}

// The heap operations, and the frame facts the collector walks stacks by
// (pcsp, slot base, stack map).
TEST(Loong64Lower, HeapOperationsAndFrameFacts) {
  Emitted e = EmitForTest(*NewLoong64Lowerer(), kHeapOpsProgram);
  ExpectDisasm("loong64", e, "main.heap", {
      "ld.d $t8, $fp, 16",
      "sltu $t8, $t8, $sp",
      "beqz $t8, 84",
      "addi.d $sp, $sp, -32",
      "st.d $ra, $sp, 0",
      "lu12i.w $a0, 0",
      "ori $a0, $a0, 0x18",
      "lu32i.d $a0, 0",
      "lu52i.d $a0, $a0, 0",
      "bl 732",
      "ld.d $s0, $a0, 8",
      "st.d $s0, $a0, 16",
      "vld $vr0, $a0, 0",  // vload: 16 bytes through VR0
      "vst $vr0, $s0, 240",
      "st.d $a0, $sp, 8",
      "lu12i.w $s0, 0",
      "ori $s0, $s0, 0x0",
      "lu32i.d $s0, 0",
      "lu52i.d $s0, $s0, 0",
      "addi.d $a1, $sp, 16",  // addrslot r2, 8
      "ld.d $ra, $sp, 0",
      "addi.d $sp, $sp, 32",
      "ret",
      "st.d $a0, $fp, 80",
      "move $s8, $ra",
      "lu12i.w $s7, 4",
      "ori $s7, $s7, 0x0",
      "lu32i.d $s7, 0",
      "lu52i.d $s7, $s7, 0",
      "jirl $ra, $s7, 0",
      "ld.d $a0, $fp, 80",
      "b -124",
  });
  ExpectFrameFacts(e, "main.heap", true, 8, {8});
  Emitted l = EmitForTest(*NewLoong64Lowerer(), kLowerTestProgram);
  ExpectFrameFacts(l, "main.nonleaf", true, 8, {});
}

}  // namespace
}  // namespace safepoint
