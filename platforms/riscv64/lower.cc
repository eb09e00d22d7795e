// The riscv64 Lowerer: the IR in RV64GC machine code (without compressed
// instructions), following Go's riscv64 conventions: g in X27, SP X2, RA X1,
// the stack check MOV 16(g), X6 / BLTU X6, SP, done (here inverted: BGEU X6,
// SP, tail), the morestack call through X5 (JAL X5, runtime.morestack), and
// X31 (REGTMP) as the emitter's scratch for addresses, large constants and
// indirect jumps.
//
// asyncPreempt does not preserve REGTMP as far as the rules are concerned
// (Go's returns through it), so every IR operation expanded through it is
// marked restartable (resumed at its first instruction), and an explicit use
// of REGTMP across an operation's boundary is marked unsafe. The prologue,
// the epilogue and large frame slots use X6/X7 instead, which asyncPreempt
// saves. The frame layout is in platforms/riscv64/README.md.
#include "platforms/riscv64/lower.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "core/offsets.h"
#include "platforms/riscv64/port.h"

namespace safepoint {
namespace {

// RISC-V integer registers by number (ABI names in comments).
enum : int {
  X0 = 0,    // zero
  X1 = 1,    // ra
  X2 = 2,    // sp
  X5 = 5,    // t0
  X6 = 6,    // t1
  X7 = 7,    // t2
  X9 = 9,    // s1
  X10 = 10,  // a0..a7: X10..X17
  X18 = 18,  // s2..s11: X18..X27, callee-saved in the C ABI
  X27 = 27,  // s11: g
  X31 = 31,  // t6: REGTMP
};
constexpr int kZero = X0, kRA = X1, kSP = X2, kA0 = X10, kG = X27, kTmp = X31;
// Free at entry (only r0 is live there) and at ret: the stack check's
// registers (Go's X6 and X7), and the prologue's and epilogue's temporary
// for large frames.
constexpr int kEntryTmp = X6, kEntryTmp2 = X7;
// In the body, X6 and X7 are the scratch of sumregs, vfill, vdump,
// setflags, flagsdump and of frame slots beyond 2047 bytes: asyncPreempt
// saves them (REGTMP it does not, as far as the rules go), so code using
// them is an ordinary safe point resumed in place.
constexpr int kSaved = X6, kSaved2 = X7;
// morestack's link register, as in Go's tail (JAL X5, runtime.morestack):
// RA keeps f's return address.
constexpr int kMorestackLink = X5;
// IR register i -> machine register. r0 is a0 (argument and result). The
// IR registers amd64 keeps in SysV callee-saved registers (r1 = RBX, r9..r11
// = R12, R13, R15) are in LP64 callee-saved ones here (s1..s4, as loong64
// has them in $s0..$s3), so that a service (C++ on g0) leaves the same IR
// registers intact on every port. Never used: x3 (gp), x4 (tp), x5 (the
// morestack link, asyncPreempt's return jump), x6/x7 (scratch), x8 (s0, the
// C frame pointer), x21..x26, x27 (g), x28..x30, x31 (REGTMP).
constexpr int kRegs[] = {kA0, X9, 11, 12, 13, 14, 15, 16, 17, X18, X18 + 1, X18 + 2};
static_assert(sizeof(kRegs) / sizeof(kRegs[0]) == ir::kPortableRegs);

// The saved RA occupies 0(SP) of every frame; locals start above it.
constexpr int kLocalsBase = 8;

enum FixKind {
  kB12 = 1,     // beq/bne/bgeu: 13-bit signed byte offset (bit 0 zero)
  kJ20 = 2,     // jal: 21-bit signed byte offset (bit 0 zero)
  kPcrel = 3,   // auipc rd + addi rd, rd: a 32-bit PC-relative address, two instructions
};

bool FitsSigned(int64_t v, int bits) { return v >= -(int64_t(1) << (bits - 1)) && v < (int64_t(1) << (bits - 1)); }
// The low 12 bits of v, sign-extended (what addi/ld/sd add).
int64_t Lo12(int64_t v) { return static_cast<int64_t>(static_cast<uint64_t>(v) << 52) >> 52; }

// Encodings (RISC-V unprivileged ISA): R rd,rs1,rs2; I imm[11:0]; S the
// immediate split 11:5 / 4:0; B and J the offset scrambled as the ISA says;
// U imm[31:12].
uint32_t R(uint32_t opcode, uint32_t f3, uint32_t f7, int rd, int rs1, int rs2) {
  return f7 << 25 | uint32_t(rs2) << 20 | uint32_t(rs1) << 15 | f3 << 12 | uint32_t(rd) << 7 | opcode;
}
uint32_t I(uint32_t opcode, uint32_t f3, int rd, int rs1, int64_t imm) {
  return (uint32_t(imm) & 0xfff) << 20 | uint32_t(rs1) << 15 | f3 << 12 | uint32_t(rd) << 7 | opcode;
}
uint32_t S(uint32_t opcode, uint32_t f3, int rs2, int rs1, int64_t imm) {
  uint32_t u = uint32_t(imm) & 0xfff;
  return (u >> 5) << 25 | uint32_t(rs2) << 20 | uint32_t(rs1) << 15 | f3 << 12 | (u & 0x1f) << 7 | opcode;
}
uint32_t U(uint32_t opcode, int rd, int64_t imm20) { return (uint32_t(imm20) & 0xfffff) << 12 | uint32_t(rd) << 7 | opcode; }
uint32_t BImm(int64_t off) {
  uint32_t u = uint32_t(off);
  return ((u >> 12) & 1) << 31 | ((u >> 5) & 0x3f) << 25 | ((u >> 1) & 0xf) << 8 | ((u >> 11) & 1) << 7;
}
uint32_t JImm(int64_t off) {
  uint32_t u = uint32_t(off);
  return ((u >> 20) & 1) << 31 | ((u >> 1) & 0x3ff) << 21 | ((u >> 11) & 1) << 20 | ((u >> 12) & 0xff) << 12;
}

void Add(Asm& a, int rd, int rs1, int rs2) { a.Insn32(R(0x33, 0, 0, rd, rs1, rs2)); }
void Mul(Asm& a, int rd, int rs1, int rs2) { a.Insn32(R(0x33, 0, 1, rd, rs1, rs2)); }
void Addi(Asm& a, int rd, int rs1, int64_t imm) { a.Insn32(I(0x13, 0, rd, rs1, imm)); }
void Addiw(Asm& a, int rd, int rs1, int64_t imm) { a.Insn32(I(0x1b, 0, rd, rs1, imm)); }
void Slli(Asm& a, int rd, int rs1, int sh) { a.Insn32(I(0x13, 1, rd, rs1, sh & 0x3f)); }
void Mv(Asm& a, int rd, int rs) { Addi(a, rd, rs, 0); }
void Lui(Asm& a, int rd, int64_t imm20) { a.Insn32(U(0x37, rd, imm20)); }
void Ld(Asm& a, int rd, int base, int64_t off) { a.Insn32(I(0x03, 3, rd, base, off)); }
void Sd(Asm& a, int rs, int base, int64_t off) { a.Insn32(S(0x23, 3, rs, base, off)); }
void Jalr(Asm& a, int rd, int rs1, int64_t off) { a.Insn32(I(0x67, 0, rd, rs1, off)); }
void Ebreak(Asm& a) { a.Insn32(0x00100073u); }
// amoadd.d.aqrl rd, rs2, (rs1): [rs1] += rs2 atomically, fully ordered
// (Go's assembler sets aq and rl on every AMO); rd = the old value.
void AmoaddDAqrl(Asm& a, int rd, int rs2, int rs1) { a.Insn32(R(0x2f, 3, 0x03, rd, rs1, rs2)); }
// F/D: fmv.d.x fd, rs1 (fd = the bits of rs1); fsd fs2, off(rs1).
void FmvDX(Asm& a, int fd, int rs1) { a.Insn32(R(0x53, 0, 0x79, fd, rs1, 0)); }
void Fld(Asm& a, int fd, int base, int64_t off) { a.Insn32(I(0x07, 3, fd, base, off)); }
void Fsd(Asm& a, int fs2, int base, int64_t off) { a.Insn32(S(0x27, 3, fs2, base, off)); }
// CSRs: fscsr rs (csrrw zero, fcsr, rs: frm and fflags); frcsr rd (csrrs
// rd, fcsr, zero).
constexpr uint32_t kCsrFcsr = 0x003;
void Fscsr(Asm& a, int rs) { a.Insn32(kCsrFcsr << 20 | uint32_t(rs) << 15 | 1u << 12 | 0x73); }
void Frcsr(Asm& a, int rd) { a.Insn32(kCsrFcsr << 20 | 2u << 12 | uint32_t(rd) << 7 | 0x73); }
// F0-F31, 64 bits each: f_i is word i of the base tier's layout (8*i).
constexpr int kFpRegs = 32;

// A 32-bit signed value in as few instructions as Go's MOV $c takes: addi
// from zero for 12 bits, else lui and (when the low 12 bits are not zero)
// addiw, which wraps in 32 bits and sign-extends.
void Mov32(Asm& a, int rd, int32_t v) {
  if (FitsSigned(v, 12)) {
    Addi(a, rd, kZero, v);
    return;
  }
  int64_t lo = Lo12(v);
  Lui(a, rd, static_cast<int64_t>(static_cast<uint32_t>(static_cast<int64_t>(v) - lo) >> 12));
  if (lo != 0) Addiw(a, rd, rd, lo);
}

// The first five instructions of any address below 2^55 in absolute value
// (user addresses on riscv64 Linux are below 2^47; under QEMU too): lui,
// addiw, slli 12, addi, slli 12. Returns the low 12 bits, which the
// instruction that consumes rd adds as its offset (ld, sd, jalr, addi), so
// the whole is six instructions, the last 20 bytes after the first: the
// runtime's (and Go's) limit for a restart. Always the same length whatever
// the address, so code length never depends on where things are mapped.
// Every instruction only refines rd. With `wrap`, the top part is taken
// modulo 2^32 (Mov64 shifts those bits out anyway).
int64_t AddrHi(Asm& a, int rd, uint64_t addr, bool wrap = false) {
  int64_t v = static_cast<int64_t>(addr);
  int64_t c = Lo12(v);
  int64_t v1 = (v - c) >> 12;
  int64_t b = Lo12(v1);
  int64_t v2 = (v1 - b) >> 12;
  if (wrap) v2 = static_cast<int32_t>(static_cast<uint32_t>(v2));
  if (!FitsSigned(v2, 32)) {
    fprintf(stderr, "riscv64 lowerer: address 0x%llx is beyond 2^55\n", static_cast<unsigned long long>(addr));
    abort();
  }
  int64_t a2 = Lo12(v2);
  // lui takes bits 31:12 (sign-extending bit 31); addiw wraps in 32 bits.
  Lui(a, rd, static_cast<int64_t>(static_cast<uint32_t>(v2 - a2) >> 12));
  Addiw(a, rd, rd, a2);
  Slli(a, rd, rd, 12);
  Addi(a, rd, rd, b);
  Slli(a, rd, rd, 12);
  return c;
}
// The whole address in rd: six instructions.
void MovAddr(Asm& a, int rd, uint64_t addr, bool wrap = false) { Addi(a, rd, rd, AddrHi(a, rd, addr, wrap)); }

// Any 64-bit value: the shortest form for 32-bit values, else a fixed eight
// instructions (the address chain for the top 56 bits, then slli 8 and addi
// for the low byte). Every instruction only refines rd.
void Mov64(Asm& a, int rd, uint64_t v) {
  int64_t s = static_cast<int64_t>(v);
  if (FitsSigned(s, 32)) {
    Mov32(a, rd, static_cast<int32_t>(s));
    return;
  }
  int64_t d = static_cast<int64_t>(v << 56) >> 56;  // the low 8 bits, signed
  int64_t w = static_cast<int64_t>(v - static_cast<uint64_t>(d)) >> 8;
  MovAddr(a, rd, static_cast<uint64_t>(w), /*wrap=*/true);
  Slli(a, rd, rd, 8);
  Addi(a, rd, rd, d);
}

// rd = rs + imm for any 32-bit imm, through `tmp` when it does not fit 12
// bits; rd is written by the last instruction only.
void AddImm(Asm& a, int rd, int rs, int32_t imm, int tmp) {
  if (FitsSigned(imm, 12)) {
    Addi(a, rd, rs, imm);
  } else {
    Mov32(a, tmp, imm);
    Add(a, rd, rs, tmp);
  }
}

// One IR operation expanded through REGTMP. Go's riscv64 assembler marks
// every instruction that uses REGTMP as an unsafe point and has no
// restartable sequences (obj.MarkUnsafePoints with no isRestartable), so the
// whole expansion is an unsafe region, in every function (restartatentry
// ones too: the unsafe point is checked first). The model facts in port.cc
// (regtmp_restartable = false, regtmp_ops) say the same to the oracle.
class RegtmpSequence {
 public:
  RegtmpSequence(Asm& a, const FuncCtx&) : a_(a) { a_.BeginRegion(Asm::kUnsafe); }
  ~RegtmpSequence() { a_.EndRegion(); }

