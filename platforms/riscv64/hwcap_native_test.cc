// riscv64 only: the CPU the tests run on is what the port's decisions
// assume (README.md, "Vector state"). asyncPreempt saves no RVV state, as
// Go's riscv64 asyncPreempt saves none; that loses nothing only on a CPU
// without the V extension, which is why the port pins QEMU's rv64 model. If
// the model (or SAFEPOINT_QEMU_CPU_RISCV64) is changed to one with V (QEMU's
// max has it), this test fails instead of vector state being silently lost.
// asyncPreempt and vfill/vdump use the F and D registers (fsd/fld,
// fmv.d.x), which need F and D.
#include <sys/auxv.h>

#include <gtest/gtest.h>

namespace {

constexpr unsigned long Bit(char ext) { return 1ul << (ext - 'A'); }

TEST(Riscv64Hwcap, NoVectorExtension) {
  unsigned long hwcap = getauxval(AT_HWCAP);
  ASSERT_NE(hwcap & Bit('I'), 0u) << "AT_HWCAP is not reported (0x" << std::hex << hwcap << ")";
  EXPECT_EQ(hwcap & Bit('V'), 0u)
      << "the CPU has the V extension: asyncPreempt would lose the vector registers (AT_HWCAP 0x" << std::hex
      << hwcap << "); pin a CPU model without V or save the RVV state";
}

TEST(Riscv64Hwcap, HasTheFloatingPointRegistersAsyncPreemptSaves) {
  unsigned long hwcap = getauxval(AT_HWCAP);
  EXPECT_NE(hwcap & Bit('F'), 0u) << std::hex << hwcap;
  EXPECT_NE(hwcap & Bit('D'), 0u) << std::hex << hwcap;
}

}  // namespace
