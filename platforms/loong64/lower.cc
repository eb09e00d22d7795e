// The loong64 Lowerer: the IR in LoongArch64 machine code, following Go's
// loong64 conventions: g in R22, SP R3, RA R1, the stack check
// MOVV 16(g), R20 / SGTU R3, R20, R20 / BEQ R20, tail, and R30 (REGTMP) as
// the emitter's scratch for constants, addresses and indirect jumps.
//
// asyncPreempt does not save REGTMP on loong64 (Go's doesn't either), so
// every IR operation expanded through it is marked restartable (resumed at
// its first instruction, as Go's assembler marks its REGTMP expansions), and
// an explicit use of REGTMP across an operation's boundary is marked unsafe.
// The prologue and epilogue use R19/R20 instead, which asyncPreempt saves.
// The frame layout is in platforms/loong64/README.md.
#include "platforms/loong64/lower.h"

#include <cstdint>

#include "core/offsets.h"
#include "platforms/loong64/port.h"

namespace safepoint {
namespace {

// LoongArch general registers by number (ABI names in comments).
enum : int {
  R0 = 0,    // $zero
  R1 = 1,    // $ra
  R3 = 3,    // $sp
  R4 = 4,    // $a0..$a7: R4..R11
  R19 = 19,  // $t7
  R20 = 20,  // $t8
  R22 = 22,  // $fp in the C ABI, g here: C code preserves it for us
  R23 = 23,  // $s0..$s8: R23..R31, callee-saved in the C ABI
  R30 = 30,
  R31 = 31,
};
constexpr int kZero = R0, kRA = R1, kSP = R3, kA0 = R4, kG = R22, kTmp = R30;
// Free at entry (only r0 is live there) and at ret: the stack check's
// registers, and the prologue's and epilogue's temporary for large frames.
constexpr int kEntryTmp = R20, kEntryTmp2 = R19;
// In the body, R20 and R19 are the vector/flag operations' and sumregs'
// scratch: asyncPreempt saves them (REGTMP it does not), so code using
// them is an ordinary safe point resumed in place.
constexpr int kSaved = R20, kSaved2 = R19;
// The tail hands f's caller's RA to morestack here, as Go's loong64 tail does.
constexpr int kTailRA = R31;
// IR register i -> machine register. r0 is $a0 (argument and result). The
// IR registers amd64 keeps in SysV callee-saved registers (r1 = RBX, r9..r11
// = R12, R13, R15) are in LP64 callee-saved ones here ($s0..$s3), so that a
// service (C++ on g0) leaves the same IR registers intact on both ports.
// Never used: R2 ($tp, thread_local), R19/R20 (entry), R21 (reserved by the
// C ABI), R22 (g), R30 (REGTMP), R31 (the tail's RA).
constexpr int kRegs[] = {kA0, R23, 5, 6, 7, 8, 9, 10, 11, R23 + 1, R23 + 2, R23 + 3};
static_assert(sizeof(kRegs) / sizeof(kRegs[0]) == ir::kPortableRegs);

// The saved RA occupies 0(SP) of every frame; locals start above it.
constexpr int kLocalsBase = 8;

enum FixKind {
  kB26 = 1,   // b, bl: offs26 in 4-byte units, split 16 (bits 25:10) + 10 (bits 9:0)
  kB21 = 2,   // beqz, bnez: offs21, split 16 (bits 25:10) + 5 (bits 4:0)
  kPc20 = 3,  // pcaddi: si20 in bits 24:5
};

// Encodings (LoongArch Reference Manual vol. 1): 3R op|rk<<10|rj<<5|rd;
// 2RI12 op|si12<<10|rj<<5|rd; 2RI14 (ldptr/stptr) op|si14<<10|rj<<5|rd;
// 1RI20 op|si20<<5|rd; branches take offsets from their own PC in 4-byte
// units, split across the word as FixKind says.
bool FitsSigned(int64_t v, int bits) { return v >= -(int64_t(1) << (bits - 1)) && v < (int64_t(1) << (bits - 1)); }

uint32_t R3Op(uint32_t op, int rd, int rj, int rk) { return op | uint32_t(rk) << 10 | uint32_t(rj) << 5 | uint32_t(rd); }
uint32_t Ri12(uint32_t op, int rd, int rj, int64_t imm) {
  return op | (uint32_t(imm) & 0xfff) << 10 | uint32_t(rj) << 5 | uint32_t(rd);
}
uint32_t Ri14(uint32_t op, int rd, int rj, int64_t imm) {
  return op | (uint32_t(imm) & 0x3fff) << 10 | uint32_t(rj) << 5 | uint32_t(rd);
}
uint32_t Ri20(uint32_t op, int rd, int64_t imm) { return op | (uint32_t(imm) & 0xfffff) << 5 | uint32_t(rd); }

void AddD(Asm& a, int rd, int rj, int rk) { a.Insn32(R3Op(0x00108000u, rd, rj, rk)); }
void Sltu(Asm& a, int rd, int rj, int rk) { a.Insn32(R3Op(0x00128000u, rd, rj, rk)); }
void Or(Asm& a, int rd, int rj, int rk) { a.Insn32(R3Op(0x00150000u, rd, rj, rk)); }
void Move(Asm& a, int rd, int rs) { Or(a, rd, rs, kZero); }
void MulD(Asm& a, int rd, int rj, int rk) { a.Insn32(R3Op(0x001d8000u, rd, rj, rk)); }
// amadd_db.d rd, rk, (rj): [rj] += rk atomically, fully fenced; rd = the old value.
void AmaddDbD(Asm& a, int rd, int rk, int rj) { a.Insn32(R3Op(0x386a8000u, rd, rj, rk)); }
void AddiW(Asm& a, int rd, int rj, int64_t imm) { a.Insn32(Ri12(0x02800000u, rd, rj, imm)); }
void AddiD(Asm& a, int rd, int rj, int64_t imm) { a.Insn32(Ri12(0x02c00000u, rd, rj, imm)); }
void Lu52iD(Asm& a, int rd, int rj, int64_t imm) { a.Insn32(Ri12(0x03000000u, rd, rj, imm)); }
void Ori(Asm& a, int rd, int rj, int64_t imm) { a.Insn32(Ri12(0x03800000u, rd, rj, imm)); }
void Lu12iW(Asm& a, int rd, int64_t imm) { a.Insn32(Ri20(0x14000000u, rd, imm)); }
void Lu32iD(Asm& a, int rd, int64_t imm) { a.Insn32(Ri20(0x16000000u, rd, imm)); }
void Jirl(Asm& a, int rd, int rj) { a.Insn32(0x4c000000u | uint32_t(rj) << 5 | uint32_t(rd)); }
void Break(Asm& a, uint32_t code) { a.Insn32(0x002a0000u | (code & 0x7fff)); }
// FCC moves and bit insertion.
void Movgr2cf(Asm& a, int cd, int rj) { a.Insn32(0x0114d800u | uint32_t(rj) << 5 | uint32_t(cd)); }
void Movcf2gr(Asm& a, int rd, int cj) { a.Insn32(0x0114dc00u | uint32_t(cj) << 5 | uint32_t(rd)); }
void BstrinsD(Asm& a, int rd, int rj, int msb, int lsb) {  // rd[msb:lsb] = rj[msb-lsb:0]
  a.Insn32(0x00800000u | uint32_t(msb) << 16 | uint32_t(lsb) << 10 | uint32_t(rj) << 5 | uint32_t(rd));
}
// LASX: xvinsgr2vr.d xd, rj, ui2 (64-bit element ui2 of xd = rj, the rest
// kept); xvst xd, rj, si12 (all 256 bits).
void Xvinsgr2vrD(Asm& a, int xd, int rj, int ui2) {
  a.Insn32(0x76ebe000u | uint32_t(ui2 & 3) << 10 | uint32_t(rj) << 5 | uint32_t(xd));
}
// LSX: vld/vst vd, rj, si12 (128 bits): vload and vstore through VR0.
void Vld(Asm& a, int vd, int rj, int64_t off) { a.Insn32(Ri12(0x2c000000u, vd, rj, off)); }
void Vst(Asm& a, int vd, int rj, int64_t off) { a.Insn32(Ri12(0x2c400000u, vd, rj, off)); }
void Xvst(Asm& a, int xd, int rj, int64_t off) { a.Insn32(Ri12(0x2cc00000u, xd, rj, off)); }
// movgr2fcsr fcsr0, rj; movfcsr2gr rd, fcsr0.
void Movgr2fcsr0(Asm& a, int rj) { a.Insn32(0x0114c000u | uint32_t(rj) << 5); }
void Movfcsr02gr(Asm& a, int rd) { a.Insn32(0x0114c800u | uint32_t(rd)); }
// $xr0-$xr31, four 64-bit lanes each: the base tier's layout has $xr_v at 32*v.
constexpr int kVectorRegs = 32, kLanes = 4, kFccs = 8;

// 8-byte load/store at base+off: ld.d/st.d reach +-2 KiB, ldptr.d/stptr.d
// (offset in 4-byte units) reach the rest of a frame up to StackBig.
void LdD(Asm& a, int rd, int base, int64_t off) {
  if (FitsSigned(off, 12)) {
    a.Insn32(Ri12(0x28c00000u, rd, base, off));
  } else {
    a.Insn32(Ri14(0x26000000u, rd, base, off >> 2));
  }
}
void StD(Asm& a, int rd, int base, int64_t off) {
  if (FitsSigned(off, 12)) {
    a.Insn32(Ri12(0x29c00000u, rd, base, off));
  } else {
    a.Insn32(Ri14(0x27000000u, rd, base, off >> 2));
  }
}

// Any 64-bit value in a fixed four instructions (as amd64's MOVABS has a
// fixed length): every instruction only refines rd, and the code's length
// does not depend on the value (addresses differ between the emitter tests
// and a run).
void Mov64(Asm& a, int rd, uint64_t v) {
  Lu12iW(a, rd, static_cast<int64_t>(v >> 12));
  Ori(a, rd, rd, static_cast<int64_t>(v & 0xfff));
  Lu32iD(a, rd, static_cast<int64_t>(v >> 32));
  Lu52iD(a, rd, rd, static_cast<int64_t>(v >> 52));
}

// A 32-bit signed immediate in as few instructions as it takes, as Go's
// MOVV $c does: ori for 0..4095, addi.w for -2048..-1, else lu12i.w (which
// sign-extends bit 31 into the upper half) and ori for the low 12 bits.
void Mov32(Asm& a, int rd, int32_t v) {
  if (v >= 0 && v < 4096) {
    Ori(a, rd, kZero, v);
  } else if (FitsSigned(v, 12)) {
    AddiW(a, rd, kZero, v);
  } else {
    Lu12iW(a, rd, v >> 12);
    if (v & 0xfff) Ori(a, rd, rd, v & 0xfff);
  }
}

// rd = rj + imm for any 32-bit imm, through `tmp` when it does not fit 12
// bits; rd is written by the last instruction only.
void AddImm(Asm& a, int rd, int rj, int32_t imm, int tmp) {
  if (FitsSigned(imm, 12)) {
    AddiD(a, rd, rj, imm);
  } else {
    Mov32(a, tmp, imm);
    AddD(a, rd, rj, tmp);
  }
}

// One IR operation expanded through REGTMP: a preemption inside resumes at
// its first instruction, which recomputes REGTMP. Every such sequence writes
// its IR destination (or memory) with its last instruction only.
// In a function marked restartatentry no sequence is recorded: a
// preemption anywhere in it resumes at the entry, which recomputes REGTMP
// too (the oracle's order: the function's mark over the sequence's).
class Restartable {
 public:
  Restartable(Asm& a, const FuncCtx& ctx) : a_(a), on_(!(ctx.fn && ctx.fn->restart_at_entry)) {
    if (on_) a_.BeginRegion(Asm::kRestartable);
  }
  ~Restartable() {
    if (on_) a_.EndRegion();
  }

