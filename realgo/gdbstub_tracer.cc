// The emulated tracer: QEMU user mode's gdbstub (`qemu-ARCH -g PORT prog`)
// over TCP, through a GDB remote-protocol client of our own (realgo/rsp.h).
//
// What QEMU's user-mode stub does, and what this client makes of it
// (gdbstub/user.c, gdbstub/gdbstub.c; /work/shared/notes/real-go.md):
// - It never stops the other threads. A thread that stops (breakpoint,
//   step, any signal) writes a stop reply only while a resume command is the
//   last one seen ("allow_stop_reply"), then reads commands from the one
//   socket until told to resume. So after a resume at most one stop reply
//   comes, and it may arrive in the middle of a command's answer: every
//   packet is parsed and stop replies are queued wherever they arrive.
// - It waits for our '+' after every packet it sends and sends again on
//   anything else: we ack each packet at once, before sending anything. A
//   stop reply resent (the same bytes for a thread already known stopped) is
//   dropped; any other packet that matches nothing is a desync.
// - Its 'g' reply holds only the target's core registers (on x86-64 they
//   run to xmm15 and mxcsr; on aarch64, loongarch64 and riscv64 they end
//   before the FP registers): the others are read one at a time with 'p',
//   by the numbers its target description (qXfer:features:read) gives.
//   It reads the ack of each answer with a one-byte read of its own before
//   the next packet, so an ack may go out in one write with that packet.
// - Breakpoints live in the translator, not in memory (invisible to reads);
//   a breakpoint hit leaves the PC at its address; a signal given with
//   C/vCont;C at a breakpoint is delivered before the instruction runs.
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <deque>
#include <map>
#include <set>

#include "realgo/rsp.h"
#include "realgo/tracer.h"

namespace safepoint::realgo {
namespace {

using internal::NowSeconds;

constexpr double kCommandTimeout = 20;  // seconds, for one command's answer under a loaded emulator

// Sizes in bytes of the registers of a 'g' reply, in order, as far as the
// tracer decodes them (QEMU's core XML of each target).
std::vector<int> GSizes(uint16_t m) {
  std::vector<int> s;
  switch (m) {
    case kEmX86_64:
      s.assign(17, 8);                    // rax..r15, rip
      for (int i = 0; i < 7; ++i) s.push_back(4);  // eflags, cs ss ds es fs gs
      s.push_back(8);                     // fs_base
      s.push_back(8);                     // gs_base
      break;
    case kEmAarch64:
      s.assign(33, 8);  // x0..x30, sp, pc
      s.push_back(4);   // cpsr
      break;
    case kEmLoongarch:
      s.assign(35, 8);  // r0..r31, orig_a0, pc, badv
      break;
    case kEmRiscv:
      s.assign(33, 8);  // x0..x31, pc
      break;
  }
  return s;
}

int RegSize(uint16_t m, int regno) {
  std::vector<int> s = GSizes(m);
  if (regno >= 0 && regno < static_cast<int>(s.size())) return s[regno];
  return 8;
}

std::string Hex(uint64_t v) {
  char b[24];
  snprintf(b, sizeof b, "%llx", static_cast<unsigned long long>(v));
  return b;
}

class GdbstubTracer : public Tracer {
 public:
  ~GdbstubTracer() override { Kill(); }

  bool Start(const LaunchSpec& spec, std::string* err) override {
    if (pid_ > 0) {
      *err = "already started";
      return false;
    }
    if (spec.emulator.empty() || spec.argv.empty()) {
      *err = "the gdbstub tracer needs an emulator and a program";
      return false;
    }
    machine_ = spec.elf_machine ? spec.elf_machine : ElfMachineOf(spec.argv[0]);
    if (!LayoutFor(machine_, &layout_)) {
      *err = "no register layout for ELF machine " + std::to_string(machine_);
      return false;
    }
    bp_kind_ = machine_ == kEmX86_64 ? 1 : 4;
    std::string last;
    for (int attempt = 0; attempt < 4; ++attempt) {
      if (Launch(spec, &last)) return true;
      Kill();
      pid_ = -1;
      dead_ = false;
      broken_.clear();
    }
    *err = "could not start the emulator's gdbstub: " + last;
    return false;
  }

  bool SetBreakpoint(uint64_t pc, std::string* err) override {
    if (!Usable(err)) return false;
    if (bps_.count(pc)) return true;
    std::string r;
    if (!Command("Z0," + Hex(pc) + "," + std::to_string(bp_kind_), &r, err)) return false;
    if (r != "OK") {
      *err = "Z0 answered '" + r + "'";
      return false;
    }
    bps_.insert(pc);
    return true;
  }

