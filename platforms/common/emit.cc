// The architecture-neutral emitter driver: lays out every function of a
// program, then one stub per runtime service, resolves branches and builds
// the function table. Everything architecture-specific is the Lowerer's.
#include <algorithm>
#include <iterator>
#include <map>
#include <string_view>
#include <unordered_map>

#include "platforms/emitter.h"

namespace safepoint {

namespace {
std::map<std::string, std::unique_ptr<Lowerer> (*)(), std::less<>>& Lowerers() {
  static auto* m = new std::map<std::string, std::unique_ptr<Lowerer> (*)(), std::less<>>;
  return *m;
}
}  // namespace

LowererRegistration::LowererRegistration(std::string_view port, std::unique_ptr<Lowerer> (*make)()) {
  Lowerers()[std::string(port)] = make;
}

std::unique_ptr<Lowerer> NewLowerer(std::string_view port) {
  auto it = Lowerers().find(port);
  return it == Lowerers().end() ? nullptr : it->second();
}

// (A field added to EmitEnv changes its size: compare it here, and send it
// in fuzz/case_protocol.cc's PutEnv and GetEnv, then change the size.)
static_assert(sizeof(EmitEnv) == 10 * 8 + sizeof(EmitEnv::service_fn),
              "EmitEnv changed: compare the new field in SameEmitEnv");
bool SameEmitEnv(const EmitEnv& a, const EmitEnv& b) {
  const bool same_port = a.port == b.port || (a.port != nullptr && b.port != nullptr && a.port->name == b.port->name);
  return same_port && a.globals == b.globals && a.mcall == b.mcall && a.systemstack == b.systemstack &&
         a.morestack == b.morestack && std::equal(std::begin(a.service_fn), std::end(a.service_fn), b.service_fn) &&
         a.vdump == b.vdump && a.xtier == b.xtier && a.wbflag == b.wbflag && a.omit_stack_check == b.omit_stack_check &&
         a.isolate == b.isolate;
}

bool Emit(Lowerer& low, const ir::Program& prog, const EmitEnv& env, Emitted* out, std::string* err) {
  if (!ir::Validate(prog, err)) return false;
  int tiers = env.port ? static_cast<int>(env.port->tiers.size()) : low.VectorTiers();
  if (env.xtier < 0 || env.xtier >= tiers || env.xtier >= low.VectorTiers()) {
    *err = "extended-state tier " + std::to_string(env.xtier) + ": the port's vfill and vdump know tiers 0.." +
           std::to_string(std::min(tiers, low.VectorTiers()) - 1);
    return false;
  }
  Asm a;
  {
    size_t ops = 0;
    for (const ir::Function& f : prog.funcs) ops += f.body.size();
    // Each function from a page of its own (env.isolate), its operations a
    // few instructions each, and the stubs after them.
    const size_t per_fn = env.isolate ? env.isolate : 64;
    a.Reserve((prog.funcs.size() + 2) * per_fn + ops * 16, ops * 4 + 512);
  }
  // Names to labels: hashed views into the program (a new program's load
  // looks each call's and branch's up; ordered maps of strings were a
  // tenth of a fuzzing process's emitter time, their copies and compares).
  std::unordered_map<std::string_view, int> entry_of;
  entry_of.reserve(prog.funcs.size());
  for (const ir::Function& f : prog.funcs) entry_of[f.name] = a.NewLabel();
  int stubs[static_cast<int>(ir::Service::kCount)];
  for (int& s : stubs) s = a.NewLabel();

  FuncTable table;
  table.funcs.reserve(prog.funcs.size() + static_cast<size_t>(ir::Service::kCount));
  // The fixup of every IR branch, with its operation, for the reach check.
  struct IrBranch {
    size_t fixup;
    const ir::Insn* insn;
  };
  std::vector<IrBranch> branches;
  std::unordered_map<std::string_view, int> labels;
  for (const ir::Function& f : prog.funcs) {
    FuncInfo info;
    info.name = f.name;
    info.package = f.package;
    bool leaf = !f.CallsAnything();
    FuncCtx ctx{&f, low.FrameSize(f.frame, leaf), f.NeedsStackCheck() && !env.omit_stack_check, a.NewLabel(), entry_of[f.name], leaf};
    info.frame = ctx.frame;
    if (f.nosplit) info.flags |= kFuncNosplit;
    if (f.is_asm) info.flags |= kFuncAsm;
    if (f.nongo) info.flags |= kFuncNonGo;
    if (f.restart_at_entry) info.flags |= kFuncRestartAtEntry;
    if (!ctx.check) info.flags |= kFuncNoCheck;

    if (env.isolate) a.PadTo(env.isolate, env.port ? env.port->breakpoint : std::vector<uint8_t>{});
    a.Bind(ctx.entry_label);
    info.entry = a.pos();
    if (ctx.check) {
      low.StackCheck(a, ctx);
      info.prologue = {info.entry, a.pos()};
    } else {
      info.prologue = {info.entry, info.entry};
    }
    size_t regions_before = a.regions().size();
    size_t sp_before = a.sp_states().size();
    a.Sp(0, false);
    low.FrameSetup(a, ctx);
    FuncInfo::SpState in_body = a.sp_states().back();
    info.slot_base = low.SlotBase(ctx);
    info.ptr_slots = f.ptr_slots;
    for (int& off : info.ptr_slots) off += info.slot_base;
    info.args = f.args;
    labels.clear();
    for (const ir::Insn& i : f.body)
      if (i.op == ir::Op::kLabel) labels[i.target] = a.NewLabel();
    std::vector<size_t> inline_stack;
    for (size_t idx = 0; idx < f.body.size(); idx++) {
      const ir::Insn& i = f.body[idx];
      a.SetOp(static_cast<int>(idx));
      int target = -1, aux = -1;
      switch (i.op) {
        case ir::Op::kLabel:
          a.Bind(labels[i.target]);
          continue;
        case ir::Op::kInlineBegin:
          info.inlines.push_back({a.pos(), a.pos(), i.target, ir::PackageOf(i.target),
                                  inline_stack.empty() ? -1 : static_cast<int>(inline_stack.back())});
          inline_stack.push_back(info.inlines.size() - 1);
          continue;
        case ir::Op::kInlineEnd:
          info.inlines[inline_stack.back()].hi = a.pos();
          inline_stack.pop_back();
          continue;
        case ir::Op::kJmp:
        case ir::Op::kJnz:
        case ir::Op::kJz:
          target = labels[i.target];
          break;
        case ir::Op::kCall:
          target = entry_of[i.target];
          break;
        case ir::Op::kService:
          target = stubs[static_cast<int>(i.service)];
          if (i.service == ir::Service::kGo) aux = entry_of[i.target];
          break;
        default:
          break;
      }
      size_t before = a.insns().size(), fixups_before = a.fixups().size();
      low.Lower(a, ctx, i, target, aux, env);
      if (i.op == ir::Op::kRet) a.Sp(in_body.delta, in_body.lr_saved);  // code after a ret has the frame
      if (i.op == ir::Op::kJmp || i.op == ir::Op::kJnz || i.op == ir::Op::kJz)
        for (size_t k = fixups_before; k < a.fixups().size(); k++)
          if (a.fixups()[k].label == target) branches.push_back({k, &i});
      if (i.op == ir::Op::kCall || i.op == ir::Op::kService) {
        // The call instruction is the last one the lowering emitted.
        if (a.insns().size() > before) info.call_sites.push_back(a.insns().back());
      }
    }
    a.SetOp(-1);
    int mark = -3;
    for (size_t r = regions_before; r < a.regions().size(); r++) {
      const Asm::Region& reg = a.regions()[r];
      if (reg.kind == Asm::kUnsafe) {
        info.unsafe.push_back({reg.lo, reg.hi});
      } else {
        info.restarts.push_back({reg.lo, reg.hi, mark});
        mark = mark == -3 ? -4 : -3;
      }
    }
    if (ctx.check) {
      a.Bind(ctx.tail_label);
      a.Sp(0, false);  // the morestack path runs before the frame opens
      uint32_t t0 = a.pos();
      low.Tail(a, ctx, env);
      info.tail = {t0, a.pos()};
    }
    info.end = a.pos();
    info.pcsp.assign(a.sp_states().begin() + static_cast<long>(sp_before), a.sp_states().end());
    // Return address (amd64) or saved LR is part of the frame the port reports.
    info.max_sp_delta = ctx.frame;
    table.funcs.push_back(std::move(info));
  }

  // Service stubs: runtime package, assembly, nosplit (as Go's are).
  if (env.isolate) a.PadTo(env.isolate, env.port ? env.port->breakpoint : std::vector<uint8_t>{});
  for (int s = 0; s < static_cast<int>(ir::Service::kCount); s++) {
    FuncInfo info;
    info.name = ir::ServiceSymbol(static_cast<ir::Service>(s));
    info.package = ir::PackageOf(info.name);
    info.flags = kFuncAsm | kFuncNosplit | kFuncNoCheck;
    a.Bind(stubs[s]);
    info.entry = a.pos();
    if (static_cast<ir::Service>(s) == ir::Service::kGoexit) {
      low.GoexitStub(a, env);
      out->goexit = info.entry;
    } else {
      low.ServiceStub(a, static_cast<ir::Service>(s), env);
    }
    info.end = a.pos();
    table.funcs.push_back(std::move(info));
  }

  // What a port's branches cannot reach is its declared data, refused here
  // the same way for every port, before any Lowerer sees the distance.
  if (env.port) {
    const PortModel::BranchReach& reach = env.port->model.branch_reach;
    for (const IrBranch& b : branches) {
      const Asm::Fixup& f = a.fixups()[b.fixup];
      int64_t dist = a.LabelPos(f.label) - static_cast<int64_t>(f.at);
      bool cond = b.insn->op != ir::Op::kJmp;
      int64_t max = cond ? reach.cond : reach.jump;
      if (dist > max || dist < -max) {
        const char* op = b.insn->op == ir::Op::kJmp ? "jmp" : b.insn->op == ir::Op::kJnz ? "jnz" : "jz";
        *err = "line " + std::to_string(b.insn->line) + ": " + op + " " + b.insn->target + " spans " +
               std::to_string(dist < 0 ? -dist : dist) + " bytes of " + std::string(env.port->name) + " code; its " +
               (cond ? "conditional branches" : "jumps") + " reach " + std::to_string(max) +
               " bytes (PortModel::branch_reach)";
        return false;
      }
    }
  }
  for (const Asm::Fixup& f : a.fixups()) {
    int64_t target = a.LabelPos(f.label);
    if (target < 0) {
      *err = "internal: unbound label";
      return false;
    }
    if (!low.Resolve(a, f, static_cast<uint32_t>(target), err)) return false;
  }
  table.insns = a.insns();
  table.insn_op = a.insn_op();
  out->code = std::move(a.code());
  out->table = std::move(table);
  return true;
}

}  // namespace safepoint
