#include "fuzz/verdict_protocol.h"

#include "fuzz/wire.h"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>

namespace safepoint::verdict {

const char* StatusName(Status s) {
  switch (s) {
    case Status::kOk: return "ok";
    case Status::kMalformed: return "malformed request";
    case Status::kBadProgram: return "bad program";
    case Status::kPortRefused: return "refused by the port";
    case Status::kBaselineFailed: return "unpreempted run failed";
  }
  return "unknown status";
}

const char* OutcomeName(Outcome o) {
  static const char* const names[] = {"not-emitted", "not-reached", "accepted",  "restarted-at-entry", "resumed-elsewhere",
                                      "refused",     "not-wanted",  "no-decision", "run-error"};
  size_t i = static_cast<size_t>(o);
  return i < sizeof names / sizeof names[0] ? names[i] : "unknown-outcome";
}

using wire::Reader;
using wire::Writer;

std::string EncodeRequest(const ProbeRequest& r) {
  Writer w;
  w.U32(r.settings);
  w.Str(r.program);
  w.U32(static_cast<uint32_t>(r.ops.size()));
  for (uint32_t op : r.ops) w.U32(op);
  return w.Frame(kRequestMagic, kVersion, kProbe);
}

std::string EncodeResponse(const ProbeResponse& r) {
  Writer w;
  w.U16(static_cast<uint16_t>(r.status)), w.U16(0);
  w.Str(r.message);
  w.U32(r.insns);
  w.U32(static_cast<uint32_t>(r.probes.size()));
  for (const ProbeResult& p : r.probes) {
    w.U32(p.op);
    w.U8(static_cast<uint8_t>(p.actual)), w.U8(p.flags), w.U8(p.expect), w.U8(0);
    w.U32(p.insn);
    w.Str(p.detail);
    w.Str(p.expect_rule);
  }
  return w.Frame(kResponseMagic, kVersion, kResult);
}

std::string EncodeHello(std::string_view port, std::string_view config) {
  Writer w;
  w.Str(port), w.Str(config);
  return w.Frame(kResponseMagic, kVersion, kHello);
}

bool DecodeHeader(const uint8_t* p, uint32_t magic, Header* h, std::string* err, uint32_t max_payload) {
  Reader r(std::string_view(reinterpret_cast<const char*>(p), kHeaderBytes));
  r.U32(&h->magic), r.U16(&h->version), r.U16(&h->kind), r.U32(&h->length);
  char b[64];
  if (h->magic != magic) {
    snprintf(b, sizeof b, "magic 0x%08x, not 0x%08x", h->magic, magic);
    *err = b;
    return false;
  }
  if (h->version != kVersion) {
    *err = "protocol version " + std::to_string(h->version) + ", not " + std::to_string(kVersion);
    return false;
  }
  if (h->length > max_payload) {
    *err = "a payload of " + std::to_string(h->length) + " bytes (at most " + std::to_string(max_payload) + ")";
    return false;
  }
  return true;
}

bool DecodeRequest(std::string_view payload, ProbeRequest* out, std::string* err) {
  Reader r(payload);
  ProbeRequest q;
  uint32_t n = 0;
  if (!r.U32(&q.settings) || !r.Str(&q.program) || !r.U32(&n)) return *err = r.err, false;
  if (q.settings & ~static_cast<uint32_t>(kSettingsMask)) {
    *err = "settings 0x" + std::to_string(q.settings) + " has reserved bits set";
    return false;
  }
  if (n > kMaxProbes) {
    *err = std::to_string(n) + " probes (at most " + std::to_string(kMaxProbes) + ")";
    return false;
  }
  q.ops.resize(n);
  for (uint32_t& op : q.ops)
    if (!r.U32(&op)) return *err = r.err, false;
  if (!r.Done()) return *err = r.err, false;
  *out = std::move(q);
  return true;
}

bool DecodeResponse(std::string_view payload, ProbeResponse* out, std::string* err) {
  Reader r(payload);
  ProbeResponse p;
  uint16_t status = 0, pad = 0;
  uint32_t n = 0;
  if (!r.U16(&status) || !r.U16(&pad) || !r.Str(&p.message) || !r.U32(&p.insns) || !r.U32(&n))
    return *err = r.err, false;
  if (status > static_cast<uint16_t>(Status::kBaselineFailed)) return *err = "status " + std::to_string(status), false;
  p.status = static_cast<Status>(status);
  if (n > kMaxProbes) return *err = std::to_string(n) + " probe results", false;
  p.probes.resize(n);
  for (ProbeResult& x : p.probes) {
    uint8_t actual = 0, zero = 0;
    if (!r.U32(&x.op) || !r.U8(&actual) || !r.U8(&x.flags) || !r.U8(&x.expect) || !r.U8(&zero) || !r.U32(&x.insn) ||
        !r.Str(&x.detail) || !r.Str(&x.expect_rule))
      return *err = r.err, false;
    if (actual > static_cast<uint8_t>(Outcome::kRunError)) return *err = "outcome " + std::to_string(actual), false;
    x.actual = static_cast<Outcome>(actual);
  }
  if (!r.Done()) return *err = r.err, false;
  *out = std::move(p);
  return true;
}

bool DecodeHello(std::string_view payload, std::string* port, std::string* config, std::string* err) {
  Reader r(payload);
  if (!r.Str(port) || !r.Str(config) || !r.Done()) return *err = r.err, false;
  return true;
}

size_t ReadFull(int fd, void* buf, size_t n, int deadline_ms, bool* timed_out) {
  auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(deadline_ms);
  size_t got = 0;
  while (got < n) {
    if (deadline_ms >= 0) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now()).count();
      if (left <= 0) {
        if (timed_out) *timed_out = true;
        return got;
      }
      pollfd p{fd, POLLIN, 0};
      int k = poll(&p, 1, static_cast<int>(left));
      if (k < 0 && errno == EINTR) continue;
      if (k == 0) continue;  // the deadline is checked above
      if (k < 0) return got;
    }
    ssize_t r = read(fd, static_cast<char*>(buf) + got, n - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return got;
    got += static_cast<size_t>(r);
  }
  return got;
}