 private:
  Asm& a_;
};

// Conditional branches: f3 0 beq, 1 bne, 7 bgeu.
void BranchCond(Asm& a, uint32_t f3, int rs1, int rs2, int label) {
  a.Insn32(R(0x63, f3, 0, 0, rs1, rs2));
  a.Fix(label, kB12);
}
void Jal(Asm& a, int rd, int label) {
  a.Insn32(U(0x6f, rd, 0));
  a.Fix(label, kJ20);
}
constexpr uint32_t kBeq = 0, kBne = 1, kBgeu = 7;

uint64_t GlobalAddr(const EmitEnv& env, int64_t n) { return env.globals + 8 * static_cast<uint64_t>(n); }

class Riscv64Lowerer final : public Lowerer {
 public:
  int VectorTiers() const override { return 1; }  // F0-F31
  int NumAllocatable() const override { return ir::kPortableRegs; }

  // Every frame keeps 0(SP) for RA, even a leaf's (where it stays unused),
  // so that slot OFF is at 8+OFF(SP) in every function; frames are
  // multiples of 16 to keep the C ABI's alignment wherever SP is.
  int FrameSize(int locals, bool leaf) const override {
    if (leaf && locals == 0) return 0;
    return (kLocalsBase + locals + 15) & ~15;
  }

