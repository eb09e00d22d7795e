// What a preemption case showed, as two runs of it must agree on (the
// judgement and end state, each point's decision, the events in order,
// PCs as offsets into the program's code), and a long sequence of mixed
// inputs to compare them over: shared by the tests that hold one way of
// running a case to another (oracle:kept_runtime_test, a kept runtime
// against a fresh one; fuzz:case_protocol_test, the case executor
// against this process).
#ifndef SAFEPOINT_ORACLE_CASE_SHOWING_H_
#define SAFEPOINT_ORACLE_CASE_SHOWING_H_

#include <cstdlib>
#include <string>
#include <vector>

#include "core/files.h"
#include "harness/runtime_under_test.h"
#include "oracle/preempt_case.h"

namespace safepoint::oracle {

// An event as both runtimes must record it: PCs in the program's code as
// offsets (each runtime maps its own; others, asyncPreempt's say, are the
// binary's and the same in both), heap addresses left out
// (objects are named by index), the rounds of stop-the-world and of the
// run's end (skips by a thread that is no M) left out: timing, not state.
inline std::string EventText(const Event& e, uintptr_t base, uint32_t code_bytes) {
  auto rel = [&](uintptr_t a) {
    return a >= base && a - base < code_bytes ? "+" + std::to_string(a - base) : std::to_string(a);
  };
  bool heap = e.kind == Ev::kAlloc || e.kind == Ev::kFree;
  return std::string(EvName(e.kind)) + "/" + SourceName(e.source) + "/" + ReasonName(e.reason) + " g" +
         std::to_string(e.goid) + " pc" + (heap ? "heap" : rel(e.pc)) + " arg" +
         (e.kind == Ev::kAsyncAccept ? rel(static_cast<uintptr_t>(e.arg)) : std::to_string(e.arg)) + " m" +
         std::to_string(e.m) + " p" + std::to_string(e.p);
}

inline std::string PointText(const harness::Observation& o) {
  uintptr_t base = o.entry - o.func_entry;
  return "k" + std::to_string(o.k) + " " + o.func + " trapped " + std::to_string(o.trapped) + " decided " +
         std::to_string(o.decided) + " accepted " + std::to_string(o.accepted) + " not-wanted " +
         std::to_string(o.not_wanted) + " asked " + std::to_string(o.asked) + " reason " + ReasonName(o.reason) +
         " resume " + (o.resume ? "+" + std::to_string(o.resume - base) : "0") + " room " +
         std::to_string(o.stack_room) + " unseen " + ReasonName(o.unseen) + " save " + std::to_string(o.save.seen) +
         " frame " + std::to_string(o.frame.seen);
}

// What an input showed: its verdict and observation (`events` off: end
// state and verdict only).
struct Showing {
  std::string verdict;  // the judgement and the end state
  std::string points;   // what each point showed, the collector's counts
  std::string events;
};

inline Showing Show(const CaseResult& r, const std::string& err) {
  Showing s;
  if (!r.ok) {
    s.verdict = "not run: " + err;
    return s;
  }
  const harness::Observation& o = r.obs;
  s.verdict = "judgement " + (r.judgement.ok() ? std::string("ok") : r.judgement.Headline()) + "; hazard " +
              r.known_hazard + "; ran " + std::to_string(o.ran) + "; end state";
  s.points = PointText(o) + "; collections " + std::to_string(o.collections) + " freed " +
             std::to_string(o.objects_freed) + " freed-accesses " + std::to_string(o.freed_accesses);
  for (const harness::Observation& t : o.then) s.points += "; then " + PointText(t);
  for (uint64_t g : o.end.globals) s.verdict += " " + std::to_string(g);
  uint64_t v = 0;
  for (uint8_t b : o.end.vdump) v = v * 31 + b;
  s.verdict += " vdump " + std::to_string(v);
  uintptr_t base = o.entry - o.func_entry;
  for (const Event& e : o.events) {
    if (e.kind == Ev::kSTWRound || e.kind == Ev::kSTWDone || (e.kind == Ev::kSkip && e.m == -1)) continue;
    s.events += EventText(e, base, r.code_bytes) + "\n";
  }
  return s;
}

inline std::string FirstDifference(const std::string& a, const std::string& b) {
  size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) i++;
  size_t from = a.rfind('\n', i == 0 ? 0 : i - 1);
  from = from == std::string::npos ? 0 : from + 1;
  return "fresh: " + a.substr(from, a.find('\n', i) - from) + "\n  kept: " + b.substr(from, b.find('\n', i) - from);
}

inline std::vector<std::string> MixedInputs() {
  std::vector<std::string> in;
  const char* src = getenv("TEST_SRCDIR");
  auto corpus = ReadFilesIn(std::string(src ? src : ".") + "/safepoint/fuzz/corpus/preempt");
  for (size_t i = 0; i < corpus.size(); i += 4) {
    in.push_back(corpus[i].second);
    // And on one thread (one P, preemptone, no collection at the
    // preemption): what is compared event by event.
    std::string one = corpus[i].second;
    one[0] = static_cast<char>(one[0] & 0x0F);
    if (one != corpus[i].second) in.push_back(one);
  }
  // Generated programs under random settings (byte 0: asyncpreemptoff,
  // experiments, scan policy, a collection at the preemption, GOMAXPROCS,
  // the request's source), some with a chain of further points.
  std::vector<std::string> random = CoverageRandomInputs(36, 30);
  for (size_t i = 0; i < random.size(); i++) {
    std::string r = random[i];
    if (i % 3 == 0) r += EncodeChain({{static_cast<uint16_t>(i * 37), harness::RequestSource::kPreemptOne},
                                      {static_cast<uint16_t>(i * 53), harness::RequestSource::kSuspendG}});
    in.push_back(r);
  }
  // The same program again under the same settings at other instructions:
  // a kept runtime taken with its program loaded.
  for (size_t i = 0; i < 6 && i < random.size(); i++) {
    std::string r = random[i];
    r[2] = static_cast<char>(r[2] + 11);
    in.push_back(r);
  }
  // Programs A, B, C, then A and B again, under one settings on one
  // thread: the kept runtime switches back to A's shelved code
  // (Runtime::LoadKept), then to B's. Programs without a `sleep`: how far
  // the other goroutines get before its deadline is the machine's speed,
  // and a kept runtime, warm, gets further than two fresh ones that agree
  // (random[1], with a sleep and a go loop, failed four runs in six so).
  std::vector<std::string> abc;
  for (size_t i = 0; i < random.size() && abc.size() < 3; i++) {
    std::string r = random[i];
    r[0] = 0;
    Case c;
    std::string err;
    if (DecodeCase(reinterpret_cast<const uint8_t*>(r.data()), r.size(), &c, &err) &&
        c.program.find("sleep") == std::string::npos)
      abc.push_back(r);
  }
  for (const std::string& r : abc) in.push_back(r);
  for (size_t i = 0; i < 2 && i < abc.size(); i++) {
    std::string r = abc[i];
    r[2] = static_cast<char>(r[2] + 5);
    in.push_back(r);
  }
  return in;
}

}  // namespace safepoint::oracle

#endif
