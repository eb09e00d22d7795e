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
            "1: unknown function attribute 'bogus' (nosplit, asm, nongo, restartatentry, frame=N)");
  EXPECT_EQ(ErrorOf("func main.main\n  sleep -5\n  ret\nend\n"), "2: sleep: operand must not be negative");
}

}  // namespace
}  // namespace safepoint
