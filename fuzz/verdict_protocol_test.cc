// The verdict executor's protocol (fuzz/verdict_protocol.h): frames round
// trip; a malformed request gets a logic-failure status, never a crash, and
// the executor goes on serving; a header that is no frame ends the session
// with kMalformed and exit status 3; a good request is answered on this
// port with each probe's verdict and the port's own expectation.
#include "fuzz/verdict_protocol.h"

#include <fcntl.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "fuzz/verdict_probe.h"
#include "gtest/gtest.h"
#include "oracle/decision.h"

namespace safepoint::verdict {
namespace {

const char kProgram[] =
    "func main.main frame=16\n"
    "  movi r1, 9\n"
    "  st g[3], r1\n"
    "  ld r2, g[3]\n"
    "  addi r2, 200000\n"
    "  st g[4], r2\n"
    "  ret\n"
    "end\n";

// Feeds `input` to Serve through pipes; returns its exit status and the
// frames it wrote.
int ServeBytes(const std::string& input, std::vector<ProbeResponse>* out) {
  int in[2], res[2];
  EXPECT_EQ(pipe(in), 0);
  EXPECT_EQ(pipe(res), 0);
  EXPECT_LT(input.size(), 60000u);  // fits in the pipe: written before Serve reads
  EXPECT_TRUE(WriteFull(in[1], input.data(), input.size()));
  close(in[1]);
  int rc = Serve(in[0], res[1], [](const ProbeRequest& q) { return ProbeOnNativePort(q); });
  close(in[0]);
  close(res[1]);
  for (;;) {
    Header h;
    std::string payload, err;
    if (!ReadFrame(res[0], kResponseMagic, &h, &payload, &err, 10000)) {
      EXPECT_EQ(err, "end of file");
      break;
    }
    ProbeResponse r;
    EXPECT_EQ(h.kind, kResult);
    EXPECT_TRUE(DecodeResponse(payload, &r, &err)) << err;
    out->push_back(r);
  }
  close(res[0]);
  return rc;
}

std::string Payload(const std::string& frame) { return frame.substr(kHeaderBytes); }

TEST(VerdictProtocol, RequestRoundTrips) {
  ProbeRequest q;
  q.settings = kSetRuntimeSecret;
  q.program = kProgram;
  q.ops = {0, 3, 5};
  std::string f = EncodeRequest(q);
  Header h;
  std::string err;
  ASSERT_TRUE(DecodeHeader(reinterpret_cast<const uint8_t*>(f.data()), kRequestMagic, &h, &err)) << err;
  EXPECT_EQ(h.kind, kProbe);
  EXPECT_EQ(h.length, f.size() - kHeaderBytes);
  EXPECT_EQ(f.substr(0, 4), "SVPQ");  // little-endian on the wire, whatever the host
  ProbeRequest back;
  ASSERT_TRUE(DecodeRequest(Payload(f), &back, &err)) << err;
  EXPECT_EQ(back.settings, q.settings);
  EXPECT_EQ(back.program, q.program);
  EXPECT_EQ(back.ops, q.ops);
}

TEST(VerdictProtocol, ResponseRoundTrips) {
  ProbeResponse r;
  r.insns = 42;
  ProbeResult p;
  p.op = 7, p.actual = Outcome::kRefused, p.flags = kResumeAtEntry, p.expect = 0, p.insn = 12;
  p.detail = "unsafe-point", p.expect_rule = "unsafe-point";
  r.probes = {p, ProbeResult()};
  std::string err;
  ProbeResponse back;
  std::string f = EncodeResponse(r);
  EXPECT_EQ(f.substr(0, 4), "SVPR");
  ASSERT_TRUE(DecodeResponse(Payload(f), &back, &err)) << err;
  ASSERT_EQ(back.probes.size(), 2u);
  EXPECT_EQ(back.insns, 42u);
  EXPECT_EQ(back.probes[0].op, 7u);
  EXPECT_EQ(back.probes[0].actual, Outcome::kRefused);
  EXPECT_EQ(back.probes[0].flags, kResumeAtEntry);
  EXPECT_EQ(back.probes[0].insn, 12u);
  EXPECT_EQ(back.probes[0].detail, "unsafe-point");
  EXPECT_EQ(back.probes[1].actual, Outcome::kNotEmitted);
  EXPECT_EQ(back.probes[1].insn, 0xffffffffu);
  std::string port, config;
  std::string hello = EncodeHello("arm64", "arm64");
  ASSERT_TRUE(DecodeHello(Payload(hello), &port, &config, &err)) << err;
  EXPECT_EQ(port, "arm64");
}

TEST(VerdictProtocol, TruncatedAndPaddedPayloadsAreRefused) {
  ProbeRequest q;
  q.program = kProgram;
  q.ops = {1, 2};
  std::string p = Payload(EncodeRequest(q));
  ProbeRequest back;
  std::string err;
  for (size_t n = 0; n < p.size(); n++) EXPECT_FALSE(DecodeRequest(p.substr(0, n), &back, &err)) << n;
  EXPECT_FALSE(DecodeRequest(p + "x", &back, &err));
  EXPECT_NE(err.find("after the payload"), std::string::npos) << err;
}

TEST(VerdictExecutor, MalformedRequestsGetALogicStatusAndServingGoesOn) {
  ProbeRequest reserved;  // a reserved settings bit
  reserved.settings = 0x100, reserved.program = kProgram;
  ProbeRequest too_many;  // more probes than the protocol allows
  too_many.program = kProgram;
  too_many.ops.assign(kMaxProbes + 1, 0);
  ProbeRequest out_of_range;  // an operation the program does not have
  out_of_range.program = kProgram, out_of_range.ops = {6};
  ProbeRequest bad_program;
  bad_program.program = "func main.main\n  frobnicate r1\nend\n", bad_program.ops = {0};
  std::string wrong_kind = EncodeRequest(reserved);
  wrong_kind[6] = 9;  // kind 9
  ProbeRequest good;
  good.program = kProgram, good.ops = {0, 3, 5};
  std::vector<ProbeResponse> got;
  int rc = ServeBytes(EncodeRequest(reserved) + EncodeRequest(too_many) + EncodeRequest(out_of_range) +
                          EncodeRequest(bad_program) + wrong_kind + EncodeRequest(good),
                      &got);
  EXPECT_EQ(rc, 0);
  ASSERT_EQ(got.size(), 6u);
  EXPECT_EQ(got[0].status, Status::kMalformed) << got[0].message;
  EXPECT_NE(got[0].message.find("reserved"), std::string::npos) << got[0].message;
  EXPECT_EQ(got[1].status, Status::kMalformed) << got[1].message;
  EXPECT_EQ(got[2].status, Status::kMalformed) << got[2].message;
  EXPECT_EQ(got[3].status, Status::kBadProgram) << got[3].message;
  EXPECT_EQ(got[4].status, Status::kMalformed) << got[4].message;
  EXPECT_EQ(got[5].status, Status::kOk) << got[5].message;
  for (int i = 0; i < 5; i++) EXPECT_TRUE(got[i].probes.empty());
}

TEST(VerdictExecutor, ABadHeaderEndsTheSession) {
  ProbeRequest good;
  good.program = kProgram, good.ops = {0};
  std::string bad = EncodeRequest(good);
  bad[0] ^= 0x20;  // the magic
  std::vector<ProbeResponse> got;
  EXPECT_EQ(ServeBytes(bad + EncodeRequest(good), &got), 3);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].status, Status::kMalformed);
  EXPECT_NE(got[0].message.find("magic"), std::string::npos) << got[0].message;
  got.clear();
  std::string future = EncodeRequest(good);
  future[4] = 2;  // version 2
  EXPECT_EQ(ServeBytes(future, &got), 3);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_NE(got[0].message.find("version"), std::string::npos) << got[0].message;
}

