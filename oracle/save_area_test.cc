// The save-area oracle on frames and extended states built from each port's
// table: a save area that holds the trap-time registers passes, and each
// register written wrongly, in any byte of a vector, in any bit a flag
// register's setflags_mask covers, or at half its width, is reported by
// name (so the oracle can fail), on every port, on any host.
#include "oracle/save_area.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "core/ir.h"

namespace safepoint::oracle {
namespace {

// Every flag register of every port gets both ones and zeros on its mask:
// rflags CF PF ZF SF OF set, AF clear; NZCV 1010; FPSR IOC OFC IDC QC;
// FPCR FZ AHP; FCCs 0 2 6 7; FCSR0 Flags 0x0A, Cause 0x0D; fflags NX OF.
constexpr TrapState kWant{0x5100, 77, 0xAD0A08C5};

std::vector<uint8_t> GoodFrame(const PortInfo& p) {
  std::vector<uint8_t> f(p.async_frame + 64, 0);
  for (size_t i = 0; i < p.ir_regs.size(); i++)
    for (const SavedReg& r : p.saved_regs)
      if (r.kind == SavedReg::kGeneral && r.name == p.ir_regs[i]) {
        uint64_t v = kWant.fillregs_seed + static_cast<int64_t>(i);
        memcpy(&f[r.offset], &v, 8);
      }
  for (const SavedReg* r : FlagRegs(p)) {
    uint64_t v = kWant.setflags & r->setflags_mask;
    memcpy(&f[r->offset], &v, 8);
  }
  return f;
}

std::vector<uint8_t> GoodXState(const PortInfo& p, int tier) {
  std::vector<uint8_t> x(p.tiers[tier].scratch_bytes + 64, 0);
  for (const SavedReg& r : p.saved_regs)
    if (r.kind == SavedReg::kVector && r.tier == tier)
      for (uint32_t off = r.offset; off < r.offset + r.size; off += 8) {
        uint64_t v = ir::VectorPattern(kWant.vfill_seed, static_cast<int>(off / 8));
        memcpy(&x[off], &v, 8);
      }
  return x;
}

using Names = std::vector<std::string>;

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
        EXPECT_EQ(CheckFrame(*p, bad.data(), kWant), Names{std::string(r.name)}) << p->name;
      }
  }
}

// Every byte of every vector register of every tier is compared: a wrong
// byte anywhere names its register, and only it.
TEST(SaveAreaOracle, ComparesEveryByteOfEveryVectorRegisterOfEveryTier) {
  for (const PortInfo* p : AllPorts()) {
    if (!p->async_preemption()) continue;
    for (size_t t = 0; t < p->tiers.size(); t++) {
      int tier = static_cast<int>(t);
      std::vector<uint8_t> x = GoodXState(*p, tier);
      EXPECT_TRUE(CheckExtendedState(*p, tier, x.data(), kWant).empty()) << p->name << " tier " << t;
      int regs = 0;
      for (const SavedReg& r : p->saved_regs) {
        if (r.kind != SavedReg::kVector || r.tier != t) continue;
        regs++;
        for (uint32_t b = 0; b < r.size; b++) {
          std::vector<uint8_t> bad = x;
          bad[r.offset + b] ^= 0x80;
          EXPECT_EQ(CheckExtendedState(*p, tier, bad.data(), kWant), Names{std::string(r.name)})
              << p->name << " tier " << t << " byte " << b;
        }
      }
      EXPECT_GT(regs, 0) << p->name << " tier " << t << " saves no vector register";
    }
  }
}

// A save at half width (the upper half of each slot left as it was: zero,
// or a different vfill's) names every register of the tier.
TEST(SaveAreaOracle, NamesEveryRegisterSavedAtHalfWidth) {
  constexpr TrapState kOther{0x5100, 78, 0};
  for (const PortInfo* p : AllPorts()) {
    if (!p->async_preemption()) continue;
    for (size_t t = 0; t < p->tiers.size(); t++) {
      int tier = static_cast<int>(t);
      std::vector<uint8_t> zero = GoodXState(*p, tier), stale = zero;
      Names all;
      for (const SavedReg& r : p->saved_regs) {
        if (r.kind != SavedReg::kVector || r.tier != t) continue;
        all.push_back(std::string(r.name));
        for (uint32_t b = r.size / 2; b < r.size; b++) {
          zero[r.offset + b] = 0;
          uint64_t w = ir::VectorPattern(kOther.vfill_seed, static_cast<int>((r.offset + b) / 8));
          stale[r.offset + b] = static_cast<uint8_t>(w >> (8 * ((r.offset + b) % 8)));
        }
      }
      EXPECT_EQ(CheckExtendedState(*p, tier, zero.data(), kWant), all) << p->name << " tier " << t;
      EXPECT_EQ(CheckExtendedState(*p, tier, stale.data(), kWant), all) << p->name << " tier " << t;
    }
  }
}

