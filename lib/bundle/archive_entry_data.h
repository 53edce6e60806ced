// The raw bytes of the current archive member, streamed zero-copy with
// archive_read_data_block. A failure is recorded as the archive's (libarchive
// reports it fatal: nothing after it can be read) or the entry's own.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>

#include "bundle/entry.h"
#include "bundle/entry_failure.h"

struct archive;

namespace casefile::bundle {

class ArchiveEntryData final : public EntryData {
 public:
  // `reader` must be positioned on the member's header; the references must
  // outlive this object, which is only valid until the next header is read.
  // `archive_at` gives the byte of the archive file reached, for messages.
  ArchiveEntryData(archive* reader, EntryFailure& failure,
                   const std::function<int64_t()>& archive_at);

  std::string_view Next() override;
  uint64_t offset() const override { return offset_; }

 private:
  archive* reader_;
  EntryFailure& failure_;
  const std::function<int64_t()>& archive_at_;
  uint64_t offset_ = 0;
  bool done_ = false;
  // A sparse member's hole, delivered as zeros before `pending_`.
  uint64_t hole_ = 0;
  std::string_view pending_;
};

}  // namespace casefile::bundle
