#include "bundle/gzip_entry_data.h"

#include <archive.h>
#include <archive_entry.h>

#include <cerrno>
#include <string>

namespace casefile::bundle {

GzipEntryData::GzipEntryData(EntryData& source, EntryFailure& failure)
    : source_(source), failure_(failure) {}

GzipEntryData::~GzipEntryData() {
  if (reader_) archive_read_free(reader_);
}

ssize_t GzipEntryData::ReadSource(archive* reader, void* self, const void** buffer) {
  auto* gz = static_cast<GzipEntryData*>(self);
  try {
    std::string_view chunk = gz->source_.Next();
    *buffer = chunk.data();
    return static_cast<ssize_t>(chunk.size());
  } catch (...) {
    gz->source_error_ = std::current_exception();
    archive_set_error(reader, EIO, "the outer stream failed");
    return -1;
  }
}

void GzipEntryData::Fail(const char* fallback) {
  if (source_error_) std::rethrow_exception(source_error_);
  const char* detail = reader_ ? archive_error_string(reader_) : nullptr;
  throw failure_.Record(FailedLayer::kGzip, ErrorCode::kCorrupt, offset_, -1,
                        detail ? detail : fallback);
}

bool GzipEntryData::Open() {
  reader_ = archive_read_new();
  if (!reader_) throw std::bad_alloc();
  archive_read_support_format_raw(reader_);
  archive_read_support_filter_gzip(reader_);
  if (archive_read_open(reader_, this, nullptr, &GzipEntryData::ReadSource, nullptr) !=
      ARCHIVE_OK) {
    if (source_error_) std::rethrow_exception(source_error_);
    // The raw format needs one byte to accept its input: a gzip stream that
    // decompresses to nothing fails here with the filter recognised and the
    // "unrecognized format" errno (EILSEQ, libarchive's private
    // ARCHIVE_ERRNO_FILE_FORMAT on POSIX systems).
    if (archive_errno(reader_) == EILSEQ && archive_filter_count(reader_) >= 2 &&
        archive_filter_code(reader_, 0) == ARCHIVE_FILTER_GZIP) {
      return false;
    }
    if (archive_filter_count(reader_) == 1) Fail("truncated gzip header");
    Fail("truncated or corrupt gzip header");
  }
  archive_entry* entry = nullptr;
  int rc = archive_read_next_header(reader_, &entry);
  if (rc == ARCHIVE_EOF) return false;
  if (rc < ARCHIVE_WARN) Fail("cannot read the gzip stream");
  // Only members that start with the gzip magic come here (the dispatcher
  // delivers the others as stored). When libarchive still refuses the
  // header (a bad method or flag byte, a header cut short) the raw format
  // would pass the bytes through: that is gzip damage, reported as such.
  if (archive_filter_code(reader_, 0) != ARCHIVE_FILTER_GZIP) {
    if (source_error_) std::rethrow_exception(source_error_);
    throw failure_.Record(FailedLayer::kGzip, ErrorCode::kCorrupt, 0, -1,
                          "the gzip magic is not followed by a valid gzip header");
  }
  return true;
}

std::string_view GzipEntryData::Next() {
  if (failure_.failed()) throw failure_.error();
  if (done_) return {};
  if (!opened_) {
    opened_ = true;
    if (!Open()) {
      done_ = true;
      return {};
    }
  }
  for (;;) {
    const void* block = nullptr;
    size_t size = 0;
    la_int64_t block_offset = 0;
    int rc = archive_read_data_block(reader_, &block, &size, &block_offset);
    if (rc == ARCHIVE_EOF) {
      done_ = true;
      return {};
    }
    if (rc < ARCHIVE_WARN) Fail("gzip decompression failed");
    if (size == 0) continue;
    offset_ += size;
    return {static_cast<const char*>(block), size};
  }
}

}  // namespace casefile::bundle
