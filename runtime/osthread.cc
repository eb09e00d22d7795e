#include "runtime/osthread.h"

#include <pthread.h>
#include <signal.h>
#include <time.h>

#include <condition_variable>
#include <mutex>
#include <vector>

#include "core/events.h"
#include "runtime/runtime.h"

namespace safepoint {

struct OSThread::Worker {
  pthread_t thread{};
  std::mutex mu;
  std::condition_variable cv;
  void (*fn)(void*) = nullptr;
  void* arg = nullptr;
  sigset_t mask;               // the starter's, for the work
  unsigned long started = 0;   // works given (Start)
  unsigned long finished = 0;  // works returned
};

namespace {

std::mutex g_pool_mu;
int g_created = 0;
std::once_flag g_atfork_once;
std::vector<OSThread::Worker*>& ParkedList() {
  static auto* v = new std::vector<OSThread::Worker*>;  // never destroyed: parked threads outlive main
  return *v;
}

// Every signal a thread may block. Blocked while parked, so nothing aimed
// at the M it was runs on it in between.
sigset_t BlockableSignals() {
  sigset_t all;
  sigfillset(&all);
  return all;
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

// This thread's work called TakesSignals.
thread_local bool t_takes_signals = false;

}  // namespace

void OSThread::TakesSignals() { t_takes_signals = true; }

namespace osthread_detail {
// Not instrumented by ASan: this frame outlives every work it runs, and a
// work that switches stacks (an M runs on its g0 stack) makes ASan's fake
// stack take the frames of the thread's own stack for returned ones
// (stack-use-after-return reported here, at the first read after the work).
// Its locals live on the real stack instead.
__attribute__((no_sanitize("address"))) void* WorkerMain(void* p) {
  auto* w = static_cast<OSThread::Worker*>(p);
  for (;;) {
    void (*fn)(void*);
    void* arg;
    sigset_t mask;
    {
      std::unique_lock<std::mutex> lk(w->mu);
      w->cv.wait(lk, [&] { return w->started > w->finished; });
      fn = w->fn, arg = w->arg, mask = w->mask;
    }
    pthread_sigmask(SIG_SETMASK, &mask, nullptr);
    fn(arg);
    sigset_t all = BlockableSignals();
    pthread_sigmask(SIG_SETMASK, &all, nullptr);
    if (t_takes_signals) {
      t_takes_signals = false;
      DrainPending();
      stack_t off = {};
      off.ss_flags = SS_DISABLE;
      sigaltstack(&off, nullptr);
    }
    Runtime::UnbindThread();
    EventLog::BindThread(-1, -1);
    {
      std::lock_guard<std::mutex> pool(g_pool_mu);
      std::lock_guard<std::mutex> lk(w->mu);
      w->finished++;
      ParkedList().push_back(w);
    }
    w->cv.notify_all();
  }
  return nullptr;
}
}  // namespace osthread_detail

bool OSThread::Start(void (*fn)(void*), void* arg) {
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
  sigset_t mask;
  pthread_sigmask(SIG_SETMASK, nullptr, &mask);
  Worker* w = nullptr;
  {
    std::lock_guard<std::mutex> pool(g_pool_mu);
    if (!ParkedList().empty()) {
      w = ParkedList().back();
      ParkedList().pop_back();
    }
  }
  bool fresh = w == nullptr;
  if (fresh) w = new Worker;  // lives as long as the process: its thread never ends
  {
    std::lock_guard<std::mutex> lk(w->mu);
    w->fn = fn, w->arg = arg, w->mask = mask;
    gen_ = ++w->started;
  }
  if (fresh) {
    // Created with every signal blocked; it takes the starter's mask for
    // the work itself.
    sigset_t all = BlockableSignals();
    pthread_sigmask(SIG_SETMASK, &all, nullptr);
    int rc = pthread_create(&w->thread, nullptr, &osthread_detail::WorkerMain, w);
    pthread_sigmask(SIG_SETMASK, &mask, nullptr);
    if (rc != 0) {
      delete w;
      return false;
    }
    pthread_detach(w->thread);
    std::lock_guard<std::mutex> pool(g_pool_mu);
    g_created++;
  } else {
    w->cv.notify_all();
  }
  worker_ = w;
  return true;
}

void OSThread::Join() {
  if (worker_ == nullptr) return;
  Worker* w = worker_;
  {
    std::unique_lock<std::mutex> lk(w->mu);
    w->cv.wait(lk, [&] { return w->finished >= gen_; });
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
