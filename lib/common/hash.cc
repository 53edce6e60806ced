#include "common/hash.h"

namespace casefile {

std::string HexU64(uint64_t v) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i) {
    out[i] = kDigits[v & 0xf];
    v >>= 4;
  }
  return out;
}

std::string Fnv1a64::HexDigest() const { return HexU64(state_); }

}  // namespace casefile