 private:
  Asm& a_;
  bool on_;
};

void Branch(Asm& a, uint32_t op, int label) {  // b / bl
  a.Insn32(op);
  a.Fix(label, kB26);
}
void BranchZ(Asm& a, uint32_t op, int rj, int label) {  // beqz / bnez
  a.Insn32(op | uint32_t(rj) << 5);
  a.Fix(label, kB21);
}
constexpr uint32_t kOpB = 0x50000000u, kOpBl = 0x54000000u, kOpBeqz = 0x40000000u, kOpBnez = 0x44000000u;

uint64_t GlobalAddr(const EmitEnv& env, int64_t n) { return env.globals + 8 * static_cast<uint64_t>(n); }

class Loong64Lowerer final : public Lowerer {
 public:
  int VectorTiers() const override { return 1; }  // $xr0-$xr31
  int NumAllocatable() const override { return ir::kPortableRegs; }

  // Every frame keeps 0(SP) for RA, even a leaf's (where it stays unused),
  // so that slot OFF is at 8+OFF(SP) in every function; frames are
  // multiples of 16 to keep the C ABI's alignment wherever SP is.
  int FrameSize(int locals, bool leaf) const override {
    if (leaf && locals == 0) return 0;
    return (kLocalsBase + locals + 15) & ~15;
  }

