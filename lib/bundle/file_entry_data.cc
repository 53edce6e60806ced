#include "bundle/file_entry_data.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace casefile::bundle {

FileEntryData::FileEntryData(int fd, std::string open_error, std::vector<char>& buffer,
                             EntryFailure& failure)
    : fd_(fd), open_error_(std::move(open_error)), buffer_(buffer), failure_(failure) {}

FileEntryData::~FileEntryData() {
  if (fd_ >= 0) close(fd_);
}

std::string_view FileEntryData::Next() {
  if (failure_.failed()) throw failure_.error();
  if (done_) return {};
  if (fd_ < 0) throw failure_.Record(FailedLayer::kEntry, ErrorCode::kCorrupt, 0, -1, open_error_);
  for (;;) {
    ssize_t n = read(fd_, buffer_.data(), buffer_.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      throw failure_.Record(FailedLayer::kEntry, ErrorCode::kCorrupt, offset_, -1,
                            std::string("read failed: ") + std::strerror(errno));
    }
    if (n == 0) {
      done_ = true;
      return {};
    }
    offset_ += static_cast<uint64_t>(n);
    return {buffer_.data(), static_cast<size_t>(n)};
  }
}

}  // namespace casefile::bundle
