#include "core/events.h"

#include <time.h>

#include <cstdio>

namespace safepoint {

const char* EvName(Ev e) {
  static const char* const names[] = {"request", "skip",   "deferred", "preempt-sync", "rearm",
                                      "grow",    "go-start", "go-exit", "resume",      "gosched",
                                      "park",    "ready",  "retake", "signal-sent", "signal-coalesced",
                                      "async-accept", "async-refuse", "sig-no-request", "preempt-async",
                                      "xreg-alloc", "stw-round", "stw-done", "safepoint-fn", "trap", "deadlock", "fault",
                                      "preempt-park", "suspend", "resume-g", "suspend-give-up",
                                      "shrink", "shrink-deferred", "stw-give-up",
                                      "alloc", "gc-start", "gc-scan-stack", "gc-mark-termination", "free", "gc-done",
                                      "freed-access", "safepoint-giveup", "global-runq", "global-runq-get"};
  static_assert(sizeof(names) / sizeof(names[0]) == static_cast<size_t>(Ev::kCount));
  return names[static_cast<int>(e)];
}

const char* ReasonName(Reason r) {
  static const char* const names[] = {"",          "m.locks",  "m.mallocing", "m.preemptoff",
                                      "p-not-running", "no-curg", "g-syscall", "no-m",
                                      "self",      "g0",       "syscall", "not-curg", "secret", "stack",
                                      "not-go",    "asm",      "unsafe-point", "nosplit", "runtime-package",
                                      "no-request", "asyncpreemptoff"};
  static_assert(sizeof(names) / sizeof(names[0]) == static_cast<size_t>(Reason::kCount));
  return names[static_cast<int>(r)];
}

const char* SourceName(Source s) {
  static const char* const names[] = {"", "sysmon", "test", "preemptall", "suspendG", "armed"};
  return names[static_cast<int>(s)];
}

namespace {
// Initial-exec TLS: read from signal handlers, and never allocated lazily.
thread_local int32_t tls_event_m __attribute__((tls_model("initial-exec"))) = -1;
thread_local int32_t tls_event_p __attribute__((tls_model("initial-exec"))) = -1;
}  // namespace

void EventLog::BindThread(int m, int p) {
  tls_event_m = m;
  tls_event_p = p;
}

void EventLog::ThreadBinding(int* m, int* p) {
  *m = tls_event_m;
  *p = tls_event_p;
}

EventLog::EventLog(size_t capacity, bool times)
    : buf_(new Event[capacity]), cap_(capacity), times_(times), ready_(new std::atomic<bool>[capacity]()) {
  // (Every flag false: a value-initialized atomic holds false, written by
  // one memset; a store per flag was 2% of an emulated fuzzing process.)
}

void EventLog::Record(Ev kind, int64_t goid, Reason reason, uintptr_t pc, int64_t arg, Source source) {
  uint64_t seq = next_.fetch_add(1, std::memory_order_relaxed);
  if (seq >= cap_) {
    dropped_.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  int64_t when = 0;
  if (times_) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    when = static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
  }
  buf_[seq] = Event{seq, kind, source, reason, goid, pc, arg, when, tls_event_m, tls_event_p};
  ready_[seq].store(true, std::memory_order_release);
}

std::vector<Event> EventLog::Snapshot() const {
  std::vector<Event> out;
  uint64_t n = next_.load(std::memory_order_acquire);
  if (n > cap_) n = cap_;
  out.reserve(n);
  for (uint64_t i = 0; i < n; i++)
    if (ready_[i].load(std::memory_order_acquire)) out.push_back(buf_[i]);
  return out;
}

size_t EventLog::Count(Ev kind) const {
  size_t c = 0;
  for (const Event& e : Snapshot()) c += e.kind == kind;
  return c;
}

size_t EventLog::Count(Ev kind, Reason reason) const {
  size_t c = 0;
  for (const Event& e : Snapshot()) c += e.kind == kind && e.reason == reason;
  return c;
}

void EventLog::Clear() {
  uint64_t n = next_.load();
  if (n > cap_) n = cap_;
  for (uint64_t i = 0; i < n; i++) ready_[i].store(false);
  next_.store(0);
  dropped_.store(0);
}

std::string EventLog::Dump(size_t max) const {
  std::string s;
  std::vector<Event> evs = Snapshot();
  size_t start = evs.size() > max ? evs.size() - max : 0;
  for (size_t i = start; i < evs.size(); i++) {
    const Event& e = evs[i];
    char line[200];
    snprintf(line, sizeof line, "#%llu m%d p%d %s g%lld %s %s pc=0x%lx arg=%lld\n", (unsigned long long)e.seq,
             e.m, e.p, EvName(e.kind), (long long)e.goid, ReasonName(e.reason), SourceName(e.source),
             (unsigned long)e.pc, (long long)e.arg);
    s += line;
  }
  return s;
}

}  // namespace safepoint
