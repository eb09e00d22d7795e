#include "realgo/rsp.h"

#include <cstdio>

namespace safepoint::realgo::rsp {
namespace {

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

const char kHex[] = "0123456789abcdef";

// Linux signal n (1..31) -> GDB's number; index 0 unused.
const int kLinuxToGdb[32] = {
    0,
    1,   // SIGHUP
    2,   // SIGINT
    3,   // SIGQUIT
    4,   // SIGILL
    5,   // SIGTRAP
    6,   // SIGABRT
    10,  // SIGBUS
    8,   // SIGFPE
    9,   // SIGKILL
    30,  // SIGUSR1
    11,  // SIGSEGV
    31,  // SIGUSR2
    13,  // SIGPIPE
    14,  // SIGALRM
    15,  // SIGTERM
    0,   // SIGSTKFLT: none in GDB
    20,  // SIGCHLD
    19,  // SIGCONT
    17,  // SIGSTOP
    18,  // SIGTSTP
    21,  // SIGTTIN
    22,  // SIGTTOU
    16,  // SIGURG
    24,  // SIGXCPU
    25,  // SIGXFSZ
    26,  // SIGVTALRM
    27,  // SIGPROF
    28,  // SIGWINCH
    23,  // SIGIO (SIGPOLL)
    32,  // SIGPWR
    12,  // SIGSYS
};

}  // namespace

uint8_t Checksum(const std::string& s) {
  unsigned sum = 0;
  for (unsigned char c : s) sum += c;
  return static_cast<uint8_t>(sum);
}

std::string Escape(const std::string& raw) {
  std::string out;
  out.reserve(raw.size());
  for (char c : raw) {
    if (c == '#' || c == '$' || c == '}' || c == '*') {
      out += '}';
      out += static_cast<char>(c ^ 0x20);
    } else {
      out += c;
    }
  }
  return out;
}

std::string Frame(const std::string& payload) {
  std::string body = Escape(payload);
  uint8_t sum = Checksum(body);
  std::string out = "$" + body + "#";
  out += kHex[sum >> 4];
  out += kHex[sum & 15];
  return out;
}

bool Decode(const std::string& in, std::string* out, std::string* err) {
  out->clear();
  for (size_t i = 0; i < in.size(); ++i) {
    char c = in[i];
    if (c == '}') {
      if (i + 1 >= in.size()) {
        *err = "escape '}' at the end of the payload";
        return false;
      }
      out->push_back(static_cast<char>(in[++i] ^ 0x20));
    } else if (c == '*') {
      if (out->empty()) {
        *err = "run-length '*' with nothing before it";
        return false;
      }
      if (i + 1 >= in.size()) {
        *err = "run-length '*' without a count";
        return false;
      }
      int n = static_cast<unsigned char>(in[++i]) - 29;
      if (n < 3 || n > 97) {  // counts '#'+? and '$' are never sent; be lenient down to 3
        *err = "run-length count out of range";
        return false;
      }
      out->append(static_cast<size_t>(n), out->back());
    } else {
      out->push_back(c);
    }
  }
  return true;
}

void Decoder::Feed(const char* data, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    char c = data[i];
    switch (state_) {
      case kIdle:
        if (c == '$' || c == '%') {
          state_ = kBody;
          notification_ = (c == '%');
          body_.clear();
        } else if (c == '+') {
          ready_.push_back(Item{Item::kAck, "", ""});
        } else if (c == '-') {
          ready_.push_back(Item{Item::kNack, "", ""});
        } else if (c == '\x03') {
          ready_.push_back(Item{Item::kInterrupt, "", ""});
        } else {
          ++skipped_;
        }
        break;
      case kBody:
        if (c == '#') {
          state_ = kSum1;
        } else if (c == '$') {
          // A new packet began inside one: the first was cut short.
          ready_.push_back(Item{Item::kBadPacket, body_, "packet cut short by '$'"});
          body_.clear();
          notification_ = false;
        } else {
          body_ += c;
        }
        break;
      case kSum1:
        sum_hi_ = c;
        state_ = kSum2;
        break;
      case kSum2: {
        state_ = kIdle;
        int hi = HexDigit(sum_hi_), lo = HexDigit(c);
        if (hi < 0 || lo < 0) {
          ready_.push_back(Item{Item::kBadPacket, body_, "checksum digits not hex"});
          break;
        }
        if (Checksum(body_) != static_cast<uint8_t>(hi * 16 + lo)) {
          ready_.push_back(Item{Item::kBadPacket, body_, "checksum mismatch"});
          break;
        }
        Item item{notification_ ? Item::kNotification : Item::kPacket, "", ""};
        std::string err;
        if (!Decode(body_, &item.payload, &err)) {
          ready_.push_back(Item{Item::kBadPacket, body_, err});
          break;
        }
        ready_.push_back(std::move(item));
        break;
      }
    }
  }
}

