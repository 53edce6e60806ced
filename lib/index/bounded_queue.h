// A blocking FIFO of bounded length between one producer and one consumer.
// The bound is what keeps the writer's memory flat: a producer faster than
// the storage thread waits instead of piling up blocks.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <optional>
#include <utility>

namespace casefile {

template <typename T>
class BoundedQueue {
 public:
  explicit BoundedQueue(size_t capacity) : capacity_(capacity) {}

  // Waits for room. Returns false (and drops `item`) once the queue is closed.
  bool Push(T item) {
    std::unique_lock<std::mutex> lock(mu_);
    not_full_.wait(lock, [&] { return closed_ || items_.size() < capacity_; });
    if (closed_) return false;
    items_.push_back(std::move(item));
    not_empty_.notify_one();
    return true;
  }

  enum class TryResult { kPushed, kFull, kClosed };

  // Pushes without waiting. `item` is moved from only when kPushed.
  TryResult TryPush(T& item) {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_) return TryResult::kClosed;
    if (items_.size() >= capacity_) return TryResult::kFull;
    items_.push_back(std::move(item));
    not_empty_.notify_one();
    return TryResult::kPushed;
  }

  // Waits for an item; nullopt once the queue is closed.
  std::optional<T> Pop() {
    std::unique_lock<std::mutex> lock(mu_);
    not_empty_.wait(lock, [&] { return closed_ || !items_.empty(); });
    if (closed_) return std::nullopt;
    T item = std::move(items_.front());
    items_.pop_front();
    not_full_.notify_one();
    return item;
  }

  // Wakes both sides; later Push and Pop calls fail. Queued items are dropped.
  void Close() {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
    items_.clear();
    not_full_.notify_all();
    not_empty_.notify_all();
  }

 private:
  const size_t capacity_;
  std::mutex mu_;
  std::condition_variable not_full_;
  std::condition_variable not_empty_;
  std::deque<T> items_;
  bool closed_ = false;
};

}  // namespace casefile
