#include "harness/generator.h"

#include <algorithm>
#include <random>
#include <set>
#include <vector>

#include "core/ir.h"

namespace safepoint::harness {
namespace {

class Gen {
 public:
  explicit Gen(uint64_t seed) : rng_(seed) {}
  // Every choice read from `data` instead (a fuzzer's input): a byte, or
  // as many as the choice's range needs; zeros once the bytes run out, so
  // every input makes a program.
  Gen(const uint8_t* data, size_t n) : rng_(0), bytes_(data), left_(n), from_bytes_(true) {}

  std::string Program() {
    int helpers = Pick(0, 3);
    std::vector<Helper> hs;
    for (int h = 0; h < helpers; h++) hs.push_back(MakeHelper(h, hs));
    // main's frame up to where its prologue still passes on a 2 KB stack:
    // main calling a nosplit helper then reaches the stack rule's boundary
    // (asyncPreemptStack) without a non-leaf helper between them.
    main_frame_ = 8 * Pick(2, 140);
    defined_.clear();
    labels_ = 0;
    int frame_slots = 2;
    std::string body = Body(hs, 6 + Pick(0, 12), frame_slots, true, /*finale=*/false);
    // The shapes below read their choices after every choice above, so an
    // input whose bytes end before them (every fuzz seed written before
    // they existed) makes the program it made; a zero byte is "none".
    body += Shapes(hs);
    body += Finale(true);
    std::string out = "func main.main frame=" + std::to_string(main_frame_);
    if (!main_ptrs_.empty()) {
      out += " ptrs=";
      for (size_t k = 0; k < main_ptrs_.size(); k++) out += (k ? "/" : "") + std::to_string(main_ptrs_[k]);
    }
    out += "\n" + main_prefix_ + body + "  ret\nend\n";
    for (const Helper& h : hs) out += h.text;
    out += extra_funcs_;
    return out;
  }

 private:
  struct Helper {
    std::string name, text;
    bool nosplit;
  };

  uint8_t NextByte() {
    if (left_ == 0) return 0;
    left_--;
    return *bytes_++;
  }
  int Pick(int lo, int hi) {
    if (!from_bytes_) return std::uniform_int_distribution<int>(lo, hi)(rng_);
    uint64_t range = static_cast<uint64_t>(static_cast<int64_t>(hi) - lo) + 1, v = 0;
    for (uint64_t r = range - 1; r != 0; r >>= 8) v = v << 8 | NextByte();
    return static_cast<int>(lo + static_cast<int64_t>(v % range));
  }
  uint64_t Word() {
    if (!from_bytes_) return rng_();
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v = v << 8 | NextByte();
    return v;
  }
  int64_t Imm() {
    switch (Pick(0, 3)) {
      case 0: return Pick(-8, 8);
      case 1: return Pick(-2048, 2047);
      case 2: return Pick(-100000, 100000);
      default: return static_cast<int32_t>(Word());
    }
  }
  int Reg() { return Pick(0, ir::kPortableRegs - 1); }
  int DefinedReg() {
    if (defined_.empty()) return -1;
    auto it = defined_.begin();
    std::advance(it, Pick(0, static_cast<int>(defined_.size()) - 1));
    return *it;
  }
  std::string R(int r) { return "r" + std::to_string(r); }
  std::string G(int g) { return "g[" + std::to_string(g) + "]"; }

