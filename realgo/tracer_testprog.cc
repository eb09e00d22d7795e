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

// The vector-register test: tp_vec loads tp_vec_in into the floating-point /
// vector registers, stops at tp_vec_stop (a global label on a no-op, where
// the test puts its breakpoint), then stores them to tp_vec_out, and puts
// back what they held before. Layout of both (little-endian): amd64 xmm i at
// 16i, mxcsr at 256; arm64 v i at 16i, fpsr at 512, fpcr at 520 (8-byte
// slots); loong64 f i at 8i, fcc i at 256+i, fcsr at 264; riscv64 f i at
// 8i, fcsr at 256.
alignas(16) unsigned char tp_vec_in[1024];
alignas(16) unsigned char tp_vec_out[1024];
alignas(16) unsigned char tp_vec_save[1024];

#if defined(__x86_64__)
#define TP_VREGS(M) \
  M("0", "0") M("1", "16") M("2", "32") M("3", "48") M("4", "64") M("5", "80") \
  M("6", "96") M("7", "112") M("8", "128") M("9", "144") M("10", "160") M("11", "176") \
  M("12", "192") M("13", "208") M("14", "224") M("15", "240")
__attribute__((noinline)) void tp_vec(void) {
#define M(n, off) "movups %%xmm" n ", " off "(%[save])\n"
  asm volatile(TP_VREGS(M) "stmxcsr 256(%[save])\n"
#undef M
#define M(n, off) "movups " off "(%[in]), %%xmm" n "\n"
               TP_VREGS(M) "ldmxcsr 256(%[in])\n"
               ".globl tp_vec_stop\n"
               "tp_vec_stop: nop\n"
#undef M
#define M(n, off) "movups %%xmm" n ", " off "(%[out])\n"
               TP_VREGS(M) "stmxcsr 256(%[out])\n"
#undef M
#define M(n, off) "movups " off "(%[save]), %%xmm" n "\n"
               TP_VREGS(M) "ldmxcsr 256(%[save])\n"
#undef M
               :
               : [in] "r"(tp_vec_in), [out] "r"(tp_vec_out), [save] "r"(tp_vec_save)
               : "memory");
}
#elif defined(__aarch64__)
#define TP_VREGS(M) \
  M("0", "0") M("1", "16") M("2", "32") M("3", "48") M("4", "64") M("5", "80") \
  M("6", "96") M("7", "112") M("8", "128") M("9", "144") M("10", "160") M("11", "176") \
  M("12", "192") M("13", "208") M("14", "224") M("15", "240") M("16", "256") M("17", "272") \
  M("18", "288") M("19", "304") M("20", "320") M("21", "336") M("22", "352") M("23", "368") \
  M("24", "384") M("25", "400") M("26", "416") M("27", "432") M("28", "448") M("29", "464") \
  M("30", "480") M("31", "496")
__attribute__((noinline)) void tp_vec(void) {
#define M(n, off) "str q" n ", [%[save], #" off "]\n"
  asm volatile(TP_VREGS(M) "mrs x9, fpsr\n str x9, [%[save], #512]\n mrs x9, fpcr\n str x9, [%[save], #520]\n"
#undef M
#define M(n, off) "ldr q" n ", [%[in], #" off "]\n"
               TP_VREGS(M) "ldr x9, [%[in], #512]\n msr fpsr, x9\n ldr x9, [%[in], #520]\n msr fpcr, x9\n"
               ".globl tp_vec_stop\n"
               "tp_vec_stop: nop\n"
#undef M
#define M(n, off) "str q" n ", [%[out], #" off "]\n"
               TP_VREGS(M) "mrs x9, fpsr\n str x9, [%[out], #512]\n mrs x9, fpcr\n str x9, [%[out], #520]\n"
#undef M
#define M(n, off) "ldr q" n ", [%[save], #" off "]\n"
               TP_VREGS(M) "ldr x9, [%[save], #512]\n msr fpsr, x9\n ldr x9, [%[save], #520]\n msr fpcr, x9\n"
#undef M
               :
               : [in] "r"(tp_vec_in), [out] "r"(tp_vec_out), [save] "r"(tp_vec_save)
               : "memory", "x9");
}
#elif defined(__loongarch64)
#define TP_VREGS(M) \
  M("0", "0") M("1", "8") M("2", "16") M("3", "24") M("4", "32") M("5", "40") \
  M("6", "48") M("7", "56") M("8", "64") M("9", "72") M("10", "80") M("11", "88") \
  M("12", "96") M("13", "104") M("14", "112") M("15", "120") M("16", "128") M("17", "136") \
  M("18", "144") M("19", "152") M("20", "160") M("21", "168") M("22", "176") M("23", "184") \
  M("24", "192") M("25", "200") M("26", "208") M("27", "216") M("28", "224") M("29", "232") \
  M("30", "240") M("31", "248")
