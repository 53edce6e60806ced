// What the bundle stage hands to the next one: entries of one input, in
// reading order, each with a chunked stream of its (decompressed) bytes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace casefile {

enum class EntryType { kFile, kDirectory, kSymlink, kHardlink, kDevice, kOther };

const char* EntryTypeName(EntryType type);

struct EntryInfo {
  // Normalised relative path inside the bundle: '/'-separated, no leading
  // '/', no '.' or '..' components, no empty components. For a member named
  // *.gz that the reader decompresses, the path keeps its ".gz". Two entries
  // of one input can share a path (issue "duplicate_entry").
  std::string path;
  // The path exactly as the archive or filesystem gave it.
  std::string raw_path;
  EntryType type = EntryType::kFile;
  // Size as stored (compressed size for a .gz member); -1 when unknown.
  int64_t size = -1;
  // Modification time, seconds since the epoch; 0 when unknown.
  int64_t mtime = 0;
  // Target of a symlink or hardlink, recorded and never followed.
  std::string link_target;
  // True when the raw path was absolute or held '..' and was normalised (also
  // an inner '.', an empty component or a '\' separator; a leading "./" and a
  // directory's trailing '/' are routine and do not count).
  bool path_rewritten = false;
  // True when the data stream is the gunzipped content of a *.gz member.
  // False for a *.gz member that does not start with the gzip magic: its
  // bytes are delivered as stored (issue "gzip_not_gzip").
  bool gunzipped = false;
};

// A stream of an entry's bytes in chunks cut at arbitrary boundaries.
class EntryData {
 public:
  virtual ~EntryData() = default;
  // The next chunk, valid until the next call; an empty view at the end.
  // Throws casefile::Error(kCorrupt) naming the entry and the byte offset
  // when the bytes cannot be read; what was returned before stays valid input.
  // After a throw, every later call throws the same error.
  virtual std::string_view Next() = 0;
  // Decompressed bytes returned so far.
  virtual uint64_t offset() const = 0;
};

// A skipped, truncated or suspicious piece of input. Each one becomes a row of
// the ingest_issues table and a line of every report.
struct IngestIssue {
  std::string path;     // entry path inside the bundle; empty for the bundle itself
  uint64_t offset = 0;  // byte offset in the entry (or the archive) where it happened
  std::string kind;     // stable id, e.g. "archive_corrupt", "line_truncated" (docs/SCHEMA.md)
  std::string message;  // human-readable, names the entry and offset
};

}  // namespace casefile
