// The emitter half of the port contract: lowering the program IR to machine
// code. The architecture-neutral driver (platforms/common/emit.cc) walks the
// program, lays out functions and service stubs, resolves branches and
// builds the function table; a port supplies only a Lowerer, which knows its
// instruction encodings, registers and prologue. Emission is pure code
// generation: it runs on any host for any port.
#ifndef SAFEPOINT_PLATFORMS_EMITTER_H_
#define SAFEPOINT_PLATFORMS_EMITTER_H_

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/functab.h"
#include "core/ir.h"
#include "platforms/port.h"

namespace safepoint {

// Absolute addresses the generated code refers to. On a host emitting for
// another target (emitter tests) they are placeholders.
struct EmitEnv {
  uint64_t globals = 0;     // &globals[0]
  uint64_t mcall = 0;       // asm: switch to g0 and call fn(gp); never returns
  uint64_t systemstack = 0; // asm: switch to g0, call fn(gp), switch back, return
  uint64_t morestack = 0;   // asm: record the caller, switch to g0, call newstack
  uint64_t service_fn[static_cast<int>(ir::Service::kCount)] = {};  // C++ functions behind the stubs
  uint64_t vdump = 0;       // &vector dump area 0 (ir::kVDumpAreas areas of kVDumpBytes)
  // The tier of extended state the runtime saves (an index into
  // PortInfo::tiers): `vfill` and `vdump` reach its vector registers at full
  // width, in its layout (core/ir.h). The driver refuses a tier the port
  // does not declare.
  int xtier = 0;
  uint64_t wbflag = 0;      // &the write-barrier-enabled flag (a 64-bit word)
  // A mutation, to show the suite can fail: emit no stack-check prologue at
  // all, so no synchronous safe point exists.
  bool omit_stack_check = false;
  // The port being emitted for: its declared branch reach is checked before
  // any branch is resolved (nullptr: only the Lowerer's own encoding checks).
  const PortInfo* port = nullptr;
  // When not 0, every function starts on a boundary of this many bytes
  // (the code page's page size), and the service stubs on the next one,
  // the padding filled with the port's breakpoint. Arming one function
  // then rewrites only its own pages: under QEMU, whose translations of a
  // page are thrown away when the page is made writable, the rest of the
  // program (its loop, the stubs) stays translated. The runtime sets it.
  uint32_t isolate = 0;
};

// True when two environments make the same code: every field but `port`,
// which must name the same port (a native fuzzing driver emits for an
// emulated port's runtime against the environment that runtime reported).
bool SameEmitEnv(const EmitEnv& a, const EmitEnv& b);

// Machine code under construction: bytes, instruction boundaries, labels.
class Asm {
 public:
  // Room for about this much code and this many instructions, so that the
  // buffers do not grow (and copy) by doubling while a program is laid out.
  void Reserve(size_t code_bytes, size_t insns) {
    code_.reserve(code_bytes);
    insns_.reserve(insns);
    insn_op_.reserve(insns);
  }
  // Starts an instruction.
  void Begin() {
    insns_.push_back(pos());
    insn_op_.push_back(cur_op_);
  }
  void Byte(uint8_t b) { code_.push_back(b); }
  void Bytes(std::initializer_list<uint8_t> bs) { code_.insert(code_.end(), bs); }
  // Little-endian, appended in one insert (not a push_back per byte).
  void U32(uint32_t w) {
    const uint8_t b[4] = {static_cast<uint8_t>(w), static_cast<uint8_t>(w >> 8), static_cast<uint8_t>(w >> 16),
                          static_cast<uint8_t>(w >> 24)};
    code_.insert(code_.end(), b, b + 4);
  }
  void U64(uint64_t w) {
    U32(static_cast<uint32_t>(w));
    U32(static_cast<uint32_t>(w >> 32));
  }
  // One whole 32-bit instruction.
  void Insn32(uint32_t w) {
    Begin();
    U32(w);
  }
  uint32_t pos() const { return static_cast<uint32_t>(code_.size()); }
  // Pads to a multiple of `align` bytes with `fill` repeated (a trap: no
  // instruction boundary is recorded in the padding).
  // (In one resize, and no division per byte: a page of padding per
  // generated function, a byte at a time and then a modulo per byte, was
  // 5% of a fuzz execution natively each time.)
  void PadTo(uint32_t align, const std::vector<uint8_t>& fill) {
    size_t from = code_.size(), to = (from + align - 1) / align * align;
    code_.resize(to, 0);
    if (fill.empty()) return;
    // Byte i holds fill[i % n]: up to the pattern's next start, then one
    // copy of it, then copies of what is written, doubling.
    const size_t n = fill.size();
    uint8_t* c = code_.data();
    size_t i = from;
    for (size_t j = from % n; i < to && j != 0; i++) {
      c[i] = fill[j];
      if (++j == n) j = 0;
    }
    if (i == to) return;
    const size_t start = i;
    size_t k = n < to - i ? n : to - i;
    memcpy(c + i, fill.data(), k);
    for (i += k; i < to; i += k) {
      k = i - start < to - i ? i - start : to - i;
      memcpy(c + i, c + start, k);
    }
  }
  uint32_t Read32(uint32_t at) const {
    return code_[at] | code_[at + 1] << 8 | code_[at + 2] << 16 | uint32_t(code_[at + 3]) << 24;
  }
  void Write32(uint32_t at, uint32_t w) {
    for (int i = 0; i < 4; i++) code_[at + i] = static_cast<uint8_t>(w >> (8 * i));
  }

