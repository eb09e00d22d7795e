// The program IR: an architecture-neutral description of goroutine code that
// every port's emitter lowers to machine code (DESIGN.md section 3). Writing
// a conformance case once here is what makes the suite portable.
//
// Text form (ParseProgram), one statement a line, '#' starts a comment:
//
//   func main.nonleaf frame=16        # attributes: nosplit, frame=N (bytes),
//                                     # asm, nongo, restartatentry
//     call main.leaf
//     addi r0, 1
//     ret
//   end
//
// Registers r0..r11 are portable (r0 carries the one argument and the
// result of a call); every call clobbers every register but the g register
// and SP, as in Go's ABI. Globals g[0..kGlobals) are 64-bit words the
// runtime owns and tests read: the program's observable memory.
//
// Operations:
//   movi rD, IMM        rD = IMM (64-bit)
//   addi rD, IMM        rD += IMM (32-bit signed)
//   muli rD, IMM        rD *= IMM (32-bit signed)
//   add  rD, rS         rD += rS
//   mov  rD, rS         rD = rS
//   label:              a branch target
//   jmp L / jnz rS, L / jz rS, L   a branch reaches as far as the port declares
//                       (PortModel::branch_reach: riscv64's jnz/jz +-4 KiB,
//                       arm64's +-1 MiB); a farther one is refused with its line
//   call F              a call to another function of the program
//   ret
//   ld rD, g[N]  /  st g[N], rS          globals
//   ldslot rD, OFF / stslot OFF, rS      8-byte frame slots, 0 <= OFF < frame
//   starg OFF, rS         stslot into the outgoing-argument area (OFF < args)
//   addrslot rD, OFF      rD = the address of frame slot OFF: a pointer into
//                         the goroutine's own stack (adjusted when the stack
//                         moves, if kept in a declared pointer slot)
//   The heap (objects the runtime's collector manages; see "The heap" below):
//   alloc N               r0 = a new zeroed heap object of N bytes (a service)
//   gc                    a whole collection, as runtime.GC: the caller waits
//   ldm rD, rB, OFF       rD = the word at rB+OFF     (0 <= OFF <= kMemOffMax,
//   stm rB, OFF, rS       the word at rB+OFF = rS      a multiple of 8)
//   drop rD               rD = 0: the register no longer holds a pointer
//   vload rB, OFF         the 16 bytes at rB+OFF into the first vector
//   vstore rB, OFF        register(s), and back: a block copied through
//                         vector registers, as compilers copy small blocks
//   fillregs SEED       every allocatable register of the port = SEED+index
//   sumregs rD          rD = the sum of every allocatable register
//   atomic_add g[N], rS   g[N] += rS atomically, rS unchanged (a compiler-marked unsafe point)
//   wb_store g[N], rS     a write-barrier-like sequence: flag test, then store (unsafe)
//   usetmp rD             rD += 1 through REGTMP explicitly (unsafe where REGTMP exists)
//   inline NAME ... endinline   code inlined from function NAME (the inline tree)
//   dumpregs N            g[N+i] = ri for every portable register (observable state)
//   vfill SEED            every vector register = a pattern derived from SEED
//   vdump N               every vector register -> vector dump area N
//   setflags IMM / flagsdump g[N]   load / observe the flag and control registers
//                         (see "Vectors and flags" below)
//   Runtime services, each a call to an emitted stub that switches to g0:
//   gosched | sleep NS | go F | handshake N | wait N | acquirem | releasem
//   mallocing_begin | mallocing_end | preemptoff_begin | preemptoff_end
//   entersyscall | exitsyscall | callback N (a test hook run on g0)
//   secret_begin | secret_end (a runtime/secret region)
//
// Vectors and flags. What asyncPreempt saves beyond the general registers
// is the port's data (PortInfo::saved_regs, platforms/port.h); these
// operations reach exactly that, every bit of it, so the save-area tests
// can check every bit:
//   - The vector registers are those of the tier of extended state the
//     runtime saves (Runtime::xstate_tier(), an index into PortInfo::tiers;
//     the Lowerer learns it at emit time from EmitEnv::xtier, since the
//     instructions differ: amd64's XMM, YMM or ZMM+K, loong64's LASX,
//     arm64's Q, riscv64's F). Their layout is the tier's layout of the P's
//     scratch area: register R (a SavedReg of kind kVector and that tier)
//     occupies bytes [R.offset, R.offset + R.size).
//   - `vfill SEED` sets every such register at its full width so that the
//     64-bit word at byte 8*w of that layout is VectorPattern(SEED, w)
//     (little-endian: a register's lane l is word R.offset/8 + l).
//   - `vdump N` stores every such register, at full width, in that layout
//     at the start of dump area N (kVDumpBytes each; a tier's layout fits).
//     So a dump after `vfill SEED` equals the extended state an
//     asyncPreempt at that point saves, and one oracle checks both.
//   - `setflags IMM` sets every flag and control register the port saves
//     (SavedReg kind kFlags, in table order) to IMM & R.setflags_mask: the
//     bits of IMM at the register's own bit positions, the other bits zero
//     where the register lets a program write them (rflags keeps its fixed
//     and system bits). Each port's masks cover what a program can set
//     without changing how other code computes (no rounding modes or trap
//     enables); platforms/NAME/README.md lists them.
//   - `vload`/`vstore` use vector register 0 (amd64 X0, arm64 V0, loong64
//     VR0; riscv64 F0 and F1, 8 bytes each): whatever vfill put there is
//     replaced, and a vdump after a vload is the port's.
//   - `flagsdump g[N]` stores the i-th of those registers, as asyncPreempt
//     saves it (loong64's eight FCCs packed, bit i = fcc_i), in g[N+i]: at
//     most kFlagsWords globals, g[N..N+kFlagsWords) must exist.
//
// The heap. `alloc N` (8 <= N <= kMaxAlloc, a multiple of 8) returns an
// object the collector may free once nothing reaches it. What reaches it:
// globals; the words of reachable objects; the frames of every goroutine,
// precisely at call sites (only the slots the function declares as
// pointers: `func F frame=32 ptrs=0/16` declares slots 0 and 16) and
// conservatively in the two innermost frames of a goroutine stopped at an
// asynchronous safe point (every word of the interrupted frame, its
// outgoing-argument area included, and every saved register). `args=N`
// declares the first N bytes of the frame as the outgoing-argument area of
// the calls F prepares (Go's frames keep them at the bottom). Reading a
// freed object is a fatal error: the liveness oracle's evidence.
#ifndef SAFEPOINT_RUNTIME_IR_H_
#define SAFEPOINT_RUNTIME_IR_H_