  void StackCheck(Asm& a, const FuncCtx& ctx) override {
    Ld(a, kEntryTmp, kG, G_STACKGUARD0);  // MOV 16(g), X6
    int cmp = kSP;
    if (ctx.frame > STACK_SMALL) {
      // SP-(frame-StackSmall) <= stackguard; frames are below StackBig, so
      // this cannot wrap (ADD $-(framesize-StackSmall), SP, X7).
      AddImm(a, kEntryTmp2, kSP, -(ctx.frame - STACK_SMALL), kEntryTmp2);
      cmp = kEntryTmp2;
    }
    BranchCond(a, kBgeu, kEntryTmp, cmp, ctx.tail_label);  // !(BLTU X6, SP, done)
  }

  void FrameSetup(Asm& a, const FuncCtx& ctx) override {
    if (ctx.frame == 0) return;
    // One instruction moves SP, so SP is never half-adjusted.
    AddImm(a, kSP, kSP, -ctx.frame, kEntryTmp);
    a.Sp(ctx.frame, false);
    if (!ctx.leaf) {
      Sd(a, kRA, kSP, 0);
      a.Sp(ctx.frame, true);
    }
  }
  int SlotBase(const FuncCtx&) const override { return kLocalsBase; }

  // 8-byte frame slot access at off(SP): ld/sd reach 2047; beyond, the
  // upper part goes into the saved scratch X7 (lui; add X7, SP, X7) and the
  // low 12 bits are the access's offset. X7 is saved by asyncPreempt, so
  // this is resumed in place (no REGTMP, no region).
  void Slot(Asm& a, bool load, int reg, int64_t off) {
    int base = kSP;
    if (!FitsSigned(off, 12)) {
      int64_t lo = Lo12(off);
      Lui(a, kSaved2, (off - lo) >> 12);
      Add(a, kSaved2, kSP, kSaved2);
      base = kSaved2;
      off = lo;
    }
    if (load) {
      Ld(a, reg, base, off);
    } else {
      Sd(a, reg, base, off);
    }
  }

