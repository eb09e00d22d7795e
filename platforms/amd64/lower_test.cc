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

}  // namespace
}  // namespace safepoint
