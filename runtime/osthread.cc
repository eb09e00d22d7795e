#include "runtime/osthread.h"

#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <linux/futex.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "core/events.h"
#include "runtime/runtime.h"

namespace safepoint {

// A work is handed to a parked thread, and its end to the joiner, through
// two counters that are futex words: the starter bumps `started` and wakes
// the thread; the thread bumps `finished` and wakes a joiner only if one
// sleeps. No lock and no condition variable between the two: a thread
// woken by a condition variable's broadcast while its waker still held the
// mutex slept again on the mutex, and on one CPU every handoff cost two
// more context switches and a contended unlock (a third of a fuzzing
// process's futex calls, measured with perf on sys_enter_futex).
struct OSThread::Worker {
  pthread_t thread{};
  // The work: written by Start before `started` is bumped (release), read
  // by the thread after it sees the bump (acquire).
  void (*fn)(void*) = nullptr;
  void* arg = nullptr;
  sigset_t mask;               // the work's
  bool takes_signals = false;  // the work's (StartTakingSignals)
  std::atomic<uint32_t> started{0};   // works given (Start); futex word
  std::atomic<uint32_t> finished{0};  // works returned; futex word
  std::atomic<uint32_t> joiners{0};   // Joins asleep on `finished`
  // The thread's own, as it parked (read by Start under the pool's lock):
  // its signal mask, and whether it has its alternate signal stack.
  sigset_t parked_mask;
  bool has_signal_stack = false;
};

namespace {

std::mutex g_pool_mu;
int g_created = 0;
std::once_flag g_atfork_once;
std::vector<OSThread::Worker*>& ParkedList() {
  static auto* v = new std::vector<OSThread::Worker*>;  // never destroyed: parked threads outlive main
  return *v;
}

// Every signal a thread may block.
sigset_t BlockableSignals() {
  sigset_t all;
  sigfillset(&all);
  return all;
}

// The same signals blocked (sigset_t has room for more than the kernel's).
bool SameMask(const sigset_t& a, const sigset_t& b) {
  for (int sig = 1; sig < NSIG; sig++)
    if (sigismember(&a, sig) != sigismember(&b, sig)) return false;
  return true;
}

// Takes off a SIGURG still pending on this thread (all blocked): one sent
// to the M it was must not reach the M it will be. Only SIGURG, the one
// signal the runtime aims at a thread: a process-directed signal pending
// because every thread blocked it (SIGINT, say) is left for another.
void DrainPending() {
  sigset_t urg;
  sigemptyset(&urg);
  sigaddset(&urg, SIGURG);
  const struct timespec zero = {0, 0};
  while (sigtimedwait(&urg, nullptr, &zero) == SIGURG) {
  }
}

// This thread's work called SignalsOutstanding.
thread_local bool t_outstanding = false;
// A pooled thread's id (0 on any other thread).
thread_local pid_t t_tid = 0;

// Sleeps while *word holds `seen` (or until a spurious wake-up: the
// callers look again).
void FutexWait(std::atomic<uint32_t>* word, uint32_t seen) {
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAIT_PRIVATE, seen, nullptr, nullptr, 0);
}
void FutexWakeAll(std::atomic<uint32_t>* word) {
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAKE_PRIVATE, INT32_MAX, nullptr, nullptr, 0);
}
// Whether `finished` has reached work `gen` (the counters wrap: compared by
// their difference).
bool Reached(uint32_t finished, uint32_t gen) { return static_cast<int32_t>(finished - gen) >= 0; }

}  // namespace

void OSThread::SignalsOutstanding() { t_outstanding = true; }

pid_t OSThread::Tid() { return t_tid != 0 ? t_tid : static_cast<pid_t>(syscall(SYS_gettid)); }

