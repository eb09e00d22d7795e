// The port this binary was compiled for. The build chooses it: the
// //platforms:native library depends on exactly one port's :native library
// (a select() over platforms/PORTS, see platforms/port.bzl), which exposes
// that port's context.h as "platforms/native/context.h". No code anywhere
// chooses a port with the compiler's architecture macros.
#ifndef SAFEPOINT_PLATFORMS_NATIVE_H_
#define SAFEPOINT_PLATFORMS_NATIVE_H_

#include <string>

#include "platforms/native/context.h"

namespace safepoint {
inline const PortInfo& NativePort() { return NativeContext::kPort; }

// Why the simd setting saves no more than the base tier here ("" when it
// saves a wider one): the port declares no such tier, or this CPU lacks its
// feature. Tests of the wide state skip with it.
inline std::string NoSimdTier() {
  const PortInfo& port = NativePort();
  if (port.tiers.size() < 2 || !port.tiers[1].needs_simd)
    return "port " + std::string(port.name) + " declares no wider tier of extended state under simd";
  if (!port.tiers[1].cpu_feature.empty() && !NativeContext::cpu_has(port.tiers[1].cpu_feature))
    return "this CPU lacks " + std::string(port.tiers[1].cpu_feature) + ": the simd setting saves the base tier only";
  return "";
}
}  // namespace safepoint

#endif
