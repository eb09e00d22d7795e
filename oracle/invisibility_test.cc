// The invisibility oracle on end states written by hand: equal states have
// no difference, and each global and each byte of the vector dumps, changed
// alone, is reported where it is (" g[i]=got want want", " vdump[chunk]"
// for its 16-byte chunk), and nothing else is; states of different shapes
// are never equal.
#include "oracle/invisibility.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace safepoint::oracle {
namespace {

harness::EndState Baseline() {
  harness::EndState s;
  for (uint64_t i = 0; i < 24; i++) s.globals.push_back(0x1000 + i);
  s.vdump.resize(2 * 16 + 8);  // two whole chunks and a short last one
  for (size_t i = 0; i < s.vdump.size(); i++) s.vdump[i] = static_cast<uint8_t>(0x40 + i);
  return s;
}

TEST(Invisibility, EqualEndStatesHaveNoDifference) {
  EXPECT_EQ(DiffEndState(Baseline(), Baseline()), "");
  EXPECT_EQ(DiffEndState(harness::EndState{}, harness::EndState{}), "");
}

TEST(Invisibility, EachGlobalChangedAloneIsNamed) {
  const harness::EndState want = Baseline();
  for (size_t i = 0; i < want.globals.size(); i++) {
    harness::EndState got = want;
    got.globals[i] ^= uint64_t{1} << 63;
    char line[96];
    snprintf(line, sizeof line, " g[%zu]=%llx want %llx", i, (unsigned long long)got.globals[i],
             (unsigned long long)want.globals[i]);
    EXPECT_EQ(DiffEndState(want, got), line);
  }
}

TEST(Invisibility, EachVectorDumpByteChangedAloneNamesItsChunk) {
  const harness::EndState want = Baseline();
  for (size_t b = 0; b < want.vdump.size(); b++) {
    harness::EndState got = want;
    got.vdump[b] ^= 0x01;
    EXPECT_EQ(DiffEndState(want, got), " vdump[" + std::to_string(b / 16) + "]") << "byte " << b;
  }
}

TEST(Invisibility, EndStatesOfDifferentShapesDiffer) {
  const harness::EndState want = Baseline();
  harness::EndState got = want;
  got.globals.pop_back();
  EXPECT_EQ(DiffEndState(want, got), " (a different number of globals)");
  got = want;
  got.globals.push_back(0);
  EXPECT_EQ(DiffEndState(want, got), " (a different number of globals)");
  got = want;
  got.vdump.pop_back();
  EXPECT_EQ(DiffEndState(want, got), " (vector dumps of different sizes)");
  got.vdump.clear();
  EXPECT_EQ(DiffEndState(want, got), " (vector dumps of different sizes)");
}

}  // namespace
}  // namespace safepoint::oracle
