// The bytes of one bundle file, read from their source and redacted, as the
// scan (pass 1) and the writer (pass 2) both see them: the same source
// bytes, the same key, the same redacted bytes. A source file is read only
// up to the size it had when pass 1 opened it, so a log that grows while
// the collector runs yields the same bytes twice; a file changed in place
// between the passes does not, and verify reports it (BUNDLE_FORMAT.md).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "collect/redactor.h"

namespace casefile::collect {

// A sizeless file (procfs, sysfs report 0) is read to its end up to this.
inline constexpr uint64_t kMaxUnsizedBytes = 64ull << 20;
// Decompressed content beyond this is not packed (and the cut recorded).
inline constexpr uint64_t kMaxDecompressedBytes = 8ull << 30;

enum class Compression { kNone, kGzip, kZstd, kXz, kBzip2, kLz4 };

// From the first bytes of a file. Archives that hold several members (zip,
// 7z) are not "compression": see IsMultiMemberArchive.
Compression SniffCompression(std::string_view head);
bool IsMultiMemberArchive(std::string_view head);
// The first `n` bytes of a file ("" when it cannot be read).
std::string ReadHead(const std::string& path, size_t n);
// "a.log.gz" -> "a.log", "x.tgz" -> "x.tar"; unchanged without the suffix.
std::string StripCompressionSuffix(const std::string& name, Compression c);

// Where a bundle file's bytes come from.
struct ContentSource {
  std::string file_path;                      // a file, or ...
  std::shared_ptr<const std::string> memory;  // ... bytes in memory (command output, env.txt)
  bool decompress = false;                    // a compressed file packed decompressed
  bool redacted_already = false;              // env.txt: values were redacted one by one
};

struct StreamStats {
  uint64_t source_bytes = 0;   // bytes read from the source (compressed bytes when decompressing)
  uint64_t content_bytes = 0;  // bytes handed to the sink
  int64_t mtime = 0;           // of the file when opened
  uint32_t mode = 0644;
  uint32_t uid = 0;
  uint32_t gid = 0;
  std::string cut;  // why the content ended early (decompression error or cap), else ""
};

// Called with each chunk of content; returns false to stop reading.
using ContentSink = std::function<bool(std::string_view chunk)>;

// Called with the source bytes of a plain (not decompressed) file as they
// are read, before redaction.
using SourceObserver = std::function<void(std::string_view raw)>;

// Streams the source's content (redacted when `redactor` is not null and the
// source is not redacted already) to `sink`. At most `source_limit` source
// bytes are read (UINT64_MAX: the size at open, or kMaxUnsizedBytes for a
// file of size 0). Throws Error(kIo) when the source cannot be opened or
// read, Error(kUnsupported) when it is not a regular file.
StreamStats StreamContent(const ContentSource& source, uint64_t source_limit,
                          const Redactor* redactor, RedactionCounts& counts,
                          const ContentSink& sink, const SourceObserver& on_source = {});

}  // namespace casefile::collect
