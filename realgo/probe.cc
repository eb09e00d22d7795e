#include "realgo/probe.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "core/hex.h"
#include "realgo/tracer.h"

namespace safepoint::realgo {
namespace {

constexpr int kSigurg = 23;  // Linux's SIGURG (the same number on every port)
constexpr int kSigquit = 3;
constexpr int32_t kPrunning = 1;
// The most bytes of a goroutine's stack kept for the frame-table oracle.
constexpr uint64_t kMaxStackImage = 256 * 1024;

std::string ReadFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

std::vector<std::string> GuestEnv(const ProbeOptions& opt) {
  std::vector<std::string> env = {"GODEBUG=asyncpreemptoff=1", "GOMAXPROCS=1"};
  if (opt.traceback) env.push_back("GOTRACEBACK=system");
  for (const std::string& e : opt.env) env.push_back(e);
  return env;
}

std::string TempDir(const ProbeOptions& opt) {
  std::string t = opt.work_dir + "/safepoint-go-XXXXXX";
  std::vector<char> b(t.begin(), t.end());
  b.push_back(0);
  if (mkdtemp(b.data()) == nullptr) return opt.work_dir;
  return b.data();
}

// Fields of one structure read in one go: the bytes from the lowest offset
// to the highest one's word.
class Span {
 public:
  Span(uint64_t base, std::initializer_list<int> offs) : base_(base) {
    lo_ = *std::min_element(offs.begin(), offs.end());
    hi_ = *std::max_element(offs.begin(), offs.end()) + 8;
  }
  bool Read(Tracer& t, std::string* err) {
    if (lo_ < 0) {
      *err = "a structure offset is unknown";
      return false;
    }
    bytes_.resize(static_cast<size_t>(hi_ - lo_));
    return t.ReadMemory(base_ + static_cast<uint64_t>(lo_), bytes_.data(), bytes_.size(), err);
  }
  uint64_t Word(int off) const {
    uint64_t v = 0;
    memcpy(&v, bytes_.data() + (off - lo_), 8);
    return v;
  }
  uint32_t U32(int off) const {
    uint32_t v = 0;
    memcpy(&v, bytes_.data() + (off - lo_), 4);
    return v;
  }

 private:
  uint64_t base_;
  int lo_ = 0, hi_ = 0;
  std::vector<uint8_t> bytes_;
};

// One guest run's tracer and what the probes need of the binary.
class Session {
 public:
  Session(const GoBinary& bin, const PortInfo& port, const ProbeOptions& opt)
      : bin_(bin), port_(port), opt_(opt), o_(bin.offsets()) {
    const GoFunc* ap = bin.FuncNamed("runtime.asyncPreempt");
    async_preempt_ = ap ? ap->entry : 0;
    gcphase_addr_ = bin.Symbol("runtime.gcphase");
    const GoFunc* ge = bin.FuncNamed("runtime.goexit");
    goexit_ = ge ? ge->entry + port.go.goexit_return : 0;
  }

  bool Start(const std::string& binary, const std::string& out, const std::string& err, std::string* why) {
    if (async_preempt_ == 0) {
      *why = "the binary has no runtime.asyncPreempt";
      return false;
    }
    LaunchSpec spec;
    spec.argv.push_back(binary);
    for (const std::string& a : opt_.args) spec.argv.push_back(a);
    spec.env = GuestEnv(opt_);
    spec.emulator = opt_.emulator;
    spec.elf_machine = bin_.elf_machine();
    spec.stdout_path = out;
    spec.stderr_path = err;
    t_ = NewTracer(spec);
    if (!t_->Start(spec, why)) return false;
    return t_->SetBreakpoint(async_preempt_, why);
  }

  Tracer& t() { return *t_; }
  uint64_t async_preempt() const { return async_preempt_; }

  // Reads what isAsyncSafePoint reads, at a thread stopped at `pc`.
  bool ReadStop(int tid, uint64_t pc, StopRead* s, std::vector<uint64_t>* regs, std::string* err) {
    if (!t_->ReadRegs(tid, regs, err)) return false;
    const auto& go = port_.go;
    auto reg = [&](int n) -> uint64_t { return n >= 0 && static_cast<size_t>(n) < regs->size() ? (*regs)[n] : 0; };
    s->pc = pc;
    s->sp = reg(go.gdb_sp);
    s->lr = reg(go.gdb_lr);
    s->g = reg(go.gdb_g);
    if (s->g == 0) {
      *err = "no g in the g register at " + Hex(pc);
      return false;
    }
    // The g and the m each in one read (a round trip each under QEMU's
    // gdbstub), from their lowest field needed to their highest.
    Span gs(s->g, {o_.g_m, o_.g_stack_lo, o_.g_stack_hi, o_.g_stktopsp});
    if (!gs.Read(*t_, err)) return false;
    s->m = gs.Word(o_.g_m);
    s->stack_lo = gs.Word(o_.g_stack_lo);
    s->stack_hi = gs.Word(o_.g_stack_hi);
    s->stktopsp = gs.Word(o_.g_stktopsp);
    if (s->m == 0) {
      *err = "g " + Hex(s->g) + " has no m at " + Hex(pc);
      return false;
    }
    Span ms(s->m, {o_.m_curg, o_.m_p, o_.m_preemptoff + 8, o_.m_preemptGen, o_.m_locks, o_.m_mallocing});
    if (!ms.Read(*t_, err)) return false;
    uint64_t curg = ms.Word(o_.m_curg), preemptoff_len = ms.Word(o_.m_preemptoff + 8);
    s->p = ms.Word(o_.m_p);
    s->preempt_gen = ms.U32(o_.m_preemptGen);
    s->locks = static_cast<int32_t>(ms.U32(o_.m_locks));
    s->mallocing = static_cast<int32_t>(ms.U32(o_.m_mallocing));
    s->curg = curg == s->g;
    s->preemptoff = preemptoff_len != 0;
    if (s->p != 0) {
      uint32_t status = 0;
      if (!U32(s->p + o_.p_status, &status, err)) return false;
      s->p_running = static_cast<int32_t>(status) == kPrunning;
    }
    return true;
  }

