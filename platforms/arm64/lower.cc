// The arm64 Lowerer: the IR in A64 machine code, following Go's arm64
// conventions: g in R28, the stack check MOVD 16(g), R16 / CMP / BLS, the
// saved LR at 0(SP) of every frame that calls, R27 (REGTMP) as the emitter's
// scratch for constants, addresses and indirect branches. R18 (the platform
// register) and R29 are never touched. Frame layout: platforms/arm64/README.md.
//
// Unlike amd64's R11, REGTMP is not saved by asyncPreempt, so the Lowerer
// marks every use, by Go's rules: one IR operation expanded through R27 into
// a constant load and the one instruction that consumes it is a restartable
// sequence (a preemption inside it resumes at its start); an explicit use
// (usetmp) and the atomic and write-barrier sequences are unsafe. X16, which
// asyncPreempt does save, is the scratch of sumregs, vfill, vdump, setflags.
#include "platforms/arm64/lower.h"

#include <cstdint>

#include "core/offsets.h"
#include "platforms/arm64/port.h"

namespace safepoint {
namespace {

enum : int {
  X0 = 0, X1, X2, X3, X4, X5, X6, X7, X8, X9, X10, X11,
  X12 = 12, X13 = 13, X16 = 16, X17 = 17,
  X27 = 27, X28 = 28, X30 = 30,
  kSP = 31,  // register number 31 where the encoding means SP
  kZR = 31,  // ... and where it means XZR
};
constexpr int kG = X28;
constexpr int kTmp = X27;
constexpr int kLR = X30;
// IR register i -> machine register. r0 is X0 (argument and result).
constexpr int kRegs[] = {X0, X1, X2, X3, X4, X5, X6, X7, X8, X9, X10, X11};
static_assert(sizeof(kRegs) / sizeof(kRegs[0]) == ir::kPortableRegs);

// The largest frame a pre-indexed STR can open (saving LR) and the matching
// post-indexed LDR can close: imm9 reaches +255, and frames are 16-aligned.
// Go's MOVD.W/MOVD.P limit, 0xf0, for the same reason.
constexpr int kMaxPreIndexFrame = 0xf0;

// Fixup kinds: which immediate field of the instruction at Fixup::at the
// label's PC-relative offset goes into.
enum FixKind {
  kImm26 = 1,  // B, BL: word offset in bits 0-25
  kImm19 = 2,  // B.cond, CBZ, CBNZ: word offset in bits 5-23
  kAdr21 = 3,  // ADR: byte offset, low 2 bits in 29-30, the rest in 5-23
};

// A64 encodings (Arm ARM, C6), 64-bit forms.
constexpr uint32_t Movz(int rd, uint32_t imm16, int hw) { return 0xD2800000u | hw << 21 | imm16 << 5 | rd; }
constexpr uint32_t Movn(int rd, uint32_t imm16, int hw) { return 0x92800000u | hw << 21 | imm16 << 5 | rd; }
constexpr uint32_t Movk(int rd, uint32_t imm16, int hw) { return 0xF2800000u | hw << 21 | imm16 << 5 | rd; }
// ADD/SUB (immediate): Rd and Rn 31 are SP.
constexpr uint32_t AddImm(int rd, int rn, uint32_t imm12, bool lsl12) {
  return 0x91000000u | uint32_t(lsl12) << 22 | imm12 << 10 | rn << 5 | rd;
}
constexpr uint32_t SubImm(int rd, int rn, uint32_t imm12, bool lsl12) {
  return 0xD1000000u | uint32_t(lsl12) << 22 | imm12 << 10 | rn << 5 | rd;
}
// ADD (shifted register, LSL #0): register 31 is XZR.
constexpr uint32_t AddReg(int rd, int rn, int rm) { return 0x8B000000u | rm << 16 | rn << 5 | rd; }
// MOV Xd, Xm is ORR Xd, XZR, Xm.
constexpr uint32_t MovReg(int rd, int rm) { return 0xAA000000u | rm << 16 | kZR << 5 | rd; }
// MUL is MADD with XZR as the addend.
constexpr uint32_t Mul(int rd, int rn, int rm) { return 0x9B000000u | rm << 16 | kZR << 10 | rn << 5 | rd; }
// CMP Xn, Xm is SUBS XZR, Xn, Xm; with SP as Xn it needs the extended
// register form (UXTX), which is what Go's CMP R16, RSP assembles to.
constexpr uint32_t CmpReg(int rn, int rm) { return 0xEB000000u | rm << 16 | rn << 5 | kZR; }
constexpr uint32_t CmpSpReg(int rm) { return 0xEB206000u | rm << 16 | kSP << 5 | kZR; }
// LDR/STR Xt, [Xn|SP, #imm] with imm a multiple of 8 below 32768.
constexpr uint32_t Ldr(int rt, int rn, uint32_t off) { return 0xF9400000u | (off / 8) << 10 | rn << 5 | rt; }
constexpr uint32_t Str(int rt, int rn, uint32_t off) { return 0xF9000000u | (off / 8) << 10 | rn << 5 | rt; }
// STR Xt, [Xn|SP, #imm9]! and LDR Xt, [Xn|SP], #imm9.
constexpr uint32_t StrPre(int rt, int rn, int imm9) { return 0xF8000C00u | (uint32_t(imm9) & 0x1ff) << 12 | rn << 5 | rt; }
// LDUR/STUR Q0, [Xn, #imm9]: vload and vstore, 16 bytes through V0.
constexpr uint32_t LdurQ(int rt, int rn, int imm9) { return 0x3CC00000u | (uint32_t(imm9) & 0x1ff) << 12 | rn << 5 | rt; }
constexpr uint32_t SturQ(int rt, int rn, int imm9) { return 0x3C800000u | (uint32_t(imm9) & 0x1ff) << 12 | rn << 5 | rt; }
constexpr uint32_t LdrPost(int rt, int rn, int imm9) { return 0xF8400400u | (uint32_t(imm9) & 0x1ff) << 12 | rn << 5 | rt; }
// Branches, their offsets filled in by Resolve.
constexpr uint32_t kB = 0x14000000u;
constexpr uint32_t kBl = 0x94000000u;
constexpr uint32_t BCond(int cond) { return 0x54000000u | cond; }
constexpr int kCondLS = 9;  // unsigned lower or same
constexpr uint32_t Cbz(int rt) { return 0xB4000000u | rt; }
constexpr uint32_t Cbnz(int rt) { return 0xB5000000u | rt; }
constexpr uint32_t Adr(int rd) { return 0x10000000u | rd; }
constexpr uint32_t Br(int rn) { return 0xD61F0000u | rn << 5; }
constexpr uint32_t Blr(int rn) { return 0xD63F0000u | rn << 5; }
constexpr uint32_t kRet = 0xD65F03C0u;
constexpr uint32_t Udf(uint32_t imm16) { return imm16 & 0xffff; }  // UDF #0 is Go's UNDEF on arm64
// LDXR Xt, [Xn]; STXR Ws, Xt, [Xn]; CBNZ Wt (ARMv8.0: cortex-a72 has no LSE atomics).
constexpr uint32_t Ldxr(int rt, int rn) { return 0xC85F7C00u | rn << 5 | rt; }
constexpr uint32_t Stxr(int ws, int rt, int rn) { return 0xC8007C00u | ws << 16 | rn << 5 | rt; }
constexpr uint32_t CbnzW(int rt) { return 0x35000000u | rt; }
// FMOV Dd, Xn (the low 64 bits, the rest zeroed); FMOV Vd.D[1], Xn (the high 64).
constexpr uint32_t FmovDX(int vd, int rn) { return 0x9E670000u | rn << 5 | vd; }
constexpr uint32_t FmovVHiX(int vd, int rn) { return 0x9EAF0000u | rn << 5 | vd; }
// STP Qt, Qt2, [Xn|SP, #imm] (signed offset, a multiple of 16 below 1024).
constexpr uint32_t StpQ(int rt, int rt2, int rn, uint32_t off) {
  return 0xAD000000u | ((off / 16) & 0x7f) << 15 | rt2 << 10 | rn << 5 | rt;
}
// MRS Xt, <reg> and MSR <reg>, Xt for the flag and control registers
// asyncPreempt saves (op0=3 op1=3 CRn=4: NZCV CRm=2 op2=0, FPCR CRm=4
// op2=0, FPSR CRm=4 op2=1), by their names in the port's table.
uint32_t SysReg(std::string_view name) { return name == "nzcv" ? 0x4200u : name == "fpcr" ? 0x4400u : 0x4420u; }
uint32_t Mrs(int rt, std::string_view reg) { return 0xD53B0000u | SysReg(reg) | rt; }
uint32_t Msr(std::string_view reg, int rt) { return 0xD51B0000u | SysReg(reg) | rt; }

void Branch(Asm& a, uint32_t insn, int label, FixKind kind) {
  a.Insn32(insn);
  a.Fix(label, kind);
}

// A 64-bit constant in as few instructions as Go's assembler uses: MOVZ (or
// MOVN, when more halfwords are 0xffff than 0) for one halfword, then MOVK
// for every other halfword that differs from the background.
void MovImm(Asm& a, int rd, uint64_t v) {
  int zeros = 0, ones = 0;
  for (int hw = 0; hw < 4; hw++) {
    uint32_t h = (v >> (16 * hw)) & 0xffff;
    zeros += h == 0;
    ones += h == 0xffff;
  }
  bool inverted = ones > zeros;
  uint32_t background = inverted ? 0xffff : 0;
  bool first = true;
  for (int hw = 0; hw < 4; hw++) {
    uint32_t h = (v >> (16 * hw)) & 0xffff;
    if (h == background) continue;
    if (first) {
      a.Insn32(inverted ? Movn(rd, ~h & 0xffff, hw) : Movz(rd, h, hw));
      first = false;
    } else {
      a.Insn32(Movk(rd, h, hw));
    }
  }
  if (first) a.Insn32(inverted ? Movn(rd, 0, 0) : Movz(rd, 0, 0));
}

// rd = rn + imm in one ADD or SUB (immediate) if imm fits imm12, optionally
// shifted by 12; false if it does not.
bool AddSubImm(Asm& a, int rd, int rn, int64_t imm) {
  bool sub = imm < 0;
  uint64_t u = sub ? static_cast<uint64_t>(-imm) : static_cast<uint64_t>(imm);
  bool lsl12;
  if (u < 4096) {
    lsl12 = false;
  } else if ((u & 0xfff) == 0 && u < (uint64_t{1} << 24)) {
    lsl12 = true;
    u >>= 12;
  } else {
    return false;
  }
  uint32_t imm12 = static_cast<uint32_t>(u);
  a.Insn32(sub ? SubImm(rd, rn, imm12, lsl12) : AddImm(rd, rn, imm12, lsl12));
  return true;
}

// SP adjustments by a frame size. Validate caps frames at 4096 bytes after
// rounding, so one ADD/SUB (immediate) always does; a larger one would be
// an emitter bug, not a program error.
void AdjustSP(Asm& a, int64_t delta) {
  if (!AddSubImm(a, kSP, kSP, delta)) __builtin_trap();
}

// Opens a restartable sequence, except in a function that restarts at its
// entry as a whole: there the entry already re-runs every sequence, and the
// runtime, which looks at restart sequences first, would resume at the
// sequence instead (Go's PCDATA gives a PC one unsafe-point value).
void BeginRestart(Asm& a, const FuncCtx& ctx) {
  if (!ctx.fn->restart_at_entry) a.BeginRegion(Asm::kRestartable);
}
void EndRestart(Asm& a, const FuncCtx& ctx) {
  if (!ctx.fn->restart_at_entry) a.EndRegion();
}

// X27 = value, then `insn`, which consumes X27: one restartable sequence.
void ThroughTmp(Asm& a, const FuncCtx& ctx, uint64_t value, uint32_t insn) {
  BeginRestart(a, ctx);
  MovImm(a, kTmp, value);
  a.Insn32(insn);
  EndRestart(a, ctx);
}


uint64_t Global(const EmitEnv& env, int64_t n) { return env.globals + 8 * static_cast<uint64_t>(n); }

class Arm64Lowerer final : public Lowerer {
 public:
  int VectorTiers() const override { return 1; }  // Q0-Q31
  int NumAllocatable() const override { return ir::kPortableRegs; }

