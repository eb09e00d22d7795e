// PLACEHOLDER: the arm64 asyncPreempt printer (see platforms/mkpreempt.cc).
// Until the port has a SavedReg table the runtime treats it as having no
// asynchronous preemption and never injects these.
#include <cstdio>
#include <initializer_list>

#include "platforms/mkpreempt.h"

namespace safepoint {

void PrintPreemptArm64() {
  PrintPreemptBanner("arm64");
  for (const char* fn : {"sp_asyncPreempt", "sp_asyncPreempt_simd", "sp_asyncPreempt_drop1"})
    printf("\t.globl %s\n\t.type %s, @function\n%s:\n\tbrk #0\n\t.size %s, .-%s\n", fn, fn, fn, fn, fn);
}

}  // namespace safepoint
