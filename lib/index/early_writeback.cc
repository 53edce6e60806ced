#include "index/early_writeback.h"

#include <fcntl.h>
#include <unistd.h>

#include <utility>

namespace casefile {

EarlyWriteback::EarlyWriteback(std::string path) : path_(std::move(path)) {}

EarlyWriteback::~EarlyWriteback() {
  if (fd_ >= 0) close(fd_);
}

void EarlyWriteback::Stored(uint64_t bytes) noexcept {
  since_last_ += bytes;
  if (since_last_ < kStepBytes || failed_) return;
  since_last_ = 0;
#if defined(__linux__) && defined(SYNC_FILE_RANGE_WRITE)
  if (fd_ < 0) {
    fd_ = open(path_.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) {
      failed_ = true;
      return;
    }
  }
  // Offset 0 and length 0: the whole file. SYNC_FILE_RANGE_WRITE alone
  // starts writing dirty pages and returns without waiting for them.
  if (sync_file_range(fd_, 0, 0, SYNC_FILE_RANGE_WRITE) != 0) {
    failed_ = true;
    return;
  }
  ++started_;
#else
  failed_ = true;
#endif
}

}  // namespace casefile
