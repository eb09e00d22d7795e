// Asking the real Go runtime for its decision at chosen instructions of an
// unmodified binary, as the scheduler asks (realgo/README of the method:
// ARCHITECTURE.md, "The real Go runtime under test").
//
// The guest starts with GODEBUG=asyncpreemptoff=1 and GOMAXPROCS=1, under a
// tracer (ptrace natively, QEMU's gdbstub emulated), with a breakpoint at
// every PC still to probe. When a goroutine's thread stops at one: read g
// from the g register and, through the binary's DWARF offsets, g.m, the
// M's curg, P, canPreemptM's counters and preemptGen; write g.preempt = 1
// (and g.preemptStop for the collector's kind of request), move the P's
// sysmontick.schedwhen far ahead so that sysmon asks nothing meanwhile, let
// runtime.debug.asyncpreemptoff be 0 for just this signal, and continue the
// thread with SIGURG. Its next stop is the verdict: runtime.asyncPreempt
// (accepted; the resume PC at [SP] or in the link register) or the same PC
// (refused). m.preemptGen must have risen by one either way: the handler
// ran. The stack as the machine had it at the stop is kept for the
// frame-table oracle. Each PC is probed once; a run that ends leaves the
// PCs it never reached for the next, a desync or a dead guest starts the
// guest again, and the PCs a run never reached twice are unreached.
#ifndef SAFEPOINT_REALGO_PROBE_H_
#define SAFEPOINT_REALGO_PROBE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "harness/frame_image.h"
#include "platforms/port.h"
#include "realgo/binary.h"
#include "realgo/tracer.h"

namespace safepoint::realgo {

enum class GoRequest { kSched, kGC };

struct ProbeOptions {
  std::vector<std::string> args;      // the program's arguments after argv[0]
  std::vector<std::string> env;       // added to the guest's environment
  std::vector<std::string> emulator;  // empty: natively through ptrace; else the emulator's words (gdbstub)
  GoRequest request = GoRequest::kSched;
  double stop_timeout_s = 30;         // the longest wait for any one stop
  int max_runs = 0;                   // guest runs at most (0: pcs/8 + 8)
  std::string work_dir = "/tmp";      // where the guest's output files go
  // A deliberate mistake (tests of the invisibility oracle): at each stop,
  // add one to this register (GDB's number) before the signal; -1: none.
  int clobber_reg = -1;
  // Likewise a floating-point or vector register by name (its first byte
  // incremented); "": none.
  std::string clobber_vec;
  // After an accepted preemption, follow the goroutine to its resume PC
  // and read its registers there (the save-area oracle on real Go).
  bool follow_resume = true;
  double resume_timeout_s = 10;  // the longest wait for it to run again
  // The collection stress: collections forced all along (sysmon's
  // forcegcperiod at 1 ns from the first stop), whatever the request.
  bool force_collections = false;
  // The traceback stress: an accepted goroutine gets SIGQUIT as it enters
  // asyncPreempt, and the runtime prints every goroutine's traceback
  // (GOTRACEBACK=system) and exits: one accepted probe per guest run.
  bool traceback = false;
  int resume_max_stops = 32;      // and the most stops of others meanwhile
};

// What the tracer read at the stop, before the signal.
struct StopRead {
  uint64_t pc = 0, sp = 0, lr = 0, g = 0, m = 0, p = 0;
  bool curg = false, p_running = false, preemptoff = false;
  int32_t locks = 0, mallocing = 0;
  uint64_t stack_lo = 0, stack_hi = 0, stktopsp = 0;
  uint32_t preempt_gen = 0;
};

struct ProbeResult {
  uint64_t pc = 0;
  // kNotAsked: the collector's kind of request, at a stop while no
  // collection was marking, or one that had scanned this goroutine
  // already: not asked (the PC stays to be probed).
  enum Outcome { kAccepted, kRefused, kNoHandler, kLost, kNotAsked } outcome = kLost;
  uint64_t resume = 0;          // accepted: where asyncPreempt returns to
  uint32_t preempt_gen_after = 0;
  StopRead at;
  harness::FrameImage frame;    // accepted: the stack as the stop saw it
  // Accepted, with ProbeOptions::follow_resume: the goroutine seen again at
  // its resume PC (its first instruction after asyncPreempt returned), and
  // the registers there next to those at the stop (GDB's numbering).
  enum Resumed { kNotFollowed, kBack, kEnded, kNotBack } resumed = kNotFollowed;
  std::vector<uint64_t> trap_regs, resume_regs;
  // The floating-point and vector registers likewise (Tracer::ReadVecRegs),
  // read only where PortInfo::go.preserved_vec names some.
  std::vector<VecReg> trap_vec, resume_vec;
  // The collector's kind, back: its stack scanned while it was parked (it
  // was not at the stop).
  bool gc_scanned = false;
  // The traceback stress was applied: the guest ended with the runtime's
  // traceback (its GuestRun's err).
  bool traceback = false;
  std::string error;            // kLost, kNoHandler: what happened
  size_t run = 0;               // which guest run probed it
};

// One run of the guest under the tracer.
struct GuestRun {
  std::vector<uint64_t> probed;  // in the order probed
  std::string out, err;          // the program's stdout and stderr
  bool exited = false;           // ended by itself (else killed, or lost)
  int status = -1;               // its exit status when it exited
  int signal = 0;                // the signal that ended it, if one did
  std::string error;             // a desync, a time-out, a start failure
  uint64_t traceback_pc = 0;     // ended by the traceback stress at this probe
};

struct ProbeReport {
  std::vector<ProbeResult> probes;  // one per PC probed, in probing order
  std::vector<GuestRun> runs;
  std::vector<uint64_t> unreached;  // PCs no run executed
  std::string fatal;                // the engine could not run at all
};

// The unpreempted run the probed runs are compared with (same environment,
// no tracer).
GuestRun RunPlain(const std::string& binary, const PortInfo& port, const ProbeOptions& opt);

using ProbeProgress = std::function<void(size_t done, size_t total)>;
ProbeReport ProbeAll(const std::string& binary, const GoBinary& bin, const PortInfo& port,
                     const std::vector<uint64_t>& pcs, const ProbeOptions& opt, const ProbeProgress& progress = nullptr);

// A guest kept running across probes (a fuzzer's: the PCs of one input per
// call). Each ProbeSet sets their breakpoints, lets the guest run until
// goroutines reach them, probes each as ProbeAll does, and holds the thread
// stopped for the next call. A guest that ends is started again by the
// next ProbeSet.
class GoGuest {
 public:
  GoGuest(std::string binary, const GoBinary& bin, const PortInfo& port, ProbeOptions opt);
  ~GoGuest();
  GoGuest(const GoGuest&) = delete;
  GoGuest& operator=(const GoGuest&) = delete;

