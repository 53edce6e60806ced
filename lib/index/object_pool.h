// A small thread-safe free list, so the big buffers of blocks are allocated
// once and reused rather than allocated (and page-faulted in) per block.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

namespace casefile {

template <typename T>
class ObjectPool {
 public:
  explicit ObjectPool(size_t max_kept) : max_kept_(max_kept) {}

  // A pooled object, or nullptr when none is free.
  std::unique_ptr<T> Take() {
    std::lock_guard<std::mutex> lock(mu_);
    if (free_.empty()) return nullptr;
    std::unique_ptr<T> item = std::move(free_.back());
    free_.pop_back();
    return item;
  }

  // Keeps `item` for reuse, or frees it when the pool is full.
  void Give(std::unique_ptr<T> item) {
    std::lock_guard<std::mutex> lock(mu_);
    if (free_.size() < max_kept_) free_.push_back(std::move(item));
  }

 private:
  const size_t max_kept_;
  std::mutex mu_;
  std::vector<std::unique_ptr<T>> free_;
};

}  // namespace casefile