  void StackCheck(Asm& a, const FuncCtx& ctx) override {
    LdD(a, kEntryTmp, kG, G_STACKGUARD0);  // MOVV 16(g), R20
    int cmp = kSP;
    if (ctx.frame > STACK_SMALL) {
      // SP-(frame-StackSmall) < stackguard; frames are below StackBig, so
      // this cannot wrap.
      AddImm(a, kEntryTmp2, kSP, -(ctx.frame - STACK_SMALL), kEntryTmp2);
      cmp = kEntryTmp2;
    }
    Sltu(a, kEntryTmp, kEntryTmp, cmp);  // R20 = stackguard < SP (SGTU SP, R20, R20)
    BranchZ(a, kOpBeqz, kEntryTmp, ctx.tail_label);
  }

  void FrameSetup(Asm& a, const FuncCtx& ctx) override {
    if (ctx.frame == 0) return;
    // One instruction moves SP, so SP is never half-adjusted.
    AddImm(a, kSP, kSP, -ctx.frame, kEntryTmp);
    a.Sp(ctx.frame, false);
    if (!ctx.leaf) {
      StD(a, kRA, kSP, 0);
      a.Sp(ctx.frame, true);
    }
  }
  int SlotBase(const FuncCtx&) const override { return kLocalsBase; }

