// Reads one input (a directory or any archive libarchive reads: tar, .tar.zst,
// .tar.gz/.tgz, .zip) as a stream. Nothing is ever extracted to disk, links
// are recorded and never followed, and every limit that cuts input is reported
// as an IngestIssue.
#pragma once

#include <cstdint>
#include <string>

#include "bundle/entry.h"
#include "common/limits.h"

namespace casefile {

class BundleVisitor {
 public:
  virtual ~BundleVisitor() = default;
  // Called once per entry in reading order (archive order; sorted paths for a
  // directory). `data` is non-null for regular files only, and is only valid
  // during the call; the visitor may stop reading it early.
  virtual void OnEntry(const EntryInfo& info, EntryData* data) = 0;
  virtual void OnIssue(const IngestIssue& issue) = 0;
};

struct BundleReadResult {
  // True when the input could not be read to its end (corrupt or truncated
  // archive, a limit hit): everything visited before stays valid.
  bool partial = false;
  // For a partial read: the reason, naming the entry and the byte offset.
  std::string error;
  uint64_t entries = 0;
  uint64_t bytes = 0;  // decompressed bytes delivered
};

// Running total across inputs, so max_total_bytes spans all of them.
struct ReadBudget {
  uint64_t total_bytes = 0;
};

// Throws Error(kNotFound) when `path` does not exist and Error(kUnsupported)
// when it is neither a directory nor a readable archive. Damage found after
// the first entry does not throw: it ends the read with partial = true.
BundleReadResult ReadBundle(const std::string& path, const Limits& limits, ReadBudget& budget,
                            BundleVisitor& visitor);

// A stable identity of the input as it is on disk now, used to decide whether
// an existing index can be reused: archive path, size and mtime; for a
// directory, every entry's relative path, size and mtime.
std::string BundleIdentity(const std::string& path);

// A display name for the input: its base name ("host-3.tar.zst", "bundle").
std::string BundleDisplayName(const std::string& path);

}  // namespace casefile
