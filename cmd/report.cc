#include "cmd/report.h"

#include <algorithm>

#include "core/json.h"
#include "platforms/native.h"

namespace safepoint::cmd {

PcPlace PlaceOf(const Runtime& rt, const ir::Program& prog, uintptr_t pc) {
  PcPlace p;
  const FuncInfo* f = pc ? rt.FuncAt(pc) : nullptr;
  if (!f) {
    if (pc) {
      char buf[32];
      snprintf(buf, sizeof buf, "0x%lx", static_cast<unsigned long>(pc));
      p.func = buf;
    }
    return p;
  }
  uint32_t off = static_cast<uint32_t>(pc - rt.code_base());
  p.func = f->name;
  p.offset = off - f->entry;
  // The instruction holding off, then the IR operation it lowers.
  const FuncTable& t = rt.table();
  auto it = std::upper_bound(t.insns.begin(), t.insns.end(), off);
  if (it == t.insns.begin()) return p;
  size_t k = static_cast<size_t>(it - t.insns.begin()) - 1;
  const ir::Function* fn = prog.Find(f->name);
  if (fn && k < t.insn_op.size() && t.insn_op[k] >= 0 && static_cast<size_t>(t.insn_op[k]) < fn->body.size())
    p.line = fn->body[t.insn_op[k]].line;
  return p;
}

RunReport BuildReport(Runtime& rt, const ir::Program& prog, bool ok, const std::string& err) {
  RunReport r;
  r.port = NativePort().name;
  r.outcome = ok ? "ok" : rt.fatal() ? "fatal" : "failed";
  r.error = ok ? "" : err;
  for (int i = 0; i < ir::kGlobals; i++)
    if (rt.global(i) != 0) r.globals.push_back({i, rt.global(i)});
  std::vector<Event> evs = rt.events().Snapshot();
  r.dropped_events = rt.events().dropped();
  int64_t t0 = evs.empty() ? 0 : evs[0].when;
  for (const Event& e : evs) {
    RunCounts* cs[] = {&r.per_goroutine[e.goid], &r.total};
    for (RunCounts* c : cs) {
      if (e.kind == Ev::kPreemptSync) c->sync++;
      if (e.kind == Ev::kPreemptAsync) c->async++;
      if (e.kind == Ev::kDeferred) c->deferred++;
      if (e.kind == Ev::kGrow) c->grows++;
      if (e.kind == Ev::kAsyncRefuse) c->refused[ReasonName(e.reason)]++;
      // An accepted preemption that resumes elsewhere than where it
      // interrupted restarted a sequence (or a restartatentry function).
      if (e.kind == Ev::kAsyncAccept && static_cast<uintptr_t>(e.arg) != e.pc) c->restarts++;
    }
    EventRow row{e, e.when - t0, PlaceOf(rt, prog, e.pc), {}};
    if (e.kind == Ev::kAsyncAccept) row.resume = PlaceOf(rt, prog, static_cast<uintptr_t>(e.arg));
    r.events.push_back(row);
  }
  for (auto it = r.per_goroutine.begin(); it != r.per_goroutine.end();)
    it = it->first <= 0 || it->second.empty() ? r.per_goroutine.erase(it) : std::next(it);
  r.abandoned_ms = rt.abandoned_ms();
  return r;
}

namespace {

std::string PlaceText(const PcPlace& p) {
  if (p.func.empty()) return "-";
  if (p.func.rfind("0x", 0) == 0) return p.func;
  char buf[64];
  snprintf(buf, sizeof buf, "+0x%x", p.offset);
  std::string s = p.func + buf;
  if (p.line > 0) s += " (line " + std::to_string(p.line) + ")";
  return s;
}

void CountsLine(FILE* out, const std::string& who, const RunCounts& c) {
  std::string r;
  for (const auto& [rule, n] : c.refused) r += ", " + std::to_string(n) + " refused (" + rule + ")";
  fprintf(out, "%s: %zu synchronous and %zu asynchronous preemptions, %zu restarted, %zu deferred, %zu stack growths%s\n",
          who.c_str(), c.sync, c.async, c.restarts, c.deferred, c.grows, r.c_str());
}

std::string CountsJson(const RunCounts& c) {
  std::string s = "{\"sync\": " + std::to_string(c.sync) + ", \"async\": " + std::to_string(c.async) +
                  ", \"restarted\": " + std::to_string(c.restarts) + ", \"deferred\": " + std::to_string(c.deferred) +
                  ", \"stack_growths\": " + std::to_string(c.grows) + ", \"refused\": {";
  bool first = true;
  for (const auto& [rule, n] : c.refused) {
    s += (first ? "" : ", ") + JsonQuote(rule) + ": " + std::to_string(n);
    first = false;
  }
  return s + "}}";
}

}  // namespace

void PrintText(const RunReport& r, FILE* out) {
  if (r.with_events) {
    fprintf(out, "%-6s %-12s %-3s %-3s %-5s %-16s %-16s %-10s %-8s %s\n", "seq", "time(ns)", "M", "P", "G", "event",
            "reason", "source", "arg", "pc");
    for (const EventRow& row : r.events) {
      const Event& e = row.e;
      std::string m = e.m < 0 ? "-" : std::to_string(e.m), p = e.p < 0 ? "-" : std::to_string(e.p);
      // An accepted preemption's arg is its resume PC: shown as a place.
      std::string arg = e.kind == Ev::kAsyncAccept ? "resume=" + PlaceText(row.resume) : std::to_string(e.arg);
      fprintf(out, "%-6llu %-12lld %-3s %-3s %-5lld %-16s %-16s %-10s %-8s %s\n",
              static_cast<unsigned long long>(e.seq), static_cast<long long>(row.t_ns), m.c_str(), p.c_str(),
              static_cast<long long>(e.goid), EvName(e.kind), e.reason == Reason::kNone ? "-" : ReasonName(e.reason),
              e.source == Source::kNone ? "-" : SourceName(e.source), arg.c_str(), PlaceText(row.where).c_str());
    }
    if (r.dropped_events > 0) fprintf(out, "(%zu events not recorded: the log was full)\n", r.dropped_events);
  }
  if (r.outcome != "ok") return;  // the caller says what went wrong
  for (const auto& [i, v] : r.globals) fprintf(out, "g[%d] = %llu\n", i, static_cast<unsigned long long>(v));
  for (const auto& [goid, c] : r.per_goroutine) CountsLine(out, "goroutine " + std::to_string(goid), c);
  CountsLine(out, "total", r.total);
  if (r.abandoned_ms > 0)
    fprintf(out, "note: %d M(s) still ran goroutines that reached no safe point when main returned; as in Go, the "
            "program ended anyway\n", r.abandoned_ms);
}

void PrintJson(const RunReport& r, FILE* out) {
  fprintf(out, "{\n  \"program\": %s,\n  \"port\": %s,\n  \"gomaxprocs\": %d,\n  \"outcome\": %s,\n  \"error\": %s,\n",
          JsonQuote(r.program).c_str(), JsonQuote(r.port).c_str(), r.gomaxprocs, JsonQuote(r.outcome).c_str(),
          JsonQuote(r.error).c_str());
  fprintf(out, "  \"globals\": {");
  for (size_t i = 0; i < r.globals.size(); i++)
    fprintf(out, "%s\"%d\": %llu", i ? ", " : "", r.globals[i].first,
            static_cast<unsigned long long>(r.globals[i].second));
  fprintf(out, "},\n  \"goroutines\": [");
  bool first = true;
  for (const auto& [goid, c] : r.per_goroutine) {
    fprintf(out, "%s\n    {\"goid\": %lld, \"counts\": %s}", first ? "" : ",", static_cast<long long>(goid),
            CountsJson(c).c_str());
    first = false;
  }
  fprintf(out, "%s],\n  \"total\": %s,\n  \"abandoned_ms\": %d,\n  \"dropped_events\": %zu", first ? "" : "\n  ",
          CountsJson(r.total).c_str(), r.abandoned_ms, r.dropped_events);
  if (r.with_events) {
    fprintf(out, ",\n  \"events\": [");
    for (size_t i = 0; i < r.events.size(); i++) {
      const EventRow& row = r.events[i];
      const Event& e = row.e;
      fprintf(out,
              "%s\n    {\"seq\": %llu, \"time_ns\": %lld, \"m\": %d, \"p\": %d, \"g\": %lld, \"event\": %s, "
              "\"reason\": %s, \"source\": %s, \"arg\": %lld, \"pc\": %llu, \"func\": %s, \"offset\": %u, "
              "\"line\": %d}",
              i ? "," : "", static_cast<unsigned long long>(e.seq), static_cast<long long>(row.t_ns), e.m, e.p,
              static_cast<long long>(e.goid), JsonQuote(EvName(e.kind)).c_str(),
              JsonQuote(e.reason == Reason::kNone ? "" : ReasonName(e.reason)).c_str(), JsonQuote(SourceName(e.source)).c_str(),
              static_cast<long long>(e.arg), static_cast<unsigned long long>(e.pc), JsonQuote(row.where.func).c_str(),
              row.where.offset, row.where.line);
    }
    fprintf(out, "%s]", r.events.empty() ? "" : "\n  ");
  }
  fprintf(out, "\n}\n");
}

}  // namespace safepoint::cmd
