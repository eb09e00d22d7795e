// CodeBuilder: appends machine code and records instruction boundaries.
// Shared by every port's encoder; knows nothing about any architecture.
#ifndef SAFEPOINT_PLATFORMS_COMMON_CODE_BUILDER_H_
#define SAFEPOINT_PLATFORMS_COMMON_CODE_BUILDER_H_

#include <cstdint>
#include <initializer_list>

#include "platforms/port.h"

namespace safepoint {

class CodeBuilder {
 public:
  // Starts a new instruction made of `bytes`.
  void insn(std::initializer_list<uint8_t> bytes) {
    code_.insns.push_back(static_cast<uint32_t>(code_.bytes.size()));
    code_.bytes.insert(code_.bytes.end(), bytes);
  }
  // Starts a new fixed-width 32-bit little-endian instruction.
  void insn32(uint32_t word) {
    insn({static_cast<uint8_t>(word), static_cast<uint8_t>(word >> 8),
          static_cast<uint8_t>(word >> 16), static_cast<uint8_t>(word >> 24)});
  }
  uint32_t here() const { return static_cast<uint32_t>(code_.bytes.size()); }
  ProbeCode take() { return std::move(code_); }

 private:
  ProbeCode code_;
};

}  // namespace safepoint

#endif  // SAFEPOINT_PLATFORMS_COMMON_CODE_BUILDER_H_
