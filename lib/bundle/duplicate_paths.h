// Counts how often each entry path of one input has been delivered, so that
// a path stored twice in an archive (tar -r, or two raw paths that normalise
// alike) is reported rather than recorded twice silently.
//
// Memory bound: only 64-bit FNV-1a hashes of the paths are kept, in a
// power-of-two open-addressing table never more than half full: 16 to 32
// bytes per distinct path (the old table lives on for the moment of a
// growth). The paths of one input are at most Limits::max_entries, after
// which the dispatcher stops reading, so at the default of one million the
// table is 16 MiB; plus one small map entry per path that did repeat. Two
// different paths with the same hash (odds about n^2 / 2^65: 1 in 36 million
// for a million paths) would be reported as a duplicate; since every entry
// is delivered anyway, a collision can add an issue but never lose data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace casefile::bundle {

class DuplicatePaths {
 public:
  // Records one more occurrence of `path` and returns how many there have
  // been, this one included: 1 the first time.
  uint32_t Add(std::string_view path);

 private:
  void Grow();
  // Returns true when `hash` was already present.
  bool Insert(uint64_t hash);
  size_t Home(uint64_t hash) const;

  std::vector<uint64_t> slots_;  // 0 marks an empty slot; hashes are never 0
  unsigned shift_ = 64;          // 64 - log2(slots_.size())
  size_t used_ = 0;
  std::unordered_map<uint64_t, uint32_t> repeats_;  // occurrences of paths seen twice or more
};

}  // namespace casefile::bundle
