#include "realgo/rsp.h"

#include <map>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace safepoint::realgo::rsp {
namespace {

std::vector<Item> All(Decoder* d) {
  std::vector<Item> out;
  Item it;
  while (d->Next(&it)) out.push_back(it);
  return out;
}

TEST(Rsp, ChecksumAndFrame) {
  EXPECT_EQ(Checksum(""), 0);
  EXPECT_EQ(Checksum("OK"), 0x9a);
  EXPECT_EQ(Frame("OK"), "$OK#9a");
  EXPECT_EQ(Frame("g"), "$g#67");
  EXPECT_EQ(Frame("m1000,4"), "$m1000,4#8e");
  EXPECT_EQ(Frame(""), "$#00");
}

TEST(Rsp, EscapeAndDecodeRoundTrip) {
  std::string raw = std::string("a#b$c}d*e") + '\0' + "\xff";
  std::string esc = Escape(raw);
  EXPECT_EQ(esc.find('#'), std::string::npos);
  EXPECT_EQ(esc.find('$'), std::string::npos);
  EXPECT_EQ(esc.find('*'), std::string::npos);
  std::string back, err;
  ASSERT_TRUE(Decode(esc, &back, &err)) << err;
  EXPECT_EQ(back, raw);
  // A framed escaped payload goes through the Decoder unchanged.
  Decoder d;
  d.Feed(Frame(raw));
  auto items = All(&d);
  ASSERT_EQ(items.size(), 1u);
  EXPECT_EQ(items[0].kind, Item::kPacket);
  EXPECT_EQ(items[0].payload, raw);
}

TEST(Rsp, RunLengthDecoding) {
  std::string out, err;
  // '0' then '*' and ' ' (32 - 29 = 3 more): "0000".
  ASSERT_TRUE(Decode("0* ", &out, &err)) << err;
  EXPECT_EQ(out, "0000");
  ASSERT_TRUE(Decode("a0*\"b", &out, &err)) << err;  // '"' is 34: 5 more
  EXPECT_EQ(out, "a000000b");
  EXPECT_FALSE(Decode("*!", &out, &err));  // nothing to repeat
  EXPECT_FALSE(Decode("0*", &out, &err));  // no count
  EXPECT_FALSE(Decode("ab}", &out, &err));  // dangling escape
  // Through the Decoder, the checksum is over the bytes as sent.
  std::string sent = "$0* #";
  uint8_t sum = Checksum("0* ");
  char tail[3];
  snprintf(tail, sizeof tail, "%02x", sum);
  Decoder d;
  d.Feed(sent + tail);
  auto items = All(&d);
  ASSERT_EQ(items.size(), 1u);
  EXPECT_EQ(items[0].payload, "0000");
}

TEST(Rsp, DecoderSplitsAcksPacketsAndGarbage) {
  Decoder d;
  std::string stream = "+" + Frame("OK") + "-xx" + Frame("T05thread:01;") + "\x03";
  // Fed one byte at a time: the framing must not depend on read sizes.
  for (char c : stream) d.Feed(&c, 1);
  auto items = All(&d);
  ASSERT_EQ(items.size(), 5u);
  EXPECT_EQ(items[0].kind, Item::kAck);
  EXPECT_EQ(items[1].kind, Item::kPacket);
  EXPECT_EQ(items[1].payload, "OK");
  EXPECT_EQ(items[2].kind, Item::kNack);
  EXPECT_EQ(items[3].kind, Item::kPacket);
  EXPECT_EQ(items[3].payload, "T05thread:01;");
  EXPECT_EQ(items[4].kind, Item::kInterrupt);
  EXPECT_EQ(d.skipped(), 2u);
  EXPECT_FALSE(d.partial());
}

TEST(Rsp, DecoderFlagsBadChecksumAndCutPackets) {
  Decoder d;
  d.Feed("$OK#00");
  d.Feed("$abc$OK#9a");  // a packet cut short by the next '$'
  d.Feed("$OK#zz");
  auto items = All(&d);
  ASSERT_EQ(items.size(), 4u);
  EXPECT_EQ(items[0].kind, Item::kBadPacket);
  EXPECT_EQ(items[1].kind, Item::kBadPacket);
  EXPECT_EQ(items[1].payload, "abc");
  EXPECT_EQ(items[2].kind, Item::kPacket);
  EXPECT_EQ(items[2].payload, "OK");
  EXPECT_EQ(items[3].kind, Item::kBadPacket);
}

TEST(Rsp, DecoderHoldsAPartialPacket) {
  Decoder d;
  std::string f = Frame("deadbeef");
  d.Feed(f.substr(0, 5));
  Item it;
  EXPECT_FALSE(d.Next(&it));
  EXPECT_TRUE(d.partial());
  d.Feed(f.substr(5));
  ASSERT_TRUE(d.Next(&it));
  EXPECT_EQ(it.payload, "deadbeef");
}

TEST(Rsp, NotificationPackets) {
  Decoder d;
  std::string body = "Stop:T05thread:01;";
  char tail[3];
  snprintf(tail, sizeof tail, "%02x", Checksum(body));
  d.Feed("%" + body + "#" + tail);
  auto items = All(&d);
  ASSERT_EQ(items.size(), 1u);
  EXPECT_EQ(items[0].kind, Item::kNotification);
  EXPECT_EQ(items[0].payload, body);
}

// A stop reply from another thread arriving between a command's ack and
// its answer, and a resent one: the stream still splits into the right
// packets, and the stop replies are recognized as such.
TEST(Rsp, InterleavedStopReplies) {
  Decoder d;
  std::string stream = "+" + Frame("T10thread:2b1f;") + Frame("T10thread:2b1f;") + Frame("0100000000000000") +
                       Frame("T05thread:2b20;");
  d.Feed(stream.substr(0, 7));
  d.Feed(stream.substr(7, 20));
  d.Feed(stream.substr(27));
  auto items = All(&d);
  ASSERT_EQ(items.size(), 5u);
  std::vector<std::string> stops, answers;
  for (const auto& it : items) {
    if (it.kind != Item::kPacket) continue;
    (LooksLikeStopReply(it.payload) ? stops : answers).push_back(it.payload);
  }
  ASSERT_EQ(stops.size(), 3u);
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0], "0100000000000000");
  StopReply r;
  std::string err;
  ASSERT_TRUE(ParseStopReply(stops[0], &r, &err)) << err;
  EXPECT_EQ(r.gdb_signal, 0x10);
  EXPECT_EQ(GdbToLinuxSignal(r.gdb_signal), 23);  // SIGURG
  EXPECT_EQ(r.tid, 0x2b1f);
  ASSERT_TRUE(ParseStopReply(stops[2], &r, &err)) << err;
  EXPECT_EQ(r.tid, 0x2b20);
  EXPECT_EQ(GdbToLinuxSignal(r.gdb_signal), 5);
}

