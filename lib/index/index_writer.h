// Builds an index file. The database is written to a temporary file beside
// the target and renamed over it only in Commit(), so a crash or an exception
// never leaves a half index that looks whole. Lines go into compressed blocks
// (see line_store.h and docs/ARCHITECTURE.md); compression and SQLite inserts
// run on a second thread so that parsing and storing overlap.
#pragma once

#include <memory>
#include <string>

#include "index/index_types.h"

namespace casefile {

class IndexWriter {
 public:
  explicit IndexWriter(const std::string& final_path);
  ~IndexWriter();  // without Commit(): the temporary file is removed
  IndexWriter(const IndexWriter&) = delete;
  IndexWriter& operator=(const IndexWriter&) = delete;

  int64_t AddBundle(const BundleRow& row);
  void UpdateBundle(const BundleRow& row);  // by row.id
  int64_t AddFile(const FileRow& row);
  void UpdateFile(const FileRow& row);      // by row.id: line_count, size, truncated, host…
  // Lines of a file arrive in order with line_no 1, 2, 3…; one file at a time.
  void AddLine(const LineRecord& line);
  // Ends the current file's lines (flushes its last block).
  void EndFileLines(int64_t file_id);
  void AddTraceEvent(const TraceEventRow& row);
  void AddHloModule(const HloModuleRow& row);
  void AddConfig(const ConfigRow& row);
  void AddIngestIssue(const IngestIssueRow& row);
  void SetMeta(const std::string& key, const std::string& value);
  // Flushes everything, sets the schema version, closes and renames.
  void Commit();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace casefile