  int FrameSize(int locals, bool leaf) const override {
    if (leaf) return (locals + 15) & ~15;
    return (8 + locals + 15) & ~15;  // the saved LR at 0(SP), SP kept 16-byte aligned
  }

  void StackCheck(Asm& a, const FuncCtx& ctx) override {
    a.Insn32(Ldr(X16, kG, G_STACKGUARD0));  // MOVD 16(g), R16
    if (ctx.frame <= STACK_SMALL) {
      a.Insn32(CmpSpReg(X16));  // CMP R16, RSP
    } else {
      // SUB $(frame-StackSmall), RSP, R17; CMP R16, R17. frame <= 4096, so the
      // immediate always fits and SP - imm cannot wrap on a real stack.
      AddSubImm(a, X17, kSP, -(ctx.frame - STACK_SMALL));
      a.Insn32(CmpReg(X17, X16));
    }
    Branch(a, BCond(kCondLS), ctx.tail_label, kImm19);  // BLS tail
  }

  void FrameSetup(Asm& a, const FuncCtx& ctx) override {
    if (ctx.frame == 0) return;
    if (ctx.leaf) {
      AdjustSP(a, -ctx.frame);
      a.Sp(ctx.frame, false);
    } else if (ctx.frame <= kMaxPreIndexFrame) {
      // MOVD.W R30, -frame(RSP): the frame opens and LR is saved in one
      // instruction, so no PC sees a frame without its LR.
      a.Insn32(StrPre(kLR, kSP, -ctx.frame));
      a.Sp(ctx.frame, true);
    } else {
      AdjustSP(a, -ctx.frame);
      a.Sp(ctx.frame, false);
      a.Insn32(Str(kLR, kSP, 0));
      a.Sp(ctx.frame, true);
    }
  }
  // Frame slots live above the saved LR in a frame that has one.
  int SlotBase(const FuncCtx& ctx) const override { return ctx.leaf ? 0 : 8; }

