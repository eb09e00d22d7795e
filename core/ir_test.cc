// The program IR's parser: every malformed description gets a clear error
// with its line, never a crash; GODEBUG parsing as Go does it.
#include "core/ir.h"

#include <gtest/gtest.h>


namespace safepoint {
namespace {

std::string ErrorOf(const std::string& text) {
  ir::Program p;
  std::string err;
  EXPECT_FALSE(ir::ParseProgram(text, &p, &err)) << text;
  return err;
}

TEST(IR, ParsesAProgram) {
  ir::Program p;
  std::string err;
  ASSERT_TRUE(ir::ParseProgram("# a comment\nfunc main.main frame=16 nosplit\n  movi r0, 0x10\nl:\n  addi r0, -1\n"
                               "  jnz r0, l\n  inline internal/runtime/atomic.Load\n  st g[3], r0\n  endinline\n"
                               "  ret\nend\n",
                               &p, &err))
      << err;
  ASSERT_EQ(p.funcs.size(), 1u);
  EXPECT_EQ(p.funcs[0].frame, 16);
  EXPECT_TRUE(p.funcs[0].nosplit);
  EXPECT_EQ(p.funcs[0].body[0].imm, 16);
  EXPECT_EQ(ir::PackageOf("internal/runtime/atomic.Load"), "internal/runtime/atomic");
  EXPECT_EQ(ir::PackageOf("reflect.Value.call"), "reflect");
}

TEST(IR, MalformedDescriptionsGetClearErrors) {
  EXPECT_EQ(ErrorOf("func main.main\n  frob r1\n  ret\nend\n"), "2: unknown operation 'frob'");
  // Found by //fuzz:parser_fuzz: a line of separators alone crashed the parser.
  EXPECT_EQ(ErrorOf(", "), "1: a statement expected, not separators alone");
  EXPECT_EQ(ErrorOf("func main.main\n ,, \n  ret\nend\n"), "2: a statement expected, not separators alone");
  EXPECT_EQ(ErrorOf("func main.main\n  addi r99, 1\n  ret\nend\n"), "2: 'r99' is not a register r0..r11");
  EXPECT_EQ(ErrorOf("func main.main\n  ret\n"), "1: function main.main has no 'end'");
  EXPECT_EQ(ErrorOf("func main.main frame=12\n  ret\nend\n"), "1: frame=12: must be a multiple of 8 in [0, 4080]");
  EXPECT_EQ(ErrorOf("func main.main\n  jmp nowhere\nend\n"), "2: no label 'nowhere' in main.main");
  EXPECT_EQ(ErrorOf("func main.main\n  call main.f\n  ret\nend\n"), "2: call of undefined function main.f");
  EXPECT_EQ(ErrorOf("func main.main\n  ld r1, g[64]\n  ret\nend\n"), "2: 'g[64]' is not a global g[0..63]");
  EXPECT_EQ(ErrorOf("func main.main frame=8\n  stslot 8, r1\n  ret\nend\n"),
            "2: slot offset 8 outside the 8-byte frame of main.main");
  EXPECT_EQ(ErrorOf("func nopackage\n  ret\nend\n"), "1: 'nopackage' is not a package-qualified name (pkg.Func)");
  EXPECT_EQ(ErrorOf("func main.main\n  addi r1, 1\nend\n"), "1: main.main: must end with ret or jmp");
  EXPECT_EQ(ErrorOf("func main.main\n  inline runtime.x\n  ret\nend\n"),
            "3: labels and ret are not allowed inside an inlined body");
  EXPECT_EQ(ErrorOf("  ret\n"), "1: 'ret' outside a function");
  EXPECT_EQ(ErrorOf(""), "0: the program has no functions");
  EXPECT_EQ(ErrorOf("func main.main bogus\n  ret\nend\n"),
            "1: unknown function attribute 'bogus' (nosplit, asm, nongo, restartatentry, frame=N, args=N, ptrs=A/B/...)");
  // The heap operations and the frame's pointer map.
  EXPECT_EQ(ErrorOf("func main.main\n  ldm r1, r0, 12\n  ret\nend\n"),
            "2: ldm 12: offsets are multiples of 8 in [0, 240]");
  EXPECT_EQ(ErrorOf("func main.main\n  stm r1, 248, r0\n  ret\nend\n"),
            "2: stm 248: offsets are multiples of 8 in [0, 240]");
  EXPECT_EQ(ErrorOf("func main.main\n  alloc 4096\n  ret\nend\n"),
            "2: alloc 4096: sizes are multiples of 8 in [8, 4080]");
  EXPECT_EQ(ErrorOf("func main.main\n  alloc\n  ret\nend\n"), "2: alloc needs a size in bytes");
  EXPECT_EQ(ErrorOf("func main.main\n  vload r1\n  ret\nend\n"), "2: vload needs a base register and an offset");
  EXPECT_EQ(ErrorOf("func main.main frame=16 ptrs=16\n  ret\nend\n"),
            "1: main.main: pointer slot 16 outside the 16-byte frame");
  EXPECT_EQ(ErrorOf("func main.main frame=16 ptrs=0/x\n  ret\nend\n"),
            "1: ptrs=0/x: want slot offsets, multiples of 8, separated by '/'");
  EXPECT_EQ(ErrorOf("func main.main frame=16 args=24\n  ret\nend\n"),
            "1: main.main: args=24 must lie within the 16-byte frame");
  EXPECT_EQ(ErrorOf("func main.main restartatentry\n  ldm r1, r1, 0\n  ret\nend\n"),
            "2: main.main: restartatentry: no heap memory operations or stack addresses (a restart at the entry must be invisible)");
  EXPECT_EQ(ErrorOf("func main.main\n  sleep -5\n  ret\nend\n"), "2: sleep: operand must not be negative");
  EXPECT_EQ(ErrorOf("func main.main\n  flagsdump g[62]\n  ret\nend\n"),
            "2: flagsdump g[62]: g[N..N+2] must be globals");
}

TEST(IR, HeapOperationsParse) {
  ir::Program p;
  std::string err;
  ASSERT_TRUE(ir::ParseProgram("func main.main frame=32 ptrs=0/16 args=8\n  alloc 24\n  ldm r1, r0, 8\n"
                               "  stm r0, 16, r1\n  vload r0, 0\n  vstore r1, 240\n  starg 0, r0\n  drop r1\n"
                               "  ret\nend\n", &p, &err)) << err;
  const ir::Function& f = p.funcs[0];
  EXPECT_EQ(f.ptr_slots, (std::vector<int>{0, 16}));
  EXPECT_EQ(f.args, 8);
  EXPECT_EQ(f.body[0].op, ir::Op::kService);
  EXPECT_EQ(f.body[0].service, ir::Service::kAlloc);
  EXPECT_EQ(f.body[0].imm, 24);
  EXPECT_EQ(f.body[1].op, ir::Op::kLdMem);  // rd = r1, base rs = r0
  EXPECT_EQ(f.body[1].rd, 1);
  EXPECT_EQ(f.body[1].rs, 0);
  EXPECT_EQ(f.body[2].op, ir::Op::kStMem);  // base rd = r0, value rs = r1
  EXPECT_EQ(f.body[2].rd, 0);
  EXPECT_EQ(f.body[2].rs, 1);
  EXPECT_EQ(f.body[3].op, ir::Op::kVLoad);
  EXPECT_EQ(f.body[3].rs, 0);
  EXPECT_EQ(f.body[4].op, ir::Op::kVStore);
  EXPECT_EQ(f.body[4].rd, 1);
  EXPECT_EQ(f.body[4].imm, 240);
  EXPECT_EQ(f.body[5].op, ir::Op::kStSlot);  // starg: a store into the argument area
  EXPECT_EQ(f.body[6].op, ir::Op::kMovi);    // drop: rD = 0
  EXPECT_EQ(f.body[6].imm, 0);
}

uint8_t Byte(uint64_t w, int j) { return static_cast<uint8_t>(w >> (8 * j)); }

// What core/ir.h promises of vfill's pattern: no zero byte, eight distinct
// bytes in a word, words 0..254 of one seed different in every byte
// position, seeds not congruent modulo 255 different in every byte.
TEST(IR, VectorPatternDiffersInEveryByteAndLane) {
  for (int64_t seed : {int64_t{0}, int64_t{77}, int64_t{-5}, int64_t{1} << 40}) {
    for (int w = 0; w < 255; w++) {
      uint64_t x = ir::VectorPattern(seed, w);
      for (int j = 0; j < 8; j++) {
        EXPECT_NE(Byte(x, j), 0) << seed << " " << w;
        for (int k = 0; k < j; k++) EXPECT_NE(Byte(x, j), Byte(x, k)) << seed << " " << w;
      }
      for (int v = 0; v < w; v++) {
        uint64_t y = ir::VectorPattern(seed, v);
        for (int j = 0; j < 8; j++) EXPECT_NE(Byte(x, j), Byte(y, j)) << seed << " words " << v << ", " << w;
      }
      for (int64_t other = seed + 1; other < seed + 255; other += 37) {
        uint64_t y = ir::VectorPattern(other, w);
        for (int j = 0; j < 8; j++) EXPECT_NE(Byte(x, j), Byte(y, j)) << seed << " vs " << other << " word " << w;
      }
    }
    EXPECT_EQ(ir::VectorPattern(seed, 3), ir::VectorPattern(seed + 255, 3)) << "the seed counts modulo 255";
  }
}

// What Go's linker and assembler refuse is refused, with its line.
TEST(IR, RefusesWhatGosToolchainWould) {
  // A nosplit chain beyond the 800-byte nosplit limit, and nosplit recursion.
  EXPECT_EQ(ErrorOf("func main.main\n  call main.f\n  ret\nend\nfunc main.f nosplit frame=4000\n  ret\nend\n"),
            "5: main.f: nosplit stack overflow: its nosplit chain needs 4008 bytes, beyond the nosplit limit of 800");
  EXPECT_EQ(ErrorOf("func main.main\n  call main.f\n  ret\nend\n"
                    "func main.f nosplit frame=400\n  call main.g\n  ret\nend\n"
                    "func main.g nosplit frame=400\n  ret\nend\n"),
            "5: main.f: nosplit stack overflow: its nosplit chain needs 816 bytes, beyond the nosplit limit of 800");
  EXPECT_EQ(ErrorOf("func main.main\n  call main.f\n  ret\nend\nfunc main.f nosplit\n  call main.f\n  ret\nend\n"),
            "5: nosplit recursion: main.f -> main.f (a nosplit chain must end; Go's linker refuses it)");
  ir::Program p;
  std::string err;
  EXPECT_TRUE(ir::ParseProgram("func main.main\n  call main.f\n  ret\nend\n"
                               "func main.f nosplit frame=392\n  call main.g\n  ret\nend\n"
                               "func main.g nosplit frame=384\n  ret\nend\n",
                               &p, &err))
      << "792 bytes fit the 800-byte limit: " << err;
  // restartatentry: frameless, no calls, idempotent.
  EXPECT_EQ(ErrorOf("func main.main\n  call main.f\n  ret\nend\nfunc main.f restartatentry frame=16\n  ret\nend\n"),
            "5: main.f: restartatentry needs a frameless function (a restart at the entry would allocate its frame "
            "again)");
  EXPECT_EQ(ErrorOf("func main.main\n  call main.f\n  ret\nend\nfunc main.f restartatentry\n  addi r1, 1\n  ret\nend\n"),
            "6: main.f: restartatentry: it overwrites r1, whose entry value it read (a restart at the entry must be "
            "invisible)");
  EXPECT_EQ(ErrorOf("func main.main\n  call main.f\n  ret\nend\n"
                    "func main.f restartatentry\n  ld r1, g[2]\n  st g[2], r3\n  ret\nend\n"),
            "7: main.f: restartatentry: it overwrites g[2], whose entry value it read (a restart at the entry must be "
            "invisible)");
  EXPECT_EQ(ErrorOf("func main.main\n  call main.f\n  ret\nend\nfunc main.f restartatentry\n  gosched\n  ret\nend\n"),
            "6: main.f: restartatentry: no calls, services, branches, atomics or write barriers (a restart at the "
            "entry must be invisible)");
  EXPECT_TRUE(ir::ParseProgram("func main.main\n  call main.f\n  ret\nend\n"
                               "func main.f restartatentry\n  movi r1, 5\n  addi r1, 1\n  st g[2], r1\n  ret\nend\n",
                               &p, &err))
      << "writes that do not depend on the entry state are idempotent: " << err;
}

}  // namespace
}  // namespace safepoint