// Every flag and control register of every port is compared, on every bit
// of its setflags_mask and on no other.
TEST(SaveAreaOracle, ComparesEveryFlagRegisterOnTheBitsSetflagsControls) {
  for (const PortInfo* p : AllPorts()) {
    if (!p->async_preemption()) continue;
    EXPECT_FALSE(FlagRegs(*p).empty()) << p->name << " saves no flag register";
    std::vector<uint8_t> good = GoodFrame(*p);
    for (const SavedReg* r : FlagRegs(*p)) {
      std::vector<uint8_t> f = good;
      uint64_t v;
      memcpy(&v, &f[r->offset], 8);
      uint64_t outside = v ^ ~r->setflags_mask;  // every other bit flipped
      memcpy(&f[r->offset], &outside, 8);
      EXPECT_TRUE(CheckFrame(*p, f.data(), kWant).empty()) << p->name << " " << r->name << ": bits outside the mask";
      for (int bit = 0; bit < 64; bit++) {
        if (!(r->setflags_mask >> bit & 1)) continue;
        uint64_t inside = v ^ (uint64_t{1} << bit);
        memcpy(&f[r->offset], &inside, 8);
        EXPECT_EQ(CheckFrame(*p, f.data(), kWant), Names{std::string(r->name)}) << p->name << " bit " << bit;
      }
    }
  }
}

TEST(SaveAreaOracle, ChecksWhatFlagsdumpStored) {
  for (const PortInfo* p : AllPorts()) {
    std::vector<const SavedReg*> flags = FlagRegs(*p);
    std::vector<uint64_t> g(ir::kFlagsWords, 0);
    for (size_t i = 0; i < flags.size(); i++) g[i] = (kWant.setflags & flags[i]->setflags_mask) | ~flags[i]->setflags_mask;
    EXPECT_TRUE(CheckFlagsDump(*p, g.data(), kWant).empty()) << p->name;
    for (size_t i = 0; i < flags.size(); i++) {
      std::vector<uint64_t> bad = g;
      bad[i] ^= flags[i]->setflags_mask & -flags[i]->setflags_mask;  // its lowest controlled bit
      EXPECT_EQ(CheckFlagsDump(*p, bad.data(), kWant), Names{std::string(flags[i]->name)}) << p->name;
    }
  }
}

// The layouts the oracle and vfill/vdump share: whole 64-bit words, inside
// the tier's scratch bytes and a vdump area, within the words VectorPattern
// keeps distinct; every flag register has a mask, and flagsdump's globals
// hold them all.
TEST(SaveAreaOracle, EveryPortsLayoutFitsTheIR) {
  for (const PortInfo* p : AllPorts()) {
    for (const SavedReg& r : p->saved_regs) {
      if (r.kind == SavedReg::kFlags) EXPECT_NE(r.setflags_mask, 0u) << p->name << " " << r.name;
      if (r.kind != SavedReg::kVector) continue;
      ASSERT_LT(r.tier, p->tiers.size()) << p->name << " " << r.name;
      EXPECT_EQ(r.offset % 8, 0u) << p->name << " " << r.name;
      EXPECT_EQ(r.size % 8, 0u) << p->name << " " << r.name;
      EXPECT_LE(r.offset + r.size, p->tiers[r.tier].scratch_bytes) << p->name << " " << r.name;
      EXPECT_LE(r.offset + r.size, static_cast<uint32_t>(ir::kVDumpBytes)) << p->name << " " << r.name;
      EXPECT_LE(r.offset + r.size, 255u * 8) << p->name << " " << r.name;
    }
    EXPECT_LE(FlagRegs(*p).size(), static_cast<size_t>(ir::kFlagsWords)) << p->name;
  }
}