  void Lower(Asm& a, const FuncCtx& ctx, const ir::Insn& i, int target, int aux, const EmitEnv& env) override {
    using ir::Op;
    switch (i.op) {
      case Op::kMovi:
        MovImm(a, kRegs[i.rd], static_cast<uint64_t>(i.imm));
        break;
      case Op::kAddi: {
        // One ADD/SUB (immediate) for |imm| below 2048, as the oracle models
        // the assembler; anything larger goes through REGTMP as one
        // restartable sequence (never the two-instruction LSL #12 form).
        int64_t imm = static_cast<int32_t>(i.imm);
        int r = kRegs[i.rd];
        if (imm >= -2048 && imm <= 2047) {
          AddSubImm(a, r, r, imm);
        } else {
          ThroughTmp(a, ctx, static_cast<uint64_t>(imm), AddReg(r, r, kTmp));
        }
        break;
      }
      case Op::kMuli: {
        int r = kRegs[i.rd];
        ThroughTmp(a, ctx, static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(i.imm))), Mul(r, r, kTmp));
        break;
      }
      case Op::kAdd:
        a.Insn32(AddReg(kRegs[i.rd], kRegs[i.rd], kRegs[i.rs]));
        break;
      case Op::kMov:
        a.Insn32(MovReg(kRegs[i.rd], kRegs[i.rs]));
        break;
      case Op::kLabel:
        break;
      case Op::kJmp:
        Branch(a, kB, target, kImm26);
        break;
      case Op::kJnz:
        Branch(a, Cbnz(kRegs[i.rs]), target, kImm19);
        break;
      case Op::kJz:
        Branch(a, Cbz(kRegs[i.rs]), target, kImm19);
        break;
      case Op::kCall:
        Branch(a, kBl, target, kImm26);
        break;
      case Op::kRet:
        if (!ctx.leaf && ctx.frame <= kMaxPreIndexFrame && ctx.frame > 0) {
          a.Insn32(LdrPost(kLR, kSP, ctx.frame));  // MOVD.P frame(RSP), R30
        } else {
          if (!ctx.leaf && ctx.frame > 0) a.Insn32(Ldr(kLR, kSP, 0));
          if (ctx.frame > 0) AdjustSP(a, ctx.frame);
        }
        a.Sp(0, false);
        a.Insn32(kRet);
        break;
      case Op::kLdGlobal:
        ThroughTmp(a, ctx, Global(env, i.imm), Ldr(kRegs[i.rd], kTmp, 0));
        break;
      case Op::kStGlobal:
        ThroughTmp(a, ctx, Global(env, i.imm), Str(kRegs[i.rs], kTmp, 0));
        break;
      case Op::kLdSlot:
        a.Insn32(Ldr(kRegs[i.rd], kSP, static_cast<uint32_t>(SlotBase(ctx) + i.imm)));
        break;
      case Op::kStSlot:
        a.Insn32(Str(kRegs[i.rs], kSP, static_cast<uint32_t>(SlotBase(ctx) + i.imm)));
        break;
      case Op::kLdMem:
        a.Insn32(Ldr(kRegs[i.rd], kRegs[i.rs], static_cast<uint32_t>(i.imm)));
        break;
      case Op::kStMem:
        a.Insn32(Str(kRegs[i.rs], kRegs[i.rd], static_cast<uint32_t>(i.imm)));
        break;
      case Op::kAddrSlot:  // ADD rD, RSP, #(slot base + OFF): frames stay below 4096
        if (!AddSubImm(a, kRegs[i.rd], kSP, SlotBase(ctx) + i.imm)) __builtin_trap();
        break;
      case Op::kVLoad:
        a.Insn32(LdurQ(0, kRegs[i.rs], static_cast<int>(i.imm)));
        break;
      case Op::kVStore:
        a.Insn32(SturQ(0, kRegs[i.rd], static_cast<int>(i.imm)));
        break;
      case Op::kFillRegs:
        for (int r = 0; r < ir::kPortableRegs; r++) MovImm(a, kRegs[r], static_cast<uint64_t>(i.imm + r));
        break;
      case Op::kSumRegs:
        // X16 accumulates: asyncPreempt saves it, so every instruction is
        // an ordinary safe point, resumed in place.
        a.Insn32(MovReg(X16, kRegs[0]));
        for (int r = 1; r < ir::kPortableRegs; r++) a.Insn32(AddReg(X16, X16, kRegs[r]));
        a.Insn32(MovReg(kRegs[i.rd], X16));
        break;
      case Op::kAtomicAdd: {
        // g[N] += rS, rS unchanged (core/ir.h); an LDXR/STXR loop with X13 (address), X16 (old), X17
        // (new), W12 (status). Unsafe as Go marks atomics, but only through
        // registers asyncPreempt saves, so a runtime that wrongly preempts
        // here (the skipped-rule mutation) loses nothing: the interruption
        // clears the exclusive monitor and STXR retries.
        int rs = kRegs[i.rs];
        a.BeginRegion(Asm::kUnsafe);
        MovImm(a, X13, Global(env, i.imm));
        int retry = a.NewLabel();
        a.Bind(retry);
        a.Insn32(Ldxr(X16, X13));
        a.Insn32(AddReg(X17, X16, rs));
        a.Insn32(Stxr(X12, X17, X13));
        Branch(a, CbnzW(X12), retry, kImm19);
        a.EndRegion();
        break;
      }
      case Op::kWbStore: {
        // if (*wbflag) g[63] = rS (the barrier's slow path); g[N] = rS. A
        // preemption between the flag test and the store could miss a
        // collection starting: unsafe as a whole.
        // Addresses in X16 (saved), not X27, so a wrong preemption here
        // cannot send a store astray.
        int rs = kRegs[i.rs];
        a.BeginRegion(Asm::kUnsafe);
        MovImm(a, X16, env.wbflag);
        a.Insn32(Ldr(X16, X16, 0));
        int skip = a.NewLabel();
        Branch(a, Cbz(X16), skip, kImm19);
        MovImm(a, X16, Global(env, ir::kGlobals - 1));
        a.Insn32(Str(rs, X16, 0));
        a.Bind(skip);
        MovImm(a, X16, Global(env, i.imm));
        a.Insn32(Str(rs, X16, 0));
        a.EndRegion();
        break;
      }
      case Op::kUseTmp: {
        int r = kRegs[i.rd];
        a.BeginRegion(Asm::kUnsafe);
        MovImm(a, kTmp, 1);
        a.Insn32(AddReg(r, r, kTmp));
        a.EndRegion();
        break;
      }
      case Op::kInlineBegin:
      case Op::kInlineEnd:
        break;  // the driver records the inline tree; no code
      case Op::kDumpRegs:
        for (int r = 0; r < ir::kPortableRegs; r++) ThroughTmp(a, ctx, Global(env, i.imm + r), Str(kRegs[r], kTmp, 0));
        break;
      case Op::kVFill:
        // V0-V31 through X16 (saved by asyncPreempt: ordinary safe points):
        // Qv is words 2v, 2v+1 of the layout (Qv at 16*v).
        for (int v = 0; v < 32; v++) {
          MovImm(a, X16, VectorPattern(i.imm, 2 * v));
          a.Insn32(FmovDX(v, X16));
          MovImm(a, X16, VectorPattern(i.imm, 2 * v + 1));
          a.Insn32(FmovVHiX(v, X16));
        }
        break;
      case Op::kVDump:
        // The area's address in X16 (saved), then V0-V31 in pairs: resumed in place.
        MovImm(a, X16, env.vdump + static_cast<uint64_t>(kVDumpBytes) * static_cast<uint64_t>(i.imm));
        for (int v = 0; v < 32; v += 2) a.Insn32(StpQ(v, v + 1, X16, 16u * v));
        break;
      case Op::kSetFlags:
        // NZCV, FPSR, FPCR = IMM & each one's setflags_mask, through X16.
        for (const SavedReg* f : FlagRegs(kArm64Port)) {
          MovImm(a, X16, static_cast<uint64_t>(i.imm) & f->setflags_mask);
          a.Insn32(Msr(f->name, X16));
        }
        break;
      case Op::kFlagsDump:
        // g[N+k] = the k-th of NZCV, FPSR, FPCR: each MRS, the address in
        // X27 and the store are one restartable sequence (at most 1 + 3 + 1
        // instructions: user addresses have a zero top halfword).
        for (size_t k = 0; k < FlagRegs(kArm64Port).size(); k++) {
          BeginRestart(a, ctx);
          a.Insn32(Mrs(X16, FlagRegs(kArm64Port)[k]->name));
          MovImm(a, kTmp, Global(env, i.imm + static_cast<int64_t>(k)));
          a.Insn32(Str(X16, kTmp, 0));
          EndRestart(a, ctx);
        }
        break;
      case Op::kService:
        if (i.service == ir::Service::kGo) {
          Branch(a, Adr(X0), aux, kAdr21);  // the new goroutine's entry
        } else if (ir::ServiceHasImm(i.service)) {
          MovImm(a, X0, static_cast<uint64_t>(i.imm));
        }
        Branch(a, kBl, target, kImm26);
        break;
    }
  }