  bool Word(uint64_t a, uint64_t* v, std::string* err) { return t_->ReadMemory(a, v, 8, err); }
  bool U32(uint64_t a, uint32_t* v, std::string* err) { return t_->ReadMemory(a, v, 4, err); }
  bool PutByte(uint64_t a, uint8_t v, std::string* err) { return t_->WriteMemory(a, &v, 1, err); }
  bool PutI32(uint64_t a, int32_t v, std::string* err) { return t_->WriteMemory(a, &v, 4, err); }
  bool PutI64(uint64_t a, int64_t v, std::string* err) { return t_->WriteMemory(a, &v, 8, err); }

  // Asynchronous preemption on (0) or off (1) in the runtime's debug flags.
  bool AsyncPreemptOff(int32_t v, std::string* err) {
    return PutI32(o_.debug_addr + o_.debug_asyncpreemptoff, v, err);
  }

  // The probe of one PC, the thread `tid` stopped there.
  ProbeResult Probe(int tid, uint64_t pc) {
    ProbeResult r;
    r.pc = pc;
    std::string err;
    std::vector<uint64_t> regs;
    auto lost = [&](const std::string& why) {
      r.outcome = ProbeResult::kLost;
      r.error = why;
      return r;
    };
    if (!ReadStop(tid, pc, &r.at, &regs, &err)) return lost(err);
    if (opt_.force_collections && !ForceCollections(true, &err)) return lost(err);
    // A kept guest's probe with neither stress nor the collector's kind
    // after one with them: sysmon's period put back.
    if (forced_ && !opt_.force_collections && opt_.request != GoRequest::kGC && !ForceCollections(false, &err))
      return lost(err);
    // Ask as the scheduler does; keep sysmon from asking too; let this one
    // signal find asynchronous preemption on.
    if (!PutByte(r.at.g + o_.g_preempt, 1, &err)) return lost(err);
    if (opt_.request == GoRequest::kGC) {
      // As suspendG asks (g.preemptStop with g.preempt), and only where a
      // stack scan is sure to follow: while a collection marks and has not
      // scanned this goroutine yet. The goroutine then parks in
      // preemptPark (_Gpreempted), the mark phase's scan claims it there
      // (suspendG), scans its stack as the trap left it, and readies it
      // (resumeG). Asked at any other time, nobody would ready it: only
      // suspendG's caller does, and the harness is not one (Go then
      // reports "all goroutines are asleep - deadlock!"). Collections are
      // forced all along (sysmon's forcegcperiod at 1 ns) so that stops
      // often find one marking.
      uint32_t phase = 0;
      uint8_t scanned = 0;
      if (!ForceCollections(true, &err) || !U32(gcphase_addr_, &phase, &err)) return lost(err);
      if (phase == kGCmark && !t_->ReadMemory(r.at.g + o_.g_gcscandone, &scanned, 1, &err)) return lost(err);
      if (phase != kGCmark || scanned != 0) {
        // Not asked. Where the collector's state has not moved (no cycle
        // began or ended) for kStalledS (ten times that emulated), the
        // harness brings the next one about (Nudge): while none marks, or
        // while one marks that has scanned this goroutine and whose end
        // waits for this P to pass a safe point and then to stop the world.
        // A program that collects on its own (allocating) is left alone.
        r.outcome = ProbeResult::kNotAsked;
        uint64_t last_gc = 0;
        if (!Word(o_.memstats_addr + static_cast<uint64_t>(o_.mstats_last_gc_nanotime), &last_gc, &err))
          return lost(err);
        const double now = internal::NowSeconds();
        if (phase != seen_phase_ || last_gc != seen_last_gc_) {
          seen_phase_ = phase;
          seen_last_gc_ = last_gc;
          seen_at_s_ = now;
        } else if (r.at.curg && now - seen_at_s_ >= Emulated(kStalledS) && pc != last_nudge_pc_) {
          seen_at_s_ = now;
          last_nudge_pc_ = pc;
          if (!Nudge(tid, pc, r.at, &err)) return lost(err);
          return r;
        }
        if (!PutByte(r.at.g + o_.g_preempt, 0, &err) || !LiftIfSpinning(tid, pc, &err) || !Leave(tid, 0, &err))
          return lost(err);
        return r;
      }
      spin_.erase(tid);
      if (!PutByte(r.at.g + o_.g_preemptStop, 1, &err)) return lost(err);
    }
    if (!QuietSysmon(r.at, &err)) return lost(err);
    if (opt_.clobber_reg >= 0 && static_cast<size_t>(opt_.clobber_reg) < regs.size() &&
        !t_->WriteReg(tid, opt_.clobber_reg, regs[opt_.clobber_reg] + 1, &err))
      return lost(err);
    std::vector<VecReg> vec;
    const bool want_vec = (opt_.follow_resume || opt_.request == GoRequest::kGC) && !port_.go.preserved_vec.empty();
    if (want_vec || !opt_.clobber_vec.empty()) {
      if (!t_->ReadVecRegs(tid, &vec, &err)) return lost(err);
      for (VecReg& v : vec)
        if (v.name == opt_.clobber_vec && !v.bytes.empty()) {
          std::vector<uint8_t> b = v.bytes;
          b[0]++;
          if (!t_->WriteVecReg(tid, v.name, b, &err)) return lost(err);
        }
    }
    bool accepted = false;
    if (!SignalForVerdict(tid, pc, r.at, &accepted, &err)) return lost(err);
    if (accepted) {
      r.outcome = ProbeResult::kAccepted;
      std::vector<uint64_t> now;
      if (!t_->ReadRegs(tid, &now, &err)) return lost(err);
      if (port_.go.gdb_lr >= 0) {
        r.resume = now[port_.go.gdb_lr];
      } else if (!Word(now[port_.go.gdb_sp], &r.resume, &err)) {
        return lost(err);
      }
    } else {
      r.outcome = ProbeResult::kRefused;
    }
    if (!U32(r.at.m + o_.m_preemptGen, &r.preempt_gen_after, &err)) return lost(err);
    if (r.preempt_gen_after != r.at.preempt_gen + 1) {
      r.outcome = ProbeResult::kNoHandler;
      r.error = "m.preemptGen went from " + std::to_string(r.at.preempt_gen) + " to " +
                std::to_string(r.preempt_gen_after) + ": the signal handler did not run once";
    }
    if (r.outcome != ProbeResult::kAccepted) {
      if (!PutByte(r.at.g + o_.g_preempt, 0, &err)) return lost(err);
      if (opt_.request == GoRequest::kGC && !PutByte(r.at.g + o_.g_preemptStop, 0, &err)) return lost(err);
    } else {
      harness::FrameImage& f = r.frame;
      f.seen = true;
      f.code_base = 0;
      f.pc = pc;
      f.sp = r.at.sp;
      f.has_lr = port_.go.gdb_lr >= 0;
      f.lr = r.at.lr;
      f.stack_lo = r.at.stack_lo;
      f.stack_hi = r.at.stack_hi;
      f.base = r.at.stktopsp;
      f.goexit = goexit_;
      if (r.at.sp >= r.at.stack_lo && r.at.sp < r.at.stack_hi) {
        // Up to the goroutine's frame base and a little past it: all a walk reads.
        uint64_t top = std::min<uint64_t>(r.at.stack_hi, std::max(r.at.stktopsp, r.at.sp) + 16);
        uint64_t n = std::min<uint64_t>(top - r.at.sp, kMaxStackImage);
        f.stack.resize(n);
        if (!t_->ReadMemory(r.at.sp, f.stack.data(), n, &err)) f.stack.clear();
      }
    }
    if (!t_->ClearBreakpoint(pc, &err)) return lost(err);
    if (r.outcome == ProbeResult::kAccepted && opt_.traceback) {
      // The traceback stress: SIGQUIT to the goroutine as it enters
      // asyncPreempt (the injected call's frame on top of the trap's), and
      // the runtime's own traceback of every goroutine (GOTRACEBACK=system)
      // on its stderr; the guest ends with it.
      r.trap_regs = regs;
      r.traceback = true;
      if (!t_->Continue(tid, kSigquit, &err)) return lost(err);
      for (;;) {
        Stop s = t_->Wait(opt_.stop_timeout_s);
        if (s.kind == Stop::kError) return lost("waiting for the traceback's end: " + s.error);
        if (s.kind == Stop::kExited || s.kind == Stop::kKilled) {
          exited_ = s;
          return r;
        }
        if (!t_->Continue(s.tid, s.kind == Stop::kSignal ? s.signal : 0, &err)) return lost(err);
      }
    }
    if (r.outcome == ProbeResult::kAccepted && (opt_.follow_resume || opt_.request == GoRequest::kGC)) {
      r.trap_regs = regs;
      if (want_vec) r.trap_vec = std::move(vec);
      if (!FollowToResume(tid, &r, &err)) return lost(err);
      return r;
    }
    if (!Leave(tid, 0, &err)) return lost(err);
    return r;
  }