namespace osthread_detail {
// Not instrumented by ASan: this frame outlives every work it runs, and a
// work that switches stacks (an M runs on its g0 stack) makes ASan's fake
// stack take the frames of the thread's own stack for returned ones
// (stack-use-after-return reported here, at the first read after the work).
// Its locals live on the real stack instead.
__attribute__((no_sanitize("address"))) void* WorkerMain(void* p) {
  auto* w = static_cast<OSThread::Worker*>(p);
  t_tid = static_cast<pid_t>(syscall(SYS_gettid));
  // The thread's mask as it was created (every signal blocked), then as
  // the last work's was set; set again only for a work that wants another.
  sigset_t cur = BlockableSignals();
  std::unique_ptr<char[]> signal_stack;  // the thread's, once a work took signals
  uint32_t done = 0;  // works this thread has run (its `finished`)
  for (;;) {
    uint32_t given;
    while ((given = w->started.load(std::memory_order_acquire)) == done) FutexWait(&w->started, done);
    void (*fn)(void*) = w->fn;
    void* arg = w->arg;
    const sigset_t mask = w->mask;
    const bool takes_signals = w->takes_signals;
    if (takes_signals && !signal_stack) {
      signal_stack.reset(new char[OSThread::kSignalStackBytes]);
      stack_t ss = {};
      ss.ss_sp = signal_stack.get();
      ss.ss_size = OSThread::kSignalStackBytes;
      sigaltstack(&ss, nullptr);
    }
    if (!SameMask(cur, mask)) {
      pthread_sigmask(SIG_SETMASK, &mask, nullptr);
      cur = mask;
    }
    fn(arg);
    // (A work that changes its thread's mask puts it back before it
    // returns: an M's after a fault, mstart1.)
    if (t_outstanding) {
      t_outstanding = false;
      sigset_t all = BlockableSignals();
      pthread_sigmask(SIG_SETMASK, &all, nullptr);
      DrainPending();
      pthread_sigmask(SIG_SETMASK, &cur, nullptr);
    }
    Runtime::UnbindThread();
    EventLog::BindThread(-1, -1);
    // Parked first, then finished: a Start may take the thread at once
    // (its bump of `started` is then seen by the loop above, after this
    // work's end is published), and the thread is never finished and
    // missing from the list, where a Start would make a new thread instead.
    {
      std::lock_guard<std::mutex> pool(g_pool_mu);
      w->parked_mask = cur;
      w->has_signal_stack = signal_stack != nullptr;
      ParkedList().push_back(w);
    }
    done = given;
    w->finished.store(done, std::memory_order_seq_cst);
    if (w->joiners.load(std::memory_order_seq_cst) != 0) FutexWakeAll(&w->finished);
  }
  return nullptr;
}
}  // namespace osthread_detail

bool OSThread::Start(void (*fn)(void*), void* arg) {
  sigset_t mask;
  pthread_sigmask(SIG_SETMASK, nullptr, &mask);
  return StartWith(fn, arg, mask, false);
}

bool OSThread::StartTakingSignals(void (*fn)(void*), void* arg, const sigset_t& mask) {
  return StartWith(fn, arg, mask, true);
}

bool OSThread::StartWith(void (*fn)(void*), void* arg, const sigset_t& mask, bool takes_signals) {
  if (worker_ != nullptr) return false;
  // A fork's child has only the forking thread: the parked ones are not
  // there (a death test forks, then its runtime would hand its Ms to
  // threads that do not exist and wait forever). The pool's lock is taken
  // across the fork so that the child's copy is consistent.
  std::call_once(g_atfork_once, [] {
    pthread_atfork([] { g_pool_mu.lock(); }, [] { g_pool_mu.unlock(); },
                   [] {
                     ParkedList().clear();  // their Workers leak, once per fork
                     g_pool_mu.unlock();
                   });
  });
  Worker* w = nullptr;
  {
    // The most recently parked thread; for a work taking signals, the most
    // recently parked one that is set up for it as it is (its alternate
    // stack, the mask), if one is.
    std::lock_guard<std::mutex> pool(g_pool_mu);
    std::vector<Worker*>& parked = ParkedList();
    if (!parked.empty()) {
      size_t pick = parked.size() - 1;
      for (size_t i = parked.size(); takes_signals && i-- > 0;) {
        if (parked[i]->has_signal_stack && SameMask(parked[i]->parked_mask, mask)) {
          pick = i;
          break;
        }
      }
      w = parked[pick];
      parked.erase(parked.begin() + static_cast<long>(pick));
    }
  }
  bool fresh = w == nullptr;
  if (fresh) w = new Worker;  // lives as long as the process: its thread never ends
  w->fn = fn, w->arg = arg, w->mask = mask, w->takes_signals = takes_signals;
  gen_ = w->started.load(std::memory_order_relaxed) + 1;
  w->started.store(static_cast<uint32_t>(gen_), std::memory_order_release);
  if (fresh) {
    // Created with every signal blocked; it takes the work's mask for
    // the work itself.
    sigset_t all = BlockableSignals(), was;
    pthread_sigmask(SIG_SETMASK, &all, &was);
    int rc = pthread_create(&w->thread, nullptr, &osthread_detail::WorkerMain, w);
    pthread_sigmask(SIG_SETMASK, &was, nullptr);
    if (rc != 0) {
      delete w;
      return false;
    }
    pthread_detach(w->thread);
    std::lock_guard<std::mutex> pool(g_pool_mu);
    g_created++;
  } else {
    FutexWakeAll(&w->started);
  }
  worker_ = w;
  return true;
}

void OSThread::Join() {
  if (worker_ == nullptr) return;
  Worker* w = worker_;
  const uint32_t gen = static_cast<uint32_t>(gen_);
  while (!Reached(w->finished.load(std::memory_order_seq_cst), gen)) {
    w->joiners.fetch_add(1, std::memory_order_seq_cst);
    uint32_t seen = w->finished.load(std::memory_order_seq_cst);
    if (!Reached(seen, gen)) FutexWait(&w->finished, seen);
    w->joiners.fetch_sub(1, std::memory_order_seq_cst);
  }
  worker_ = nullptr;
}

int OSThread::Parked() {
  std::lock_guard<std::mutex> pool(g_pool_mu);
  return static_cast<int>(ParkedList().size());
}

int OSThread::Created() {
  std::lock_guard<std::mutex> pool(g_pool_mu);
  return g_created;
}

}  // namespace safepoint