  void Tail(Asm& a, const FuncCtx& ctx, const EmitEnv& env) override {
    a.Insn32(Str(X0, kG, G_ARGSPILL));  // spill the register argument
    a.Insn32(MovReg(X3, kLR));          // MOVD R30, R3: morestack learns f's caller
    // The far call through X17 (IP1, AAPCS64's veneer register), not
    // REGTMP: asyncPreempt saves X17, so even a runtime that wrongly
    // preempts in the tail (the skipped-rule mutation) cannot branch astray.
    MovImm(a, X17, env.morestack);
    a.Insn32(Blr(X17));                 // BL runtime.morestack (LR: here, in the tail)
    a.Insn32(Ldr(X0, kG, G_ARGSPILL));
    Branch(a, kB, ctx.entry_label, kImm26);  // and check again
  }

  void ServiceStub(Asm& a, ir::Service s, const EmitEnv& env) override {
    a.Insn32(Str(X0, kG, G_PARAM));
    MovImm(a, X0, env.service_fn[static_cast<int>(s)]);
    MovImm(a, kTmp, ir::ServiceParks(s) ? env.mcall : env.systemstack);
    a.Insn32(Br(kTmp));  // a tail jump: LR still holds the return address in the caller
  }

  void GoexitStub(Asm& a, const EmitEnv& env) override {
    MovImm(a, X0, env.service_fn[static_cast<int>(ir::Service::kGoexit)]);
    MovImm(a, kTmp, env.mcall);
    a.Insn32(Blr(kTmp));
    a.Insn32(Udf(0));  // mcall never returns
  }