TEST(VerdictExecutor, AGoodRequestIsAnsweredWithVerdictsAndExpectations) {
  ProbeRequest q;
  q.program = kProgram, q.ops = {0, 3, 5};
  std::vector<ProbeResponse> got;
  ASSERT_EQ(ServeBytes(EncodeRequest(q), &got), 0);
  ASSERT_EQ(got.size(), 1u);
  const ProbeResponse r = got[0];  // a copy: got is reused below
  ASSERT_EQ(r.status, Status::kOk) << r.message;
  EXPECT_GT(r.insns, 0u);
  ASSERT_EQ(r.probes.size(), 3u);
  for (size_t i = 0; i < 3; i++) {
    const ProbeResult& p = r.probes[i];
    SCOPED_TRACE("operation " + std::to_string(q.ops[i]));
    EXPECT_EQ(p.op, q.ops[i]);
    EXPECT_NE(p.insn, 0xffffffffu);
    // Every operation here runs once, at a safe or unsafe point the port's
    // data decides; the runtime agrees with the port's own expectation.
    auto x = static_cast<oracle::Verdict>(p.expect);
    if (x == oracle::Verdict::kRefuse) {
      EXPECT_EQ(p.actual, Outcome::kRefused) << p.detail;
      EXPECT_EQ(p.detail, p.expect_rule);
    } else {
      EXPECT_TRUE(x == oracle::Verdict::kAccept || x == oracle::Verdict::kRestart) << oracle::VerdictName(x);
      EXPECT_EQ(p.actual, Outcome::kAccepted) << OutcomeName(p.actual) << " " << p.detail;
    }
  }
  // The same request again is answered from the cached baseline, the same.
  got.clear();
  ASSERT_EQ(ServeBytes(EncodeRequest(q) + EncodeRequest(q), &got), 0);
  ASSERT_EQ(got.size(), 2u);
  for (size_t i = 0; i < 3; i++) EXPECT_EQ(got[1].probes[i].actual, r.probes[i].actual);
}

}  // namespace
}  // namespace safepoint::verdict
