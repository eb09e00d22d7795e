// The reference runtime as a RuntimeUnderTest.
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "harness/armed.h"
#include "harness/runtime_under_test.h"
#include "harness/scenario.h"
#include "platforms/emitter.h"
#include "platforms/native.h"

namespace safepoint::harness {
namespace {

// A runtime kept between lifetimes, and what its hooks share with it.
struct Kept {
  std::unique_ptr<Runtime> rt;
  ManualClock* clock = nullptr;  // sysmon's, when it runs on one
  std::shared_ptr<SaveAreaImage> save;
  std::string options;  // its key; the programs it has are the runtime's (Runtime::HasKept)
};

// The kept runtimes of the process, the most recently kept last. A fuzz
// input runs one program twice (its baseline, then armed), and the next
// input mostly another program under the same settings; a corpus holds
// inputs under a dozen or so settings (4 kept: one runtime in seven was
// made fresh; each holds a 1.8 MB event log and a few code pages).
class Keeper {
 public:
  static Keeper& Get() {
    static auto* k = new Keeper;  // leaked: used until the process exits
    return *k;
  }
  // One kept under these options, with this program's code (loaded, or
  // shelved: Runtime::LoadKept) if there is one; else nullptr.
  std::unique_ptr<Kept> Take(const KeepAs& keep) {
    std::lock_guard<std::mutex> lk(mu_);
    // None has it: the least recently kept under these options, the
    // program emitted into it and its least recently loaded one given up.
    size_t pick = kept_.size();
    bool has = false;
    for (size_t i = 0; i < kept_.size() && !has; i++) {
      if (kept_[i]->options != keep.options) continue;
      has = kept_[i]->rt->HasKept(keep.program);
      if (has || pick == kept_.size()) pick = i;
    }
    if (pick == kept_.size()) {
      counts_.fresh++;
      return nullptr;
    }
    std::unique_ptr<Kept> k = std::move(kept_[pick]);
    kept_.erase(kept_.begin() + static_cast<long>(pick));
    (!has ? counts_.reused_reloaded : k->rt->IsLoaded(keep.program) ? counts_.reused_loaded : counts_.reused_shelved)++;
    return k;
  }
  void Give(std::unique_ptr<Kept> k) {
    std::unique_ptr<Kept> out;
    {
      std::lock_guard<std::mutex> lk(mu_);
      kept_.push_back(std::move(k));
      if (kept_.size() <= kMax) return;
      out = std::move(kept_.front());
      kept_.erase(kept_.begin());
      given_up_.push_back(out->options);
    }
    out->rt.reset();
    delete out->clock;  // after its runtime, whose sysmon read it
  }
  void Failed(const std::string& options, const std::string& why) {
    std::lock_guard<std::mutex> lk(mu_);
    counts_.reset_failed[why]++;
    given_up_.push_back(options);
  }
  std::vector<std::string> TakeGivenUp() {
    std::lock_guard<std::mutex> lk(mu_);
    return std::move(given_up_);
  }
  KeptRuntimeCounts counts() {
    std::lock_guard<std::mutex> lk(mu_);
    return counts_;
  }

