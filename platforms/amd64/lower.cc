// The amd64 Lowerer: the IR in x86-64 machine code, following Go's amd64
// conventions: g in R14, the stack check CMPQ SP, 16(R14) / JLS, R11 as the
// emitter's scratch register (asyncPreempt saves it, so amd64 needs no
// restartable sequences: every multi-instruction idiom here stays valid if
// interrupted between its instructions).
#include "platforms/amd64/lower.h"

#include <cstdint>

#include "core/offsets.h"
#include "platforms/amd64/port.h"

namespace safepoint {
namespace {

// x86 register numbers.
enum : int { RAX = 0, RCX, RDX, RBX, RSP, RBP, RSI, RDI, R8, R9, R10, R11, R12, R13, R14, R15 };
constexpr int kG = R14;
constexpr int kTmp = R11;
// IR register i -> machine register. r0 is RAX (argument and result).
constexpr int kRegs[] = {RAX, RBX, RCX, RDX, RSI, RDI, R8, R9, R10, R12, R13, R15};
static_assert(sizeof(kRegs) / sizeof(kRegs[0]) == ir::kPortableRegs);

enum FixKind { kRel32At1 = 1, kRel32At2 = 2, kRel32At3 = 3 };

uint8_t Rex(int reg, int rm) { return 0x48 | ((reg >> 3) & 1) << 2 | ((rm >> 3) & 1); }
uint8_t ModRM(int mod, int reg, int rm) { return static_cast<uint8_t>(mod << 6 | (reg & 7) << 3 | (rm & 7)); }

// op reg, [base + disp32] (or the reverse, by opcode): REX.W op modrm [sib] disp32.
void MemOp(Asm& a, uint8_t op, int reg, int base, int32_t disp) {
  a.Begin();
  a.Byte(Rex(reg, base));
  a.Byte(op);
  if (disp >= -128 && disp < 128) {
    a.Byte(ModRM(1, reg, base));
    if ((base & 7) == 4) a.Byte(0x24);
    a.Byte(static_cast<uint8_t>(disp));
  } else {
    a.Byte(ModRM(2, reg, base));
    if ((base & 7) == 4) a.Byte(0x24);
    a.U32(static_cast<uint32_t>(disp));
  }
}

// op rm, reg (register direct).
void RegOp(Asm& a, uint8_t op, int reg, int rm) {
  a.Begin();
  a.Bytes({Rex(reg, rm), op, ModRM(3, reg, rm)});
}

void MovImm64(Asm& a, int r, uint64_t imm) {
  a.Begin();
  a.Byte(0x48 | ((r >> 3) & 1));
  a.Byte(static_cast<uint8_t>(0xB8 + (r & 7)));
  a.U64(imm);
}

void AddImm(Asm& a, int r, int32_t imm) {  // REX.W 81 /0 id
  a.Begin();
  a.Bytes({Rex(0, r), 0x81, ModRM(3, 0, r)});
  a.U32(static_cast<uint32_t>(imm));
}

void SubRspImm(Asm& a, int32_t imm) {  // REX.W 81 /5 id
  a.Begin();
  a.Bytes({0x48, 0x81, ModRM(3, 5, RSP)});
  a.U32(static_cast<uint32_t>(imm));
}

void Rel32(Asm& a, std::initializer_list<uint8_t> op, int label, int kind) {
  a.Begin();
  a.Bytes(op);
  a.U32(0);
  a.Fix(label, kind);
}

void CallReg(Asm& a, int r) {  // FF /2
  a.Begin();
  if (r >= 8) a.Byte(0x41);
  a.Bytes({0xFF, ModRM(3, 2, r)});
}
void JmpReg(Asm& a, int r) {  // FF /4
  a.Begin();
  if (r >= 8) a.Byte(0x41);
  a.Bytes({0xFF, ModRM(3, 4, r)});
}

// vfill and vdump, by tier (PortInfo::tiers): 0 X0-X15 at 16*v, 1 Y0-Y15 at
// 32*v, 2 Z0-Z15 at 64*v and K0-K7 at 1024 + 8*i; word w of the layout is
// VectorPattern(SEED, w).
constexpr int kTierXmm = 0, kTierYmm = 1, kTierZmm = 2, kTiers = 3;
constexpr int kLanes[kTiers] = {2, 4, 8};  // 64-bit lanes of one register
constexpr int kVecs = 16, kMasks = 8, kMaskBase = 1024;

// X(v) bits 127:0 = words w, w+1, through R11: MOVQ R11, Xv (66 REX.W 0F
// 6E /r), then PINSRQ $1, R11, Xv (66 REX.W 0F 3A 22 /r ib). Both are
// legacy SSE: the register's bits above 127 stay as they are.
void FillXmm(Asm& a, int v, int64_t seed, int w) {
  uint8_t rex = static_cast<uint8_t>(0x49 | ((v >> 3) & 1) << 2);
  MovImm64(a, kTmp, VectorPattern(seed, w));
  a.Begin();
  a.Bytes({0x66, rex, 0x0F, 0x6E, ModRM(3, v, kTmp)});
  MovImm64(a, kTmp, VectorPattern(seed, w + 1));
  a.Begin();
  a.Bytes({0x66, rex, 0x0F, 0x3A, 0x22, ModRM(3, v, kTmp), 0x01});
}
// R̄ and B̄ of a VEX or EVEX prefix for vector register v (< 16) in both
// ModRM.reg and ModRM.rm, register direct.
uint8_t NotRB(int v) { return v < 8 ? 0xA0 : 0x00; }
// VINSERTF128 $1, Xv, Yv, Yv (VEX.256.66.0F3A.W0 18 /r ib, AVX).
void InsertHigh128(Asm& a, int v) {
  a.Begin();
  a.Bytes({0xC4, static_cast<uint8_t>(NotRB(v) | 0x43), static_cast<uint8_t>((~v & 0xF) << 3 | 0x05), 0x18,
           ModRM(3, v, v), 0x01});
}
// VINSERTI32X4 $c, Xv, Zv, Zv (EVEX.512.66.0F3A.W0 38 /r ib, AVX512F).
void InsertChunk128(Asm& a, int v, int c) {
  a.Begin();
  a.Bytes({0x62, static_cast<uint8_t>(NotRB(v) | 0x53), static_cast<uint8_t>((~v & 0xF) << 3 | 0x05), 0x48, 0x38,
           ModRM(3, v, v), static_cast<uint8_t>(c)});
}
// A store of vector register v at disp32(R11): opcode bytes, then ModRM.
void StoreVec(Asm& a, std::initializer_list<uint8_t> prefix_op, int v, int32_t disp) {
  a.Begin();
  a.Bytes(prefix_op);
  a.Byte(ModRM(2, v, kTmp));
  a.U32(static_cast<uint32_t>(disp));
}

// MOVDQU X0, disp(base) (F3 [REX.B] 0F 6F /r) or the store (0F 7F):
// vload and vstore, 16 bytes through X0.
void VecMem(Asm& a, uint8_t op, int base, int32_t disp) {
  a.Begin();
  a.Byte(0xF3);
  if (base >= 8) a.Byte(0x41);
  a.Bytes({0x0F, op, ModRM(2, 0, base)});
  if ((base & 7) == 4) a.Byte(0x24);
  a.U32(static_cast<uint32_t>(disp));
}

void VFill(Asm& a, int tier, int64_t seed) {
  int lanes = kLanes[tier];
  for (int v = 0; v < kVecs; v++) {
    int w = lanes * v;
    // The upper 128-bit chunks first, each built in Xv and inserted; then
    // the low chunk, whose legacy SSE moves keep the chunks above.
    for (int c = lanes / 2 - 1; c >= 1; c--) {
      FillXmm(a, v, seed, w + 2 * c);
      tier == kTierYmm ? InsertHigh128(a, v) : InsertChunk128(a, v, c);
    }
    FillXmm(a, v, seed, w);
  }
  if (tier != kTierZmm) return;
  for (int k = 0; k < kMasks; k++) {  // KMOVQ R11, Kk (VEX.L0.F2.0F.W1 92 /r, AVX512BW)
    MovImm64(a, kTmp, VectorPattern(seed, kMaskBase / 8 + k));
    a.Begin();
    a.Bytes({0xC4, 0xC1, 0xFB, 0x92, ModRM(3, k, kTmp)});
  }
}

void VDump(Asm& a, int tier) {
  for (int v = 0; v < kVecs; v++) {
    int32_t off = 8 * kLanes[tier] * v;
    uint8_t r = v < 8 ? 0x80 : 0x00;  // R̄
    if (tier == kTierXmm) {  // MOVDQU Xv, off(R11): F3 REX 0F 7F /r
      StoreVec(a, {0xF3, static_cast<uint8_t>(0x41 | ((v >> 3) & 1) << 2), 0x0F, 0x7F}, v, off);
    } else if (tier == kTierYmm) {  // VMOVDQU Yv, off(R11): VEX.256.F3.0F 7F /r
      StoreVec(a, {0xC4, static_cast<uint8_t>(r | 0x41), 0x7E, 0x7F}, v, off);
    } else {  // VMOVDQU64 Zv, off(R11): EVEX.512.F3.0F.W1 7F /r (disp32: no disp8*N)
      StoreVec(a, {0x62, static_cast<uint8_t>(r | 0x51), 0xFE, 0x48, 0x7F}, v, off);
    }
  }
  if (tier != kTierZmm) return;
  for (int k = 0; k < kMasks; k++)  // KMOVQ Kk, off(R11): VEX.L0.0F.W1 91 /r
    StoreVec(a, {0xC4, 0xC1, 0xF8, 0x91}, k, kMaskBase + 8 * k);
}

class Amd64Lowerer final : public Lowerer {
 public:
  int NumAllocatable() const override { return ir::kPortableRegs; }
  int VectorTiers() const override { return kTiers; }

