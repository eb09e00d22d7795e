#include "cmd/sweep.h"

#include <cstdio>
#include <cstring>

#include "conformance/oracle.h"
#include "platforms/native.h"

namespace safepoint {

const std::string& BuiltinSweepProgram() {
  // Registers are compared only where the IR keeps them live (no call or
  // service between fillregs/vfill and the dump), as every call clobbers
  // them in Go's ABI.
  static const std::string p = R"(
func main.main frame=32
  go main.worker
  wait 1
  call main.arith
  call main.leafy
  call main.regions
  call main.callees
  movi r0, 3
  stslot 8, r0
loop:
  call main.leafy
  ldslot r0, 8
  addi r0, -1
  stslot 8, r0
  jnz r0, loop
  movi r0, 40
  call main.rec
  st g[30], r0
  gosched
  ret
end
func main.worker
  movi r1, 77
  st g[31], r1
  handshake 1
  ret
end
func main.arith
  fillregs 1000
  vfill 5
  setflags 2261
  addi r1, 7
  muli r2, 100003
  add r3, r1
  mov r4, r2
  addi r5, 70000
  ld r6, g[3]
  st g[4], r6
  usetmp r7
  atomic_add g[5], r8
  wb_store g[6], r9
  inline runtime.add
  addi r10, 2
  endinline
  inline main.inlined
  addi r11, 3
  endinline
  flagsdump g[7]
  dumpregs 10
  vdump 0
  ret
end
func main.leafy frame=16
  movi r0, 5
  call main.leaf
  stslot 8, r0
  ldslot r1, 8
  ld r2, g[22]
  add r2, r1
  st g[22], r2
  ret
end
func main.leaf
  muli r0, 3
  addi r0, 1
  ret
end
func main.regions frame=16
  acquirem
  movi r1, 1
  atomic_add g[24], r1
  releasem
  mallocing_begin
  movi r1, 1
  atomic_add g[24], r1
  mallocing_end
  preemptoff_begin
  movi r1, 1
  atomic_add g[24], r1
  preemptoff_end
  secret_begin
  movi r1, 1
  atomic_add g[24], r1
  secret_end
  entersyscall
  movi r1, 1
  atomic_add g[24], r1
  exitsyscall
  ret
end
func main.callees frame=16
  call main.asmf
  call main.foreign
  call main.nosp
  call runtime.helper
  call main.again
  ret
end
func main.asmf asm
  movi r1, 1
  st g[25], r1
  ret
end
func main.foreign nongo
  movi r1, 2
  st g[26], r1
  ret
end
func main.nosp nosplit
  movi r0, 2
  call main.leaf
  st g[27], r0
  ret
end
func runtime.helper
  movi r1, 4
  st g[28], r1
  ret
end
func main.again restartatentry
  movi r1, 9
  st g[29], r1
  ret
end
func main.rec frame=48
  jz r0, done
  stslot 0, r0
  addi r0, -1
  call main.rec
  ldslot r1, 0
  add r0, r1
done:
  ret
end
)";
  return p;
}

std::string SweepResult::Summary() const {
  char buf[256];
  snprintf(buf, sizeof buf, "%zu instructions: %zu accepted, %zu restarted, %zu restarted at entry, %zu not reached",
           instructions, accepted, restarted, restarted_at_entry, not_reached);
  std::string s = buf;
  for (const auto& [rule, n] : refused) s += ", " + std::to_string(n) + " refused (" + rule + ")";
  snprintf(buf, sizeof buf, "; %zu disagreements with the oracle, %zu end-state differences, %zu failed runs",
           disagreements, state_diffs, run_errors);
  return s + buf;
}