  bool ClearBreakpoint(uint64_t pc, std::string* err) override {
    if (!Usable(err)) return false;
    if (!bps_.count(pc)) return true;
    std::string r;
    if (!Command("z0," + Hex(pc) + "," + std::to_string(bp_kind_), &r, err)) return false;
    if (r != "OK") {
      *err = "z0 answered '" + r + "'";
      return false;
    }
    bps_.erase(pc);
    return true;
  }

  bool ReadRegs(int tid, std::vector<uint64_t>* regs, std::string* err) override {
    if (!HeldCheck(tid, err) || !SelectThread(tid, err)) return false;
    std::string r;
    if (!Command("g", &r, err)) return false;
    std::vector<int> sizes = GSizes(machine_);
    regs->clear();
    size_t off = 0;
    for (int sz : sizes) {
      if (off + 2 * sz > r.size()) break;
      uint64_t v = 0;
      if (!rsp::ParseLeHex(r.substr(off, 2 * sz), &v)) v = 0;  // "xx..": unavailable
      regs->push_back(v);
      off += 2 * sz;
    }
    if (static_cast<int>(regs->size()) <= layout_.pc) {
      *err = "'g' answer too short (" + std::to_string(r.size()) + " digits): '" + r.substr(0, 40) + "'";
      return false;
    }
    return true;
  }

  bool WriteReg(int tid, int regno, uint64_t value, std::string* err) override {
    if (!HeldCheck(tid, err) || !SelectThread(tid, err)) return false;
    std::string r;
    if (!Command("P" + Hex(regno) + "=" + rsp::LeHex(value, RegSize(machine_, regno)), &r, err)) return false;
    if (r != "OK") {
      *err = "P answered '" + r + "'";
      return false;
    }
    if (regno == layout_.pc) held_[tid].pc = value;
    return true;
  }

  bool ReadVecRegs(int tid, std::vector<VecReg>* out, std::string* err) override {
    if (!HeldCheck(tid, err) || !VecLayout(err) || !SelectThread(tid, err)) return false;
    if (vec_from_g_ < 0 && !DecideVecSource(err)) return false;
    out->clear();
    out->reserve(vec_.size());
    std::string g;
    if (vec_from_g_ == 1 && !Command("g", &g, err)) return false;
    // One 'p' after another, each answer's ack sent with the next 'p' (one
    // write and one wake-up of the stub fewer a register); the last acked
    // at once. QEMU's user-mode stub reads our ack with a one-byte read
    // after its answer, then the next packet: nothing else is in between.
    struct Deferred {
      GdbstubTracer* t;
      ~Deferred() {
        t->defer_ack_ = false;
        std::string e;
        if (!t->FlushAck(&e)) t->Break("acking an answer: " + e);
      }
    } deferred{this};
    for (const VecSlot& v : vec_) {
      defer_ack_ = vec_from_g_ != 1 && &v != &vec_.back();
      std::string hex;
      if (vec_from_g_ == 1) {
        if (static_cast<size_t>(2 * (v.g_off + v.wire)) > g.size()) {
          *err = "'g' answer too short for " + v.name + " (" + std::to_string(g.size()) + " digits)";
          return false;
        }
        hex = g.substr(2 * v.g_off, 2 * v.wire);
      } else if (!ReadOneVec(v, &hex, err)) {
        return false;
      }
      VecReg r{v.name, {}};
      if (!rsp::FromHex(hex, &r.bytes) || static_cast<int>(r.bytes.size()) != v.wire) {
        *err = v.name + " (register " + std::to_string(v.regno) + ") read as '" + hex.substr(0, 40) + "'";
        return false;
      }
      r.bytes.resize(v.bytes);  // little-endian: the low bytes
      out->push_back(std::move(r));
    }
    return true;
  }

  bool WriteVecReg(int tid, const std::string& name, const std::vector<uint8_t>& bytes,
                   std::string* err) override {
    if (!HeldCheck(tid, err) || !VecLayout(err)) return false;
    const VecSlot* slot = nullptr;
    for (const VecSlot& v : vec_)
      if (v.name == name) slot = &v;
    if (!slot) {
      *err = "no vector register '" + name + "' on ELF machine " + std::to_string(machine_);
      return false;
    }
    if (static_cast<int>(bytes.size()) != slot->bytes) {
      *err = name + " has " + std::to_string(slot->bytes) + " bytes, not " + std::to_string(bytes.size());
      return false;
    }
    std::vector<uint8_t> wire = bytes;
    wire.resize(slot->wire, 0);  // riscv64's fcsr: 8 bytes on the wire, the upper 4 zero
    if (!SelectThread(tid, err)) return false;
    std::string r;
    if (!Command("P" + Hex(slot->regno) + "=" + rsp::ToHex(wire.data(), wire.size()), &r, err)) return false;
    if (r != "OK") {
      *err = "P" + Hex(slot->regno) + " (" + name + ") answered '" + r + "'";
      return false;
    }
    return true;
  }

