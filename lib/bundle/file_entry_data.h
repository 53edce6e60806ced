// The bytes of one regular file of a directory input, read in fixed-size
// chunks into a buffer the caller owns (one buffer for the whole walk).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "bundle/entry.h"
#include "bundle/entry_failure.h"

namespace casefile::bundle {

class FileEntryData final : public EntryData {
 public:
  // Takes ownership of `fd`; when `fd` < 0, `open_error` says why it could
  // not be opened and the first Next() reports it. `buffer` and `failure`
  // must outlive this object.
  FileEntryData(int fd, std::string open_error, std::vector<char>& buffer, EntryFailure& failure);
  ~FileEntryData() override;
  FileEntryData(const FileEntryData&) = delete;
  FileEntryData& operator=(const FileEntryData&) = delete;

  std::string_view Next() override;
  uint64_t offset() const override { return offset_; }

 private:
  int fd_;
  std::string open_error_;
  std::vector<char>& buffer_;
  EntryFailure& failure_;
  uint64_t offset_ = 0;
  bool done_ = false;
};

}  // namespace casefile::bundle
