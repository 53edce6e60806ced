// Stable, dependency-free hashing for identities and fingerprints. The values
// are persisted in indexes, so the algorithm never changes: FNV-1a, 64 bit.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace casefile {

class Fnv1a64 {
 public:
  void Update(std::string_view bytes) noexcept {
    for (unsigned char c : bytes) {
      state_ ^= c;
      state_ *= 0x100000001b3ull;
    }
  }
  void UpdateU64(uint64_t v) noexcept {
    for (int i = 0; i < 8; ++i) {
      state_ ^= (v >> (8 * i)) & 0xff;
      state_ *= 0x100000001b3ull;
    }
  }
  uint64_t Digest() const noexcept { return state_; }
  // 16 lowercase hex digits.
  std::string HexDigest() const;

 private:
  uint64_t state_ = 0xcbf29ce484222325ull;
};

std::string HexU64(uint64_t v);

}  // namespace casefile