#define TP_FCCS(M) \
  M("0", "256") M("1", "257") M("2", "258") M("3", "259") M("4", "260") M("5", "261") \
  M("6", "262") M("7", "263")
__attribute__((noinline)) void tp_vec(void) {
#define M(n, off) "fst.d $f" n ", %[save], " off "\n"
#define C(n, off) "movcf2gr $r12, $fcc" n "\n st.b $r12, %[save], " off "\n"
  asm volatile(TP_VREGS(M) TP_FCCS(C) "movfcsr2gr $r12, $fcsr0\n st.w $r12, %[save], 264\n"
#undef M
#undef C
#define M(n, off) "fld.d $f" n ", %[in], " off "\n"
#define C(n, off) "ld.bu $r12, %[in], " off "\n movgr2cf $fcc" n ", $r12\n"
               TP_VREGS(M) TP_FCCS(C) "ld.w $r12, %[in], 264\n movgr2fcsr $fcsr0, $r12\n"
               ".globl tp_vec_stop\n"
               "tp_vec_stop: nop\n"
#undef M
#undef C
#define M(n, off) "fst.d $f" n ", %[out], " off "\n"
#define C(n, off) "movcf2gr $r12, $fcc" n "\n st.b $r12, %[out], " off "\n"
               TP_VREGS(M) TP_FCCS(C) "movfcsr2gr $r12, $fcsr0\n st.w $r12, %[out], 264\n"
#undef M
#undef C
#define M(n, off) "fld.d $f" n ", %[save], " off "\n"
#define C(n, off) "ld.bu $r12, %[save], " off "\n movgr2cf $fcc" n ", $r12\n"
               TP_VREGS(M) TP_FCCS(C) "ld.w $r12, %[save], 264\n movgr2fcsr $fcsr0, $r12\n"
#undef M
#undef C
               :
               : [in] "r"(tp_vec_in), [out] "r"(tp_vec_out), [save] "r"(tp_vec_save)
               : "memory", "$r12");
}
#elif defined(__riscv)
#define TP_VREGS(M) \
  M("0", "0") M("1", "8") M("2", "16") M("3", "24") M("4", "32") M("5", "40") \
  M("6", "48") M("7", "56") M("8", "64") M("9", "72") M("10", "80") M("11", "88") \
  M("12", "96") M("13", "104") M("14", "112") M("15", "120") M("16", "128") M("17", "136") \
  M("18", "144") M("19", "152") M("20", "160") M("21", "168") M("22", "176") M("23", "184") \
  M("24", "192") M("25", "200") M("26", "208") M("27", "216") M("28", "224") M("29", "232") \
  M("30", "240") M("31", "248")
__attribute__((noinline)) void tp_vec(void) {
#define M(n, off) "fsd f" n ", " off "(%[save])\n"
  asm volatile(TP_VREGS(M) "frcsr t0\n sw t0, 256(%[save])\n"
#undef M
#define M(n, off) "fld f" n ", " off "(%[in])\n"
               TP_VREGS(M) "lw t0, 256(%[in])\n fscsr t0\n"
               ".globl tp_vec_stop\n"
               "tp_vec_stop: nop\n"
#undef M
#define M(n, off) "fsd f" n ", " off "(%[out])\n"
               TP_VREGS(M) "frcsr t0\n sw t0, 256(%[out])\n"
#undef M
#define M(n, off) "fld f" n ", " off "(%[save])\n"
               TP_VREGS(M) "lw t0, 256(%[save])\n fscsr t0\n"
#undef M
               :
               : [in] "r"(tp_vec_in), [out] "r"(tp_vec_out), [save] "r"(tp_vec_save)
               : "memory", "t0");
}
#else
#error "tracer_testprog: no vector-register code for this CPU"
#endif