// The fuzzer's form: a save area against the registers a trap's signal
// context held (RegisterImage), for programs that set no known pattern.
struct TrapCase {
  std::vector<uint8_t> frame, xstate;
  RegisterImage trap;
};
TrapCase MatchingTrap(const PortInfo& p, int tier) {
  TrapCase c;
  c.frame.assign(p.async_frame, 0);
  c.xstate.assign(p.tiers[tier].scratch_bytes, 0);
  c.trap.count = p.saved_regs.size();
  for (size_t i = 0; i < p.saved_regs.size(); i++) {
    const SavedReg& r = p.saved_regs[i];
    std::vector<uint8_t>& area = r.kind == SavedReg::kVector ? c.xstate : c.frame;
    if (r.kind == SavedReg::kVector && r.tier != tier) continue;
    c.trap.known[i] = static_cast<uint8_t>(r.size);
    for (uint32_t b = 0; b < r.size; b++) {
      uint8_t v = static_cast<uint8_t>(0x11 * (i + 1) + 7 * b);
      if (r.kind == SavedReg::kFlags) v &= static_cast<uint8_t>(r.setflags_mask >> (8 * (b % 8)));
      c.trap.bytes[i][b] = area[r.offset + b] = v;
    }
  }
  return c;
}

TEST(SaveAreaOracle, ComparesTheSaveAreaWithTheTrapsRegisters) {
  for (const PortInfo* p : AllPorts()) {
    if (!p->async_preemption()) continue;
    for (int tier = 0; tier < static_cast<int>(p->tiers.size()); tier++) {
      SCOPED_TRACE(std::string(p->name) + " tier " + std::to_string(tier));
      ASSERT_LE(p->saved_regs.size(), RegisterImage::kMaxRegs);
      TrapCase c = MatchingTrap(*p, tier);
      size_t compared = 0, want = 0;
      for (const SavedReg& r : p->saved_regs) want += r.kind != SavedReg::kVector || r.tier == tier;
      EXPECT_TRUE(CheckAgainstTrap(*p, c.frame, tier, c.xstate, c.trap, &compared).empty());
      EXPECT_EQ(compared, want);
      for (size_t i = 0; i < p->saved_regs.size(); i++) {
        const SavedReg& r = p->saved_regs[i];
        if (c.trap.known[i] == 0) continue;
        // The last byte it holds, wrong: named, with both values.
        TrapCase bad = c;
        std::vector<uint8_t>& area = r.kind == SavedReg::kVector ? bad.xstate : bad.frame;
        uint32_t at = r.size - 1;
        if (r.kind == SavedReg::kFlags) at = (63 - __builtin_clzll(r.setflags_mask)) / 8;
        area[r.offset + at] ^= static_cast<uint8_t>(r.kind == SavedReg::kFlags ? r.setflags_mask >> (8 * at) : 0x80);
        std::vector<std::string> got = CheckAgainstTrap(*p, bad.frame, tier, bad.xstate, bad.trap, &compared);
        ASSERT_EQ(got.size(), 1u) << r.name;
        EXPECT_EQ(got[0].rfind(std::string(r.name) + ": saved 0x", 0), 0u) << got[0];
        EXPECT_NE(got[0].find("trap had 0x"), std::string::npos) << got[0];
        // Held by the context in fewer bytes (LSX's 16 of a 32-byte
        // register, say): only those are judged.
        if (r.kind == SavedReg::kVector && r.size > 8) {
          bad.trap.known[i] = static_cast<uint8_t>(r.size / 2);
          EXPECT_TRUE(CheckAgainstTrap(*p, bad.frame, tier, bad.xstate, bad.trap, &compared).empty()) << r.name;
        }
        // Not held at all (arm64's LR slot holds the resume PC): not judged.
        bad.trap.known[i] = 0;
        EXPECT_TRUE(CheckAgainstTrap(*p, bad.frame, tier, bad.xstate, bad.trap, &compared).empty()) << r.name;
        EXPECT_EQ(compared, want - 1);
      }
      // Flag bits outside setflags_mask are the system's: never judged.
      for (const SavedReg* r : FlagRegs(*p)) {
        TrapCase other = c;
        uint64_t v;
        memcpy(&v, &other.frame[r->offset], 8);
        v ^= ~r->setflags_mask;
        memcpy(&other.frame[r->offset], &v, 8);
        EXPECT_TRUE(CheckAgainstTrap(*p, other.frame, tier, other.xstate, other.trap, &compared).empty()) << r->name;
      }
    }
  }
}

