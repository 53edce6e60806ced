#include "bundle/entry_failure.h"

#include <utility>

namespace casefile::bundle {

void EntryFailure::Reset(std::string path) {
  path_ = std::move(path);
  layer_ = FailedLayer::kNone;
  code_ = ErrorCode::kCorrupt;
  entry_offset_ = 0;
  archive_byte_ = -1;
  message_.clear();
}

Error EntryFailure::Record(FailedLayer layer, ErrorCode code, uint64_t entry_offset,
                           int64_t archive_byte, const std::string& detail) {
  if (failed()) return error();
  layer_ = layer;
  code_ = code;
  entry_offset_ = entry_offset;
  archive_byte_ = archive_byte;
  message_ = input_ + ": entry '" + path_ + "': ";
  switch (layer) {
    case FailedLayer::kArchive:
      message_ += "corrupt or truncated archive at byte " + std::to_string(archive_byte) +
                  " (archive file position; entry data offset " + std::to_string(entry_offset) +
                  ") (libarchive: " + detail + ")";
      break;
    case FailedLayer::kGzip:
      message_ += "corrupt gzip data at decompressed offset " + std::to_string(entry_offset) +
                  " (libarchive: " + detail + ")";
      break;
    case FailedLayer::kEntry:
    case FailedLayer::kNone:
      message_ +=
          "unreadable at entry data offset " + std::to_string(entry_offset) + " (" + detail + ")";
      break;
  }
  return error();
}

}  // namespace casefile::bundle
