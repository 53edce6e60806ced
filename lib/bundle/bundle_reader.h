// Reads one input (a directory or any archive libarchive reads: tar, .tar.zst,
// .tar.gz/.tgz, .zip) as a stream. Nothing is ever extracted to disk, links
// are recorded and never followed, and every limit that cuts input is reported
// as an IngestIssue.
#pragma once

#include <cstddef>
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
  //
  // When `data->Next()` throws Error(kCorrupt), the visitor may let it
  // propagate or catch it: either way ReadBundle reports it (see ReadBundle)
  // and the visitor need not record an issue of its own. Any other exception
  // thrown here (e.g. Error(kAborted)) propagates out of ReadBundle.
  virtual void OnEntry(const EntryInfo& info, EntryData* data) = 0;
  // An issue about the input. Issues about an entry's path
  // ("path_rewritten", "path_invalid", "duplicate_entry") arrive before the
  // entry's OnEntry (a skipped entry has no OnEntry); issues about an entry's
  // bytes ("gzip_not_gzip", "entry_truncated", "total_limit",
  // "decompression_bomb", "entry_size_mismatch", "gzip_corrupt",
  // "archive_corrupt", "entry_unreadable") arrive after its OnEntry returns.
  virtual void OnIssue(const IngestIssue& issue) = 0;
};

struct BundleReadResult {
  // True when the input could not be read to its end (corrupt or truncated
  // archive, a limit hit): everything visited before stays valid.
  bool partial = false;
  // For a partial read: the reason, naming the entry and the byte offset.
  std::string error;
  uint64_t entries = 0;  // entries passed to OnEntry
  uint64_t bytes = 0;    // decompressed bytes delivered
  // "directory", or libarchive's format name followed by its filters, e.g.
  // "POSIX pax interchange format + zstd", "ZIP 2.0 (deflation)".
  std::string format;
};

// Running total across inputs, so max_total_bytes spans all of them.
struct ReadBudget {
  uint64_t total_bytes = 0;
};

// How the bytes are cut into chunks. The defaults are right for production;
// tests shrink them to prove that results do not depend on chunking.
struct ReadTuning {
  // Read size for files of a directory input; clamped to [1, 1 MiB].
  size_t file_chunk_bytes = 256 * 1024;
  // Read size from an archive file; clamped to [512, 1 MiB].
  size_t archive_block_bytes = 64 * 1024;
};

// Throws Error(kNotFound) when `path` does not exist, Error(kUnsupported)
// when it is neither a directory nor a readable archive (libarchive fails to
// recognise it or to read its first header), Error(kIo) when the operating
// system refuses to open it. Damage found after the first entry does not
// throw: it ends the read with partial = true.
//
// Issues (IngestIssue::kind) and their effect on the read:
//   path_rewritten   the raw path was absolute or held '..', '.', '//', '\'
//   path_invalid     nothing left after normalisation (or > 4096 bytes): skipped
//   duplicate_entry  a non-directory path (after normalisation) seen again in
//                    the same input; the message says which occurrence it
//                    is. Every copy is delivered, in archive order (tar
//                    extraction would keep the last). Detection keeps 64-bit
//                    path hashes only: at most 32 bytes per distinct path,
//                    bounded by max_entries (duplicate_paths.h)
//   entry_limit      more than max_entries entries: partial, stops
//   entry_truncated  an entry longer than max_entry_bytes: the rest is dropped
//   total_limit      max_total_bytes reached across inputs: partial, stops
//   decompression_bomb  a layer of decompression gave more than
//                    Limits::bomb_ratio times the compressed bytes it read,
//                    past Limits::bomb_floor_bytes (bomb_guard.h): the
//                    archive's own compression (tar.zst, tar.gz, zip): partial,
//                    stops; the gzip of one *.gz member: that entry stops,
//                    partial, goes on
//   entry_size_mismatch  an archive entry read to its end holds another
//                    number of bytes than its header declares (a zip can
//                    declare anything): the bytes held are delivered; goes on
//   archive_corrupt  the archive is damaged or truncated: partial, stops;
//                    or one damaged header that libarchive can step over
//                    (a tar header with a bad checksum): one issue per run of
//                    damaged headers, partial, goes on at the next sound
//                    header (at most 100 such runs per input)
//   gzip_corrupt     the inner gzip of a *.gz member is damaged: goes on
//   gzip_not_gzip    a *.gz member that does not start with the gzip magic
//                    1f 8b (plain text under a .gz name, or empty): its bytes
//                    are delivered as stored, gunzipped = false; goes on
//   entry_unreadable one entry or directory could not be read: goes on
BundleReadResult ReadBundle(const std::string& path, const Limits& limits, ReadBudget& budget,
                            BundleVisitor& visitor);
BundleReadResult ReadBundle(const std::string& path, const Limits& limits, ReadBudget& budget,
                            BundleVisitor& visitor, const ReadTuning& tuning);

// A stable identity of the input as it is on disk now, used to decide whether
// an existing index can be reused: archive path, size and mtime; for a
// directory, every entry's relative path, size and mtime.
std::string BundleIdentity(const std::string& path);

// A display name for the input: its base name ("host-3.tar.zst", "bundle").
std::string BundleDisplayName(const std::string& path);

}  // namespace casefile