  void Lower(Asm& a, const FuncCtx& ctx, const ir::Insn& i, int target, int aux, const EmitEnv& env) override {
    using ir::Op;
    switch (i.op) {
      case Op::kMovi:
        Mov64(a, kRegs[i.rd], static_cast<uint64_t>(i.imm));
        break;
      case Op::kAddi:
        if (FitsSigned(i.imm, 12)) {
          Addi(a, kRegs[i.rd], kRegs[i.rd], i.imm);
        } else {
          RegtmpSequence r(a, ctx);
          AddImm(a, kRegs[i.rd], kRegs[i.rd], static_cast<int32_t>(i.imm), kTmp);
        }
        break;
      case Op::kMuli: {
        RegtmpSequence r(a, ctx);
        Mov32(a, kTmp, static_cast<int32_t>(i.imm));
        Mul(a, kRegs[i.rd], kRegs[i.rd], kTmp);
        break;
      }
      case Op::kAdd:
        Add(a, kRegs[i.rd], kRegs[i.rd], kRegs[i.rs]);
        break;
      case Op::kMov:
        Mv(a, kRegs[i.rd], kRegs[i.rs]);
        break;
      case Op::kLabel:
        break;
      case Op::kJmp:
        Jal(a, kZero, target);
        break;
      case Op::kJnz:
        BranchCond(a, kBne, kRegs[i.rs], kZero, target);
        break;
      case Op::kJz:
        BranchCond(a, kBeq, kRegs[i.rs], kZero, target);
        break;
      case Op::kCall:
        Jal(a, kRA, target);
        break;
      case Op::kRet:
        if (!ctx.leaf && ctx.frame > 0) Ld(a, kRA, kSP, 0);
        if (ctx.frame > 0) AddImm(a, kSP, kSP, ctx.frame, kEntryTmp);
        a.Sp(0, false);
        Jalr(a, kZero, kRA, 0);
        break;
      case Op::kLdGlobal: {
        RegtmpSequence r(a, ctx);
        int64_t lo = AddrHi(a, kTmp, GlobalAddr(env, i.imm));
        Ld(a, kRegs[i.rd], kTmp, lo);
        break;
      }
      case Op::kStGlobal: {
        RegtmpSequence r(a, ctx);
        int64_t lo = AddrHi(a, kTmp, GlobalAddr(env, i.imm));
        Sd(a, kRegs[i.rs], kTmp, lo);
        break;
      }
      case Op::kLdSlot:
        Slot(a, true, kRegs[i.rd], kLocalsBase + i.imm);
        break;
      case Op::kStSlot:
        Slot(a, false, kRegs[i.rs], kLocalsBase + i.imm);
        break;
      case Op::kLdMem:
        Ld(a, kRegs[i.rd], kRegs[i.rs], i.imm);
        break;
      case Op::kStMem:
        Sd(a, kRegs[i.rs], kRegs[i.rd], i.imm);
        break;
      case Op::kAddrSlot:  // beyond 12 bits through the saved scratch: resumed in place
        AddImm(a, kRegs[i.rd], kSP, static_cast<int32_t>(kLocalsBase + i.imm), kSaved2);
        break;
      case Op::kVLoad:  // 16 bytes through F0 and F1 (the F registers are 64 bits)
        Fld(a, 0, kRegs[i.rs], i.imm);
        Fld(a, 1, kRegs[i.rs], i.imm + 8);
        break;
      case Op::kVStore:
        Fsd(a, 0, kRegs[i.rd], i.imm);
        Fsd(a, 1, kRegs[i.rd], i.imm + 8);
        break;
      case Op::kFillRegs:
        for (int r = 0; r < ir::kPortableRegs; r++) Mov64(a, kRegs[r], static_cast<uint64_t>(i.imm + r));
        break;
      case Op::kSumRegs:
        // A saved scratch accumulates (not REGTMP): resumed in place.
        Mv(a, kSaved, kRegs[0]);
        for (int k = 1; k < ir::kPortableRegs; k++) Add(a, kSaved, kSaved, kRegs[k]);
        Mv(a, kRegs[i.rd], kSaved);
        break;
      case Op::kDumpRegs:
        for (int k = 0; k < ir::kPortableRegs; k++) {
          RegtmpSequence r(a, ctx);
          int64_t lo = AddrHi(a, kTmp, GlobalAddr(env, i.imm + k));
          Sd(a, kRegs[k], kTmp, lo);
        }
        break;
      case Op::kAtomicAdd:
        // The address and the AMO are one compiler-marked unsafe sequence,
        // as Go marks its atomics. The old value is discarded (zero), so
        // rS keeps the addend.
        a.BeginRegion(Asm::kUnsafe);
        MovAddr(a, kTmp, GlobalAddr(env, i.imm));
        AmoaddDAqrl(a, kZero, kRegs[i.rs], kTmp);
        a.EndRegion();
        break;
      case Op::kWbStore: {
        // if (*wbflag) { the barrier's slow path: g[63] = rS } then the
        // store. Unsafe as a whole: a preemption between the flag test and
        // the store could miss a collection starting.
        a.BeginRegion(Asm::kUnsafe);
        int skip = a.NewLabel();
        int64_t lo = AddrHi(a, kTmp, env.wbflag);
        Ld(a, kTmp, kTmp, lo);
        BranchCond(a, kBeq, kTmp, kZero, skip);
        lo = AddrHi(a, kTmp, GlobalAddr(env, ir::kGlobals - 1));
        Sd(a, kRegs[i.rs], kTmp, lo);
        a.Bind(skip);
        lo = AddrHi(a, kTmp, GlobalAddr(env, i.imm));
        Sd(a, kRegs[i.rs], kTmp, lo);
        a.EndRegion();
        break;
      }
      case Op::kUseTmp:
        // An instruction that names REGTMP itself: unsafe, as Go's
        // assembler marks one.
        a.BeginRegion(Asm::kUnsafe);
        Addi(a, kTmp, kZero, 1);
        Add(a, kRegs[i.rd], kRegs[i.rd], kTmp);
        a.EndRegion();
        break;
      case Op::kInlineBegin:
      case Op::kInlineEnd:
        break;  // the driver records the inline tree; no code
      case Op::kVFill:
        // The pinned CPU has no V: the FP registers are the vector state.
        // f_i = VectorPattern(SEED, i), through the saved scratch.
        for (int f = 0; f < kFpRegs; f++) {
          Mov64(a, kSaved, VectorPattern(i.imm, f));
          FmvDX(a, f, kSaved);
        }
        break;
      case Op::kVDump:
        // The address in the saved scratch: resumed in place anywhere.
        // f_i at 8*i, as in the scratch area.
        MovAddr(a, kSaved, env.vdump + static_cast<uint64_t>(kVDumpBytes) * static_cast<uint64_t>(i.imm));
        for (int f = 0; f < kFpRegs; f++) Fsd(a, f, kSaved, 8 * f);
        break;
      case Op::kSetFlags:
        // fcsr = IMM & its setflags_mask: the accrued-exception flags
        // (fflags: NX bit 0 .. NV bit 4), frm zero (round to nearest, even).
        Mov64(a, kSaved, static_cast<uint64_t>(i.imm) & FlagRegs(kRiscv64Port)[0]->setflags_mask);
        Fscsr(a, kSaved);
        break;
      case Op::kFlagsDump: {
        // fcsr (frm and fflags) in the saved scratch, then the store
        // through REGTMP; the operation is one unsafe region as a whole.
        RegtmpSequence r(a, ctx);
        Frcsr(a, kSaved);
        int64_t lo = AddrHi(a, kTmp, GlobalAddr(env, i.imm));
        Sd(a, kSaved, kTmp, lo);
        break;
      }
      case Op::kService:
        if (i.service == ir::Service::kGo) {
          // auipc a0, %pcrel_hi(F); addi a0, a0, %pcrel_lo(F)
          a.Insn32(U(0x17, kA0, 0));
          a.Fix(aux, kPcrel);
          Addi(a, kA0, kA0, 0);
        } else if (ir::ServiceHasImm(i.service)) {
          Mov64(a, kA0, static_cast<uint64_t>(i.imm));
        }
        Jal(a, kRA, target);
        break;
    }
  }