// Field by field against the trap: on every port and every tier, each byte
// each row of the port's table holds (general registers, every byte of
// every vector lane, each bit a flag register's setflags_mask covers), and
// each byte of the interrupted link register, changed alone in a save area
// that otherwise holds the trap's registers, names that register and no
// other. A row added to a port's table is covered here without a new test.
TEST(SaveAreaOracle, EachByteOfEachRowChangedAloneNamesItsRegisterAlone) {
  size_t rows = 0;
  for (const PortInfo* p : AllPorts()) {
    if (!p->async_preemption()) continue;
    for (int tier = 0; tier < static_cast<int>(p->tiers.size()); tier++) {
      SCOPED_TRACE(std::string(p->name) + " tier " + std::to_string(tier));
      TrapCase good = MatchingTrap(*p, tier);
      const uint32_t slot = p->async_frame - p->pushcall_bytes;
      const bool lr = !p->link_reg.empty();
      if (lr) {
        good.trap.link_known = true;
        good.trap.link = 0x8877665544332211ull;
        memcpy(&good.frame[slot], &good.trap.link, 8);
      }
      size_t compared = 0, want = lr ? 1 : 0;
      for (const SavedReg& r : p->saved_regs) want += r.kind != SavedReg::kVector || r.tier == tier;
      ASSERT_TRUE(CheckAgainstTrap(*p, good.frame, tier, good.xstate, good.trap, &compared).empty());
      ASSERT_EQ(compared, want);
      // One changed byte (of the frame or the extended state), and what
      // must be named for it.
      auto expect_named = [&](bool in_xstate, uint32_t at, uint8_t flip, const std::string& name) {
        TrapCase bad = good;
        (in_xstate ? bad.xstate : bad.frame)[at] ^= flip;
        std::vector<std::string> got = CheckAgainstTrap(*p, bad.frame, tier, bad.xstate, bad.trap, &compared);
        ASSERT_EQ(got.size(), 1u) << name << ": byte at " << at << " named " << got.size() << " registers";
        EXPECT_EQ(got[0].rfind(name, 0), 0u) << got[0];
      };
      for (size_t i = 0; i < p->saved_regs.size(); i++) {
        const SavedReg& r = p->saved_regs[i];
        if (r.kind == SavedReg::kVector && r.tier != tier) continue;
        SCOPED_TRACE(r.name);
        rows++;
        const std::string name = std::string(r.name) + ": saved 0x";
        for (uint32_t b = 0; b < r.size; b++) {
          if (r.kind != SavedReg::kFlags) {
            expect_named(r.kind == SavedReg::kVector, r.offset + b, 0x01, name);
            continue;
          }
          for (int bit = 0; bit < 8; bit++) {
            const uint8_t m = static_cast<uint8_t>(1u << bit);
            if (b < 8 && (r.setflags_mask >> (8 * b) & m)) expect_named(false, r.offset + b, m, name);
          }
        }
      }
      if (lr)
        for (uint32_t b = 0; b < 8; b++)
          expect_named(false, slot + b, 0x01, std::string(p->link_reg) + " (the interrupted link register");
    }
  }
  EXPECT_GT(rows, 0u);
}

// On a port with a link register, pushCall keeps the interrupted one in its
// slot at the top of asyncPreempt's frame (no table row holds it): judged
// there against the trap's, and named when wrong.
TEST(SaveAreaOracle, ComparesTheInterruptedLinkRegisterInPushCallsSlot) {
  int ports = 0;
  for (const PortInfo* p : AllPorts()) {
    if (!p->async_preemption() || p->link_reg.empty()) continue;
    SCOPED_TRACE(p->name);
    ports++;
    const uint32_t slot = p->async_frame - p->pushcall_bytes;
    // The slot is no row's: asyncPreempt's own saves never overwrite it.
    for (const SavedReg& r : p->saved_regs)
      if (r.kind != SavedReg::kVector) EXPECT_TRUE(r.offset + r.size <= slot || r.offset >= slot + 8) << r.name;
    TrapCase c = MatchingTrap(*p, 0);
    c.trap.link_known = true;
    c.trap.link = 0x0123456789abcdefull;
    memcpy(&c.frame[slot], &c.trap.link, 8);
    size_t compared = 0, rows = 0;
    for (const SavedReg& r : p->saved_regs) rows += r.kind != SavedReg::kVector || r.tier == 0;
    EXPECT_TRUE(CheckAgainstTrap(*p, c.frame, 0, c.xstate, c.trap, &compared).empty());
    EXPECT_EQ(compared, rows + 1);
    c.frame[slot + 7] ^= 0x40;
    std::vector<std::string> got = CheckAgainstTrap(*p, c.frame, 0, c.xstate, c.trap, &compared);
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0].rfind(std::string(p->link_reg) + " (the interrupted link register", 0), 0u) << got[0];
    // Not known (a port without one, or no trap): not judged.
    c.trap.link_known = false;
    EXPECT_TRUE(CheckAgainstTrap(*p, c.frame, 0, c.xstate, c.trap, &compared).empty());
    EXPECT_EQ(compared, rows);
  }
  EXPECT_GE(ports, 3) << "arm64, loong64 and riscv64 have a link register";
}

}  // namespace
}  // namespace safepoint::oracle