bool Decoder::Next(Item* out) {
  if (next_ >= ready_.size()) {
    ready_.clear();
    next_ = 0;
    return false;
  }
  *out = std::move(ready_[next_++]);
  if (next_ == ready_.size()) {
    ready_.clear();
    next_ = 0;
  }
  return true;
}

std::string ToHex(const void* data, size_t n) {
  const unsigned char* p = static_cast<const unsigned char*>(data);
  std::string out;
  out.reserve(2 * n);
  for (size_t i = 0; i < n; ++i) {
    out += kHex[p[i] >> 4];
    out += kHex[p[i] & 15];
  }
  return out;
}

bool FromHex(const std::string& hex, std::vector<uint8_t>* out) {
  out->clear();
  if (hex.size() % 2) return false;
  out->reserve(hex.size() / 2);
  for (size_t i = 0; i < hex.size(); i += 2) {
    int hi = HexDigit(hex[i]), lo = HexDigit(hex[i + 1]);
    if (hi < 0 || lo < 0) return false;
    out->push_back(static_cast<uint8_t>(hi * 16 + lo));
  }
  return true;
}

std::string LeHex(uint64_t value, int bytes) {
  std::string out;
  for (int i = 0; i < bytes; ++i) {
    unsigned b = (value >> (8 * i)) & 0xff;
    out += kHex[b >> 4];
    out += kHex[b & 15];
  }
  return out;
}

bool ParseLeHex(const std::string& hex, uint64_t* value) {
  std::vector<uint8_t> bytes;
  if (hex.empty() || hex.size() > 16 || !FromHex(hex, &bytes)) {
    // 'x' digits (unavailable register) are not hex either.
    return false;
  }
  uint64_t v = 0;
  for (size_t i = 0; i < bytes.size(); ++i) v |= static_cast<uint64_t>(bytes[i]) << (8 * i);
  *value = v;
  return true;
}

bool ParseHexNumber(const std::string& s, uint64_t* value) {
  if (s.empty() || s.size() > 16) return false;
  uint64_t v = 0;
  for (char c : s) {
    int d = HexDigit(c);
    if (d < 0) return false;
    v = v * 16 + d;
  }
  *value = v;
  return true;
}

bool LooksLikeStopReply(const std::string& p) {
  if (p.size() < 3) return false;
  if (p[0] != 'T' && p[0] != 'S' && p[0] != 'W' && p[0] != 'X') return false;
  return HexDigit(p[1]) >= 0 && HexDigit(p[2]) >= 0;
}