namespace {

struct EndState {
  std::vector<uint64_t> globals;
  std::vector<uint8_t> vdump;
  bool operator==(const EndState& o) const { return globals == o.globals && vdump == o.vdump; }
};

EndState Capture(const Runtime& rt) {
  EndState s;
  for (int i = 0; i < ir::kGlobals; i++) s.globals.push_back(rt.global(i));
  s.vdump.assign(rt.vdump(0), rt.vdump(0) + ir::kVDumpAreas * 1024);
  return s;
}

std::string DiffState(const EndState& want, const EndState& got) {
  std::string d;
  for (int i = 0; i < ir::kGlobals; i++)
    if (want.globals[i] != got.globals[i]) {
      char b[96];
      snprintf(b, sizeof b, " g[%d]=%llx want %llx", i, (unsigned long long)got.globals[i],
               (unsigned long long)want.globals[i]);
      d += b;
    }
  for (size_t i = 0; i < want.vdump.size(); i += 16)
    if (memcmp(&want.vdump[i], &got.vdump[i], 16) != 0) {
      d += " vdump[" + std::to_string(i / 16) + "]";
    }
  return d;
}

// The oracle's Position of instruction index k, from the line table only.
oracle::Position PositionOf(const ir::Program& prog, const FuncTable& t, size_t k) {
  oracle::Position pos;
  uint32_t off = t.insns[k];
  const FuncInfo* f = t.Find(off);
  if (!f) return pos;
  pos.fn = prog.Find(f->name);
  if (!pos.fn) {
    pos.stub = true;  // a runtime service stub
    pos.prog = &prog;
    for (int s = 0; s < static_cast<int>(ir::Service::kCount); s++)
      if (f->name == ir::ServiceSymbol(static_cast<ir::Service>(s))) pos.service = static_cast<ir::Service>(s);
    return pos;
  }
  size_t first = k;
  while (first > 0 && t.insns[first - 1] >= f->entry) first--;
  pos.insn_in_fn = static_cast<int>(k - first);
  pos.op = t.insn_op[k];
  if (pos.op < 0) {
    for (size_t j = first; j < k; j++) pos.after_body = pos.after_body || t.insn_op[j] >= 0;
    return pos;
  }
  size_t op_first = k;
  while (op_first > first && t.insn_op[op_first - 1] == pos.op) op_first--;
  pos.insn_in_op = static_cast<int>(k - op_first);
  pos.last_in_op = k + 1 >= t.insns.size() || t.insns[k + 1] >= f->end || t.insn_op[k + 1] != pos.op;
  return pos;
}

}  // namespace

uint32_t OpStart(const FuncTable& t, size_t k) {
  while (k > 0 && t.insn_op[k - 1] == t.insn_op[k] && t.Find(t.insns[k - 1]) == t.Find(t.insns[k])) k--;
  return t.insns[k];
}

bool ExpectAt(const ir::Program& prog, const FuncTable& table, size_t k, bool runtimesecret, oracle::Expect* out) {
  oracle::PortModel model;
  if (!oracle::ModelFor(std::string(NativePort().name), &model)) return false;
  oracle::State state;
  state.runtimesecret = runtimesecret;
  *out = oracle::Decide(model, state, PositionOf(prog, table, k));
  return true;
}

bool Agrees(const oracle::Expect& x, bool accepted, uintptr_t pc, uintptr_t resume, Reason reason, uintptr_t op_start,
            uintptr_t entry) {
  if (!accepted) return x.verdict == oracle::Verdict::kRefuse && std::string(ReasonName(reason)) == oracle::RuleName(x.rule);
  switch (x.verdict) {
    case oracle::Verdict::kAccept:
      return resume == pc;
    case oracle::Verdict::kRestart:
      return resume <= pc && resume >= op_start && pc - resume <= 20 && (!x.single_sequence || resume == op_start);
    case oracle::Verdict::kRestartAtEntry:
      return resume == entry;
    default:
      return false;
  }
}

