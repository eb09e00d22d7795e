// The generator's coverage (harness/generator.h, GeneratorCoverage): every
// operation, attribute, control and pointer shape and frame band, counted
// from the text of the programs the property test's seeds make and of the
// programs the preemption fuzzer's decoder makes (its checked-in corpus and
// a fixed number of pseudo-random inputs), with the request sources a
// fuzzer input chooses, with and without a collection at the preemption.
// Fails, printing the table, when a row is at zero. Then, per port, the
// frame sizes where the port's Lowerer changes the shape of a frame's code
// (its stack check, prologue or epilogue), each at and just past, among the
// generated frames; and, run on this port, that the pointer shapes really
// move the stack (a growth and a shrink while main holds a pointer into it).
//
// SAFEPOINT_PROPERTY_PROGRAMS sets the seeds, as for the property test.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/events.h"
#include "core/files.h"
#include "harness/armed.h"
#include "harness/generator.h"
#include "oracle/preempt_case.h"
#include "platforms/emitter.h"
#include "platforms/native.h"
#include "platforms/port.h"
#include "runtime/runtime.h"

namespace safepoint {
namespace {

constexpr int kRandomInputs = 1000;

int Seeds() {
  const char* env = getenv("SAFEPOINT_PROPERTY_PROGRAMS");
  return env ? atoi(env) : 200;  // the property test's default
}

std::vector<std::string> CorpusInputs() {
  const char* src = getenv("TEST_SRCDIR");
  std::vector<std::string> out;
  for (auto& [name, bytes] : ReadFilesIn(std::string(src ? src : ".") + "/safepoint/fuzz/corpus/preempt"))
    out.push_back(std::move(bytes));
  return out;
}

struct Reports {
  harness::GeneratorCoverage seeds, fuzz;
  size_t corpus = 0;
};

const Reports& Compute() {
  static Reports* r = [] {
    auto* r = new Reports;
    std::string err;
    for (int seed = 1; seed <= Seeds(); seed++) {
      std::string text = harness::GenerateProgram(seed);
      if (!r->seeds.Add(text, &err)) ADD_FAILURE() << "seed " << seed << ": " << err << "\n" << text;
    }
    std::vector<std::string> inputs = CorpusInputs();
    r->corpus = inputs.size();
    for (std::string& in : oracle::CoverageRandomInputs(kRandomInputs)) inputs.push_back(std::move(in));
    if (!oracle::AddDecoderCoverage(inputs, &r->fuzz, &err)) ADD_FAILURE() << err;
    return r;
  }();
  return *r;
}

TEST(GeneratorCoverage, EveryRowIsReachedByTheSeedsAndByTheFuzzersDecoder) {
  const Reports& r = Compute();
  ASSERT_GT(r.corpus, 0u) << "no fuzz/corpus/preempt inputs in the runfiles";
  printf("the generator's coverage: programs with each shape, of %d property-test seeds and of the preemption "
         "fuzzer's decoder over its %zu corpus inputs and %d pseudo-random ones (port %s)\n%s",
         Seeds(), r.corpus, kRandomInputs, std::string(NativePort().name).c_str(),
         harness::CoverageTable({{"seeds", &r.seeds}, {"fuzz", &r.fuzz}}).c_str());
  for (const std::string& g : r.seeds.Gaps()) ADD_FAILURE() << "no seed's program has " << g;
  for (const std::string& g : r.fuzz.Gaps()) ADD_FAILURE() << "no decoded input's program has " << g;
  for (int s = 0; s < harness::kRequestSources; s++)
    for (const char* collect : {", a collection at the preemption", ", no collection"}) {
      std::string row = std::string(harness::RequestSourceName(static_cast<harness::RequestSource>(s))) + collect;
      EXPECT_GT(r.fuzz.Get("request", row), 0) << "no decoded input asks " << row;
    }
}

// The instructions of a frame's stack check, prologue and epilogue on one
// port, for `locals` bytes of locals.
std::vector<size_t> FrameShape(Lowerer& low, int locals, bool leaf) {
  ir::Function f;
  f.name = "main.f", f.package = "main", f.frame = locals;
  FuncCtx ctx{&f, low.FrameSize(locals, leaf), true, 0, 0, leaf};
  Asm check, setup, ret;
  ctx.tail_label = check.NewLabel(), ctx.entry_label = check.NewLabel();
  low.StackCheck(check, ctx);
  low.FrameSetup(setup, ctx);
  ir::Insn r;
  r.op = ir::Op::kRet;
  EmitEnv env;
  low.Lower(ret, ctx, r, -1, -1, env);
  return {check.insns().size(), setup.insns().size(), ret.insns().size()};
}

TEST(GeneratorCoverage, EveryPortsFrameLimitsAreAmongTheGeneratedFrames) {
  const Reports& r = Compute();
  for (const PortInfo* port : AllPorts()) {
    std::unique_ptr<Lowerer> low = NewLowerer(port->name);
    ASSERT_TRUE(low) << port->name;
    std::string limits;
    for (bool leaf : {true, false}) {
      std::vector<size_t> prev = FrameShape(*low, 0, leaf);
      for (int locals = 8; locals <= ir::kMaxFrame; locals += 8) {
        std::vector<size_t> cur = FrameShape(*low, locals, leaf);
        if (cur == prev) continue;
        prev = cur;
        // locals - 8 is the last frame of the one shape, locals the first of the next.
        limits += " " + std::to_string(locals - 8) + (leaf ? "(leaf)" : "");
        for (int at : {locals - 8, locals}) {
          EXPECT_GT(r.seeds.Frames(at, leaf), 0)
              << port->name << ": the frame's code changes between " << locals - 8 << " and " << locals
              << " bytes of locals (" << (leaf ? "leaf" : "non-leaf") << "), and no seed's program has a "
              << (leaf ? "leaf" : "non-leaf") << " frame of " << at << " (harness::kGeneratorFrameLimits)";
          EXPECT_GT(r.fuzz.Frames(at, leaf), 0)
              << port->name << ": no decoded input's program has a " << (leaf ? "leaf" : "non-leaf") << " frame of "
              << at;
        }
      }
    }
    printf("%s: the last frame (locals) of each shape of its frame code:%s\n", std::string(port->name).c_str(),
           limits.c_str());
  }
}

// The pointer shapes do what their rows say on this port: in the first
// seeds' programs that keep a pointer into main's stack across a growing
// call and a collection, main's stack grows and shrinks, and each ends as
// the interpreter says (the property test checks the end state of all).
TEST(GeneratorCoverage, ThePointerShapesMoveTheStackOnThisPort) {
  int ran = 0, grew = 0, shrank = 0;
  for (int seed = 1; seed <= Seeds() && ran < 3; seed++) {
    std::string text = harness::GenerateProgram(seed);
    harness::GeneratorCoverage one;
    std::string err;
    ASSERT_TRUE(one.Add(text, &err)) << err;
    if (one.Get("pointer",
                "a stack address in a declared pointer slot across a collection (gc), read through") == 0 ||
        one.Get("pointer", "a stack address kept in r0 across a call that grows the stack, read through") == 0)
      continue;
    ir::Program prog;
    ASSERT_TRUE(ir::ParseProgram(text, &prog, &err)) << err;
    RuntimeOptions o;
    o.settings.gomaxprocs = 1;
    Runtime rt(std::move(o));
    ASSERT_TRUE(rt.Load(prog, &err) && rt.Run("main.main", &err)) << "seed " << seed << ": " << err << "\n" << text;
    ran++;
    size_t g = 0, s = 0;
    for (const Event& e : rt.events().Snapshot()) {
      if (e.goid != 1) continue;
      g += e.kind == Ev::kGrow;
      s += e.kind == Ev::kShrink;
    }
    grew += g > 0, shrank += s > 0;
    printf("seed %d: main's stack grew %zu times and shrank %zu times\n", seed, g, s);
  }
  EXPECT_EQ(ran, 3) << "fewer than 3 seeds have both pointer shapes";
  EXPECT_EQ(grew, ran) << "a program whose pointer shapes should grow main's stack did not";
  EXPECT_EQ(shrank, ran) << "a program whose collection should shrink main's stack did not";
}

}  // namespace
}  // namespace safepoint
