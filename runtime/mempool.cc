#include "runtime/mempool.h"

#include <sys/mman.h>

#include <map>
#include <mutex>
#include <vector>

namespace safepoint {
namespace {

struct Pool {
  std::map<size_t, std::vector<void*>> by_size;
  size_t held_bytes = 0;
  size_t held = 0;
  MappingCounts counts;
};

constexpr int kKinds = 5;

struct Pools {
  std::mutex mu;
  Pool pool[kKinds];
};

Pools& AllPools() {
  static auto* p = new Pools;  // leaked: a thread may give one back at exit
  return *p;
}

bool Full(Mapping kind, const Pool& p, size_t size) {
  switch (kind) {
    case Mapping::kGoroutineStack: return p.held_bytes + size > (size_t{64} << 20);
    case Mapping::kG0Stack: return p.held >= 64;
    case Mapping::kHeap:
    case Mapping::kData:
    case Mapping::kHeapObjects: return p.held >= 8;
  }
  return true;
}

}  // namespace

void* TakeMapping(Mapping kind, size_t size) {
  Pools& all = AllPools();
  std::lock_guard<std::mutex> lk(all.mu);
  Pool& p = all.pool[static_cast<int>(kind)];
  auto it = p.by_size.find(size);
  if (it == p.by_size.end() || it->second.empty()) return nullptr;
  void* addr = it->second.back();
  it->second.pop_back();
  p.held_bytes -= size;
  p.held--;
  p.counts.reused++;
  return addr;
}

void GiveMapping(Mapping kind, void* addr, size_t size) {
  if (addr == nullptr) return;
  {
    Pools& all = AllPools();
    std::lock_guard<std::mutex> lk(all.mu);
    Pool& p = all.pool[static_cast<int>(kind)];
    if (!Full(kind, p, size)) {
      p.by_size[size].push_back(addr);
      p.held_bytes += size;
      p.held++;
      return;
    }
  }
  munmap(addr, size);
}

MappingCounts MappingCountsOf(Mapping kind) {
  Pools& all = AllPools();
  std::lock_guard<std::mutex> lk(all.mu);
  return all.pool[static_cast<int>(kind)].counts;
}

void CountFreshMapping(Mapping kind) {
  Pools& all = AllPools();
  std::lock_guard<std::mutex> lk(all.mu);
  all.pool[static_cast<int>(kind)].counts.fresh++;
}

}  // namespace safepoint
