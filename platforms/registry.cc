// The registry of ports. A new port adds one line here.
#include "platforms/amd64/port.h"
#include "platforms/arm64/port.h"
#include "platforms/loong64/port.h"
#include "platforms/port.h"

namespace safepoint {

const std::vector<const PortInfo*>& AllPorts() {
  static const std::vector<const PortInfo*> ports = {&kAmd64Port, &kArm64Port, &kLoong64Port};
  return ports;
}

const PortInfo* FindPort(std::string_view name) {
  for (const PortInfo* p : AllPorts())
    if (p->name == name) return p;
  return nullptr;
}

std::string PortNames() {
  std::string s;
  for (const PortInfo* p : AllPorts()) {
    if (!s.empty()) s += ", ";
    s += p->name;
  }
  return s;
}

}  // namespace safepoint
