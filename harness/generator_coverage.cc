// GeneratorCoverage (generator.h): the shapes a set of programs has, read
// back from their text alone, never from the generator's own bookkeeping.
#include <algorithm>
#include <cstdio>
#include <set>
#include <sstream>

#include "core/ir.h"
#include "harness/generator.h"

namespace safepoint::harness {
namespace {

constexpr const char* kOp = "operation";
constexpr const char* kAttr = "attribute";
constexpr const char* kControl = "control";
constexpr const char* kPointer = "pointer";
constexpr const char* kFrame = "frame";

// A frame just large enough that calling it from a fresh 2 KB stack fails
// the callee's stack check (2048 - StackGuard 928 + StackSmall 128 - the two
// return-address words): caller's and callee's locals together.
constexpr int kGrowsInitialStack = 1232;

// Control and data shapes, in the report's order.
const char* const kEarlyReturn = "code after a ret, reached by a branch (an early return)";
const char* const kBranchAroundCall = "a conditional branch around a call";
const char* const kLoop = "a backward branch (a loop)";
const char* const kJumpOver = "an unconditional jump over code";
const char* const kCallsNosplit = "a call of a nosplit function";
const char* const kInline2 = "inlined bodies nested two deep";
const char* const kInline3 = "inlined bodies nested three deep";
const char* const kGoInLoop = "goroutines started in a loop";
const char* const kStackArgAtGrow = "a stack address in r0 (the argument) at a call whose frame grows the stack";
const char* const kStackRegAcrossGrow = "a stack address kept in r0 across a call that grows the stack, read through";
const char* const kStackSlotAcrossGrow =
    "a stack address in a declared pointer slot across a call that grows the stack, read through";
const char* const kStackSlotAcrossGc =
    "a stack address in a declared pointer slot across a collection (gc), read through";
const char* const kHeapSlotAcrossGrow =
    "a heap pointer in a declared pointer slot across a call that grows the stack, read through";
const char* const kHeapSlotAcrossGc = "a heap pointer in a declared pointer slot across a collection (gc), read through";

std::string Band(int limit, bool past, bool leaf) {
  char b[96];
  if (past)
    snprintf(b, sizeof b, "%d..%d, just past %d, %s", limit + 8, std::min(limit + 16, ir::kMaxFrame), limit,
             leaf ? "leaf" : "non-leaf");
  else
    snprintf(b, sizeof b, "%d..%d, at %d, %s", std::max(limit - 16, 0), limit, limit, leaf ? "leaf" : "non-leaf");
  return b;
}

// The operations that write their rD.
bool WritesRd(ir::Op op) {
  using ir::Op;
  switch (op) {
    case Op::kMovi: case Op::kAddi: case Op::kMuli: case Op::kAdd: case Op::kMov: case Op::kLdGlobal:
    case Op::kLdSlot: case Op::kSumRegs: case Op::kUseTmp: case Op::kLdMem: case Op::kAddrSlot:
      return true;
    default:
      return false;
  }
}

bool WritesR0(const ir::Insn& i) {
  using ir::Op;
  if (i.op == Op::kCall || i.op == Op::kService || i.op == Op::kFillRegs) return true;
  return WritesRd(i.op) && i.rd == 0;
}

}  // namespace

GeneratorCoverage::GeneratorCoverage() {
  for (const std::string& w : ir::OperationNames()) {
    size_t k = RowIndex(kOp, w);
    if (w == "flagsdump")
      rows_[k].never = "stores the port's own flag registers in globals: outside the interpreter's subset";
    if (w == "callback") rows_[k].never = "runs a test hook the program cannot define: outside the interpreter's subset";
  }
  for (const char* a : {"frame=", "nosplit", "asm", "nongo", "restartatentry", "args=", "ptrs=", "inline",
                        "a runtime-package function"})
    RowIndex(kAttr, a);
  for (const char* c : {kEarlyReturn, kBranchAroundCall, kLoop, kJumpOver, kCallsNosplit, kInline2, kInline3, kGoInLoop})
    RowIndex(kControl, c);
  for (const char* c : {kStackArgAtGrow, kStackRegAcrossGrow, kStackSlotAcrossGrow, kStackSlotAcrossGc,
                        kHeapSlotAcrossGrow, kHeapSlotAcrossGc})
    RowIndex(kPointer, c);
  for (int limit : kGeneratorFrameLimits)
    for (bool past : {false, true})
      for (bool leaf : {true, false}) RowIndex(kFrame, Band(limit, past, leaf));
}

size_t GeneratorCoverage::RowIndex(const std::string& group, const std::string& name) {
  auto it = index_.find({group, name});
  if (it != index_.end()) return it->second;
  // At the end of its group, so that rows added later stay with theirs.
  size_t at = rows_.size();
  for (size_t k = 0; k < rows_.size(); k++)
    if (rows_[k].group == group) at = k + 1;
  rows_.insert(rows_.begin() + static_cast<long>(at), Row{group, name, 0, ""});
  for (auto& [key, k] : index_)
    if (k >= at) k++;
  index_[{group, name}] = at;
  return at;
}

void GeneratorCoverage::Count(const std::string& group, const std::string& name, int64_t n) {
  rows_[RowIndex(group, name)].count += n;
}

int64_t GeneratorCoverage::Get(const std::string& group, const std::string& name) const {
  auto it = index_.find({group, name});
  return it == index_.end() ? 0 : rows_[it->second].count;
}

int64_t GeneratorCoverage::Frames(int locals, bool leaf) const {
  auto it = frames_.find({locals, leaf});
  return it == frames_.end() ? 0 : it->second;
}

std::vector<std::string> GeneratorCoverage::Gaps() const {
  std::vector<std::string> out;
  for (const Row& r : rows_)
    if (r.count == 0 && r.never.empty()) out.push_back(r.group + ": " + r.name);
  return out;
}

bool GeneratorCoverage::Add(const std::string& text, std::string* err) {
  ir::Program prog;
  if (!ir::ParseProgram(text, &prog, err)) return false;
  programs_++;
  std::set<std::pair<std::string, std::string>> hit;
  std::set<std::pair<int, bool>> frames;
  // The spellings: the first word of every statement (the parser took them).
  std::set<std::string> words;
  for (const std::string& w : ir::OperationNames()) words.insert(w);
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    line = line.substr(0, line.find('#'));
    std::istringstream ws(line);
    std::string w;
    if (ws >> w && words.count(w)) hit.insert({kOp, w});
  }
  for (const ir::Function& f : prog.funcs) {
    using ir::Op;
    bool leaf = !f.CallsAnything();
    frames.insert({f.frame, leaf});
    if (f.frame > 0) hit.insert({kAttr, "frame="});
    if (f.nosplit) hit.insert({kAttr, "nosplit"});
    if (f.is_asm) hit.insert({kAttr, "asm"});
    if (f.nongo) hit.insert({kAttr, "nongo"});
    if (f.restart_at_entry) hit.insert({kAttr, "restartatentry"});
    if (f.args > 0) hit.insert({kAttr, "args="});
    if (!f.ptr_slots.empty()) hit.insert({kAttr, "ptrs="});
    if (f.package == "runtime") hit.insert({kAttr, "a runtime-package function"});
    for (int limit : kGeneratorFrameLimits) {
      if (f.frame >= limit - 16 && f.frame <= limit) hit.insert({kFrame, Band(limit, false, leaf)});
      if (f.frame >= limit + 8 && f.frame <= limit + 16) hit.insert({kFrame, Band(limit, true, leaf)});
    }
    // Control: labels, branches, rets and calls by position.
    std::map<std::string, size_t> label_at;
    std::set<std::string> targets;
    for (size_t k = 0; k < f.body.size(); k++) {
      if (f.body[k].op == Op::kLabel) label_at[f.body[k].target] = k;
      if (f.body[k].op == Op::kJmp || f.body[k].op == Op::kJnz || f.body[k].op == Op::kJz) targets.insert(f.body[k].target);
    }
    int depth = 0;
    bool spawns = false;
    for (size_t k = 0; k < f.body.size(); k++) {
      const ir::Insn& i = f.body[k];
      if (i.op == Op::kInlineBegin) {
        depth++;
        if (depth >= 2) hit.insert({kControl, kInline2});
        if (depth >= 3) hit.insert({kControl, kInline3});
        hit.insert({kAttr, "inline"});
      }
      if (i.op == Op::kInlineEnd) depth--;
      if (i.op == Op::kRet && k + 1 < f.body.size()) {
        // Code after a ret is reached only through a label a branch names.
        for (size_t j = k + 1; j < f.body.size(); j++)
          if (f.body[j].op == Op::kLabel && targets.count(f.body[j].target) && j + 1 < f.body.size()) {
            hit.insert({kControl, kEarlyReturn});
            break;
          }
      }
      if (i.op == Op::kCall) {
        const ir::Function* c = prog.Find(i.target);
        if (c && c->nosplit) hit.insert({kControl, kCallsNosplit});
      }
      if (i.op == Op::kJmp || i.op == Op::kJnz || i.op == Op::kJz) {
        auto l = label_at.find(i.target);
        if (l == label_at.end()) continue;
        if (l->second < k) {
          hit.insert({kControl, kLoop});
          for (size_t j = l->second; j < k; j++)
            if (f.body[j].op == Op::kService && f.body[j].service == ir::Service::kGo) spawns = true;
        } else {
          bool over_code = false, over_call = false;
          for (size_t j = k + 1; j < l->second; j++) {
            over_code = over_code || f.body[j].op != Op::kLabel;
            over_call = over_call || f.body[j].op == Op::kCall;
          }
          if (i.op == Op::kJmp && over_code) hit.insert({kControl, kJumpOver});
          if (i.op != Op::kJmp && over_call) hit.insert({kControl, kBranchAroundCall});
        }
      }
    }
    if (spawns) hit.insert({kControl, kGoInLoop});
    // Pointers, along the body in order (the shapes are straight-line): what
    // each register and slot holds, and what it was held across.
    enum Kind { kNone, kStack, kHeap };
    enum Across { kRegGrow = 1, kSlotGrow = 2, kSlotGc = 4 };
    struct Val {
      Kind kind = kNone;
      int across = 0;
    };
    Val reg[ir::kPortableRegs];
    std::map<int64_t, Val> slot;
    std::set<int> declared(f.ptr_slots.begin(), f.ptr_slots.end());
    auto clobber = [&](bool keep_r0) {
      for (int r = keep_r0 ? 1 : 0; r < ir::kPortableRegs; r++) reg[r] = Val{};
    };
    auto deref = [&](int base) {
      if (base < 0) return;
      const Val& v = reg[base];
      if (v.kind == kStack && (v.across & kRegGrow)) hit.insert({kPointer, kStackRegAcrossGrow});
      if (v.kind == kStack && (v.across & kSlotGrow)) hit.insert({kPointer, kStackSlotAcrossGrow});
      if (v.kind == kStack && (v.across & kSlotGc)) hit.insert({kPointer, kStackSlotAcrossGc});
      if (v.kind == kHeap && (v.across & kSlotGrow)) hit.insert({kPointer, kHeapSlotAcrossGrow});
      if (v.kind == kHeap && (v.across & kSlotGc)) hit.insert({kPointer, kHeapSlotAcrossGc});
    };
    auto held_in_slots = [&](int bit) {
      for (auto& [off, v] : slot)
        if (v.kind != kNone && declared.count(static_cast<int>(off))) v.across |= bit;
    };
    for (const ir::Insn& i : f.body) {
      switch (i.op) {
        case Op::kAddrSlot: reg[i.rd] = Val{kStack, 0}; break;
        case Op::kMov: reg[i.rd] = reg[i.rs]; break;
        case Op::kAddi: break;  // a pointer moved within its object stays one
        case Op::kStSlot: slot[i.imm] = Val{reg[i.rs].kind, 0}; break;
        case Op::kLdSlot: reg[i.rd] = slot.count(i.imm) ? slot[i.imm] : Val{}; break;
        case Op::kLdMem: deref(i.rs), reg[i.rd] = Val{}; break;
        case Op::kStMem: deref(i.rd); break;
        case Op::kVLoad: deref(i.rs); break;
        case Op::kVStore: deref(i.rd); break;
        case Op::kCall: {
          const ir::Function* c = prog.Find(i.target);
          bool grows = c && !c->nosplit && c->frame + f.frame >= kGrowsInitialStack;
          bool keeps_r0 = c && std::none_of(c->body.begin(), c->body.end(), WritesR0);
          if (grows) {
            if (reg[0].kind == kStack) hit.insert({kPointer, kStackArgAtGrow});
            held_in_slots(kSlotGrow);
          }
          Val r0 = reg[0];
          clobber(false);
          if (keeps_r0) reg[0] = r0, reg[0].across |= grows ? kRegGrow : 0;
          break;
        }
        case Op::kService:
          if (i.service == ir::Service::kGC) held_in_slots(kSlotGc);
          clobber(false);
          if (i.service == ir::Service::kAlloc) reg[0] = Val{kHeap, 0};
          break;
        case Op::kFillRegs: clobber(false); break;
        default:
          if (WritesRd(i.op)) reg[i.rd] = Val{};
          break;
      }
    }
  }
  for (const auto& [g, n] : hit) Count(g, n);
  for (const auto& fr : frames) frames_[fr]++;
  return true;
}