  // A helper: a leaf, a leaf with a large frame, a non-leaf (it calls an
  // earlier nosplit helper, or main.leafk), or a nosplit leaf. The frame
  // sizes go in 8-byte steps up to where a non-leaf's prologue still
  // passes on a 2 KB stack and a nosplit frame still fits the nosplit
  // limit, so that a non-leaf calling a nosplit helper can bring the stack
  // room down to, and across, what the injected call needs (the stack
  // rule's boundary).
  Helper MakeHelper(int h, const std::vector<Helper>& earlier) {
    Helper out;
    out.name = "main.h" + std::to_string(h);
    int kind = Pick(0, 3);  // 0 leaf, 1 leaf with a large frame, 2 non-leaf, 3 nosplit leaf
    int frame = kind == 1 ? 8 * Pick(16, 300) : kind == 2 ? 8 * Pick(1, 140) : kind == 3 ? 8 * Pick(0, 96) : 0;
    out.nosplit = kind == 3;
    out.text = "func " + out.name + (out.nosplit ? " nosplit" : "") + " frame=" + std::to_string(frame) + "\n";
    defined_ = {0};  // the argument
    int slots = frame / 8;
    std::vector<Helper> none;
    out.text += Body(none, 2 + Pick(0, 6), slots, false);
    if (kind == 2) {  // a call makes it non-leaf
      std::string callee = "main.leafk";
      for (const Helper& e : earlier)
        if (e.nosplit && Pick(0, 1)) callee = e.name;
      out.text += "  call " + callee + "\n";
    }
    out.text += "  ret\nend\n";
    return out;
  }