  // Sysmon's view of the stopped goroutine's P: this schedtick already
  // seen, and seen only now (else sysmon, seeing a new tick, sets schedwhen
  // to now itself, and ten milliseconds later sends SIGURG of its own into
  // the probe: seen under QEMU as m.preemptGen rising by two).
  bool QuietSysmon(const StopRead& at, std::string* err) {
    if (at.p == 0) return true;
    uint32_t tick = 0;
    return U32(at.p + o_.p_schedtick, &tick, err) &&
           t_->WriteMemory(at.p + o_.p_sysmontick + o_.sysmontick_schedtick, &tick, 4, err) &&
           PutI64(at.p + o_.p_sysmontick + o_.sysmontick_schedwhen, INT64_MAX / 4, err);
  }

  // SIGURG to the thread stopped at `pc` (its g's request already
  // written), asynchronous preemption on for just this signal, and its
  // next stop: *accepted when at asyncPreempt's entry, else it came back to
  // `pc` (refused). The thread stays stopped there.
  bool SignalForVerdict(int tid, uint64_t pc, const StopRead& at, bool* accepted, std::string* err) {
    // No SIGURG of the runtime's own into this probe: preemptM sends one
    // only when it turns m.signalPending from 0 to 1, and the handler of
    // ours sets it back to 0. (Under riscv64 QEMU sysmon's, racing the
    // schedtick written by QuietSysmon, made m.preemptGen rise by two.)
    if (!t_->WriteMemory(at.m + o_.m_signalPending, "\1\0\0\0", 4, err)) return false;
    if (!AsyncPreemptOff(0, err)) return false;
    if (!t_->Continue(tid, kSigurg, err)) {
      *err = "continuing with SIGURG: " + *err;
      return false;
    }
    for (;;) {
      Stop s = t_->Wait(opt_.stop_timeout_s);
      if (s.kind == Stop::kError) {
        *err = "waiting for the verdict at " + Hex(pc) + ": " + s.error;
        return false;
      }
      if (s.kind == Stop::kExited || s.kind == Stop::kKilled) {
        exited_ = s;
        *err = "the guest ended while the verdict at " + Hex(pc) + " was awaited: " + DescribeStop(s);
        return false;
      }
      if (s.kind == Stop::kSignal) {
        if (!t_->Continue(s.tid, s.signal, err)) return false;
        continue;
      }
      // A breakpoint.
      if (s.tid != tid) {
        // Another thread: let it pass (its PC stays to be probed later).
        if (!t_->Continue(s.tid, 0, err)) return false;
        continue;
      }
      if (s.pc != async_preempt_ && s.pc != pc) {
        *err = "after SIGURG at " + Hex(pc) + " the thread stopped at " + Hex(s.pc);
        return false;
      }
      *accepted = s.pc == async_preempt_;
      return AsyncPreemptOff(1, err);
    }
  }

