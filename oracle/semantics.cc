#include "oracle/semantics.h"

#include <map>

namespace safepoint::oracle {
namespace {

struct Interp {
  const ir::Program& prog;
  std::vector<uint64_t> g = std::vector<uint64_t>(ir::kGlobals, 0);
  uint64_t r[ir::kPortableRegs] = {};
  bool defined[ir::kPortableRegs];
  uint64_t steps = 0, max_steps;
  std::string err;
  // The heap: objects at abstract addresses (a port's are its own), and
  // vector register 0's 16 bytes as vload/vstore use them.
  static constexpr uint64_t kHeapBase = 0x4000'0000'0000ull, kObjStride = 0x10000;
  std::map<uint64_t, std::vector<uint64_t>> heap;  // payload address -> words
  uint64_t v0[2] = {};
  bool v0_set = false;
  // The frames of the calls under way, at abstract addresses too (addrslot:
  // a port's are its own stack's): slot OFF of a frame at base B is B+OFF.
  static constexpr uint64_t kStackBase = 0x7000'0000'0000ull;
  struct Frame {
    std::vector<uint64_t>* slots;
    std::vector<bool>* set;
    size_t n;  // slots of the function's frame
  };
  std::map<uint64_t, Frame> frames;  // base -> frame
  uint64_t calls = 0;
  // Handshakes made (handshake N): a wait for one is no wait.
  std::map<int64_t, bool> handshakes;
  // Registers holding what an operation left that is the port's own
  // (fillregs, sumregs): reading one is outside the subset.
  bool port_value[ir::kPortableRegs] = {};
  // The dump areas, when asked for (InterpretEndState): the layout vfill
  // and vdump reach, and the seed of the vfill the vector registers hold
  // (none after a call, a service or a vload).
  const VectorLayout* layout = nullptr;
  std::vector<uint8_t> vdump;
  bool vfilled = false;
  int64_t vseed = 0;
  // Where the code ran, when asked for (InterpretEndState).
  MayRun* may_run = nullptr;
  size_t IndexOf(const ir::Function& f) const { return static_cast<size_t>(&f - prog.funcs.data()); }
  void Entered(const ir::Function& f) {
    if (may_run) may_run->entered[IndexOf(f)] = true;
  }

  // The word at address `at` of an object or a live frame, or nullptr;
  // for a frame's slot, *set is its stored flag's vector and *idx its index.
  uint64_t* Word(uint64_t at, std::vector<bool>** set = nullptr, size_t* idx = nullptr) {
    if (set) *set = nullptr;
    auto f = frames.upper_bound(at);
    if (f != frames.begin()) {
      --f;
      uint64_t d = at - f->first;
      if (at >= f->first && d % 8 == 0 && d / 8 < f->second.n) {
        if (set) *set = f->second.set, *idx = d / 8;
        return &(*f->second.slots)[d / 8];
      }
    }
    auto it = heap.upper_bound(at);
    if (it == heap.begin()) return nullptr;
    --it;
    if (at < it->first || (at - it->first) % 8 != 0 || (at - it->first) / 8 >= it->second.size()) return nullptr;
    return &it->second[(at - it->first) / 8];
  }
  // A word a load or store reaches: an object's, or a live frame's slot (a
  // load of a slot never stored is refused; a store marks it stored).
  bool Mem(const ir::Insn& i, int base, int64_t off, uint64_t** w, bool store = false) {
    uint64_t b;
    if (!Read(i, base, &b)) return false;
    std::vector<bool>* set = nullptr;
    size_t idx = 0;
    *w = Word(b + static_cast<uint64_t>(off), &set, &idx);
    if (*w == nullptr) return Fail(i, "a memory access outside every allocated object and live frame");
    if (set && store) (*set)[idx] = true;
    if (set && !store && !(*set)[idx]) return Fail(i, "reads a frame slot through its address before storing it");
    return true;
  }

  Interp(const ir::Program& p, uint64_t max) : prog(p), max_steps(max) {
    for (bool& d : defined) d = false;  // main starts with nothing known in any register
  }

