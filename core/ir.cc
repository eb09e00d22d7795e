#include "core/ir.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <functional>
#include <set>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace safepoint::ir {
namespace {

struct ServiceInfo {
  Service s;
  const char* ir;
  const char* symbol;
  bool has_imm;     // sleep NS, handshake N, wait N
  bool has_target;  // go F
};
constexpr ServiceInfo kServices[] = {
    {Service::kGosched, "gosched", "runtime.Gosched", false, false},
    {Service::kSleep, "sleep", "time.Sleep", true, false},
    {Service::kGo, "go", "runtime.newproc", false, true},
    {Service::kHandshake, "handshake", "runtime.handshake", true, false},
    {Service::kWait, "wait", "runtime.waitHandshake", true, false},
    {Service::kAcquirem, "acquirem", "runtime.acquirem", false, false},
    {Service::kReleasem, "releasem", "runtime.releasem", false, false},
    {Service::kMallocingBegin, "mallocing_begin", "runtime.mallocgcBegin", false, false},
    {Service::kMallocingEnd, "mallocing_end", "runtime.mallocgcEnd", false, false},
    {Service::kPreemptoffBegin, "preemptoff_begin", "runtime.preemptoffBegin", false, false},
    {Service::kPreemptoffEnd, "preemptoff_end", "runtime.preemptoffEnd", false, false},
    {Service::kEntersyscall, "entersyscall", "runtime.entersyscall", false, false},
    {Service::kExitsyscall, "exitsyscall", "runtime.exitsyscall", false, false},
    {Service::kCallback, "callback", "runtime.testCallback", true, false},
    {Service::kSecretBegin, "secret_begin", "runtime/secret.begin", false, false},
    {Service::kSecretEnd, "secret_end", "runtime/secret.end", false, false},
    {Service::kAlloc, "alloc", "runtime.mallocgc", true, false},
    {Service::kGC, "gc", "runtime.GC", false, false},
    {Service::kGoexit, "goexit", "runtime.goexit", false, false},
};
static_assert(sizeof(kServices) / sizeof(kServices[0]) == static_cast<size_t>(Service::kCount));

// The parser reads the text in place: lines, words and numbers are views
// into it, and a string is made only for what the program keeps (names,
// labels) or for an error. (Copies per line and per word, an istringstream
// and a strtoll per number on a fresh string were most of a fuzz case's
// parse; under QEMU the parse was a sixth of an execution.)
std::string_view Trim(std::string_view s) {
  size_t a = s.find_first_not_of(" \t\r"), b = s.find_last_not_of(" \t\r");
  return a == std::string_view::npos ? std::string_view() : s.substr(a, b - a + 1);
}

// Splits "op a, b" into {"op", "a", "b"} (views into line).
void Words(std::string_view line, std::vector<std::string_view>* out) {
  out->clear();
  size_t start = std::string_view::npos;
  for (size_t i = 0; i < line.size(); i++) {
    char c = line[i];
    if (c == ' ' || c == '\t' || c == ',') {
      if (start != std::string_view::npos) out->push_back(line.substr(start, i - start)), start = std::string_view::npos;
    } else if (start == std::string_view::npos) {
      start = i;
    }
  }
  if (start != std::string_view::npos) out->push_back(line.substr(start));
}

// strtoll's and strtoull's reading (base 0: decimal, 0x hex, 0 octal;
// leading space and a sign as they take them), the whole word or nothing.
bool ParseInt(std::string_view s, int64_t* v) {
  if (s.empty()) return false;
  char small[64];
  std::string big;
  const char* str;
  if (s.size() < sizeof small) {
    memcpy(small, s.data(), s.size());
    small[s.size()] = '\0';
    str = small;
  } else {
    big.assign(s);
    str = big.c_str();
  }
  errno = 0;
  char* end = nullptr;
  long long x = strtoll(str, &end, 0);
  if (errno != 0 || *end != '\0') {
    // Allow unsigned 64-bit hex constants too.
    errno = 0;
    unsigned long long u = strtoull(str, &end, 0);
    if (errno != 0 || *end != '\0' || s[0] == '-') return false;
    *v = static_cast<int64_t>(u);
    return true;
  }
  *v = x;
  return true;
}

bool ParseReg(std::string_view s, int* r) {
  if (s.size() < 2 || s[0] != 'r') return false;
  int64_t v;
  if (!ParseInt(s.substr(1), &v) || v < 0 || v >= kPortableRegs) return false;
  *r = static_cast<int>(v);
  return true;
}

bool ParseGlobal(std::string_view s, int64_t* idx) {
  if (s.size() < 4 || s.substr(0, 2) != "g[" || s.back() != ']') return false;
  return ParseInt(s.substr(2, s.size() - 3), idx) && *idx >= 0 && *idx < kGlobals;
}

bool ValidName(std::string_view n) {
  if (n.empty() || n.find('.') == std::string_view::npos || n.back() == '.') return false;
  for (char c : n)
    if (!(isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '/')) return false;
  return true;
}

// The syntax of every operation: its spelling, the shape of its operands
// in order, the usage text of its arity error, and a check of the values.
// A new operation is one row here (and its lowering in every port).
enum Operand : uint8_t {
  kRd,        // destination register rD
  kRs,        // source register rS
  kImm,       // integer -> imm
  kGlobal,    // g[N] -> imm
  kLabelRef,  // a label of this function -> target
  kFunc,      // a function of the program -> target
  kQualName,  // a package-qualified function name -> target
};
using Check = std::string (*)(const Insn&);  // "" or ": message" (appended to the op)

std::string CheckImm32(const Insn& i) {
  return i.imm < INT32_MIN || i.imm > INT32_MAX ? ": immediate out of 32-bit range" : "";
}
std::string CheckNonNegative(const Insn& i) { return i.imm < 0 ? ": operand must not be negative" : ""; }
std::string CheckDumpRegs(const Insn& i) {
  return i.imm < 0 || i.imm + kPortableRegs > kGlobals
             ? " " + std::to_string(i.imm) + ": g[N..N+" + std::to_string(kPortableRegs - 1) + "] must be globals"
             : "";
}
std::string CheckFlagsDump(const Insn& i) {
  return i.imm + kFlagsWords > kGlobals
             ? " g[" + std::to_string(i.imm) + "]: g[N..N+" + std::to_string(kFlagsWords - 1) + "] must be globals"
             : "";
}
std::string CheckVDump(const Insn& i) {
  return i.imm < 0 || i.imm >= kVDumpAreas
             ? " " + std::to_string(i.imm) + ": areas are 0.." + std::to_string(kVDumpAreas - 1)
             : "";
}

std::string CheckMemOff(const Insn& i) {
  return i.imm < 0 || i.imm > kMemOffMax || i.imm % 8 != 0
             ? " " + std::to_string(i.imm) + ": offsets are multiples of 8 in [0, " + std::to_string(kMemOffMax) + "]"
             : "";
}
std::string CheckAllocSize(const Insn& i) {
  return i.imm < 8 || i.imm > kMaxAlloc || i.imm % 8 != 0
             ? " " + std::to_string(i.imm) + ": sizes are multiples of 8 in [8, " + std::to_string(kMaxAlloc) + "]"
             : "";
}

struct OpSyntax {
  std::string word;
  Op op;
  std::vector<Operand> shape;
  std::string usage;  // "needs a register and an integer"
  Check check = nullptr;
  bool bad_imm_is_usage = false;  // a bad integer reports the usage text
  Service service = Service::kCount;
};

const std::vector<OpSyntax>& OpTable() {
  static const std::vector<OpSyntax> table = [] {
    std::vector<OpSyntax> t = {
        {"movi", Op::kMovi, {kRd, kImm}, "needs a register and an integer"},
        {"addi", Op::kAddi, {kRd, kImm}, "needs a register and an integer", CheckImm32},
        {"muli", Op::kMuli, {kRd, kImm}, "needs a register and an integer", CheckImm32},
        {"add", Op::kAdd, {kRd, kRs}, "needs two registers"},
        {"mov", Op::kMov, {kRd, kRs}, "needs two registers"},
        {"jmp", Op::kJmp, {kLabelRef}, "needs a label"},
        {"jnz", Op::kJnz, {kRs, kLabelRef}, "needs a register and a label"},
        {"jz", Op::kJz, {kRs, kLabelRef}, "needs a register and a label"},
        {"call", Op::kCall, {kFunc}, "needs a function name"},
        {"ret", Op::kRet, {}, "takes no operands"},
        {"ld", Op::kLdGlobal, {kRd, kGlobal}, "needs a register and a global g[N]"},
        {"st", Op::kStGlobal, {kGlobal, kRs}, "needs a register and a global g[N]"},
        {"ldslot", Op::kLdSlot, {kRd, kImm}, "needs a register and a frame offset"},
        {"stslot", Op::kStSlot, {kImm, kRs}, "needs a register and a frame offset"},
        {"fillregs", Op::kFillRegs, {kImm}, "needs a seed"},
        {"sumregs", Op::kSumRegs, {kRd}, "needs a register"},
        {"atomic_add", Op::kAtomicAdd, {kGlobal, kRs}, "needs a global g[N] and a register"},
        {"wb_store", Op::kWbStore, {kGlobal, kRs}, "needs a global g[N] and a register"},
        {"usetmp", Op::kUseTmp, {kRd}, "needs a register"},
        {"inline", Op::kInlineBegin, {kQualName}, "needs a package-qualified function name"},
        {"endinline", Op::kInlineEnd, {}, "takes no operands"},
        {"dumpregs", Op::kDumpRegs, {kImm}, "needs a first global index", CheckDumpRegs, true},
        {"vfill", Op::kVFill, {kImm}, "needs a seed", nullptr, true},
        {"vdump", Op::kVDump, {kImm}, "needs an area number", CheckVDump, true},
        {"setflags", Op::kSetFlags, {kImm}, "needs an integer", nullptr, true},
        {"flagsdump", Op::kFlagsDump, {kGlobal}, "needs a global g[N]", CheckFlagsDump},
        {"starg", Op::kStSlot, {kImm, kRs}, "needs an argument-area offset and a register"},
        {"ldm", Op::kLdMem, {kRd, kRs, kImm}, "needs a register, a base register and an offset", CheckMemOff},
        {"stm", Op::kStMem, {kRd, kImm, kRs}, "needs a base register, an offset and a register", CheckMemOff},
        {"drop", Op::kMovi, {kRd}, "needs a register"},
        {"addrslot", Op::kAddrSlot, {kRd, kImm}, "needs a register and a frame offset"},
        {"vload", Op::kVLoad, {kRs, kImm}, "needs a base register and an offset", CheckMemOff},
        {"vstore", Op::kVStore, {kRd, kImm}, "needs a base register and an offset", CheckMemOff},
    };
    // Every runtime service is an operation too, spelled as kServices says.
    for (const ServiceInfo& s : kServices) {
      if (s.s == Service::kGoexit) continue;
      OpSyntax row{s.ir, Op::kService, {}, "takes no operands"};
      row.service = s.s;
      if (s.has_imm) row.shape = {kImm}, row.usage = "needs an integer operand", row.check = CheckNonNegative;
      if (s.s == Service::kAlloc) row.usage = "needs a size in bytes", row.check = CheckAllocSize;
      if (s.has_target) row.shape = {kFunc}, row.usage = "needs a function name";
      t.push_back(row);
    }
    return t;
  }();
  return table;
}

// By word, in a hash map built once: the linear search over the table was
// most of a fuzz case's parse (a few hundred lines, each compared with every
// row).
const OpSyntax* FindOp(std::string_view word) {
  static const auto* by_word = [] {
    // Keys view the table's own words (the table is never destroyed).
    auto* m = new std::unordered_map<std::string_view, const OpSyntax*>;
    for (const OpSyntax& r : OpTable()) m->emplace(r.word, &r);  // the first row of a word wins, as the search did
    return m;
  }();
  auto it = by_word->find(word);
  return it == by_word->end() ? nullptr : it->second;
}

}  // namespace

