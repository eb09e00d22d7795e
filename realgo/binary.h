// A reader of unmodified Go ELF binaries (Go 1.19: pclntab magic
// 0xfffffff0; Go 1.20 to 1.26: 0xfffffff1), with no Go toolchain at run
// time: the function table (pclntab: entries, pcsp, the PCDATA tables, the
// inline tree) and, from DWARF, the runtime's structure offsets a tracer
// needs to ask the real runtime for a preemption decision.
//
// Nothing the file says is trusted: every offset is checked, a malformed
// table refuses the whole binary with one line, and no input makes the
// reader crash, read out of bounds or loop.
#ifndef SAFEPOINT_REALGO_BINARY_H_
#define SAFEPOINT_REALGO_BINARY_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace safepoint::realgo {

class ElfFile;

// One run of a pc-value table: `value` holds for PCs below `end`, from the
// previous run's end (or the function's entry).
struct PcRun {
  uint64_t end;
  int32_t value;
};

// Go's unsafe-point values (PCDATA_UnsafePoint).
inline constexpr int32_t kUnsafePointSafe = -1;
inline constexpr int32_t kUnsafePointUnsafe = -2;
inline constexpr int32_t kUnsafePointRestart1 = -3;
inline constexpr int32_t kUnsafePointRestart2 = -4;
inline constexpr int32_t kUnsafePointRestartAtEntry = -5;

// funcFlag bits.
inline constexpr uint8_t kFuncFlagTopFrame = 1, kFuncFlagSPWrite = 2, kFuncFlagAsm = 4;

struct GoFunc {
  std::string name;
  uint64_t entry = 0;
  uint64_t end = 0;       // the end of its tables (pcsp): the function's size
  uint64_t next = 0;      // the next function's entry (the runtime's bound)
  bool asm_ = false;      // funcFlag ASM
  uint8_t flag = 0;
  uint8_t func_id = 0;
  bool has_locals_map = false;  // FUNCDATA_LocalsPointerMaps present
  int32_t args = 0, deferreturn = 0;
  int32_t start_line = 0;       // 1.20+
  // SP delta: bytes below the entry SP (Go's definition: on amd64 the
  // return address slot is not counted).
  std::vector<PcRun> pcsp;
  // PCDATA_UnsafePoint (table 0): -1 safe, -2 unsafe, -3/-4 restartable,
  // -5 restart at entry; empty if absent.
  std::vector<PcRun> unsafe_point;
  std::vector<PcRun> stackmap_index;  // PCDATA_StackMapIndex (table 1)
  std::vector<PcRun> inl_index;       // PCDATA_InlTreeIndex (table 2), -1 none
  std::vector<PcRun> file, line;      // pcfile (per-CU file index) and pcln
  struct Inlined {
    int32_t parent;  // index of the caller's entry, -1 the physical function
    std::string name;
    uint8_t func_id;
    int32_t parent_pc;  // offset from entry of an instruction at the call site
  };
  std::vector<Inlined> inline_tree;  // FUNCDATA_InlTree (the entries in use)

  int32_t MaxFrame() const;  // the largest pcsp value (0 if none)
};

// Offsets (bytes) into the runtime's structures, from DWARF; -1 unknown
// (only the optional ones can be). Sizes in bytes of the fields a tracer
// writes or compares.
struct RuntimeOffsets {
  int g_stack_lo = -1, g_stack_hi = -1, g_stackguard0 = -1, g_m = -1;
  int g_sched_sp = -1, g_sched_pc = -1;  // optional
  int g_stktopsp = -1;
  int m_locks = -1, m_mallocing = -1;
  int m_preemptoff = -1;  // a Go string: {pointer, length}
  int p_status = -1;
  int m_locks_size = 0, m_mallocing_size = 0, p_status_size = 0;
  int g_atomicstatus = -1, g_goid = -1, g_preempt = -1, g_preemptStop = -1, g_preemptShrink = -1;
  int m_g0 = -1, m_curg = -1, m_p = -1, m_preemptGen = -1, m_signalPending = -1, m_procid = -1;
  int p_preempt = -1, p_schedtick = -1, p_sysmontick = -1, sysmontick_schedwhen = -1, sysmontick_schedtick = -1;
  uint64_t debug_addr = 0;  // runtime.debug
  int debug_asyncpreemptoff = -1;
  int g_atomicstatus_size = 0, g_goid_size = 0, g_preempt_size = 0, g_preemptStop_size = 0,
      g_preemptShrink_size = 0;
  int m_preemptGen_size = 0, m_signalPending_size = 0, m_procid_size = 0;
  int p_preempt_size = 0, sysmontick_schedwhen_size = 0, sysmontick_schedtick_size = 0;
  int debug_asyncpreemptoff_size = 0;
  // Optional (0 / -1 when absent): what it takes to bring a collection
  // about from outside (sysmon forces one once runtime.forcegcperiod has
  // passed since memstats.last_gc_nanotime).
  uint64_t forcegcperiod_addr = 0, memstats_addr = 0;
  int mstats_last_gc_nanotime = -1;
  // Optional: g.gcscandone (this cycle's mark phase has scanned the stack).
  int g_gcscandone = -1;
  int dwarf_version = 0;
};

class GoBinary {
 public:
  // Null with one line in *err on a refused binary: not ELF, not 64-bit
  // little-endian, not Go (no pclntab), a Go without asynchronous
  // preemption (< 1.14) or with a table layout this reader does not know
  // (< 1.19), an architecture the project has no port for, no DWARF (the
  // offsets unknown), or any truncated or corrupt table.
  static std::unique_ptr<GoBinary> Open(const std::string& path, std::string* err);
  static std::unique_ptr<GoBinary> Parse(std::vector<uint8_t> bytes, std::string* err);
  ~GoBinary();

  uint16_t elf_machine() const { return machine_; }
  std::string goarch() const { return goarch_; }   // "amd64", "arm64", "loong64", "riscv64"
  std::string go_version() const { return version_; }  // "go1.19.8"
  int go_minor() const { return minor_; }
  uint32_t pc_quantum() const { return quantum_; }
  uint32_t pclntab_magic() const { return magic_; }
  uint64_t text_start() const { return text_start_; }

  const std::vector<GoFunc>& funcs() const { return funcs_; }  // sorted by entry
  const GoFunc* FuncAt(uint64_t pc) const;  // entry <= pc < end
  const GoFunc* FuncNamed(const std::string& name) const;
  static int32_t ValueAt(const std::vector<PcRun>& runs, uint64_t entry, uint64_t pc, int32_t dflt);
  // The innermost function at pc through the inline tree, as
  // isAsyncSafePoint names it; "" outside Go code.
  std::string InnermostName(uint64_t pc) const;

  const RuntimeOffsets& offsets() const { return offsets_; }
  uint64_t Symbol(const std::string& name) const;  // ELF symbol value, 0 if absent
  uint64_t SymbolSize(const std::string& name) const;
  bool ReadVirtual(uint64_t addr, void* out, size_t n) const;

 private:
  GoBinary();
  bool ReadVersion(std::string* err);
  bool ReadPclntab(std::string* err);
  bool ReadDwarf(std::string* err);

  std::unique_ptr<ElfFile> elf_;
  uint16_t machine_ = 0;
  std::string goarch_, version_;
  int minor_ = 0;
  uint32_t quantum_ = 1, magic_ = 0;
  uint64_t text_start_ = 0;
  std::vector<GoFunc> funcs_;
  RuntimeOffsets offsets_;
};

}  // namespace safepoint::realgo

#endif  // SAFEPOINT_REALGO_BINARY_H_