  int FrameSize(int locals, bool) const override { return locals; }

  void StackCheck(Asm& a, const FuncCtx& ctx) override {
    if (ctx.frame <= STACK_SMALL) {
      MemOp(a, 0x3B, RSP, kG, G_STACKGUARD0);  // CMPQ SP, 16(R14)
    } else {
      MemOp(a, 0x8D, kTmp, RSP, -(ctx.frame - STACK_SMALL));  // LEAQ -(frame-StackSmall)(SP), R11
      MemOp(a, 0x3B, kTmp, kG, G_STACKGUARD0);                 // CMPQ R11, 16(R14)
    }
    Rel32(a, {0x0F, 0x86}, ctx.tail_label, kRel32At2);  // JLS tail
  }

  void FrameSetup(Asm& a, const FuncCtx& ctx) override {
    if (ctx.frame > 0) SubRspImm(a, ctx.frame);
    a.Sp(ctx.frame, false);
  }
  int SlotBase(const FuncCtx&) const override { return 0; }

  void Lower(Asm& a, const FuncCtx& ctx, const ir::Insn& i, int target, int aux, const EmitEnv& env) override {
    using ir::Op;
    switch (i.op) {
      case Op::kMovi:
        MovImm64(a, kRegs[i.rd], static_cast<uint64_t>(i.imm));
        break;
      case Op::kAddi:
        AddImm(a, kRegs[i.rd], static_cast<int32_t>(i.imm));
        break;
      case Op::kMuli: {  // REX.W 69 /r id: IMUL r64, r/m64, imm32
        int r = kRegs[i.rd];
        a.Begin();
        a.Bytes({Rex(r, r), 0x69, ModRM(3, r, r)});
        a.U32(static_cast<uint32_t>(static_cast<int32_t>(i.imm)));
        break;
      }
      case Op::kAdd:
        RegOp(a, 0x01, kRegs[i.rs], kRegs[i.rd]);  // ADD r/m64, r64
        break;
      case Op::kMov:
        RegOp(a, 0x89, kRegs[i.rs], kRegs[i.rd]);  // MOV r/m64, r64
        break;
      case Op::kLabel:
        break;
      case Op::kJmp:
        Rel32(a, {0xE9}, target, kRel32At1);
        break;
      case Op::kJnz:
      case Op::kJz:
        RegOp(a, 0x85, kRegs[i.rs], kRegs[i.rs]);  // TEST r, r
        Rel32(a, {0x0F, static_cast<uint8_t>(i.op == Op::kJnz ? 0x85 : 0x84)}, target, kRel32At2);
        break;
      case Op::kCall:
        Rel32(a, {0xE8}, target, kRel32At1);
        break;
      case Op::kRet:
        if (ctx.frame > 0) AddImm(a, RSP, ctx.frame);
        a.Sp(0, false);
        a.Begin();
        a.Byte(0xC3);
        break;
      case Op::kLdGlobal:
        MovImm64(a, kTmp, env.globals + 8 * static_cast<uint64_t>(i.imm));
        MemOp(a, 0x8B, kRegs[i.rd], kTmp, 0);
        break;
      case Op::kStGlobal:
        MovImm64(a, kTmp, env.globals + 8 * static_cast<uint64_t>(i.imm));
        MemOp(a, 0x89, kRegs[i.rs], kTmp, 0);
        break;
      case Op::kLdSlot:
        MemOp(a, 0x8B, kRegs[i.rd], RSP, static_cast<int32_t>(i.imm));
        break;
      case Op::kStSlot:
        MemOp(a, 0x89, kRegs[i.rs], RSP, static_cast<int32_t>(i.imm));
        break;
      case Op::kLdMem:
        MemOp(a, 0x8B, kRegs[i.rd], kRegs[i.rs], static_cast<int32_t>(i.imm));
        break;
      case Op::kStMem:
        MemOp(a, 0x89, kRegs[i.rs], kRegs[i.rd], static_cast<int32_t>(i.imm));
        break;
      case Op::kAddrSlot:
        MemOp(a, 0x8D, kRegs[i.rd], RSP, static_cast<int32_t>(i.imm));  // LEAQ OFF(SP), rD
        break;
      case Op::kVLoad:
        VecMem(a, 0x6F, kRegs[i.rs], static_cast<int32_t>(i.imm));
        break;
      case Op::kVStore:
        VecMem(a, 0x7F, kRegs[i.rd], static_cast<int32_t>(i.imm));
        break;
      case Op::kFillRegs:
        for (int r = 0; r < ir::kPortableRegs; r++) MovImm64(a, kRegs[r], static_cast<uint64_t>(i.imm + r));
        break;
      case Op::kSumRegs:
        RegOp(a, 0x89, kRegs[0], kTmp);
        for (int r = 1; r < ir::kPortableRegs; r++) RegOp(a, 0x01, kRegs[r], kTmp);
        RegOp(a, 0x89, kTmp, kRegs[i.rd]);
        break;
      case Op::kAtomicAdd:
        // LOCK ADDQ rS, (R11): g[N] += rS, rS unchanged (core/ir.h). The
        // address load and the locked op are one compiler-marked unsafe
        // sequence, as Go marks its atomics.
        a.BeginRegion(Asm::kUnsafe);
        MovImm64(a, kTmp, env.globals + 8 * static_cast<uint64_t>(i.imm));
        a.Begin();
        a.Bytes({0xF0, Rex(kRegs[i.rs], kTmp), 0x01, ModRM(0, kRegs[i.rs], kTmp)});
        a.EndRegion();
        break;
      case Op::kWbStore: {
        // if (*wbflag) { the barrier's slow path: record the old value in
        // g[63] } then store. Unsafe as a whole: a preemption between the
        // flag test and the store could miss a collection starting.
        a.BeginRegion(Asm::kUnsafe);
        MovImm64(a, kTmp, env.wbflag);
        a.Begin();
        a.Bytes({0x49, 0x83, 0x3B, 0x00});  // CMPQ (R11), $0
        int skip = a.NewLabel();
        Rel32(a, {0x0F, 0x84}, skip, kRel32At2);  // JEQ skip
        MovImm64(a, kTmp, env.globals + 8 * static_cast<uint64_t>(ir::kGlobals - 1));
        MemOp(a, 0x89, kRegs[i.rs], kTmp, 0);
        a.Bind(skip);
        MovImm64(a, kTmp, env.globals + 8 * static_cast<uint64_t>(i.imm));
        MemOp(a, 0x89, kRegs[i.rs], kTmp, 0);
        a.EndRegion();
        break;
      }
      case Op::kUseTmp:
        // amd64 has no REGTMP: an ordinary add, an ordinary safe point.
        AddImm(a, kRegs[i.rd], 1);
        break;
      case Op::kInlineBegin:
      case Op::kInlineEnd:
        break;
      case Op::kDumpRegs:
        for (int r = 0; r < ir::kPortableRegs; r++) {
          MovImm64(a, kTmp, env.globals + 8 * static_cast<uint64_t>(i.imm + r));
          MemOp(a, 0x89, kRegs[r], kTmp, 0);
        }
        break;
      case Op::kVFill:
        VFill(a, env.xtier, i.imm);
        break;
      case Op::kVDump:
        MovImm64(a, kTmp, env.vdump + static_cast<uint64_t>(kVDumpBytes) * static_cast<uint64_t>(i.imm));
        VDump(a, env.xtier);
        break;
      case Op::kSetFlags:
        // PUSHQ $imm; POPFQ: only CF PF AF ZF SF OF (rflags' setflags_mask,
        // 0x8D5); the fixed and system bits stay as POPFQ leaves them.
        a.Begin();
        a.Byte(0x68);
        a.U32(static_cast<uint32_t>(i.imm & FlagRegs(kAmd64Port)[0]->setflags_mask));
        a.Sp(ctx.frame + 8, false);  // the pushed word is on the stack until POPFQ (pcsp)
        a.Begin();
        a.Byte(0x9D);
        a.Sp(ctx.frame, false);
        break;
      case Op::kFlagsDump:
        MovImm64(a, kTmp, env.globals + 8 * static_cast<uint64_t>(i.imm));
        a.Begin();
        a.Byte(0x9C);  // PUSHFQ
        a.Sp(ctx.frame + 8, false);  // found by //fuzz:preempt_fuzz: a collection at the POPQ unwound from the wrong SP
        a.Begin();
        a.Bytes({0x41, 0x8F, 0x03});  // POPQ (R11)
        a.Sp(ctx.frame, false);
        break;
      case Op::kService:
        if (i.service == ir::Service::kGo) {
          Rel32(a, {0x48, 0x8D, 0x05}, aux, kRel32At3);  // LEAQ F(RIP), AX
        } else if (ir::ServiceHasImm(i.service)) {
          MovImm64(a, RAX, static_cast<uint64_t>(i.imm));
        }
        Rel32(a, {0xE8}, target, kRel32At1);
        break;
    }
  }

