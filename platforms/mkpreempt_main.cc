// mkpreempt PORT > platforms/PORT/preempt.S (see platforms/mkpreempt.cc).
#include <cstdio>

#include "platforms/mkpreempt.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: mkpreempt PORT > platforms/PORT/preempt.S\n");
    return 2;
  }
  if (!safepoint::PrintPreempt(argv[1])) {
    fprintf(stderr, "mkpreempt: no asyncPreempt spelling for port '%s'\n", argv[1]);
    return 2;
  }
  return 0;
}
