#include "core/code_page.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace safepoint {

std::unique_ptr<CodePage> CodePage::Create(const std::vector<uint8_t>& code, std::string* err) {
  size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  size_t mapped = (code.size() + page - 1) / page * page;
  if (mapped == 0) mapped = page;
  void* mem = mmap(nullptr, mapped, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) {
    *err = std::string("mmap of a code page failed: ") + strerror(errno);
    return nullptr;
  }
  memcpy(mem, code.data(), code.size());
  char* p = static_cast<char*>(mem);
  __builtin___clear_cache(p, p + code.size());
  return std::unique_ptr<CodePage>(new CodePage(mem, code.size(), mapped));
}

CodePage::~CodePage() { munmap(mem_, mapped_); }

bool CodePage::Patch(uint32_t offset, const uint8_t* bytes, size_t n) {
  if (offset + n > size_) return false;
  char* p = static_cast<char*>(mem_) + offset;
  if (n == 4 && (reinterpret_cast<uintptr_t>(p) & 3) == 0) {
    // One aligned store: a thread fetching the instruction sees the old
    // one or the new one, never half of each.
    uint32_t w = static_cast<uint32_t>(bytes[0]) | static_cast<uint32_t>(bytes[1]) << 8 |
                 static_cast<uint32_t>(bytes[2]) << 16 | static_cast<uint32_t>(bytes[3]) << 24;
    __atomic_store_n(reinterpret_cast<uint32_t*>(p), w, __ATOMIC_RELEASE);
  } else {
    for (size_t i = 0; i < n; i++) p[i] = static_cast<char>(bytes[i]);  // no libc call: signal-safe
  }
  __builtin___clear_cache(p, p + n);
  return true;
}

bool CodePage::Rewrite(const std::vector<uint8_t>& code) {
  if (code.size() > mapped_ || code.empty()) return false;
  const size_t len = size_ > code.size() ? size_ : code.size();
  uint8_t* p = static_cast<uint8_t*>(mem_);
  size_t first = len, last = 0;  // the bytes written, for the cache flush
  // In blocks of 256 bytes compared at once (most are the same).
  constexpr size_t kBlock = 256;
  for (size_t lo = 0; lo < len; lo += kBlock) {
    const size_t hi = lo + kBlock < len ? lo + kBlock : len;
    if (hi <= code.size() && memcmp(p + lo, code.data() + lo, hi - lo) == 0) continue;
    bool wrote = false;
    for (size_t a = lo; a < hi; a++) {
      uint8_t want = a < code.size() ? code[a] : 0;
      if (p[a] == want) continue;
      p[a] = want;
      wrote = true;
    }
    if (!wrote) continue;
    first = lo < first ? lo : first;
    last = hi;
  }
  if (first < last) __builtin___clear_cache(reinterpret_cast<char*>(p) + first, reinterpret_cast<char*>(p) + last);
  size_ = code.size();
  return true;
}

void CodePage::Read(uint32_t offset, uint8_t* out, size_t n) const {
  const uint8_t* p = static_cast<const uint8_t*>(mem_) + offset;
  for (size_t i = 0; i < n; i++) out[i] = p[i];
}

}  // namespace safepoint