  bool ReadMemory(uint64_t addr, void* buf, size_t n, std::string* err) override {
    if (!Usable(err)) return false;
    uint8_t* p = static_cast<uint8_t*>(buf);
    while (n > 0) {
      size_t chunk = n < read_chunk_ ? n : read_chunk_;
      std::string r;
      if (!Command("m" + Hex(addr) + "," + Hex(chunk), &r, err)) return false;
      std::vector<uint8_t> bytes;
      if (r.empty() || r[0] == 'E' || !rsp::FromHex(r, &bytes) || bytes.size() != chunk) {
        *err = "reading " + std::to_string(chunk) + " bytes at 0x" + Hex(addr) + ": answer '" + r.substr(0, 40) + "'";
        return false;
      }
      memcpy(p, bytes.data(), chunk);
      p += chunk;
      addr += chunk;
      n -= chunk;
    }
    return true;
  }

  bool WriteMemory(uint64_t addr, const void* buf, size_t n, std::string* err) override {
    if (!Usable(err)) return false;
    const uint8_t* p = static_cast<const uint8_t*>(buf);
    while (n > 0) {
      size_t chunk = n < 1024 ? n : 1024;
      std::string r;
      if (!Command("M" + Hex(addr) + "," + Hex(chunk) + ":" + rsp::ToHex(p, chunk), &r, err)) return false;
      if (r != "OK") {
        *err = "writing at 0x" + Hex(addr) + ": answer '" + r + "'";
        return false;
      }
      p += chunk;
      addr += chunk;
      n -= chunk;
    }
    return true;
  }

  bool Continue(int tid, int signal, std::string* err) override {
    if (!HeldCheck(tid, err)) return false;
    int gsig = 0;
    if (signal != 0) {
      gsig = rsp::LinuxToGdbSignal(signal);
      if (gsig == 0) {
        *err = "signal " + std::to_string(signal) + " has no GDB number";
        return false;
      }
    }
    Stop here = held_[tid];
    if (signal == 0 && bps_.count(here.pc)) {
      // Step over the breakpoint: clear it, step this thread, set it again.
      bool interrupted = false;
      if (!StepOver(tid, here.pc, &interrupted, err)) return false;
      if (interrupted) return true;  // a signal (or the end) came first: its stop is queued for Wait
    }
    // Every other held thread first, with its own signal (QEMU resumes the
    // thread that reads the packet: with more than one held, which one
    // takes which packet is QEMU's choice).
    std::vector<std::pair<int, int>> order;
    for (auto& [t, s] : held_) {
      if (t != tid) order.push_back({t, s.kind == Stop::kSignal ? rsp::LinuxToGdbSignal(s.signal) : 0});
    }
    order.push_back({tid, gsig});
    for (auto& [t, g] : order) {
      char sig[8];
      snprintf(sig, sizeof sig, "%02x", g);
      std::string cmd = g ? "vCont;C" + std::string(sig) + ":" + Hex(t) : "vCont;c:" + Hex(t);
      if (!SendPacket(cmd, err)) return false;
      held_.erase(t);
      ++running_;
    }
    return true;
  }

  Stop Wait(double timeout_s) override {
    if (!broken_.empty()) return Error(broken_);
    double deadline = NowSeconds() + timeout_s;
    for (;;) {
      if (!pending_.empty()) {
        rsp::StopReply r = pending_.front();
        pending_.pop_front();
        return Convert(r);
      }
      if (dead_) return Error("the program has ended");
      if (running_ == 0) return Error("no thread is running (Continue first)");
      std::string err;
      if (!ReadPacketsUntil(deadline, [&] { return !pending_.empty(); }, &err)) {
        if (!broken_.empty()) return Error(broken_);
        return Error(err);
      }
    }
  }

  void Kill() override {
    if (fd_ >= 0) {
      close(fd_);
      fd_ = -1;
    }
    if (pid_ > 0 && !reaped_) {
      kill(-pid_, SIGKILL);
      kill(pid_, SIGKILL);
      double deadline = NowSeconds() + 10;
      while (NowSeconds() < deadline) {
        int st;
        pid_t r = waitpid(pid_, &st, WNOHANG);
        if (r == pid_ || (r < 0 && errno == ECHILD)) break;
        usleep(1000);
      }
      reaped_ = true;
    }
    dead_ = true;
    held_.clear();
    running_ = 0;
  }

