// A small zlib (RFC 1950) / DEFLATE (RFC 1951) decoder for the compressed
// DWARF sections of Go binaries. No dependency; every read is bounds
// checked and the output never exceeds the size the caller expects.
#ifndef SAFEPOINT_REALGO_INFLATE_H_
#define SAFEPOINT_REALGO_INFLATE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace safepoint::realgo {

// Raw DEFLATE: decodes `in` into `out` (cleared first), at most `max_out`
// bytes. False with a one-line reason in *err on any malformed input or
// an output that would exceed max_out.
bool InflateRaw(const uint8_t* in, size_t n, size_t max_out, std::vector<uint8_t>* out,
                std::string* err, size_t* consumed = nullptr);

// zlib: header (CM 8, FCHECK, no preset dictionary), DEFLATE data, Adler-32.
bool ZlibDecompress(const uint8_t* in, size_t n, size_t max_out, std::vector<uint8_t>* out,
                    std::string* err);

uint32_t Adler32(const uint8_t* p, size_t n);

}  // namespace safepoint::realgo

#endif  // SAFEPOINT_REALGO_INFLATE_H_
