#include "oracle/decision.h"

#include <cstring>

namespace safepoint::oracle {

const char* RuleName(Rule r) {
  static const char* const names[] = {"",        "not-curg", "m.locks", "m.mallocing", "m.preemptoff",
                                      "p-not-running", "secret", "stack",   "not-go",      "asm",
                                      "unsafe-point",  "nosplit", "runtime-package"};
  return names[static_cast<int>(r)];
}

const char* VerdictName(Verdict v) {
  static const char* const names[] = {"refused", "accepted", "restarted", "restarted-at-entry", "not wanted"};
  return names[static_cast<int>(v)];
}

namespace {

bool IsRuntimePackage(const std::string& pkg) {
  auto under = [&](const std::string& root) {
    return pkg == root || (pkg.size() > root.size() && pkg.compare(0, root.size(), root) == 0 && pkg[root.size()] == '/');
  };
  return under("runtime") || under("internal/runtime") || pkg == "reflect";
}

// The state a function's own services leave before op `upto`, in program
// order (the oracle's programs keep their regions straight-line).
struct Regions {
  int locks = 0, mallocing = 0, preemptoff = 0, syscall = 0, secret = 0;
};
Regions RegionsBefore(const ir::Function& f, int upto) {
  Regions r;
  for (int i = 0; i < upto && i < static_cast<int>(f.body.size()); i++) {
    const ir::Insn& in = f.body[i];
    if (in.op != ir::Op::kService) continue;
    switch (in.service) {
      case ir::Service::kAcquirem: r.locks++; break;
      case ir::Service::kReleasem: r.locks--; break;
      case ir::Service::kMallocingBegin: r.mallocing++; break;
      case ir::Service::kMallocingEnd: r.mallocing--; break;
      case ir::Service::kPreemptoffBegin: r.preemptoff++; break;
      case ir::Service::kPreemptoffEnd: r.preemptoff--; break;
      case ir::Service::kEntersyscall: r.syscall++; break;
      case ir::Service::kExitsyscall: r.syscall--; break;
      case ir::Service::kSecretBegin: r.secret++; break;
      case ir::Service::kSecretEnd: r.secret--; break;
      default: break;
    }
  }
  return r;
}

// The package of the innermost function at op, through `inline` regions.
std::string InnermostPackage(const ir::Function& f, int op) {
  std::vector<std::string> stack;
  for (int i = 0; i < op && i < static_cast<int>(f.body.size()); i++) {
    if (f.body[i].op == ir::Op::kInlineBegin) stack.push_back(ir::PackageOf(f.body[i].target));
    if (f.body[i].op == ir::Op::kInlineEnd && !stack.empty()) stack.pop_back();
  }
  return stack.empty() ? f.package : stack.back();
}

}  // namespace

Expect Decide(const PortModel& port, const State& state, const Position& pos) {
  auto refuse = [](Rule r) { return Expect{Verdict::kRefuse, r}; };
  if (!state.curg) return refuse(Rule::kNotCurg);
  if (pos.fn == nullptr && !pos.stub) return refuse(Rule::kNotGo);
  Regions reg;
  // Before the body and in the morestack path (entered from the prologue)
  // no region of the function is open yet.
  if (pos.fn != nullptr) reg = RegionsBefore(*pos.fn, pos.op >= 0 ? pos.op : 0);
  if (pos.stub && pos.prog != nullptr) {
    // A stub runs in the state of the operation that calls it (the
    // oracle's programs call each region service from one place).
    for (const ir::Function& f : pos.prog->funcs) {
      bool found = false;
      for (size_t i = 0; i < f.body.size() && !found; i++)
        if (f.body[i].op == ir::Op::kService && f.body[i].service == pos.service) {
          reg = RegionsBefore(f, static_cast<int>(i));
          found = true;
        }
      if (found) break;
    }
  }
  // canPreemptM, in its order.
  if (reg.locks > 0) return refuse(Rule::kMLocks);
  if (reg.mallocing > 0) return refuse(Rule::kMMallocing);
  if (reg.preemptoff > 0) return refuse(Rule::kMPreemptoff);
  if (reg.syscall > 0) return {Verdict::kNotWanted, Rule::kNone};
  if (!state.p_running) return refuse(Rule::kPNotRunning);
  if (state.runtimesecret && reg.secret > 0) return refuse(Rule::kSecret);
  if (!state.stack_ok) return refuse(Rule::kStack);
  if (pos.stub) return refuse(Rule::kAsm);  // the runtime's service stubs are assembly
  const ir::Function& f = *pos.fn;
  if (f.nongo) return refuse(Rule::kNotGo);
  if (f.is_asm) return refuse(Rule::kAsm);
  // Compiler-marked unsafe points: the stack check and the morestack path,
  // atomics, write barriers, explicit REGTMP uses.
  if (f.NeedsStackCheck()) {
    int frame_check = port.check_insns(f.frame, !f.CallsAnything());
    if (pos.op < 0 && !pos.after_body && pos.insn_in_fn < frame_check) return refuse(Rule::kUnsafePoint);
    if (pos.after_body) return refuse(Rule::kUnsafePoint);
  }
  const ir::Insn* in = pos.op >= 0 ? &f.body[pos.op] : nullptr;
  if (in && (in->op == ir::Op::kAtomicAdd || in->op == ir::Op::kWbStore)) return refuse(Rule::kUnsafePoint);
  if (in && in->op == ir::Op::kUseTmp && port.has_regtmp) return refuse(Rule::kUnsafePoint);
  // Where the assembler has no restartable sequences, an operation expanded
  // through REGTMP is an unsafe point (Go's riscv64).
  if (in && !port.regtmp_restartable && port.ExpandsThroughRegtmp(*in)) return refuse(Rule::kUnsafePoint);
  if (f.nosplit) {
    bool at_call = in && (in->op == ir::Op::kCall || in->op == ir::Op::kService) && pos.last_in_op;
    if (!at_call) return refuse(Rule::kNosplit);
  }
  if (IsRuntimePackage(pos.op >= 0 ? InnermostPackage(f, pos.op) : f.package)) return refuse(Rule::kRuntimePkg);
  if (f.restart_at_entry) return {Verdict::kRestartAtEntry, Rule::kNone};
  if (port.regtmp_restartable && in && port.ExpandsThroughRegtmp(*in))
    // dumpregs, vdump and flagsdump are several sequences (loong64 packs
    // eight fcc bits before its store): any sequence start in the op.
    return {Verdict::kRestart, Rule::kNone,
            in->op != ir::Op::kDumpRegs && in->op != ir::Op::kVDump && in->op != ir::Op::kFlagsDump};
  return {Verdict::kAccept, Rule::kNone};
}

bool Agrees(const PortModel& port, const Expect& x, bool accepted, uintptr_t pc, uintptr_t resume, Reason reason, uintptr_t op_start,
            uintptr_t entry) {
  if (!accepted) return x.verdict == Verdict::kRefuse && strcmp(ReasonName(reason), RuleName(x.rule)) == 0;
  switch (x.verdict) {
    case Verdict::kAccept:
      return resume == pc;
    case Verdict::kRestart:
      return resume <= pc && resume >= op_start && pc - resume <= port.max_sequence_bytes && (!x.single_sequence || resume == op_start);
    case Verdict::kRestartAtEntry:
      return resume == entry;
    default:
      return false;
  }
}

std::string Describe(const Expect& x) {
  std::string s = VerdictName(x.verdict);
  if (x.verdict == Verdict::kRefuse) s += std::string(" (") + RuleName(x.rule) + ")";
  return s;
}

size_t AsyncPreemptStack(const PortInfo& port) { return port.async_frame + port.mcall_frame + 8 * 8; }

}  // namespace safepoint::oracle
