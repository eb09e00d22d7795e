// One meaning per operation, on every port: programs of every portable IR
// operation run on this port's runtime and must leave exactly the globals
// the port-independent interpreter (oracle/semantics.h) says. Run on every
// config, this makes the ports agree with each other.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "oracle/semantics.h"
#include "runtime/runtime.h"

namespace safepoint {
namespace {

void ExpectSameAsTheInterpreter(const std::string& name, const std::string& text) {
  ir::Program prog;
  std::string err;
  ASSERT_TRUE(ir::ParseProgram(text, &prog, &err)) << name << ": " << err;
  std::vector<uint64_t> want;
  ASSERT_TRUE(oracle::Interpret(prog, "main.main", &want, &err)) << name << ": " << err;
  for (int procs : {1, 2}) {
    RuntimeOptions o;
    o.settings.gomaxprocs = procs;
    Runtime rt(std::move(o));
    ASSERT_TRUE(rt.Load(prog, &err) && rt.Run("main.main", &err)) << name << ": " << err;
    for (int g = 0; g < ir::kGlobals; g++)
      EXPECT_EQ(rt.global(g), want[g]) << name << ": g[" << g << "] at GOMAXPROCS=" << procs;
  }
}

TEST(Semantics, EveryPortableOperationMeansWhatTheInterpreterSays) {
  ExpectSameAsTheInterpreter("every operation", R"(
func main.main frame=32
  movi r1, 0x123456789abcdef0
  movi r2, -5
  addi r2, 100000
  addi r2, -7
  muli r2, -3
  muli r1, 65537
  mov r3, r1
  add r3, r2
  st g[1], r1
  st g[2], r2
  st g[3], r3
  stslot 8, r3
  stslot 24, r2
  ldslot r4, 8
  st g[4], r4
  movi r5, 10
  movi r6, 0
loop:
  add r6, r5
  addi r5, -1
  jnz r5, loop
  st g[5], r6
  jz r6, never
  movi r7, 3
  atomic_add g[6], r7
  atomic_add g[6], r7
  st g[7], r7
  wb_store g[8], r7
  usetmp r7
  st g[9], r7
  inline runtime.add
  addi r7, 1
  endinline
  movi r0, 0
  movi r8, 8
  movi r9, -9
  movi r10, 0x7fffffff
  movi r11, 0xffffffffffffffff
  dumpregs 20
  movi r0, 6
  call main.sum
  st g[10], r0
  gosched
  acquirem
  releasem
  ld r8, g[10]
  addi r8, 2147483647
  muli r8, -2147483648
  st g[11], r8
  ldslot r9, 24
  st g[12], r9
  ret
never:
  ret
end
func main.sum frame=16
  jz r0, zero
  stslot 0, r0
  addi r0, -1
  call main.sum
  ldslot r1, 0
  add r0, r1
zero:
  ret
end
)");
}

// The built-in sweep program, without its port-dependent operations (the
// register file, vectors and flags) and goroutines: what remains must mean
// the same everywhere.
TEST(Semantics, TheSweepProgramsPortableOperations) {
  ExpectSameAsTheInterpreter("regions and callees", R"(
func main.main frame=16
  call main.regions
  call main.callees
  movi r0, 40
  call main.rec
  st g[30], r0
  ret
end
func main.regions frame=16
  acquirem
  movi r1, 1
  atomic_add g[24], r1
  releasem
  mallocing_begin
  movi r1, 1
  atomic_add g[24], r1
  mallocing_end
  preemptoff_begin
  movi r1, 1
  atomic_add g[24], r1
  preemptoff_end
  secret_begin
  movi r1, 1
  atomic_add g[24], r1
  secret_end
  entersyscall
  movi r1, 1
  atomic_add g[24], r1
  exitsyscall
  ret
end
func main.callees frame=16
  call main.asmf
  call main.foreign
  call main.nosp
  call runtime.helper
  call main.again
  ret
end
func main.asmf asm
  movi r1, 1
  st g[25], r1
  ret
end
func main.foreign nongo
  movi r1, 2
  st g[26], r1
  ret
end
func main.nosp nosplit
  movi r0, 2
  call main.leaf
  st g[27], r0
  ret
end
func main.leaf
  muli r0, 3
  addi r0, 1
  ret
end
func runtime.helper
  movi r1, 4
  st g[28], r1
  ret
end
func main.again restartatentry
  movi r1, 9
  st g[29], r1
  ret
end
func main.rec frame=48
  jz r0, done
  stslot 0, r0
  addi r0, -1
  call main.rec
  ldslot r1, 0
  add r0, r1
done:
  ret
end
)");
}

// The interpreter refuses what it cannot define the same for every port.
TEST(Semantics, TheInterpreterRefusesWhatIsNotPortable) {
  ir::Program prog;
  std::string err;
  std::vector<uint64_t> g;
  ASSERT_TRUE(ir::ParseProgram("func main.main\n  fillregs 3\n  ret\nend\n", &prog, &err));
  EXPECT_FALSE(oracle::Interpret(prog, "main.main", &g, &err));
  EXPECT_EQ(err, "2: an operation whose result depends on the port (registers, vectors, flags)");
  ASSERT_TRUE(ir::ParseProgram("func main.main\n  movi r2, 1\n  call main.f\n  st g[1], r2\n  ret\nend\n"
                               "func main.f\n  ret\nend\n",
                               &prog, &err));
  EXPECT_FALSE(oracle::Interpret(prog, "main.main", &g, &err));
  EXPECT_EQ(err, "4: reads r2, which a call clobbered");
}

}  // namespace
}  // namespace safepoint