std::vector<std::string> OperationNames() {
  std::vector<std::string> out;
  for (const OpSyntax& r : OpTable()) out.push_back(r.word);
  return out;
}

const char* ServiceName(Service s) { return kServices[static_cast<int>(s)].ir; }
const char* ServiceSymbol(Service s) { return kServices[static_cast<int>(s)].symbol; }
bool ServiceHasImm(Service s) { return kServices[static_cast<int>(s)].has_imm; }


std::string PackageOf(const std::string& name) {
  // The package is everything before the first '.' after the last '/'.
  size_t slash = name.rfind('/');
  size_t dot = name.find('.', slash == std::string::npos ? 0 : slash + 1);
  return dot == std::string::npos ? "" : name.substr(0, dot);
}

bool Function::CallsAnything() const {
  for (const Insn& i : body)
    if (i.op == Op::kCall || i.op == Op::kService) return true;
  return false;
}

const Function* Program::Find(const std::string& name) const {
  for (const Function& f : funcs)
    if (f.name == name) return &f;
  return nullptr;
}

bool ParseProgram(const std::string& text, Program* out, std::string* err) {
  Program p;
  std::string_view rest(text);
  std::vector<std::string_view> w;
  int lineno = 0;
  Function* cur = nullptr;
  auto fail = [&](const std::string& msg) {
    *err = std::to_string(lineno) + ": " + msg;
    return false;
  };
  // Lines as getline gives them: the text after the last newline is one
  // if it is not empty.
  while (!rest.empty()) {
    size_t nl = rest.find('\n');
    std::string_view raw = rest.substr(0, nl);
    rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
    lineno++;
    std::string_view line = Trim(raw.substr(0, raw.find('#')));
    if (line.empty()) continue;
    Words(line, &w);
    // (Found by //fuzz:parser_fuzz: ", " split into no words at all.)
    if (w.empty()) return fail("a statement expected, not separators alone");
    const std::string_view op = w[0];
    if (op == "func") {
      if (cur) return fail("'func' inside function " + cur->name + " (missing 'end')");
      if (w.size() < 2) return fail("'func' needs a name");
      p.funcs.emplace_back();
      cur = &p.funcs.back();
      cur->name = std::string(w[1]);
      cur->package = PackageOf(cur->name);
      cur->line = lineno;
      for (size_t i = 2; i < w.size(); i++) {
        int64_t v;
        if (w[i] == "nosplit") {
          cur->nosplit = true;
        } else if (w[i] == "asm") {
          cur->is_asm = true;
        } else if (w[i] == "nongo") {
          cur->nongo = true;
        } else if (w[i] == "restartatentry") {
          cur->restart_at_entry = true;
        } else if (w[i].starts_with("frame=") && ParseInt(w[i].substr(6), &v)) {
          if (v < 0 || v > kMaxFrame || v % 8 != 0)
            return fail("frame=" + std::string(w[i].substr(6)) + ": must be a multiple of 8 in [0, " +
                        std::to_string(kMaxFrame) + "]");
          cur->frame = static_cast<int>(v);
        } else if (w[i].starts_with("args=") && ParseInt(w[i].substr(5), &v)) {
          if (v < 0 || v > kMaxFrame || v % 8 != 0)
            return fail("args=" + std::string(w[i].substr(5)) + ": must be a multiple of 8 in [0, " +
                        std::to_string(kMaxFrame) + "]");
          cur->args = static_cast<int>(v);
        } else if (w[i].starts_with("ptrs=")) {
          std::string_view list = w[i].substr(5);
          size_t at = 0;
          while (true) {
            size_t slash = list.find('/', at);
            std::string_view one = list.substr(at, slash == std::string_view::npos ? std::string_view::npos : slash - at);
            if (!ParseInt(one, &v) || v < 0 || v > kMaxFrame || v % 8 != 0)
              return fail("ptrs=" + std::string(list) + ": want slot offsets, multiples of 8, separated by '/'");
            cur->ptr_slots.push_back(static_cast<int>(v));
            if (slash == std::string_view::npos) break;
            at = slash + 1;
          }
        } else {
          return fail("unknown function attribute '" + std::string(w[i]) +
                      "' (nosplit, asm, nongo, restartatentry, frame=N, args=N, ptrs=A/B/...)");
        }
      }
      continue;
    }
    if (!cur) return fail("'" + std::string(op) + "' outside a function");
    if (op == "end") {
      if (w.size() != 1) return fail("'end' takes no operands");
      cur = nullptr;
      continue;
    }
    Insn ins;
    ins.line = lineno;
    if (w.size() == 1 && op.back() == ':') {
      ins.op = Op::kLabel;
      ins.target = std::string(op.substr(0, op.size() - 1));
      if (ins.target.empty()) return fail("empty label");
    } else if (const OpSyntax* row = FindOp(op)) {
      if (w.size() != row->shape.size() + 1) return fail(std::string(op) + " " + row->usage);
      ins.op = row->op;
      ins.service = row->service;
      for (size_t i = 0; i < row->shape.size(); i++) {
        const std::string_view a = w[i + 1];
        switch (row->shape[i]) {
          case kRd:
          case kRs:
            if (!ParseReg(a, row->shape[i] == kRd ? &ins.rd : &ins.rs))
              return fail("'" + std::string(a) + "' is not a register r0..r" + std::to_string(kPortableRegs - 1));
            break;
          case kImm:
            if (!ParseInt(a, &ins.imm))
              return fail(row->bad_imm_is_usage ? std::string(op) + " " + row->usage : "'" + std::string(a) + "' is not an integer");
            break;
          case kGlobal:
            if (!ParseGlobal(a, &ins.imm))
              return fail("'" + std::string(a) + "' is not a global g[0.." + std::to_string(kGlobals - 1) + "]");
            break;
          case kLabelRef:
          case kFunc:
            ins.target = std::string(a);
            break;
          case kQualName:
            if (!ValidName(a)) return fail(std::string(op) + " " + row->usage);
            ins.target = std::string(a);
            break;
        }
      }
      if (row->check != nullptr) {
        std::string msg = row->check(ins);
        if (!msg.empty()) return fail(std::string(op) + msg);
      }
    } else {
      return fail("unknown operation '" + std::string(op) + "'");
    }
    if (cur->body.empty()) cur->body.reserve(16);
    cur->body.push_back(std::move(ins));
  }
  if (cur) {
    lineno = cur->line;
    return fail("function " + cur->name + " has no 'end'");
  }
  if (!Validate(p, err)) return false;
  *out = std::move(p);
  return true;
}