TEST(Rsp, WhatLooksLikeAStopReply) {
  EXPECT_TRUE(LooksLikeStopReply("T05thread:01;"));
  EXPECT_TRUE(LooksLikeStopReply("S0b"));
  EXPECT_TRUE(LooksLikeStopReply("W00"));
  EXPECT_TRUE(LooksLikeStopReply("X09"));
  EXPECT_FALSE(LooksLikeStopReply("OK"));
  EXPECT_FALSE(LooksLikeStopReply("E22"));
  EXPECT_FALSE(LooksLikeStopReply(""));
  EXPECT_FALSE(LooksLikeStopReply("deadbeef"));
  EXPECT_FALSE(LooksLikeStopReply("PacketSize=1000;qXfer:features:read+"));
  EXPECT_FALSE(LooksLikeStopReply("Tx"));
}

TEST(Rsp, ParseStopReplies) {
  StopReply r;
  std::string err;
  ASSERT_TRUE(ParseStopReply("T05thread:p1a.1b;swbreak:;10:0010400000000000;", &r, &err)) << err;
  EXPECT_EQ(r.kind, StopReply::kSignal);
  EXPECT_EQ(r.gdb_signal, 5);
  EXPECT_EQ(r.pid, 0x1a);
  EXPECT_EQ(r.tid, 0x1b);
  EXPECT_EQ(r.fields.count("swbreak"), 1u);
  ASSERT_EQ(r.regs.count(0x10), 1u);
  uint64_t pc = 0;
  ASSERT_TRUE(ParseLeHex(r.regs[0x10], &pc));
  EXPECT_EQ(pc, 0x401000u);

  ASSERT_TRUE(ParseStopReply("S0b", &r, &err)) << err;
  EXPECT_EQ(r.kind, StopReply::kSignal);
  EXPECT_EQ(GdbToLinuxSignal(r.gdb_signal), 11);
  EXPECT_EQ(r.tid, -1);

  ASSERT_TRUE(ParseStopReply("W03", &r, &err)) << err;
  EXPECT_EQ(r.kind, StopReply::kExited);
  EXPECT_EQ(r.exit_status, 3);
  ASSERT_TRUE(ParseStopReply("W00;process:4d2", &r, &err)) << err;
  EXPECT_EQ(r.pid, 0x4d2);

  ASSERT_TRUE(ParseStopReply("X09", &r, &err)) << err;
  EXPECT_EQ(r.kind, StopReply::kTerminated);
  EXPECT_EQ(GdbToLinuxSignal(r.gdb_signal), 9);

  EXPECT_FALSE(ParseStopReply("T05thread:zz;", &r, &err));
  EXPECT_FALSE(ParseStopReply("T05thread:01", &r, &err));  // no ';'
  EXPECT_FALSE(ParseStopReply("W00;junk", &r, &err));
  EXPECT_FALSE(ParseStopReply("OK", &r, &err));
}