  // The collector's kind of request at a stop while no collection marks:
  // not a probe (nothing is judged, the PC stays to be probed), but a
  // preemption of the scheduler's kind, so that the goroutine yields the P
  // and the forcegc helper, which sysmon queues while collections are
  // forced, starts a cycle whose mark phase later stops can meet before
  // its stack scan reaches this goroutine (on GOMAXPROCS=1 a root job or
  // so per turn of the fractional worker). Without it a loop with no
  // stack check (tightLoop, leafLoop) keeps the P for its whole run:
  // asynchronous preemption is off but for the probes, and the stop-the-
  // world a cycle starts with waits for a cooperative one.
  bool Nudge(int tid, uint64_t pc, const StopRead& at, std::string* err) {
    bool accepted = false;
    if (!PutByte(at.g + o_.g_preempt, 1, err) || !QuietSysmon(at, err) ||
        !SignalForVerdict(tid, pc, at, &accepted, err))
      return false;
    if (!accepted && !PutByte(at.g + o_.g_preempt, 0, err)) return false;
    return Leave(tid, 0, err);
  }
  // Longer, and a program that collects on its own is nudged into back-to-
  // back forced cycles and crawls (the gc program natively at 5 ms: 0.7
  // probes/s instead of 50).
  static constexpr double kStalledS = 0.02;
  // A native wait as long under emulation, where everything is ten times
  // slower (a stall, a spin).
  double Emulated(double native_s) const { return opt_.emulator.empty() ? native_s : 10 * native_s; }
  uint32_t seen_phase_ = 0;
  uint64_t seen_last_gc_ = 0;
  double seen_at_s_ = 0;  // when the collector's state last moved, as the stops saw it
  // Never twice in a row at one PC: an accepted nudge resumes the
  // goroutine at that PC's breakpoint, and a second there would keep it
  // from ever passing.
  uint64_t last_nudge_pc_ = 0;

