// The case executor's protocol (fuzz/case_protocol.h), on every port: each
// message round trips field by field; a request the executor cannot read
// or make a runtime for is refused, never run; and a case run through the
// executor's side (Answer, here in-process: the channel's bytes as a pipe
// would carry them) shows exactly what it shows when run in this process,
// over the same mixed inputs that hold a kept runtime to a fresh one.
#include "fuzz/case_protocol.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "fuzz/verdict_protocol.h"
#include "harness/sweep.h"
#include "oracle/case_showing.h"
#include "platforms/emitter.h"
#include "platforms/native.h"

namespace safepoint::fuzz::cases {
namespace {

// A frame's kind and payload; fails the test when it is no frame.
void Split(const std::string& frame, uint32_t magic, uint16_t* kind, std::string* payload) {
  verdict::Header h;
  std::string err;
  ASSERT_GE(frame.size(), verdict::kHeaderBytes);
  ASSERT_TRUE(verdict::DecodeHeader(reinterpret_cast<const uint8_t*>(frame.data()), magic, &h, &err, kMaxCasePayload))
      << err;
  ASSERT_EQ(h.length, frame.size() - verdict::kHeaderBytes);
  *kind = h.kind;
  *payload = frame.substr(verdict::kHeaderBytes);
}

// The executor's side answered in this process.
class Loopback : public Channel {
 public:
  void Ask(const std::string& frame, uint16_t* kind, std::string* payload) override {
    uint16_t k = 0;
    std::string q;
    Split(frame, verdict::kRequestMagic, &k, &q);
    Split(Answer(k, q), verdict::kResponseMagic, kind, payload);
    asked[k]++;
  }
  const std::string& config() const override { return name; }
  std::string name = "loopback";
  std::map<uint16_t, int> asked;
};

TEST(CaseProtocol, RequestRoundTripsFieldByField) {
  Request q;
  q.settings = 0xA5;
  q.flags = kSysmonClock | kArmThen;
  q.keep = "settings 165, source sysmon";
  q.mutation = "drop-register";
  q.program = "func main.main frame=0\n  ret\nend\n";
  q.ir = std::string("\x01\x00\xff", 3);
  q.main = "main.main";
  q.armed = 0x12345678;
  q.then = {{7, harness::RequestSource::kSuspendG}, {0xFFFFFFF0u, harness::RequestSource::kForEachP}};
  uint16_t kind;
  std::string payload, err;
  Split(EncodeRequest(kRun, q), verdict::kRequestMagic, &kind, &payload);
  EXPECT_EQ(kind, kRun);
  Request d;
  ASSERT_TRUE(DecodeRequest(payload, &d, &err)) << err;
  EXPECT_EQ(d.settings, q.settings);
  EXPECT_EQ(d.flags, q.flags);
  EXPECT_EQ(d.keep, q.keep);
  EXPECT_EQ(d.mutation, q.mutation);
  EXPECT_EQ(d.program, q.program);
  EXPECT_EQ(d.ir, q.ir);
  EXPECT_EQ(d.main, q.main);
  EXPECT_EQ(d.armed, q.armed);
  ASSERT_EQ(d.then.size(), 2u);
  for (size_t i = 0; i < 2; i++) {
    EXPECT_EQ(d.then[i].off, q.then[i].off) << i;
    EXPECT_EQ(d.then[i].src, q.then[i].src) << i;
  }
  // Every shorter payload is malformed, and so is one byte more.
  for (size_t n = 0; n < payload.size(); n++)
    EXPECT_FALSE(DecodeRequest(payload.substr(0, n), &d, &err)) << "cut at " << n;
  EXPECT_FALSE(DecodeRequest(payload + "x", &d, &err));
}

// A program read back from its fields is the program, field by field:
// generated ones (every kind of operation the generator writes), with the
// fields no generated program sets given values of their own.
TEST(CaseProtocol, AProgramReadsBackFromItsFieldsFieldByField) {
  std::vector<std::string> inputs = oracle::CoverageRandomInputs(40, 5);
  size_t insns = 0;
  for (size_t n = 0; n < inputs.size(); n++) {
    oracle::Case c;
    std::string err;
    ASSERT_TRUE(oracle::DecodeCase(reinterpret_cast<const uint8_t*>(inputs[n].data()), inputs[n].size(), &c, &err));
    std::shared_ptr<const ir::Program> parsed = oracle::CaseProgram(c.program, &err);
    ASSERT_NE(parsed, nullptr) << err;
    ir::Program p = *parsed;
    p.funcs[0].nosplit = !p.funcs[0].nosplit, p.funcs[0].is_asm = true, p.funcs[0].nongo = true;
    p.funcs[0].restart_at_entry = true, p.funcs[0].ptr_slots.push_back(-8), p.funcs[0].args = 3;
    p.funcs[0].line = 77;
    ir::Program d;
    std::string bytes = EncodeProgram(p);
    ASSERT_TRUE(DecodeProgram(bytes, &d, &err)) << err;
    ASSERT_EQ(d.funcs.size(), p.funcs.size());
    for (size_t i = 0; i < p.funcs.size(); i++) {
      const ir::Function &a = p.funcs[i], &b = d.funcs[i];
      SCOPED_TRACE(a.name);
      EXPECT_EQ(a.name, b.name);
      EXPECT_EQ(a.package, b.package);
      EXPECT_EQ(a.frame, b.frame);
      EXPECT_EQ(a.nosplit, b.nosplit);
      EXPECT_EQ(a.is_asm, b.is_asm);
      EXPECT_EQ(a.nongo, b.nongo);
      EXPECT_EQ(a.restart_at_entry, b.restart_at_entry);
      EXPECT_EQ(a.ptr_slots, b.ptr_slots);
      EXPECT_EQ(a.args, b.args);
      EXPECT_EQ(a.line, b.line);
      ASSERT_EQ(a.body.size(), b.body.size());
      for (size_t k = 0; k < a.body.size(); k++) {
        const ir::Insn &x = a.body[k], &y = b.body[k];
        EXPECT_EQ(x.op, y.op) << k;
        EXPECT_EQ(x.rd, y.rd) << k;
        EXPECT_EQ(x.rs, y.rs) << k;
        EXPECT_EQ(x.imm, y.imm) << k;
        EXPECT_EQ(x.target, y.target) << k;
        EXPECT_EQ(x.service, y.service) << k;
        EXPECT_EQ(x.line, y.line) << k;
        insns++;
      }
    }
    // Cut short, or with a byte more, it is no program.
    EXPECT_FALSE(DecodeProgram(std::string_view(bytes).substr(0, bytes.size() - 1), &d, &err));
    EXPECT_FALSE(DecodeProgram(bytes + "x", &d, &err));
  }
  EXPECT_GT(insns, 2000u);
  // An operation or a service no program has is refused.
  ir::Program one;
  one.funcs.resize(1);
  one.funcs[0].name = "main.main";
  one.funcs[0].body.resize(1);
  std::string bytes = EncodeProgram(one);
  ir::Program d;
  std::string err;
  ASSERT_TRUE(DecodeProgram(bytes, &d, &err)) << err;
  std::string bad = bytes;
  bad[bad.size() - 26] = static_cast<char>(0xFE);  // the operation
  EXPECT_FALSE(DecodeProgram(bad, &d, &err));
  EXPECT_NE(err.find("operation 254"), std::string::npos) << err;
}

// A function table with every field of every kind set, each to a value of
// its own.
FuncTable FullTable() {
  FuncTable t;
  for (int i = 0; i < 2; i++) {
    FuncInfo f;
    f.name = "main.f" + std::to_string(i);
    f.package = "pkg" + std::to_string(i);
    f.entry = 100u * i + 1, f.end = 100u * i + 90, f.flags = kFuncNosplit | kFuncRestartAtEntry;
    f.frame = 48 + i, f.max_sp_delta = -56 - i;
    f.prologue = {2, 9}, f.tail = {80, 89};
    f.call_sites = {11, 22}, f.return_sites = {15, 26, 33}, f.ptr_slots = {8, -16};
    f.slot_base = 8 + i, f.args = 3;
    f.pcsp = {{0, 0, false}, {9, 48, true}};
    f.unsafe = {{40, 44}};
    f.restarts = {{50, 60, -3}, {60, 64, -4}};
    f.inlines = {{20, 30, "main.inl", "inlpkg", -1}, {22, 24, "main.deep", "deeppkg", 0}};
    t.funcs.push_back(f);
  }
  t.insns = {1, 5, 9, 0xFFFFFFFEu};
  t.insn_op = {-1, 0, 7, -2};
  return t;
}

void ExpectSameTable(const FuncTable& a, const FuncTable& b) {
  ASSERT_EQ(a.funcs.size(), b.funcs.size());
  for (size_t i = 0; i < a.funcs.size(); i++) {
    const FuncInfo &x = a.funcs[i], &y = b.funcs[i];
    SCOPED_TRACE(x.name);
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.package, y.package);
    EXPECT_EQ(x.entry, y.entry);
    EXPECT_EQ(x.end, y.end);
    EXPECT_EQ(x.flags, y.flags);
    EXPECT_EQ(x.frame, y.frame);
    EXPECT_EQ(x.max_sp_delta, y.max_sp_delta);
    EXPECT_EQ(x.prologue.lo, y.prologue.lo);
    EXPECT_EQ(x.prologue.hi, y.prologue.hi);
    EXPECT_EQ(x.tail.lo, y.tail.lo);
    EXPECT_EQ(x.tail.hi, y.tail.hi);
    EXPECT_EQ(x.call_sites, y.call_sites);
    EXPECT_EQ(x.return_sites, y.return_sites);
    EXPECT_EQ(x.ptr_slots, y.ptr_slots);
    EXPECT_EQ(x.slot_base, y.slot_base);
    EXPECT_EQ(x.args, y.args);
    ASSERT_EQ(x.pcsp.size(), y.pcsp.size());
    for (size_t k = 0; k < x.pcsp.size(); k++) {
      EXPECT_EQ(x.pcsp[k].from, y.pcsp[k].from);
      EXPECT_EQ(x.pcsp[k].delta, y.pcsp[k].delta);
      EXPECT_EQ(x.pcsp[k].lr_saved, y.pcsp[k].lr_saved);
    }
    ASSERT_EQ(x.unsafe.size(), y.unsafe.size());
    for (size_t k = 0; k < x.unsafe.size(); k++) {
      EXPECT_EQ(x.unsafe[k].lo, y.unsafe[k].lo);
      EXPECT_EQ(x.unsafe[k].hi, y.unsafe[k].hi);
    }
    ASSERT_EQ(x.restarts.size(), y.restarts.size());
    for (size_t k = 0; k < x.restarts.size(); k++) {
      EXPECT_EQ(x.restarts[k].lo, y.restarts[k].lo);
      EXPECT_EQ(x.restarts[k].hi, y.restarts[k].hi);
      EXPECT_EQ(x.restarts[k].mark, y.restarts[k].mark);
    }
    ASSERT_EQ(x.inlines.size(), y.inlines.size());
    for (size_t k = 0; k < x.inlines.size(); k++) {
      EXPECT_EQ(x.inlines[k].lo, y.inlines[k].lo);
      EXPECT_EQ(x.inlines[k].hi, y.inlines[k].hi);
      EXPECT_EQ(x.inlines[k].name, y.inlines[k].name);
      EXPECT_EQ(x.inlines[k].package, y.inlines[k].package);
      EXPECT_EQ(x.inlines[k].parent, y.inlines[k].parent);
    }
  }
  EXPECT_EQ(a.insns, b.insns);
  EXPECT_EQ(a.insn_op, b.insn_op);
}

// An environment whose every field is set, each to a value of its own.
EmitEnv FullEnv(uint64_t k) {
  EmitEnv e;
  e.globals = k + 1, e.mcall = k + 2, e.systemstack = k + 3, e.morestack = k + 4;
  for (size_t i = 0; i < std::size(e.service_fn); i++) e.service_fn[i] = k + 100 + i;
  e.vdump = k + 5, e.xtier = 3, e.wbflag = k + 6, e.omit_stack_check = true, e.isolate = 4096;
  return e;
}
void ExpectSameEnv(const EmitEnv& a, const EmitEnv& b) {
  EXPECT_EQ(a.globals, b.globals);
  EXPECT_EQ(a.mcall, b.mcall);
  EXPECT_EQ(a.systemstack, b.systemstack);
  EXPECT_EQ(a.morestack, b.morestack);
  for (size_t i = 0; i < std::size(a.service_fn); i++) EXPECT_EQ(a.service_fn[i], b.service_fn[i]) << "service " << i;
  EXPECT_EQ(a.vdump, b.vdump);
  EXPECT_EQ(a.xtier, b.xtier);
  EXPECT_EQ(a.wbflag, b.wbflag);
  EXPECT_EQ(a.omit_stack_check, b.omit_stack_check);
  EXPECT_EQ(a.isolate, b.isolate);
}

// A run's request with the program emitted by the driver: the environment
// field by field, the code, goexit and the table as emitted.
TEST(CaseProtocol, ARunCarriesTheDriversEmissionFieldByField) {
  Request q;
  q.settings = 3;
  q.flags = kEmitted | kArmed;
  q.keep = "settings 3";
  q.program = "func main.main frame=0\n  ret\nend\n";
  q.main = "main.main";
  q.armed = 12;
  q.env = FullEnv(0x7f0000001000);
  q.emitted.code = {0xd5, 0x03, 0x20, 0x1f, 0xd6, 0x5f, 0x03, 0xc0};
  q.emitted.goexit = 4;
  q.emitted.table = FullTable();
  uint16_t kind;
  std::string payload, err;
  Split(EncodeRequest(kRun, q), verdict::kRequestMagic, &kind, &payload);
  Request d;
  ASSERT_TRUE(DecodeRequest(payload, &d, &err)) << err;
  EXPECT_EQ(d.flags, q.flags);
  ExpectSameEnv(d.env, q.env);
  EXPECT_EQ(d.emitted.code, q.emitted.code);
  EXPECT_EQ(d.emitted.goexit, q.emitted.goexit);
  ExpectSameTable(q.emitted.table, d.emitted.table);
  for (size_t n = 0; n < payload.size(); n += 3)
    EXPECT_FALSE(DecodeRequest(payload.substr(0, n), &d, &err)) << "cut at " << n;
  EXPECT_FALSE(DecodeRequest(payload + "x", &d, &err));
  // Without kEmitted the same fields are not sent, nor read.
  q.flags = kArmed;
  Split(EncodeRequest(kRun, q), verdict::kRequestMagic, &kind, &payload);
  ASSERT_TRUE(DecodeRequest(payload, &d, &err)) << err;
  EXPECT_TRUE(d.emitted.code.empty());
  EXPECT_TRUE(d.emitted.table.funcs.empty());
}

TEST(CaseProtocol, LoadedCarriesEveryFieldOfTheTable) {
  Loaded l;
  l.ok = true;
  l.error = "none";
  l.code_base = 0x7f0012345000;
  l.tier = 2;
  l.has_env = true;
  l.env = FullEnv(0x5000);
  l.given_up = {"settings 1, source preemptone, mutation ", "settings 2"};
  l.table = FullTable();
  uint16_t kind;
  std::string payload, err;
  Split(EncodeLoaded(l), verdict::kResponseMagic, &kind, &payload);
  EXPECT_EQ(kind, kLoaded);
  Loaded d;
  ASSERT_TRUE(DecodeLoaded(payload, &d, &err)) << err;
  EXPECT_TRUE(d.ok);
  EXPECT_EQ(d.error, l.error);
  EXPECT_EQ(d.code_base, l.code_base);
  EXPECT_EQ(d.tier, l.tier);
  EXPECT_TRUE(d.has_env);
  ExpectSameEnv(d.env, l.env);
  EXPECT_EQ(d.given_up, l.given_up);
  ExpectSameTable(l.table, d.table);
  for (size_t n = 0; n < payload.size(); n += 7)
    EXPECT_FALSE(DecodeLoaded(payload.substr(0, n), &d, &err)) << "cut at " << n;
  // A failed load carries its error and no table.
  Loaded f;
  f.error = "the emitter refuses it";
  Split(EncodeLoaded(f), verdict::kResponseMagic, &kind, &payload);
  ASSERT_TRUE(DecodeLoaded(payload, &d, &err)) << err;
  EXPECT_FALSE(d.ok);
  EXPECT_EQ(d.error, f.error);
  EXPECT_FALSE(d.has_env);
  EXPECT_TRUE(d.given_up.empty());
  EXPECT_TRUE(d.table.funcs.empty());
}

// A saved-LR flag is 0 or 1; any other byte is refused.
TEST(CaseProtocol, ATableWithABadSavedLRFlagIsRefused) {
  Loaded l;
  l.ok = true;
  FuncInfo f;
  f.name = "main.main";
  f.pcsp = {{0xA1B2C3D4u, 0x55667788, true}};
  l.table.funcs = {f};
  uint16_t kind;
  std::string payload, err;
  Split(EncodeLoaded(l), verdict::kResponseMagic, &kind, &payload);
  const std::string entry("\xD4\xC3\xB2\xA1\x88\x77\x66\x55\x01", 9);
  size_t at = payload.find(entry);
  ASSERT_NE(at, std::string::npos) << "the SP entry's bytes are not where the format puts them";
  Loaded d;
  ASSERT_TRUE(DecodeLoaded(payload, &d, &err)) << err;
  ASSERT_EQ(d.table.funcs.size(), 1u);
  ASSERT_EQ(d.table.funcs[0].pcsp.size(), 1u);
  EXPECT_TRUE(d.table.funcs[0].pcsp[0].lr_saved);
  payload[at + 8] = 2;
  EXPECT_FALSE(DecodeLoaded(payload, &d, &err));
  EXPECT_NE(err.find("saved-LR flag of 2"), std::string::npos) << err;
}

harness::FrameImage FullFrame(uintptr_t k) {
  harness::FrameImage f;
  f.seen = true, f.code_base = k + 1, f.pc = k + 2, f.sp = k + 3, f.has_lr = true, f.lr = k + 4;
  f.stack_lo = k + 5, f.stack_hi = k + 6, f.base = k + 7, f.goexit = k + 8;
  f.stack = {1, 2, 3, static_cast<uint8_t>(k)};
  return f;
}

void ExpectSameFrame(const harness::FrameImage& a, const harness::FrameImage& b) {
  EXPECT_EQ(a.seen, b.seen);
  EXPECT_EQ(a.code_base, b.code_base);
  EXPECT_EQ(a.pc, b.pc);
  EXPECT_EQ(a.sp, b.sp);
  EXPECT_EQ(a.has_lr, b.has_lr);
  EXPECT_EQ(a.lr, b.lr);
  EXPECT_EQ(a.stack_lo, b.stack_lo);
  EXPECT_EQ(a.stack_hi, b.stack_hi);
  EXPECT_EQ(a.base, b.base);
  EXPECT_EQ(a.goexit, b.goexit);
  EXPECT_EQ(a.stack, b.stack);
}

TEST(CaseProtocol, RanCarriesEveryField) {
  Ran x;
  x.ok = true;
  x.error = "an error";
  x.source = harness::RequestSource::kForEachP;
  x.code_base = 0x10000, x.tier = 1, x.dropped = 77;
  x.code = kInstalled, x.has_env = true, x.env = FullEnv(0x9000), x.given_up = {"a", "", "settings 9"};
  for (int i = 0; i < 3; i++) {
    Event e{};
    e.seq = 1000 + i, e.kind = Ev::kAsyncAccept, e.source = Source::kArmed, e.reason = Reason::kNone;
    e.goid = 5 + i, e.pc = 0x10040 + i, e.arg = -3 - i, e.when = 99 + i, e.m = 2 + i, e.p = -1 + i;
    x.events.push_back(e);
  }
  x.end.globals = {1, 0xFFFFFFFFFFFFFFFFull, 3};
  x.end.vdump = {9, 8, 7};
  x.save.seen = true;
  x.save.frame = {4, 5, 6};
  x.save.tier = 3;
  x.save.xstate = {10, 11};
  x.save.trap.count = 2;
  x.save.trap.known[0] = 8, x.save.trap.known[1] = 16;
  x.save.trap.bytes[0][0] = 0xAB, x.save.trap.bytes[1][63] = 0xCD;
  x.save.trap.link_known = true, x.save.trap.link = 0x4242;
  x.frames = {FullFrame(0x100), FullFrame(0x200)};
  uint16_t kind;
  std::string payload, err;
  Split(EncodeRan(x), verdict::kResponseMagic, &kind, &payload);
  EXPECT_EQ(kind, kRan);
  Ran d;
  ASSERT_TRUE(DecodeRan(payload, &d, &err)) << err;
  EXPECT_EQ(d.ok, x.ok);
  EXPECT_EQ(d.error, x.error);
  EXPECT_EQ(d.source, x.source);
  EXPECT_EQ(d.code_base, x.code_base);
  EXPECT_EQ(d.tier, x.tier);
  EXPECT_EQ(d.code, x.code);
  EXPECT_TRUE(d.has_env);
  ExpectSameEnv(d.env, x.env);
  EXPECT_EQ(d.given_up, x.given_up);
  EXPECT_EQ(d.dropped, x.dropped);
  ASSERT_EQ(d.events.size(), x.events.size());
  for (size_t i = 0; i < x.events.size(); i++) {
    const Event &a = x.events[i], &b = d.events[i];
    EXPECT_EQ(a.seq, b.seq);
    EXPECT_EQ(a.kind, b.kind);
    EXPECT_EQ(a.source, b.source);
    EXPECT_EQ(a.reason, b.reason);
    EXPECT_EQ(a.goid, b.goid);
    EXPECT_EQ(a.pc, b.pc);
    EXPECT_EQ(a.arg, b.arg);
    EXPECT_EQ(a.when, b.when);
    EXPECT_EQ(a.m, b.m);
    EXPECT_EQ(a.p, b.p);
  }
  EXPECT_TRUE(d.end == x.end);
  EXPECT_EQ(d.save.seen, x.save.seen);
  EXPECT_EQ(d.save.frame, x.save.frame);
  EXPECT_EQ(d.save.tier, x.save.tier);
  EXPECT_EQ(d.save.xstate, x.save.xstate);
  EXPECT_EQ(d.save.trap.count, x.save.trap.count);
  EXPECT_EQ(memcmp(d.save.trap.known, x.save.trap.known, sizeof x.save.trap.known), 0);
  EXPECT_EQ(memcmp(d.save.trap.bytes, x.save.trap.bytes, sizeof x.save.trap.bytes), 0);
  EXPECT_EQ(d.save.trap.link_known, x.save.trap.link_known);
  EXPECT_EQ(d.save.trap.link, x.save.trap.link);
  ASSERT_EQ(d.frames.size(), 2u);
  for (size_t i = 0; i < 2; i++) ExpectSameFrame(d.frames[i], x.frames[i]);
  for (size_t n = 0; n < payload.size(); n += 5)
    EXPECT_FALSE(DecodeRan(payload.substr(0, n), &d, &err)) << "cut at " << n;
  // No code origin past the last.
  Ran y = x;
  y.code = static_cast<CodeFrom>(kNotLoaded + 1);
  Split(EncodeRan(y), verdict::kResponseMagic, &kind, &payload);
  EXPECT_FALSE(DecodeRan(payload, &d, &err));
  EXPECT_NE(err.find("where the code came from"), std::string::npos) << err;
  // A failed run sends no end state.
  x.ok = false;
  Split(EncodeRan(x), verdict::kResponseMagic, &kind, &payload);
  ASSERT_TRUE(DecodeRan(payload, &d, &err)) << err;
  EXPECT_FALSE(d.ok);
  EXPECT_TRUE(d.end.globals.empty());
}

// The refusal's reason (fails the test when the response is not one).
std::string Refusal(const std::string& frame) {
  uint16_t kind = 0;
  std::string payload;
  Split(frame, verdict::kResponseMagic, &kind, &payload);
  EXPECT_EQ(kind, kRefused);
  return kind == kRefused && payload.size() >= 4 ? payload.substr(4) : "";
}

TEST(CaseProtocol, RequestsTheExecutorCannotServeAreRefusedNotRun) {
  Request q;
  q.program = harness::BuiltinSweepProgram();
  q.main = "main.main";
  uint16_t kind;
  std::string good;
  Split(EncodeRequest(kRun, q), verdict::kRequestMagic, &kind, &good);
  EXPECT_NE(Refusal(Answer(99, good)).find("request kind 99"), std::string::npos);
  EXPECT_NE(Refusal(Answer(kRun, good.substr(0, good.size() - 1))).find("malformed"), std::string::npos);
  Request bad = q;
  bad.flags = 0x80;
  std::string p;
  Split(EncodeRequest(kRun, bad), verdict::kRequestMagic, &kind, &p);
  EXPECT_NE(Refusal(Answer(kRun, p)).find("reserved bits"), std::string::npos);
  bad = q;
  bad.mutation = "no-such-mutation";
  Split(EncodeRequest(kRun, bad), verdict::kRequestMagic, &kind, &p);
  EXPECT_NE(Refusal(Answer(kRun, p)).find("no mutation no-such-mutation"), std::string::npos);
  bad = q;
  bad.program = q.program + "\nfunc main.broken frame=0\n  nosuchop r0\n";
  Split(EncodeRequest(kLoad, bad), verdict::kRequestMagic, &kind, &p);
  EXPECT_NE(Refusal(Answer(kLoad, p)).find("does not parse"), std::string::npos);
  bad = q;
  bad.flags = kEmitted;
  Split(EncodeRequest(kLoad, bad), verdict::kRequestMagic, &kind, &p);
  EXPECT_NE(Refusal(Answer(kLoad, p)).find("comes with a run"), std::string::npos);
  // The good one runs, unarmed, to its end.
  Split(Answer(kRun, good), verdict::kResponseMagic, &kind, &p);
  ASSERT_EQ(kind, kRan);
  Ran x;
  std::string err;
  ASSERT_TRUE(DecodeRan(p, &x, &err)) << err;
  EXPECT_TRUE(x.ok) << x.error;
  EXPECT_NE(x.code_base, 0u);
  EXPECT_FALSE(x.events.empty());
}

// The response to a request as a Ran (fails the test when it is none).
Ran RanOf(const std::string& frame) {
  uint16_t kind = 0;
  std::string p, err;
  Ran x;
  Split(frame, verdict::kResponseMagic, &kind, &p);
  EXPECT_EQ(kind, kRan) << (kind == kRefused ? Refusal(frame) : "");
  if (kind == kRan) EXPECT_TRUE(DecodeRan(p, &x, &err)) << err;
  return x;
}
std::string Frame(Kind kind, const Request& q) {
  uint16_t k;
  std::string p;
  Split(EncodeRequest(kind, q), verdict::kRequestMagic, &k, &p);
  return p;
}

// A program the driver emitted is installed only in the runtime whose
// environment it was emitted against; against any other, the executor
// emits the program itself, and says so. Either way it runs as the
// executor's own emission does, and a program the runtime has is never
// replaced.
TEST(CaseProtocol, AnEmissionIsInstalledOnlyForTheRuntimeItWasMadeFor) {
  const std::string key = "case_protocol_test: emission";
  auto request = [&](const std::string& program) {
    Request q;
    q.keep = key;
    q.program = program;
    q.main = "main.main";
    return q;
  };
  // The runtime's environment, from a load the executor emits.
  uint16_t kind;
  std::string p, err;
  Split(Answer(kLoad, Frame(kLoad, request(harness::BuiltinSweepProgram()))), verdict::kResponseMagic, &kind, &p);
  ASSERT_EQ(kind, kLoaded);
  Loaded l;
  ASSERT_TRUE(DecodeLoaded(p, &l, &err)) << err;
  ASSERT_TRUE(l.ok) << l.error;
  ASSERT_TRUE(l.has_env) << "a kept runtime says its environment";
  // Two more programs, emitted here against it.
  const std::string a = harness::BuiltinSweepProgram() + "\nfunc main.extra_a frame=0\n  ret\nend\n";
  const std::string b = harness::BuiltinSweepProgram() + "\nfunc main.extra_b frame=0\n  ret\nend\n";
  auto emitted = [&](const std::string& text, const EmitEnv& env) {
    Request q = request(text);
    std::shared_ptr<const ir::Program> prog = oracle::CaseProgram(text, &err);
    EXPECT_NE(prog, nullptr) << err;
    std::unique_ptr<Lowerer> low = NewLowerer(NativePort().name);
    EXPECT_NE(low, nullptr);
    q.flags = kEmitted, q.env = env, q.env.port = &NativePort();
    EXPECT_TRUE(prog && low && Emit(*low, *prog, q.env, &q.emitted, &err)) << err;
    return q;
  };
  Ran x = RanOf(Answer(kRun, Frame(kRun, emitted(a, l.env))));
  EXPECT_TRUE(x.ok) << x.error;
  EXPECT_EQ(x.code, kInstalled);
  EXPECT_TRUE(x.has_env);
  ExpectSameEnv(x.env, l.env);
  // The same program again, with no emission: the runtime has it.
  x = RanOf(Answer(kRun, Frame(kRun, request(a))));
  EXPECT_TRUE(x.ok) << x.error;
  EXPECT_EQ(x.code, kHad);
  EXPECT_FALSE(x.has_env) << "the environment goes back only with a program new to the runtime";
  // Emitted against another environment (every field in turn): not
  // installed; the executor emits it, and the run is as good.
  EmitEnv other = l.env;
  other.globals += 8;
  x = RanOf(Answer(kRun, Frame(kRun, emitted(b, other))));
  EXPECT_TRUE(x.ok) << x.error;
  EXPECT_EQ(x.code, kEmittedThere);
  ExpectSameEnv(x.env, l.env);
  // A program the runtime has is switched back to, an emission that came
  // with it unused (even one made against another environment).
  x = RanOf(Answer(kRun, Frame(kRun, emitted(a, other))));
  EXPECT_TRUE(x.ok) << x.error;
  EXPECT_EQ(x.code, kHad);
}

// Each response names the kept runtimes the executor gave up: one more
// kept than it keeps gives up the least recently kept.
TEST(CaseProtocol, ResponsesNameTheKeptRuntimesGivenUp) {
  std::vector<std::string> said;
  for (int i = 0; i <= 64; i++) {
    if (i == 64) said.clear();  // (64 kept from here: whatever the process kept before is given up)
    Request q;
    q.keep = "case_protocol_test: given up " + std::to_string(i);
    q.program = harness::BuiltinSweepProgram();
    uint16_t kind;
    std::string p, err;
    Split(Answer(kLoad, Frame(kLoad, q)), verdict::kResponseMagic, &kind, &p);
    ASSERT_EQ(kind, kLoaded);
    Loaded l;
    ASSERT_TRUE(DecodeLoaded(p, &l, &err)) << err;
    ASSERT_TRUE(l.ok) << l.error;
    said.insert(said.end(), l.given_up.begin(), l.given_up.end());
  }
  EXPECT_EQ(said, std::vector<std::string>{"case_protocol_test: given up 0"})
      << "the 65th kept runtime gives up the least recently kept, and says so";
}

// A case through the executor shows what it shows in this process: the
// mixed inputs oracle:kept_runtime_test holds a kept runtime to a fresh
// one with, the executor's runtimes kept as a fuzzing process keeps them.
TEST(CaseProtocol, ACaseThroughTheExecutorShowsWhatItShowsInProcess) {
  std::vector<std::string> inputs = oracle::MixedInputs();
  ASSERT_GT(inputs.size(), 60u) << "no fuzz/corpus/preempt inputs in the runfiles";
  Loopback ch;
  const oracle::CaseTarget target = RemoteTarget(&ch, NativePort());
  size_t compared = 0, events_compared = 0, timing = 0;
  for (size_t i = 0; i < inputs.size(); i++) {
    const std::string& in = inputs[i];
    oracle::Case c;
    std::string err;
    if (!oracle::DecodeCase(reinterpret_cast<const uint8_t*>(in.data()), in.size(), &c, &err)) continue;
    auto run = [&](bool remote) {
      oracle::Case k = c;
      k.keep_runtime = remote;
      if (remote) k.target = &target;
      std::string e;
      oracle::CaseResult r = oracle::RunCase(k, &e);
      if (r.ok) EXPECT_EQ(r.port, &NativePort());
      return oracle::Show(r, e);
    };
    oracle::Showing here = run(false), here2 = run(false), there = run(true);
    if (here.verdict != here2.verdict) {
      timing++;
      continue;
    }
    compared++;
    EXPECT_EQ(there.verdict, here.verdict) << "input " << i;
    bool one_thread = (c.settings & (16 | 32)) == 0 && c.source == harness::RequestSource::kPreemptOne;
    for (const oracle::Case::Point& p : c.then) one_thread = one_thread && p.source == harness::RequestSource::kPreemptOne;
    one_thread = one_thread && here.events.find("gc-start/") == std::string::npos;
    if (one_thread && here.points == here2.points && here.events == here2.events) {
      events_compared++;
      EXPECT_EQ(there.points, here.points) << "input " << i;
      EXPECT_TRUE(there.events == here.events)
          << "input " << i << ": the executor's events differ\n  " << oracle::FirstDifference(here.events, there.events);
    }
  }
  const LoadCounts n = LoadCountsNow();
  printf("%zu inputs: %zu compared (%zu with their events), %zu depend on timing; %d loads and %d runs asked; %s\n",
         inputs.size(), compared, events_compared, timing, ch.asked[kLoad], ch.asked[kRun], LoadSummary().c_str());
  EXPECT_GE(compared, inputs.size() * 3 / 4);
  EXPECT_GE(events_compared, 30u);
  // The first program under some options is loaded when asked; the rest
  // are emitted here and go with their first run (the cases compared
  // above ran them so).
  EXPECT_GT(ch.asked[kLoad], 0);
  EXPECT_EQ(n.asked, ch.asked[kLoad]);
  EXPECT_GT(n.installed, 10);
  EXPECT_GT(ch.asked[kRun], ch.asked[kLoad] + n.installed);
}

}  // namespace
}  // namespace safepoint::fuzz::cases