TEST(Rsp, SignalNumbers) {
  struct {
    int linux_sig, gdb;
  } cases[] = {{5, 5}, {11, 11}, {23, 16}, {10, 30}, {12, 31}, {17, 20}, {13, 13},
               {7, 10}, {31, 12}, {29, 23}, {30, 32}, {19, 17}, {33, 45}, {63, 75}, {32, 77}};
  for (auto c : cases) {
    EXPECT_EQ(LinuxToGdbSignal(c.linux_sig), c.gdb) << "Linux " << c.linux_sig;
    EXPECT_EQ(GdbToLinuxSignal(c.gdb), c.linux_sig) << "GDB " << c.gdb;
  }
  EXPECT_EQ(LinuxToGdbSignal(16), 0);  // SIGSTKFLT has no GDB number
  EXPECT_EQ(GdbToLinuxSignal(0), 0);
  EXPECT_EQ(GdbToLinuxSignal(7), 0);  // GDB_SIGNAL_EMT: none on Linux
}

TEST(Rsp, Hex) {
  const uint8_t b[] = {0x00, 0x7f, 0xff, 0x10};
  EXPECT_EQ(ToHex(b, 4), "007fff10");
  std::vector<uint8_t> back;
  ASSERT_TRUE(FromHex("007fFF10", &back));
  EXPECT_EQ(back, std::vector<uint8_t>(b, b + 4));
  EXPECT_FALSE(FromHex("abc", &back));
  EXPECT_FALSE(FromHex("zz", &back));
  EXPECT_EQ(LeHex(0x401000, 8), "0010400000000000");
  EXPECT_EQ(LeHex(0x246, 4), "46020000");
  uint64_t v = 0;
  ASSERT_TRUE(ParseLeHex("46020000", &v));
  EXPECT_EQ(v, 0x246u);
  EXPECT_FALSE(ParseLeHex("xxxxxxxx", &v));
  ASSERT_TRUE(ParseHexNumber("2b1f", &v));
  EXPECT_EQ(v, 0x2b1fu);
}

