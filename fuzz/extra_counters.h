// libFuzzer's extra counters (__libfuzzer_extra_counters) for a fuzz
// target's semantic features: Feature(a, b, c) bumps the counter that the
// triple hashes to, so an input that shows a new combination (a verdict
// vector, a rule under some settings, ...) is kept as new coverage. One
// array per binary (an inline variable); include it from the target only.
#ifndef SAFEPOINT_FUZZ_EXTRA_COUNTERS_H_
#define SAFEPOINT_FUZZ_EXTRA_COUNTERS_H_

#include <cstddef>
#include <cstdint>

namespace safepoint::fuzz {

constexpr size_t kFeatures = 1 << 12;
__attribute__((used, section("__libfuzzer_extra_counters"))) inline uint8_t g_features[kFeatures];

inline void Feature(uint64_t a, uint64_t b = 0, uint64_t c = 0) {
  uint64_t h = (a * 0x9E3779B97F4A7C15ull) ^ (b * 0xC2B2AE3D27D4EB4Full) ^ (c * 0x165667B19E3779F9ull);
  h ^= h >> 29;
  uint8_t& slot = g_features[h % kFeatures];
  if (slot < 255) slot++;
}

}  // namespace safepoint::fuzz

#endif