  // One straight-line stretch with an optional bounded loop; reads only
  // defined registers; calls only helpers (which clobber all but r0).
  std::string Body(const std::vector<Helper>& hs, int n, int slots, bool top, bool finale = true) {
    std::string b;
    std::set<int> stored_slots;
    for (int k = 0; k < n; k++) {
      int op = Pick(0, top ? 15 : 10);
      int d = Reg(), s = DefinedReg();
      switch (op) {
        case 0: b += "  movi " + R(d) + ", " + std::to_string(Imm()) + "\n", defined_.insert(d); break;
        case 1:
        case 2:
          if (s < 0) break;
          b += std::string(op == 1 ? "  addi " : "  muli ") + R(s) + ", " + std::to_string(Imm() % 100000) + "\n";
          break;
        case 3:
          if (s < 0) break;
          b += "  mov " + R(d) + ", " + R(s) + "\n", defined_.insert(d);
          break;
        case 4: {
          int t = DefinedReg();
          if (s < 0 || t < 0) break;
          b += "  add " + R(t) + ", " + R(s) + "\n";
          break;
        }
        case 5:
          if (s < 0) break;
          b += "  st " + G(Pick(0, 19)) + ", " + R(s) + "\n";
          break;
        case 6: b += "  ld " + R(d) + ", " + G(Pick(0, 19)) + "\n", defined_.insert(d); break;
        case 7:
          if (s < 0 || slots == 0) break;
          {
            int slot = Pick(0, slots - 1);
            b += "  stslot " + std::to_string(8 * slot) + ", " + R(s) + "\n";
            stored_slots.insert(slot);
          }
          break;
        case 8:
          if (stored_slots.empty()) break;
          {
            auto it = stored_slots.begin();
            std::advance(it, Pick(0, static_cast<int>(stored_slots.size()) - 1));
            b += "  ldslot " + R(d) + ", " + std::to_string(8 * *it) + "\n", defined_.insert(d);
          }
          break;
        case 9:
          if (s < 0) break;
          b += "  atomic_add " + G(Pick(20, 29)) + ", " + R(s) + "\n";
          break;
        case 10: {
          // A bounded loop: a counter no other operation of the loop writes.
          int c = Reg();
          int acc = Reg();
          if (acc == c) acc = (c + 1) % ir::kPortableRegs;
          std::string l = "l" + std::to_string(labels_++);
          b += "  movi " + R(c) + ", " + std::to_string(Pick(1, 50)) + "\n  movi " + R(acc) + ", 1\n" + l +
               ":\n  addi " + R(acc) + ", " + std::to_string(Pick(1, 9)) + "\n  muli " + R(acc) + ", 3\n  addi " +
               R(c) + ", -1\n  jnz " + R(c) + ", " + l + "\n";
          defined_.insert(c), defined_.insert(acc);
          break;
        }
        case 11:
          if (hs.empty()) break;
          {
            const Helper& h = hs[Pick(0, static_cast<int>(hs.size()) - 1)];
            if (!defined_.count(0)) b += "  movi r0, " + std::to_string(Imm()) + "\n";
            b += "  call " + h.name + "\n";
            defined_ = {0};
            b += "  st " + G(Pick(30, 39)) + ", r0\n";
          }
          break;
        case 12: {
          const char* region[][2] = {{"acquirem", "releasem"}, {"mallocing_begin", "mallocing_end"},
                                     {"preemptoff_begin", "preemptoff_end"}, {"secret_begin", "secret_end"},
                                     {"entersyscall", "exitsyscall"}};
          int r = Pick(0, 4);
          b += std::string("  ") + region[r][0] + "\n  movi r1, " + std::to_string(Imm()) + "\n  atomic_add " +
               G(Pick(20, 29)) + ", r1\n  " + region[r][1] + "\n";
          defined_ = {};
          break;
        }
        case 13: {
          // An inlined body, or two nested, of the runtime package or not:
          // the runtime-package rule asks the innermost one.
          int shape = Pick(0, 2);  // 0 runtime; 1 main around runtime; 2 runtime around main
          std::string n = std::to_string(labels_++);
          std::string body = "  movi " + R(d) + ", " + std::to_string(Imm()) + "\n";
          if (shape == 0) {
            b += "  inline runtime.gen" + n + "\n" + body + "  endinline\n";
          } else {
            std::string outer = shape == 1 ? "main.gen" : "runtime.gen", inner = shape == 1 ? "runtime.gen" : "main.gen";
            b += "  inline " + outer + n + "o\n" + body + "  inline " + inner + n + "i\n  addi " + R(d) + ", " +
                 std::to_string(Pick(1, 9)) + "\n  endinline\n  endinline\n";
          }
          defined_.insert(d);
          break;
        }
        case 14: {
          // A heap object's round trip: stored, copied through the vector
          // registers onto itself, read back; only its pointer (in r0,
          // until dropped) reaches it meanwhile.
          int v = Pick(1, ir::kPortableRegs - 1);
          b += "  alloc " + std::to_string(8 * Pick(2, 8)) + "\n  movi " + R(v) + ", " + std::to_string(Imm()) +
               "\n  stm r0, 8, " + R(v) + "\n  vload r0, 0\n  vstore r0, 0\n  ldm " + R(v) + ", r0, 8\n  drop r0\n";
          defined_ = {0, v};
          break;
        }
        case 15: {
          // Goroutines: a loop starts N that leave nothing observable (so
          // the end state does not depend on how many ran before main
          // returned), then main yields to the global run queue, behind
          // them on the local one: beyond 61 of them, the scheduler's
          // fairness is what brings main back. The counter lives in a
          // frame slot (services clobber registers).
          if (slots == 0) break;
          std::string l = "l" + std::to_string(labels_++);
          b += "  movi r1, " + std::to_string(Pick(1, 120)) + "\n  stslot 0, r1\n" + l + ":\n  go main.spawned\n" +
               "  ldslot r1, 0\n  addi r1, -1\n  stslot 0, r1\n  jnz r1, " + l + "\n";
          bool yields = Pick(0, 3) != 0;
          if (yields) b += "  gosched\n";  // a service: it clobbers all but r0, r1 included
          stored_slots.insert(0);
          defined_ = yields ? std::set<int>{} : std::set<int>{1};
          spawns_ = true;
          break;
        }
      }
    }
    if (finale) b += Finale(top);
    return b;
  }

  std::string Finale(bool top) {
    std::string b;
    if (top) {
      // Everything observable: every register defined, then dumped.
      for (int r = 0; r < ir::kPortableRegs; r++)
        if (!defined_.count(r)) b += "  movi " + R(r) + ", " + std::to_string(r + 1) + "\n";
      b += "  dumpregs 40\n";
    } else if (!defined_.count(0)) {
      b += "  movi r0, 7\n";
    }
    return b;
  }

