#include "index/block_read_ahead.h"

#include <atomic>
#include <cstring>
#include <system_error>
#include <utility>

namespace casefile {
namespace {

std::atomic<uint64_t> g_blocks_read_ahead{0};

}  // namespace

uint64_t BlocksReadAhead() { return g_blocks_read_ahead.load(std::memory_order_relaxed); }

BlockReadAhead::~BlockReadAhead() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_worker_.notify_all();
  if (worker_.joinable()) worker_.join();
}

void BlockReadAhead::Submit(int64_t file_id, int64_t first_line, int64_t line_count,
                            int64_t raw_bytes, const void* blob, size_t blob_size) {
  auto job = std::make_shared<Job>();
  job->out.file_id = file_id;
  job->out.first_line = first_line;
  job->out.line_count = line_count;
  job->raw_bytes = raw_bytes;
  if (!spare_.empty()) {
    job->out.block = std::move(spare_.back());
    spare_.pop_back();
  } else {
    job->out.block = std::make_unique<DecodedBlock>();
  }
  if (!spare_blobs_.empty()) {
    job->blob = std::move(spare_blobs_.back());
    spare_blobs_.pop_back();
  }
  job->blob.resize(blob_size);
  if (blob_size > 0) std::memcpy(job->blob.data(), blob, blob_size);
  {
    std::lock_guard<std::mutex> lock(mu_);
    jobs_.push_back(std::move(job));
  }
  ++in_flight_;
  g_blocks_read_ahead.fetch_add(1, std::memory_order_relaxed);
  if (!worker_.joinable() && !no_worker_) {
    try {
      worker_ = std::thread([this] { Work(); });
    } catch (const std::system_error&) {
      // No thread to be had (a process at its limit): Take decodes every
      // block on this thread, as a scan without read-ahead would.
      no_worker_ = true;
    }
  }
  wake_worker_.notify_one();
}

BlockReadAhead::Decoded BlockReadAhead::Take() {
  std::shared_ptr<Job> job;
  {
    std::unique_lock<std::mutex> lock(mu_);
    job = jobs_.front();
    // While the oldest block is not decoded, this thread decodes too, the
    // oldest block not started first, rather than wait idle.
    while (!job->done) {
      std::shared_ptr<Job> next = Unclaimed();
      if (!next) {
        job_done_.wait(lock, [&] { return job->done || Unclaimed() != nullptr; });
        continue;
      }
      next->claimed = true;
      lock.unlock();
      Decode(*next);
      lock.lock();
      next->done = true;
    }
    jobs_.pop_front();
  }
  --in_flight_;
  spare_blobs_.push_back(std::move(job->blob));
  return std::move(job->out);
}

void BlockReadAhead::Recycle(std::unique_ptr<DecodedBlock> block) {
  if (block && spare_.size() < kReadAheadBlocks + 1) spare_.push_back(std::move(block));
}

void BlockReadAhead::Drain() {
  while (in_flight_ > 0) Recycle(Take().block);
}

std::shared_ptr<BlockReadAhead::Job> BlockReadAhead::Unclaimed() const {
  for (const std::shared_ptr<Job>& j : jobs_) {
    if (!j->claimed) return j;
  }
  return nullptr;
}

void BlockReadAhead::Decode(Job& job) {
  try {
    job.out.block->Decode(job.blob.data(), job.blob.size(), job.raw_bytes);
  } catch (...) {
    job.out.error = std::current_exception();
  }
}

void BlockReadAhead::Work() {
  for (;;) {
    std::shared_ptr<Job> job;
    {
      std::unique_lock<std::mutex> lock(mu_);
      wake_worker_.wait(lock, [&] { return stop_ || (job = Unclaimed()) != nullptr; });
      if (stop_) return;
      job->claimed = true;
    }
    Decode(*job);
    {
      std::lock_guard<std::mutex> lock(mu_);
      job->done = true;
    }
    job_done_.notify_one();
  }
}

}  // namespace casefile
