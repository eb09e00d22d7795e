// The arm64 port: identity and probe encoder (host-neutral).
#ifndef SAFEPOINT_PLATFORMS_ARM64_PORT_H_
#define SAFEPOINT_PLATFORMS_ARM64_PORT_H_
#include "platforms/port.h"
namespace safepoint {
extern const PortInfo kArm64Port;
}
#endif