  // Labels and fixups. A fixup is resolved by the Lowerer once every label
  // is bound: `at` is where the instruction starts, `kind` is the port's.
  int NewLabel() {
    labels_.push_back(-1);
    return static_cast<int>(labels_.size()) - 1;
  }
  void Bind(int label) { labels_[label] = static_cast<int64_t>(pos()); }
  int64_t LabelPos(int label) const { return labels_[label]; }
  struct Fixup {
    uint32_t at;
    int label;
    int kind;
  };
  void Fix(int label, int kind) { fixups_.push_back({insns_.back(), label, kind}); }

  // Regions a Lowerer marks around the instructions it emits: a
  // compiler-marked unsafe sequence (atomics, write barriers, explicit
  // REGTMP use), or a restartable sequence (one IR operation expanded
  // through REGTMP). A region covers whole instructions, from the next one
  // begun to the last one begun before End.
  enum RegionKind { kUnsafe, kRestartable };
  struct Region {
    RegionKind kind;
    uint32_t lo, hi;
  };
  void BeginRegion(RegionKind k) { open_.push_back({k, pos(), pos()}); }
  void EndRegion() {
    Region r = open_.back();
    open_.pop_back();
    r.hi = pos();
    if (r.hi > r.lo) regions_.push_back(r);
  }
  const std::vector<Region>& regions() const { return regions_; }
  // The IR operation (index in its function's body) the next instructions
  // lower; -1 for prologue, tail and stubs. The driver sets it.
  void SetOp(int op) { cur_op_ = op; }
  const std::vector<int32_t>& insn_op() const { return insn_op_; }

  // The frame as the instructions from the next one on see it (Go's pcsp):
  // SP `delta` bytes below the entry SP, the return address saved at 0(SP)
  // or not (LR machines). A Lowerer calls it after each instruction of its
  // FrameSetup and of `ret` that moves SP or saves LR; the driver records
  // the entry, the state after FrameSetup again after every `ret`, and the
  // tail.
  void Sp(int delta, bool lr_saved) { sp_.push_back({pos(), delta, lr_saved}); }
  const std::vector<FuncInfo::SpState>& sp_states() const { return sp_; }

  std::vector<uint8_t>& code() { return code_; }
  const std::vector<uint32_t>& insns() const { return insns_; }
  const std::vector<Fixup>& fixups() const { return fixups_; }

