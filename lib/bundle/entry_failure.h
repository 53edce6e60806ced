// Which layer of an entry's byte stream failed, recorded by the layer itself
// when it throws, so that ReadBundle can tell a broken archive (the read must
// end) from a broken inner gzip or one unreadable entry (the read goes on).
#pragma once

#include <cstdint>
#include <string>

#include "common/error.h"

namespace casefile::bundle {

enum class FailedLayer {
  kNone,
  kArchive,  // the outer archive or its compression: nothing after it can be read
  kGzip,     // the inner gzip stream of a *.gz member: the outer archive is fine
  kEntry,    // this entry alone (a disk read error, an encrypted zip member)
};

class EntryFailure {
 public:
  explicit EntryFailure(std::string input) : input_(std::move(input)) {}

  void Reset(std::string path);

  // Records the first failure of the current entry and returns the error to
  // throw; a later call keeps the first record. `archive_byte` is the
  // position in the archive file, or -1 when there is none (directories).
  Error Record(FailedLayer layer, ErrorCode code, uint64_t entry_offset, int64_t archive_byte,
               const std::string& detail);

  bool failed() const { return layer_ != FailedLayer::kNone; }
  FailedLayer layer() const { return layer_; }
  ErrorCode code() const { return code_; }
  uint64_t entry_offset() const { return entry_offset_; }
  int64_t archive_byte() const { return archive_byte_; }
  const std::string& message() const { return message_; }
  const std::string& path() const { return path_; }
  Error error() const { return Error(code_, message_); }

 private:
  std::string input_;
  std::string path_;
  FailedLayer layer_ = FailedLayer::kNone;
  ErrorCode code_ = ErrorCode::kCorrupt;
  uint64_t entry_offset_ = 0;
  int64_t archive_byte_ = -1;
  std::string message_;
};

}  // namespace casefile::bundle