#include <cstdint>
#include <string>
#include <vector>

namespace safepoint::ir {

constexpr int kPortableRegs = 12;
constexpr int kGlobals = 64;
constexpr int kStackSmall = 128;  // frames below this need no check in a leaf
constexpr int kMaxFrame = 4096 - 16;  // StackBig: larger frames are not supported
// StackNosplit: what a chain of nosplit functions may use below the stack
// check that admitted it (Go's linker refuses more: "nosplit stack overflow").
constexpr int kNosplitLimit = 800;
// ldm/stm/vload/vstore offsets: 0..kMemOffMax, multiples of 8 (one
// instruction on every port); vload/vstore move 16 bytes from OFF.
constexpr int kMemOffMax = 240;
// The largest object `alloc` makes (a page less the object's header).
constexpr int kMaxAlloc = 4096 - 16;

enum class Service : uint8_t {
  kGosched,
  kSleep,
  kGo,
  kHandshake,
  kWait,
  kAcquirem,
  kReleasem,
  kMallocingBegin,
  kMallocingEnd,
  kPreemptoffBegin,
  kPreemptoffEnd,
  kEntersyscall,
  kExitsyscall,
  kCallback,  // callback N: a test hook run on g0 (systemstack)
  kSecretBegin,
  kSecretEnd,
  kAlloc,   // alloc N: r0 = a new heap object (runtime.mallocgc)
  kGC,      // gc: a whole collection; the caller waits for it (runtime.GC)
  kGoexit,  // not written in programs: where a goroutine's top function returns
  kCount,
};
const char* ServiceName(Service s);  // "gosched" (IR spelling)
// True for the services that may deschedule the goroutine (reached through
// mcall, never returning to the stub); the others run on g0 through
// systemstack and return.
constexpr bool ServiceParks(Service s) {
  return s == Service::kGosched || s == Service::kSleep || s == Service::kWait || s == Service::kGC ||
         s == Service::kGoexit;
}
// True for the services that take an integer operand (passed in r0).
bool ServiceHasImm(Service s);
const char* ServiceSymbol(Service s);  // "runtime.Gosched" (function table name)

enum class Op : uint8_t {
  kMovi, kAddi, kMuli, kAdd, kMov,
  kLabel, kJmp, kJnz, kJz,
  kCall, kRet,
  kLdGlobal, kStGlobal, kLdSlot, kStSlot,
  kFillRegs, kSumRegs,
  kService,
  kAtomicAdd, kWbStore, kUseTmp,
  kInlineBegin, kInlineEnd,
  kDumpRegs, kVFill, kVDump, kSetFlags, kFlagsDump,
  // The heap: rd is the destination of ldm and the base of stm and vstore;
  // rs the base of ldm and vload and the value of stm.
  kLdMem, kStMem, kVLoad, kVStore,
  kAddrSlot,
};

constexpr int kVDumpAreas = 4;
// One vector dump area: the largest tier layout of any port (amd64's
// Z0-Z15 and K0-K7, 1088 bytes) with room to spare.
constexpr int kVDumpBytes = 2048;
// The most flag and control registers a port saves (arm64: NZCV, FPSR,
// FPCR): `flagsdump g[N]` writes g[N..N+kFlagsWords) at most.
constexpr int kFlagsWords = 3;

// The 64-bit word `vfill SEED` puts at byte 8*word of the active tier's
// layout (see "Vectors and flags" above); every Lowerer, the tests and the
// save-area oracle use this one definition. Byte j (0..7, little-endian)
// of the word is 1 + ((43*(SEED mod 255) + 77*word + 32*j) mod 255), so
//   - no byte is zero (a register half cleared or never restored shows in
//     every byte);
//   - the eight bytes of a word all differ (a byte moved within a lane
//     shows);
//   - for one SEED, words 0..254 differ from each other in every byte
//     position (a lane or register saved in another's place shows in every
//     byte; layouts have at most 136 words);
//   - two SEEDs not congruent modulo 255 differ in every byte of every word.
inline uint64_t VectorPattern(int64_t seed, int word) {
  uint64_t s = static_cast<uint64_t>(((seed % 255) + 255) % 255);
  uint64_t base = (43 * s + 77 * static_cast<uint64_t>(word)) % 255;
  uint64_t v = 0;
  for (int j = 0; j < 8; j++) v |= (1 + (base + 32 * static_cast<uint64_t>(j)) % 255) << (8 * j);
  return v;
}

struct Insn {
  Op op;
  int rd = -1;
  int rs = -1;
  int64_t imm = 0;
  std::string target;  // label or function
  Service service = Service::kCount;
  int line = 0;        // source line, for errors
};

struct Function {
  std::string name;     // "main.nonleaf"
  std::string package;  // "main"; "internal/runtime/atomic" for internal/runtime/atomic.Load
  int frame = 0;        // bytes of locals (multiple of 8)
  bool nosplit = false; // //go:nosplit: no stack check, unsafe everywhere but at calls
  bool is_asm = false;  // an assembly function: never an asynchronous safe point
  bool nongo = false;   // foreign (non-Go) code
  bool restart_at_entry = false;  // a preemption anywhere resumes at the entry
  std::vector<int> ptr_slots;     // ptrs=A/B/...: slots that hold pointers (the stack map)
  int args = 0;                   // args=N: the outgoing-argument area, frame bytes [0, N)
  std::vector<Insn> body;
  int line = 0;

  bool CallsAnything() const;  // any call or service
  // Go's assemblers omit the check for a small-frame leaf.
  bool NeedsStackCheck() const { return !nosplit && (CallsAnything() || frame >= kStackSmall); }
};

struct Program {
  std::vector<Function> funcs;
  const Function* Find(const std::string& name) const;
};

// Parses the text form. On error returns false and sets *err to
// "LINE: message".
bool ParseProgram(const std::string& text, Program* out, std::string* err);
// Checks a program built in C++ the same way (names, labels, registers,
// frame sizes, slot offsets); the parser calls it too.
bool Validate(const Program& p, std::string* err);

std::string PackageOf(const std::string& func_name);

// The spelling of every operation, in OpTable()'s order (services
// included, `starg` and `drop` as their own words): what a coverage report
// of programs counts.
std::vector<std::string> OperationNames();

}  // namespace safepoint::ir

#endif
