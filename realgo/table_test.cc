// The calls GoFuncTable finds from return addresses' bytes, against the
// port's disassembler: for every function of package main (and a few of
// the runtime's) of each goprogs/ program as Go 1.19 and 1.26 build it for
// this config's CPU, the table's return sites are exactly the ends of the
// instructions the disassembler decodes whose bytes are a call by the
// port's own account (GoFacts::call_before over that instruction alone).
// A byte pattern inside another instruction that merely looks like a call
// (an E8 in an amd64 immediate: found by fuzz:go_preempt_fuzz, where a real
// return address after it was judged "no return site") must not count.
#include "realgo/table.h"


#include <algorithm>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/files.h"
#include "platforms/native.h"
#include "realgo/binary.h"

namespace safepoint::realgo {
namespace {

std::string Dir(const std::string& version) {
  const char* d = getenv("TEST_SRCDIR");
  return std::string(d ? d : ".") + "/safepoint/goprogs/" + version + "/" + std::string(NativePort().go.goarch);
}

std::vector<std::string> Programs(const std::string& dir) { return NamesIn(dir); }

bool Chosen(const std::string& name) {
  return name.rfind("main.", 0) == 0 || name == "runtime.mallocgc" || name == "runtime.newproc" ||
         name == "runtime.gcDrain" || name == "runtime.schedule";
}

TEST(GoFuncTable, ReturnSitesAreTheEndsOfTheCallsTheDisassemblerDecodes) {
  const PortInfo& port = NativePort();
  size_t checked = 0, calls = 0;
  for (const char* version : {"1.19", "1.26"}) {
    const std::string dir = Dir(version);
    std::vector<std::string> programs = Programs(dir);
    ASSERT_FALSE(programs.empty()) << "no programs in " << dir;
    // Under emulation (this test's own code emulated: about 5 s a program)
    // three programs, among them the two where bytes that look like calls
    // were found (defers, atomics); natively every one.
    if (getenv("SAFEPOINT_EMULATOR") != nullptr)
      programs.erase(std::remove_if(programs.begin(), programs.end(),
                                    [](const std::string& p) { return p != "loops" && p != "defers" && p != "atomics"; }),
                     programs.end());
    for (const std::string& p : programs) {
      std::string err;
      std::unique_ptr<GoBinary> bin = GoBinary::Open(dir + "/" + p, &err);
      ASSERT_TRUE(bin) << p << ": " << err;
      FuncTable table;
      ASSERT_TRUE(GoFuncTable(*bin, port, &table, &err)) << err;
      for (const FuncInfo& f : table.funcs) {
        if (!Chosen(f.name)) continue;
        std::vector<GoInsn> insns;
        ASSERT_TRUE(GoInstructions(*bin, port, f.entry, f.end, &insns, &err)) << f.name << ": " << err;
        std::vector<uint8_t> code(f.end - f.entry);
        ASSERT_TRUE(bin->ReadVirtual(f.entry, code.data(), code.size()));
        std::set<uint32_t> want;
        for (size_t i = 0; i < insns.size(); i++) {
          uint64_t end = i + 1 < insns.size() ? insns[i + 1].pc : f.end;
          if (insns[i].pc < f.entry || end > f.end || end <= insns[i].pc) continue;
          const uint32_t len = static_cast<uint32_t>(end - insns[i].pc);
          // The instruction's own bytes, nothing before them.
          if (port.go.call_before(code.data() + (end - f.entry), len) == len) want.insert(static_cast<uint32_t>(end));
        }
        std::set<uint32_t> got(f.return_sites.begin(), f.return_sites.end());
        EXPECT_TRUE(std::is_sorted(f.return_sites.begin(), f.return_sites.end())) << f.name;
        for (uint32_t r : got)
          EXPECT_TRUE(want.count(r)) << "Go " << version << " " << p << " " << f.name << ": return site 0x" << std::hex << r
                                     << " ends no call instruction the disassembler decodes";
        for (uint32_t r : want)
          EXPECT_TRUE(got.count(r)) << "Go " << version << " " << p << " " << f.name << ": the call ending at 0x" << std::hex
                                    << r << " is not among the table's return sites";
        checked++;
        calls += want.size();
      }
    }
  }
  printf("%zu functions, %zu calls compared on %s\n", checked, calls, std::string(port.name).c_str());
  EXPECT_GT(checked, 0u);
  EXPECT_GT(calls, 0u);
}

}  // namespace
}  // namespace safepoint::realgo
