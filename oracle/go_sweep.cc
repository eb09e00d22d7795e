#include "oracle/go_sweep.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <cstdio>
#include <regex>
#include <set>
#include <sstream>

#include "core/hex.h"
#include "core/json.h"
#include "oracle/frame_table.h"
#include "oracle/go_decision.h"
#include "realgo/table.h"

namespace safepoint::oracle {
namespace {

using realgo::GoBinary;
using realgo::GoFunc;
using realgo::PcRun;
using realgo::ProbeResult;

std::string Where(const GoFunc* f, uint64_t pc) {
  if (f == nullptr) return Hex(pc);
  char b[32];
  snprintf(b, sizeof b, "+0x%llx", static_cast<unsigned long long>(pc - f->entry));
  return f->name + b;
}

// The table's value at pc and where its run starts.
int32_t RunAt(const std::vector<PcRun>& runs, uint64_t entry, uint64_t pc, int32_t dflt, uint64_t* start) {
  uint64_t from = entry;
  for (const PcRun& r : runs) {
    if (pc < r.end) {
      *start = from;
      return r.value;
    }
    from = r.end;
  }
  *start = 0;
  return dflt;
}

uint64_t MaxSpDelta(const GoBinary& bin, const char* name) {
  const GoFunc* f = bin.FuncNamed(name);
  return f == nullptr ? 0 : static_cast<uint64_t>(f->MaxFrame());
}

// The first line of the runtime's own account of a crash.
std::string CrashLine(const std::string& err) {
  std::istringstream in(err);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("fatal error:", 0) == 0 || line.rfind("panic:", 0) == 0 || line.rfind("unexpected signal", 0) == 0 ||
        line.rfind("runtime:", 0) == 0 || line.rfind("SIG", 0) == 0)
      return line;
  return "";
}

}  // namespace

const char* GoFindingKindName(GoFinding::Kind k) {
  switch (k) {
    case GoFinding::kDecision: return "decision";
    case GoFinding::kFrameTable: return "frame-table";
    case GoFinding::kSaveArea: return "save-area";
    case GoFinding::kOutput: return "output";
    case GoFinding::kCrash: return "crash";
    case GoFinding::kNoHandler: return "no-handler";
    case GoFinding::kLost: return "lost";
    case GoFinding::kTraceback: return "traceback";
  }
  return "?";
}

void GoCounts::Add(const GoCounts& o) {
  insns += o.insns;
  probed += o.probed;
  accepted += o.accepted;
  restarted += o.restarted;
  refused += o.refused;
  unreached += o.unreached;
  for (const auto& [k, v] : o.refused_by) refused_by[k] += v;
  disagreements += o.disagreements;
  frame_judged += o.frame_judged;
  frame_differences += o.frame_differences;
  lost += o.lost;
  saved_judged += o.saved_judged;
  saved_differences += o.saved_differences;
  not_followed += o.not_followed;
  gc_scanned += o.gc_scanned;
  tracebacks += o.tracebacks;
}