  int pid() const override { return pid_; }

 private:
  size_t read_chunk_ = 1024;  // bytes per memory read (from the stub's PacketSize)

  // --- the vector registers: where the stub has them ---

  struct VecSlot {
    std::string name;  // as VecRegsFor spells it
    int bytes = 0;     // as ReadVecRegs returns it
    int regno = -1;    // the stub's register number
    int wire = 0;      // bytes the stub sends for it (its bitsize / 8)
    long g_off = -1;   // byte offset in the 'g' reply by the description, -1: none
  };

  // One document of the target description (qXfer:features:read), in
  // chunks the stub's packet takes.
  bool ReadFeature(const std::string& annex, std::string* xml, std::string* err) {
    xml->clear();
    for (int i = 0; i < 256; ++i) {
      std::string r;
      if (!Command("qXfer:features:read:" + annex + ":" + Hex(xml->size()) + "," + Hex(xfer_chunk_), &r, err))
        return false;
      if (r.empty() || (r[0] != 'm' && r[0] != 'l')) {
        *err = "qXfer:features:read:" + annex + " answered '" + r.substr(0, 40) + "'";
        return false;
      }
      xml->append(r, 1, std::string::npos);
      if (r[0] == 'l') return true;
      if (r.size() == 1) break;  // 'm' with nothing: it would never end
    }
    *err = "qXfer:features:read:" + annex + " did not end";
    return false;
  }

  // The register numbers of VecRegsFor(machine_) by name from the target
  // description, once per tracer. The walk stops at the last one found: the
  // documents after it (aarch64's system registers) are not read.
  bool VecLayout(std::string* err) {
    if (vec_ready_) return true;
    if (!vec_error_.empty()) {
      *err = vec_error_;
      return false;
    }
    vec_.clear();
    std::map<std::string, size_t> index;  // a name in the description -> its slot
    for (const VecRegInfo& w : VecRegsFor(machine_)) {
      index[w.name] = vec_.size();
      vec_.push_back(VecSlot{w.name, w.bytes});
    }
    if (vec_.empty()) {
      *err = "no vector registers known for ELF machine " + std::to_string(machine_);
      return false;
    }
    if (machine_ == kEmRiscv) {
      // GDB's riscv fpu feature names them by their ABI role.
      const char* abi[32] = {"ft0", "ft1", "ft2", "ft3", "ft4", "ft5", "ft6", "ft7", "fs0",  "fs1", "fa0",
                             "fa1", "fa2", "fa3", "fa4", "fa5", "fa6", "fa7", "fs2", "fs3",  "fs4", "fs5",
                             "fs6", "fs7", "fs8", "fs9", "fs10", "fs11", "ft8", "ft9", "ft10", "ft11"};
      for (int i = 0; i < 32; ++i) index[abi[i]] = index["f" + std::to_string(i)];
    }
    std::map<int, int> bits;  // regnum -> bitsize, of every register walked
    size_t found = 0;
    std::string xml;
    auto fetch = [&](const std::string& href, std::string* out, std::string* e) { return ReadFeature(href, out, e); };
    bool ok = ReadFeature("target.xml", &xml, err) &&
              rsp::WalkTargetDescription(
                  xml, fetch,
                  [&](const rsp::TdescReg& r) {
                    bits[r.regnum] = r.bitsize;
                    auto it = index.find(r.name);
                    if (it != index.end() && vec_[it->second].regno < 0) {
                      vec_[it->second].regno = r.regnum;
                      vec_[it->second].wire = r.bitsize / 8;
                      ++found;
                    }
                    return found < vec_.size();
                  },
                  err);
    if (!ok) {
      if (!broken_.empty()) return false;  // the connection's failure, not the description's
      vec_error_ = "the gdbstub's target description: " + *err;
      *err = vec_error_;
      return false;
    }
    std::string missing;
    for (const VecSlot& v : vec_) {
      if (v.regno < 0) missing += " " + v.name;
      else if (v.wire < v.bytes) missing += " " + v.name + "(" + std::to_string(v.wire) + " bytes)";
    }
    if (!missing.empty()) {
      vec_error_ = "the gdbstub's target description lacks" + missing;
      *err = vec_error_;
      return false;
    }
    // Where each would be in a 'g' reply: after every register numbered
    // below it, by their sizes (none when a number is missing).
    for (VecSlot& v : vec_) {
      long off = 0;
      for (int n = 0; n < v.regno && off >= 0; ++n) {
        auto b = bits.find(n);
        off = b == bits.end() || b->second % 8 ? -1 : off + b->second / 8;
      }
      v.g_off = off;
    }
    vec_ready_ = true;
    return true;
  }

