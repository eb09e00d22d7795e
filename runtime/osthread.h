// OSThread: the OS threads the runtime's Ms, sysmon and the collector's
// worker run on (Go's newosproc), and the harness's requester. A thread
// that has finished its work is parked, not ended, and the next Start in the
// process takes it: a fuzz campaign builds a runtime per execution and
// starts two to five threads for each, and under QEMU user mode every
// thread that ends leaks its emulated CPU (about 39 KB on qemu-aarch64,
// measured: 2000 threads created and joined left 75 MB more resident), which
// grew an arm64 campaign by 150 KB per execution to its 2 GB limit.
//
// A parked thread keeps nothing of its last work but its signal mask and,
// if it ran a work that takes signals (an M), an alternate signal stack of
// its own: a work runs with its starter's mask (as pthread_create's new
// thread inherits it) or the one it was started with, set only if the
// thread's is another; a SIGURG a work may have left pending is taken off
// before the thread parks (the work says so: SignalsOutstanding); the
// thread-local M and event binding are cleared. An M started on a thread
// that was an M makes no system call for its signals (it made nine: the
// mask set, queried and put back, the alternate stack set and removed, a
// drain, its thread id): a parked thread that was one is taken for an M
// first, and any other Start takes the most recently parked.
#ifndef SAFEPOINT_RUNTIME_OSTHREAD_H_
#define SAFEPOINT_RUNTIME_OSTHREAD_H_

#include <signal.h>
#include <sys/types.h>

#include <cstddef>

namespace safepoint {

class OSThread {
 public:
  OSThread() = default;
  OSThread(const OSThread&) = delete;
  OSThread& operator=(const OSThread&) = delete;
  // A thread still working is abandoned, not waited for (an M that never
  // reached a safe point: ~Runtime leaks it); it parks if its work returns.
  ~OSThread() = default;

  // Runs fn(arg) on a parked thread or, if none is parked, a new one, with
  // the starter's signal mask. False when no thread could be created. Not
  // while joinable().
  bool Start(void (*fn)(void*), void* arg);
  // The same for a work that takes signals (an M): it runs with `mask`, on
  // a thread with an alternate signal stack (kSignalStackBytes) that stays
  // with the thread for its later works.
  bool StartTakingSignals(void (*fn)(void*), void* arg, const sigset_t& mask);
  // Waits until fn has returned; the thread is then parked for another Start.
  void Join();
  bool joinable() const { return worker_ != nullptr; }

  // Called by a work that may leave a SIGURG pending on its thread (one
  // aimed at it and not taken yet): when the work returns, with every
  // signal blocked, a pending SIGURG is taken off before the thread parks,
  // so that it never reaches the thread's next work.
  static void SignalsOutstanding();
  // The calling thread's id: a pooled thread's asked of the kernel once,
  // any other's each time.
  static pid_t Tid();

  static constexpr size_t kSignalStackBytes = 64 * 1024;

  // Threads parked now, and threads ever created (tests).
  static int Parked();
  static int Created();

  struct Worker;  // one OS thread, for the life of the process

 private:
  bool StartWith(void (*fn)(void*), void* arg, const sigset_t& mask, bool takes_signals);
  Worker* worker_ = nullptr;
  unsigned long gen_ = 0;  // which of the worker's works is this one's
};

}  // namespace safepoint

#endif
