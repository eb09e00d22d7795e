// The asyncPreempt generator's contract with a port. The walk
// (platforms/mkpreempt.cc) is written once: it decides what is saved, in
// which order, and that restoring goes in reverse; a port supplies only how
// its assembler spells each step (platforms/NAME/mkpreempt.cc), from its
// SavedReg table.
#ifndef SAFEPOINT_PLATFORMS_MKPREEMPT_H_
#define SAFEPOINT_PLATFORMS_MKPREEMPT_H_

#include <memory>
#include <string>
#include <vector>

#include "platforms/port.h"

namespace safepoint {

using Regs = std::vector<const SavedReg*>;

class PreemptSpelling {
 public:
  virtual ~PreemptSpelling() = default;
  virtual const PortInfo& port() const = 0;
  // Opens function `name`: symbol and alignment, allocates the frame below
  // what pushCall left (without touching the flags), stashes the resume PC.
  virtual void Enter(const std::string& name) = 0;
  // Stores general registers in the frame, in the order given.
  virtual void SaveGenerals(const Regs& regs) = 0;
  virtual void SaveFlags(const SavedReg& r) = 0;
  // Points a saved (hence free) register at g.m.p's scratch area.
  virtual void LoadScratchBase() = 0;
  // Stores vector registers in the scratch area at their offsets: whole,
  // or (low_half, the half-vector mutation) only the low half of each, at
  // the same offset, leaving the upper half of its slot alone.
  virtual void SaveVectors(const Regs& regs, bool low_half) = 0;
  // Calls sp_mcall(sp_asyncpreempt2_g0); returns when the goroutine is resumed.
  virtual void CallAsyncPreempt2() = 0;
  // The restores get their registers in reverse save order.
  // low_half: loads only the low half of each, leaving the upper half of
  // the register as it is.
  virtual void RestoreVectors(const Regs& regs, bool low_half) = 0;
  virtual void RestoreFlags(const SavedReg& r) = 0;
  virtual void RestoreGenerals(const Regs& regs) = 0;
  // Pops the frame and returns to the resume PC; closes the function.
  virtual void Leave(const std::string& name) = 0;
};

struct PreemptSpellingRegistration {
  PreemptSpellingRegistration(std::string_view port, std::unique_ptr<PreemptSpelling> (*make)());
};
#define SAFEPOINT_REGISTER_PREEMPT_SPELLING(port, make) \
  static const ::safepoint::PreemptSpellingRegistration kPreemptSpelling_##make(port, make)

// Prints a port's preempt.S (every tier's asyncPreempt, the drop1 mutation,
// every tier's half-vector mutation, the tier tables); false if the port
// has no spelling registered.
bool PrintPreempt(std::string_view port);

}  // namespace safepoint

#endif
