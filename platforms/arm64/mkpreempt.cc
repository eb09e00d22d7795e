// The arm64 asyncPreempt printer (see platforms/mkpreempt.cc), from
// kArm64Port.saved_regs. Entered through pushCall: LR = the resume PC, the
// interrupted LR at 0(SP). The frame (platforms/arm64/port.cc) is allocated
// with SUB (immediate), which leaves NZCV alone; the table's "lr" entry is
// the resume PC, stored from X30 and reloaded into X27 (REGTMP, never
// preserved, as in Go) for the final BR.
#include <cstdio>
#include <string>
#include <vector>

#include "platforms/arm64/port.h"
#include "platforms/mkpreempt.h"

namespace safepoint {
namespace {

struct Slot {
  std::string reg;
  uint32_t offset, size;
};

// Stores (or loads) `slots` at [base, #offset], pairing neighbours with
// STP/LDP; loads go in reverse.
void Transfer(const std::vector<Slot>& slots, const char* base, bool load) {
  std::vector<std::string> lines;
  for (size_t i = 0; i < slots.size(); i++) {
    const Slot& a = slots[i];
    char buf[128];
    if (i + 1 < slots.size() && slots[i + 1].size == a.size && slots[i + 1].offset == a.offset + a.size) {
      snprintf(buf, sizeof buf, "\t%s %s, %s, [%s, #%u]\n", load ? "ldp" : "stp", a.reg.c_str(),
               slots[i + 1].reg.c_str(), base, a.offset);
      i++;
    } else {
      snprintf(buf, sizeof buf, "\t%s %s, [%s, #%u]\n", load ? "ldr" : "str", a.reg.c_str(), base, a.offset);
    }
    lines.push_back(buf);
  }
  if (load)
    for (auto it = lines.rbegin(); it != lines.rend(); ++it) fputs(it->c_str(), stdout);
  else
    for (const std::string& l : lines) fputs(l.c_str(), stdout);
}

void Arm64Function(const PortInfo& p, const char* name, std::string_view drop = {}) {
  uint32_t alloc = p.async_frame - p.pushcall_bytes;
  std::vector<Slot> gprs, vecs;
  std::vector<const SavedReg*> flags;
  uint32_t resume_off = 0;
  for (const SavedReg& r : p.saved_regs) {
    if (r.kind == SavedReg::kGeneral) {
      if (r.name == "lr") {
        resume_off = r.offset;
      } else if (r.name != drop) {
        gprs.push_back({std::string(r.name), r.offset, r.size});
      }
    } else if (r.kind == SavedReg::kFlags) {
      flags.push_back(&r);
    } else if (!r.simd_only) {
      vecs.push_back({std::string(r.name), r.offset, r.size});
    }
  }
  printf("\t.globl %s\n\t.type %s, @function\n\t.p2align 2\n%s:\n", name, name, name);
  printf("\tsub sp, sp, #%u\n", alloc);  // SUB (immediate) leaves NZCV alone
  printf("\tstr x30, [sp, #%u]\n", resume_off);
  Transfer(gprs, "sp", false);
  for (const SavedReg* f : flags)
    printf("\tmrs x0, %s\n\tstr x0, [sp, #%u]\n", std::string(f->name).c_str(), f->offset);
  printf("\tldr x0, [x28, #G_M]\n\tldr x0, [x0, #M_P]\n\tadd x0, x0, #P_XSCRATCH\n");
  Transfer(vecs, "x0", false);
  // sp_mcall records sched.sp = SP (the frame base) and sched.pc = LR.
  printf("\tadrp x0, sp_asyncpreempt2_g0\n\tadd x0, x0, :lo12:sp_asyncpreempt2_g0\n\tbl sp_mcall\n");
  // Resumed, maybe on another M and P: reload g->m->p.
  printf("\tldr x0, [x28, #G_M]\n\tldr x0, [x0, #M_P]\n\tadd x0, x0, #P_XSCRATCH\n");
  Transfer(vecs, "x0", true);
  for (auto it = flags.rbegin(); it != flags.rend(); ++it)
    printf("\tldr x0, [sp, #%u]\n\tmsr %s, x0\n", (*it)->offset, std::string((*it)->name).c_str());
  Transfer(gprs, "sp", true);
  printf("\tldr x27, [sp, #%u]\n", resume_off);
  printf("\tldr x30, [sp, #%u]\n", alloc);  // the interrupted LR, from pushCall's slot
  printf("\tadd sp, sp, #%u\n", p.async_frame);
  printf("\tbr x27\n\t.size %s, .-%s\n\n", name, name);
}

}  // namespace

void PrintPreemptArm64() {
  PrintPreemptBanner("arm64");
  // The pinned cortex-a72 has no SVE: the simd variant saves the same state.
  Arm64Function(kArm64Port, "sp_asyncPreempt");
  Arm64Function(kArm64Port, "sp_asyncPreempt_simd");
  Arm64Function(kArm64Port, "sp_asyncPreempt_drop1", kArm64Port.ir_regs[3]);
}

}  // namespace safepoint
