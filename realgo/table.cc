#include "realgo/table.h"

#include <algorithm>
#include <set>

#include "platforms/common/disasm.h"

namespace safepoint::realgo {

namespace {

// The instruction starts in [entry, end), from the whole text's decoding
// when it is in step at the entry (padding between functions decodes as
// instructions of its own), else from the function decoded alone.
bool Boundaries(const GoBinary& bin, const PortInfo& port, const std::vector<GoInsn>& all, uint64_t entry,
                uint64_t end, std::vector<uint64_t>* out, std::string* err) {
  out->clear();
  auto it = std::lower_bound(all.begin(), all.end(), entry, [](const GoInsn& i, uint64_t pc) { return i.pc < pc; });
  if (it != all.end() && it->pc == entry) {
    for (; it != all.end() && it->pc < end; ++it) out->push_back(it->pc);
    return true;
  }
  std::vector<GoInsn> own;
  if (!GoInstructions(bin, port, entry, end, &own, err)) return false;
  for (const GoInsn& i : own)
    if (i.pc >= entry && i.pc < end) out->push_back(i.pc);
  return true;
}

}  // namespace

bool GoFuncTable(const GoBinary& bin, const PortInfo& port, FuncTable* out, std::string* err) {
  *out = FuncTable{};
  if (port.go.call_before == nullptr) {
    *err = "port " + std::string(port.name) + " does not say how Go's calls look";
    return false;
  }
  const bool lr = port.go.gdb_lr >= 0;
  // Where every instruction has one length and the binary's PCs step by
  // it (arm64, loong64, riscv64 before Go compressed it), every aligned
  // position is an instruction: its bytes say whether it is a call. Else
  // the instructions of the whole text, decoded once.
  const uint32_t q = bin.pc_quantum();
  const bool by_bytes = q >= port.insn_max_len && port.insn_align == port.insn_max_len;
  uint64_t lo = UINT64_MAX, hi = 0;
  for (const GoFunc& g : bin.funcs())
    if (g.end > g.entry) lo = std::min(lo, g.entry), hi = std::max(hi, g.end);
  std::vector<GoInsn> all;
  if (!by_bytes && hi > lo && !GoInstructions(bin, port, lo, hi, &all, err)) return false;
  std::set<uint32_t> insns;
  for (const GoFunc& g : bin.funcs()) {
    if (g.end > UINT32_MAX || g.end <= g.entry) {
      if (g.end > UINT32_MAX) {
        *err = "function " + g.name + " lies beyond 4 GiB";
        return false;
      }
      continue;
    }
    FuncInfo f;
    f.name = g.name;
    size_t dot = g.name.rfind('/');
    dot = g.name.find('.', dot == std::string::npos ? 0 : dot);
    f.package = dot == std::string::npos ? "" : g.name.substr(0, dot);
    f.entry = static_cast<uint32_t>(g.entry);
    f.end = static_cast<uint32_t>(g.end);
    if (g.asm_) f.flags |= kFuncAsm;
    uint64_t from = g.entry;
    for (const PcRun& r : g.pcsp) {
      if (r.end <= from) continue;
      f.pcsp.push_back({static_cast<uint32_t>(from), r.value, lr && r.value > 0});
      f.max_sp_delta = std::max(f.max_sp_delta, r.value);
      from = r.end;
    }
    if (f.pcsp.empty()) f.pcsp.push_back({f.entry, 0, false});
    // Calls: every instruction the disassembler decodes whose bytes are a
    // call by the port's account. Bytes alone are not enough on a
    // variable-length CPU: an amd64 immediate or displacement can hold
    // what looks like a call ending at a real instruction's end (found by
    // fuzz:go_preempt_fuzz: a real return address judged "no return site").
    std::vector<uint8_t> code(g.end - g.entry);
    if (!bin.ReadVirtual(g.entry, code.data(), code.size())) {
      *err = "the text of " + g.name + " is not in the file";
      return false;
    }
    std::vector<uint64_t> starts;
    if (by_bytes) {
      for (uint64_t pc = g.entry; pc < g.end; pc += q) starts.push_back(pc);
    } else if (!Boundaries(bin, port, all, g.entry, g.end, &starts, err)) {
      return false;
    }
    for (size_t i = 0; i < starts.size(); i++) {
      const uint64_t end = i + 1 < starts.size() ? starts[i + 1] : g.end;
      const uint32_t len = static_cast<uint32_t>(end - starts[i]);
      if (port.go.call_before(code.data() + (end - g.entry), len) != len) continue;
      uint32_t call = static_cast<uint32_t>(starts[i]);
      f.call_sites.push_back(call);
      f.return_sites.push_back(static_cast<uint32_t>(end));
      insns.insert(call);
      insns.insert(static_cast<uint32_t>(end));
    }
    out->funcs.push_back(std::move(f));
  }
  std::sort(out->funcs.begin(), out->funcs.end(), [](const FuncInfo& a, const FuncInfo& b) { return a.entry < b.entry; });
  out->insns.assign(insns.begin(), insns.end());
  out->insn_op.assign(out->insns.size(), -1);
  return true;
}

bool GoInstructions(const GoBinary& bin, const PortInfo& port, uint64_t lo, uint64_t hi, std::vector<GoInsn>* out,
                    std::string* err) {
  out->clear();
  if (hi <= lo) return true;
  std::vector<uint8_t> code(hi - lo);
  if (!bin.ReadVirtual(lo, code.data(), code.size())) {
    *err = "the text at 0x" + std::to_string(lo) + " is not in the file";
    return false;
  }
  std::vector<DisasmLine> lines;
  if (!Disassemble(std::string(port.name), code, &lines, err)) return false;
  for (const DisasmLine& l : lines) out->push_back({lo + l.offset, l.text});
  return true;
}

}  // namespace safepoint::realgo
