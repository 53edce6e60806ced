#include "collect/segment_hash.h"

#include <cstring>

namespace casefile::collect {
namespace {

constexpr uint64_t kP1 = 0x9E3779B185EBCA87ull;
constexpr uint64_t kP2 = 0xC2B2AE3D27D4EB4Full;
constexpr uint64_t kP3 = 0x165667B19E3779F9ull;
constexpr uint64_t kP4 = 0x85EBCA77C2B2AE63ull;
constexpr uint64_t kP5 = 0x27D4EB2F165667C5ull;

inline uint64_t Rotl(uint64_t v, int r) { return (v << r) | (v >> (64 - r)); }

inline uint64_t Load64(const unsigned char* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof v);
  return v;  // byte order of the machine: both passes run on the same one
}

inline uint64_t Round(uint64_t acc, uint64_t input) {
  acc += input * kP2;
  acc = Rotl(acc, 31);
  return acc * kP1;
}

inline uint64_t Merge(uint64_t acc, uint64_t lane) {
  acc ^= Round(0, lane);
  return acc * kP1 + kP4;
}

}  // namespace

void SegmentHash::Reset() {
  lanes_[0] = kP1 + kP2;
  lanes_[1] = kP2;
  lanes_[2] = 0;
  lanes_[3] = 0 - kP1;
  pending_used_ = 0;
  total_ = 0;
}

void SegmentHash::Block(const unsigned char* p) {
  lanes_[0] = Round(lanes_[0], Load64(p));
  lanes_[1] = Round(lanes_[1], Load64(p + 8));
  lanes_[2] = Round(lanes_[2], Load64(p + 16));
  lanes_[3] = Round(lanes_[3], Load64(p + 24));
}

void SegmentHash::Update(std::string_view bytes) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  size_t n = bytes.size();
  total_ += n;
  if (pending_used_ > 0) {
    size_t take = n < 32 - pending_used_ ? n : 32 - pending_used_;
    std::memcpy(pending_ + pending_used_, p, take);
    pending_used_ += take;
    p += take;
    n -= take;
    if (pending_used_ < 32) return;
    Block(pending_);
    pending_used_ = 0;
  }
  for (; n >= 32; p += 32, n -= 32) Block(p);
  std::memcpy(pending_, p, n);
  pending_used_ = n;
}

uint64_t SegmentHash::Final() {
  uint64_t h = Rotl(lanes_[0], 1) + Rotl(lanes_[1], 7) + Rotl(lanes_[2], 12) + Rotl(lanes_[3], 18);
  for (uint64_t lane : lanes_) h = Merge(h, lane);
  h += total_;
  size_t i = 0;
  for (; i + 8 <= pending_used_; i += 8) {
    h ^= Round(0, Load64(pending_ + i));
    h = Rotl(h, 27) * kP1 + kP4;
  }
  for (; i < pending_used_; ++i) {
    h ^= pending_[i] * kP5;
    h = Rotl(h, 11) * kP1;
  }
  h ^= h >> 33;
  h *= kP2;
  h ^= h >> 29;
  h *= kP3;
  h ^= h >> 32;
  Reset();
  return h;
}

}  // namespace casefile::collect