  void Lower(Asm& a, const FuncCtx& ctx, const ir::Insn& i, int target, int aux, const EmitEnv& env) override {
    using ir::Op;
    switch (i.op) {
      case Op::kMovi:
        Mov64(a, kRegs[i.rd], static_cast<uint64_t>(i.imm));
        break;
      case Op::kAddi:
        if (FitsSigned(i.imm, 12)) {
          AddiD(a, kRegs[i.rd], kRegs[i.rd], i.imm);
        } else {
          Restartable r(a, ctx);
          AddImm(a, kRegs[i.rd], kRegs[i.rd], static_cast<int32_t>(i.imm), kTmp);
        }
        break;
      case Op::kMuli: {
        Restartable r(a, ctx);
        Mov32(a, kTmp, static_cast<int32_t>(i.imm));
        MulD(a, kRegs[i.rd], kRegs[i.rd], kTmp);
        break;
      }
      case Op::kAdd:
        AddD(a, kRegs[i.rd], kRegs[i.rd], kRegs[i.rs]);
        break;
      case Op::kMov:
        Move(a, kRegs[i.rd], kRegs[i.rs]);
        break;
      case Op::kLabel:
        break;
      case Op::kJmp:
        Branch(a, kOpB, target);
        break;
      case Op::kJnz:
        BranchZ(a, kOpBnez, kRegs[i.rs], target);
        break;
      case Op::kJz:
        BranchZ(a, kOpBeqz, kRegs[i.rs], target);
        break;
      case Op::kCall:
        Branch(a, kOpBl, target);
        break;
      case Op::kRet:
        if (!ctx.leaf && ctx.frame > 0) LdD(a, kRA, kSP, 0);
        if (ctx.frame > 0) AddImm(a, kSP, kSP, ctx.frame, kEntryTmp);
        a.Sp(0, false);
        Jirl(a, kZero, kRA);
        break;
      case Op::kLdGlobal: {
        Restartable r(a, ctx);
        Mov64(a, kTmp, GlobalAddr(env, i.imm));
        LdD(a, kRegs[i.rd], kTmp, 0);
        break;
      }
      case Op::kStGlobal: {
        Restartable r(a, ctx);
        Mov64(a, kTmp, GlobalAddr(env, i.imm));
        StD(a, kRegs[i.rs], kTmp, 0);
        break;
      }
      case Op::kLdSlot:
        LdD(a, kRegs[i.rd], kSP, kLocalsBase + i.imm);
        break;
      case Op::kStSlot:
        StD(a, kRegs[i.rs], kSP, kLocalsBase + i.imm);
        break;
      case Op::kLdMem:
        LdD(a, kRegs[i.rd], kRegs[i.rs], i.imm);
        break;
      case Op::kStMem:
        StD(a, kRegs[i.rs], kRegs[i.rd], i.imm);
        break;
      case Op::kAddrSlot:  // beyond 12 bits through the saved scratch: resumed in place
        AddImm(a, kRegs[i.rd], kSP, static_cast<int32_t>(kLocalsBase + i.imm), kSaved2);
        break;
      case Op::kVLoad:
        Vld(a, 0, kRegs[i.rs], i.imm);
        break;
      case Op::kVStore:
        Vst(a, 0, kRegs[i.rd], i.imm);
        break;
      case Op::kFillRegs:
        for (int r = 0; r < ir::kPortableRegs; r++) Mov64(a, kRegs[r], static_cast<uint64_t>(i.imm + r));
        break;
      case Op::kSumRegs:
        // A saved scratch accumulates (not REGTMP): resumed in place.
        Move(a, kSaved, kRegs[0]);
        for (int k = 1; k < ir::kPortableRegs; k++) AddD(a, kSaved, kSaved, kRegs[k]);
        Move(a, kRegs[i.rd], kSaved);
        break;
      case Op::kDumpRegs:
        for (int k = 0; k < ir::kPortableRegs; k++) {
          Restartable r(a, ctx);
          Mov64(a, kTmp, GlobalAddr(env, i.imm + k));
          StD(a, kRegs[k], kTmp, 0);
        }
        break;
      case Op::kAtomicAdd:
        // The address load and the AM op are one compiler-marked unsafe
        // sequence, as Go marks its atomics. The old value is discarded
        // ($zero), so rS keeps the addend.
        a.BeginRegion(Asm::kUnsafe);
        Mov64(a, kTmp, GlobalAddr(env, i.imm));
        AmaddDbD(a, kZero, kRegs[i.rs], kTmp);
        a.EndRegion();
        break;
      case Op::kWbStore: {
        // if (*wbflag) { the barrier's slow path: g[63] = rS } then the
        // store. Unsafe as a whole: a preemption between the flag test and
        // the store could miss a collection starting.
        a.BeginRegion(Asm::kUnsafe);
        int skip = a.NewLabel();
        Mov64(a, kTmp, env.wbflag);
        LdD(a, kTmp, kTmp, 0);
        BranchZ(a, kOpBeqz, kTmp, skip);
        Mov64(a, kTmp, GlobalAddr(env, ir::kGlobals - 1));
        StD(a, kRegs[i.rs], kTmp, 0);
        a.Bind(skip);
        Mov64(a, kTmp, GlobalAddr(env, i.imm));
        StD(a, kRegs[i.rs], kTmp, 0);
        a.EndRegion();
        break;
      }
      case Op::kUseTmp:
        // An instruction that names REGTMP itself: unsafe, as Go's
        // assembler marks one.
        a.BeginRegion(Asm::kUnsafe);
        Ori(a, kTmp, kZero, 1);
        AddD(a, kRegs[i.rd], kRegs[i.rd], kTmp);
        a.EndRegion();
        break;
      case Op::kInlineBegin:
      case Op::kInlineEnd:
        break;  // the driver records the inline tree; no code
      case Op::kVFill:
        // Each LASX register, lane by lane through the saved scratch: lane l
        // of $xr_v is word 4v+l of the layout.
        for (int v = 0; v < kVectorRegs; v++)
          for (int l = 0; l < kLanes; l++) {
            Mov64(a, kSaved, VectorPattern(i.imm, kLanes * v + l));
            Xvinsgr2vrD(a, v, kSaved, l);
          }
        break;
      case Op::kVDump:
        // The address in the saved scratch: resumed in place anywhere.
        Mov64(a, kSaved, env.vdump + static_cast<uint64_t>(kVDumpBytes) * static_cast<uint64_t>(i.imm));
        for (int v = 0; v < kVectorRegs; v++) Xvst(a, v, kSaved, 8 * kLanes * v);
        break;
      case Op::kSetFlags:
        // Each flag register of the table = IMM & its setflags_mask: fcc_i
        // = bit i of IMM (mask 0xFF); fcsr0's Flags and Cause (RM and
        // Enables zero).
        for (const SavedReg* f : FlagRegs(kLoong64Port)) {
          if (f->name == "fcc") {
            for (int c = 0; c < kFccs; c++) {
              Ori(a, kSaved, kZero, (i.imm & f->setflags_mask) >> c & 1);
              Movgr2cf(a, c, kSaved);
            }
          } else {
            Mov32(a, kSaved, static_cast<int32_t>(static_cast<uint64_t>(i.imm) & f->setflags_mask & 0x7fffffff));
            Movgr2fcsr0(a, kSaved);
          }
        }
        break;
      case Op::kFlagsDump:
        // g[N+k] = the k-th flag register (fcc0..7 packed, bit i = fcc_i;
        // fcsr0): the value in the saved scratch, then its address and store
        // through REGTMP, restartable.
        for (size_t k = 0; k < FlagRegs(kLoong64Port).size(); k++) {
          if (FlagRegs(kLoong64Port)[k]->name == "fcc") {
            Movcf2gr(a, kSaved, 0);
            for (int c = 1; c < kFccs; c++) {
              Movcf2gr(a, kSaved2, c);
              BstrinsD(a, kSaved, kSaved2, c, c);
            }
          } else {
            Movfcsr02gr(a, kSaved);
          }
          Restartable r(a, ctx);
          Mov64(a, kTmp, GlobalAddr(env, i.imm + static_cast<int64_t>(k)));
          StD(a, kSaved, kTmp, 0);
        }
        break;
      case Op::kService:
        if (i.service == ir::Service::kGo) {
          a.Insn32(Ri20(0x18000000u, kA0, 0));  // pcaddi $a0, F
          a.Fix(aux, kPc20);
        } else if (ir::ServiceHasImm(i.service)) {
          Mov64(a, kA0, static_cast<uint64_t>(i.imm));
        }
        Branch(a, kOpBl, target);
        break;
    }
  }

