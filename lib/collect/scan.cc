#include "collect/scan.h"

#include <algorithm>
#include <cstring>

#include "collect/nested_archive.h"
#include "collect/segment_hash.h"
#include "common/error.h"
#include "common/sha256.h"
#include "parse/classify/classify.h"

namespace casefile::collect {
namespace {

void Abort() { throw Error(ErrorCode::kAborted, "the progress callback asked to stop"); }

// What ingest will classify: it gunzips a gzip file (packed as it is with
// --no-redact) before looking at it, so the kind written to the manifest
// must come from the decompressed head too, or the manifest's kind would
// turn a .log.gz into "binary".
std::string ClassifiedHead(const PlannedFile& f, const std::string& head) {
  if (f.content.file_path.empty() || f.content.decompress ||
      SniffCompression(head) != Compression::kGzip) {
    return head;
  }
  ContentSource gunzip = f.content;
  gunzip.decompress = true;
  std::string decompressed;
  RedactionCounts scratch;
  try {
    StreamContent(gunzip, f.source_bytes, nullptr, scratch, [&](std::string_view chunk) {
      decompressed.append(chunk.substr(0, kClassifyHeadBytes - decompressed.size()));
      return decompressed.size() < kClassifyHeadBytes;
    });
  } catch (const Error&) {
    return head;  // unreadable now: the raw head still classifies it (binary)
  }
  return decompressed;
}

}  // namespace

void ScanFile(PlannedFile& f, const Redactor* redactor, const ScanProgressFn& progress) {
  Sha256 sha;
  std::string head;
  uint64_t size = 0;
  bool aborted = false;
  RedactionCounts counts;
  // Digests of the raw bytes per kSegmentBytes, by absolute offset (reads
  // may come back short; segments do not follow them).
  SegmentHash segment;
  uint64_t in_segment = 0;
  f.segment_hashes.clear();
  SourceObserver on_source;
  const bool segments = !f.content.file_path.empty() && !f.content.decompress;
  if (segments) {
    on_source = [&](std::string_view raw) {
      while (!raw.empty()) {
        size_t take =
            static_cast<size_t>(std::min<uint64_t>(raw.size(), kSegmentBytes - in_segment));
        segment.Update(raw.substr(0, take));
        in_segment += take;
        raw.remove_prefix(take);
        if (in_segment == kSegmentBytes) {
          f.segment_hashes.push_back(segment.Final());
          in_segment = 0;
        }
      }
    };
  }
  NestedArchiveSniffer nested;
  StreamStats stats = StreamContent(
      f.content, UINT64_MAX, redactor, counts,
      [&](std::string_view chunk) {
        sha.Update(chunk);
        size += chunk.size();
        if (redactor != nullptr) nested.Feed(chunk);
        if (head.size() < kClassifyHeadBytes) {
          head.append(chunk.substr(0, std::min(chunk.size(), kClassifyHeadBytes - head.size())));
        }
        if (progress && !progress(chunk.size())) aborted = true;
        return !aborted;
      },
      on_source);
  if (aborted) Abort();
  if (segments && in_segment > 0) f.segment_hashes.push_back(segment.Final());
  f.scanned = true;
  f.source_bytes = stats.source_bytes;
  f.size = size;
  f.sha256 = HexEncode(sha.Final());
  f.redactions = std::move(counts);
  f.cut = stats.cut;
  if (f.content.memory == nullptr) {
    f.meta.mtime = stats.mtime;
    f.meta.mode = stats.mode;
    f.meta.uid = stats.uid;
    f.meta.gid = stats.gid;
  }
  if (!f.fixed_kind.empty()) {
    f.kind = f.fixed_kind;
  } else {
    f.kind = FileKindName(ClassifyFile(f.path, ClassifiedHead(f, head)));
  }
  f.nested_archive = nested.found();
  f.head_is_pickle = !head.empty() && static_cast<unsigned char>(head[0]) == 0x80;
}

bool IsBinaryContent(const PlannedFile& f) {
  return f.kind == "binary" || (f.kind == "flight_recorder" && f.head_is_pickle);
}

void ScanTail(PlannedFile& f, uint64_t keep, const Redactor* redactor,
              const ScanProgressFn& progress) {
  if (keep >= f.size) {
    f.tail.reset();
    return;
  }
  const uint64_t target = f.size - keep;  // >= 1
  Sha256 kept;                            // from the line start found
  Sha256 mid;                             // from `target`, for when no line starts after it
  uint64_t offset = 0;
  uint64_t newlines = 0;  // before kept_from, or before target when none is found
  std::optional<uint64_t> kept_from;
  bool aborted = false;
  RedactionCounts scratch;
  StreamContent(f.content, f.source_bytes, redactor, scratch, [&](std::string_view chunk) {
    const uint64_t start = offset;
    if (start >= f.size) return false;  // past the scanned content: not part of the plan
    if (start + chunk.size() > f.size) chunk = chunk.substr(0, static_cast<size_t>(f.size - start));
    offset += chunk.size();
    if (kept_from) {
      kept.Update(chunk);
    } else {
      // A line starts at o when byte o-1 is '\n': the first '\n' at or after
      // target-1 ends the part that is cut.
      const uint64_t look = target - 1 > start ? target - 1 - start : 0;
      const uint64_t mid_from = target > start ? target - start : 0;
      size_t i = 0;
      for (; i < chunk.size(); ++i) {
        if (chunk[i] != '\n') continue;
        // The content's last byte starts no line in the kept part: kept
        // from there, the tail would be empty and the file left out.
        if (i >= look && start + i + 1 >= f.size) break;
        ++newlines;
        if (i >= look) {
          kept_from = start + i + 1;
          break;
        }
      }
      if (kept_from) {
        kept.Update(chunk.substr(i + 1));
      } else if (mid_from < chunk.size()) {
        mid.Update(chunk.substr(static_cast<size_t>(mid_from)));
      }
    }
    if (progress && !progress(chunk.size())) aborted = true;
    return !aborted;
  });
  if (aborted) Abort();
  if (offset < f.size) {
    throw Error(ErrorCode::kIo, "changed while being collected (shorter on the second read)");
  }
  TailInfo tail;
  tail.original_size = f.size;
  // With no line start in the last `keep` bytes, they are kept from the
  // middle of the last line rather than not at all.
  tail.kept_from = kept_from ? *kept_from : target;
  tail.first_line = newlines + 1;
  f.tail = tail;
  f.sha256 = HexEncode(kept_from ? kept.Final() : mid.Final());
}

}  // namespace casefile::collect