namespace {

// "pPID.TID", "TID", "-1", "pPID.-1".
bool ParseThreadId(const std::string& s, long* pid, long* tid) {
  std::string t = s;
  if (!t.empty() && t[0] == 'p') {
    size_t dot = t.find('.');
    uint64_t p = 0;
    if (!ParseHexNumber(t.substr(1, dot == std::string::npos ? std::string::npos : dot - 1), &p)) {
      return false;
    }
    *pid = static_cast<long>(p);
    if (dot == std::string::npos) return true;
    t = t.substr(dot + 1);
  }
  if (t == "-1") {
    *tid = -1;
    return true;
  }
  uint64_t v = 0;
  if (!ParseHexNumber(t, &v)) return false;
  *tid = static_cast<long>(v);
  return true;
}

}  // namespace

bool ParseStopReply(const std::string& p, StopReply* out, std::string* err) {
  *out = StopReply{};
  out->payload = p;
  if (!LooksLikeStopReply(p)) {
    *err = "not a stop reply: '" + p.substr(0, 40) + "'";
    return false;
  }
  int code = HexDigit(p[1]) * 16 + HexDigit(p[2]);
  std::string rest = p.substr(3);
  switch (p[0]) {
    case 'S':
      out->kind = StopReply::kSignal;
      out->gdb_signal = code;
      if (!rest.empty()) {
        *err = "trailing bytes after S reply";
        return false;
      }
      return true;
    case 'W':
    case 'X': {
      out->kind = p[0] == 'W' ? StopReply::kExited : StopReply::kTerminated;
      if (p[0] == 'W') out->exit_status = code; else out->gdb_signal = code;
      if (rest.empty()) return true;
      const std::string key = ";process:";
      uint64_t pid = 0;
      if (rest.compare(0, key.size(), key) != 0 || !ParseHexNumber(rest.substr(key.size()), &pid)) {
        *err = "bad W/X reply tail '" + rest + "'";
        return false;
      }
      out->pid = static_cast<long>(pid);
      return true;
    }
    case 'T': {
      out->kind = StopReply::kSignal;
      out->gdb_signal = code;
      size_t i = 0;
      while (i < rest.size()) {
        size_t semi = rest.find(';', i);
        if (semi == std::string::npos) {
          *err = "T reply field without ';': '" + rest.substr(i) + "'";
          return false;
        }
        std::string field = rest.substr(i, semi - i);
        i = semi + 1;
        size_t colon = field.find(':');
        if (colon == std::string::npos) {
          // A bare reason such as "swbreak" would have a ':'; tolerate
          // nothing else.
          *err = "T reply field without ':': '" + field + "'";
          return false;
        }
        std::string key = field.substr(0, colon), value = field.substr(colon + 1);
        if (key == "thread") {
          if (!ParseThreadId(value, &out->pid, &out->tid)) {
            *err = "bad thread id '" + value + "'";
            return false;
          }
          continue;
        }
        uint64_t regno = 0;
        bool all_hex = ParseHexNumber(key, &regno);
        if (all_hex) {
          out->regs[static_cast<int>(regno)] = value;
        } else {
          out->fields[key] = value;
        }
      }
      return true;
    }
  }
  *err = "unreachable";
  return false;
}

int GdbToLinuxSignal(int g) {
  if (g <= 0) return 0;
  for (int s = 1; s < 32; ++s) {
    if (kLinuxToGdb[s] == g) return s;
  }
  if (g >= 45 && g <= 75) return g - 45 + 33;  // GDB_SIGNAL_REALTIME_33..63
  if (g == 77) return 32;                     // GDB_SIGNAL_REALTIME_32
  if (g == 78) return 64;                     // GDB_SIGNAL_REALTIME_64
  return 0;
}

int LinuxToGdbSignal(int s) {
  if (s <= 0) return 0;
  if (s < 32) return kLinuxToGdb[s];
  if (s == 32) return 77;
  if (s >= 33 && s <= 63) return s - 33 + 45;
  if (s == 64) return 78;
  return 0;
}