  bool Resolve(Asm& a, const Asm::Fixup& f, uint32_t target, std::string* err) override {
    int64_t rel = static_cast<int64_t>(target) - static_cast<int64_t>(f.at);
    uint32_t w = a.Read32(f.at);
    switch (f.kind) {
      case kImm26: {
        int64_t words = rel / 4;
        if (words < -(int64_t{1} << 25) || words >= (int64_t{1} << 25)) {
          *err = "arm64: B/BL target out of range (+-128 MiB)";
          return false;
        }
        w = (w & ~0x03ffffffu) | (static_cast<uint32_t>(words) & 0x03ffffffu);
        break;
      }
      case kImm19: {
        int64_t words = rel / 4;
        if (words < -(int64_t{1} << 18) || words >= (int64_t{1} << 18)) {
          *err = "arm64: conditional branch target out of range (+-1 MiB)";
          return false;
        }
        w = (w & ~(0x7ffffu << 5)) | (static_cast<uint32_t>(words) & 0x7ffffu) << 5;
        break;
      }
      case kAdr21: {
        if (rel < -(int64_t{1} << 20) || rel >= (int64_t{1} << 20)) {
          *err = "arm64: ADR target out of range (+-1 MiB)";
          return false;
        }
        uint32_t u = static_cast<uint32_t>(rel);
        w = (w & ~(3u << 29 | 0x7ffffu << 5)) | (u & 3) << 29 | ((u >> 2) & 0x7ffff) << 5;
        break;
      }
      default:
        *err = "arm64: unknown fixup kind";
        return false;
    }
    a.Write32(f.at, w);
    return true;
  }
};

}  // namespace

std::unique_ptr<Lowerer> NewArm64Lowerer() { return std::make_unique<Arm64Lowerer>(); }

SAFEPOINT_REGISTER_LOWERER("arm64", NewArm64Lowerer);

}  // namespace safepoint
