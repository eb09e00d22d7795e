// The reference runtime as a RuntimeUnderTest.
#include "harness/armed.h"
#include "harness/runtime_under_test.h"
#include "harness/scenario.h"
#include "platforms/native.h"

namespace safepoint::harness {
namespace {

class ReferenceRuntime : public RuntimeUnderTest {
 public:
  ReferenceRuntime(RuntimeOptions opts, RequestSource src, bool sysmon_clock)
      : src_(src), clock_(src == RequestSource::kSysmon || sysmon_clock ? new ManualClock : nullptr),
        save_(std::make_shared<SaveAreaImage>()),
        own_(std::make_unique<Runtime>(WithSaveArea(WithClock(std::move(opts), clock_), save_))), rt_(*own_) {}
  ~ReferenceRuntime() override {
    Disarm(rt_);
    // An M abandoned after the run (its goroutine never reached a safe
    // point) still runs code that reaches the Runtime through its M: the
    // Runtime must outlive it, so it is leaked, as ~Runtime leaks the rest.
    // (Found by //fuzz:preempt_fuzz: a long campaign crashed in the
    // harness on a freed Runtime.)
    // (Its sysmon reads the clock: leaked with it.)
    if (rt_.abandoned_ms() > 0) own_.release();
    else delete clock_;
  }
  bool Load(const ir::Program& prog, std::string* err) override { return rt_.Load(prog, err); }
  bool ArmAt(uint32_t off, std::string* err) override { return Arm(rt_, off, err, src_, clock_); }
  bool ArmThen(const std::vector<ArmPoint>& then, std::string* err) override { return harness::ArmThen(rt_, then, err); }
  RequestSource request_source() const override { return src_; }
  bool Run(const std::string& main, std::string* err) override { return RunBounded(rt_, main, err); }
  const FuncTable& table() const override { return rt_.table(); }
  uintptr_t code_base() const override { return rt_.code_base(); }
  std::vector<Event> events() const override { return const_cast<Runtime&>(rt_).events().Snapshot(); }
  size_t events_dropped() const override { return const_cast<Runtime&>(rt_).events().dropped(); }
  EndState end_state() const override {
    EndState s;
    for (int i = 0; i < ir::kGlobals; i++) s.globals.push_back(rt_.global(i));
    s.vdump.assign(rt_.vdump(0), rt_.vdump(0) + ir::kVDumpAreas * ir::kVDumpBytes);
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
  ManualClock* clock_;
  std::shared_ptr<SaveAreaImage> save_;
  std::unique_ptr<Runtime> own_;
  Runtime& rt_;
};

}  // namespace

std::unique_ptr<RuntimeUnderTest> NewReferenceRuntime(RuntimeOptions opts, RequestSource src, bool sysmon_clock) {
  return std::make_unique<ReferenceRuntime>(std::move(opts), src, sysmon_clock);
}

RuntimeFactory ReferenceRuntimeFactory(RuntimeOptions opts, RequestSource src, bool sysmon_clock) {
  return [opts, src, sysmon_clock] { return NewReferenceRuntime(opts, src, sysmon_clock); };
}

}  // namespace safepoint::harness
