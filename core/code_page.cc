#include "core/code_page.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace safepoint {

bool CodePage::Flips() {
  static const bool flips = [] {
    const char* e = getenv("SAFEPOINT_EMULATOR");
    return e != nullptr && *e != '\0';
  }();
  return flips;
}

std::unique_ptr<CodePage> CodePage::Create(const std::vector<uint8_t>& code, std::string* err) {
  size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  size_t mapped = (code.size() + page - 1) / page * page;
  if (mapped == 0) mapped = page;
  const int prot = Flips() ? PROT_READ | PROT_WRITE : PROT_READ | PROT_WRITE | PROT_EXEC;
  void* mem = mmap(nullptr, mapped, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) {
    *err = std::string("mmap of a code page failed: ") + strerror(errno);
    return nullptr;
  }
  memcpy(mem, code.data(), code.size());
  if (Flips() && mprotect(mem, mapped, PROT_READ | PROT_EXEC) != 0) {
    *err = std::string("mprotect to read-execute failed: ") + strerror(errno);
    munmap(mem, mapped);
    return nullptr;
  }
  char* p = static_cast<char*>(mem);
  __builtin___clear_cache(p, p + code.size());
  return std::unique_ptr<CodePage>(new CodePage(mem, code.size(), mapped, page));
}

CodePage::~CodePage() { munmap(mem_, mapped_); }

void CodePage::Isolate(size_t i) {
  uint8_t n = patches_[i].load(std::memory_order_relaxed);
  if (n == kIsolated || mapped_ == page_) return;  // one page: a mapping of its own already
  if (n + 1 < kIsolateAt) {
    patches_[i].store(static_cast<uint8_t>(n + 1), std::memory_order_relaxed);
    return;
  }
  // A locked page is a mapping of its own (VM_LOCKED): the kernel neither
  // splits the code's mapping to change its protection nor merges it back
  // with its unlocked neighbours. (QEMU's user mode passes mlock through.)
  // Tried once; a failure only leaves the page as it was.
  mlock(static_cast<char*>(mem_) + i * page_, page_);
  patches_[i].store(kIsolated, std::memory_order_relaxed);
}

bool CodePage::Patch(uint32_t offset, const uint8_t* bytes, size_t n) {
  if (offset + n > size_) return false;
  // Writable and still executable while the bytes change: other threads
  // may be running this code (GOMAXPROCS > 1). A page made RW without X
  // for the write faulted them (found by //fuzz:preempt_fuzz on loong64:
  // "SIGSEGV in goroutine 1: pc=main.main+0x30 addr=<that pc>").
  char* p = static_cast<char*>(mem_) + offset;
  const uintptr_t page = page_;
  char* lo = reinterpret_cast<char*>(reinterpret_cast<uintptr_t>(p) & ~(page - 1));
  size_t len = static_cast<size_t>((reinterpret_cast<uintptr_t>(p + n) + page - 1) / page * page - reinterpret_cast<uintptr_t>(lo));
  const bool flips = Flips();
  for (size_t i = (lo - static_cast<char*>(mem_)) / page, e = i + len / page; i < e; i++) {
    written_[i].store(true, std::memory_order_relaxed);
    if (flips) Isolate(i);
  }
  if (flips && mprotect(lo, len, PROT_READ | PROT_WRITE | PROT_EXEC) != 0) return false;
  if (n == 4 && (reinterpret_cast<uintptr_t>(p) & 3) == 0) {
    // One aligned store: a thread fetching the instruction sees the old
    // one or the new one, never half of each.
    uint32_t w = static_cast<uint32_t>(bytes[0]) | static_cast<uint32_t>(bytes[1]) << 8 |
                 static_cast<uint32_t>(bytes[2]) << 16 | static_cast<uint32_t>(bytes[3]) << 24;
    __atomic_store_n(reinterpret_cast<uint32_t*>(p), w, __ATOMIC_RELEASE);
  } else {
    for (size_t i = 0; i < n; i++) p[i] = static_cast<char>(bytes[i]);  // no libc call: signal-safe
  }
  if (flips && mprotect(lo, len, PROT_READ | PROT_EXEC) != 0) return false;
  __builtin___clear_cache(p, p + n);
  return true;
}

bool CodePage::Rewrite(const std::vector<uint8_t>& code) {
  if (code.size() > mapped_ || code.empty()) return false;
  // Only the pages that change are made writable, in runs: each generated
  // function starts a page of its own, and two programs of one fuzzing
  // campaign share most of theirs (the runtime's stubs always), while each
  // mprotect that takes a permission away is a TLB shootdown.
  const size_t page = page_;
  const size_t len = size_ > code.size() ? size_ : code.size();
  const size_t pages = (len + page - 1) / page;
  const bool flips = Flips();
  char* p = static_cast<char*>(mem_);
  // Bytes [lo, hi) should hold the code, then zeros to the old code's end:
  // the code in [lo, mid), zeros in [mid, hi). Compared and written with
  // memcmp, memcpy and memset, not a loop per byte choosing which.
  auto code_end = [&](size_t lo, size_t hi) { return std::clamp(code.size(), lo, hi); };
  auto differs = [&](size_t i) {
    size_t lo = i * page, hi = std::min(lo + page, len), mid = code_end(lo, hi);
    if (mid > lo && memcmp(p + lo, code.data() + lo, mid - lo) != 0) return true;
    for (size_t a = mid; a < hi; a++)
      if (p[a] != 0) return true;
    return false;
  };
  for (size_t i = 0; i < pages;) {
    if (!differs(i)) {
      i++;
      continue;
    }
    size_t j = i + 1;
    while (j < pages && differs(j)) j++;
    char* lo = p + i * page;
    size_t n = (j - i) * page;
    if (flips && mprotect(lo, n, PROT_READ | PROT_WRITE) != 0) return false;
    size_t begin = i * page, end = std::min(j * page, len), mid = code_end(begin, end);
    if (mid > begin) memcpy(p + begin, code.data() + begin, mid - begin);
    if (end > mid) memset(p + mid, 0, end - mid);
    if (flips && mprotect(lo, n, PROT_READ | PROT_EXEC) != 0) return false;
    __builtin___clear_cache(lo, lo + n);
    i = j;
  }
  size_ = code.size();
  for (size_t i = 0; i < mapped_ / page; i++) written_[i].store(false, std::memory_order_relaxed);
  return true;
}

bool CodePage::Matches(const std::vector<uint8_t>& code) {
  if (code.size() != size_) return false;
  const size_t page = page_;
  const uint8_t* p = static_cast<const uint8_t*>(mem_);
  for (size_t i = 0; i < mapped_ / page; i++) {
    if (!written_[i].load(std::memory_order_relaxed)) continue;
    size_t lo = i * page, hi = std::min(lo + page, size_);
    if (lo < hi && memcmp(p + lo, code.data() + lo, hi - lo) != 0) return false;
    written_[i].store(false, std::memory_order_relaxed);
  }
  return true;
}

void CodePage::Read(uint32_t offset, uint8_t* out, size_t n) const {
  const uint8_t* p = static_cast<const uint8_t*>(mem_) + offset;
  for (size_t i = 0; i < n; i++) out[i] = p[i];
}

}  // namespace safepoint