  // The collector's kind: a thread whose stops, none asked, stay within a
  // few instructions for kSpinStops stops and kSpinS (ten times that
  // emulated) is taken to be spinning on them, and their breakpoints are
  // lifted for the rest of this guest run (each stays pending: the next
  // run sets it again). An LL/SC loop (arm64 without LSE, loong64,
  // riscv64) with a breakpoint between its load-linked and its
  // store-conditional fails its store at every stop, the trap clearing
  // the reservation, and would never end; Go 1.19's sync/atomic on arm64
  // spun so in package main. A loop that progresses passes the same few
  // instructions too, hence the time: nudges get it asked meanwhile.
  bool LiftIfSpinning(int tid, uint64_t pc, std::string* err) {
    Spin& sp = spin_[tid];
    const double now = internal::NowSeconds();
    if (sp.pcs.empty() || std::max(*sp.pcs.rbegin(), pc) - std::min(*sp.pcs.begin(), pc) > kSpinBytes)
      sp = Spin{{}, 0, now};
    sp.pcs.insert(pc);
    sp.stops++;
    if (sp.stops < kSpinStops || now - sp.since < Emulated(kSpinS)) return true;
    for (uint64_t at : sp.pcs) {
      if (lifted_.insert(at).second && !t_->ClearBreakpoint(at, err)) return false;
    }
    spin_.erase(tid);
    return true;
  }
  struct Spin {
    std::set<uint64_t> pcs;  // where it stopped, all within kSpinBytes
    int stops = 0;
    double since = 0;
  };
  static constexpr uint64_t kSpinBytes = 64;
  static constexpr int kSpinStops = 256;
  static constexpr double kSpinS = 1;
  std::map<int, Spin> spin_;

  // PCs whose breakpoints LiftIfSpinning took away in this guest run.
  std::set<uint64_t> lifted_;
  bool HasProbeBreakpoint(uint64_t pc) const { return is_pending_ && is_pending_(pc) && lifted_.count(pc) == 0; }

  // The accepted goroutine, continued from asyncPreempt's entry, until it
  // is back at its resume PC (its g in the g register): the registers
  // there. Other threads and goroutines pass every breakpoint meanwhile.
  bool FollowToResume(int tid, ProbeResult* r, std::string* err) {
    // A probe's breakpoint already there (not this probe's: it is cleared).
    const bool shared = r->resume != r->pc && HasProbeBreakpoint(r->resume);
    if (!shared && !t_->SetBreakpoint(r->resume, err)) return false;
    if (!t_->Continue(tid, 0, err)) return false;
    double deadline = internal::NowSeconds() + opt_.resume_timeout_s;
    int foreign = 0;
    for (;;) {
      double left = deadline - internal::NowSeconds();
      Stop s = t_->Wait(std::max(0.001, std::min(left, opt_.stop_timeout_s)));
      if (s.kind == Stop::kError) {
        // Nothing is stopped now: under QEMU's stub the breakpoint cannot
        // even be cleared. The guest is given up (and started again).
        *err = "following the goroutine to " + Hex(r->resume) + ": " + s.error;
        return false;
      }
      if (s.kind == Stop::kExited || s.kind == Stop::kKilled) {
        r->resumed = ProbeResult::kEnded;
        exited_ = s;
        return true;
      }
      const int sig = s.kind == Stop::kSignal ? s.signal : 0;
      if (s.kind == Stop::kBreakpoint && s.pc == r->resume) {
        std::vector<uint64_t> regs;
        if (!t_->ReadRegs(s.tid, &regs, err)) return false;
        if (regs.size() > static_cast<size_t>(port_.go.gdb_g) && regs[port_.go.gdb_g] == r->at.g) {
          r->resumed = ProbeResult::kBack;
          r->resume_regs = std::move(regs);
          if (!r->trap_vec.empty() && !t_->ReadVecRegs(s.tid, &r->resume_vec, err)) return false;
          if (opt_.request == GoRequest::kGC) {
            // Parked unscanned, back scanned: the collector met it there.
            uint8_t scanned = 0;
            if (!t_->ReadMemory(r->at.g + o_.g_gcscandone, &scanned, 1, err)) return false;
            r->gc_scanned = scanned != 0;
          }
          if (!shared && !t_->ClearBreakpoint(r->resume, err)) return false;
          return Leave(s.tid, 0, err);
        }
      }
      // Others run first (the preempted goroutine waits on the global run
      // queue) and stop at every probe breakpoint still set: past a bound
      // on their stops, or on the time, the goroutine is not followed
      // further (its verdict and frames stand; its save area is not
      // judged). The breakpoint is cleared while this stop holds a thread.
      if (++foreign >= opt_.resume_max_stops || internal::NowSeconds() >= deadline) {
        r->resumed = ProbeResult::kNotBack;
        if (!shared && !t_->ClearBreakpoint(r->resume, err)) return false;
        return Leave(s.tid, sig, err);
      }
      if (!t_->Continue(s.tid, sig, err)) return false;
    }
  }