  void Tail(Asm& a, const FuncCtx& ctx, const EmitEnv& env) override {
    Sd(a, kA0, kG, G_ARGSPILL);  // spill the register argument
    // JAL X5, runtime.morestack: RA keeps f's return address.
    int64_t lo = AddrHi(a, kTmp, env.morestack);
    Jalr(a, kMorestackLink, kTmp, lo);  // resumed here through g.sched
    Ld(a, kA0, kG, G_ARGSPILL);
    Jal(a, kZero, ctx.entry_label);  // and check again
  }

  void ServiceStub(Asm& a, ir::Service s, const EmitEnv& env) override {
    Sd(a, kA0, kG, G_PARAM);
    MovAddr(a, kA0, env.service_fn[static_cast<int>(s)]);
    int64_t lo = AddrHi(a, kTmp, ir::ServiceParks(s) ? env.mcall : env.systemstack);
    Jalr(a, kZero, kTmp, lo);  // a tail jump: RA still returns to the call site
  }

  void GoexitStub(Asm& a, const EmitEnv& env) override {
    MovAddr(a, kA0, env.service_fn[static_cast<int>(ir::Service::kGoexit)]);
    int64_t lo = AddrHi(a, kTmp, env.mcall);
    Jalr(a, kRA, kTmp, lo);
    Ebreak(a);  // mcall never returns
  }

