// The save-area oracle on frames built from each port's table: a frame that
// holds the trap-time registers passes, and each register written wrongly
// is reported by name (so the oracle can fail), on every port, on any host.
#include "oracle/save_area.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "core/ir.h"

namespace safepoint::oracle {
namespace {

constexpr TrapState kWant{0x5100, 77, 0x8C5};

std::vector<uint8_t> GoodFrame(const PortInfo& p) {
  std::vector<uint8_t> f(p.async_frame + 64, 0);
  for (size_t i = 0; i < p.ir_regs.size(); i++)
    for (const SavedReg& r : p.saved_regs)
      if (r.kind == SavedReg::kGeneral && r.name == p.ir_regs[i]) {
        uint64_t v = kWant.fillregs_seed + static_cast<int64_t>(i);
        memcpy(&f[r.offset], &v, 8);
      }
  for (const SavedReg& r : p.saved_regs)
    if (r.kind == SavedReg::kFlags && r.name == p.setflags_reg) memcpy(&f[r.offset], &kWant.setflags, 8);
  return f;
}

std::vector<uint8_t> GoodXState(const PortInfo& p, int tier) {
  std::vector<uint8_t> x(p.tiers[tier].scratch_bytes + 64, 0);
  for (const SavedReg& r : p.saved_regs)
    if (r.kind == SavedReg::kVector && r.tier == tier && r.size >= 16) {
      int idx = static_cast<int>(r.offset / r.size);
      uint64_t lo = ir::VectorPattern(kWant.vfill_seed, idx, 0), hi = ir::VectorPattern(kWant.vfill_seed, idx, 1);
      memcpy(&x[r.offset], &lo, 8);
      memcpy(&x[r.offset + 8], &hi, 8);
    }
  return x;
}

TEST(SaveAreaOracle, AcceptsTheTrapTimeRegistersAndNamesEachWrongOne) {
  ASSERT_FALSE(AllPorts().empty());
  for (const PortInfo* p : AllPorts()) {
    if (!p->async_preemption()) continue;
    std::vector<uint8_t> f = GoodFrame(*p);
    EXPECT_TRUE(CheckFrame(*p, f.data(), kWant).empty()) << p->name;
    for (size_t i = 0; i < p->ir_regs.size(); i++)
      for (const SavedReg& r : p->saved_regs) {
        if (r.kind != SavedReg::kGeneral || r.name != p->ir_regs[i]) continue;
        std::vector<uint8_t> bad = f;
        bad[r.offset] ^= 1;
        EXPECT_EQ(CheckFrame(*p, bad.data(), kWant), std::vector<std::string>{std::string(r.name)}) << p->name;
      }
    for (size_t t = 0; t < p->tiers.size(); t++) {
      std::vector<uint8_t> x = GoodXState(*p, static_cast<int>(t));
      EXPECT_TRUE(CheckExtendedState(*p, static_cast<int>(t), x.data(), kWant).empty()) << p->name << " tier " << t;
      int checked = 0;
      for (const SavedReg& r : p->saved_regs) {
        if (r.kind != SavedReg::kVector || r.tier != t || r.size < 16) continue;
        std::vector<uint8_t> bad = x;
        bad[r.offset + 9] ^= 0x80;
        EXPECT_EQ(CheckExtendedState(*p, static_cast<int>(t), bad.data(), kWant),
                  std::vector<std::string>{std::string(r.name)})
            << p->name;
        checked++;
      }
      EXPECT_GT(checked, 0) << p->name << " tier " << t << " saves no vector register vfill sets";
    }
  }
}

TEST(SaveAreaOracle, ComparesOnlyTheFlagBitsSetflagsControls) {
  for (const PortInfo* p : AllPorts()) {
    if (p->setflags_reg.empty()) continue;
    std::vector<uint8_t> f = GoodFrame(*p);
    for (const SavedReg& r : p->saved_regs)
      if (r.kind == SavedReg::kFlags && r.name == p->setflags_reg) {
        uint64_t v;
        memcpy(&v, &f[r.offset], 8);
        uint64_t outside = v ^ ~p->setflags_mask;  // every other bit flipped
        memcpy(&f[r.offset], &outside, 8);
        EXPECT_TRUE(CheckFrame(*p, f.data(), kWant).empty()) << p->name << ": bits outside the mask";
        uint64_t inside = v ^ (p->setflags_mask & -p->setflags_mask);  // the lowest controlled bit
        memcpy(&f[r.offset], &inside, 8);
        EXPECT_EQ(CheckFrame(*p, f.data(), kWant), std::vector<std::string>{std::string(r.name)}) << p->name;
      }
  }
}

}  // namespace
}  // namespace safepoint::oracle
