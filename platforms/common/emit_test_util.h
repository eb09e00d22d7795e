// Helpers for the per-port emitter tests: one program every port lowers, a
// fixed environment of placeholder addresses, and comparisons with objdump.
#ifndef SAFEPOINT_PLATFORMS_COMMON_EMIT_TEST_UTIL_H_
#define SAFEPOINT_PLATFORMS_COMMON_EMIT_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "platforms/common/disasm.h"
#include "platforms/emitter.h"
#include "core/chapter.h"

namespace safepoint {

// The program every port's emitter test lowers.
// The chapter's leaf and non-leaf first: the expected offsets depend on it.
inline const std::string kLowerTestProgram = std::string(kChapterLeafAndNonleaf) + R"(
func main.big frame=512
  stslot 504, r1
  ldslot r11, 0
  ld r2, g[3]
  st g[4], r11
  jnz r3, out
  gosched
out:
  ret
end
func main.nosplit nosplit
  addi r0, 2
  call main.leaf
  ret
end
)";

// Placeholder addresses: globals at 0x1000, mcall 0x2000, systemstack
// 0x3000, morestack 0x4000, service i's C++ function at 0x10000 + 0x100*i.
inline EmitEnv TestEnv() {
  EmitEnv env;
  env.globals = 0x1000;
  env.mcall = 0x2000;
  env.systemstack = 0x3000;
  env.morestack = 0x4000;
  for (int i = 0; i < static_cast<int>(ir::Service::kCount); i++) env.service_fn[i] = 0x10000 + 0x100 * i;
  return env;
}

inline Emitted EmitForTest(Lowerer& low, const std::string& text) {
  ir::Program p;
  std::string err;
  EXPECT_TRUE(ir::ParseProgram(text, &p, &err)) << err;
  Emitted e;
  EXPECT_TRUE(Emit(low, p, TestEnv(), &e, &err)) << err;
  return e;
}

// Every instruction of function `fn`, as objdump prints it, must equal
// `want`, and objdump's instruction boundaries must be the emitter's.
inline void ExpectDisasm(const std::string& port, const Emitted& e, const std::string& fn,
                         const std::vector<std::string>& want) {
  const FuncInfo* f = e.table.Find(fn);
  ASSERT_NE(f, nullptr) << fn;
  std::vector<DisasmLine> lines;
  std::string err;
  ASSERT_TRUE(Disassemble(port, e.code, &lines, &err)) << err;
  std::vector<std::string> got;
  for (const DisasmLine& l : lines) {
    if (l.offset < f->entry || l.offset >= f->end) continue;
    got.push_back(l.text);
    EXPECT_TRUE(e.table.IsBoundary(l.offset)) << fn << ": objdump sees an instruction at +" << l.offset
                                              << " that the emitter did not record";
  }
  EXPECT_EQ(got, want) << "in " << fn;
}

inline void ExpectTable(const Emitted& e, const std::string& fn, bool check, bool nosplit) {
  const FuncInfo* f = e.table.Find(fn);
  ASSERT_NE(f, nullptr) << fn;
  EXPECT_EQ(!f->has(kFuncNoCheck), check) << fn;
  EXPECT_EQ(f->has(kFuncNosplit), nosplit) << fn;
  EXPECT_EQ(f->prologue.hi > f->prologue.lo, check) << fn << ": the stack check is recorded as the prologue";
  EXPECT_EQ(f->tail.hi > f->tail.lo, check) << fn << ": the morestack path is recorded";
  EXPECT_EQ(f->package, "main");
}

// The frame facts the collector walks stacks by: the pcsp entries (SP at
// the entry's, the frame open at every call and before the return's SP
// restore, closed at the ret; on LR machines the return address saved
// wherever a non-leaf calls), the slot base and the stack map, for a
// function of `frame` bytes whose body calls and returns.
inline void ExpectFrameFacts(const Emitted& e, const std::string& fn, bool lr_machine, int slot_base,
                             const std::vector<int>& declared_ptrs) {
  const FuncInfo* f = e.table.Find(fn);
  ASSERT_NE(f, nullptr) << fn;
  EXPECT_EQ(f->SpAt(f->entry).delta, 0) << fn << ": at the entry the frame is not open";
  ASSERT_FALSE(f->call_sites.empty()) << fn;
  for (uint32_t c : f->call_sites) {
    FuncInfo::SpState st = f->SpAt(c);
    EXPECT_EQ(st.delta, f->frame) << fn << ": the frame is open at the call at +" << c - f->entry;
    EXPECT_EQ(st.lr_saved, lr_machine) << fn << ": the return address is saved at the call";
  }
  // The last instruction before the tail (or the end) is the ret: the frame is closed there.
  uint32_t last = 0;
  for (uint32_t off : e.table.insns)
    if (off >= f->entry && off < (f->tail.hi > f->tail.lo ? f->tail.lo : f->end)) last = off;
  EXPECT_EQ(f->SpAt(last).delta, 0) << fn << ": at the ret the frame is closed";
  if (f->tail.hi > f->tail.lo) EXPECT_EQ(f->SpAt(f->tail.lo).delta, 0) << fn << ": the morestack path runs before the frame opens";
  EXPECT_EQ(f->slot_base, slot_base) << fn;
  std::vector<int> want;
  for (int off : declared_ptrs) want.push_back(off + slot_base);
  EXPECT_EQ(f->ptr_slots, want) << fn << ": the stack map is the declared slots, from SP";
}

// A function with every heap operation, a declared pointer slot and an
// outgoing-argument area; each port's lower_test names its instructions.
inline const char* kHeapOpsProgram =
    "func main.heap frame=16 ptrs=8 args=8\n  alloc 24\n  ldm r1, r0, 8\n  stm r0, 16, r1\n  vload r0, 0\n"
    "  vstore r1, 240\n  starg 0, r0\n  drop r1\n  addrslot r2, 8\n  ret\nend\n";

}  // namespace safepoint

#endif