  bool ReadOneVec(const VecSlot& v, std::string* hex, std::string* err) {
    if (!Command("p" + Hex(v.regno), hex, err)) return false;
    if (hex->size() != static_cast<size_t>(2 * v.wire)) {
      *err = "p" + Hex(v.regno) + " (" + v.name + ") answered '" + hex->substr(0, 40) + "'";
      return false;
    }
    return true;
  }

  // Whether the 'g' reply holds them all (QEMU's x86-64 stub: its core
  // registers run to mxcsr), checked against 'p' for the first and the
  // last; else one 'p' each. Decided once; the thread is selected.
  bool DecideVecSource(std::string* err) {
    std::string g;
    if (!Command("g", &g, err)) return false;
    bool in_g = true;
    for (const VecSlot& v : vec_)
      if (v.g_off < 0 || 2 * (v.g_off + v.wire) > static_cast<long>(g.size())) in_g = false;
    for (const VecSlot* v : {&vec_.front(), &vec_.back()}) {
      if (!in_g) break;
      std::string hex;
      if (!ReadOneVec(*v, &hex, err)) return false;
      if (g.compare(2 * v->g_off, 2 * v->wire, hex) != 0) in_g = false;
    }
    vec_from_g_ = in_g ? 1 : 0;
    return true;
  }
  Stop Error(const std::string& e) {
    Stop s;
    s.kind = Stop::kError;
    s.error = e;
    return s;
  }

  bool Usable(std::string* err) {
    if (!broken_.empty()) {
      *err = broken_;
      return false;
    }
    if (fd_ < 0 || dead_) {
      *err = "no live program";
      return false;
    }
    if (held_.empty()) {
      // QEMU's user-mode stub reads the socket only from a stopped thread.
      *err = "no thread is stopped (QEMU's stub answers only while one is)";
      return false;
    }
    return true;
  }

  bool HeldCheck(int tid, std::string* err) {
    if (!Usable(err)) return false;
    if (!held_.count(tid)) {
      *err = "thread " + std::to_string(tid) + " is not stopped";
      return false;
    }
    return true;
  }

  void Break(const std::string& why) {
    if (broken_.empty()) broken_ = why;
  }

  static int FreePort() {
    int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s < 0) return -1;
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = 0;
    socklen_t len = sizeof a;
    int port = -1;
    if (bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
        getsockname(s, reinterpret_cast<sockaddr*>(&a), &len) == 0) {
      port = ntohs(a.sin_port);
    }
    close(s);
    return port;
  }

  bool EmulatorGone() {
    int st;
    pid_t r = waitpid(pid_, &st, WNOHANG);
    if (r == pid_) {
      reaped_ = true;
      return true;
    }
    return r < 0 && errno == ECHILD;
  }

  bool Launch(const LaunchSpec& spec, std::string* err) {
    int port = FreePort();
    if (port <= 0) {
      *err = "no free TCP port";
      return false;
    }
    std::vector<std::string> argv = spec.emulator;
    argv.push_back("-g");
    argv.push_back(std::to_string(port));
    for (const auto& a : spec.argv) argv.push_back(a);
    reaped_ = false;
    pid_ = internal::Spawn(argv, spec.env, spec.stdout_path, spec.stderr_path, nullptr, err);
    if (pid_ < 0) return false;
    double deadline = NowSeconds() + 20;
    useconds_t nap = 1000;
    for (;;) {
      int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
      sockaddr_in a{};
      a.sin_family = AF_INET;
      a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      a.sin_port = htons(port);
      if (connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) {
        fd_ = s;
        break;
      }
      close(s);
      if (EmulatorGone()) {
        *err = "the emulator ended before accepting (port " + std::to_string(port) + " taken?)";
        return false;
      }
      if (NowSeconds() > deadline) {
        *err = "the emulator did not listen on port " + std::to_string(port) + " within 20 s";
        return false;
      }
      usleep(nap);
      if (nap < 20000) nap *= 2;
    }
    int one = 1;
    setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    std::string r;
    if (!Command("qSupported:swbreak+;vContSupported+", &r, err)) return false;
    if (r.find("PacketSize=") == std::string::npos && !r.empty()) {
      *err = "qSupported answered '" + r.substr(0, 60) + "'";
      return false;
    }
    {
      // The stub's largest packet: a memory read's answer is two hex
      // digits a byte, so reads go in chunks of half of it (a deep stack
      // image in a tenth of the round trips of 1 KiB reads).
      size_t at = r.find("PacketSize=");
      unsigned long size = at == std::string::npos ? 0 : strtoul(r.c_str() + at + 11, nullptr, 16);
      read_chunk_ = size >= 2 * 1024 + 32 ? (size - 32) / 2 : 1024;
      if (read_chunk_ > 64 * 1024) read_chunk_ = 64 * 1024;
      // A description chunk is sent escaped: at most twice its bytes.
      xfer_chunk_ = size >= 2 * 0x800 + 32 ? 0x800 : 0x200;
    }
    // The first stop: the program at its entry.
    if (!SendPacket("?", err)) return false;
    ++running_;  // '?' is answered by a stop reply
    if (!ReadPacketsUntil(NowSeconds() + kCommandTimeout, [&] { return !pending_.empty(); }, err)) return false;
    rsp::StopReply first = pending_.front();
    pending_.pop_front();
    if (first.kind != rsp::StopReply::kSignal) {
      *err = "first stop reply '" + first.payload + "'";
      return false;
    }
    if (first.tid != pid_) {
      // QEMU's main thread id is its own pid: anything else is another
      // emulator that holds the port.
      *err = "the gdbstub on port " + std::to_string(port) + " is not ours (thread " +
             std::to_string(first.tid) + ", pid " + std::to_string(pid_) + ")";
      return false;
    }
    Stop s = Convert(first);
    if (s.kind == Stop::kError) {
      *err = s.error;
      return false;
    }
    s.kind = Stop::kSignal;
    s.signal = 0;
    held_[s.tid] = s;
    return true;
  }