 private:
  static constexpr size_t kMax = 64;
  std::mutex mu_;
  std::vector<std::unique_ptr<Kept>> kept_;
  KeptRuntimeCounts counts_;
  std::vector<std::string> given_up_;  // options, since TakeGivenUp
};

class ReferenceRuntime : public RuntimeUnderTest {
 public:
  // (The options and keys by reference, shared with the factory: a
  // factory's runtime, made at every execution of a fuzzing process, copies
  // the options only when it is made fresh, and the program's text once
  // when it loads the program.)
  ReferenceRuntime(const RuntimeOptions& opts, RequestSource src, bool sysmon_clock,
                   std::shared_ptr<const KeepAs> keep)
      : src_(src), keep_(std::move(keep)), kept_(keep_->on() ? Keeper::Get().Take(*keep_) : nullptr) {
    if (kept_) {
      loaded_ = kept_->rt->IsLoaded(keep_->program);
    } else {
      kept_ = std::make_unique<Kept>();
      kept_->clock = src == RequestSource::kSysmon || sysmon_clock ? new ManualClock : nullptr;
      kept_->save = std::make_shared<SaveAreaImage>();
      kept_->rt = std::make_unique<Runtime>(WithSaveArea(WithClock(opts, kept_->clock), kept_->save));
      kept_->options = keep_->options;
    }
    clock_ = kept_->clock;
    save_ = kept_->save;
    rt_ = kept_->rt.get();
  }
  ~ReferenceRuntime() override {
    Disarm(*rt_);
    // An M abandoned after the run (its goroutine never reached a safe
    // point) still runs code that reaches the Runtime through its M: the
    // Runtime must outlive it, so it is leaked, as ~Runtime leaks the rest.
    // (Found by //fuzz:preempt_fuzz: a long campaign crashed in the
    // harness on a freed Runtime.)
    // (Its sysmon reads the clock: leaked with it.)
    if (rt_->abandoned_ms() > 0) {
      kept_->rt.release();
      if (keep_->on()) Keeper::Get().Failed(keep_->options, "an M never stopped (its goroutine reached no safe point)");
      return;
    }
    if (keep_->on() && ran_) {
      std::string why;
      if (rt_->Reset(&why)) {
        *save_ = SaveAreaImage{};
        if (clock_) clock_->Set(0);
        Keeper::Get().Give(std::move(kept_));
        return;
      }
      Keeper::Get().Failed(keep_->options, why);
    } else if (keep_->on() && loaded_) {
      Keeper::Get().Give(std::move(kept_));  // loaded, never run: as it was taken
      return;
    }
    kept_->rt.reset();
    delete clock_;
  }
  bool Load(const ir::Program& prog, std::string* err) override {
    if (loaded_) return true;  // a kept runtime, this program loaded
    if (!(keep_->on() ? rt_->LoadKept(prog, keep_->program, err) : rt_->Load(prog, err))) return false;
    loaded_ = true;
    return true;
  }
  // (Kept runtimes only: a fresh one's data is made anew for each, so no
  // environment reported for it holds for the next.)
  bool EmitEnvironment(EmitEnv* env, std::string* err) override {
    if (!keep_->on()) return RuntimeUnderTest::EmitEnvironment(env, err);
    return rt_->EmitEnvironment(env, err);
  }
  bool LoadEmitted(const EmitEnv& env, Emitted emitted, std::string* err) override {
    if (loaded_) return true;
    if (!keep_->on()) return RuntimeUnderTest::LoadEmitted(env, std::move(emitted), err);
    if (!rt_->LoadKeptEmitted(env, std::move(emitted), keep_->program, err)) return false;
    loaded_ = true;
    return true;
  }
  bool HasProgram() const override { return loaded_ || (keep_->on() && rt_->HasKept(keep_->program)); }
  bool ArmAt(uint32_t off, std::string* err) override { return Arm(*rt_, off, err, src_, clock_); }
  bool ArmThen(const std::vector<ArmPoint>& then, std::string* err) override { return harness::ArmThen(*rt_, then, err); }
  RequestSource request_source() const override { return src_; }
  bool Run(const std::string& main, std::string* err) override {
    ran_ = true;
    return RunBounded(*rt_, main, err);
  }
  const FuncTable& table() const override { return rt_->table(); }
  std::shared_ptr<const FuncTable> shared_table() const override { return rt_->shared_table(); }
  uintptr_t code_base() const override { return rt_->code_base(); }
  int xstate_tier() const override { return rt_->xstate_tier(); }
  std::vector<Event> events() const override { return rt_->events().Snapshot(); }
  size_t events_dropped() const override { return rt_->events().dropped(); }
  EndState end_state() const override {
    EndState s;
    s.globals.resize(ir::kGlobals);
    for (int i = 0; i < ir::kGlobals; i++) s.globals[static_cast<size_t>(i)] = rt_->global(i);
    s.vdump.assign(rt_->vdump(0), rt_->vdump(0) + ir::kVDumpAreas * ir::kVDumpBytes);
    return s;
  }
  SaveAreaImage save_area() const override { return *save_; }
  FrameImage trap_frame(size_t point) const override {
    FrameImage img;
    TakeTrapFrame(point, &img);
    return img;
  }