bool Sweep(const SweepOptions& opts, SweepResult* out, std::string* err) {
  const std::string& text = opts.program.empty() ? BuiltinSweepProgram() : opts.program;
  ir::Program prog;
  if (!ir::ParseProgram(text, &prog, err)) {
    *err = "program: " + *err;
    return false;
  }
  if (!prog.Find(opts.main)) {
    *err = "program: no function " + opts.main;
    return false;
  }
  oracle::PortModel model;
  if (!oracle::ModelFor(std::string(NativePort().name), &model)) {
    *err = "the oracle has no model of port " + std::string(NativePort().name);
    return false;
  }
  RuntimeOptions base = opts.runtime;
  base.sysmon = false;
  base.gomaxprocs = 1;
  base.event_capacity = 4096;  // one preemption's worth, many times over

  // The unpreempted run.
  EndState want;
  FuncTable table;
  {
    Runtime rt(base);
    if (!rt.Load(prog, err) || !rt.Run(opts.main, err)) return false;
    want = Capture(rt);
    table = rt.table();
  }
  oracle::State state;
  state.runtimesecret = base.runtimesecret;

  for (size_t k = 0; k < table.insns.size(); k++) {
    uint32_t off = table.insns[k];
    const FuncInfo* f = table.Find(off);
    if (f == nullptr) continue;
    out->instructions++;
    Runtime rt(base);
    std::string e;
    if (!rt.Load(prog, &e) || !rt.Arm(off, &e) || !rt.Run(opts.main, &e)) {
      out->run_errors++;
      if (out->failures.size() < opts.max_failures) out->failures.push_back(f->name + ": run failed: " + e);
      continue;
    }
    uintptr_t pc = rt.code_base() + off;
    bool trapped = false, decided = false, accepted = false, not_wanted = false;
    uintptr_t resume = 0;
    Reason reason = Reason::kNone;
    for (const Event& ev : rt.events().Snapshot()) {
      if (ev.pc != pc) continue;
      if (ev.kind == Ev::kTrap) trapped = true;
      if (!decided && ev.kind == Ev::kAsyncAccept) decided = accepted = true, resume = static_cast<uintptr_t>(ev.arg);
      if (!decided && ev.kind == Ev::kAsyncRefuse) decided = true, reason = ev.reason;
      if (!decided && ev.kind == Ev::kSigNoRequest) decided = not_wanted = true;
    }
    if (!trapped) {
      out->not_reached++;
      continue;
    }
    oracle::Position pos = PositionOf(prog, table, k);
    oracle::Expect x = oracle::Decide(model, state, pos);  // == ExpectAt(prog, table, k, ...)
    std::string got, wanted = oracle::VerdictName(x.verdict);
    if (x.verdict == oracle::Verdict::kRefuse) wanted += std::string(" (") + oracle::RuleName(x.rule) + ")";
    bool agree = false;
    if (!decided) {
      got = "no decision";
    } else if (not_wanted) {
      got = "not wanted";
      agree = x.verdict == oracle::Verdict::kNotWanted;
    } else {
      uintptr_t op_start = rt.code_base() + OpStart(table, k);
      got = !accepted ? std::string("refused (") + ReasonName(reason) + ")"
                      : resume == pc ? "accepted" : "resumed at +" + std::to_string(resume - rt.code_base());
      agree = Agrees(x, accepted, pc, resume, reason, op_start, rt.code_base() + f->entry);
      if (agree && !accepted) out->refused[ReasonName(reason)]++;
      if (agree && accepted && x.verdict == oracle::Verdict::kAccept) out->accepted++;
      if (agree && accepted && x.verdict == oracle::Verdict::kRestart) out->restarted++;
      if (agree && accepted && x.verdict == oracle::Verdict::kRestartAtEntry) out->restarted_at_entry++;
    }
    if (!agree) {
      out->disagreements++;
      if (out->failures.size() < opts.max_failures) {
        char b[256];
        snprintf(b, sizeof b, "%s+0x%x (op %d): runtime %s, oracle %s", f->name.c_str(), off - f->entry, pos.op,
                 got.c_str(), wanted.c_str());
        out->failures.push_back(b);
      }
    }
    EndState gotstate = Capture(rt);
    if (!(gotstate == want)) {
      out->state_diffs++;
      if (out->failures.size() < opts.max_failures) {
        char b[128];
        snprintf(b, sizeof b, "%s+0x%x: end state differs after a preemption there:", f->name.c_str(), off - f->entry);
        out->failures.push_back(b + DiffState(want, gotstate));
      }
    }
  }
  return true;
}

}  // namespace safepoint
