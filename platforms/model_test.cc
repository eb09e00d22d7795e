// Each port's model facts (PortInfo::model, what the decision oracle
// knows) against the code its Lowerer emits, for every port on any host:
// the stack check's length for frames around StackSmall and the 12-bit
// immediate limits, and which operations the port expands through REGTMP
// and how the function table marks them. The oracle reads only the model;
// this test is what keeps the model and the lowering in step.
#include <gtest/gtest.h>

#include <string>

#include "core/ir.h"
#include "platforms/emitter.h"
#include "platforms/port.h"

namespace safepoint {
namespace {

Emitted EmitFor(const PortInfo& p, const std::string& text) {
  ir::Program prog;
  std::string err;
  EXPECT_TRUE(ir::ParseProgram(text, &prog, &err)) << err;
  Emitted e;
  EmitEnv env;
  env.globals = 0x100000;
  env.mcall = 0x200000;
  env.systemstack = 0x300000;
  env.morestack = 0x400000;
  env.vdump = 0x500000;
  env.wbflag = 0x600000;
  for (int i = 0; i < static_cast<int>(ir::Service::kCount); i++) env.service_fn[i] = 0x700000 + 0x100 * i;
  std::unique_ptr<Lowerer> low = NewLowerer(p.name);
  EXPECT_NE(low, nullptr) << p.name;
  if (low) EXPECT_TRUE(Emit(*low, prog, env, &e, &err)) << p.name << ": " << err;
  return e;
}

int InsnsIn(const FuncTable& t, const CodeRange& r) {
  int n = 0;
  for (uint32_t off : t.insns) n += r.contains(off);
  return n;
}

TEST(PortModel, StackCheckLengthIsTheLowerersForEveryFrame) {
  for (const PortInfo* p : AllPorts()) {
    ASSERT_NE(p->model.check_insns, nullptr) << p->name;
    for (int locals : {0, 8, 112, 120, 128, 136, 1000, 2048, 2160, 2168, 2176, 3000, 3960, 4000}) {
      for (bool leaf : {false, true}) {
        if (locals > ir::kMaxFrame) continue;
        std::string fn = "func main.f frame=" + std::to_string(locals) + "\n" + (leaf ? "" : "  call main.g\n") +
                         "  ret\nend\nfunc main.g\n  ret\nend\n";
        Emitted e = EmitFor(*p, fn);
        const FuncInfo* f = e.table.Find("main.f");
        ASSERT_NE(f, nullptr) << p->name;
        if (f->has(kFuncNoCheck)) continue;  // small-frame leaves have no check
        EXPECT_EQ(InsnsIn(e.table, f->prologue), p->model.check_insns(locals, leaf))
            << p->name << ": locals " << locals << (leaf ? ", leaf" : ", non-leaf");
      }
    }
  }
}

// An operation the model says goes through REGTMP is marked in the table as
// the model says (a restartable sequence or an unsafe region); one it says
// does not is neither.
TEST(PortModel, RegtmpExpansionsAreMarkedAsTheModelSays) {
  const char* ops[] = {"ld r1, g[3]", "st g[4], r1", "addi r1, 5", "addi r1, 5000", "muli r1, 3",
                       "dumpregs 20", "vdump 0", "flagsdump g[7]", "mov r1, r2", "add r1, r2"};
  for (const PortInfo* p : AllPorts()) {
    for (const char* op : ops) {
      Emitted e = EmitFor(*p, std::string("func main.f\n  ") + op + "\n  ret\nend\n");
      const FuncInfo* f = e.table.Find("main.f");
      ASSERT_NE(f, nullptr);
      ir::Program prog;
      std::string err;
      ASSERT_TRUE(ir::ParseProgram(std::string("func main.f\n  ") + op + "\n  ret\nend\n", &prog, &err));
      const ir::Insn& in = prog.funcs[0].body[0];
      bool expands = p->model.ExpandsThroughRegtmp(in);
      bool restart = !f->restarts.empty();
      bool unsafe = !f->unsafe.empty();
      if (!expands) {
        EXPECT_FALSE(restart || unsafe) << p->name << ": " << op << " is marked, but the model says no REGTMP";
      } else if (p->model.regtmp_restartable) {
        EXPECT_TRUE(restart && !unsafe) << p->name << ": " << op << " should be restartable";
      } else {
        EXPECT_TRUE(unsafe && !restart) << p->name << ": " << op << " should be an unsafe region";
      }
    }
  }
}

}  // namespace
}  // namespace safepoint