  enum Outcome { kProbed, kNotReached, kEnded, kError, kOutOfTime };
  // Each of `pcs` probed at its next execution, in the order the guest
  // reaches them (as a sweep's run does): kProbed when every one was (the
  // guest may have ended at the last), kEnded when the guest ended first,
  // kNotReached when none was reached for reach_timeout_s (the guest is
  // ended), kError (*ended's error says why). *probes gets one result per
  // PC probed (kLost among their outcomes). When the guest ends (by itself,
  // by the traceback stress, or given up), *ended receives its whole run,
  // for the invisibility judge; ended->probed lists the PCs it probed.
  // until_s (internal::NowSeconds' clock; 0: none): no probe starts after
  // it; kOutOfTime then, the guest held alive at its last probe, the PCs
  // not in *probes left unprobed.
  Outcome ProbeSet(const std::vector<uint64_t>& pcs, double reach_timeout_s, std::vector<ProbeResult>* probes,
                   GuestRun* ended, double until_s = 0);
  // The kind of request and the stress of the next probes (the guest's
  // ProbeOptions otherwise stay).
  void SetKind(GoRequest request, bool force_collections, bool traceback);
  // True when the last ProbeSet started a fresh guest; ended(): the guest
  // ended during it (by itself, the traceback stress, a lost probe, or
  // given up), and its run is in ProbeSet's *ended.
  bool fresh() const { return fresh_; }
  bool ended() const { return ended_; }
  size_t runs() const { return runs_; }
  double start_seconds() const { return start_s_; }  // spent starting guests, in all
  // Ends the guest now; its run (not judged: killed) in *ended.
  void End(GuestRun* ended);

 private:
  struct Live;
  bool StartGuest(std::string* why);
  void Finish(GuestRun* ended, bool killed);
  std::string binary_;
  const GoBinary& bin_;
  const PortInfo& port_;
  ProbeOptions opt_;
  std::unique_ptr<Live> live_;
  std::string dir_;
  bool fresh_ = false, ended_ = false;
  size_t runs_ = 0;
  double start_s_ = 0;
};

// The emulator's words for this process's config (SAFEPOINT_EMULATOR, set by
// platforms/toolchains/run): empty natively.
std::vector<std::string> EmulatorFromEnv();

}  // namespace safepoint::realgo

#endif