bool WriteFull(int fd, const void* buf, size_t n) {
  size_t put = 0;
  while (put < n) {
    ssize_t w = write(fd, static_cast<const char*>(buf) + put, n - put);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    put += static_cast<size_t>(w);
  }
  return true;
}

bool ReadFrame(int fd, uint32_t magic, Header* h, std::string* payload, std::string* err, int deadline_ms,
               bool* bad_header, uint32_t max_payload) {
  auto start = std::chrono::steady_clock::now();
  auto left = [&] {
    if (deadline_ms < 0) return -1;
    auto spent = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
    return spent >= deadline_ms ? 0 : static_cast<int>(deadline_ms - spent);
  };
  uint8_t hdr[kHeaderBytes];
  bool timed_out = false;
  size_t got = ReadFull(fd, hdr, kHeaderBytes, left(), &timed_out);
  if (got != kHeaderBytes) {
    *err = timed_out ? "no frame within " + std::to_string(deadline_ms) + " ms"
           : got == 0 ? "end of file"
                      : "end of file inside a frame header";
    return false;
  }
  if (!DecodeHeader(hdr, magic, h, err, max_payload)) {
    if (bad_header) *bad_header = true;
    return false;
  }
  payload->resize(h->length);
  got = ReadFull(fd, payload->data(), h->length, left(), &timed_out);
  if (got != h->length) {
    *err = timed_out ? "a frame's payload not complete within " + std::to_string(deadline_ms) + " ms"
                     : "end of file inside a frame's payload";
    return false;
  }
  return true;
}

int Serve(int in, int out, const Handler& handle) {
  for (;;) {
    Header h;
    std::string payload, err;
    bool bad_header = false;
    if (!ReadFrame(in, kRequestMagic, &h, &payload, &err, -1, &bad_header)) {
      if (!bad_header) return 0;  // end of file (inside a frame too: nobody is left to answer)
      ProbeResponse r;
      r.status = Status::kMalformed;
      r.message = "not a request frame: " + err;
      std::string f = EncodeResponse(r);
      WriteFull(out, f.data(), f.size());
      return 3;
    }
    ProbeResponse r;
    ProbeRequest q;
    if (h.kind != kProbe) {
      r.status = Status::kMalformed, r.message = "request kind " + std::to_string(h.kind) + " (only 1, probe)";
    } else if (!DecodeRequest(payload, &q, &err)) {
      r.status = Status::kMalformed, r.message = err;
    } else {
      r = handle(q);
    }
    std::string f = EncodeResponse(r);
    if (!WriteFull(out, f.data(), f.size())) return 1;
  }
}

}  // namespace safepoint::verdict
