// gobin [--func=REGEX] BINARY: what realgo reads from a Go binary: its
// version, architecture, the runtime's structure offsets, and per function
// the name, entry, end, frame, the assembly flag and its tables' runs.
// Exit 2 with one line on a refused binary.
#include <cinttypes>
#include <cstdio>
#include <regex>
#include <string>
#include <vector>

#include "realgo/binary.h"

namespace {

using safepoint::realgo::GoBinary;
using safepoint::realgo::GoFunc;
using safepoint::realgo::PcRun;

void PrintRuns(const char* what, const std::vector<PcRun>& runs, uint64_t entry) {
  if (runs.empty()) return;
  std::printf("    %s:", what);
  uint64_t from = entry;
  for (const PcRun& r : runs) {
    std::printf(" [%" PRIx64 ",%" PRIx64 ")=%d", from - entry, r.end - entry, r.value);
    from = r.end;
  }
  std::printf("\n");
}

}  // namespace

int main(int argc, char** argv) {
  std::string pattern, path;
  bool have_pattern = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--func=", 0) == 0) {
      pattern = a.substr(7);
      have_pattern = true;
    } else if (path.empty() && !a.empty() && a[0] != '-') {
      path = a;
    } else {
      std::fprintf(stderr, "usage: gobin [--func=REGEX] BINARY\n");
      return 2;
    }
  }
  if (path.empty()) {
    std::fprintf(stderr, "usage: gobin [--func=REGEX] BINARY\n");
    return 2;
  }
  std::regex re;
  if (have_pattern) {
    try {
      re = std::regex(pattern);
    } catch (const std::regex_error&) {
      std::fprintf(stderr, "gobin: bad --func regular expression: %s\n", pattern.c_str());
      return 2;
    }
  }
  std::string err;
  auto bin = GoBinary::Open(path, &err);
  if (!bin) {
    std::fprintf(stderr, "gobin: %s\n", err.c_str());
    return 2;
  }
  const auto& o = bin->offsets();
  std::printf("version %s (minor %d), %s (ELF machine %u), pc quantum %u, pclntab magic 0x%x, text 0x%" PRIx64
              ", %zu functions, DWARF %d\n",
              bin->go_version().c_str(), bin->go_minor(), bin->goarch().c_str(), bin->elf_machine(),
              bin->pc_quantum(), bin->pclntab_magic(), bin->text_start(), bin->funcs().size(), o.dwarf_version);
  std::printf("g: stack.lo %d stack.hi %d stackguard0 %d m %d sched.sp %d sched.pc %d atomicstatus %d/%d goid %d/%d "
              "preempt %d/%d preemptStop %d/%d preemptShrink %d/%d\n",
              o.g_stack_lo, o.g_stack_hi, o.g_stackguard0, o.g_m, o.g_sched_sp, o.g_sched_pc, o.g_atomicstatus,
              o.g_atomicstatus_size, o.g_goid, o.g_goid_size, o.g_preempt, o.g_preempt_size, o.g_preemptStop,
              o.g_preemptStop_size, o.g_preemptShrink, o.g_preemptShrink_size);
  std::printf("g: stktopsp %d\n", o.g_stktopsp);
  std::printf("m: g0 %d curg %d p %d preemptGen %d/%d signalPending %d/%d procid %d/%d locks %d/%d mallocing %d/%d "
              "preemptoff %d\n",
              o.m_g0, o.m_curg, o.m_p, o.m_preemptGen, o.m_preemptGen_size, o.m_signalPending, o.m_signalPending_size,
              o.m_procid, o.m_procid_size, o.m_locks, o.m_locks_size, o.m_mallocing, o.m_mallocing_size,
              o.m_preemptoff);
  std::printf("p: status %d/%d preempt %d/%d sysmontick %d (schedtick %d/%d schedwhen %d/%d)\n", o.p_status, o.p_status_size, o.p_preempt, o.p_preempt_size,
              o.p_sysmontick, o.sysmontick_schedtick, o.sysmontick_schedtick_size, o.sysmontick_schedwhen,
              o.sysmontick_schedwhen_size);
  std::printf("runtime.debug 0x%" PRIx64 " asyncpreemptoff %d/%d\n", o.debug_addr, o.debug_asyncpreemptoff,
              o.debug_asyncpreemptoff_size);
  for (const GoFunc& f : bin->funcs()) {
    if (have_pattern && !std::regex_search(f.name, re)) continue;
    // The name last: Go's names can hold spaces ("type..eq.struct { ... }").
    std::printf("func 0x%" PRIx64 " 0x%" PRIx64 " size %" PRIu64 " frame %d funcID %u args %d%s%s %s\n", f.entry,
                f.end, f.end - f.entry, f.MaxFrame(), f.func_id, f.args, f.asm_ ? " asm" : "",
                f.has_locals_map ? " locals" : "", f.name.c_str());
    PrintRuns("pcsp", f.pcsp, f.entry);
    PrintRuns("unsafe", f.unsafe_point, f.entry);
    PrintRuns("stackmap", f.stackmap_index, f.entry);
    PrintRuns("inl", f.inl_index, f.entry);
    for (size_t k = 0; k < f.inline_tree.size(); ++k) {
      const auto& c = f.inline_tree[k];
      std::printf("    inline %zu: %s parent %d parentPc 0x%x funcID %u\n", k, c.name.c_str(), c.parent,
                  c.parent_pc, c.func_id);
    }
  }
  return 0;
}