// Where each register the tracer names is in tp_vec_in/out, in the order of
// realgo/tracer.h's VecRegsFor.
struct TpVecSlot {
  char name[8];
  int off, bytes;
};
static int TpVecSlots(TpVecSlot* out) {
  int n = 0;
  auto add = [&](const char* prefix, int i, int off, int bytes) {
    if (i >= 0)
      snprintf(out[n].name, sizeof out[n].name, "%s%d", prefix, i);
    else
      snprintf(out[n].name, sizeof out[n].name, "%s", prefix);
    out[n].off = off;
    out[n].bytes = bytes;
    ++n;
  };
#if defined(__x86_64__)
  for (int i = 0; i < 16; ++i) add("xmm", i, 16 * i, 16);
  add("mxcsr", -1, 256, 4);
#elif defined(__aarch64__)
  for (int i = 0; i < 32; ++i) add("v", i, 16 * i, 16);
  add("fpsr", -1, 512, 4);
  add("fpcr", -1, 520, 4);
#elif defined(__loongarch64)
  for (int i = 0; i < 32; ++i) add("f", i, 8 * i, 8);
  for (int i = 0; i < 8; ++i) add("fcc", i, 256 + i, 1);
  add("fcsr", -1, 264, 4);
#elif defined(__riscv)
  for (int i = 0; i < 32; ++i) add("f", i, 8 * i, 8);
  add("fcsr", -1, 256, 4);
#endif
  return n;
}

static void PutU32(unsigned char* p, unsigned v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}

// The values tp_vec loads; realgo/tracer_test.cc expects the same: byte j
// of vector register k is 0x40 + 0x11 k + 3 j (mod 256); the control
// registers as below.
static void TpVecFill(void) {
  TpVecSlot slots[64];
  int n = TpVecSlots(slots);
  int k = 0;
  for (int s = 0; s < n; ++s) {
    if (slots[s].bytes < 8) continue;  // the control registers and fcc
    for (int j = 0; j < slots[s].bytes; ++j)
      tp_vec_in[slots[s].off + j] = static_cast<unsigned char>(0x40 + 0x11 * k + 3 * j);
    ++k;
  }
#if defined(__x86_64__)
  PutU32(tp_vec_in + 256, 0x5f81);  // MXCSR: every exception masked, round up, IE set
#elif defined(__aarch64__)
  PutU32(tp_vec_in + 512, 0x08000011);  // FPSR: QC, IXC, IOC
  PutU32(tp_vec_in + 520, 0x00400000);  // FPCR: round towards plus infinity
#elif defined(__loongarch64)
  for (int i = 0; i < 8; ++i) tp_vec_in[256 + i] = (0x5a >> i) & 1;
  PutU32(tp_vec_in + 264, 0x00030100);  // FCSR0: RM 1 (towards zero), flags I and U
#elif defined(__riscv)
  PutU32(tp_vec_in + 256, 0x25);  // fcsr: frm 1 (towards zero), fflags NX and OF
#endif
}

static void TpVecPrint(void) {
  TpVecSlot slots[64];
  int n = TpVecSlots(slots);
  for (int s = 0; s < n; ++s) {
    printf("%s=", slots[s].name);
    for (int j = 0; j < slots[s].bytes; ++j) printf("%02x", tp_vec_out[slots[s].off + j]);
    printf("\n");
  }
}

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
  if (strcmp(mode, "vec") == 0) {  // vector registers set, stopped at tp_vec_stop, printed
    TpVecFill();
    tp_vec();
    TpVecPrint();
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