  bool Resolve(Asm& a, const Asm::Fixup& f, uint32_t target, std::string* err) override {
    int64_t rel = static_cast<int64_t>(target) - static_cast<int64_t>(f.at);
    if (rel % 4 != 0) {
      *err = "riscv64: misaligned branch target";
      return false;
    }
    uint32_t w = a.Read32(f.at);
    switch (f.kind) {
      case kB12:
        if (!FitsSigned(rel, 13)) break;
        a.Write32(f.at, w | BImm(rel));
        return true;
      case kJ20:
        if (!FitsSigned(rel, 21)) break;
        a.Write32(f.at, w | JImm(rel));
        return true;
      case kPcrel: {
        int64_t lo = Lo12(rel);
        int64_t hi = (rel - lo) >> 12;
        if (!FitsSigned(hi, 20)) break;
        a.Write32(f.at, w | (uint32_t(hi) & 0xfffff) << 12);
        a.Write32(f.at + 4, a.Read32(f.at + 4) | (uint32_t(lo) & 0xfff) << 20);
        return true;
      }
      default:
        *err = "riscv64: unknown fixup kind";
        return false;
    }
    *err = "riscv64: branch out of range";
    return false;
  }
};

}  // namespace

std::unique_ptr<Lowerer> NewRiscv64Lowerer() { return std::make_unique<Riscv64Lowerer>(); }

SAFEPOINT_REGISTER_LOWERER("riscv64", NewRiscv64Lowerer);

}  // namespace safepoint
