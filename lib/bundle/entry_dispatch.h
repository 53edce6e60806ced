// What every reader does with one entry, whatever the input: count it against
// max_entries, normalise its path, stack the gzip and limit layers on its
// bytes, call the visitor, and turn each failure or cut into an issue and the
// right partial state.
#pragma once

#include <cstdint>
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
};

}  // namespace casefile::bundle
