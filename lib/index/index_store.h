// The storage side of IndexWriter: owns the SQLite connection of the file
// being built and turns write ops and line blocks into rows. Used by one
// thread at a time (the storage thread while it runs, the caller's thread
// before it starts and after it is joined).
#pragma once

#include <sqlite3.h>

#include <map>
#include <string>

#include "index/block_compressor.h"
#include "index/metric_points_codec.h"
#include "index/sqlite_util.h"
#include "index/write_ops.h"

namespace casefile {

class IndexStore {
 public:
  // Creates the database at `path` (which must not exist), its schema, and
  // opens the one transaction of the build.
  explicit IndexStore(const std::string& path);
  ~IndexStore();  // closes without committing
  IndexStore(const IndexStore&) = delete;
  IndexStore& operator=(const IndexStore&) = delete;

  void Apply(const WriteOp& op);
  void StoreBlock(const StoredBlock& block);

  // Writes the meta rows the writer owns (`forced` replace any SetMeta value,
  // `defaults` only fill keys not set), the schema version, commits and
  // closes. Throws on any failure.
  void Finish(const std::map<std::string, std::string>& forced,
              const std::map<std::string, std::string>& defaults);

 private:
  void Close() noexcept;
  void Insert(const AddBundleOp& op);
  void Insert(const UpdateBundleOp& op);
  void Insert(const AddFileOp& op);
  void Insert(const UpdateFileOp& op);
  void Insert(const SetMetaOp& op);
  void Insert(const TraceNameOp& op);
  void Insert(const TraceEventRow& row);
  void Insert(const HloModuleRow& row);
  void Insert(const ConfigRow& row);
  void Insert(const IngestIssueRow& row);
  void Insert(const NumericFrameRow& row);
  void Insert(const MetricChunkRow& row);
  void Insert(const DistEventRow& row);
  void Insert(const FrEntryRow& row);
  void Insert(const FrGroupRow& row);
  void Insert(const VersionRow& row);
  void Insert(const NcclRankRow& row);
  void Insert(const TraceStatRow& row);
  void Insert(const NetLinkRow& row);
  void Insert(const NetSizeRow& row);
  void Insert(const NetTimelineRow& row);
  void Insert(const TraceMarkRow& row);
  void Insert(const TemplateSignatureRow& row);
  void Insert(const TemplateRow& row);

  std::string path_;
  sqlite3* db_ = nullptr;
  Statement add_bundle_, update_bundle_, add_file_, update_file_, set_meta_, meta_default_;
  Statement process_name_, thread_name_, trace_event_, hlo_module_, config_, ingest_issue_;
  Statement numeric_frame_, metric_chunk_, dist_event_, fr_entry_, fr_group_, version_;
  MetricPointsCompressor points_;  // metric_chunks.points (metric_points_codec.h)
  Statement nccl_rank_, trace_stat_, net_link_, net_size_, net_timeline_, trace_mark_;
  Statement template_signature_, template_;
  Statement block_;
};

}  // namespace casefile
