#include "fuzz/artifacts.h"

#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

namespace safepoint::fuzz {

namespace {

std::string g_prefix = "./";

int64_t NowNanos() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

struct Watch {
  std::mutex mu;
  std::vector<uint8_t> input;      // the current execution's
  std::atomic<int64_t> began{0};   // 0: no execution running
  std::atomic<int> limit_s{0};
  std::string target, replay;
};
Watch g_watch;

[[noreturn]] void Stalled(int64_t ran_ns) {
  std::vector<uint8_t> input;
  {
    std::lock_guard<std::mutex> lk(g_watch.mu);
    input = g_watch.input;
  }
  fprintf(stderr,
          "==safepoint-fuzz== ERROR: stall: no execution finished in %d s (this one has run %.0f s) [%s]: the run "
          "never ended; its input is kept\n",
          g_watch.limit_s.load(), static_cast<double>(ran_ns) / 1e9, g_watch.target.c_str());
  std::string path = SaveArtifact("timeout", input.data(), input.size());
  if (!path.empty() && !g_watch.replay.empty())
    fprintf(stderr, "==safepoint-fuzz== ERROR: |replay: %s %s\n", g_watch.replay.c_str(), path.c_str());
  fflush(stderr);
  _exit(70);  // libFuzzer's -timeout_exitcode
}

void WatchLoop() {
  for (;;) {
    timespec nap{0, 200'000'000};
    nanosleep(&nap, nullptr);
    int64_t began = g_watch.began.load();
    if (began == 0) continue;
    int64_t ran = NowNanos() - began;
    if (ran > static_cast<int64_t>(g_watch.limit_s.load()) * 1'000'000'000) Stalled(ran);
  }
}

}  // namespace

std::string Sha1Hex(const uint8_t* data, size_t size) {
  auto rol = [](uint32_t x, int n) { return (x << n) | (x >> (32 - n)); };
  uint32_t h[5] = {0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0};
  std::string m(reinterpret_cast<const char*>(data), size);
  m += static_cast<char>(0x80);
  while (m.size() % 64 != 56) m += '\0';
  for (int i = 7; i >= 0; i--) m += static_cast<char>((static_cast<uint64_t>(size) * 8) >> (8 * i));
  for (size_t off = 0; off < m.size(); off += 64) {
    uint32_t w[80];
    for (int i = 0; i < 16; i++)
      w[i] = static_cast<uint32_t>(static_cast<uint8_t>(m[off + 4 * i])) << 24 |
             static_cast<uint32_t>(static_cast<uint8_t>(m[off + 4 * i + 1])) << 16 |
             static_cast<uint32_t>(static_cast<uint8_t>(m[off + 4 * i + 2])) << 8 |
             static_cast<uint32_t>(static_cast<uint8_t>(m[off + 4 * i + 3]));
    for (int i = 16; i < 80; i++) w[i] = rol(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
    for (int i = 0; i < 80; i++) {
      uint32_t f = i < 20 ? (b & c) | (~b & d) : i < 40 ? b ^ c ^ d : i < 60 ? (b & c) | (b & d) | (c & d) : b ^ c ^ d;
      uint32_t k = i < 20 ? 0x5A827999 : i < 40 ? 0x6ED9EBA1 : i < 60 ? 0x8F1BBCDC : 0xCA62C1D6;
      uint32_t t = rol(a, 5) + f + e + k + w[i];
      e = d, d = c, c = rol(b, 30), b = a, a = t;
    }
    h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e;
  }
  char hex[41];
  for (int i = 0; i < 5; i++) snprintf(hex + 8 * i, 9, "%08x", h[i]);
  return hex;
}

void ReadArtifactPrefix(int argc, char** argv) {
  for (int i = 1; i < argc; i++)
    if (strncmp(argv[i], "-artifact_prefix=", 17) == 0) g_prefix = argv[i] + 17;
}

const std::string& ArtifactPrefix() { return g_prefix; }

std::string SaveArtifact(const char* kind, const uint8_t* data, size_t size) {
  std::string path = g_prefix + kind + "-" + Sha1Hex(data, size);
  FILE* f = fopen(path.c_str(), "wb");
  if (f == nullptr) {
    fprintf(stderr, "  could not write %s\n", path.c_str());
    return "";
  }
  if (size > 0) fwrite(data, 1, size, f);
  fclose(f);
  fprintf(stderr, "  saved: %s\n", path.c_str());
  return path;
}

void StartStallWatchdog(const char* target, int argc, char** argv, const std::string& replay) {
  static std::once_flag once;
  std::call_once(once, [&] {
    ReadArtifactPrefix(argc, argv);
    int limit = 1200;
    for (int i = 1; i < argc; i++)
      if (strncmp(argv[i], "-timeout=", 9) == 0 && atoi(argv[i] + 9) > 0) limit = atoi(argv[i] + 9);
    if (const char* s = getenv("SAFEPOINT_FUZZ_STALL_S"); s && *s) {
      int v = atoi(s);
      if (v <= 0 || v > 86400) {
        fprintf(stderr, "%s: SAFEPOINT_FUZZ_STALL_S=%s: seconds in 1..86400\n", target, s);
        exit(2);
      }
      limit = v;
    }
    g_watch.limit_s.store(limit);
    g_watch.target = target;
    g_watch.replay = replay;
    // The watchdog takes no signal: the process's signals go where they went.
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    std::thread(WatchLoop).detach();
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
  });
}

void ExecutionBegins(const uint8_t* data, size_t size) {
  {
    std::lock_guard<std::mutex> lk(g_watch.mu);
    g_watch.input.assign(data, data + size);
  }
  g_watch.began.store(NowNanos());
}

void ExecutionEnds() { g_watch.began.store(0); }

int StallLimitSeconds() { return g_watch.limit_s.load(); }

}  // namespace safepoint::fuzz