  // Collections forced from now on (sysmon's forcegcperiod at 1 ns, and a
  // last collection time if none ran yet), or the period put back.
  bool ForceCollections(bool on, std::string* err) {
    if (o_.forcegcperiod_addr == 0 || o_.memstats_addr == 0 || o_.mstats_last_gc_nanotime < 0 || gcphase_addr_ == 0 ||
        o_.g_gcscandone < 0) {
      *err = "the binary does not say where runtime.forcegcperiod, memstats.last_gc_nanotime, gcphase and g.gcscandone are";
      return false;
    }
    if (on) {
      if (forced_) return true;  // once per guest run: it stays forced
      forced_ = true;
      if (forcegc_saved_ == 0 && !Word(o_.forcegcperiod_addr, &forcegc_saved_, err)) return false;
      uint64_t last = 0;
      uint64_t last_addr = o_.memstats_addr + static_cast<uint64_t>(o_.mstats_last_gc_nanotime);
      if (!Word(last_addr, &last, err)) return false;
      if (last == 0 && !PutI64(last_addr, 1, err)) return false;
      return PutI64(o_.forcegcperiod_addr, 1, err);
    }
    forced_ = false;
    return forcegc_saved_ == 0 || PutI64(o_.forcegcperiod_addr, static_cast<int64_t>(forcegc_saved_), err);
  }
  uint64_t forcegc_saved_ = 0;
  bool forced_ = false;
  uint64_t gcphase_addr_ = 0;  // runtime.gcphase: _GCmark while a collection marks
  static constexpr uint32_t kGCmark = 1;

  // The thread a probe ends with, continued (a sweep), or held stopped
  // with the signal it stopped with (a persistent guest: GoGuest sets its
  // next breakpoint first).
  bool Leave(int tid, int sig, std::string* err) {
    if (!hold_) return t_->Continue(tid, sig, err);
    held_tid_ = tid;
    held_sig_ = sig;
    return true;
  }
  bool hold_ = false;
  int held_tid_ = 0, held_sig_ = 0;

  // Which PCs still carry a probe's breakpoint (ProbeAll's pending set).
  std::function<bool(uint64_t)> is_pending_;

  bool has_exited() const { return exited_.kind == Stop::kExited || exited_.kind == Stop::kKilled; }
  const Stop& exited() const { return exited_; }

