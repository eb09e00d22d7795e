#include "oracle/sweep.h"

#include <cstdio>

#include "harness/sweep.h"
#include "oracle/judge.h"
#include "platforms/native.h"

namespace safepoint::oracle {

std::string SweepResult::Summary() const {
  char buf[256];
  snprintf(buf, sizeof buf, "%zu instructions: %zu accepted, %zu restarted, %zu restarted at entry, %zu not reached",
           instructions, accepted, restarted, restarted_at_entry, not_reached);
  std::string s = buf;
  for (const auto& [rule, n] : refused) s += ", " + std::to_string(n) + " refused (" + rule + ")";
  snprintf(buf, sizeof buf, "; %zu disagreements with the oracle, %zu end-state differences, %zu failed runs",
           disagreements, state_diffs, run_errors);
  s += buf;
  if (collections > 0 || lost_objects > 0) {
    snprintf(buf, sizeof buf, "; %zu collections freed %zu objects, %zu lost objects", collections, objects_freed,
             lost_objects);
    s += buf;
  }
  if (frame_judged > 0 || frame_wrong > 0) {
    snprintf(buf, sizeof buf, "; frame table judged at %zu: %zu differ at accepted preemptions, %zu where refused (allowed)",
             frame_judged, frame_wrong, frame_allowed);
    s += buf;
  }
  if (protocol_violations > 0) s += "; " + std::to_string(protocol_violations) + " protocol violations";
  if (save_area_compared > 0 || save_area_wrong > 0)
    s += "; save area: " + std::to_string(save_area_compared) + " registers compared with the trap's, " +
         std::to_string(save_area_wrong) + " preemptions wrong";
  return s;
}

bool Sweep(const SweepOptions& opts, SweepResult* out, std::string* err) {
  const std::string& text = opts.program.empty() ? harness::BuiltinSweepProgram() : opts.program;
  ir::Program prog;
  if (!ir::ParseProgram(text, &prog, err)) {
    *err = "program: " + *err;
    return false;
  }
  RuntimeOptions base = opts.runtime;
  base.hooks.sysmon = false;
  base.settings.gomaxprocs = 1;
  base.hooks.event_capacity = 4096;  // one preemption's worth, many times over
  base.hooks.event_times = false;    // judged by order only
  State state;
  state.runtimesecret = base.experiments.runtimesecret;
  state.async_preempt_stack = AsyncPreemptStack(NativePort());
  harness::Baseline baseline;
  auto judge = [&](const harness::Observation& o) {
    out->instructions++;
    auto fail = [&](const std::string& what) {
      if (out->failures.size() < opts.max_failures) {
        char b[200];
        int line = o.pos.fn && o.pos.op >= 0 ? o.pos.fn->body[o.pos.op].line : o.pos.fn ? o.pos.fn->line : 0;
        snprintf(b, sizeof b, "%s+0x%x%s", o.func.c_str(), o.off - o.func_entry,
                 line > 0 ? (" (line " + std::to_string(line) + ")").c_str() : "");
        out->failures.push_back(b + what);
      }
    };
    out->collections += o.collections;
    out->objects_freed += o.objects_freed;
    Judgement j = Judge(NativePort(), state, baseline.end, o, opts.frame_table ? &baseline.table : nullptr);
    out->frame_judged += j.frame_judged;
    out->frame_allowed += j.frame_allowed.size();
    for (const std::string& a : j.frame_allowed)
      if (out->frame_allowed_at.size() < opts.max_failures) out->frame_allowed_at.push_back(a + " (" + j.got + ")");
    if (!j.frame.empty()) {
      out->frame_wrong++;
      fail(": frame table: " + j.frame);
    }
    if (!j.lost.empty()) {
      out->lost_objects++;
      fail(": liveness: " + j.lost);
      return;
    }
    if (!j.run_error.empty()) {
      out->run_errors++;
      fail(": run failed: " + j.run_error);
      return;
    }
    if (!j.reached) {
      out->not_reached++;
      return;
    }
    if (j.agree && o.decided && !o.not_wanted) {
      if (!o.accepted) out->refused[ReasonName(o.reason)]++;
      if (o.accepted && j.expect.verdict == Verdict::kAccept) out->accepted++;
      if (o.accepted && j.expect.verdict == Verdict::kRestart) out->restarted++;
      if (o.accepted && j.expect.verdict == Verdict::kRestartAtEntry) out->restarted_at_entry++;
    }
    if (!j.agree) {
      out->disagreements++;
      fail(" (op " + std::to_string(o.pos.op) + "): runtime " + j.got + ", oracle " + Describe(j.expect));
    }
    out->save_area_compared += j.save_compared;
    if (!j.save_wrong.empty()) {
      out->save_area_wrong++;
      std::string w;
      for (const std::string& r : j.save_wrong) w += (w.empty() ? "" : "; ") + r;
      fail(": save area differs from the trap's registers: " + w);
    }
    if (!j.state_diff.empty()) {
      out->state_diffs++;
      fail(": end state differs after a preemption there:" + j.state_diff);
    }
    if (!j.protocol.ok()) {
      out->protocol_violations++;
      fail(": protocol: " + j.protocol.rule + " (" + j.protocol.detail + ")");
    }
  };
  auto proceed = [&](size_t done, size_t total) {
    out->total = total;
    if (opts.proceed && !opts.proceed(done, total)) {
      out->interrupted = true;
      return false;
    }
    return true;
  };
  return harness::SweepEngine(prog, opts.main, harness::ReferenceRuntimeFactory(base), &baseline, judge, err,
                              proceed);
}

}  // namespace safepoint::oracle
