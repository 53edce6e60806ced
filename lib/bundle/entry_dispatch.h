// What every reader does with one entry, whatever the input: count it against
// max_entries, normalise its path, stack the gzip and limit layers on its
// bytes, call the visitor, and turn each failure or cut into an issue and the
// right partial state.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "bundle/bundle_reader.h"
#include "bundle/duplicate_paths.h"
#include "bundle/entry.h"
#include "bundle/entry_failure.h"
#include "common/limits.h"

namespace casefile::bundle {

class EntryDispatcher {
 public:
  // All references must outlive the dispatcher; `input` names the input in
  // messages.
  EntryDispatcher(const std::string& input, const Limits& limits, ReadBudget& budget,
                  BundleVisitor& visitor, BundleReadResult& result);

  // For an archive input: how many bytes of the archive file have been read
  // so far. Turns on the outer layer's decompression-bomb check and the
  // check of each entry's declared size ("entry_size_mismatch"); a
  // directory input has neither.
  void SetArchiveBytes(std::function<uint64_t()> archive_bytes) {
    archive_bytes_ = std::move(archive_bytes);
  }

  // The record that the source layer of the next entry writes a failure
  // into; sources are built with it before Deliver is called.
  EntryFailure& failure() { return failure_; }

  // Counts one entry header. False, after issue "entry_limit" and a partial
  // result, when it is one more than max_entries. `archive_byte` is the
  // position in the archive file, or -1 for a directory input.
  bool Admit(const std::string& raw_path, int64_t archive_byte);

  // Delivers one entry; `info` holds the raw path, type, size, mtime and link
  // target; `source` is the entry's raw bytes (regular files only, else
  // null). False when the read must stop.
  bool Deliver(EntryInfo& info, EntryData* source);

  // The archive broke between entries (reading a header, or skipping the
  // unread rest of the previous entry): issue "archive_corrupt", partial.
  void HeaderDamaged(int64_t archive_byte, const std::string& detail);

  // The archive reader skipped a damaged header and looks for the next
  // sound one (libarchive's ARCHIVE_RETRY: a tar header with a bad
  // checksum). The first skip of a run is issue "archive_corrupt" and makes
  // the input partial: what the damaged header described is lost, what
  // follows is read. False when the read must stop instead: too many
  // damaged runs (kMaxDamagedRuns).
  bool HeaderSkipped(int64_t archive_byte, const std::string& detail);

 private:
  void Issue(const std::string& path, uint64_t offset, const char* kind,
             const std::string& message);
  void EndPartial(const std::string& error);

  const std::string& input_;
  const Limits& limits_;
  ReadBudget& budget_;
  BundleVisitor& visitor_;
  BundleReadResult& result_;
  EntryFailure failure_;
  // Non-directory paths delivered so far (duplicate_entry).
  DuplicatePaths seen_paths_;
  uint64_t headers_ = 0;
  // The last path delivered, to name where damage between entries was found.
  std::string last_path_;
  std::function<uint64_t()> archive_bytes_;
  // Stored bytes (after the archive's own decompression) of the entries
  // delivered before the current one: the outer layer's output so far.
  uint64_t stored_before_ = 0;
  // Damaged headers skipped: whether the last header read was one, and how
  // many runs of them there were.
  bool skipping_ = false;
  uint32_t damaged_runs_ = 0;
};

}  // namespace casefile::bundle
