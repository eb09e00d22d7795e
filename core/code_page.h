// CodePage: memory for generated machine code. Natively it is mapped
// readable, writable and executable for its whole life, and a patch
// (arming a breakpoint, restoring an instruction, a kept runtime's next
// program) is a store and an instruction-cache flush: no system call.
// Under an emulator (SAFEPOINT_EMULATOR, set by platforms/toolchains/run)
// it is never writable and executable at once: code is written while the
// page is read-write, then the page becomes read-execute, and a patch
// flips it back for the write only. Why two ways (measured by ci/bench.sh,
// async_bench): natively each mprotect that takes write away is a TLB
// flush, and W^X held the armed rate at 28,500/s where RWX gives 92,600/s;
// under QEMU's user mode a guest's mprotect is where QEMU drops the page's
// translations cheaply, while a store to a RWX page it translated from
// takes a host SIGSEGV first, and RWX halved the armed rate on arm64
// (10,300/s to 4,900/s). Patch is async-signal-safe: the SIGTRAP handler of
// armed delivery calls it.
#ifndef SAFEPOINT_RUNTIME_CODE_PAGE_H_
#define SAFEPOINT_RUNTIME_CODE_PAGE_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace safepoint {

class CodePage {
 public:
  // Maps enough pages for `code`, copies it in and makes it executable.
  // Returns nullptr and sets *err on failure.
  static std::unique_ptr<CodePage> Create(const std::vector<uint8_t>& code, std::string* err);
  ~CodePage();
  CodePage(const CodePage&) = delete;
  CodePage& operator=(const CodePage&) = delete;

  uintptr_t base() const { return reinterpret_cast<uintptr_t>(mem_); }
  size_t size() const { return size_; }        // bytes of code
  size_t mapped() const { return mapped_; }    // bytes mapped (whole pages)
  bool contains(uintptr_t pc) const { return pc >= base() && pc < base() + size_; }
  template <typename F>
  F as(uint32_t offset) const {
    return reinterpret_cast<F>(base() + offset);
  }

  // Writes n bytes at offset (within the code) and flushes the instruction
  // cache over them; an aligned 4-byte patch is one store (threads running
  // the code fetch the old instruction or the new one). Under an emulator
  // the pages they are on (only those) are made writable for the duration
  // and stay executable (other threads may be running them), then
  // read-execute again; false if a system call failed. A page patched a
  // third time (a second arm of one
  // function: a benchmark's, a kept runtime's) is given a kernel mapping of
  // its own first (it is locked in memory), so that its later patches
  // change one whole mapping's protection instead of splitting the code's
  // mapping in three and merging it back each time (2 us a patch under
  // qemu-aarch64 on the bench machine, of ~12). A page that cannot be
  // locked (RLIMIT_MEMLOCK) is patched as before.
  bool Patch(uint32_t offset, const uint8_t* bytes, size_t n);
  // Replaces the whole code with `code` in the pages already mapped, for a
  // runtime that loads another program (Runtime::Load after Reset): no
  // thread may be running this code. Only the pages that differ are
  // written (two programs of one fuzzing campaign share most of theirs, the
  // runtime's stubs always). False, nothing changed, when `code` needs more
  // pages than are mapped or a system call failed (the caller then creates
  // a new CodePage). Unmapping and mapping instead cost a TLB shootdown
  // across CPUs each, a fuzzing process's largest system cost.
  bool Rewrite(const std::vector<uint8_t>& code);
  // Copies n bytes at offset out, for restoring later.
  void Read(uint32_t offset, uint8_t* out, size_t n) const;
  // True when the code is `code` again (a kept runtime's Reset: no patch
  // left in it). Only the pages Patch wrote since the code was last found
  // so (or created, or rewritten) are compared, and found so they are
  // counted clean again: an execution arms and restores an instruction or
  // two, and comparing every page of a program whose functions each start
  // a page of their own was a copy and a compare of tens of KB a reset
  // (under QEMU, emulated). Patch is the code's one writer besides
  // Rewrite. No thread may be running the code.
  bool Matches(const std::vector<uint8_t>& code);
  // True when pages are flipped W^X around each write (under an emulator),
  // false when they are mapped RWX (natively).
  static bool Flips();

 private:
  CodePage(void* mem, size_t size, size_t mapped, size_t page)
      : mem_(mem), size_(size), mapped_(mapped), page_(page), patches_(new std::atomic<uint8_t>[mapped / page]()),
        written_(new std::atomic<bool>[mapped / page]()) {}
  // Counts page i's patch and gives it a mapping of its own at the third.
  void Isolate(size_t i);
  void* mem_;
  size_t size_;
  size_t mapped_;
  size_t page_;
  // Per page: patches so far (saturating), or kIsolated.
  static constexpr uint8_t kIsolateAt = 3, kIsolated = 0xff;
  std::unique_ptr<std::atomic<uint8_t>[]> patches_;
  // Per page: Patch wrote it since Matches last found it as emitted.
  std::unique_ptr<std::atomic<bool>[]> written_;
};

}  // namespace safepoint

#endif
