// The registry of ports. Each port's port.cc registers its PortInfo
// (SAFEPOINT_REGISTER_PORT); the build passes the order of platforms/PORTS
// as SAFEPOINT_PORT_ORDER, so AllPorts() lists them as the list does.
#include <algorithm>
#include <string>

#include "platforms/port.h"

#ifndef SAFEPOINT_PORT_ORDER
#error "SAFEPOINT_PORT_ORDER must be set by the build (platforms/BUILD.bazel, from platforms/PORTS)"
#endif

namespace safepoint {
namespace {

std::vector<const PortInfo*>& Registered() {
  static auto* v = new std::vector<const PortInfo*>;
  return *v;
}

int Rank(std::string_view name) {
  std::string_view order = SAFEPOINT_PORT_ORDER;
  int rank = 0;
  size_t pos = 0;
  while (pos <= order.size()) {
    size_t comma = order.find(',', pos);
    if (comma == std::string_view::npos) comma = order.size();
    if (order.substr(pos, comma - pos) == name) return rank;
    rank++;
    pos = comma + 1;
  }
  return rank;  // unlisted ports (tests only) go last
}

}  // namespace

PortRegistration::PortRegistration(const PortInfo* p) {
  auto& v = Registered();
  v.insert(std::upper_bound(v.begin(), v.end(), p,
                            [](const PortInfo* a, const PortInfo* b) { return Rank(a->name) < Rank(b->name); }),
           p);
}

const std::vector<const PortInfo*>& AllPorts() { return Registered(); }

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