// A description as QEMU sends them: includes in order, registers numbered
// on from the one before unless a regnum says otherwise, a commented-out
// register not counted.
TEST(Rsp, TargetDescriptionWalk) {
  std::map<std::string, std::string> docs = {
      {"core.xml",
       "<?xml version=\"1.0\"?><!DOCTYPE feature SYSTEM \"gdb-target.dtd\">\n"
       "<feature name=\"core\">\n"
       "  <reg name=\"r0\" bitsize=\"64\" regnum=\"0\"/>\n"
       "  <reg name='r1' bitsize='64' type=\"int\"/>\n"
       "  <!-- <reg name=\"gone\" bitsize=\"64\"/> -->\n"
       "  <reg name=\"flags\" bitsize=\"32\"/>\n"
       "</feature>\n"},
      {"fpu.xml",
       "<feature name=\"fpu\"><vector id=\"v\" type=\"uint8\" count=\"16\"/>"
       "<reg name=\"v0\" bitsize=\"128\" regnum=\"34\" type=\"v\"/><reg name=\"v1\" bitsize=\"128\"/>"
       "<reg name=\"fpsr\" bitsize=\"32\"/></feature>"},
      {"sys.xml", "<feature name=\"sys\"><reg name=\"FPSR\" bitsize=\"64\" regnum=\"185\"/></feature>"},
  };
  const std::string target =
      "<?xml version=\"1.0\"?><!DOCTYPE target SYSTEM \"gdb-target.dtd\"><target>"
      "<architecture>aarch64</architecture><xi:include href=\"core.xml\"/>"
      "<xi:include href=\"fpu.xml\"/><xi:include href=\"sys.xml\"/></target>";
  std::vector<std::string> fetched;
  auto fetch = [&](const std::string& href, std::string* xml, std::string* err) {
    fetched.push_back(href);
    auto it = docs.find(href);
    if (it == docs.end()) {
      *err = "no " + href;
      return false;
    }
    *xml = it->second;
    return true;
  };
  std::vector<TdescReg> regs;
  std::string err;
  ASSERT_TRUE(WalkTargetDescription(
      target, fetch, [&](const TdescReg& r) { regs.push_back(r); return true; }, &err))
      << err;
  std::string got;
  for (const TdescReg& r : regs) got += r.name + ":" + std::to_string(r.regnum) + "/" + std::to_string(r.bitsize) + " ";
  EXPECT_EQ(got, "r0:0/64 r1:1/64 flags:2/32 v0:34/128 v1:35/128 fpsr:36/32 FPSR:185/64 ");

  // Stopped at fpsr: sys.xml is not fetched.
  fetched.clear();
  regs.clear();
  ASSERT_TRUE(WalkTargetDescription(
      target, fetch, [&](const TdescReg& r) { regs.push_back(r); return r.name != "fpsr"; }, &err))
      << err;
  EXPECT_EQ(regs.size(), 6u);
  EXPECT_EQ(fetched, (std::vector<std::string>{"core.xml", "fpu.xml"}));

  // A missing document, a register without a size, includes in a loop.
  docs.erase("fpu.xml");
  EXPECT_FALSE(WalkTargetDescription(target, fetch, [](const TdescReg&) { return true; }, &err));
  EXPECT_NE(err.find("no fpu.xml"), std::string::npos) << err;
  EXPECT_FALSE(WalkTargetDescription("<reg name=\"x\"/>", fetch, [](const TdescReg&) { return true; }, &err));
  docs["loop.xml"] = "<xi:include href=\"loop.xml\"/>";
  EXPECT_FALSE(
      WalkTargetDescription("<xi:include href=\"loop.xml\"/>", fetch, [](const TdescReg&) { return true; }, &err));
  EXPECT_NE(err.find("deeper"), std::string::npos) << err;
}

}  // namespace
}  // namespace safepoint::realgo::rsp