 private:
  // asyncPreempt2 shows the save area to the harness first (a test's own
  // hook runs after): the frame at the goroutine's SP, and the extended
  // state xRegSave moved into the G (or, under the shared-scratch mutation,
  // still in the P's scratch area, whose vectors asyncPreempt2 poisons
  // after this hook). The image is shared with the hook: an abandoned M may reach
  // asyncPreempt2 after this object is gone.
  static RuntimeOptions WithSaveArea(RuntimeOptions opts, std::shared_ptr<SaveAreaImage> save) {
    auto then = std::move(opts.hooks.on_async_preempt);
    opts.hooks.on_async_preempt = [save, then](Runtime& rt, G* gp) {
      RegisterImage trap;
      if (!save->seen && TakeTrapRegisters(gp->m, gp, gp->async_pc, &trap)) {
        const PortInfo& port = NativePort();
        const uint8_t* frame = reinterpret_cast<const uint8_t*>(gp->sched.sp);
        save->frame.assign(frame, frame + port.async_frame);
        save->tier = rt.xstate_tier();
        const uint8_t* x = gp->xstate_live ? gp->xstate.get() : gp->m->p->xscratch;
        save->xstate.assign(x, x + port.tiers[save->tier].scratch_bytes);
        save->trap = trap;
        save->seen = true;
      }
      if (then) then(rt, gp);
    };
    return opts;
  }
  // sysmon as a source: sysmon runs, on a clock the requester moves; the
  // rest of the runtime (suspendG's signals, stopTheWorld's rounds) paces
  // itself on real time. (On the same standing clock, a collection's
  // suspendG sent one signal and, refused, none again, and its
  // stopTheWorld never began a second round: the fifth one-hour
  // campaign's loong64 timeout waited that way on a goroutine.)
  static RuntimeOptions WithClock(RuntimeOptions opts, ManualClock* clock) {
    if (clock != nullptr) {
      opts.hooks.sysmon = true;
      opts.hooks.sysmon_clock = clock;
    }
    return opts;
  }
  RequestSource src_;
  std::shared_ptr<const KeepAs> keep_;
  std::unique_ptr<Kept> kept_;
  ManualClock* clock_ = nullptr;
  std::shared_ptr<SaveAreaImage> save_;
  Runtime* rt_ = nullptr;
  bool loaded_ = false;  // its program is the one keep_ names, loaded
  bool ran_ = false;
};

}  // namespace

bool RuntimeUnderTest::LoadEmitted(const EmitEnv& env, Emitted emitted, std::string* err) {
  (void)env, (void)emitted;
  *err = "this runtime under test emits its programs itself";
  return false;
}

std::unique_ptr<RuntimeUnderTest> NewReferenceRuntime(const RuntimeOptions& opts, RequestSource src, bool sysmon_clock,
                                                      KeepAs keep) {
  return std::make_unique<ReferenceRuntime>(opts, src, sysmon_clock, std::make_shared<const KeepAs>(std::move(keep)));
}

RuntimeFactory ReferenceRuntimeFactory(RuntimeOptions opts, RequestSource src, bool sysmon_clock, KeepAs keep) {
  auto o = std::make_shared<const RuntimeOptions>(std::move(opts));
  auto k = std::make_shared<const KeepAs>(std::move(keep));
  return [o, src, sysmon_clock, k]() -> std::unique_ptr<RuntimeUnderTest> {
    return std::make_unique<ReferenceRuntime>(*o, src, sysmon_clock, k);
  };
}

KeptRuntimeCounts KeptRuntimeCountsNow() { return Keeper::Get().counts(); }

std::vector<std::string> TakeGivenUpOptions() { return Keeper::Get().TakeGivenUp(); }

std::string KeptRuntimeSummary() {
  KeptRuntimeCounts c = KeptRuntimeCountsNow();
  std::string s = "runtimes: " + std::to_string(c.fresh) + " made fresh, " +
                  std::to_string(c.reused_loaded + c.reused_shelved + c.reused_reloaded) + " reset and reused (" +
                  std::to_string(c.reused_shelved) + " switched back to the program's shelved code, " +
                  std::to_string(c.reused_reloaded) + " with another program emitted), " + std::to_string(c.failed()) +
                  " not reset";
  if (!c.reset_failed.empty()) {
    s += " (";
    bool first = true;
    for (const auto& [why, n] : c.reset_failed) {
      s += (first ? "" : "; ") + why + ": " + std::to_string(n);
      first = false;
    }
    s += ")";
  }
  return s;
}

}  // namespace safepoint::harness
