#include "platforms/loong64/lower.h"
#include <gtest/gtest.h>
#include "platforms/common/emit_test_util.h"
namespace safepoint {
constexpr const char* kP = R"(
func main.huge frame=3000
  stslot 2992, r1
  ldslot r2, 8
  movi r3, -2
  movi r4, 0x123456789abcdef0
  addi r5, 2047
  addi r5, -2048
  addi r6, 2048
  addi r6, -100000
  muli r7, -7
  muli r7, 65536
  muli r7, 4095
  add r8, r9
  mov r10, r11
  jz r0, skip
  jmp skip
skip:
  go main.huge
  sleep 1000
  ret
end
func main.leafslots frame=16
  stslot 0, r0
  ldslot r1, 8
  ret
end
func main.leafbig frame=128
  stslot 120, r0
  ret
end
func main.regs
  fillregs 100
  sumregs r1
  ret
end
)";
TEST(Loong64Lower, MatchesObjdump) {
  Emitted e = EmitForTest(*NewLoong64Lowerer(), kP);
  std::vector<DisasmLine> lines; std::string err;
  ASSERT_TRUE(Disassemble("loong64", e.code, &lines, &err)) << err;
  for (auto& f : e.table.funcs) {
    printf("== %s entry=%x end=%x frame=%d\n", f.name.c_str(), f.entry, f.end, f.frame);
    for (auto& l : lines) if (l.offset >= f.entry && l.offset < f.end) printf("  %4x: %s\n", l.offset, l.text.c_str());
  }
}
}
