// collect/segment_hash.h: the value depends on the bytes only, not on how
// they were cut into chunks, and a changed byte changes it.
#include "collect/segment_hash.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace casefile::collect {
namespace {

std::string Data(size_t n) {
  std::string s;
  for (size_t i = 0; i < n; ++i) s += static_cast<char>((i * 131 + i / 7) & 0xff);
  return s;
}

TEST(SegmentHash, ChunksCutAnywhereGiveTheSameValue) {
  for (size_t n : {0u, 1u, 7u, 8u, 31u, 32u, 33u, 64u, 1000u, 65537u}) {
    const std::string data = Data(n);
    const uint64_t whole = SegmentHash::Hash(data);
    for (size_t chunk : {1u, 3u, 8u, 31u, 32u, 100u}) {
      SegmentHash h;
      for (size_t i = 0; i < data.size(); i += chunk)
        h.Update(std::string_view(data).substr(i, chunk));
      EXPECT_EQ(h.Final(), whole) << n << " in chunks of " << chunk;
    }
  }
}

TEST(SegmentHash, FinalResets) {
  SegmentHash h;
  h.Update("abc");
  uint64_t first = h.Final();
  h.Update("abc");
  EXPECT_EQ(h.Final(), first);
  EXPECT_EQ(h.Final(), SegmentHash::Hash(""));
}

TEST(SegmentHash, EveryChangedByteAndLengthChangesTheValue) {
  const std::string data = Data(4096);
  std::set<uint64_t> seen = {SegmentHash::Hash(data)};
  for (size_t i = 0; i < data.size(); i += 17) {
    std::string changed = data;
    changed[i] = static_cast<char>(changed[i] ^ 1);
    EXPECT_TRUE(seen.insert(SegmentHash::Hash(changed)).second) << i;
  }
  // Trailing NULs are not ignored (a file padded by NUL is not the file).
  EXPECT_TRUE(seen.insert(SegmentHash::Hash(data + std::string(1, '\0'))).second);
  EXPECT_TRUE(seen.insert(SegmentHash::Hash(data + std::string(32, '\0'))).second);
  EXPECT_NE(SegmentHash::Hash(""), SegmentHash::Hash(std::string(1, '\0')));
}

}  // namespace
}  // namespace casefile::collect