  bool Fail(const ir::Insn& i, const std::string& m) {
    err = std::to_string(i.line) + ": " + m;
    return false;
  }
  bool Read(const ir::Insn& i, int reg, uint64_t* v) {
    if (!defined[reg] && port_value[reg])
      return Fail(i, "reads r" + std::to_string(reg) + ", which holds the port's own value (fillregs, sumregs)");
    if (!defined[reg]) return Fail(i, "reads r" + std::to_string(reg) + ", which a call clobbered");
    *v = r[reg];
    return true;
  }

  bool Call(const ir::Function& f, int depth) {
    if (depth > 1000) {
      err = std::to_string(f.line) + ": calls nest deeper than 1000";
      return false;
    }
    // A function knows only its argument, r0 (and its prologue may grow
    // the stack in the runtime's code, which may use the vector registers).
    vfilled = false;
    for (int k = 1; k < ir::kPortableRegs; k++) defined[k] = false, port_value[k] = false;
    std::vector<uint64_t> slots(f.frame / 8 + 1, 0);
    std::vector<bool> slot_set(f.frame / 8 + 1, false);
    const uint64_t frame_base = kStackBase + kObjStride * calls++;
    frames[frame_base] = Frame{&slots, &slot_set, static_cast<size_t>(f.frame / 8)};
    struct Pop {
      std::map<uint64_t, Frame>& frames;
      uint64_t base;
      ~Pop() { frames.erase(base); }
    } pop{frames, frame_base};
    std::map<std::string, size_t> labels;
    for (size_t k = 0; k < f.body.size(); k++)
      if (f.body[k].op == ir::Op::kLabel) labels[f.body[k].target] = k;
    Entered(f);
    std::vector<bool>* ran = may_run ? &may_run->ops[IndexOf(f)] : nullptr;
    for (size_t pc = 0; pc < f.body.size(); pc++) {
      const ir::Insn& i = f.body[pc];
      if (ran) {
        (*ran)[pc] = true;
        if (i.op == ir::Op::kService) may_run->services[static_cast<size_t>(i.service)] = true;
      }
      if (++steps > max_steps) return Fail(i, "runs more than " + std::to_string(max_steps) + " operations");
      uint64_t a = 0, b = 0;
      using ir::Op;
      switch (i.op) {
        case Op::kMovi: r[i.rd] = static_cast<uint64_t>(i.imm), defined[i.rd] = true; break;
        case Op::kAddi:
          if (!Read(i, i.rd, &a)) return false;
          r[i.rd] = a + static_cast<uint64_t>(i.imm);
          break;
        case Op::kMuli:
          if (!Read(i, i.rd, &a)) return false;
          r[i.rd] = a * static_cast<uint64_t>(i.imm);
          break;
        case Op::kAdd:
          if (!Read(i, i.rd, &a) || !Read(i, i.rs, &b)) return false;
          r[i.rd] = a + b;
          break;
        case Op::kMov:
          if (!Read(i, i.rs, &b)) return false;
          r[i.rd] = b, defined[i.rd] = true;
          break;
        case Op::kLabel:
        case Op::kInlineBegin:
        case Op::kInlineEnd:
          break;
        case Op::kJmp: pc = labels[i.target]; break;
        case Op::kJnz:
        case Op::kJz:
          if (!Read(i, i.rs, &b)) return false;
          if ((b != 0) == (i.op == Op::kJnz)) pc = labels[i.target];
          break;
        case Op::kCall: {
          const ir::Function* c = prog.Find(i.target);
          if (!Call(*c, depth + 1)) return false;
          // Every register but r0 (the result) is clobbered by a call.
          vfilled = false;
          for (int k = 1; k < ir::kPortableRegs; k++) defined[k] = false, port_value[k] = false;
          break;
        }
        case Op::kRet: return true;
        case Op::kLdGlobal: r[i.rd] = g[i.imm], defined[i.rd] = true; break;
        case Op::kStGlobal:
          if (!Read(i, i.rs, &b)) return false;
          g[i.imm] = b;
          break;
        case Op::kLdSlot:
          if (!slot_set[i.imm / 8]) return Fail(i, "reads frame slot " + std::to_string(i.imm) + " before storing it");
          r[i.rd] = slots[i.imm / 8], defined[i.rd] = true;
          break;
        case Op::kStSlot:
          if (!Read(i, i.rs, &b)) return false;
          slots[i.imm / 8] = b, slot_set[i.imm / 8] = true;
          break;
        case Op::kAddrSlot: r[i.rd] = frame_base + static_cast<uint64_t>(i.imm), defined[i.rd] = true; break;
        case Op::kFillRegs:
          // Every allocatable register = SEED + its index in the port's
          // order: the values are the port's.
          for (int k = 0; k < ir::kPortableRegs; k++) defined[k] = false, port_value[k] = true;
          break;
        case Op::kSumRegs: defined[i.rd] = false, port_value[i.rd] = true; break;
        case Op::kVFill:
          v0_set = false;  // vector register 0 holds the port's layout of the pattern
          vfilled = true, vseed = i.imm;
          break;
        case Op::kVDump:
          if (layout == nullptr) break;  // the dump areas are no globals
          if (!vfilled)
            return Fail(i, "a vdump of vector registers no vfill set since the last call, service or vload (the port's values)");
          for (const auto& [off, size] : layout->regs)
            for (uint32_t b = off; b < off + size; b++)
              vdump[static_cast<size_t>(i.imm) * ir::kVDumpBytes + b] =
                  static_cast<uint8_t>(ir::VectorPattern(vseed, static_cast<int>(b / 8)) >> (8 * (b % 8)));
          break;
        case Op::kSetFlags:
          break;  // the flags are no globals
        case Op::kAtomicAdd:
          if (!Read(i, i.rs, &b)) return false;
          g[i.imm] += b;  // rS unchanged
          break;
        case Op::kWbStore:
          if (!Read(i, i.rs, &b)) return false;
          g[i.imm] = b;  // the barrier is off: the store only
          break;
        case Op::kUseTmp:
          if (!Read(i, i.rd, &a)) return false;
          r[i.rd] = a + 1;
          break;
        case Op::kLdMem: {
          uint64_t* w;
          if (!Mem(i, i.rs, i.imm, &w)) return false;
          r[i.rd] = *w, defined[i.rd] = true;
          break;
        }
        case Op::kStMem: {
          uint64_t* w;
          if (!Read(i, i.rs, &b) || !Mem(i, i.rd, i.imm, &w, true)) return false;
          *w = b;
          break;
        }
        case Op::kVLoad:
        case Op::kVStore: {
          uint64_t *lo, *hi;
          int base = i.op == Op::kVLoad ? i.rs : i.rd;
          bool store = i.op == Op::kVStore;
          if (!Mem(i, base, i.imm, &lo, store) || !Mem(i, base, i.imm + 8, &hi, store)) return false;
          if (i.op == Op::kVLoad) {
            vfilled = false;  // register 0 replaced at the port's width
            v0[0] = *lo, v0[1] = *hi, v0_set = true;
          } else {
            if (!v0_set) return Fail(i, "vstore before any vload");
            *lo = v0[0], *hi = v0[1];
          }
          break;
        }
        case Op::kDumpRegs:
          for (int k = 0; k < ir::kPortableRegs; k++) {
            if (!Read(i, k, &a)) return false;
            g[i.imm + k] = a;
          }
          break;
        case Op::kService:
          vfilled = false;  // a service runs the runtime's code, which may use the vector registers
          switch (i.service) {
            case ir::Service::kGo: {
              // A goroutine that leaves nothing observable (register
              // arithmetic and branches only) changes no end state,
              // whenever it runs or if it never does; any other is
              // another goroutine's story.
              const ir::Function* t = prog.Find(i.target);
              bool silent = t != nullptr;
              for (size_t k = 0; silent && t && k < t->body.size(); k++) {
                Op o = t->body[k].op;
                silent = o == Op::kMovi || o == Op::kAddi || o == Op::kMuli || o == Op::kAdd || o == Op::kMov ||
                         o == Op::kLabel || o == Op::kJmp || o == Op::kJnz || o == Op::kJz || o == Op::kRet;
              }
              if (!silent) return Fail(i, "go of a goroutine that may leave state is outside the interpreter's subset");
              if (may_run) {  // it may run, whenever: all of it
                Entered(*t);
                may_run->ops[IndexOf(*t)].assign(t->body.size(), true);
              }
              for (int k = 1; k < ir::kPortableRegs; k++) defined[k] = false, port_value[k] = false;
              break;
            }
            case ir::Service::kHandshake:
              handshakes[i.imm] = true;
              for (int k = 1; k < ir::kPortableRegs; k++) defined[k] = false, port_value[k] = false;
              break;
            case ir::Service::kWait:
              // A wait for a handshake this goroutine made goes on at once;
              // any other waits for another goroutine.
              if (!handshakes.count(i.imm))
                return Fail(i, "wait for a handshake the program has not made is outside the interpreter's subset");
              for (int k = 1; k < ir::kPortableRegs; k++) defined[k] = false, port_value[k] = false;
              break;
            case ir::Service::kCallback:
              return Fail(i, std::string(ir::ServiceName(i.service)) + " is outside the interpreter's subset");
            case ir::Service::kAlloc: {
              uint64_t at = kHeapBase + kObjStride * heap.size() + 16;
              heap[at] = std::vector<uint64_t>(static_cast<size_t>(i.imm) / 8, 0);
              for (int k = 1; k < ir::kPortableRegs; k++) defined[k] = false, port_value[k] = false;
              r[0] = at, defined[0] = true;
              break;
            }
            default:
              // A service keeps the registers amd64 keeps in callee-saved
              // ones only by accident: as a call, it clobbers all but r0.
              for (int k = 1; k < ir::kPortableRegs; k++) defined[k] = false, port_value[k] = false;
              break;
          }
          break;
        default:
          return Fail(i, "an operation whose result depends on the port (registers, vectors, flags)");
      }
    }
    return true;  // fell off the end after a jmp target at the end: the validator forbids it
  }
};

}  // namespace

bool Interpret(const ir::Program& prog, const std::string& main, std::vector<uint64_t>* globals, std::string* err,
               uint64_t max_steps) {
  const ir::Function* f = prog.Find(main);
  if (!f) {
    *err = "no function " + main;
    return false;
  }
  Interp in(prog, max_steps);
  if (!in.Call(*f, 0)) {
    *err = in.err;
    return false;
  }
  *globals = in.g;
  return true;
}

bool InterpretEndState(const ir::Program& prog, const std::string& main, const VectorLayout& layout,
                       std::vector<uint64_t>* globals, std::vector<uint8_t>* vdump, std::string* err,
                       uint64_t max_steps, MayRun* may_run) {
  for (const auto& [off, size] : layout.regs)
    if (off + size > static_cast<uint32_t>(ir::kVDumpBytes)) {
      *err = "a vector register beyond a dump area's bytes";
      return false;
    }
  const ir::Function* f = prog.Find(main);
  if (!f) {
    *err = "no function " + main;
    return false;
  }
  Interp in(prog, max_steps);
  in.layout = &layout;
  in.vdump.assign(static_cast<size_t>(ir::kVDumpAreas) * ir::kVDumpBytes, 0);
  if (may_run) {
    may_run->entered.assign(prog.funcs.size(), false);
    may_run->ops.resize(prog.funcs.size());
    for (size_t k = 0; k < prog.funcs.size(); k++) may_run->ops[k].assign(prog.funcs[k].body.size(), false);
    may_run->services.assign(static_cast<size_t>(ir::Service::kCount), false);
    may_run->services[static_cast<size_t>(ir::Service::kGoexit)] = true;
    in.may_run = may_run;
  }
  if (!in.Call(*f, 0)) {
    *err = in.err;
    return false;
  }
  *globals = std::move(in.g);
  *vdump = std::move(in.vdump);
  return true;
}

}  // namespace safepoint::oracle
