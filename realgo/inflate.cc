#include "realgo/inflate.h"

#include <cstring>

namespace safepoint::realgo {
namespace {

constexpr int kMaxBits = 15;

struct BitReader {
  const uint8_t* p;
  size_t n;
  size_t pos = 0;      // next byte
  uint64_t bits = 0;   // buffered bits, LSB first
  int nbits = 0;
  bool overrun = false;

  bool Need(int k) {
    while (nbits < k) {
      if (pos >= n) {
        overrun = true;
        return false;
      }
      bits |= uint64_t{p[pos++]} << nbits;
      nbits += 8;
    }
    return true;
  }
  // k <= 32
  bool Get(int k, uint32_t* v) {
    if (k == 0) {
      *v = 0;
      return true;
    }
    if (!Need(k)) return false;
    *v = static_cast<uint32_t>(bits & ((uint64_t{1} << k) - 1));
    bits >>= k;
    nbits -= k;
    return true;
  }
  void AlignByte() {
    int drop = nbits % 8;
    bits >>= drop;
    nbits -= drop;
  }
};

// Canonical Huffman decoding table (counts per length and symbols sorted by
// code), as in zlib's puff.
struct Huffman {
  uint16_t count[kMaxBits + 1];
  uint16_t symbol[288];
};

// Builds from code lengths; false if over-subscribed. Incomplete codes are
// allowed only for a single code (RFC 1951 permits one distance code).
bool Build(Huffman* h, const uint8_t* lengths, int n, bool* incomplete) {
  std::memset(h->count, 0, sizeof(h->count));
  for (int s = 0; s < n; ++s) h->count[lengths[s]]++;
  if (h->count[0] == n) {
    *incomplete = true;
    return true;
  }
  int left = 1;
  for (int len = 1; len <= kMaxBits; ++len) {
    left <<= 1;
    left -= h->count[len];
    if (left < 0) return false;
  }
  uint16_t offs[kMaxBits + 1];
  offs[1] = 0;
  for (int len = 1; len < kMaxBits; ++len) offs[len + 1] = offs[len] + h->count[len];
  for (int s = 0; s < n; ++s)
    if (lengths[s] != 0) h->symbol[offs[lengths[s]]++] = static_cast<uint16_t>(s);
  *incomplete = left > 0;
  return true;
}

// -1 on running out of input, -2 on a code not in the table.
int Decode(BitReader* br, const Huffman* h) {
  int code = 0, first = 0, index = 0;
  for (int len = 1; len <= kMaxBits; ++len) {
    uint32_t b;
    if (!br->Get(1, &b)) return -1;
    code |= static_cast<int>(b);
    int count = h->count[len];
    if (code - count < first) return h->symbol[index + (code - first)];
    index += count;
    first += count;
    first <<= 1;
    code <<= 1;
  }
  return -2;
}

const uint16_t kLenBase[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                               31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
const uint8_t kLenExtra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                               2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
const uint16_t kDistBase[30] = {1,    2,    3,    4,    5,    7,     9,     13,    17,  25,
                                33,   49,   65,   97,   129,  193,   257,   385,   513, 769,
                                1025, 1537, 2049, 3073, 4097, 6145,  8193,  12289, 16385, 24577};
const uint8_t kDistExtra[30] = {0, 0, 0, 0, 1, 1, 2, 2,  3,  3,  4,  4,  5,  5,  6,
                                6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};

struct Inflater {
  BitReader br;
  size_t max_out;
  std::vector<uint8_t>* out;
  std::string* err;

  bool Fail(const std::string& why) {
    *err = why;
    return false;
  }

  bool Stored() {
    br.AlignByte();
    uint32_t len, nlen;
    if (!br.Get(16, &len) || !br.Get(16, &nlen)) return Fail("deflate: truncated stored block header");
    if ((len ^ 0xffff) != nlen) return Fail("deflate: stored block length check fails");
    // After alignment and two 16-bit reads the bit buffer is empty or whole bytes.
    while (len > 0 && br.nbits >= 8) {
      if (out->size() >= max_out) return Fail("deflate: output larger than declared");
      out->push_back(static_cast<uint8_t>(br.bits & 0xff));
      br.bits >>= 8;
      br.nbits -= 8;
      --len;
    }
    if (len > br.n - br.pos) return Fail("deflate: truncated stored block");
    if (len > max_out - out->size()) return Fail("deflate: output larger than declared");
    out->insert(out->end(), br.p + br.pos, br.p + br.pos + len);
    br.pos += len;
    return true;
  }

  bool Codes(const Huffman& lit, const Huffman& dist) {
    for (;;) {
      int sym = Decode(&br, &lit);
      if (sym < 0) return Fail(sym == -1 ? "deflate: truncated data" : "deflate: invalid literal/length code");
      if (sym < 256) {
        if (out->size() >= max_out) return Fail("deflate: output larger than declared");
        out->push_back(static_cast<uint8_t>(sym));
        continue;
      }
      if (sym == 256) return true;
      sym -= 257;
      if (sym >= 29) return Fail("deflate: invalid length symbol");
      uint32_t extra;
      if (!br.Get(kLenExtra[sym], &extra)) return Fail("deflate: truncated data");
      size_t len = kLenBase[sym] + extra;
      int ds = Decode(&br, &dist);
      if (ds < 0) return Fail(ds == -1 ? "deflate: truncated data" : "deflate: invalid distance code");
      if (ds >= 30) return Fail("deflate: invalid distance symbol");
      if (!br.Get(kDistExtra[ds], &extra)) return Fail("deflate: truncated data");
      size_t d = kDistBase[ds] + extra;
      if (d > out->size()) return Fail("deflate: distance too far back");
      if (len > max_out - out->size()) return Fail("deflate: output larger than declared");
      size_t from = out->size() - d;
      for (size_t i = 0; i < len; ++i) out->push_back((*out)[from + i]);
    }
  }

  bool Fixed() {
    static Huffman lit, dist;
    static bool built = [] {
      uint8_t l[288];
      int s = 0;
      for (; s < 144; ++s) l[s] = 8;
      for (; s < 256; ++s) l[s] = 9;
      for (; s < 280; ++s) l[s] = 7;
      for (; s < 288; ++s) l[s] = 8;
      bool inc;
      Build(&lit, l, 288, &inc);
      for (s = 0; s < 30; ++s) l[s] = 5;
      Build(&dist, l, 30, &inc);
      return true;
    }();
    (void)built;
    return Codes(lit, dist);
  }

  bool Dynamic() {
    uint32_t nlen, ndist, ncode;
    if (!br.Get(5, &nlen) || !br.Get(5, &ndist) || !br.Get(4, &ncode)) return Fail("deflate: truncated dynamic header");
    nlen += 257;
    ndist += 1;
    ncode += 4;
    if (nlen > 286 || ndist > 30) return Fail("deflate: bad dynamic code counts");
    static const uint8_t kOrder[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};
    uint8_t lengths[320] = {0};
    for (uint32_t i = 0; i < ncode; ++i) {
      uint32_t v;
      if (!br.Get(3, &v)) return Fail("deflate: truncated code lengths");
      lengths[kOrder[i]] = static_cast<uint8_t>(v);
    }
    Huffman lencode;
    bool inc;
    if (!Build(&lencode, lengths, 19, &inc) || inc) return Fail("deflate: bad code-length code");
    uint32_t idx = 0;
    while (idx < nlen + ndist) {
      int sym = Decode(&br, &lencode);
      if (sym < 0) return Fail("deflate: bad code lengths");
      if (sym < 16) {
        lengths[idx++] = static_cast<uint8_t>(sym);
        continue;
      }
      uint8_t val = 0;
      uint32_t rep;
      if (sym == 16) {
        if (idx == 0) return Fail("deflate: repeat with no previous length");
        val = lengths[idx - 1];
        if (!br.Get(2, &rep)) return Fail("deflate: truncated code lengths");
        rep += 3;
      } else if (sym == 17) {
        if (!br.Get(3, &rep)) return Fail("deflate: truncated code lengths");
        rep += 3;
      } else {
        if (!br.Get(7, &rep)) return Fail("deflate: truncated code lengths");
        rep += 11;
      }
      if (idx + rep > nlen + ndist) return Fail("deflate: too many code lengths");
      while (rep--) lengths[idx++] = val;
    }
    if (lengths[256] == 0) return Fail("deflate: no end-of-block code");
    Huffman lit, dist;
    if (!Build(&lit, lengths, static_cast<int>(nlen), &inc) || (inc && nlen - lit.count[0] != 1))
      return Fail("deflate: bad literal/length code");
    if (!Build(&dist, lengths + nlen, static_cast<int>(ndist), &inc) || (inc && ndist - dist.count[0] != 1))
      return Fail("deflate: bad distance code");
    return Codes(lit, dist);
  }

  bool Run() {
    for (;;) {
      uint32_t last, type;
      if (!br.Get(1, &last) || !br.Get(2, &type)) return Fail("deflate: truncated block header");
      bool ok;
      switch (type) {
        case 0: ok = Stored(); break;
        case 1: ok = Fixed(); break;
        case 2: ok = Dynamic(); break;
        default: return Fail("deflate: invalid block type 3");
      }
      if (!ok) return false;
      if (last) return true;
    }
  }
};

}  // namespace

uint32_t Adler32(const uint8_t* p, size_t n) {
  uint32_t a = 1, b = 0;
  while (n > 0) {
    size_t k = n < 5552 ? n : 5552;
    n -= k;
    while (k--) {
      a += *p++;
      b += a;
    }
    a %= 65521;
    b %= 65521;
  }
  return (b << 16) | a;
}

bool InflateRaw(const uint8_t* in, size_t n, size_t max_out, std::vector<uint8_t>* out,
                std::string* err, size_t* consumed) {
  out->clear();
  Inflater f{BitReader{in, n}, max_out, out, err};
  if (!f.Run()) return false;
  if (consumed) *consumed = f.br.pos - static_cast<size_t>(f.br.nbits / 8);
  return true;
}

bool ZlibDecompress(const uint8_t* in, size_t n, size_t max_out, std::vector<uint8_t>* out,
                    std::string* err) {
  if (n < 6) {
    *err = "zlib: stream too short";
    return false;
  }
  uint8_t cmf = in[0], flg = in[1];
  if ((cmf & 0x0f) != 8 || (cmf >> 4) > 7) {
    *err = "zlib: not DEFLATE (CMF " + std::to_string(cmf) + ")";
    return false;
  }
  if (((cmf << 8) | flg) % 31 != 0) {
    *err = "zlib: header check fails";
    return false;
  }
  if (flg & 0x20) {
    *err = "zlib: preset dictionary not supported";
    return false;
  }
  size_t used = 0;
  if (!InflateRaw(in + 2, n - 2, max_out, out, err, &used)) return false;
  size_t at = 2 + used;
  if (n - at < 4) {
    *err = "zlib: truncated Adler-32";
    return false;
  }
  uint32_t want = (uint32_t{in[at]} << 24) | (uint32_t{in[at + 1]} << 16) | (uint32_t{in[at + 2]} << 8) | in[at + 3];
  if (Adler32(out->data(), out->size()) != want) {
    *err = "zlib: Adler-32 mismatch";
    return false;
  }
  return true;
}

}  // namespace safepoint::realgo
