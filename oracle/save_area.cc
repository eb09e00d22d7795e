#include "oracle/save_area.h"

#include <cstring>

#include "core/ir.h"

namespace safepoint::oracle {

std::vector<std::string> CheckFrame(const PortInfo& port, const uint8_t* frame, const TrapState& want) {
  std::vector<std::string> bad;
  for (size_t i = 0; i < port.ir_regs.size(); i++)
    for (const SavedReg& r : port.saved_regs) {
      if (r.name != port.ir_regs[i] || r.kind != SavedReg::kGeneral) continue;
      uint64_t v;
      memcpy(&v, frame + r.offset, 8);
      if (v != static_cast<uint64_t>(want.fillregs_seed + static_cast<int64_t>(i))) bad.push_back(std::string(r.name));
    }
  for (const SavedReg& r : port.saved_regs) {
    if (r.kind != SavedReg::kFlags || r.name != port.setflags_reg) continue;
    uint64_t v;
    memcpy(&v, frame + r.offset, 8);
    if ((v & port.setflags_mask) != (want.setflags & port.setflags_mask)) bad.push_back(std::string(r.name));
  }
  return bad;
}

std::vector<std::string> CheckExtendedState(const PortInfo& port, int tier, const uint8_t* xstate,
                                            const TrapState& want) {
  std::vector<std::string> bad;
  for (const SavedReg& r : port.saved_regs) {
    if (r.kind != SavedReg::kVector || r.tier != tier || r.size < 16) continue;
    int idx = static_cast<int>(r.offset / r.size);
    uint64_t lo, hi;
    memcpy(&lo, xstate + r.offset, 8);
    memcpy(&hi, xstate + r.offset + 8, 8);
    if (lo != ir::VectorPattern(want.vfill_seed, idx, 0) || hi != ir::VectorPattern(want.vfill_seed, idx, 1))
      bad.push_back(std::string(r.name));
  }
  return bad;
}

}  // namespace safepoint::oracle
