// mkpreempt: prints a port's asyncPreempt assembly from its register-layout
// table (PortInfo::saved_regs), as Go's mkpreempt.go does, so the table the
// tests read and the code that saves registers cannot disagree.
//
//   mkpreempt PORT > preempt_PORT.S
//
// Contract of the generated code (every port): entered through pushCall with
// the resume PC as return address (amd64: on the stack; arm64/loong64: in
// LR/RA, the old LR/RA saved on the stack by pushCall); saves every general
// register and the flags on the goroutine stack and every vector register
// in the current P's scratch area; calls sp_mcall with
// sp_asyncpreempt2_g0 (asyncPreempt2: it switches to g0 at once); when the
// goroutine is resumed there (possibly on another M and P, whose scratch
// area execute() refilled from the G's extended state), restores everything
// in reverse and returns to the resume PC.
#include <cstdio>
#include <cstring>
#include <string>

#include "platforms/mkpreempt.h"

namespace safepoint {
namespace {

int Generate(const std::string& port) {
  if (port == "amd64") {
    PrintPreemptAmd64();
  } else if (port == "arm64") {
    PrintPreemptArm64();
  } else if (port == "loong64") {
    PrintPreemptLoong64();
  } else {
    fprintf(stderr, "mkpreempt: no generator for port '%s'\n", port.c_str());
    return 2;
  }
  printf("\t.section .note.GNU-stack,\"\",@progbits\n");
  return 0;
}

}  // namespace
}  // namespace safepoint

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: mkpreempt PORT\n");
    return 2;
  }
  return safepoint::Generate(argv[1]);
}