bool GoJudge::Init(const GoBinary& bin, const PortInfo& port, const GoSweepOptions& opt, std::string* err) {
  bin_ = &bin;
  port_ = &port;
  opt_ = opt;
  if (bin.goarch() != port.go.goarch) {
    *err = opt.binary + " is a " + bin.goarch() + " binary; this runs as " + std::string(port.name);
    return false;
  }
  std::regex re;
  try {
    re = std::regex(opt.func_regex, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    *err = "--func: not a regular expression: " + opt.func_regex;
    return false;
  }
  if (opt.frame_table && !realgo::GoFuncTable(bin, port, &table_, err)) return false;
  if (opt.mutation == GoSweepMutation::kPcspLate)
    for (FuncInfo& f : table_.funcs)
      for (FuncInfo::SpState& st : f.pcsp)
        if (st.from != f.entry) st.from += port.insn_align;
  // The instructions of the chosen functions (and their text): the span
  // they cover decoded once, a function it is not in step with at its
  // entry decoded alone.
  uint64_t lo = UINT64_MAX, hi = 0;
  for (const GoFunc& f : bin.funcs()) {
    if (!std::regex_search(f.name, re) || f.end <= f.entry) continue;
    chosen_.push_back(&f);
    lo = std::min(lo, f.entry);
    hi = std::max(hi, f.end);
  }
  std::vector<realgo::GoInsn> span;
  if (hi > lo && !realgo::GoInstructions(bin, port, lo, hi, &span, err)) {
    *err = "disassembling the chosen functions: " + *err;
    return false;
  }
  for (const GoFunc* f : chosen_) {
    auto it = std::lower_bound(span.begin(), span.end(), f->entry,
                               [](const realgo::GoInsn& i, uint64_t pc) { return i.pc < pc; });
    std::vector<realgo::GoInsn> own;
    if (it == span.end() || it->pc != f->entry) {
      if (!realgo::GoInstructions(bin, port, f->entry, f->end, &own, err)) {
        *err = "disassembling " + f->name + ": " + *err;
        return false;
      }
      it = own.begin();
    }
    for (; it != (own.empty() ? span.end() : own.end()) && it->pc < f->end; ++it)
      if (it->pc >= f->entry) insn_text_[it->pc] = it->text;
  }
  if (chosen_.empty()) {
    *err = "no function of " + opt.binary + " matches --func=" + opt.func_regex;
    return false;
  }
  async_stack_ = MaxSpDelta(bin, "runtime.asyncPreempt") + MaxSpDelta(bin, "runtime.asyncPreempt2") + 8 * 8;
  return true;
}

std::string GoJudge::Insn(uint64_t pc) const {
  auto it = insn_text_.find(pc);
  return it == insn_text_.end() ? "" : it->second;
}

void GoJudge::Probe(const ProbeResult& r, GoCounts& c, std::vector<GoFinding>& findings) const {
  const GoBinary& bin = *bin_;
  const PortInfo& port = *port_;
  const GoFunc* f = bin.FuncAt(r.pc);
  GoFinding base_f;
  base_f.pc = r.pc;
  base_f.func = Where(f, r.pc);
  base_f.insn = Insn(r.pc);
  base_f.replay = {r.pc};
  if (r.outcome == ProbeResult::kLost) {
    c.lost++;
    GoFinding g = base_f;
    g.kind = GoFinding::kLost;
    g.message = "the probe was lost: " + r.error;
    findings.push_back(g);
    return;
  }
  c.probed++;
  if (r.outcome == ProbeResult::kNoHandler) {
    GoFinding g = base_f;
    g.kind = GoFinding::kNoHandler;
    g.message = r.error;
    findings.push_back(g);
    return;
  }
  // The tables' prediction.
  GoTableFacts t;
  t.pc = r.pc;
  t.go_minor = bin.go_minor();
  if (f != nullptr) {
    t.found = true;
    t.entry = f->entry;
    t.asm_ = f->asm_;
    t.has_locals_map = f->has_locals_map;
    t.unsafe_point = f->unsafe_point.empty() ? kGoSafe : RunAt(f->unsafe_point, f->entry, r.pc, kGoSafe, &t.run_start);
    if (opt_.mutation == GoSweepMutation::kUnsafeIgnored && t.unsafe_point == kGoUnsafe) t.unsafe_point = kGoSafe;
    t.innermost = bin.InnermostName(r.pc);
  }
  GoStopState s;
  s.curg = r.at.curg;
  s.has_p = r.at.p != 0;
  s.p_running = r.at.p_running;
  s.m_locks = r.at.locks;
  s.m_mallocing = r.at.mallocing;
  s.m_preemptoff = r.at.preemptoff;
  s.stack_ok = r.at.sp >= r.at.stack_lo && r.at.sp - r.at.stack_lo >= async_stack_;
  GoExpect x = DecideGo(t, s);
  const bool accepted = r.outcome == ProbeResult::kAccepted;
  bool agree;
  if (x.verdict == Verdict::kRefuse) {
    agree = !accepted;
  } else {
    agree = accepted && r.resume == x.resume;
  }
  if (accepted) {
    if (r.resume == r.pc) c.accepted++; else c.restarted++;
  } else {
    c.refused++;
    if (agree) c.refused_by[RuleName(x.rule)]++;
  }
  if (!agree) {
    c.disagreements++;
    GoFinding g = base_f;
    g.kind = GoFinding::kDecision;
    std::string got = accepted ? (r.resume == r.pc ? "accepted" : "restarted at " + Hex(r.resume)) : "refused";
    g.message = "Go " + got + "; its tables say " + DescribeGo(x) + " (unsafe-point " + std::to_string(t.unsafe_point) +
                ", innermost " + (t.innermost.empty() ? "?" : t.innermost) + ")";
    findings.push_back(g);
  }
  if (accepted && r.resumed == ProbeResult::kNotBack) c.not_followed++;
  if (accepted && r.gc_scanned) c.gc_scanned++;
  if (accepted && r.resumed == ProbeResult::kBack) {
    c.saved_judged++;
    std::string diff;
    for (const PortInfo::GoFacts::Preserved& p : port.go.preserved) {
      size_t i = static_cast<size_t>(p.reg);
      if (i >= r.trap_regs.size() || i >= r.resume_regs.size()) continue;
      uint64_t a = r.trap_regs[i] & p.mask, b = r.resume_regs[i] & p.mask;
      if (a != b && diff.size() < 300)
        diff += (diff.empty() ? "" : ", ") + std::string("register ") + std::to_string(p.reg) + " " + Hex(a) + " -> " + Hex(b);
    }
    // Floating-point and vector registers: the bytes asyncPreempt keeps.
    for (const PortInfo::GoFacts::PreservedVec& pv : port.go.preserved_vec) {
      const realgo::VecReg* a = nullptr;
      const realgo::VecReg* b = nullptr;
      for (const realgo::VecReg& v : r.trap_vec) if (v.name == pv.name) a = &v;
      for (const realgo::VecReg& v : r.resume_vec) if (v.name == pv.name) b = &v;
      if (a == nullptr || b == nullptr) continue;
      const size_t n = std::min<size_t>({pv.bytes, a->bytes.size(), b->bytes.size()});
      if (memcmp(a->bytes.data(), b->bytes.data(), n) != 0 && diff.size() < 300)
        diff += (diff.empty() ? "" : ", ") + std::string(pv.name) + " " + HexLe(a->bytes.data(), n) + " -> " + HexLe(b->bytes.data(), n);
    }
    if (!diff.empty()) {
      c.saved_differences++;
      GoFinding g = base_f;
      g.kind = GoFinding::kSaveArea;
      g.message = "back at its resume PC " + Hex(r.resume) + ", the goroutine's registers differ from the stop's (GDB numbers): " + diff;
      findings.push_back(g);
    }
  }
  if (accepted && opt_.frame_table) {
    FrameCheck fc = CheckFrameTable(table_, r.frame, r.resume);
    if (fc.judged) {
      c.frame_judged++;
      if (!fc.ok()) {
        c.frame_differences++;
        GoFinding g = base_f;
        g.kind = GoFinding::kFrameTable;
        g.message = fc.problem;
        findings.push_back(g);
      }
    }
  }
}

namespace {

// One frame of the runtime's traceback (GOTRACEBACK=system prints each
// physical frame's fp, sp and pc; inlined frames carry none).
struct TraceFrame {
  std::string func;
  uint64_t sp = 0, pc = 0;
};

uint64_t FieldHex(const std::string& line, const char* key) {
  size_t at = line.find(key);
  return at == std::string::npos ? 0 : strtoull(line.c_str() + at + strlen(key), nullptr, 16);
}

}  // namespace

bool GoJudge::Traceback(const ProbeResult& r, const realgo::GuestRun& run, GoFinding* out) const {
  const GoFunc* f = bin_->FuncAt(r.pc);
  out->kind = GoFinding::kTraceback;
  out->pc = r.pc;
  out->func = Where(f, r.pc);
  out->insn = Insn(r.pc);
  out->replay = {r.pc};
  auto finding = [&](const std::string& why) {
    out->message = "the runtime's traceback of the goroutine preempted here: " + why;
    return true;
  };
  if (run.err.find("SIGQUIT: quit") == std::string::npos)
    return finding("none printed (exit status " + std::to_string(run.status) + "): " + CrashLine(run.err));
  // The unwinder's own complaints.
  std::istringstream in(run.err);
  std::string line;
  std::vector<TraceFrame> frames;  // of the goroutine that was running asyncPreempt
  bool in_ours = false, elided = false, seen = false;
  std::string name;
  while (std::getline(in, line)) {
    if (line.rfind("runtime:", 0) == 0 || line.rfind("fatal error:", 0) == 0 || line.find("traceback stuck") != std::string::npos ||
        line.find("unexpected return pc") != std::string::npos)
      return finding(line);
    if (line.rfind("goroutine ", 0) == 0) {
      in_ours = false;
      continue;
    }
    if (line.rfind("runtime.asyncPreempt(", 0) == 0 && !seen) {
      in_ours = seen = true;
      name = "runtime.asyncPreempt";
      continue;
    }
    if (!in_ours) continue;
    if (line.find("frames elided") != std::string::npos) {
      elided = true;
      in_ours = false;
      continue;
    }
    if (!line.empty() && line[0] != '\t') {
      name = line.substr(0, line.rfind('('));
      continue;
    }
    if (line.find(" pc=0x") == std::string::npos || name == "runtime.asyncPreempt") continue;
    frames.push_back({name, FieldHex(line, " sp=0x"), FieldHex(line, " pc=0x")});
  }
  if (!seen) return finding("no goroutine's traceback starts in runtime.asyncPreempt");
  if (frames.empty() || frames[0].pc != r.resume)
    return finding("the frame under runtime.asyncPreempt is at " + (frames.empty() ? std::string("nothing") : Hex(frames[0].pc)) +
                   ", not the resume PC " + Hex(r.resume));
  if (frames[0].sp != r.at.sp)
    return finding("the interrupted frame's SP is " + Hex(frames[0].sp) + ", the stop's was " + Hex(r.at.sp));
  // Each physical frame against the frame table's walk of the same stack.
  if (opt_.frame_table) {
    FrameCheck fc = CheckFrameTable(table_, r.frame, r.resume);
    if (fc.judged && fc.ok()) {
      size_t n = 0;
      for (const TraceFrame& t : frames) {
        if (t.func == "runtime.goexit") break;
        if (n >= fc.walk.size()) {
          if (elided) break;
          return finding("frame " + std::to_string(n) + " (" + t.func + " at " + Hex(t.pc) + ") is past the end of the frame table's walk (" +
                         std::to_string(fc.walk.size()) + " frames)");
        }
        if (t.pc != fc.walk[n].pc || t.sp != fc.walk[n].sp)
          return finding("frame " + std::to_string(n) + " is " + t.func + " pc " + Hex(t.pc) + " sp " + Hex(t.sp) +
                         "; the frame table's walk has pc " + Hex(fc.walk[n].pc) + " sp " + Hex(fc.walk[n].sp));
        n++;
      }
      if (!elided && n != fc.walk.size())
        return finding("it has " + std::to_string(n) + " frames above goexit; the frame table's walk has " + std::to_string(fc.walk.size()));
    }
  }
  return false;
}

bool GoJudge::Run(const realgo::GuestRun& run, size_t index, const realgo::GuestRun& base, GoFinding* out) const {
  const GoBinary& bin = *bin_;
  if (!run.error.empty() || run.probed.empty()) return false;  // killed by us: not the program's own end
  if (run.traceback_pc != 0) return false;  // judged by Traceback with its probe
  const size_t i = index;
    bool same = run.exited == base.exited && run.status == base.status && run.signal == base.signal && run.out == base.out;
    if (same) return false;
    GoFinding g;
    std::string crash = CrashLine(run.err);
    g.kind = crash.empty() ? GoFinding::kOutput : GoFinding::kCrash;
    g.pc = run.probed.back();
    g.func = Where(bin.FuncAt(g.pc), g.pc);
    g.insn = Insn(g.pc);
    g.replay = run.probed;
    std::string how = run.exited ? "exit status " + std::to_string(run.status) : "signal " + std::to_string(run.signal);
    g.message = "guest run " + std::to_string(i) + " (" + std::to_string(run.probed.size()) + " probes, the last at " +
                g.func + ") ended with " + how + (run.out == base.out ? "" : ", its output differs") +
                (crash.empty() ? "" : ": " + crash) + " (unpreempted: exit status " + std::to_string(base.status) + ")";
    *out = g;
    return true;
}

GoSweepResult RunGoSweep(const GoBinary& bin, const PortInfo& port, const GoSweepOptions& opt,
                         const GoSweepProgress& progress) {
  GoSweepResult res;
  res.binary = opt.binary;
  res.go_version = bin.go_version();
  res.goarch = bin.goarch();
  res.gc_request = opt.probe.request == realgo::GoRequest::kGC;
  GoJudge judge;
  if (!judge.Init(bin, port, opt, &res.fatal)) return res;
  std::vector<uint64_t> pcs;
  if (!opt.only_pcs.empty()) {
    for (uint64_t pc : opt.only_pcs) {
      if (judge.instructions().count(pc) == 0) {
        res.fatal = Hex(pc) + " is not an instruction of a chosen function";
        return res;
      }
      pcs.push_back(pc);
    }
  } else {
    for (const auto& [pc, text] : judge.instructions()) pcs.push_back(pc);
  }
  realgo::GuestRun base = realgo::RunPlain(opt.binary, port, opt.probe);
  if (!base.error.empty()) {
    res.fatal = "the unpreempted run: " + base.error;
    return res;
  }
  auto t0 = std::chrono::steady_clock::now();
  realgo::ProbeReport rep = realgo::ProbeAll(opt.binary, bin, port, pcs, opt.probe, progress);
  res.runs = rep.runs.size();
  if (!rep.fatal.empty() && rep.probes.empty()) {
    res.fatal = rep.fatal;
    res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return res;
  }
  std::map<const GoFunc*, GoCounts> per;
  for (const GoFunc* f : judge.chosen()) per[f];
  for (const auto& [pc, text] : judge.instructions())
    if (opt.only_pcs.empty() || std::count(pcs.begin(), pcs.end(), pc)) per[bin.FuncAt(pc)].insns++;
  for (uint64_t pc : rep.unreached) per[bin.FuncAt(pc)].unreached++;
  for (const ProbeResult& r : rep.probes) {
    judge.Probe(r, per[bin.FuncAt(r.pc)], res.findings);
    if (!r.traceback || r.run >= rep.runs.size()) continue;
    per[bin.FuncAt(r.pc)].tracebacks++;
    GoFinding g;
    if (judge.Traceback(r, rep.runs[r.run], &g)) res.findings.push_back(g);
  }
  // Invisibility and crashes, per guest run.
  for (size_t i = 0; i < rep.runs.size(); i++) {
    GoFinding g;
    if (!judge.Run(rep.runs[i], i, base, &g)) continue;
    if (g.kind == GoFinding::kCrash) res.crashes++;
    else if (g.kind == GoFinding::kOutput) res.output_differences++;
    res.findings.push_back(g);
  }
  // The sweep's time: the probing and the judging (as go_preempt_fuzz
  // times its own), not reading the binary nor the unpreempted run.
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  for (const GoFunc* f : judge.chosen()) {
    res.funcs.push_back({f->name, per[f]});
    res.total.Add(per[f]);
  }
  if (!rep.fatal.empty()) res.fatal = rep.fatal;
  return res;
}

namespace {

std::string ByRule(const GoCounts& c) {
  std::string s;
  for (const auto& [k, v] : c.refused_by) s += (s.empty() ? "" : " ") + k + ":" + std::to_string(v);
  return s.empty() ? "-" : s;
}

std::string CountsJson(const GoCounts& c) {
  std::string s = "{\"instructions\":" + std::to_string(c.insns) + ",\"probed\":" + std::to_string(c.probed) +
                  ",\"accepted\":" + std::to_string(c.accepted) + ",\"restarted\":" + std::to_string(c.restarted) +
                  ",\"refused\":" + std::to_string(c.refused) + ",\"refused_by\":{";
  bool first = true;
  for (const auto& [k, v] : c.refused_by) {
    s += (first ? "" : ",") + JsonQuote(k) + ":" + std::to_string(v);
    first = false;
  }
  s += "},\"disagreements\":" + std::to_string(c.disagreements) + ",\"frame_judged\":" + std::to_string(c.frame_judged) +
       ",\"frame_differences\":" + std::to_string(c.frame_differences) + ",\"unreached\":" + std::to_string(c.unreached) +
       ",\"lost\":" + std::to_string(c.lost) + ",\"saved_judged\":" + std::to_string(c.saved_judged) +
       ",\"saved_differences\":" + std::to_string(c.saved_differences) +
       ",\"not_followed\":" + std::to_string(c.not_followed) + ",\"gc_scanned\":" + std::to_string(c.gc_scanned) + ",\"tracebacks\":" + std::to_string(c.tracebacks) + "}";
  return s;
}

}  // namespace

std::string GoSweepText(const GoSweepResult& r) {
  std::ostringstream o;
  o << "go-sweep " << r.binary << " (" << r.go_version << ", " << r.goarch << ")\n";
  char line[512];
  snprintf(line, sizeof line, "%-40s %6s %6s %6s %6s %6s %6s %6s %6s  %s\n", "function", "insns", "probed", "accept",
           "restart", "refuse", "disagr", "frame", "unreach", "refused by rule");
  o << line;
  auto row = [&](const std::string& name, const GoCounts& c) {
    snprintf(line, sizeof line, "%-40s %6zu %6zu %6zu %6zu %6zu %6zu %6zu %6zu  %s\n", name.c_str(), c.insns, c.probed,
             c.accepted, c.restarted, c.refused, c.disagreements, c.frame_differences, c.unreached, ByRule(c).c_str());
    o << line;
  };
  for (const auto& [name, c] : r.funcs) row(name, c);
  row("total", r.total);
  o << "guest runs " << r.runs << ", output differences " << r.output_differences << ", crashes " << r.crashes
    << ", frames judged " << r.total.frame_judged << ", save areas judged " << r.total.saved_judged
    << " (differences " << r.total.saved_differences << ", not followed back " << r.total.not_followed
    << "), probes lost " << r.total.lost << "\n";
  if (r.total.tracebacks > 0) o << "the runtime's traceback judged at " << r.total.tracebacks << " accepted preemptions\n";
  if (r.gc_request)
    o << "the collector's kind of request: " << r.total.gc_scanned << " of " << r.total.accepted
      << " accepted goroutines came back with their stack scanned by the collector while parked\n";
  if (r.seconds > 0) {
    snprintf(line, sizeof line, "%.1f probes/s (%zu probes in %.2f s)\n", r.total.probed / r.seconds, r.total.probed,
             r.seconds);
    o << line;
  }
  for (const GoFinding& f : r.findings)
    o << GoFindingKindName(f.kind) << ": " << f.func << " (" << Hex(f.pc) << ": " << f.insn << "): " << f.message << "\n";
  if (!r.fatal.empty()) o << "go-sweep: " << r.fatal << "\n";
  o << (r.clean() ? "go-sweep: clean" : "go-sweep: " + std::to_string(r.findings.size()) + " findings") << "\n";
  return o.str();
}

std::string GoSweepJson(const GoSweepResult& r) {
  std::string s = "{\"binary\":" + JsonQuote(r.binary) + ",\"go_version\":" + JsonQuote(r.go_version) + ",\"goarch\":" +
                  JsonQuote(r.goarch) + ",\"request\":" + (r.gc_request ? "\"gc\"" : "\"sched\"") + ",\"functions\":[";
  for (size_t i = 0; i < r.funcs.size(); i++)
    s += (i ? "," : "") + std::string("{\"name\":") + JsonQuote(r.funcs[i].first) + ",\"counts\":" + CountsJson(r.funcs[i].second) + "}";
  s += "],\"total\":" + CountsJson(r.total) + ",\"guest_runs\":" + std::to_string(r.runs) +
       ",\"output_differences\":" + std::to_string(r.output_differences) + ",\"crashes\":" + std::to_string(r.crashes);
  char b[64];
  snprintf(b, sizeof b, ",\"seconds\":%.3f", r.seconds);
  s += b;
  s += ",\"findings\":[";
  for (size_t i = 0; i < r.findings.size(); i++) {
    const GoFinding& f = r.findings[i];
    s += (i ? "," : "") + std::string("{\"kind\":") + JsonQuote(GoFindingKindName(f.kind)) + ",\"pc\":" + JsonQuote(Hex(f.pc)) +
         ",\"func\":" + JsonQuote(f.func) + ",\"instruction\":" + JsonQuote(f.insn) + ",\"message\":" + JsonQuote(f.message) + "}";
  }
  s += "],\"fatal\":" + JsonQuote(r.fatal) + ",\"clean\":" + (r.clean() ? "true" : "false") + "}\n";
  return s;
}

std::string GoFindingsFile(const GoSweepResult& r, const std::string& replay_prefix) {
  std::ostringstream o;
  o << "# go-sweep findings: " << r.binary << " (" << r.go_version << ", " << r.goarch << ")\n";
  for (const GoFinding& f : r.findings) {
    o << GoFindingKindName(f.kind) << " " << Hex(f.pc) << " " << f.func << " [" << f.insn << "]: " << f.message << "\n";
    std::string pcs;
    for (uint64_t pc : f.replay) pcs += (pcs.empty() ? "" : ",") + Hex(pc);
    o << "  replay: " << replay_prefix << " --pc=" << pcs << " " << r.binary << "\n";
  }
  return o.str();
}

}  // namespace safepoint::oracle
