// Each port's model facts (PortInfo::model, what the decision oracle
// knows) against the code its Lowerer emits, for every port on any host:
// the stack check's length for frames around StackSmall and the 12-bit
// immediate limits, and which operations the port expands through REGTMP
// and how the function table marks them. The oracle reads only the model;
// this test is what keeps the model and the lowering in step.
#include <gtest/gtest.h>

#include <iterator>
#include <memory>
#include <string>
#include <vector>

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

// An emission depends on its environment and nothing else, on any host:
// emitted twice against one environment, a program is the same code and
// table (a native fuzzing driver emits for an emulated port's runtime
// against the environment that runtime reported: fuzz/case_protocol.h).
// Two environments are the same only when every field is, the port by its
// name.
TEST(PortModel, AnEmissionIsItsEnvironmentsAlone) {
  const std::string text = "func main.main frame=16\n  movi r0, 7\n  st g[3], r0\n  call main.f\n  ret\nend\n"
                           "func main.f frame=0\n  ld r1, g[3]\n  wb_store g[4], r1\n  vfill 1\n  vdump 0\n  ret\nend\n";
  for (const PortInfo* p : AllPorts()) {
    Emitted a = EmitFor(*p, text), b = EmitFor(*p, text);
    EXPECT_FALSE(a.code.empty()) << p->name;
    EXPECT_EQ(a.code, b.code) << p->name;
    EXPECT_EQ(a.table.insns, b.table.insns) << p->name;
    EXPECT_EQ(a.goexit, b.goexit) << p->name;
  }
  EmitEnv e;
  e.globals = 1, e.mcall = 2, e.systemstack = 3, e.morestack = 4, e.vdump = 5, e.xtier = 1, e.wbflag = 6;
  e.isolate = 4096, e.port = AllPorts()[0];
  for (size_t i = 0; i < std::size(e.service_fn); i++) e.service_fn[i] = 100 + i;
  PortInfo copy = *AllPorts()[0];  // another object, the same port
  EmitEnv same = e;
  same.port = &copy;
  EXPECT_TRUE(SameEmitEnv(e, same));
  std::vector<void (*)(EmitEnv&)> changes = {
      [](EmitEnv& x) { x.globals++; },      [](EmitEnv& x) { x.mcall++; },
      [](EmitEnv& x) { x.systemstack++; },  [](EmitEnv& x) { x.morestack++; },
      [](EmitEnv& x) { x.service_fn[0]++; }, [](EmitEnv& x) { x.service_fn[std::size(x.service_fn) - 1]++; },
      [](EmitEnv& x) { x.vdump++; },        [](EmitEnv& x) { x.xtier++; },
      [](EmitEnv& x) { x.wbflag++; },       [](EmitEnv& x) { x.omit_stack_check = !x.omit_stack_check; },
      [](EmitEnv& x) { x.isolate = 32; },   [](EmitEnv& x) { x.port = nullptr; },
  };
  if (AllPorts().size() > 1) changes.push_back([](EmitEnv& x) { x.port = AllPorts()[1]; });
  for (size_t i = 0; i < changes.size(); i++) {
    EmitEnv d = e;
    changes[i](d);
    EXPECT_FALSE(SameEmitEnv(e, d)) << "change " << i;
    EXPECT_FALSE(SameEmitEnv(d, e)) << "change " << i;
  }
}