  void Tail(Asm& a, const FuncCtx& ctx, const EmitEnv& env) override {
    StD(a, kA0, kG, G_ARGSPILL);  // spill the register argument
    Move(a, kTailRA, kRA);        // f's return address, for morestack
    Mov64(a, kTmp, env.morestack);
    Jirl(a, kRA, kTmp);           // morestack; resumed here through g.sched
    LdD(a, kA0, kG, G_ARGSPILL);
    Branch(a, kOpB, ctx.entry_label);  // and check again
  }

  void ServiceStub(Asm& a, ir::Service s, const EmitEnv& env) override {
    StD(a, kA0, kG, G_PARAM);
    Mov64(a, kA0, env.service_fn[static_cast<int>(s)]);
    Mov64(a, kTmp, ir::ServiceParks(s) ? env.mcall : env.systemstack);
    Jirl(a, kZero, kTmp);  // a tail jump: RA still returns to the call site
  }

  void GoexitStub(Asm& a, const EmitEnv& env) override {
    Mov64(a, kA0, env.service_fn[static_cast<int>(ir::Service::kGoexit)]);
    Mov64(a, kTmp, env.mcall);
    Jirl(a, kRA, kTmp);
    Break(a, 0);  // mcall never returns
  }

  bool Resolve(Asm& a, const Asm::Fixup& f, uint32_t target, std::string* err) override {
    int64_t rel = static_cast<int64_t>(target) - static_cast<int64_t>(f.at);
    if (rel % 4 != 0) {
      *err = "loong64: misaligned branch target";
      return false;
    }
    int64_t offs = rel / 4;
    uint32_t w = a.Read32(f.at);
    uint32_t u = static_cast<uint32_t>(offs);
    switch (f.kind) {
      case kB26:
        if (!FitsSigned(offs, 26)) break;
        a.Write32(f.at, w | (u & 0xffff) << 10 | ((u >> 16) & 0x3ff));
        return true;
      case kB21:
        if (!FitsSigned(offs, 21)) break;
        a.Write32(f.at, w | (u & 0xffff) << 10 | ((u >> 16) & 0x1f));
        return true;
      case kPc20:
        if (!FitsSigned(offs, 20)) break;
        a.Write32(f.at, w | (u & 0xfffff) << 5);
        return true;
      default:
        *err = "loong64: unknown fixup kind";
        return false;
    }
    *err = "loong64: branch out of range";
    return false;
  }
};

}  // namespace

std::unique_ptr<Lowerer> NewLoong64Lowerer() { return std::make_unique<Loong64Lowerer>(); }

SAFEPOINT_REGISTER_LOWERER("loong64", NewLoong64Lowerer);

}  // namespace safepoint
