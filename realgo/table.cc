#include "realgo/table.h"

#include <algorithm>
#include <set>

#include "platforms/common/disasm.h"

namespace safepoint::realgo {

bool GoFuncTable(const GoBinary& bin, const PortInfo& port, FuncTable* out, std::string* err) {
  *out = FuncTable{};
  if (port.go.call_before == nullptr) {
    *err = "port " + std::string(port.name) + " does not say how Go's calls look";
    return false;
  }
  const bool lr = port.go.gdb_lr >= 0;
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
    // Calls: every return address whose preceding bytes are a call Go emits.
    std::vector<uint8_t> code(g.end - g.entry);
    if (!bin.ReadVirtual(g.entry, code.data(), code.size())) {
      *err = "the text of " + g.name + " is not in the file";
      return false;
    }
    const uint32_t q = bin.pc_quantum();
    for (size_t ra = q; ra <= code.size(); ra += q) {
      uint32_t len = port.go.call_before(code.data() + ra, ra);
      if (len == 0 || len > ra) continue;
      uint32_t call = f.entry + static_cast<uint32_t>(ra - len);
      f.call_sites.push_back(call);
      insns.insert(call);
      insns.insert(f.entry + static_cast<uint32_t>(ra));
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
