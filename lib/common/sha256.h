// SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104), written here rather than
// taken from OpenSSL so that embedders link nothing new
// (docs/DEPENDENCIES.md). Used for the bundle manifest's file digests, which
// `casefile verify` checks, and for the collector's keyed redaction
// pseudonyms. Not constant-time beyond what the algorithm gives: nothing here
// compares secrets.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace casefile {

using Sha256Digest = std::array<uint8_t, 32>;

// Incremental SHA-256: Update any number of times (chunks cut anywhere), then
// Final once. Final resets the object, so it can hash the next message.
class Sha256 {
 public:
  Sha256() { Reset(); }
  void Reset();
  void Update(const void* data, size_t size);
  void Update(std::string_view bytes) { Update(bytes.data(), bytes.size()); }
  Sha256Digest Final();

  // One call for a whole message.
  static Sha256Digest Hash(std::string_view bytes);

 private:
  std::array<uint32_t, 8> state_;
  std::array<uint8_t, 64> block_;
  size_t block_used_ = 0;
  uint64_t total_bytes_ = 0;
};

// Incremental HMAC-SHA256. The key is folded into its padded inner and outer
// states once, at construction, so one HmacSha256 serves many messages
// cheaply: Final returns the tag and makes the object ready for the next
// message under the same key.
class HmacSha256 {
 public:
  explicit HmacSha256(std::string_view key);
  void Update(const void* data, size_t size) { inner_.Update(data, size); }
  void Update(std::string_view bytes) { inner_.Update(bytes); }
  Sha256Digest Final();

  static Sha256Digest Mac(std::string_view key, std::string_view message);

 private:
  Sha256 inner_start_;  // state after the key XOR ipad block
  Sha256 outer_start_;  // state after the key XOR opad block
  Sha256 inner_;
};

// The compression function over `blocks` consecutive 64-byte blocks, exposed
// so that tests can hold the portable code and the x86 SHA-extensions code
// (chosen at run time by Sha256 where the CPU has them) to each other.
namespace sha256_detail {
using CompressFn = void (*)(std::array<uint32_t, 8>& state, const uint8_t* data, size_t blocks);
void CompressPortable(std::array<uint32_t, 8>& state, const uint8_t* data, size_t blocks);
// The SHA-extensions path, or nullptr where the CPU (or the build target)
// has none.
CompressFn HardwareCompress();
}  // namespace sha256_detail

// Lowercase hex of `size` bytes.
std::string HexEncode(const uint8_t* bytes, size_t size);
inline std::string HexEncode(const Sha256Digest& digest) {
  return HexEncode(digest.data(), digest.size());
}

}  // namespace casefile
