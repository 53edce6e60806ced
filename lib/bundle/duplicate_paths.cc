#include "bundle/duplicate_paths.h"

#include <bit>
#include <utility>

#include "common/hash.h"

namespace casefile::bundle {

uint32_t DuplicatePaths::Add(std::string_view path) {
  Fnv1a64 h;
  h.Update(path);
  uint64_t hash = h.Digest();
  if (hash == 0) hash = 1;  // 0 marks an empty slot
  if (!Insert(hash)) return 1;
  uint32_t& count = repeats_[hash];
  if (count == 0) count = 1;
  if (count < UINT32_MAX) ++count;
  return count;
}

size_t DuplicatePaths::Home(uint64_t hash) const {
  // FNV-1a's low bits depend only on the low bits of each byte: take the
  // slot from the top bits of a multiplicative (Fibonacci) mix instead.
  return static_cast<size_t>((hash * 0x9e3779b97f4a7c15ull) >> shift_);
}

bool DuplicatePaths::Insert(uint64_t hash) {
  if ((used_ + 1) * 2 > slots_.size()) Grow();
  const size_t mask = slots_.size() - 1;
  for (size_t i = Home(hash);; i = (i + 1) & mask) {
    if (slots_[i] == hash) return true;
    if (slots_[i] == 0) {
      slots_[i] = hash;
      ++used_;
      return false;
    }
  }
}

void DuplicatePaths::Grow() {
  std::vector<uint64_t> old = std::move(slots_);
  const size_t size = old.empty() ? size_t{64} : old.size() * 2;
  slots_.assign(size, 0);
  shift_ = 64 - static_cast<unsigned>(std::countr_zero(size));
  const size_t mask = slots_.size() - 1;
  for (uint64_t hash : old) {
    if (hash == 0) continue;
    size_t i = Home(hash);
    while (slots_[i] != 0) i = (i + 1) & mask;
    slots_[i] = hash;
  }
}

}  // namespace casefile::bundle
