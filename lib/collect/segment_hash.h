// A fast 64-bit hash for telling whether a segment of a file changed between
// the collector's two passes (collect.cc, CopyVerified). Not cryptographic:
// what it guards against is a file rewritten by accident while it is
// collected, not an adversary (who could write anything into the file
// anyway). The manifest's digests stay SHA-256. Four 64-bit lanes, each
// mixed with the multiply-rotate round of the xxHash family, so it runs
// several times faster than SHA-256 with SHA extensions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace casefile::collect {

class SegmentHash {
 public:
  SegmentHash() { Reset(); }
  void Reset();
  // Chunks may be cut anywhere: the value depends only on the bytes.
  void Update(std::string_view bytes);
  // The hash of everything since the last Reset; then resets.
  uint64_t Final();

  static uint64_t Hash(std::string_view bytes) {
    SegmentHash h;
    h.Update(bytes);
    return h.Final();
  }

 private:
  void Block(const unsigned char* p);

  uint64_t lanes_[4];
  unsigned char pending_[32];
  size_t pending_used_ = 0;
  uint64_t total_ = 0;
};

}  // namespace casefile::collect
