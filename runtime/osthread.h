// OSThread: the OS threads the runtime's Ms, sysmon and the collector's
// worker run on (Go's newosproc), and the harness's requester. A thread
// that has finished its work is parked, not ended, and the next Start in the
// process takes it: a fuzz campaign builds a runtime per execution and
// starts two to five threads for each, and under QEMU user mode every
// thread that ends leaks its emulated CPU (about 39 KB on qemu-aarch64,
// measured: 2000 threads created and joined left 75 MB more resident), which
// grew an arm64 campaign by 150 KB per execution to its 2 GB limit.
//
// A parked thread keeps nothing of its last work: its signal mask is the
// one its starter had (as pthread_create's new thread inherits it), every
// signal aimed at it while it was another M is taken off before it parks
// (the M's work says it takes signals: TakesSignals),
// and the thread-local M and event binding are cleared.
#ifndef SAFEPOINT_RUNTIME_OSTHREAD_H_
#define SAFEPOINT_RUNTIME_OSTHREAD_H_

namespace safepoint {

class OSThread {
 public:
  OSThread() = default;
  OSThread(const OSThread&) = delete;
  OSThread& operator=(const OSThread&) = delete;
  // A thread still working is abandoned, not waited for (an M that never
  // reached a safe point: ~Runtime leaks it); it parks if its work returns.
  ~OSThread() = default;

  // Runs fn(arg) on a parked thread or, if none is parked, a new one. False
  // when no thread could be created. Not while joinable().
  bool Start(void (*fn)(void*), void* arg);
  // Waits until fn has returned; the thread is then parked for another Start.
  void Join();
  bool joinable() const { return worker_ != nullptr; }

  // Called by a work that aims signals at its thread or gives it an
  // alternate signal stack (an M: SignalSetupM): when it returns, a SIGURG
  // still pending is taken off and the alternate stack removed before the
  // thread parks. Other works (a run's requester, the collector's worker,
  // sysmon) skip both: two system calls per work.
  static void TakesSignals();

  // Threads parked now, and threads ever created (tests).
  static int Parked();
  static int Created();

  struct Worker;  // one OS thread, for the life of the process

 private:
  Worker* worker_ = nullptr;
  unsigned long gen_ = 0;  // which of the worker's works is this one's
};

}  // namespace safepoint

#endif
