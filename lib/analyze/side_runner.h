// One more thread for the analysis runner (runner.cc): it runs the
// analyzers that read no lines while the shared line pass decodes, taking
// them in the order they are handed over. Push starts it on the first
// analyzer; Close says no more will come; Join waits for the last. The
// destructor closes and joins, so an exception on the caller's side never
// leaves it running.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "index/index_reader.h"

namespace casefile {

class SideRunner {
 public:
  std::unique_ptr<IndexReader> reader;  // the thread's own reader

  ~SideRunner() {
    Close();
    Join();
  }

  // Hands over item `i`; the first starts the thread, which calls `run`
  // for each item in turn. False when the thread cannot be started: the
  // caller then runs `i` itself.
  bool Push(size_t i, const std::function<void(size_t)>& run) {
    {
      const std::lock_guard<std::mutex> lock(mu_);
      queue_.push_back(i);
    }
    if (!thread_.joinable()) {
      try {
        thread_ = std::thread([this, run] { Loop(run); });
      } catch (const std::exception&) {  // system_error, or bad_alloc for its state
        const std::lock_guard<std::mutex> lock(mu_);
        queue_.pop_back();
        return false;
      }
    }
    cv_.notify_one();
    return true;
  }

  void Close() {
    {
      const std::lock_guard<std::mutex> lock(mu_);
      closed_ = true;
    }
    cv_.notify_one();
  }

  void Join() {
    if (thread_.joinable()) thread_.join();
  }

 private:
  void Loop(const std::function<void(size_t)>& run) {
    for (size_t taken = 0;; ++taken) {
      size_t i = 0;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [&] { return taken < queue_.size() || closed_; });
        if (taken >= queue_.size()) return;
        i = queue_[taken];
      }
      run(i);  // must not throw: the runner passes RunPrepared, which catches
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<size_t> queue_;  // never shrinks while the thread runs
  bool closed_ = false;
  std::thread thread_;
};

}  // namespace casefile
