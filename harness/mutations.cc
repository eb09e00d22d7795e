#include "harness/mutations.h"

#include "runtime/runtime.h"

namespace safepoint::harness {
namespace {

std::string Always(const PortInfo&) { return ""; }
std::string NeedsAsync(const PortInfo& port) {
  if (!port.async_preemption()) return "port " + std::string(port.name) + " declares asynchronous preemption missing";
  return "";
}
std::string NeedsBaseVectors(const PortInfo& port) {
  bool vectors = false;
  for (const SavedReg& r : port.saved_regs) vectors = vectors || (r.kind == SavedReg::kVector && r.tier == 0);
  if (!vectors) return "port " + std::string(port.name) + " saves no vector registers in its base tier";
  return NeedsAsync(port);
}
// The stack-room rule one word short admits SP = stack.lo +
// asyncPreemptStack - 8 only. Where SP keeps a 16-byte alignment and
// asyncPreemptStack (as the runtime computes it) is a multiple of 16 too,
// no instruction of any program runs at that SP.
std::string StackRoomWordNeverAnSp(const PortInfo& port) {
  size_t aps = Runtime::AsyncPreemptStackOf(port);
  if (port.sp_align == 0 || (aps - 8) % port.sp_align == 0) return "";
  return "SP is always a multiple of " + std::to_string(port.sp_align) + " above stack.lo on port " +
         std::string(port.name) + " (sp_align) and asyncPreemptStack is " + std::to_string(aps) +
         ": the word the mutation admits is never an SP there (the suite's test feeds it one)";
}
std::string NeedsRestarts(const PortInfo& port) {
  if (!port.model.regtmp_restartable)
    return "port " + std::string(port.name) + " has no restartable sequences (PortModel::regtmp_restartable)";
  return NeedsAsync(port);
}

}  // namespace

const std::vector<MutationDef>& Mutations() {
  static const std::vector<MutationDef> kMutations = {
      {"skip-unsafe-point", "isAsyncSafePoint ignores compiler-marked unsafe points", "Sweep.CatchesASkippedUnsafePointRule",
       true, [](RuntimeMutations& m) { m.skip_rule = Reason::kUnsafePoint; }, NeedsAsync},
      {"skip-nosplit", "isAsyncSafePoint ignores the nosplit rule", "Sweep.CatchesASkippedNosplitRule", true,
       [](RuntimeMutations& m) { m.skip_rule = Reason::kNosplit; }, NeedsAsync},
      {"no-restart", "restartable sequences are resumed in place instead of at their start",
       "Sweep.CatchesARestartNotRewound", true, [](RuntimeMutations& m) { m.no_restart = true; }, NeedsRestarts},
      {"drop-register", "asyncPreempt neither saves nor restores IR register r3", "Sweep.CatchesARegisterNotSaved", true,
       [](RuntimeMutations& m) { m.drop_register = true; }, NeedsAsync},
      {"half-vector", "asyncPreempt saves and restores only the low half of each vector register of its tier",
       "Async_9_7_5.SaveAreaCatchesVectorsSavedAtHalfWidth, Sweep.CatchesVectorsSavedAtHalfWidth", true,
       [](RuntimeMutations& m) { m.half_vector_save = true; }, NeedsBaseVectors},
      {"shared-scratch",
       "asyncPreempt2 leaves extended state in the P's scratch area (no per-G state): a goroutine resumes with "
       "another's vectors",
       "PerG_9_7_5.CatchesSharedScratch", false, [](RuntimeMutations& m) { m.shared_scratch = true; }, NeedsAsync},
      {"live-request", "execute() leaves gp.preempt and pp.preempt set: a request outlives its preemption",
       "PerG_9_7_5.CatchesALiveRequest, Sweep.CatchesALiveRequest", true,
       [](RuntimeMutations& m) { m.live_request = true; }, Always},
      {"slow-sysmon", "sysmon's forcePreemptNS is 100 ms instead of the chapter's 10 ms",
       "Constants_9_7.CatchesASlowSysmon", false, [](RuntimeMutations& m) { m.force_preempt_scale = 10; }, Always},
      {"no-fairness", "the scheduler never lets the global run queue go first (Go's 1-in-61 check)",
       "Constants_9_7.CatchesAStarvedGlobalQueue", false, [](RuntimeMutations& m) { m.no_global_fairness = true; },
       Always},
      {"outermost-inline", "the runtime-package rule reads the outermost inlined body, not the innermost",
       "Async_9_7_5.CatchesTheOutermostInlinedBody, Sweep.CatchesTheOutermostInlinedBody", true, [](RuntimeMutations& m) { m.outermost_inline = true; },
       NeedsAsync},
      {"stack-room-off-by-one", "the stack-room rule admits one word less than asyncPreemptStack",
       "Async_9_7_5.CatchesStackRoomOffByOneWord", false, [](RuntimeMutations& m) { m.stack_room_off_by_one = true; },
       NeedsAsync, StackRoomWordNeverAnSp},
      {"suspend-no-preempt-stop",
       "suspendG does not set preemptStop: the goroutine is rescheduled by gopreempt_m instead of parking",
       "Suspend_9_7_6.CatchesSuspendGWithoutPreemptStop", false,
       [](RuntimeMutations& m) { m.suspend_no_preempt_stop = true; }, Always},
      {"shrink-at-async", "isShrinkStackSafe ignores gp.asyncSafePoint: a stack is shrunk at an asynchronous safe point",
       "Shrink_9_7_5.CatchesAShrinkAtAnAsynchronousSafePoint, Sweep.CollectionCatchesAShrinkAtAnAsynchronousSafePoint",
       false,
       [](RuntimeMutations& m) { m.shrink_at_async = true; }, NeedsAsync},
      {"scan-skips-outgoing-args",
       "the conservative scan of an interrupted frame starts above its outgoing-argument area: a pointer being "
       "passed to a call is lost",
       "Scan_9_7_5.CatchesAScanSkippingTheOutgoingArgumentArea, Sweep.CollectionCatchesAScanSkippingTheOutgoingArgs",
       false, [](RuntimeMutations& m) { m.scan_skips_outgoing_args = true; }, NeedsAsync},
      {"pcsp-late",
       "the function table has each frame open one instruction after its SP moves: at that instruction an unwinder "
       "reads the caller's frame from the wrong SP",
       "Sweep.CatchesAFrameTableOpeningLate", true, [](RuntimeMutations& m) { m.pcsp_late = true; }, NeedsAsync},
  };
  return kMutations;
}

const MutationDef* FindMutation(const std::string& name) {
  for (const MutationDef& m : Mutations())
    if (name == m.name) return &m;
  return nullptr;
}

std::string MutationInapplicable(const MutationDef& m, const PortInfo& port) { return m.inapplicable(port); }

std::string MutationUnseenInRuns(const MutationDef& m, const PortInfo& port) {
  std::string why = m.inapplicable(port);
  if (why.empty() && m.unseen_in_runs) why = m.unseen_in_runs(port);
  return why;
}

}  // namespace safepoint::harness
