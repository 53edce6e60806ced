// The gunzipped bytes of a *.gz member, decompressed as they are pulled: a
// nested libarchive reader (raw format, gzip filter) whose read callback takes
// the next chunk of the outer entry. No temporary file, no whole-member buffer.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <exception>
#include <string_view>

#include "bundle/entry.h"
#include "bundle/entry_failure.h"

struct archive;

namespace casefile::bundle {

class GzipEntryData final : public EntryData {
 public:
  // `source` and `failure` must outlive this object.
  GzipEntryData(EntryData& source, EntryFailure& failure);
  ~GzipEntryData() override;
  GzipEntryData(const GzipEntryData&) = delete;
  GzipEntryData& operator=(const GzipEntryData&) = delete;

  std::string_view Next() override;
  uint64_t offset() const override { return offset_; }

 private:
  static ssize_t ReadSource(archive* reader, void* self, const void** buffer);
  // False when the member is a valid gzip stream of zero bytes.
  bool Open();
  // Throws: the source's own error when the outer stream broke (that layer
  // has recorded it), else a gzip-layer failure.
  [[noreturn]] void Fail(const char* fallback);

  EntryData& source_;
  EntryFailure& failure_;
  archive* reader_ = nullptr;
  bool opened_ = false;
  bool done_ = false;
  uint64_t offset_ = 0;
  // An exception from the outer stream, held while libarchive (C code that
  // must not be unwound through) returns to us.
  std::exception_ptr source_error_;
};

}  // namespace casefile::bundle
