#include "core/functab.h"

namespace safepoint {

const FuncInfo* FuncTable::Find(uint32_t off) const {
  // Functions are laid out in order (the emitter's), so a binary search by
  // entry finds the one that may contain off: findfunc runs in the signal
  // handler and on every frame of a stack walk.
  size_t lo = 0, hi = funcs.size();
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (funcs[mid].entry <= off) lo = mid + 1; else hi = mid;
  }
  if (lo == 0) return nullptr;
  const FuncInfo& f = funcs[lo - 1];
  return off < f.end ? &f : nullptr;
}

const FuncInfo* FuncTable::Find(const std::string& name) const {
  for (const FuncInfo& f : funcs)
    if (f.name == name) return &f;
  return nullptr;
}

int FuncInfo::InlineDepth(size_t i) const {
  int d = 0;
  for (int k = static_cast<int>(i); k >= 0; k = inlines[static_cast<size_t>(k)].parent) d++;
  return d;
}

FuncInfo::SpState FuncInfo::SpAt(uint32_t off) const {
  SpState st{entry, 0, false};
  for (const SpState& s : pcsp) {
    if (s.from > off) break;
    st = s;
  }
  return st;
}

const std::string& FuncInfo::InnermostPackage(uint32_t off) const {
  // Bodies nest, so the deepest one holding off is the innermost (a body
  // and its only child may span the same bytes: the child is deeper).
  const Inline* best = nullptr;
  int best_depth = 0;
  for (size_t i = 0; i < inlines.size(); i++) {
    const Inline& in = inlines[i];
    if (off < in.lo || off >= in.hi) continue;
    int d = InlineDepth(i);
    if (d > best_depth) best = &in, best_depth = d;
  }
  return best ? best->package : package;
}

const std::string& FuncInfo::OutermostPackage(uint32_t off) const {
  for (const Inline& in : inlines)
    if (in.parent < 0 && off >= in.lo && off < in.hi) return in.package;
  return package;
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
