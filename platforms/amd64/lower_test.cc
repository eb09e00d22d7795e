// The amd64 Lowerer, checked instruction by instruction against objdump on
// the host: the 9.7.1 functions (a non-leaf with the stack check, a
// small-frame leaf without one), a large frame, frame slots, globals, a
// branch and a service call.
#include "platforms/amd64/lower.h"

#include <gtest/gtest.h>

#include "platforms/common/emit_test_util.h"

namespace safepoint {
namespace {

TEST(Amd64Lower, MatchesObjdump) {
  Emitted e = EmitForTest(*NewAmd64Lowerer(), kLowerTestProgram);
  ExpectDisasm("amd64", e, "main.nonleaf", {
      "cmp rsp,QWORD PTR [r14+0x10]",   // CMPQ SP, 16(R14)
      "jbe 0x25",                       // JLS tail
      "sub rsp,0x10",
      "call 0x3f",                      // main.leaf
      "add rax,0x1",
      "add rsp,0x10",
      "ret",
      "mov QWORD PTR [r14+0x50],rax",   // tail: spill the argument
      "movabs r11,0x4000",
      "call r11",                       // runtime.morestack
      "mov rax,QWORD PTR [r14+0x50]",
      "jmp 0x0",                        // and check again
  });
  ExpectDisasm("amd64", e, "main.leaf", {
      "imul rax,rax,0x3",               // no stack check: small-frame leaf
      "add rax,0x1",
      "ret",
  });
  ExpectDisasm("amd64", e, "main.big", {
      "lea r11,[rsp-0x180]",            // frame 512 > StackSmall: SP-(512-128)
      "cmp r11,QWORD PTR [r14+0x10]",
      "jbe 0xa6",
      "sub rsp,0x200",
      "mov QWORD PTR [rsp+0x1f8],rbx",
      "mov r15,QWORD PTR [rsp+0x0]",
      "movabs r11,0x1018",              // &g[3]
      "mov rcx,QWORD PTR [r11+0x0]",
      "movabs r11,0x1020",              // &g[4]
      "mov QWORD PTR [r11+0x0],r15",
      "test rdx,rdx",
      "jne 0x9e",
      "call 0xcd",                      // runtime.Gosched stub
      "add rsp,0x200",
      "ret",
      "mov QWORD PTR [r14+0x50],rax",
      "movabs r11,0x4000",
      "call r11",
      "mov rax,QWORD PTR [r14+0x50]",
      "jmp 0x4e",
  });
  ExpectDisasm("amd64", e, "main.nosplit", {
      "add rax,0x2",                    // nosplit: no check even with a call
      "call 0x3f",
      "ret",
  });
  ExpectDisasm("amd64", e, "runtime.Gosched", {
      "mov QWORD PTR [r14+0x48],rax",   // operand into g.param
      "movabs rdi,0x10000",             // the C++ service function
      "movabs r11,0x2000",              // mcall
      "jmp r11",
  });
  ExpectTable(e, "main.nonleaf", /*check=*/true, /*nosplit=*/false);
  ExpectTable(e, "main.leaf", false, false);
  ExpectTable(e, "main.big", true, false);
  ExpectTable(e, "main.nosplit", false, true);
}

// vfill and vdump for each tier of extended state the port declares: the
// full width of X0-X15, Y0-Y15, or Z0-Z15 and K0-K7, word w of the tier's
// layout being VectorPattern(SEED, w); then setflags and flagsdump.
std::vector<std::string> VectorOps(int tier) {
  char buf[96];
  auto hex = [&](uint64_t v) {
    snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
    return std::string(buf);
  };
  const int lanes[] = {2, 4, 8};
  const char* wide[] = {"xmm", "ymm", "zmm"};
  std::vector<std::string> want;
  for (int v = 0; v < 16; v++) {
    std::string x = "xmm" + std::to_string(v), n = std::to_string(v);
    auto fill = [&](int w) {  // X(v) = words w, w+1
      want.push_back("movabs r11," + hex(VectorPattern(1, w)));
      want.push_back("movq " + x + ",r11");
      want.push_back("movabs r11," + hex(VectorPattern(1, w + 1)));
      want.push_back("pinsrq " + x + ",r11,0x1");
    };
    for (int c = lanes[tier] / 2 - 1; c >= 1; c--) {
      fill(lanes[tier] * v + 2 * c);
      if (tier == 1) want.push_back("vinsertf128 ymm" + n + ",ymm" + n + "," + x + ",0x1");
      if (tier == 2) want.push_back("vinserti32x4 zmm" + n + ",zmm" + n + "," + x + "," + hex(c));
    }
    fill(lanes[tier] * v);
  }
  if (tier == 2)
    for (int k = 0; k < 8; k++) {
      want.push_back("movabs r11," + hex(VectorPattern(1, 128 + k)));
      want.push_back("kmovq k" + std::to_string(k) + ",r11");
    }
  want.push_back("movabs r11," + hex(TestEnv().vdump + 2 * kVDumpBytes));  // vdump 2
  const char* ptr[] = {"movdqu XMMWORD PTR", "vmovdqu YMMWORD PTR", "vmovdqu64 ZMMWORD PTR"};
  for (int v = 0; v < 16; v++)
    want.push_back(std::string(ptr[tier]) + " [r11+" + hex(8 * lanes[tier] * v) + "]," + wide[tier] + std::to_string(v));
  if (tier == 2)
    for (int k = 0; k < 8; k++) want.push_back("kmovq QWORD PTR [r11+" + hex(1024 + 8 * k) + "],k" + std::to_string(k));
  want.push_back("push 0x8c5");  // setflags 0xAD0A08C5: CF PF ZF SF OF of 0x8D5
  want.push_back("popf");
  want.push_back("movabs r11,0x1038");  // flagsdump g[7]
  want.push_back("pushf");
  want.push_back("pop QWORD PTR [r11]");
  want.push_back("ret");
  return want;
}

TEST(Amd64Lower, VectorsAtFullWidthInEveryTierAndFlags) {
  ir::Program p;
  std::string err;
  ASSERT_TRUE(ir::ParseProgram("func main.vec\n  vfill 1\n  vdump 2\n  setflags 0xAD0A08C5\n  flagsdump g[7]\n"
                               "  ret\nend\n", &p, &err)) << err;
  for (int tier = 0; tier < 3; tier++) {
    EmitEnv env = TestEnv();
    env.xtier = tier;
    Emitted e;
    ASSERT_TRUE(Emit(*NewAmd64Lowerer(), p, env, &e, &err)) << err;
    SCOPED_TRACE("tier " + std::to_string(tier));
    ExpectDisasm("amd64", e, "main.vec", VectorOps(tier));
  }
  // A tier the port does not declare is refused, not emitted.
  EmitEnv env = TestEnv();
  env.xtier = 3;
  Emitted e;
  EXPECT_FALSE(Emit(*NewAmd64Lowerer(), p, env, &e, &err));
  EXPECT_EQ(err, "extended-state tier 3: the port's vfill and vdump know tiers 0..2");
}

// The heap operations, and the frame facts the collector walks stacks by
// (pcsp, slot base, stack map).
TEST(Amd64Lower, HeapOperationsAndFrameFacts) {
  Emitted e = EmitForTest(*NewAmd64Lowerer(), kHeapOpsProgram);
  ExpectDisasm("amd64", e, "main.heap", {
      "cmp rsp,QWORD PTR [r14+0x10]",
      "jbe 0x54",
      "sub rsp,0x10",
      "movabs rax,0x18",
      "call 0x21e",
      "mov rbx,QWORD PTR [rax+0x8]",  // ldm r1, r0, 8
      "mov QWORD PTR [rax+0x10],rbx",
      "movdqu xmm0,XMMWORD PTR [rax+0x0]",  // vload: 16 bytes through X0
      "movdqu XMMWORD PTR [rbx+0xf0],xmm0",
      "mov QWORD PTR [rsp+0x0],rax",  // starg 0: the outgoing-argument area at 0(SP)
      "movabs rbx,0x0",
      "lea rcx,[rsp+0x8]",  // addrslot r2, 8
      "add rsp,0x10",
      "ret",
      "mov QWORD PTR [r14+0x50],rax",
      "movabs r11,0x4000",
      "call r11",
      "mov rax,QWORD PTR [r14+0x50]",
      "jmp 0x0",
  });
  ExpectFrameFacts(e, "main.heap", false, 0, {8});
  Emitted l = EmitForTest(*NewAmd64Lowerer(), kLowerTestProgram);
  ExpectFrameFacts(l, "main.nonleaf", false, 0, {});
}

}  // namespace
}  // namespace safepoint
