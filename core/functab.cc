#include "core/functab.h"

namespace safepoint {

const FuncInfo* FuncTable::Find(uint32_t off) const {
  for (const FuncInfo& f : funcs)
    if (off >= f.entry && off < f.end) return &f;
  return nullptr;
}

const FuncInfo* FuncTable::Find(const std::string& name) const {
  for (const FuncInfo& f : funcs)
    if (f.name == name) return &f;
  return nullptr;
}

const std::string& FuncInfo::InnermostPackage(uint32_t off) const {
  // The narrowest inlined body containing off is the innermost.
  const Inline* best = nullptr;
  for (const Inline& in : inlines)
    if (off >= in.lo && off < in.hi && (!best || in.hi - in.lo <= best->hi - best->lo)) best = &in;
  return best ? best->package : package;
}

bool FuncTable::IsBoundary(uint32_t off) const {
  size_t lo = 0, hi = insns.size();
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (insns[mid] < off) lo = mid + 1; else hi = mid;
  }
  return lo < insns.size() && insns[lo] == off;
}

}  // namespace safepoint
