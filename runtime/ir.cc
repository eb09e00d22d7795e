#include "runtime/ir.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>

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
    {Service::kGoexit, "goexit", "runtime.goexit", false, false},
};
static_assert(sizeof(kServices) / sizeof(kServices[0]) == static_cast<size_t>(Service::kCount));

const ServiceInfo* FindService(const std::string& word) {
  for (const auto& s : kServices)
    if (word == s.ir && s.s != Service::kGoexit) return &s;
  return nullptr;
}

std::string Trim(const std::string& s) {
  size_t a = s.find_first_not_of(" \t\r"), b = s.find_last_not_of(" \t\r");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

// Splits "op a, b" into {"op", "a", "b"}.
std::vector<std::string> Words(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : line) {
    if (c == ' ' || c == '\t' || c == ',') {
      if (!cur.empty()) out.push_back(cur), cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

bool ParseInt(const std::string& s, int64_t* v) {
  if (s.empty()) return false;
  errno = 0;
  char* end = nullptr;
  long long x = strtoll(s.c_str(), &end, 0);
  if (errno != 0 || *end != '\0') {
    // Allow unsigned 64-bit hex constants too.
    errno = 0;
    unsigned long long u = strtoull(s.c_str(), &end, 0);
    if (errno != 0 || *end != '\0' || s[0] == '-') return false;
    *v = static_cast<int64_t>(u);
    return true;
  }
  *v = x;
  return true;
}

bool ParseReg(const std::string& s, int* r) {
  if (s.size() < 2 || s[0] != 'r') return false;
  int64_t v;
  if (!ParseInt(s.substr(1), &v) || v < 0 || v >= kPortableRegs) return false;
  *r = static_cast<int>(v);
  return true;
}

bool ParseGlobal(const std::string& s, int64_t* idx) {
  if (s.size() < 4 || s.compare(0, 2, "g[") != 0 || s.back() != ']') return false;
  return ParseInt(s.substr(2, s.size() - 3), idx) && *idx >= 0 && *idx < kGlobals;
}

bool ValidName(const std::string& n) {
  if (n.empty() || n.find('.') == std::string::npos || n.back() == '.') return false;
  for (char c : n)
    if (!(isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '/')) return false;
  return true;
}

}  // namespace

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
  std::istringstream in(text);
  std::string raw;
  int lineno = 0;
  Function* cur = nullptr;
  auto fail = [&](const std::string& msg) {
    *err = std::to_string(lineno) + ": " + msg;
    return false;
  };
  while (std::getline(in, raw)) {
    lineno++;
    std::string line = Trim(raw.substr(0, raw.find('#')));
    if (line.empty()) continue;
    std::vector<std::string> w = Words(line);
    const std::string& op = w[0];
    if (op == "func") {
      if (cur) return fail("'func' inside function " + cur->name + " (missing 'end')");
      if (w.size() < 2) return fail("'func' needs a name");
      p.funcs.emplace_back();
      cur = &p.funcs.back();
      cur->name = w[1];
      cur->package = PackageOf(w[1]);
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
        } else if (w[i].compare(0, 6, "frame=") == 0 && ParseInt(w[i].substr(6), &v)) {
          if (v < 0 || v > kMaxFrame || v % 8 != 0)
            return fail("frame=" + w[i].substr(6) + ": must be a multiple of 8 in [0, " +
                        std::to_string(kMaxFrame) + "]");
          cur->frame = static_cast<int>(v);
        } else {
          return fail("unknown function attribute '" + w[i] + "' (nosplit, asm, nongo, restartatentry, frame=N)");
        }
      }
      continue;
    }
    if (!cur) return fail("'" + op + "' outside a function");
    if (op == "end") {
      if (w.size() != 1) return fail("'end' takes no operands");
      cur = nullptr;
      continue;
    }
    Insn ins;
    ins.line = lineno;
    auto nargs = [&](size_t n) { return w.size() == n + 1; };
    auto reg = [&](size_t i, int* r) {
      if (!ParseReg(w[i], r)) return fail("'" + w[i] + "' is not a register r0..r" + std::to_string(kPortableRegs - 1));
      return true;
    };
    auto imm = [&](size_t i, int64_t* v) {
      if (!ParseInt(w[i], v)) return fail("'" + w[i] + "' is not an integer");
      return true;
    };
    if (w.size() == 1 && op.back() == ':') {
      ins.op = Op::kLabel;
      ins.target = op.substr(0, op.size() - 1);
      if (ins.target.empty()) return fail("empty label");
    } else if (op == "movi" || op == "addi" || op == "muli") {
      if (!nargs(2)) return fail(op + " needs a register and an integer");
      ins.op = op == "movi" ? Op::kMovi : op == "addi" ? Op::kAddi : Op::kMuli;
      if (!reg(1, &ins.rd) || !imm(2, &ins.imm)) return false;
      if (ins.op != Op::kMovi && (ins.imm < INT32_MIN || ins.imm > INT32_MAX))
        return fail(op + ": immediate out of 32-bit range");
    } else if (op == "add" || op == "mov") {
      if (!nargs(2)) return fail(op + " needs two registers");
      ins.op = op == "add" ? Op::kAdd : Op::kMov;
      if (!reg(1, &ins.rd) || !reg(2, &ins.rs)) return false;
    } else if (op == "jmp") {
      if (!nargs(1)) return fail("jmp needs a label");
      ins.op = Op::kJmp;
      ins.target = w[1];
    } else if (op == "jnz" || op == "jz") {
      if (!nargs(2)) return fail(op + " needs a register and a label");
      ins.op = op == "jnz" ? Op::kJnz : Op::kJz;
      if (!reg(1, &ins.rs)) return false;
      ins.target = w[2];
    } else if (op == "call") {
      if (!nargs(1)) return fail("call needs a function name");
      ins.op = Op::kCall;
      ins.target = w[1];
    } else if (op == "ret") {
      if (!nargs(0)) return fail("ret takes no operands");
      ins.op = Op::kRet;
    } else if (op == "ld" || op == "st") {
      if (!nargs(2)) return fail(op + " needs a register and a global g[N]");
      ins.op = op == "ld" ? Op::kLdGlobal : Op::kStGlobal;
      size_t ri = op == "ld" ? 1 : 2, gi = op == "ld" ? 2 : 1;
      if (!reg(ri, op == "ld" ? &ins.rd : &ins.rs)) return false;
      if (!ParseGlobal(w[gi], &ins.imm))
        return fail("'" + w[gi] + "' is not a global g[0.." + std::to_string(kGlobals - 1) + "]");
    } else if (op == "ldslot" || op == "stslot") {
      if (!nargs(2)) return fail(op + " needs a register and a frame offset");
      ins.op = op == "ldslot" ? Op::kLdSlot : Op::kStSlot;
      size_t ri = op == "ldslot" ? 1 : 2, oi = op == "ldslot" ? 2 : 1;
      if (!reg(ri, op == "ldslot" ? &ins.rd : &ins.rs) || !imm(oi, &ins.imm)) return false;
    } else if (op == "fillregs") {
      if (!nargs(1)) return fail("fillregs needs a seed");
      ins.op = Op::kFillRegs;
      if (!imm(1, &ins.imm)) return false;
    } else if (op == "sumregs") {
      if (!nargs(1)) return fail("sumregs needs a register");
      ins.op = Op::kSumRegs;
      if (!reg(1, &ins.rd)) return false;
    } else if (op == "atomic_add" || op == "wb_store") {
      if (!nargs(2)) return fail(op + " needs a global g[N] and a register");
      ins.op = op == "atomic_add" ? Op::kAtomicAdd : Op::kWbStore;
      if (!ParseGlobal(w[1], &ins.imm))
        return fail("'" + w[1] + "' is not a global g[0.." + std::to_string(kGlobals - 1) + "]");
      if (!reg(2, &ins.rs)) return false;
    } else if (op == "usetmp") {
      if (!nargs(1)) return fail("usetmp needs a register");
      ins.op = Op::kUseTmp;
      if (!reg(1, &ins.rd)) return false;
    } else if (op == "inline") {
      if (!nargs(1) || !ValidName(w[1])) return fail("inline needs a package-qualified function name");
      ins.op = Op::kInlineBegin;
      ins.target = w[1];
    } else if (op == "endinline") {
      if (!nargs(0)) return fail("endinline takes no operands");
      ins.op = Op::kInlineEnd;
    } else if (op == "dumpregs") {
      if (!nargs(1) || !imm(1, &ins.imm)) return fail("dumpregs needs a first global index");
      ins.op = Op::kDumpRegs;
      if (ins.imm < 0 || ins.imm + kPortableRegs > kGlobals)
        return fail("dumpregs " + std::to_string(ins.imm) + ": g[N..N+11] must be globals");
    } else if (op == "vfill") {
      if (!nargs(1) || !imm(1, &ins.imm)) return fail("vfill needs a seed");
      ins.op = Op::kVFill;
    } else if (op == "vdump") {
      if (!nargs(1) || !imm(1, &ins.imm)) return fail("vdump needs an area number");
      ins.op = Op::kVDump;
      if (ins.imm < 0 || ins.imm >= kVDumpAreas)
        return fail("vdump " + std::to_string(ins.imm) + ": areas are 0.." + std::to_string(kVDumpAreas - 1));
    } else if (op == "setflags") {
      if (!nargs(1) || !imm(1, &ins.imm)) return fail("setflags needs an integer");
      ins.op = Op::kSetFlags;
    } else if (op == "flagsdump") {
      if (!nargs(1)) return fail("flagsdump needs a global g[N]");
      ins.op = Op::kFlagsDump;
      if (!ParseGlobal(w[1], &ins.imm))
        return fail("'" + w[1] + "' is not a global g[0.." + std::to_string(kGlobals - 1) + "]");
    } else if (const ServiceInfo* s = FindService(op)) {
      ins.op = Op::kService;
      ins.service = s->s;
      if (s->has_imm) {
        if (!nargs(1)) return fail(op + " needs an integer operand");
        if (!imm(1, &ins.imm)) return false;
        if (ins.imm < 0) return fail(op + ": operand must not be negative");
      } else if (s->has_target) {
        if (!nargs(1)) return fail(op + " needs a function name");
        ins.target = w[1];
      } else if (!nargs(0)) {
        return fail(op + " takes no operands");
      }
    } else {
      return fail("unknown operation '" + op + "'");
    }
    cur->body.push_back(ins);
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
  std::set<std::string> names;
  for (const Function& f : p.funcs) {
    if (!ValidName(f.name)) return fail(f.line, "'" + f.name + "' is not a package-qualified name (pkg.Func)");
    if (!names.insert(f.name).second) return fail(f.line, "function " + f.name + " defined twice");
    if (f.frame < 0 || f.frame > kMaxFrame || f.frame % 8 != 0)
      return fail(f.line, f.name + ": bad frame size " + std::to_string(f.frame));
    if (f.body.empty() || (f.body.back().op != Op::kRet && f.body.back().op != Op::kJmp))
      return fail(f.line, f.name + ": must end with ret or jmp");
  }
  for (const Function& f : p.funcs) {
    int depth = 0;
    for (const Insn& i : f.body) {
      if (i.op == Op::kInlineBegin) depth++;
      if (i.op == Op::kInlineEnd && --depth < 0) return fail(i.line, "endinline without inline in " + f.name);
      if (depth > 0 && (i.op == Op::kLabel || i.op == Op::kRet))
        return fail(i.line, "labels and ret are not allowed inside an inlined body");
    }
    if (depth != 0) return fail(f.line, f.name + ": inline without endinline");
    std::map<std::string, int> labels;
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
          if (i.imm < 0 || i.imm % 8 != 0 || i.imm + 8 > f.frame)
            return fail(i.line, "slot offset " + std::to_string(i.imm) + " outside the " +
                                    std::to_string(f.frame) + "-byte frame of " + f.name);
          break;
        default:
          break;
      }
    }
  }
  return true;
}

}  // namespace safepoint::ir
