#include "oracle/save_area.h"

#include <cstring>

#include "core/ir.h"

namespace safepoint::oracle {
namespace {

bool FlagHolds(const SavedReg& r, uint64_t v, const TrapState& want) {
  return (v & r.setflags_mask) == (want.setflags & r.setflags_mask);
}

}  // namespace

std::vector<std::string> CheckFrame(const PortInfo& port, const uint8_t* frame, const TrapState& want) {
  std::vector<std::string> bad;
  for (size_t i = 0; i < port.ir_regs.size(); i++)
    for (const SavedReg& r : port.saved_regs) {
      if (r.name != port.ir_regs[i] || r.kind != SavedReg::kGeneral) continue;
      uint64_t v;
      memcpy(&v, frame + r.offset, 8);
      if (v != static_cast<uint64_t>(want.fillregs_seed + static_cast<int64_t>(i))) bad.push_back(std::string(r.name));
    }
  for (const SavedReg* r : FlagRegs(port)) {
    uint64_t v;
    memcpy(&v, frame + r->offset, 8);
    if (!FlagHolds(*r, v, want)) bad.push_back(std::string(r->name));
  }
  return bad;
}

std::vector<std::string> CheckExtendedState(const PortInfo& port, int tier, const uint8_t* area,
                                            const TrapState& want) {
  std::vector<std::string> bad;
  for (const SavedReg& r : port.saved_regs) {
    if (r.kind != SavedReg::kVector || r.tier != tier) continue;
    for (uint32_t off = r.offset; off < r.offset + r.size; off += 8) {
      uint64_t v;
      memcpy(&v, area + off, 8);
      if (v != ir::VectorPattern(want.vfill_seed, static_cast<int>(off / 8))) {
        bad.push_back(std::string(r.name));
        break;
      }
    }
  }
  return bad;
}

std::vector<std::string> CheckFlagsDump(const PortInfo& port, const uint64_t* words, const TrapState& want) {
  std::vector<std::string> bad;
  std::vector<const SavedReg*> flags = FlagRegs(port);
  for (size_t i = 0; i < flags.size(); i++)
    if (!FlagHolds(*flags[i], words[i], want)) bad.push_back(std::string(flags[i]->name));
  return bad;
}

}  // namespace safepoint::oracle
