// The port this binary was compiled for. The build chooses it: the
// //platforms:native library depends on exactly one port's :native library
// (a select() over platforms/PORTS, see platforms/port.bzl), which exposes
// that port's context.h as "platforms/native/context.h". No code anywhere
// chooses a port with the compiler's architecture macros.
#ifndef SAFEPOINT_PLATFORMS_NATIVE_H_
#define SAFEPOINT_PLATFORMS_NATIVE_H_

#include "platforms/native/context.h"

namespace safepoint {
inline const PortInfo& NativePort() { return NativeContext::kPort; }
}  // namespace safepoint

#endif
