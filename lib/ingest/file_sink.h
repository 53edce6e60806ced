// Per-file ingest: turns one entry's byte stream into index rows according to
// its kind. One FileSink lives for one file.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "common/limits.h"
#include "index/index_writer.h"
#include "parse/classify/classify.h"

namespace casefile {

struct FileContext {
  int64_t bundle_id = 0;
  int64_t file_id = 0;
  std::string path;
  FileKind kind = FileKind::kOther;
  std::optional<std::string> host;  // file-level attribution (fallback for lines)
  std::optional<int64_t> rank;
  int64_t mtime = 0;
};

struct FileStats {
  uint64_t bytes = 0;
  uint64_t lines = 0;
  uint64_t truncated_lines = 0;
  int64_t first_truncated_line = 0;
};

class FileSink {
 public:
  virtual ~FileSink() = default;
  virtual void Feed(std::string_view chunk) = 0;
  // Flushes the last line / events and writes the per-kind rows.
  virtual void Finish() = 0;
  virtual const FileStats& stats() const = 0;
};

// Whether lines of this kind are mined for templates: logs, and the kinds
// that hold log lines too (a job log that starts with a version report is
// classified as one; sysinfo holds dmesg and journal output).
bool MinesTemplates(FileKind kind);

// The sink for a file of `ctx.kind`. (Lines of the kinds MinesTemplates()
// names get their template signature from ingest's TemplateStage, on the
// index writer's preparing thread, not here.)
std::unique_ptr<FileSink> MakeFileSink(const FileContext& ctx, const Limits& limits,
                                       IndexWriter& writer);

}  // namespace casefile