  // --- the wire ---

  bool WriteAll(const std::string& bytes, std::string* err) {
    size_t off = 0;
    while (off < bytes.size()) {
      ssize_t n = send(fd_, bytes.data() + off, bytes.size() - off, MSG_NOSIGNAL);
      if (n < 0) {
        if (errno == EINTR) continue;
        *err = std::string("send: ") + strerror(errno);
        Break("the connection to the gdbstub broke (" + *err + ")");
        return false;
      }
      off += n;
    }
    return true;
  }

  // Reads what is there (waiting until `deadline` for at least one byte).
  bool ReadSome(double deadline, std::string* err) {
    for (;;) {
      double left = deadline - NowSeconds();
      if (left <= 0) {
        *err = "timed out waiting for the gdbstub";
        return false;
      }
      pollfd p{fd_, POLLIN, 0};
      int ms = static_cast<int>(left * 1000) + 1;
      int r = poll(&p, 1, ms > 200 ? 200 : ms);
      if (r < 0) {
        if (errno == EINTR) continue;
        *err = std::string("poll: ") + strerror(errno);
        return false;
      }
      if (r == 0) {
        if (EmulatorGone()) {
          dead_ = true;
          *err = "the emulator died";
          Break("the guest died (the emulator ended without a stop reply)");
          return false;
        }
        continue;
      }
      char buf[4096];
      ssize_t n = recv(fd_, buf, sizeof buf, 0);
      if (n < 0) {
        if (errno == EINTR || errno == EAGAIN) continue;
        *err = std::string("recv: ") + strerror(errno);
        Break("the connection to the gdbstub broke (" + *err + ")");
        return false;
      }
      if (n == 0) {
        *err = "the gdbstub closed the connection";
        if (!exit_seen_) Break("the guest died (the gdbstub closed the connection)");
        dead_ = true;
        return false;
      }
      dec_.Feed(buf, static_cast<size_t>(n));
      return true;
    }
  }

  // The next item, acking a packet at once. False on time-out or a broken
  // connection.
  bool NextItem(double deadline, rsp::Item* item, std::string* err) {
    for (;;) {
      if (dec_.Next(item)) {
        if (item->kind == rsp::Item::kPacket) {
          if (defer_ack_ && !rsp::LooksLikeStopReply(item->payload)) {
            ack_owed_ = true;  // sent with the next packet (SendPacket) or by FlushAck
            return true;
          }
          if (!WriteAll("+", err)) return false;
        } else if (item->kind == rsp::Item::kBadPacket) {
          if (!WriteAll("-", err)) return false;
        }
        return true;
      }
      if (!ReadSome(deadline, err)) return false;
    }
  }