  void Tail(Asm& a, const FuncCtx& ctx, const EmitEnv& env) override {
    MemOp(a, 0x89, RAX, kG, G_ARGSPILL);  // spill the register argument
    MovImm64(a, kTmp, env.morestack);
    CallReg(a, kTmp);                      // CALL runtime.morestack
    MemOp(a, 0x8B, RAX, kG, G_ARGSPILL);
    Rel32(a, {0xE9}, ctx.entry_label, kRel32At1);  // JMP entry: check again
  }

  void ServiceStub(Asm& a, ir::Service s, const EmitEnv& env) override {
    MemOp(a, 0x89, RAX, kG, G_PARAM);
    MovImm64(a, RDI, env.service_fn[static_cast<int>(s)]);
    MovImm64(a, kTmp, ir::ServiceParks(s) ? env.mcall : env.systemstack);
    JmpReg(a, kTmp);
  }

  void GoexitStub(Asm& a, const EmitEnv& env) override {
    MovImm64(a, RDI, env.service_fn[static_cast<int>(ir::Service::kGoexit)]);
    MovImm64(a, kTmp, env.mcall);
    CallReg(a, kTmp);
    a.Begin();
    a.Bytes({0x0F, 0x0B});  // UD2: mcall never returns
  }

  bool Resolve(Asm& a, const Asm::Fixup& f, uint32_t target, std::string* err) override {
    uint32_t disp_at = f.at + static_cast<uint32_t>(f.kind);
    int64_t rel = static_cast<int64_t>(target) - static_cast<int64_t>(disp_at + 4);
    if (rel < INT32_MIN || rel > INT32_MAX) {
      *err = "amd64: branch out of range";
      return false;
    }
    a.Write32(disp_at, static_cast<uint32_t>(static_cast<int32_t>(rel)));
    return true;
  }
};

}  // namespace

std::unique_ptr<Lowerer> NewAmd64Lowerer() { return std::make_unique<Amd64Lowerer>(); }

SAFEPOINT_REGISTER_LOWERER("amd64", NewAmd64Lowerer);

}  // namespace safepoint
