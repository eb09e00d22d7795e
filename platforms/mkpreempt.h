// The per-port printers behind platforms/mkpreempt.cc: each prints its
// port's asyncPreempt functions (sp_asyncPreempt, sp_asyncPreempt_simd,
// sp_asyncPreempt_drop1) from the port's SavedReg table, to stdout.
#ifndef SAFEPOINT_PLATFORMS_MKPREEMPT_H_
#define SAFEPOINT_PLATFORMS_MKPREEMPT_H_

namespace safepoint {
void PrintPreemptBanner(const char* port);
void PrintPreemptAmd64();
void PrintPreemptArm64();
void PrintPreemptLoong64();
}  // namespace safepoint

#endif