bool Validate(const Program& p, std::string* err) {
  auto fail = [&](int line, const std::string& msg) {
    *err = std::to_string(line) + ": " + msg;
    return false;
  };
  if (p.funcs.empty()) return fail(0, "the program has no functions");
  // (Hashed views into the program: a new program is validated at its
  // parse and again at its load, and ordered maps of copied strings were
  // most of it.)
  std::unordered_set<std::string_view> names;
  names.reserve(p.funcs.size());
  for (const Function& f : p.funcs) {
    if (!ValidName(f.name)) return fail(f.line, "'" + f.name + "' is not a package-qualified name (pkg.Func)");
    if (!names.insert(f.name).second) return fail(f.line, "function " + f.name + " defined twice");
    if (f.frame < 0 || f.frame > kMaxFrame || f.frame % 8 != 0)
      return fail(f.line, f.name + ": bad frame size " + std::to_string(f.frame));
    if (f.args < 0 || f.args > f.frame || f.args % 8 != 0)
      return fail(f.line, f.name + ": args=" + std::to_string(f.args) + " must lie within the " +
                              std::to_string(f.frame) + "-byte frame");
    for (int off : f.ptr_slots)
      if (off < 0 || off % 8 != 0 || off + 8 > f.frame)
        return fail(f.line, f.name + ": pointer slot " + std::to_string(off) + " outside the " +
                                std::to_string(f.frame) + "-byte frame");
    if (f.body.empty() || (f.body.back().op != Op::kRet && f.body.back().op != Op::kJmp))
      return fail(f.line, f.name + ": must end with ret or jmp");
  }
  std::unordered_map<std::string_view, int> labels;
  for (const Function& f : p.funcs) {
    int depth = 0;
    for (const Insn& i : f.body) {
      if (i.op == Op::kInlineBegin) depth++;
      if (i.op == Op::kInlineEnd && --depth < 0) return fail(i.line, "endinline without inline in " + f.name);
      if (depth > 0 && (i.op == Op::kLabel || i.op == Op::kRet))
        return fail(i.line, "labels and ret are not allowed inside an inlined body");
    }
    if (depth != 0) return fail(f.line, f.name + ": inline without endinline");
    labels.clear();
    for (const Insn& i : f.body)
      if (i.op == Op::kLabel && !labels.emplace(i.target, i.line).second)
        return fail(i.line, "label " + i.target + " defined twice in " + f.name);
    for (const Insn& i : f.body) {
      switch (i.op) {
        case Op::kJmp:
        case Op::kJnz:
        case Op::kJz:
          if (!labels.count(i.target)) return fail(i.line, "no label '" + i.target + "' in " + f.name);
          break;
        case Op::kCall:
          if (!names.count(i.target)) return fail(i.line, "call of undefined function " + i.target);
          break;
        case Op::kService:
          if (i.service == Service::kGo && !names.count(i.target))
            return fail(i.line, "go of undefined function " + i.target);
          break;
        case Op::kLdSlot:
        case Op::kStSlot:
        case Op::kAddrSlot:
          if (i.imm < 0 || i.imm % 8 != 0 || i.imm + 8 > f.frame)
            return fail(i.line, "slot offset " + std::to_string(i.imm) + " outside the " +
                                    std::to_string(f.frame) + "-byte frame of " + f.name);
          break;
        default:
          break;
      }
    }
  }
  // What Go's linker and assembler check.
  std::unordered_map<std::string_view, const Function*> by_name;
  for (const Function& f : p.funcs) by_name[f.name] = &f;
  // 1. Chains of nosplit functions must fit the nosplit limit (the
  //    linker's "nosplit stack overflow"): a nosplit function's frame, its
  //    return address, and the deepest nosplit chain it calls.
  std::unordered_map<std::string_view, int> depth;  // bytes, once known
  std::unordered_map<std::string_view, bool> visiting;
  std::string overflow;
  int overflow_line = 0;
  std::function<int(const Function&, std::string)> chain = [&](const Function& f, std::string path) -> int {
    if (depth.count(f.name)) return depth[f.name];
    if (visiting[f.name]) {
      if (overflow.empty()) {
        overflow = "nosplit recursion: " + path + " (a nosplit chain must end; Go's linker refuses it)";
        overflow_line = f.line;
      }
      return kNosplitLimit + 1;
    }
    visiting[f.name] = true;
    int deepest = 0;
    for (const Insn& i : f.body)
      if (i.op == Op::kCall) {
        const Function* c = by_name[i.target];
        if (c && c->nosplit) deepest = std::max(deepest, chain(*c, path + " -> " + c->name));
      }
    visiting[f.name] = false;
    return depth[f.name] = f.frame + 8 + deepest;
  };
  for (const Function& f : p.funcs) {
    if (!f.nosplit) continue;
    int need = chain(f, f.name);
    if (!overflow.empty()) return fail(overflow_line, overflow);
    if (need > kNosplitLimit)
      return fail(f.line, f.name + ": nosplit stack overflow: its nosplit chain needs " + std::to_string(need) +
                              " bytes, beyond the nosplit limit of " + std::to_string(kNosplitLimit));
  }
  // 2. A function that restarts at its entry must be one a restart cannot
  //    tell: no frame, no calls or services, no loops, no atomics or write
  //    barriers, and no write to a register or global whose entry value it
  //    has read (a second run from the entry would read the new value).
  for (const Function& f : p.funcs) {
    if (!f.restart_at_entry) continue;
    if (f.frame != 0)
      return fail(f.line, f.name + ": restartatentry needs a frameless function (a restart at the entry would "
                                   "allocate its frame again)");
    // Registers r0..r11, and two pseudo-registers: the flags and the vectors.
    constexpr int kFlagsReg = 100, kVectorsReg = 101;
    std::set<int> wrote_reg, input_reg;  // written; read before any write
    std::set<int64_t> wrote_global, input_global;
    for (const Insn& i : f.body) {
      auto bad = [&](const std::string& why) {
        return fail(i.line, f.name + ": restartatentry: " + why + " (a restart at the entry must be invisible)");
      };
      switch (i.op) {
        case Op::kCall:
        case Op::kService:
        case Op::kJmp:
        case Op::kJnz:
        case Op::kJz:
        case Op::kAtomicAdd:
        case Op::kWbStore:
          return bad("no calls, services, branches, atomics or write barriers");
        case Op::kLdMem:
        case Op::kStMem:
        case Op::kVLoad:
        case Op::kVStore:
        case Op::kAddrSlot:
          return bad("no heap memory operations or stack addresses");
        default:
          break;
      }
      std::vector<int> reads, writes;
      if (i.op == Op::kAddi || i.op == Op::kMuli || i.op == Op::kAdd || i.op == Op::kUseTmp) reads.push_back(i.rd);
      if (i.rs >= 0) reads.push_back(i.rs);
      if (i.rd >= 0) writes.push_back(i.rd);
      if (i.op == Op::kDumpRegs || i.op == Op::kSumRegs)
        for (int k = 0; k < kPortableRegs; k++) reads.push_back(k);
      if (i.op == Op::kFillRegs)
        for (int k = 0; k < kPortableRegs; k++) writes.push_back(k);
      if (i.op == Op::kFlagsDump) reads.push_back(kFlagsReg);
      if (i.op == Op::kSetFlags) writes.push_back(kFlagsReg);
      if (i.op == Op::kVDump) reads.push_back(kVectorsReg);
      if (i.op == Op::kVFill) writes.push_back(kVectorsReg);
      for (int r : reads)
        if (!wrote_reg.count(r)) input_reg.insert(r);
      if (i.op == Op::kLdGlobal && !wrote_global.count(i.imm)) input_global.insert(i.imm);
      for (int r : writes) {
        if (!input_reg.count(r)) continue;
        std::string what = r == kFlagsReg ? "the flags" : r == kVectorsReg ? "the vector registers" : "r" + std::to_string(r);
        return bad("it overwrites " + what + ", whose entry value it read");
      }
      std::vector<int64_t> stored;
      if (i.op == Op::kStGlobal) stored.push_back(i.imm);
      if (i.op == Op::kFlagsDump)
        for (int k = 0; k < kFlagsWords; k++) stored.push_back(i.imm + k);
      for (int64_t n : stored)
        if (input_global.count(n)) return bad("it overwrites g[" + std::to_string(n) + "], whose entry value it read");
      for (int r : writes) wrote_reg.insert(r);
      for (int64_t n : stored) wrote_global.insert(n);
      if (i.op == Op::kDumpRegs)
        for (int k = 0; k < kPortableRegs; k++) wrote_global.insert(i.imm + k);
    }
  }
  return true;
}

}  // namespace safepoint::ir
