// The tracee of realgo/tracer_test.cc: a small static program with a few
// functions worth a breakpoint. Mode in argv[1]; prints what the test checks.
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

extern "C" {
// Globals the test reads and writes through the tracer.
volatile long tp_global = 0x1122334455667788L;
volatile int tp_urg_count = 0;
volatile int tp_usr1_count = 0;
volatile long tp_thread_tid = 0;
volatile long tp_calls = 0;

__attribute__((noinline)) long tp_leaf(long x) {
  tp_calls = tp_calls + 1;
  asm volatile("" ::: "memory");
  return x * 2 + 1;
}

__attribute__((noinline)) void tp_print_value(long v) {
  asm volatile("" ::: "memory");
  printf("value=%ld\n", v);
  fflush(stdout);
}

__attribute__((noinline)) void tp_urg_point(void) { asm volatile("" ::: "memory"); }

__attribute__((noinline)) void tp_in_thread(void) { asm volatile("" ::: "memory"); }

static void OnUrg(int) { tp_urg_count = tp_urg_count + 1; }
static void OnUsr1(int) { tp_usr1_count = tp_usr1_count + 1; }

static void* ThreadMain(void*) {
  tp_thread_tid = syscall(SYS_gettid);
  tp_in_thread();
  return nullptr;
}
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "leaf";
  setvbuf(stdout, nullptr, _IONBF, 0);
  if (strcmp(mode, "leaf") == 0) {
    for (long i = 0; i < 3; ++i) printf("leaf(%ld)=%ld\n", i, tp_leaf(i));
    printf("global=%lx\n", static_cast<long>(tp_global));
    tp_print_value(5);
    return 3;
  }
  if (strcmp(mode, "urg") == 0) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = OnUrg;
    sigaction(SIGURG, &sa, nullptr);
    tp_urg_point();
    tp_urg_point();
    printf("urg=%d\n", tp_urg_count);
    return 0;
  }
  if (strcmp(mode, "usr1") == 0) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = OnUsr1;
    sigaction(SIGUSR1, &sa, nullptr);
    raise(SIGUSR1);
    printf("usr1=%d\n", tp_usr1_count);
    return 0;
  }
  if (strcmp(mode, "thread") == 0) {
    pthread_t t;
    if (pthread_create(&t, nullptr, ThreadMain, nullptr) != 0) return 2;
    pthread_join(t, nullptr);
    printf("thread=%ld main=%ld\n", static_cast<long>(tp_thread_tid), static_cast<long>(syscall(SYS_gettid)));
    return 0;
  }
  if (strcmp(mode, "loop") == 0) {  // the round trip benchmark: tp_leaf forever
    for (long i = 0;; ++i) tp_leaf(i);
  }
  if (strcmp(mode, "spin") == 0) {  // never stops by itself
    for (;;) pause();
  }
  fprintf(stderr, "unknown mode %s\n", mode);
  return 2;
}
