// GDB's remote serial protocol, the pure part: packet framing, checksums,
// escaping, run-length decoding, hex, stop replies and GDB's signal numbers.
// No I/O here; realgo/gdbstub_tracer.cc does the talking.
#ifndef SAFEPOINT_REALGO_RSP_H_
#define SAFEPOINT_REALGO_RSP_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace safepoint::realgo::rsp {

// The modulo-256 sum of the payload's bytes as sent (after escaping).
uint8_t Checksum(const std::string& sent_payload);

// Escapes '#', '$', '}' and '*' ('}' then the byte xor 0x20), as binary
// packets (X, vFile) and any payload holding those bytes need.
std::string Escape(const std::string& raw);

// "$" + Escape(payload) + "#" + two hex digits of the checksum.
std::string Frame(const std::string& payload);

// Undoes the escaping and the run-length encoding ("X*" + a count byte n:
// X repeated n - 29 more times) of a received payload (between '$' and '#').
// False, with *err, on a dangling escape, a run with nothing before it, or a
// count byte out of range.
bool Decode(const std::string& sent_payload, std::string* out, std::string* err);

// One thing read from the byte stream.
struct Item {
  enum Kind {
    kAck,           // '+'
    kNack,          // '-'
    kPacket,        // $...#cc with a good checksum; payload decoded
    kNotification,  // %...#cc (non-stop notifications), payload decoded
    kBadPacket,     // checksum mismatch or undecodable payload; payload raw
    kInterrupt,     // 0x03
  } kind;
  std::string payload;
  std::string error;  // kBadPacket: why
};

// Splits a byte stream into Items. Bytes outside a packet other than '+',
// '-' and 0x03 are skipped (and counted).
class Decoder {
 public:
  void Feed(const char* data, size_t n);
  void Feed(const std::string& s) { Feed(s.data(), s.size()); }
  // The next complete Item, false when none is complete yet.
  bool Next(Item* out);
  size_t skipped() const { return skipped_; }
  // Bytes of a packet begun but not yet complete.
  bool partial() const { return state_ != kIdle; }

 private:
  enum State { kIdle, kBody, kSum1, kSum2 };
  State state_ = kIdle;
  bool notification_ = false;
  std::string body_;
  char sum_hi_ = 0;
  std::vector<Item> ready_;
  size_t next_ = 0;
  size_t skipped_ = 0;
};

// Hex helpers. ToHex: two lower-case digits a byte.
std::string ToHex(const void* data, size_t n);
bool FromHex(const std::string& hex, std::vector<uint8_t>* out);
// A target-order (little-endian) register value of `bytes` bytes.
std::string LeHex(uint64_t value, int bytes);
bool ParseLeHex(const std::string& hex, uint64_t* value);  // up to 16 digits
bool ParseHexNumber(const std::string& s, uint64_t* value);  // big-endian text, "1f"

// A stop reply: T (signal, with fields), S (signal), W (exited), X (killed
// by a signal). Signals are GDB's numbers.
struct StopReply {
  enum Kind { kSignal, kExited, kTerminated } kind = kSignal;
  int gdb_signal = 0;   // kSignal, kTerminated
  int exit_status = 0;  // kExited
  long pid = -1;        // W/X ";process:pid", or the "pPID.TID" of thread
  long tid = -1;        // T's "thread:" field (-1: none given)
  std::map<int, std::string> regs;       // T's "NN:value" fields (regno hex)
  std::map<std::string, std::string> fields;  // every other T field
  std::string payload;  // as received
};

// True when the payload starts like a stop reply ('T'/'S'/'W'/'X' and two
// hex digits). No answer to the commands the tracer sends starts that way
// (hex data, "OK", "Enn", "" or "PacketSize=...").
bool LooksLikeStopReply(const std::string& payload);
bool ParseStopReply(const std::string& payload, StopReply* out, std::string* err);

// One register of a target description (GDB's target XML, as the stub
// sends it for qXfer:features:read).
struct TdescReg {
  std::string name;
  int regnum = 0;
  int bitsize = 0;
};

// Walks a target description in document order: the <reg> elements of
// `xml`, each <xi:include href="..."/> replaced by the registers of the
// document `fetch` returns for its href (nested at most 8 deep), comments
// skipped. Numbers as GDB gives them: the regnum attribute where there is
// one, else one more than the register before (the first, 0). `visit` is
// called for each register and returns false to stop the walk there (the
// documents included after it are not fetched). False, with *err, when a
// fetch fails or a <reg> lacks a name or a bitsize.
using TdescFetch = std::function<bool(const std::string& href, std::string* xml, std::string* err)>;
using TdescVisit = std::function<bool(const TdescReg& reg)>;
bool WalkTargetDescription(const std::string& xml, const TdescFetch& fetch, const TdescVisit& visit,
                           std::string* err);

// GDB's signal numbers (gdb/signals.def) against Linux's generic ones (the
// numbering of x86-64, arm64, loong64, riscv64). 0 when there is none.
int GdbToLinuxSignal(int gdb_signal);
int LinuxToGdbSignal(int linux_signal);

}  // namespace safepoint::realgo::rsp

#endif  // SAFEPOINT_REALGO_RSP_H_
