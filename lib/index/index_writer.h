// Builds an index file. The database is written to a temporary file beside
// the target and renamed over it only in Commit(), so a crash or an exception
// never leaves a half index that looks whole. Lines go into compressed blocks
// (see line_block.h and docs/SCHEMA.md); encoding, compression and every
// SQLite write run on a second thread, fed through a bounded queue, so that
// parsing and storing overlap and memory stays flat whatever the input size.
// When that queue is full the calling thread compresses the block itself
// rather than wait, which balances the two threads whichever is slower.
// The build itself runs without SQLite's journal or syncs (the file is
// private until the rename); Commit() fsyncs the finished file before the
// rename and the directory after it, so neither a killed process nor a power
// loss leaves a partial index under the final name. Temporaries left by
// killed writers are removed by the next writer of the same index
// (index_temp_files.h).
//
// Errors: an error met on the storage thread (disk full, say) is thrown by the
// next call on the writer, or by Commit(); it is never lost. After any error
// thrown by Commit() the writer is closed and its temporary file removed.
// Not thread-safe: one thread calls the writer.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "index/index_types.h"

namespace casefile {

struct Block;  // index/line_block.h

class IndexWriter {
 public:
  explicit IndexWriter(const std::string& final_path);
  ~IndexWriter();  // without Commit(): the temporary file is removed
  IndexWriter(const IndexWriter&) = delete;
  IndexWriter& operator=(const IndexWriter&) = delete;

  // Ids are assigned here, 1, 2, 3… in call order (row.id is ignored).
  int64_t AddBundle(const BundleRow& row);
  void UpdateBundle(const BundleRow& row);  // by row.id; Error(kArgument) for an unknown id
  // Error(kArgument) when row.bundle_id was not returned by AddBundle.
  int64_t AddFile(const FileRow& row);
  void UpdateFile(const FileRow& row);  // by row.id: line_count, size, truncated, host…
  // Lines of a file arrive in order with line_no 1, 2, 3…; one file at a time.
  // Error(kMisuse) for a line out of order or for a file already ended;
  // Error(kArgument) for an unknown file id. The line is copied.
  void AddLine(const LineRecord& line);
  // Ends the file's lines (flushes its last block). A file with no lines
  // needs no call; calling it is harmless.
  void EndFileLines(int64_t file_id);
  // Work on every block of lines before it is stored, on a thread of the
  // writer, one block at a time in the order the lines arrived: ingest
  // fills each line's template signature there (parse/template), so the
  // caller's thread does not pay for it. Set before the first line; the
  // function must not call the writer. An exception it throws fails the
  // writer like a storage error.
  void SetBlockPreparer(std::function<void(Block&)> preparer);
  // Hands over the lines so far and waits until the preparer has seen every
  // block: what it computed may then be read on the caller's thread. Lines
  // may still follow.
  void DrainPreparer();
  // Stops the preparing thread now (what it had not prepared is dropped):
  // for a caller that gives up on the index and is about to destroy what
  // the preparer calls into. The writer can then only be destroyed.
  void StopPreparer() noexcept;
  void AddTraceEvent(const TraceEventRow& row);
  // Names a process / a thread of a trace file: the trace_events view shows
  // the name as process_name (thread_name) on every event of the file with
  // that pid (pid and tid), added before or after the call; a later call for
  // the same process or thread replaces the name. The name is stored once
  // (trace_processes, trace_threads), not written into each event.
  void SetTraceProcessName(int64_t file_id, const std::string& pid, const std::string& name);
  void SetTraceThreadName(int64_t file_id, const std::string& pid, const std::string& tid,
                          const std::string& name);
  void AddHloModule(const HloModuleRow& row);
  void AddConfig(const ConfigRow& row);
  void AddNumericFrame(const NumericFrameRow& row);
  void AddMetricChunk(const MetricChunkRow& row);
  void AddDistEvent(const DistEventRow& row);
  void AddFrEntry(const FrEntryRow& row);
  void AddFrGroup(const FrGroupRow& row);
  void AddVersion(const VersionRow& row);
  void AddNcclRank(const NcclRankRow& row);
  void AddTraceStat(const TraceStatRow& row);
  void AddNetLink(const NetLinkRow& row);
  void AddNetSize(const NetSizeRow& row);
  void AddNetTimeline(const NetTimelineRow& row);
  void AddTraceMark(const TraceMarkRow& row);
  // Rows of the template tables (ingest writes them once, at the end).
  void AddTemplateSignature(const TemplateSignatureRow& row);
  void AddTemplate(const TemplateRow& row);
  void AddIngestIssue(const IngestIssueRow& row);
  // Sets a meta row. schema_version, casefile_version and line_block_format
  // belong to the writer and are overwritten at Commit(); created_at and
  // inputs_identity get defaults when not set (inputs_identity: a hash of the
  // bundles' identities in id order).
  void SetMeta(const std::string& key, const std::string& value);
  // Flushes everything, sets the schema version, closes and renames the
  // temporary file over the final path (replacing an older index there only
  // now). Any later call throws Error(kMisuse).
  void Commit();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace casefile
