// One meaning per operation, on every port: programs of every portable IR
// operation run on this port's runtime and must leave exactly the globals
// the port-independent interpreter (oracle/semantics.h) says. Run on every
// config, this makes the ports agree with each other.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "harness/runtime_under_test.h"
#include "harness/scenario.h"
#include "harness/sweep.h"
#include "oracle/semantics.h"
#include "runtime/runtime.h"

namespace safepoint {
namespace {

void ExpectSameAsTheInterpreter(const std::string& name, const ir::Program& prog) {
  std::string err;
  std::vector<uint64_t> want;
  ASSERT_TRUE(oracle::Interpret(prog, "main.main", &want, &err)) << name << ": " << err;
  for (int procs : {1, 2}) {
    RuntimeOptions o;
    o.settings.gomaxprocs = procs;
    Runtime rt(std::move(o));
    ASSERT_TRUE(rt.Load(prog, &err) && harness::RunBounded(rt, "main.main", &err)) << name << ": " << err;
    for (int g = 0; g < ir::kGlobals; g++)
      EXPECT_EQ(rt.global(g), want[g]) << name << ": g[" << g << "] at GOMAXPROCS=" << procs;
  }
}

void ExpectSameAsTheInterpreter(const std::string& name, const std::string& text) {
  ir::Program prog;
  std::string err;
  ASSERT_TRUE(ir::ParseProgram(text, &prog, &err)) << name << ": " << err;
  ExpectSameAsTheInterpreter(name, prog);
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

// The built-in sweep program, without its port-dependent part (main.arith:
// the register file, vectors and flags) and its second goroutine: what
// remains must mean the same everywhere.
TEST(Semantics, TheSweepProgramsPortableOperations) {
  ir::Program full, prog;
  std::string err;
  ASSERT_TRUE(ir::ParseProgram(harness::BuiltinSweepProgram(), &full, &err)) << err;
  for (const ir::Function& f : full.funcs) {
    if (f.name == "main.arith" || f.name == "main.worker") continue;
    ir::Function g = f;
    g.body.clear();
    for (const ir::Insn& in : f.body) {
      bool goroutines = in.op == ir::Op::kService && (in.service == ir::Service::kGo || in.service == ir::Service::kWait);
      bool arith = in.op == ir::Op::kCall && in.target == "main.arith";
      if (!goroutines && !arith) g.body.push_back(in);
    }
    prog.funcs.push_back(g);
  }
  ASSERT_TRUE(ir::Validate(prog, &err)) << err;
  ExpectSameAsTheInterpreter("the sweep program", prog);
}

// The heap operations: objects, words through base registers, a block
// through the vector registers.
TEST(Semantics, HeapOperationsMeanTheSameEverywhere) {
  ExpectSameAsTheInterpreter("heap operations", R"(
func main.main frame=16 ptrs=0
  alloc 32
  stslot 0, r0
  movi r1, 11
  stm r0, 0, r1
  movi r1, 22
  stm r0, 8, r1
  alloc 16
  ldslot r2, 0
  vload r2, 0
  vstore r0, 0
  ldm r3, r0, 0
  ldm r4, r0, 8
  st g[1], r3
  st g[2], r4
  stm r2, 24, r4
  ldm r5, r2, 24
  st g[3], r5
  drop r5
  st g[4], r5
  ret
end
)");
  // The collection sweep's program, its register fills spelled as the
  // moves they are (fillregs reaches every allocatable register: port data).
  ir::Program prog;
  std::string err;
  ASSERT_TRUE(ir::ParseProgram(harness::BuiltinHeapSweepProgram(), &prog, &err)) << err;
  for (ir::Function& f : prog.funcs) {
    std::vector<ir::Insn> body;
    for (const ir::Insn& in : f.body) {
      if (in.op != ir::Op::kFillRegs) {
        body.push_back(in);
        continue;
      }
      for (int k = 0; k < ir::kPortableRegs; k++) {
        ir::Insn m = in;
        m.op = ir::Op::kMovi, m.rd = k, m.imm = in.imm + k;
        body.push_back(m);
      }
    }
    f.body = body;
  }
  ExpectSameAsTheInterpreter("the collection sweep's program", prog);
}

// Where the code may run, as the interpreter ran it (oracle::MayRun, what
// the preemption fuzzer answers never-reached instructions by): the
// operations run and not run, a function called and one never called, the
// services called and not, and a goroutine a `go` starts, all of which may
// run (whenever it does). Each claim is checked against a run as well: an
// instruction said never run is armed, and the run must not reach it.
TEST(Semantics, TheInterpreterSaysWhereTheCodeMayRun) {
  ir::Program prog;
  std::string err;
  ASSERT_TRUE(ir::ParseProgram(R"(
func main.main frame=16
  movi r1, 0
  jz r1, over
  call main.never
over:
  call main.once
  go main.spin
  movi r2, 7
  st g[1], r2
  ret
end
func main.once frame=16
  gosched
  ret
end
func main.never frame=16
  sleep 10
  ret
end
func main.spin frame=0
  movi r1, 3
  addi r1, 1
  ret
end
)", &prog, &err)) << err;
  std::vector<uint64_t> g;
  std::vector<uint8_t> vdump;
  oracle::MayRun may;
  ASSERT_TRUE(oracle::InterpretEndState(prog, "main.main", oracle::VectorLayout{}, &g, &vdump, &err, 1000, &may)) << err;
  auto index = [&](const std::string& name) { return static_cast<size_t>(prog.Find(name) - prog.funcs.data()); };
  const size_t main_fn = index("main.main"), once = index("main.once"), never = index("main.never"), spin = index("main.spin");
  ASSERT_EQ(may.entered.size(), prog.funcs.size());
  EXPECT_TRUE(may.entered[main_fn]);
  EXPECT_TRUE(may.entered[once]);
  EXPECT_FALSE(may.entered[never]);
  EXPECT_TRUE(may.entered[spin]) << "a goroutine a go starts may run";
  EXPECT_EQ(may.ops[spin], std::vector<bool>(prog.funcs[spin].body.size(), true));
  EXPECT_EQ(may.ops[never], std::vector<bool>(prog.funcs[never].body.size(), false));
  // main's `call main.never` (operation 2) was jumped over; the rest ran
  // (but the label jumped to, which is no instruction).
  ASSERT_EQ(prog.funcs[main_fn].body[2].op, ir::Op::kCall);
  EXPECT_FALSE(may.ops[main_fn][2]);
  for (size_t i = 0; i < may.ops[main_fn].size(); i++)
    if (i != 2 && prog.funcs[main_fn].body[i].op != ir::Op::kLabel)
      EXPECT_TRUE(may.ops[main_fn][i]) << "main's operation " << i;
  EXPECT_TRUE(may.services[static_cast<size_t>(ir::Service::kGosched)]);
  EXPECT_TRUE(may.services[static_cast<size_t>(ir::Service::kGo)]);
  EXPECT_TRUE(may.services[static_cast<size_t>(ir::Service::kGoexit)]) << "every goroutine ends in goexit";
  EXPECT_FALSE(may.services[static_cast<size_t>(ir::Service::kSleep)]);
  // The run agrees: armed at each instruction of main.never and of the
  // sleep stub, it reaches none; armed at main.once's first, it does.
  Runtime loaded(RuntimeOptions{});
  ASSERT_TRUE(loaded.Load(prog, &err)) << err;
  const FuncTable table = loaded.table();
  int armed = 0;
  for (size_t k = 0; k < table.insns.size(); k++) {
    const FuncInfo* f = table.Find(table.insns[k]);
    ASSERT_NE(f, nullptr);
    const bool in_never = f->name == "main.never", in_sleep = f->name == ir::ServiceSymbol(ir::Service::kSleep);
    const bool first_of_once = f->name == "main.once" && table.insns[k] == f->entry;
    if (!in_never && !in_sleep && !first_of_once) continue;
    harness::Observation o;
    ASSERT_TRUE(harness::ObserveAt(prog, "main.main", harness::ReferenceRuntimeFactory(RuntimeOptions{}), table, k, &o));
    ASSERT_TRUE(o.ran) << o.run_error;
    EXPECT_EQ(o.trapped, first_of_once) << f->name << "+" << (table.insns[k] - f->entry);
    armed++;
  }
  EXPECT_GE(armed, 4);
}

// The interpreter refuses what it cannot define the same for every port.
TEST(Semantics, TheInterpreterRefusesWhatIsNotPortable) {
  ir::Program prog;
  std::string err;
  std::vector<uint64_t> g;
  ASSERT_TRUE(ir::ParseProgram("func main.main\n  flagsdump g[3]\n  ret\nend\n", &prog, &err));
  EXPECT_FALSE(oracle::Interpret(prog, "main.main", &g, &err));
  EXPECT_EQ(err, "2: an operation whose result depends on the port (registers, vectors, flags)");
  ASSERT_TRUE(ir::ParseProgram("func main.main\n  fillregs 3\n  st g[1], r4\n  ret\nend\n", &prog, &err));
  EXPECT_FALSE(oracle::Interpret(prog, "main.main", &g, &err));
  EXPECT_EQ(err, "3: reads r4, which holds the port's own value (fillregs, sumregs)");
  ASSERT_TRUE(ir::ParseProgram("func main.main\n  wait 3\n  ret\nend\n", &prog, &err));
  EXPECT_FALSE(oracle::Interpret(prog, "main.main", &g, &err));
  ASSERT_TRUE(ir::ParseProgram("func main.main frame=16\n  addrslot r1, 8\n  ldm r2, r1, 0\n  ret\nend\n", &prog, &err));
  EXPECT_FALSE(oracle::Interpret(prog, "main.main", &g, &err));
  EXPECT_EQ(err, "3: reads a frame slot through its address before storing it");
  ASSERT_TRUE(ir::ParseProgram("func main.main\n  movi r2, 1\n  call main.f\n  st g[1], r2\n  ret\nend\n"
                               "func main.f\n  ret\nend\n",
                               &prog, &err));
  EXPECT_FALSE(oracle::Interpret(prog, "main.main", &g, &err));
  EXPECT_EQ(err, "4: reads r2, which a call clobbered");
}

}  // namespace
}  // namespace safepoint
