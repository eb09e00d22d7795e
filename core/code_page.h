// CodePage: memory for generated machine code, mapped readable, writable
// and executable for its whole life. Code is copied in, and a patch
// (arming a breakpoint, restoring an instruction, a kept runtime's next
// program) is a store and an instruction-cache flush: no system call.
// (It was W^X, flipped by mprotect around every write: each mprotect that
// took write away was a TLB flush, the largest system cost of a fuzzing
// process, whose every input loads a program and arms an instruction.
// QEMU's user mode sees a write to a page it translated code from
// whatever the page's protection, and retranslates.) Patch is
// async-signal-safe: the SIGTRAP handler of armed delivery calls it.
#ifndef SAFEPOINT_RUNTIME_CODE_PAGE_H_
#define SAFEPOINT_RUNTIME_CODE_PAGE_H_

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

  // Writes n bytes at offset (within the code) and flushes the
  // instruction cache over them; false when they are outside the code.
  // Other threads may be running the code: an aligned 4-byte patch is one
  // store (they fetch the old instruction or the new one).
  bool Patch(uint32_t offset, const uint8_t* bytes, size_t n);
  // Replaces the whole code with `code` in the pages already mapped, for a
  // runtime that loads another program (Runtime::Load after Reset): no
  // thread may be running this code. False, nothing changed, when `code`
  // needs more pages than are mapped (the caller then creates a new
  // CodePage). Only the bytes that differ are written: two programs of one
  // fuzzing campaign share most of their code (the runtime's stubs always),
  // and under QEMU every page written is translated again.
  bool Rewrite(const std::vector<uint8_t>& code);
  // Copies n bytes at offset out, for restoring later.
  void Read(uint32_t offset, uint8_t* out, size_t n) const;

 private:
  CodePage(void* mem, size_t size, size_t mapped) : mem_(mem), size_(size), mapped_(mapped) {}
  void* mem_;
  size_t size_;
  size_t mapped_;
};

}  // namespace safepoint

#endif