 private:
  const GoBinary& bin_;
  const PortInfo& port_;
  const ProbeOptions& opt_;
  const RuntimeOffsets& o_;
  std::unique_ptr<Tracer> t_;
  uint64_t async_preempt_ = 0, goexit_ = 0;
  Stop exited_{};
};

}  // namespace

std::vector<std::string> EmulatorFromEnv() {
  std::vector<std::string> words;
  const char* e = getenv("SAFEPOINT_EMULATOR");
  if (e == nullptr) return words;
  std::istringstream in(e);
  std::string w;
  while (in >> w) words.push_back(w);
  return words;
}

GuestRun RunPlain(const std::string& binary, const PortInfo& port, const ProbeOptions& opt) {
  (void)port;
  GuestRun run;
  std::string dir = TempDir(opt);
  std::string out = dir + "/stdout", err = dir + "/stderr";
  std::vector<std::string> argv = opt.emulator;
  argv.push_back(binary);
  for (const std::string& a : opt.args) argv.push_back(a);
  int pid = internal::Spawn(argv, GuestEnv(opt), out, err, nullptr, &run.error);
  if (pid < 0) return run;
  double deadline = internal::NowSeconds() + opt.stop_timeout_s * 4;
  int status = 0;
  for (;;) {
    pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    if (w < 0) {
      run.error = std::string("waitpid: ") + strerror(errno);
      return run;
    }
    if (internal::NowSeconds() > deadline) {
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      run.error = "the unpreempted run did not end within " + std::to_string(static_cast<int>(opt.stop_timeout_s * 4)) + " s";
      break;
    }
    usleep(2000);
  }
  run.out = ReadFile(out);
  run.err = ReadFile(err);
  unlink(out.c_str());
  unlink(err.c_str());
  rmdir(dir.c_str());
  if (run.error.empty()) {
    if (WIFEXITED(status)) {
      run.exited = true;
      run.status = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
      run.signal = WTERMSIG(status);
    }
  }
  return run;
}

struct GoGuest::Live {
  Live(const GoBinary& bin, const PortInfo& port, const ProbeOptions& opt) : s(bin, port, opt) {}
  Session s;
  GuestRun run;
};

GoGuest::GoGuest(std::string binary, const GoBinary& bin, const PortInfo& port, ProbeOptions opt)
    : binary_(std::move(binary)), bin_(bin), port_(port), opt_(std::move(opt)) {
  dir_ = TempDir(opt_);
  // Any probe may be the traceback stress's (SetKind): the runtime's
  // tracebacks in full all along (stderr only; not what is compared).
  opt_.env.push_back("GOTRACEBACK=system");
}

void GoGuest::SetKind(GoRequest request, bool force_collections, bool traceback) {
  opt_.request = request;
  opt_.force_collections = force_collections;
  opt_.traceback = traceback;
}

GoGuest::~GoGuest() {
  GuestRun ignored;
  End(&ignored);
  rmdir(dir_.c_str());
}

bool GoGuest::StartGuest(std::string* why) {
  const double t0 = internal::NowSeconds();
  live_ = std::make_unique<Live>(bin_, port_, opt_);
  live_->s.hold_ = true;
  runs_++;
  const bool started = live_->s.Start(binary_, dir_ + "/stdout", dir_ + "/stderr", why);
  start_s_ += internal::NowSeconds() - t0;
  if (!started) return false;
  // Stopped at the entry point: held there until the first breakpoint is set.
  live_->s.held_tid_ = live_->s.t().pid();
  live_->s.held_sig_ = 0;
  return true;
}

void GoGuest::Finish(GuestRun* ended, bool killed) {
  if (!live_) return;
  live_->s.t().Kill();
  GuestRun& run = live_->run;
  run.out = ReadFile(dir_ + "/stdout");
  run.err = ReadFile(dir_ + "/stderr");
  if (killed && run.error.empty()) run.error = "ended by the harness";
  if (live_->s.has_exited() && !killed) {
    const Stop& e = live_->s.exited();
    run.exited = e.kind == Stop::kExited;
    run.status = e.status;
    run.signal = e.signal;
  }
  *ended = std::move(run);
  ended_ = true;
  live_.reset();
  unlink((dir_ + "/stdout").c_str());
  unlink((dir_ + "/stderr").c_str());
}

void GoGuest::End(GuestRun* ended) { Finish(ended, true); }

GoGuest::Outcome GoGuest::ProbeSet(const std::vector<uint64_t>& pcs, double reach_timeout_s,
                                   std::vector<ProbeResult>* probes, GuestRun* ended, double until_s) {
  fresh_ = false;
  ended_ = false;
  std::string why;
  if (!live_) {
    fresh_ = true;
    if (!StartGuest(&why)) {
      live_->run.error = "starting the guest: " + why;
      Finish(ended, true);
      return kError;
    }
  }
  Session& s = live_->s;
  Tracer& t = s.t();
  auto give_up = [&](const std::string& e) {
    live_->run.error = e;
    Finish(ended, true);
    return kError;
  };
  std::set<uint64_t> pending(pcs.begin(), pcs.end());
  // A breakpoint at asyncPreempt's entry is always set; a PC there cannot be probed.
  if (pending.count(s.async_preempt())) return give_up("asyncPreempt's own entry cannot be probed");
  s.is_pending_ = [&pending](uint64_t pc) { return pending.count(pc) != 0; };
  s.lifted_.clear();  // this input's breakpoints, every one set
  for (uint64_t pc : pending)
    if (!t.SetBreakpoint(pc, &why)) return give_up(why);
  if (!t.Continue(s.held_tid_, s.held_sig_, &why)) return give_up(why);
  double deadline = internal::NowSeconds() + reach_timeout_s;
  for (;;) {
    double left = deadline - internal::NowSeconds();
    if (left <= 0) {
      // Running, nothing held: under QEMU's stub nothing can be asked of
      // it now, so the guest is given up (a fresh one reaches PCs near the
      // start again).
      Finish(ended, true);
      return kNotReached;
    }
    Stop st = t.Wait(std::min(left, opt_.stop_timeout_s));
    if (st.kind == Stop::kError) {
      if (internal::NowSeconds() >= deadline) {
        Finish(ended, true);
        return kNotReached;
      }
      return give_up(st.error);
    }
    if (st.kind == Stop::kExited || st.kind == Stop::kKilled) {
      GuestRun& run = live_->run;
      run.exited = st.kind == Stop::kExited;
      run.status = st.status;
      run.signal = st.signal;
      Finish(ended, false);
      return kEnded;
    }
    if (st.kind == Stop::kSignal || pending.count(st.pc) == 0) {
      if (!t.Continue(st.tid, st.kind == Stop::kSignal ? st.signal : 0, &why)) return give_up(why);
      continue;
    }
    const uint64_t pc = st.pc;
    ProbeResult r = s.Probe(st.tid, pc);
    if (r.outcome == ProbeResult::kNotAsked) {
      // The collector's kind while no collection marks: the thread is held
      // past the PC; wait for its next execution.
      if (!t.Continue(s.held_tid_, s.held_sig_, &why)) return give_up(why);
      continue;
    }
    r.run = runs_ - 1;
    pending.erase(pc);
    live_->run.probed.push_back(pc);
    if (r.traceback) live_->run.traceback_pc = pc;
    const bool lost = r.outcome == ProbeResult::kLost;
    probes->push_back(std::move(r));
    if (lost || s.has_exited()) {
      if (lost) live_->run.error = probes->back().error;
      Finish(ended, lost);
      return pending.empty() ? kProbed : kEnded;
    }
    if (pending.empty() || (until_s > 0 && internal::NowSeconds() >= until_s)) {
      for (uint64_t left : pending)
        if (!s.lifted_.count(left) && !t.ClearBreakpoint(left, &why)) return give_up(why);
      s.is_pending_ = nullptr;  // held at the last one, alive
      return pending.empty() ? kProbed : kOutOfTime;
    }
    if (!t.Continue(s.held_tid_, s.held_sig_, &why)) return give_up(why);
    deadline = internal::NowSeconds() + reach_timeout_s;
  }
}

ProbeReport ProbeAll(const std::string& binary, const GoBinary& bin, const PortInfo& port,
                     const std::vector<uint64_t>& pcs, const ProbeOptions& opt, const ProbeProgress& progress) {
  ProbeReport rep;
  std::set<uint64_t> pending(pcs.begin(), pcs.end());
  const size_t total = pending.size();
  // The traceback stress ends a run at each accepted probe.
  const int max_runs = opt.max_runs > 0 ? opt.max_runs : static_cast<int>(opt.traceback ? total + 8 : total / 8 + 8);
  std::string dir = TempDir(opt);
  int quiet_runs = 0;  // runs in a row that probed nothing
  std::set<uint64_t> retried;
  for (int n = 0; n < max_runs && !pending.empty(); n++) {
    GuestRun run;
    Session s(bin, port, opt);
    s.is_pending_ = [&pending](uint64_t pc) { return pending.count(pc) != 0; };
    std::string out = dir + "/stdout", err = dir + "/stderr";
    std::string why;
    bool started = s.Start(binary, out, err, &why);
    for (uint64_t pc : pending) {
      if (!started) break;
      if (!s.t().SetBreakpoint(pc, &why)) {
        started = false;
        break;
      }
    }
    if (started && !s.t().Continue(s.t().pid(), 0, &why)) started = false;
    if (!started) {
      run.error = "starting the guest: " + why;
      if (s.has_exited() || n == 0) {
        // A guest that cannot start twice in a row will not start.
      }
      s.t().Kill();
      rep.runs.push_back(run);
      if (++quiet_runs >= 2) {
        rep.fatal = run.error;
        break;
      }
      continue;
    }
    bool clean_end = false;
    for (;;) {
      if (s.has_exited()) {
        const Stop& e = s.exited();
        run.exited = e.kind == Stop::kExited;
        run.status = e.status;
        run.signal = e.signal;
        break;
      }
      Stop st = s.t().Wait(opt.stop_timeout_s);
      if (st.kind == Stop::kExited || st.kind == Stop::kKilled) {
        run.exited = st.kind == Stop::kExited;
        run.status = st.status;
        run.signal = st.signal;
        clean_end = true;
        break;
      }
      if (st.kind == Stop::kError) {
        run.error = st.error;
        break;
      }
      std::string e2;
      if (st.kind == Stop::kSignal) {
        if (!s.t().Continue(st.tid, st.signal, &e2)) {
          run.error = e2;
          break;
        }
        continue;
      }
      if (pending.count(st.pc) == 0) {
        if (!s.t().Continue(st.tid, 0, &e2)) {
          run.error = e2;
          break;
        }
        continue;
      }
      ProbeResult r = s.Probe(st.tid, st.pc);
      if (r.outcome == ProbeResult::kNotAsked) continue;  // the thread went on; the PC stays pending
      r.run = rep.runs.size();
      if (r.outcome == ProbeResult::kLost && retried.insert(st.pc).second) {
        // Lost once (a desync, a time-out): the PC stays to be probed in
        // the next run; lost twice, it is reported.
        run.error = r.error;
        break;
      }
      pending.erase(st.pc);
      run.probed.push_back(st.pc);
      if (r.traceback) run.traceback_pc = st.pc;
      bool lost = r.outcome == ProbeResult::kLost;
      if (lost) run.error = r.error;
      rep.probes.push_back(std::move(r));
      if (progress) progress(total - pending.size(), total);
      if (lost) break;
    }
    s.t().Kill();
    run.out = ReadFile(out);
    run.err = ReadFile(err);
    // A run that ended by itself executed the whole program: what it did
    // not reach, no run reaches (a run with a finding may have ended early:
    // its program's own end decides).
    if (clean_end && run.exited && run.status == 0) {
      rep.unreached.insert(rep.unreached.end(), pending.begin(), pending.end());
      pending.clear();
    }
    quiet_runs = run.probed.empty() ? quiet_runs + 1 : 0;
    rep.runs.push_back(std::move(run));
    if (quiet_runs >= 2) break;
  }
  for (uint64_t pc : pending) rep.unreached.push_back(pc);
  std::sort(rep.unreached.begin(), rep.unreached.end());
  unlink((dir + "/stdout").c_str());
  unlink((dir + "/stderr").c_str());
  rmdir(dir.c_str());
  return rep;
}

}  // namespace safepoint::realgo
