// Conformance: the function table against the machine on this port, where
// no sweep looks. The frame-table oracle (oracle/frame_table.h) judges each
// frame's SP and return address at every armed instruction; here, the
// stack map the collector scans by (FuncInfo::ptr_slots, slot_base): the
// words main stored in its slots must be where the table says its slots
// are, read from main's SP as the table's walk finds it, stopped at a call.
// A slot base or a pointer slot off by a word on one port is a pointer the
// collector never sees (or a non-pointer it takes for one), and only a
// collection that happens to need that slot would show it otherwise.
#include <gtest/gtest.h>

#include <string>

#include "core/ir.h"
#include "harness/runtime_under_test.h"
#include "harness/sweep.h"
#include "oracle/frame_table.h"
#include "platforms/native.h"

namespace safepoint {
namespace {

constexpr uint64_t kSlotValue = 0x5150;  // slot i holds kSlotValue + i

// main keeps four slots, two declared pointer slots (0 and 16) among them,
// across its call of a leaf with a frame of its own.
const char* kProgram = R"(
func main.main frame=48 ptrs=0/16
  movi r1, 20816
  stslot 0, r1
  movi r1, 20817
  stslot 8, r1
  movi r1, 20818
  stslot 16, r1
  movi r1, 20819
  stslot 24, r1
  call main.leaf
  ldslot r2, 8
  st g[0], r2
  ret
end
func main.leaf frame=32
  movi r3, 7
  stslot 0, r3
  ldslot r4, 0
  st g[1], r4
  ret
end
)";

// Every disagreement between the stack map and the words main stored, as
// lines ("" when they agree), over traps at every instruction of the leaf;
// `ro` may break the table (a test's edit_table hook).
std::string CheckStackMap(RuntimeOptions ro) {
  ir::Program prog;
  std::string err;
  if (!ir::ParseProgram(kProgram, &prog, &err)) return "the program: " + err;
  ro.hooks.sysmon = false;
  ro.hooks.event_times = false;
  harness::RuntimeFactory make = harness::ReferenceRuntimeFactory(ro);
  harness::Baseline base;
  if (!harness::RunBaseline(prog, "main.main", make, &base, &err)) return "the unpreempted run: " + err;
  const FuncInfo* main = base.table.Find("main.main");
  const FuncInfo* leaf = base.table.Find("main.leaf");
  if (!main || !leaf || main->ptr_slots.size() != 2) return "the table has no main.main and main.leaf, or not two pointer slots";
  std::string problems;
  size_t traps = 0;
  // Armed at every instruction of the leaf: each trap's walk finds main at
  // its call, whatever the leaf's own frame does there.
  for (size_t k = 0; k < base.table.insns.size(); k++) {
    if (base.table.Find(base.table.insns[k]) != leaf) continue;
    harness::Observation o;
    if (!harness::ObserveAt(prog, "main.main", make, base.table, k, &o)) return "instruction " + std::to_string(k);
    if (!o.frame.seen) continue;
    traps++;
    std::string at = "\n  armed at main.leaf+" + std::to_string(o.off - leaf->entry) + ": ";
    oracle::FrameCheck c = oracle::CheckFrameTable(base.table, o.frame, o.frame.pc);
    if (!c.judged || !c.ok() || c.walk.size() < 2 || c.walk[1].func != "main.main") {
      problems += at + "the walk does not reach main.main: " + c.unjudged + c.problem;
      continue;
    }
    const uintptr_t sp = c.walk[1].sp;
    auto word = [&](int off, uint64_t want, const std::string& what) {
      uintptr_t w = 0;
      if (!o.frame.Read(sp + static_cast<uintptr_t>(off), &w)) problems += at + what + ": SP+" + std::to_string(off) + " is not in the image";
      else if (w != want) problems += at + what + " is not at SP+" + std::to_string(off) + " (it holds " + std::to_string(w) + ")";
    };
    for (int i = 0; i < 4; i++)
      word(main->slot_base + 8 * i, kSlotValue + static_cast<uint64_t>(i),
           "slot " + std::to_string(8 * i) + " (slot_base " + std::to_string(main->slot_base) + ")");
    for (size_t p = 0; p < main->ptr_slots.size(); p++)
      word(main->ptr_slots[p], kSlotValue + 2 * p, "declared pointer slot " + std::to_string(16 * p) + " by the stack map");
  }
  if (traps < 5) problems += "\n  only " + std::to_string(traps) + " of the leaf's instructions trapped";
  return problems;
}

TEST(FrameTable, TheStackMapNamesTheSlotsTheCodeWrites) { EXPECT_EQ(CheckStackMap({}), ""); }

// Its twin: a slot base one word off in the table (as a port's SlotBase
// forgetting the saved link register would be) is named.
TEST(FrameTable, CatchesASlotBaseOneWordOff) {
  RuntimeOptions ro;
  ro.hooks.edit_table = [](FuncTable& t) {
    for (FuncInfo& f : t.funcs)
      if (f.name == "main.main") {
        f.slot_base += 8;
        for (int& p : f.ptr_slots) p += 8;
      }
  };
  std::string p = CheckStackMap(ro);
  EXPECT_NE(p.find("slot_base"), std::string::npos) << p;
  EXPECT_NE(p.find("by the stack map"), std::string::npos) << p;
}

}  // namespace
}  // namespace safepoint
