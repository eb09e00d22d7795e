// The riscv64 port: identity and probe encoder (host-neutral).
#ifndef SAFEPOINT_PLATFORMS_RISCV64_PORT_H_
#define SAFEPOINT_PLATFORMS_RISCV64_PORT_H_
#include "platforms/port.h"
namespace safepoint {
extern const PortInfo kRiscv64Port;
}
#endif