namespace {

// The attributes of one tag's text (between '<' and '>', the name first):
// key="value" or key='value'.
std::map<std::string, std::string> Attributes(const std::string& tag) {
  std::map<std::string, std::string> out;
  size_t i = 0;
  auto space = [&] {
    while (i < tag.size() && (tag[i] == ' ' || tag[i] == '\t' || tag[i] == '\n' || tag[i] == '\r')) ++i;
  };
  while (i < tag.size() && !(tag[i] == ' ' || tag[i] == '\t' || tag[i] == '\n' || tag[i] == '\r')) ++i;
  for (;;) {
    space();
    size_t k = i;
    while (i < tag.size() && tag[i] != '=' && tag[i] != ' ' && tag[i] != '/' && tag[i] != '\t' &&
           tag[i] != '\n' && tag[i] != '\r')
      ++i;
    if (i == k) break;
    std::string key = tag.substr(k, i - k);
    space();
    if (i >= tag.size() || tag[i] != '=') continue;  // a bare word: no value
    ++i;
    space();
    if (i >= tag.size() || (tag[i] != '"' && tag[i] != '\'')) break;
    char q = tag[i++];
    size_t e = tag.find(q, i);
    if (e == std::string::npos) break;
    out[key] = tag.substr(i, e - i);
    i = e + 1;
  }
  return out;
}

bool ParseInt(const std::string& s, int* v) {
  if (s.empty() || s.size() > 9) return false;
  int n = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    n = n * 10 + (c - '0');
  }
  *v = n;
  return true;
}

// One document of the walk; false: stop (*stopped) or fail (*err).
bool WalkDocument(const std::string& xml, int depth, const TdescFetch& fetch, const TdescVisit& visit,
                  int* next, bool* stopped, std::string* err) {
  size_t i = 0;
  while (i < xml.size()) {
    size_t lt = xml.find('<', i);
    if (lt == std::string::npos) break;
    if (xml.compare(lt, 4, "<!--") == 0) {
      size_t e = xml.find("-->", lt + 4);
      if (e == std::string::npos) break;
      i = e + 3;
      continue;
    }
    size_t gt = xml.find('>', lt);
    if (gt == std::string::npos) break;
    std::string tag = xml.substr(lt + 1, gt - lt - 1);
    i = gt + 1;
    size_t name_end = tag.find_first_of(" \t\n\r/");
    std::string name = tag.substr(0, name_end);
    bool include = name == "include" || (name.size() > 8 && name.compare(name.size() - 8, 8, ":include") == 0);
    if (include) {
      auto a = Attributes(tag);
      auto h = a.find("href");
      if (h == a.end()) {
        *err = "target description: an include without href: <" + tag + ">";
        return false;
      }
      if (depth >= 8) {
        *err = "target description: includes nested deeper than 8 (" + h->second + ")";
        return false;
      }
      std::string sub;
      if (!fetch(h->second, &sub, err)) return false;
      if (!WalkDocument(sub, depth + 1, fetch, visit, next, stopped, err)) return false;
      continue;
    }
    if (name != "reg") continue;
    auto a = Attributes(tag);
    TdescReg r;
    auto n = a.find("name");
    auto b = a.find("bitsize");
    if (n == a.end() || b == a.end() || !ParseInt(b->second, &r.bitsize)) {
      *err = "target description: a <reg> without a name or bitsize: <" + tag + ">";
      return false;
    }
    r.name = n->second;
    auto rn = a.find("regnum");
    if (rn == a.end() || !ParseInt(rn->second, &r.regnum)) r.regnum = *next;
    *next = r.regnum + 1;
    if (!visit(r)) {
      *stopped = true;
      return false;
    }
  }
  return true;
}

}  // namespace

bool WalkTargetDescription(const std::string& xml, const TdescFetch& fetch, const TdescVisit& visit,
                           std::string* err) {
  int next = 0;
  bool stopped = false;
  if (WalkDocument(xml, 0, fetch, visit, &next, &stopped, err)) return true;
  return stopped;
}

}  // namespace safepoint::realgo::rsp
