#include "bundle/archive_entry_data.h"

#include <archive.h>

#include <algorithm>

namespace casefile::bundle {

namespace {

constexpr size_t kZeroBytes = 64 * 1024;
const char kZeros[kZeroBytes] = {};

}  // namespace

ArchiveEntryData::ArchiveEntryData(archive* reader, EntryFailure& failure,
                                   const std::function<int64_t()>& archive_at)
    : reader_(reader), failure_(failure), archive_at_(archive_at) {}

std::string_view ArchiveEntryData::Next() {
  if (failure_.failed()) throw failure_.error();
  if (hole_ > 0) {
    size_t n = static_cast<size_t>(std::min<uint64_t>(hole_, kZeroBytes));
    hole_ -= n;
    offset_ += n;
    return {kZeros, n};
  }
  if (!pending_.empty()) {
    std::string_view chunk = pending_;
    pending_ = {};
    offset_ += chunk.size();
    return chunk;
  }
  while (!done_) {
    const void* block = nullptr;
    size_t size = 0;
    la_int64_t block_offset = 0;
    int rc = archive_read_data_block(reader_, &block, &size, &block_offset);
    if (rc == ARCHIVE_EOF) {
      done_ = true;
      break;
    }
    if (rc < ARCHIVE_WARN) {
      const char* detail = archive_error_string(reader_);
      // ARCHIVE_FATAL leaves the reader unusable; a lesser failure (an
      // encrypted or unsupported zip member) is the member's alone.
      FailedLayer layer = rc == ARCHIVE_FATAL ? FailedLayer::kArchive : FailedLayer::kEntry;
      throw failure_.Record(layer, ErrorCode::kCorrupt, offset_, archive_at_(),
                            detail ? detail : "unknown error");
    }
    std::string_view chunk(static_cast<const char*>(block), size);
    if (block_offset > 0 && static_cast<uint64_t>(block_offset) > offset_) {
      // A hole (possibly at the very end, with an empty block) reads as zeros.
      hole_ = static_cast<uint64_t>(block_offset) - offset_;
      pending_ = chunk;
      return Next();
    }
    if (size == 0) continue;
    offset_ += size;
    return chunk;
  }
  return {};
}

}  // namespace casefile::bundle