  // A helper whose text the shapes below write, with main's registers kept
  // as they were (a helper's body starts from its argument alone).
  std::string HelperBody(int n, int slots) {
    std::set<int> saved = defined_;
    defined_ = {0};
    std::vector<Helper> none;
    std::string b = Body(none, n, slots, false);
    defined_ = saved;
    return b;
  }

  // main calls F with r0 = a value and keeps the result in g[G].
  std::string CallInto(const std::string& f, int g) {
    std::string b = "  movi r0, " + std::to_string(Imm()) + "\n  call " + f + "\n  st " + G(g) + ", r0\n";
    defined_ = {0};
    return b;
  }

  // The shapes the body above never writes, appended to main (the helpers
  // they call after the others): one choice says which, a bit each.
  std::string Shapes(const std::vector<Helper>& hs) {
    int mask = Pick(0, 127);
    std::string b;
    std::string k = std::to_string(shapes_++);
    if (mask & 1) {
      // An early return: main.eK returns at once for one value of its
      // argument; the code after that ret (a call included) runs for the
      // others, reached by the branch. main calls it both ways.
      bool on_zero = Pick(0, 1);
      extra_funcs_ += "func main.e" + k + " frame=16\n  " + (on_zero ? "jnz" : "jz") + " r0, late\n  addi r0, " +
                      std::to_string(Pick(1, 99)) + "\n  ret\nlate:\n  stslot 8, r0\n  call main.leafk\n" +
                      "  ldslot r1, 8\n  add r0, r1\n  ret\nend\n";
      b += "  movi r0, 0\n  call main.e" + k + "\n  st g[52], r0\n  movi r0, " + std::to_string(Pick(1, 1000)) +
           "\n  call main.e" + k + "\n  st g[53], r0\n";
      // A branch around a call, taken or not by the value.
      std::string l = "s" + std::to_string(labels_++);
      std::string callee = hs.empty() || Pick(0, 1) ? "main.leafk" : hs[Pick(0, static_cast<int>(hs.size()) - 1)].name;
      b += "  movi r0, " + std::to_string(Pick(0, 1) ? 0 : Pick(1, 50)) + "\n  " + (Pick(0, 1) ? "jz" : "jnz") +
           " r0, " + l + "\n  call " + callee + "\n" + l + ":\n  st g[54], r0\n";
      defined_ = {0};
    }
    if (mask & 2) {
      // A pointer into main's own stack (slot D's address), in a declared
      // pointer slot P and in r0, the argument of main.growK, whose frame
      // makes the stack grow at its prologue (morestack: r0 is spilled to
      // g.argspill, which copystack adjusts). growK reads and writes D
      // through it and returns it; main reads through the register, then
      // (after a collection, which shrinks the stack again) through the
      // slot. main's frame stays small so that the shrink happens.
      main_frame_ = 8 * Pick(5, 20);
      int d = Pick(0, 1) ? 16 : 24, p = 40 - d;
      main_ptrs_.push_back(p);
      int frame = 8 * Pick(160, 510);
      extra_funcs_ += "func main.grow" + k + " frame=" + std::to_string(frame) + "\n  ldm r1, r0, 0\n  addi r1, " +
                      std::to_string(Pick(1, 99)) + "\n  stm r0, 0, r1\n  stslot " + std::to_string(frame - 8) +
                      ", r1\n  ret\nend\n";
      b += "  movi r1, " + std::to_string(Imm()) + "\n  stslot " + std::to_string(d) + ", r1\n  addrslot r2, " +
           std::to_string(d) + "\n  stslot " + std::to_string(p) + ", r2\n  addrslot r0, " + std::to_string(d) +
           "\n  call main.grow" + k + "\n  ldm r3, r0, 0\n  st g[55], r3\n  drop r0\n";
      if (Pick(0, 3) != 0) b += "  gc\n";
      b += "  ldslot r4, " + std::to_string(p) + "\n  ldm r5, r4, 0\n  st g[56], r5\n  movi r6, " +
           std::to_string(Imm()) + "\n  stm r4, 0, r6\n  ldslot r7, " + std::to_string(d) + "\n  st g[57], r7\n" +
           "  drop r4\n";
      defined_ = {4, 5, 6, 7};
    }
    if (mask & 4) {
      // Frames at and just past each port's encoding limits: four helpers,
      // every other limit from a chosen one (so each limit in 4 of 9 of
      // these programs), leaf or not, called from main; the last size of
      // the shorter form and the first of the longer one the likeliest.
      static constexpr int kOffsets[] = {-16, -8, 0, 0, 0, 8, 8, 8, 16};
      constexpr int kLimits = sizeof kGeneratorFrameLimits / sizeof kGeneratorFrameLimits[0];
      int first = Pick(0, kLimits - 1);
      for (int n = 0; n < 4; n++) {
        int limit = kGeneratorFrameLimits[(first + 2 * n) % kLimits];
        int locals = std::clamp(limit + kOffsets[Pick(0, 8)], 0, ir::kMaxFrame);
        bool leaf = Pick(0, 1);
        std::string name = "main.f" + k + "_" + std::to_string(n);
        extra_funcs_ += "func " + name + " frame=" + std::to_string(locals) + "\n" +
                        HelperBody(1 + Pick(0, 3), locals / 8) + (leaf ? "" : "  call main.leafk\n") + "  ret\nend\n";
        b += CallInto(name, 58);
      }
    }
    if (mask & 8) {
      // Inlined bodies nested three deep, each of the runtime package or not.
      int d = Reg();
      std::string n = std::to_string(labels_++);
      auto pkg = [&] { return Pick(0, 1) ? "runtime.gen" : "main.gen"; };
      std::string a = pkg(), c = pkg(), e = pkg();
      b += "  inline " + a + n + "a\n  movi " + R(d) + ", " + std::to_string(Imm()) + "\n  inline " + c + n +
           "b\n  addi " + R(d) + ", " + std::to_string(Pick(1, 9)) + "\n  inline " + e + n + "c\n  muli " + R(d) +
           ", 3\n  endinline\n  endinline\n  endinline\n";
      defined_.insert(d);
    }
    if (mask & 16) {
      // The function attributes, two of four: an assembly leaf and a
      // foreign leaf (small frames: no stack check, so never a frame a walk
      // must pass), a function that restarts at its entry, and a
      // runtime-package one.
      int first = Pick(0, 3), second = (first + 1 + Pick(0, 2)) % 4;
      for (int which : {first, second}) {
        int frame = 8 * Pick(0, 15);
        std::string f;
        if (which == 0 || which == 1) {
          f = (which == 0 ? "main.asm" : "main.ngo") + k;
          extra_funcs_ += "func " + f + (which == 0 ? " asm" : " nongo") + " frame=" + std::to_string(frame) + "\n" +
                          HelperBody(1 + Pick(0, 3), frame / 8) + "  ret\nend\n";
        } else if (which == 2) {
          f = "main.rae" + k;
          extra_funcs_ += "func " + f + " restartatentry\n  movi r1, " + std::to_string(Imm()) + "\n  addi r1, " +
                          std::to_string(Pick(1, 99)) + "\n  st g[59], r1\n  mov r0, r1\n  ret\nend\n";
        } else {
          f = "runtime.gen" + k;
          extra_funcs_ += "func " + f + " frame=" + std::to_string(frame) + "\n" + HelperBody(1 + Pick(0, 3), frame / 8) +
                          (Pick(0, 1) ? "  call main.leafk\n" : "") + "  ret\nend\n";
        }
        b += CallInto(f, 60);
      }
    }
    if (mask & 32) {
      // A heap object only a declared pointer slot of main's reaches,
      // across a call that grows the stack and a collection; and a callee
      // that stores into its outgoing-argument area (args=) before a call.
      if (main_frame_ < 48) main_frame_ = 48;
      main_ptrs_.push_back(40);
      int frame = 8 * Pick(160, 510);
      extra_funcs_ += "func main.big" + k + " frame=" + std::to_string(frame) + "\n  stslot 0, r0\n  ldslot r1, 0\n" +
                      "  addi r1, 1\n  stslot " + std::to_string(frame - 8) + ", r1\n  mov r0, r1\n  ret\nend\n";
      extra_funcs_ += "func main.args" + k + " frame=32 args=16\n  stslot 16, r0\n  starg 0, r0\n  starg 8, r0\n" +
                      "  call main.leafk\n  ldslot r1, 16\n  add r0, r1\n  ret\nend\n";
      b += "  alloc " + std::to_string(8 * Pick(2, 8)) + "\n  movi r1, " + std::to_string(Imm()) +
           "\n  stm r0, 8, r1\n  stslot 40, r0\n  drop r0\n";
      b += CallInto("main.big" + k, 61);
      b += "  gc\n  ldslot r2, 40\n  ldm r3, r2, 8\n  st g[62], r3\n  drop r2\n";
      b += CallInto("main.args" + k, 61);
    }
    if (mask & 64) {
      // The rest of the portable operations: a write barrier, REGTMP, an
      // unconditional jump over code, a short sleep, a handshake the
      // goroutine then waits for, the vector and flag registers set (and
      // the vectors dumped), and every register filled and summed (their
      // values are the port's: nothing reads them after).
      std::string l = "s" + std::to_string(labels_++);
      int hk = Pick(0, 7);
      b += "  movi r1, " + std::to_string(Imm()) + "\n  wb_store g[63], r1\n  usetmp r1\n  st g[52], r1\n  jmp " + l +
           "\n  movi r1, 5\n  st g[52], r1\n" + l + ":\n  sleep " + std::to_string(Pick(0, 20000)) +
           "\n  handshake " + std::to_string(hk) + "\n  wait " + std::to_string(hk) + "\n  vfill " +
           std::to_string(Pick(0, 254)) + "\n  vdump " + std::to_string(Pick(0, ir::kVDumpAreas - 1)) +
           "\n  setflags " + std::to_string(Imm()) + "\n  fillregs " + std::to_string(Pick(0, 1000)) +
           "\n  sumregs " + R(Reg()) + "\n";
      defined_ = {};
    }
    if (!main_ptrs_.empty()) {
      // Declared pointer slots hold a pointer or nil from main's entry on.
      main_prefix_ = "  movi r11, 0\n";
      for (int p : main_ptrs_) main_prefix_ += "  stslot " + std::to_string(p) + ", r11\n";
    }
    return b;
  }

  std::mt19937_64 rng_;
  const uint8_t* bytes_ = nullptr;
  size_t left_ = 0;
  bool from_bytes_ = false;
  std::set<int> defined_;
  int labels_ = 0;
  bool spawns_ = false;
  int shapes_ = 0;
  int main_frame_ = 0;
  std::vector<int> main_ptrs_;
  std::string main_prefix_, extra_funcs_;

 public:
  bool spawns() const { return spawns_; }
};

}  // namespace

namespace {
std::string Finish(Gen& g) {
  std::string p = g.Program();
  // The helpers' non-leaf callee, and the goroutines' function.
  p += "func main.leafk\n  addi r0, 1\n  ret\nend\n";
  if (g.spawns()) p += "func main.spawned\n  movi r1, 3\n  muli r1, 5\n  ret\nend\n";
  return p;
}
}  // namespace

std::string GenerateProgram(uint64_t seed) {
  Gen g(seed);
  return Finish(g);
}

std::string GenerateProgramFromBytes(const uint8_t* data, size_t n) {
  Gen g(data, n);
  return Finish(g);
}

}  // namespace safepoint::harness