 private:
  std::vector<uint8_t> code_;
  std::vector<uint32_t> insns_;
  std::vector<int64_t> labels_;
  std::vector<Fixup> fixups_;
  std::vector<Region> open_, regions_;
  std::vector<int32_t> insn_op_;
  std::vector<FuncInfo::SpState> sp_;
  int32_t cur_op_ = -1;
};

using ir::kVDumpBytes;

using ir::VectorPattern;  // what `vfill SEED` puts in each vector register (core/ir.h)

// The flags `setflags IMM` sets, per port, are the port's data: the
// SavedReg::setflags_mask of each kFlags register (core/ir.h).

// What the driver tells a Lowerer about the function being lowered.
struct FuncCtx {
  const ir::Function* fn;
  int frame;        // bytes allocated by the prologue (port-rounded, includes saved LR)
  bool check;       // emit the stack-check prologue
  int tail_label;   // the morestack path
  int entry_label;
  bool leaf;        // no calls: the link register need not be saved
};

class Lowerer {
 public:
  virtual ~Lowerer() = default;
  // The number of allocatable general registers (fillregs/sumregs use all of them).
  virtual int NumAllocatable() const = 0;
  // The tiers of extended state whose registers vfill/vdump know (the
  // port's PortInfo::tiers.size(); //platforms:model_test keeps them equal).
  virtual int VectorTiers() const = 0;
  // Frame size the port allocates for a function with `locals` bytes of
  // locals that does (or does not) make calls.
  virtual int FrameSize(int locals, bool leaf) const = 0;
  // The stack check: jumps to ctx.tail_label when SP is not above
  // stackguard0 (taking the frame size into account for large frames).
  virtual void StackCheck(Asm& a, const FuncCtx& ctx) = 0;
  // Allocates the frame (and saves the link register where there is one),
  // marking each step with Asm::Sp.
  virtual void FrameSetup(Asm& a, const FuncCtx& ctx) = 0;
  // Where slot 0 is, in bytes above SP, in the function's body.
  virtual int SlotBase(const FuncCtx& ctx) const = 0;
  // Lowers one IR instruction. `target` is the Asm label the instruction
  // refers to: the IR label of a branch, the callee's entry for a call, the
  // stub for a service; `aux` is the entry of F for `go F`, else -1.
  virtual void Lower(Asm& a, const FuncCtx& ctx, const ir::Insn& insn, int target, int aux,
                     const EmitEnv& env) = 0;
  // The morestack path: spill r0 to g, call morestack, reload, jump to entry.
  virtual void Tail(Asm& a, const FuncCtx& ctx, const EmitEnv& env) = 0;
  // A service stub: hand r0 to the runtime through g's param slot and tail
  // jump to mcall or systemstack with the C++ function as argument.
  virtual void ServiceStub(Asm& a, ir::Service s, const EmitEnv& env) = 0;
  // The goroutine-exit stub, where a goroutine's top function returns to.
  virtual void GoexitStub(Asm& a, const EmitEnv& env) = 0;
  // Resolves one fixup now that `target` (a code offset) is known.
  virtual bool Resolve(Asm& a, const Asm::Fixup& f, uint32_t target, std::string* err) = 0;
};

// Each port's lower.cc registers its Lowerer under the port's name.
struct LowererRegistration {
  LowererRegistration(std::string_view port, std::unique_ptr<Lowerer> (*make)());
};
#define SAFEPOINT_REGISTER_LOWERER(port, make) \
  static const ::safepoint::LowererRegistration kLowererRegistration_##make(port, make)
// A new Lowerer for the port named `port`, or nullptr.
std::unique_ptr<Lowerer> NewLowerer(std::string_view port);

struct Emitted {
  std::vector<uint8_t> code;
  FuncTable table;
  uint32_t goexit = 0;  // offset of the goexit stub
};

// The driver. Returns false with *err set for a program the port cannot lower.
bool Emit(Lowerer& lowerer, const ir::Program& prog, const EmitEnv& env, Emitted* out, std::string* err);

}  // namespace safepoint

#endif