// vfill and vdump know exactly the tiers of extended state the port
// declares: every tier is emitted, and one beyond is refused by the driver.
TEST(PortModel, VectorTiersAreThePortsTiers) {
  ir::Program prog;
  std::string err;
  ASSERT_TRUE(ir::ParseProgram("func main.main\n  vfill 3\n  vdump 1\n  ret\nend\n", &prog, &err)) << err;
  for (const PortInfo* p : AllPorts()) {
    std::unique_ptr<Lowerer> low = NewLowerer(p->name);
    ASSERT_NE(low, nullptr) << p->name;
    EXPECT_EQ(low->VectorTiers(), static_cast<int>(p->tiers.size())) << p->name;
    for (int t = 0; t <= static_cast<int>(p->tiers.size()); t++) {
      EmitEnv env;
      env.port = p;
      env.xtier = t;
      Emitted e;
      EXPECT_EQ(Emit(*low, prog, env, &e, &err), t < static_cast<int>(p->tiers.size())) << p->name << " tier " << t;
    }
  }
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

// The declared branch reach is the Lowerer's: a branch to exactly the reach,
// forward and (where the code to hold it is small enough to build) back, is
// encoded; one 16 bytes beyond it is not (amd64's rel32 counts from the end of the
// instruction, so its forward reach is a few bytes longer than its back).
TEST(PortModel, BranchReachIsTheLowerers) {
  struct Kind {
    const char* text;
    bool cond;
  } kinds[] = {{"jnz r1, L", true}, {"jz r1, L", true}, {"jmp L", false}};
  for (const PortInfo* p : AllPorts()) {
    for (const Kind& k : kinds) {
      int64_t reach = k.cond ? p->model.branch_reach.cond : p->model.branch_reach.jump;
      ASSERT_GT(reach, 0) << p->name;
      for (bool back : {false, true}) {
        if (back && reach > (int64_t{1} << 23)) continue;  // 128 MiB and 2 GiB of code: forward only
        ir::Program prog;
        std::string err;
        ASSERT_TRUE(ir::ParseProgram(std::string("func main.f\n  ") + k.text + "\nL:\n  ret\nend\n", &prog, &err));
        std::unique_ptr<Lowerer> low = NewLowerer(p->name);
        ASSERT_NE(low, nullptr);
        const ir::Function& fn = prog.funcs[0];
        FuncCtx ctx{&fn, low->FrameSize(0, true), false, -1, -1, true};
        Asm a;
        int label = a.NewLabel();
        if (back) a.code().resize(static_cast<size_t>(reach) + 16);  // room behind the branch
        low->Lower(a, ctx, fn.body[0], label, -1, EmitEnv{});
        ASSERT_EQ(a.fixups().size(), 1u) << p->name << ": " << k.text;
        Asm::Fixup f = a.fixups().back();
        uint32_t at = f.at;  // the branch instruction (amd64's jnz tests the register first)
        int64_t sign = back ? -1 : 1;
        auto target = [&](int64_t d) { return static_cast<uint32_t>(static_cast<int64_t>(at) + sign * d); };
        EXPECT_TRUE(low->Resolve(a, f, target(reach), &err))
            << p->name << ": " << k.text << (back ? " back " : " forward ") << reach << " bytes: " << err;
        EXPECT_FALSE(low->Resolve(a, f, target(reach + 16), &err))
            << p->name << ": " << k.text << (back ? " back " : " forward ") << reach + 16
            << " bytes was encoded: the declared reach is too small";
      }
    }
  }
}

// A branch beyond the declared reach is refused by the emitter with its IR
// line, the same way on every port (a reach shrunk to 64 bytes, so that
// every port's refusal is reachable by a small program).
TEST(PortModel, ABranchBeyondTheReachIsRefusedWithItsLine) {
  std::string body;
  for (int i = 0; i < 40; i++) body += "  movi r2, 0x123456789abcdef\n";
  const std::string text = "func main.f\n  movi r1, 1\n  jnz r1, far\n" + body + "far:\n  jmp back\nback:\n  ret\nend\n";
  ir::Program prog;
  std::string err;
  ASSERT_TRUE(ir::ParseProgram(text, &prog, &err)) << err;
  for (const PortInfo* p : AllPorts()) {
    std::unique_ptr<Lowerer> low = NewLowerer(p->name);
    ASSERT_NE(low, nullptr);
    EmitEnv env;
    env.port = p;
    Emitted e;
    EXPECT_TRUE(Emit(*low, prog, env, &e, &err)) << p->name << ": within the declared reach: " << err;
    PortInfo shrunk = *p;
    shrunk.model.branch_reach = {64, 1 << 20};
    env.port = &shrunk;
    EXPECT_FALSE(Emit(*low, prog, env, &e, &err)) << p->name;
    EXPECT_EQ(err.rfind("line 3: jnz far spans ", 0), 0u) << p->name << ": " << err;
    EXPECT_NE(err.find(" bytes of " + std::string(p->name) + " code; its conditional branches reach 64 bytes"),
              std::string::npos)
        << err;
  }
}

}  // namespace
}  // namespace safepoint
