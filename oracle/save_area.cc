#include "oracle/save_area.h"

#include <cstring>

#include "core/hex.h"
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

std::vector<std::string> CheckAgainstTrap(const PortInfo& port, const std::vector<uint8_t>& frame, int tier,
                                          const std::vector<uint8_t>& xstate, const RegisterImage& trap,
                                          size_t* compared) {
  std::vector<std::string> bad;
  *compared = 0;
  for (size_t i = 0; i < port.saved_regs.size() && i < trap.count; i++) {
    const SavedReg& r = port.saved_regs[i];
    size_t n = trap.known[i];
    if (n == 0 || (r.kind == SavedReg::kVector && r.tier != tier)) continue;
    const std::vector<uint8_t>& area = r.kind == SavedReg::kVector ? xstate : frame;
    if (r.offset + n > area.size()) continue;
    const uint8_t* saved = area.data() + r.offset;
    const uint8_t* want = trap.bytes[i];
    bool same;
    if (r.kind == SavedReg::kFlags) {
      uint64_t s = 0, w = 0;
      memcpy(&s, saved, n < 8 ? n : 8);
      memcpy(&w, want, n < 8 ? n : 8);
      same = ((s ^ w) & r.setflags_mask) == 0;
    } else {
      same = memcmp(saved, want, n) == 0;
    }
    ++*compared;
    if (!same) bad.push_back(std::string(r.name) + ": saved " + HexLe(saved, n) + ", trap had " + HexLe(want, n));
  }
  const uint32_t slot = port.async_frame - port.pushcall_bytes;
  if (trap.link_known && port.pushcall_bytes >= 8 && port.async_frame >= port.pushcall_bytes &&
      frame.size() >= slot + 8) {
    const uint8_t* want = reinterpret_cast<const uint8_t*>(&trap.link);
    ++*compared;
    if (memcmp(frame.data() + slot, want, 8) != 0)
      bad.push_back(std::string(port.link_reg) + " (the interrupted link register, in pushCall's slot): saved " +
                    HexLe(frame.data() + slot, 8) + ", trap had " + HexLe(want, 8));
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