  // A stop reply, wherever it arrived. False when it cannot be parsed.
  bool OnStopReply(const std::string& payload) {
    rsp::StopReply r;
    std::string err;
    if (!rsp::ParseStopReply(payload, &r, &err)) {
      Break("desync: " + err);
      return false;
    }
    if (r.kind == rsp::StopReply::kSignal) {
      bool known = held_.count(static_cast<int>(r.tid)) > 0;
      for (const auto& q : pending_) {
        if (q.tid == r.tid && q.payload == r.payload) known = true;
      }
      if (known && r.payload == last_payload_[r.tid] && running_ == 0) {
        ++dropped_;
        return true;  // sent twice: QEMU resends when its ack came late
      }
      last_payload_[r.tid] = r.payload;
    } else {
      exit_seen_ = true;
    }
    if (running_ > 0) --running_;
    if (r.kind != rsp::StopReply::kSignal) running_ = 0;
    pending_.push_back(r);
    return true;
  }

  bool SendPacket(const std::string& payload, std::string* err) {
    const std::string frame = rsp::Frame(payload);
    double deadline = NowSeconds() + kCommandTimeout;
    for (int tries = 0; tries < 5; ++tries) {
      // An answer's ack owed goes first, in the same write: the stub reads
      // it (one byte) before it reads the packet.
      if (!WriteAll(ack_owed_ ? "+" + frame : frame, err)) return false;
      ack_owed_ = false;
      for (;;) {
        rsp::Item it;
        if (!NextItem(deadline, &it, err)) {
          *err = "no ack for '" + payload.substr(0, 30) + "': " + *err;
          return false;
        }
        if (it.kind == rsp::Item::kAck) return true;
        if (it.kind == rsp::Item::kNack) break;  // send again
        if (it.kind == rsp::Item::kPacket) {
          if (rsp::LooksLikeStopReply(it.payload)) {
            if (!OnStopReply(it.payload)) {
              *err = broken_;
              return false;
            }
            continue;
          }
          *err = "desync: packet '" + it.payload.substr(0, 40) + "' before the ack of '" + payload.substr(0, 30) + "'";
          Break(*err);
          return false;
        }
        // notifications, bad packets (nacked), interrupts: nothing to do
      }
    }
    *err = "'" + payload.substr(0, 30) + "' refused five times";
    Break(*err);
    return false;
  }

  // Acks an answer whose ack was deferred (defer_ack_), if any.
  bool FlushAck(std::string* err) {
    if (!ack_owed_) return true;
    ack_owed_ = false;
    return WriteAll("+", err);
  }

  // Sends a command and returns its answer; stop replies met on the way
  // are queued.
  bool Command(const std::string& payload, std::string* reply, std::string* err) {
    if (!broken_.empty()) {
      *err = broken_;
      return false;
    }
    if (!SendPacket(payload, err)) return false;
    double deadline = NowSeconds() + kCommandTimeout;
    for (;;) {
      rsp::Item it;
      if (!NextItem(deadline, &it, err)) {
        *err = "no answer to '" + payload.substr(0, 30) + "': " + *err;
        if (broken_.empty()) Break("desync: " + *err);
        return false;
      }
      if (it.kind != rsp::Item::kPacket) continue;
      if (rsp::LooksLikeStopReply(it.payload)) {
        if (!OnStopReply(it.payload)) {
          *err = broken_;
          return false;
        }
        continue;
      }
      *reply = it.payload;
      return true;
    }
  }

  template <typename Done>
  bool ReadPacketsUntil(double deadline, Done done, std::string* err) {
    while (!done()) {
      rsp::Item it;
      if (!NextItem(deadline, &it, err)) return false;
      if (it.kind != rsp::Item::kPacket) continue;
      if (!rsp::LooksLikeStopReply(it.payload)) {
        *err = "desync: unexpected packet '" + it.payload.substr(0, 40) + "' while waiting for a stop";
        Break(*err);
        return false;
      }
      if (!OnStopReply(it.payload)) {
        *err = broken_;
        return false;
      }
    }
    return true;
  }

  bool SelectThread(int tid, std::string* err) {
    if (g_thread_ == tid) return true;
    std::string r;
    if (!Command("Hg" + Hex(tid), &r, err)) return false;
    if (r != "OK") {
      *err = "Hg" + Hex(tid) + " answered '" + r + "'";
      return false;
    }
    g_thread_ = tid;
    return true;
  }

  bool ReadPc(int tid, uint64_t* pc, std::string* err) {
    if (!SelectThread(tid, err)) return false;
    std::string r;
    if (!Command("p" + Hex(layout_.pc), &r, err)) return false;
    if (!rsp::ParseLeHex(r, pc)) {
      *err = "p" + Hex(layout_.pc) + " answered '" + r.substr(0, 40) + "'";
      return false;
    }
    return true;
  }

