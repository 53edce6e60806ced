// One file of the bundle being made, from planning (where it comes from,
// where it goes) through the scan (its size, digest, kind, redactions) to
// the size decisions (whole, tailed, or left out).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "collect/bundle_writer.h"
#include "collect/content_stream.h"
#include "collect/redactor.h"

namespace casefile::collect {

// A file cut by --max-bytes keeps content[kept_from, original_size): the
// content's last part, from a line start. first_line is the 1-based number,
// in the whole content, of the first line kept, so line N of the bundle
// file is line N + first_line - 1 of the source.
inline constexpr uint64_t kSegmentBytes = 1ull << 20;

struct TailInfo {
  uint64_t original_size = 0;
  uint64_t kept_from = 0;
  uint64_t first_line = 1;
};

struct PlannedFile {
  std::string path;    // bundle path, "hosts/<host>/..."
  std::string source;  // absolute source path, "command:NAME" or "environment"
  ContentSource content;
  std::string fixed_kind;      // the kind when the collector knows it; "" to classify
  bool named = false;          // named by an argument (not filtered by --since)
  uint64_t planned_bytes = 0;  // source size when planned (for progress)
  // Redactions made outside the content: in the bundle path, and in the
  // values of env.txt (redacted one by one before the scan).
  RedactionCounts extra_redactions;

  // Filled by the scan.
  bool scanned = false;
  uint64_t source_bytes = 0;  // read from the source; pass 2 reads exactly this many
  uint64_t size = 0;          // content bytes (redacted, before any cut)
  std::string sha256;         // of the bytes packed
  std::string kind;
  RedactionCounts redactions;       // in the content, then (after the scan) extra_redactions added
  uint64_t content_redactions = 0;  // in the content alone
  std::string cut;                  // why the content ended before the source did
  bool head_is_pickle = false;      // first byte 0x80: a pickle, binary whatever its kind
  // With redaction: content whose text the redactor cannot see, a zip, 7z
  // or compressed head, or a tar holding such members (NestedArchiveSniffer).
  bool nested_archive = false;
  // A SegmentHash of each kSegmentBytes of the source (plain files): what
  // lets pass 2 pack a file in which pass 1 found nothing to redact without
  // redacting it again (collect.cc, CopyVerified).
  std::vector<uint64_t> segment_hashes;
  EntryMeta meta;

  // Decisions.
  bool packed = false;
  std::string note;  // why left out or cut
  std::optional<TailInfo> tail;

  // Bytes in the bundle.
  uint64_t packed_size() const { return tail ? tail->original_size - tail->kept_from : size; }
};

}  // namespace casefile::collect
