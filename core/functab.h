// The function table: what the runtime knows about generated code, the
// analogue of Go's pclntab. The emitter fills it; the runtime, the
// preemption rules and the tests read it. Offsets are relative to the start
// of the code blob; the runtime adds the code page's base.
#ifndef SAFEPOINT_RUNTIME_FUNCTAB_H_
#define SAFEPOINT_RUNTIME_FUNCTAB_H_

#include <cstdint>
#include <string>
#include <vector>

namespace safepoint {

enum FuncFlag : uint32_t {
  kFuncNosplit = 1u << 0,   // //go:nosplit (declared), not merely a leaf without a check
  kFuncAsm = 1u << 1,       // written in assembly (the runtime's stubs)
  kFuncNonGo = 1u << 2,     // foreign code
  kFuncNoCheck = 1u << 3,   // no stack-check prologue (nosplit, or a small-frame leaf)
  kFuncRestartAtEntry = 1u << 4,  // Go's UnsafePointRestartAtEntry over the body
};

// Half-open range of code offsets.
struct CodeRange {
  uint32_t lo, hi;
  bool contains(uint32_t off) const { return off >= lo && off < hi; }
};

struct FuncInfo {
  std::string name;     // "main.nonleaf"
  std::string package;  // "main"
  uint32_t entry = 0;   // first byte
  uint32_t end = 0;     // one past the last byte
  uint32_t flags = 0;
  int frame = 0;         // bytes the function allocates below its entry SP
  int max_sp_delta = 0;  // deepest the SP goes below the entry SP, return address included
  CodeRange prologue{0, 0};  // the stack check (unsafe)
  CodeRange tail{0, 0};      // the morestack path (unsafe)
  std::vector<uint32_t> call_sites;  // offsets of call instructions
  // Offsets just past each call (sorted), when the table knows them
  // directly (one read from a binary, whose instruction list holds only
  // the calls' bounds and, on a variable-length CPU, bytes that merely look
  // like a call): the frame-table oracle then asks these, not the
  // instruction list.
  std::vector<uint32_t> return_sites;
  // The stack map, the same at every call site: the frame offsets (from
  // SP, slot_base included) of the slots declared to hold pointers. The
  // collector reads only these in a frame stopped at a call (precise).
  std::vector<int> ptr_slots;
  int slot_base = 0;  // slot 0 is at SP+slot_base in the body (8 on LR machines, after the saved LR)
  int args = 0;       // the outgoing-argument area: slots [0, args)
  // Go's pcsp table, with where the return address is: from code offset
  // `from` on (to the next entry), SP is `delta` bytes below the entry SP
  // (the return address amd64's call pushed not counted), and on machines
  // with a link register `lr_saved` says whether the frame's 0(SP) holds
  // the return address yet (else the link register still does).
  struct SpState {
    uint32_t from;
    int delta;
    bool lr_saved;
  };
  std::vector<SpState> pcsp;
  SpState SpAt(uint32_t off) const;
  std::vector<CodeRange> unsafe;     // compiler-marked unsafe sequences in the body
  // Restartable sequences: a preemption inside resumes at lo. `mark` is
  // Go's alternating -3/-4 (UnsafePointRestart1/2), so adjacent sequences
  // are told apart.
  struct Restart {
    uint32_t lo, hi;
    int mark;
  };
  std::vector<Restart> restarts;
  // The inline tree: [lo, hi) holds code inlined from `name`; `parent` is
  // the index of the enclosing inlined body, or -1 for the function itself.
  struct Inline {
    uint32_t lo, hi;
    std::string name, package;
    int parent;
  };
  std::vector<Inline> inlines;
  bool has(FuncFlag f) const { return (flags & f) != 0; }
  // The package of the innermost function at off, inlining taken into
  // account: the deepest body of the inline tree that holds off.
  const std::string& InnermostPackage(uint32_t off) const;
  // The package of the outermost inlined body holding off (the function's
  // own when none does): what a runtime that stops at the tree's first
  // level would ask (a mutation).
  const std::string& OutermostPackage(uint32_t off) const;
  // Depth of inline body i in the tree (1 for a body inlined directly).
  int InlineDepth(size_t i) const;
};

struct FuncTable {
  std::vector<FuncInfo> funcs;          // ascending by entry
  std::vector<uint32_t> insns;          // every instruction boundary, ascending
  std::vector<int32_t> insn_op;         // per instruction: IR op index in its function, or -1
  const FuncInfo* Find(uint32_t off) const;   // the function containing off
  const FuncInfo* Find(const std::string& name) const;
  bool IsBoundary(uint32_t off) const;
};

}  // namespace safepoint

#endif