std::string CoverageTable(const std::vector<std::pair<std::string, const GeneratorCoverage*>>& columns) {
  // Every row of every column, in the first column's order, then the rest.
  std::vector<std::pair<std::string, std::string>> order;
  std::map<std::pair<std::string, std::string>, std::string> never;
  for (const auto& [title, c] : columns)
    for (const GeneratorCoverage::Row& r : c->rows()) {
      std::pair<std::string, std::string> key{r.group, r.name};
      if (std::find(order.begin(), order.end(), key) == order.end()) {
        // After the last row of its group.
        auto at = order.end();
        for (auto it = order.begin(); it != order.end(); ++it)
          if (it->first == r.group) at = it + 1;
        order.insert(at, key);
      }
      if (!r.never.empty()) never[key] = r.never;
    }
  std::string out;
  char b[64];
  snprintf(b, sizeof b, "%-10s ", "group");
  out += b;
  for (const auto& [title, c] : columns) {
    snprintf(b, sizeof b, "%12s ", title.c_str());
    out += b;
  }
  out += " row\n";
  snprintf(b, sizeof b, "%-10s ", "programs");
  out += b;
  for (const auto& [title, c] : columns) {
    snprintf(b, sizeof b, "%12lld ", static_cast<long long>(c->programs()));
    out += b;
  }
  out += "\n";
  for (const auto& key : order) {
    snprintf(b, sizeof b, "%-10s ", key.first.c_str());
    out += b;
    for (const auto& [title, c] : columns) {
      bool has = false;
      for (const GeneratorCoverage::Row& r : c->rows()) has = has || (r.group == key.first && r.name == key.second);
      if (has)
        snprintf(b, sizeof b, "%12lld ", static_cast<long long>(c->Get(key.first, key.second)));
      else
        snprintf(b, sizeof b, "%12s ", "-");
      out += b;
    }
    out += " " + key.second;
    if (never.count(key)) out += "  (never: " + never[key] + ")";
    out += "\n";
  }
  return out;
}

}  // namespace safepoint::harness