  Stop Convert(const rsp::StopReply& r) {
    Stop s;
    s.tid = static_cast<int>(r.tid);
    if (r.kind == rsp::StopReply::kExited) {
      s.kind = Stop::kExited;
      s.status = r.exit_status;
      s.tid = pid_;
      dead_ = true;
      return s;
    }
    if (r.kind == rsp::StopReply::kTerminated) {
      s.kind = Stop::kKilled;
      s.signal = rsp::GdbToLinuxSignal(r.gdb_signal);
      s.tid = pid_;
      dead_ = true;
      return s;
    }
    if (r.tid < 0) {
      // An S reply, or T without thread: QEMU always names the thread.
      Break("desync: stop reply without a thread: '" + r.payload + "'");
      return Error(broken_);
    }
    std::string err;
    uint64_t pc = 0;
    if (!ReadPc(s.tid, &pc, &err)) {
      Break("reading the PC of thread " + std::to_string(s.tid) + ": " + err);
      return Error(broken_);
    }
    s.pc = pc;
    int lsig = rsp::GdbToLinuxSignal(r.gdb_signal);
    if (lsig == SIGTRAP && bps_.count(pc)) {
      s.kind = Stop::kBreakpoint;
    } else {
      s.kind = Stop::kSignal;
      s.signal = lsig;
    }
    held_[s.tid] = s;
    return s;
  }

  // Clears the breakpoint at pc, single-steps thread tid, sets it again.
  // *interrupted: the thread did not step (a signal came first, or the
  // program ended); its stop reply is queued for Wait.
  bool StepOver(int tid, uint64_t pc, bool* interrupted, std::string* err) {
    std::string r;
    if (!Command("z0," + Hex(pc) + "," + std::to_string(bp_kind_), &r, err)) return false;
    if (r != "OK") {
      *err = "z0 answered '" + r + "'";
      return false;
    }
    if (!SendPacket("vCont;s:" + Hex(tid), err)) return false;
    held_.erase(tid);
    ++running_;
    size_t before = pending_.size();
    if (!ReadPacketsUntil(NowSeconds() + kCommandTimeout, [&] { return pending_.size() > before; }, err)) {
      *err = "stepping thread " + std::to_string(tid) + " over 0x" + Hex(pc) + ": " + *err;
      Break(*err);
      return false;
    }
    rsp::StopReply got = pending_.back();
    if (got.kind != rsp::StopReply::kSignal) {
      *interrupted = true;  // the program ended during the step
      return true;
    }
    if (got.tid != tid) {
      // Another thread stopped first; QEMU now holds the stepping thread
      // silently (one stop reply a resume).
      *err = "desync: thread " + std::to_string(got.tid) + " stopped while thread " + std::to_string(tid) +
             " stepped over a breakpoint";
      Break(*err);
      return false;
    }
    if (rsp::GdbToLinuxSignal(got.gdb_signal) == SIGTRAP) {
      pending_.pop_back();
      held_[tid] = Stop{Stop::kSignal, tid, 0, 0, 0, ""};  // stepped; resumed by the caller next
    } else {
      *interrupted = true;  // a signal before the instruction: reported by Wait
    }
    if (!Command("Z0," + Hex(pc) + "," + std::to_string(bp_kind_), &r, err)) return false;
    if (r != "OK") {
      *err = "Z0 answered '" + r + "'";
      return false;
    }
    return true;
  }

  uint16_t machine_ = 0;
  RegLayout layout_{};
  int bp_kind_ = 4;
  int pid_ = -1;
  int fd_ = -1;
  bool reaped_ = false;
  bool dead_ = false;
  bool exit_seen_ = false;
  int running_ = 0;  // resumes sent whose stop reply has not come
  int g_thread_ = -1;
  long dropped_ = 0;
  std::string broken_;
  rsp::Decoder dec_;
  std::set<uint64_t> bps_;
  std::map<int, Stop> held_;
  std::map<long, std::string> last_payload_;
  std::deque<rsp::StopReply> pending_;
  size_t xfer_chunk_ = 0x800;  // bytes of a description per qXfer (below the stub's PacketSize)
  std::vector<VecSlot> vec_;
  bool vec_ready_ = false;
  std::string vec_error_;  // the description lacks them: said again on each call
  int vec_from_g_ = -1;    // -1 undecided, 0 'p' a register, 1 the 'g' reply
  bool defer_ack_ = false;  // answers (not stop replies) are acked with the next packet
  bool ack_owed_ = false;   // an answer's ack not yet sent
};

}  // namespace

std::unique_ptr<Tracer> NewGdbstubTracer() { return std::make_unique<GdbstubTracer>(); }

}  // namespace safepoint::realgo
