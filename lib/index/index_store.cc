#include "index/index_store.h"

#include <new>
#include <type_traits>

#include "index/index_reader.h"
#include "index/lines_vtab.h"
#include "index/metric_points_codec.h"
#include "index/schema.h"
#include "index/sqlite_temp_vfs.h"

namespace casefile {

IndexStore::IndexStore(const std::string& path) : path_(path) {
  // SQLite's own temporary files (the sorts of CREATE INDEX at Finish spill
  // gigabytes on a big trace) go beside the file being built, never to
  // $TMPDIR: "<path>-sqlite-<n>-<random>", unlinked as soon as opened, a
  // name RemoveStaleIndexTemporaries also covers (sqlite_temp_vfs.h).
  std::string msg;
  int rc = OpenWithTempPrefix(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, path + "-sqlite-",
                              &db_, &msg);
  if (rc != SQLITE_OK) {
    throw Error(ErrorCode::kIo, "cannot create index file " + path + ": " + msg);
  }
  try {
    sqlite3_extended_result_codes(db_, 1);
    // The file is private until Commit() renames it, so crash safety comes
    // from the rename, not from SQLite's journal: no journal, no syncs, and
    // one transaction for the whole build. 64 KiB pages measured slower.
    Exec(db_,
         "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA locking_mode=EXCLUSIVE; "
         "PRAGMA cache_size=-16384; BEGIN");
    RegisterLinesModule(db_);
    RegisterMetricPointsFunction(db_);
    for (const std::string& sql : SchemaStatements()) Exec(db_, sql.c_str());
    add_bundle_ = Statement(db_,
                            "INSERT INTO bundles (id, name, path, identity, format, status, error, "
                            "host, entries, bytes) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10)");
    update_bundle_ = Statement(db_,
                               "UPDATE bundles SET name=?2, path=?3, identity=?4, format=?5, "
                               "status=?6, error=?7, host=?8, entries=?9, bytes=?10 WHERE id=?1");
    add_file_ = Statement(db_,
                          "INSERT INTO files (id, bundle_id, path, kind, entry_type, link_target, "
                          "size, mtime, host, task, rank, line_count, gunzipped, truncated) "
                          "VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14)");
    update_file_ = Statement(db_,
                             "UPDATE files SET bundle_id=?2, path=?3, kind=?4, entry_type=?5, "
                             "link_target=?6, size=?7, mtime=?8, host=?9, task=?10, rank=?11, "
                             "line_count=?12, gunzipped=?13, truncated=?14 WHERE id=?1");
    set_meta_ = Statement(db_, "INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)");
    meta_default_ = Statement(db_, "INSERT OR IGNORE INTO meta (key, value) VALUES (?1, ?2)");
    // Names live in their own small tables (the trace_events view joins
    // them in), so naming a process rewrites no event rows.
    process_name_ = Statement(
        db_, "INSERT OR REPLACE INTO trace_processes (file_id, pid, name) VALUES (?1, ?2, ?3)");
    thread_name_ = Statement(db_,
                             "INSERT OR REPLACE INTO trace_threads (file_id, pid, tid, name) "
                             "VALUES (?1, ?2, ?3, ?4)");
    trace_event_ = Statement(db_,
                             "INSERT INTO trace_events_raw (file_id, pid, tid, process_name, "
                             "thread_name, name, category, phase, ts_us, dur_us, args, line_no, "
                             "offset) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13)");
    hlo_module_ = Statement(db_,
                            "INSERT INTO hlo_modules (file_id, module_name, stage, host, "
                            "fingerprint, xla_fingerprint, instruction_count, computation_count) "
                            "VALUES (?1,?2,?3,?4,?5,?6,?7,?8)");
    config_ =
        Statement(db_, "INSERT INTO configs (file_id, key, value, line_no) VALUES (?1,?2,?3,?4)");
    ingest_issue_ = Statement(db_,
                              "INSERT INTO ingest_issues (bundle_id, path, offset, kind, message) "
                              "VALUES (?1,?2,?3,?4,?5)");
    numeric_frame_ =
        Statement(db_,
                  "INSERT INTO numeric_frames (file_id, line_no, report_line_no, "
                  "report_kind, batch, frame_index, module_line_no, module_path, "
                  "module_class, role, abs_min, abs_max, min_text, max_text, host, "
                  "rank) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16)");
    metric_chunk_ = Statement(db_,
                              "INSERT INTO metric_chunks (file_id, name, form, host, rank, "
                              "first_line, last_line, point_count, nonfinite_count, min_value, "
                              "max_value, points) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12)");
    dist_event_ = Statement(db_,
                            "INSERT INTO dist_events (file_id, line_no, ts_us, host, rank, kind, "
                            "pg, pg_rank, seq, op, numel_in, numel_out, timeout_ms, elapsed_ms, "
                            "last_enqueued, last_completed, value, detail, local_rank) VALUES "
                            "(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18,?19)");
    fr_entry_ = Statement(db_,
                          "INSERT INTO fr_entries (file_id, rank, pg_id, pg_desc, record_id, "
                          "collective_seq_id, p2p_seq_id, op, state, input_sizes, output_sizes, "
                          "input_dtypes, output_dtypes, timeout_ms, time_created_ns, is_p2p, "
                          "retired, frame, line_no) VALUES "
                          "(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18,?19)");
    fr_group_ = Statement(db_,
                          "INSERT INTO fr_groups (file_id, rank, pg_id, name, desc, ranks, "
                          "last_enqueued, last_started, last_completed) VALUES "
                          "(?1,?2,?3,?4,?5,?6,?7,?8,?9)");
    version_ = Statement(db_,
                         "INSERT INTO versions (file_id, line_no, component, version, detail, "
                         "source) VALUES (?1,?2,?3,?4,?5,?6)");
    nccl_rank_ = Statement(
        db_,
        "INSERT INTO nccl_ranks (file_id, line_no, host, pid, rank, nranks, cuda_dev, nnodes, "
        "comm, comm_id, parent, bus_id, nccl_version, cuda_runtime, cuda_driver, net, "
        "net_devices, transports, env, channel_lines, init_line, complete_line, warn_count, "
        "first_warn_line, last_line, version_line) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,"
        "?13,?14,?15,?16,?17,?18,?19,?20,?21,?22,?23,?24,?25,?26)");
    trace_stat_ = Statement(
        db_, "INSERT INTO trace_comm_stats (file_id, key, value, detail) VALUES (?1,?2,?3,?4)");
    net_link_ =
        Statement(db_,
                  "INSERT INTO net_links (file_id, src, dst, transfers, bytes, lat_p50_us, "
                  "lat_p90_us, lat_max_us, lat_mean_us) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9)");
    net_size_ = Statement(db_,
                          "INSERT INTO net_sizes (file_id, lo_bytes, hi_bytes, transfers, bytes) "
                          "VALUES (?1,?2,?3,?4,?5)");
    net_timeline_ = Statement(db_,
                              "INSERT INTO net_timeline (file_id, t0_us, t1_us, bytes, transfers, "
                              "collectives_in_flight, busy_us, rpc_max_us) VALUES "
                              "(?1,?2,?3,?4,?5,?6,?7,?8)");
    trace_mark_ = Statement(db_,
                            "INSERT INTO trace_marks (file_id, kind, line_no, offset, ts_us, "
                            "dur_us, pid, text, detail) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9)");
    template_signature_ = Statement(db_,
                                    "INSERT INTO template_signatures (id, template_id, level, "
                                    "pattern, count, first_file_id, first_line_no) VALUES "
                                    "(?1,?2,?3,?4,?5,?6,?7)");
    template_ =
        Statement(db_,
                  "INSERT INTO templates (id, level, pattern, count, signatures, "
                  "first_file_id, first_line_no, example) VALUES (?1,?2,?3,?4,?5,?6,?7,?8)");
    block_ = Statement(db_,
                       "INSERT INTO line_blocks (file_id, block_no, first_line, line_count, "
                       "first_offset, min_ts, max_ts, raw_bytes, data, scan_marks) "
                       "VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10)");
  } catch (...) {
    Close();
    throw;
  }
}

IndexStore::~IndexStore() { Close(); }

void IndexStore::Close() noexcept {
  for (Statement* s :
       {&add_bundle_,   &update_bundle_, &add_file_,      &update_file_,  &set_meta_,
        &meta_default_, &process_name_,  &thread_name_,   &trace_event_,  &hlo_module_,
        &config_,       &ingest_issue_,  &numeric_frame_, &metric_chunk_, &dist_event_,
        &fr_entry_,     &fr_group_,      &version_,       &nccl_rank_,    &trace_stat_,
        &net_link_,     &net_size_,      &net_timeline_,  &trace_mark_,   &template_signature_,
        &template_,     &block_}) {
    s->Finalize();
  }
  if (db_) sqlite3_close_v2(db_);
  db_ = nullptr;
}

void IndexStore::Apply(const WriteOp& op) {
  std::visit([this](const auto& o) { Insert(o); }, op);
}

namespace {

void BindBundle(Statement& s, const BundleRow& r) {
  s.Bind(1, r.id);
  s.Bind(2, r.name);
  s.Bind(3, r.path);
  s.Bind(4, r.identity);
  s.Bind(5, r.format);
  s.Bind(6, r.status);
  s.Bind(7, r.error);
  s.Bind(8, r.host);
  s.Bind(9, r.entries);
  s.Bind(10, r.bytes);
  s.Run();
}

void BindFile(Statement& s, const FileRow& r) {
  s.Bind(1, r.id);
  s.Bind(2, r.bundle_id);
  s.Bind(3, r.path);
  s.Bind(4, r.kind);
  s.Bind(5, r.entry_type);
  s.Bind(6, r.link_target);
  s.Bind(7, r.size);
  s.Bind(8, r.mtime);
  s.Bind(9, r.host);
  s.Bind(10, r.task);
  s.Bind(11, r.rank);
  s.Bind(12, r.line_count);
  s.Bind(13, int64_t{r.gunzipped ? 1 : 0});
  s.Bind(14, int64_t{r.truncated ? 1 : 0});
  s.Run();
}

}  // namespace

void IndexStore::Insert(const AddBundleOp& op) { BindBundle(add_bundle_, op.row); }
void IndexStore::Insert(const UpdateBundleOp& op) { BindBundle(update_bundle_, op.row); }
void IndexStore::Insert(const AddFileOp& op) { BindFile(add_file_, op.row); }
void IndexStore::Insert(const UpdateFileOp& op) { BindFile(update_file_, op.row); }

void IndexStore::Insert(const SetMetaOp& op) {
  set_meta_.Bind(1, op.key);
  set_meta_.Bind(2, op.value);
  set_meta_.Run();
}

void IndexStore::Insert(const TraceNameOp& op) {
  Statement& s = op.is_thread ? thread_name_ : process_name_;
  s.Bind(1, op.file_id);
  s.Bind(2, op.pid);
  if (op.is_thread) {
    s.Bind(3, op.tid);
    s.Bind(4, op.name);
  } else {
    s.Bind(3, op.name);
  }
  s.Run();
}

void IndexStore::Insert(const TraceEventRow& r) {
  Statement& s = trace_event_;
  s.Bind(1, r.file_id);
  s.Bind(2, r.pid);
  s.Bind(3, r.tid);
  s.Bind(4, r.process_name);
  s.Bind(5, r.thread_name);
  s.Bind(6, r.name);
  s.Bind(7, r.category);
  s.Bind(8, r.phase);
  s.Bind(9, r.ts_us);
  s.Bind(10, r.dur_us);
  s.Bind(11, r.args_json.empty() ? std::string_view("{}") : std::string_view(r.args_json));
  s.Bind(12, r.line_no);
  s.Bind(13, static_cast<int64_t>(r.offset));
  s.Run();
}

void IndexStore::Insert(const HloModuleRow& r) {
  Statement& s = hlo_module_;
  s.Bind(1, r.file_id);
  s.Bind(2, r.module_name);
  s.Bind(3, r.stage);
  s.Bind(4, r.host);
  s.Bind(5, r.fingerprint);
  s.Bind(6, r.xla_fingerprint);
  s.Bind(7, r.instruction_count);
  s.Bind(8, r.computation_count);
  s.Run();
}

void IndexStore::Insert(const ConfigRow& r) {
  config_.Bind(1, r.file_id);
  config_.Bind(2, r.key);
  config_.Bind(3, r.value);
  config_.Bind(4, r.line_no);
  config_.Run();
}

void IndexStore::Insert(const IngestIssueRow& r) {
  Statement& s = ingest_issue_;
  s.Bind(1, r.bundle_id);
  s.Bind(2, r.path);
  s.Bind(3, r.offset);
  s.Bind(4, r.kind);
  s.Bind(5, r.message);
  s.Run();
}

void IndexStore::Insert(const NumericFrameRow& r) {
  Statement& s = numeric_frame_;
  s.Bind(1, r.file_id);
  s.Bind(2, r.line_no);
  s.Bind(3, r.report_line_no);
  s.Bind(4, r.report_kind);
  s.Bind(5, r.batch);
  s.Bind(6, r.frame_index);
  s.Bind(7, r.module_line_no);
  s.Bind(8, r.module_path);
  s.Bind(9, r.module_class);
  s.Bind(10, r.role);
  s.Bind(11, r.abs_min);
  s.Bind(12, r.abs_max);
  s.Bind(13, r.min_text);
  s.Bind(14, r.max_text);
  s.Bind(15, r.host);
  s.Bind(16, r.rank);
  s.Run();
}

void IndexStore::Insert(const MetricChunkRow& r) {
  Statement& s = metric_chunk_;
  s.Bind(1, r.file_id);
  s.Bind(2, r.name);
  s.Bind(3, r.form);
  s.Bind(4, r.host);
  s.Bind(5, r.rank);
  s.Bind(6, r.first_line);
  s.Bind(7, r.last_line);
  s.Bind(8, r.point_count);
  s.Bind(9, r.nonfinite_count);
  s.Bind(10, r.min_value);
  s.Bind(11, r.max_value);
  const std::string_view frame = points_.Compress(r.points);
  s.BindBlobStatic(12, frame.data(), frame.size());
  s.Run();
}

void IndexStore::Insert(const DistEventRow& r) {
  Statement& s = dist_event_;
  s.Bind(1, r.file_id);
  s.Bind(2, r.line_no);
  if (r.ts_us != kNoTimestamp) s.Bind(3, r.ts_us);
  s.Bind(4, r.host);
  s.Bind(5, r.rank);
  s.Bind(6, r.kind);
  s.Bind(7, r.pg);
  s.Bind(8, r.pg_rank);
  s.Bind(9, r.seq);
  s.Bind(10, r.op);
  s.Bind(11, r.numel_in);
  s.Bind(12, r.numel_out);
  s.Bind(13, r.timeout_ms);
  s.Bind(14, r.elapsed_ms);
  s.Bind(15, r.last_enqueued);
  s.Bind(16, r.last_completed);
  s.Bind(17, r.value);
  s.Bind(18, r.detail);
  s.Bind(19, r.local_rank);
  s.Run();
}

void IndexStore::Insert(const FrEntryRow& r) {
  Statement& s = fr_entry_;
  s.Bind(1, r.file_id);
  s.Bind(2, r.rank);
  s.Bind(3, r.pg_id);
  s.Bind(4, r.pg_desc);
  s.Bind(5, r.record_id);
  s.Bind(6, r.collective_seq_id);
  s.Bind(7, r.p2p_seq_id);
  s.Bind(8, r.op);
  s.Bind(9, r.state);
  s.Bind(10, r.input_sizes);
  s.Bind(11, r.output_sizes);
  s.Bind(12, r.input_dtypes);
  s.Bind(13, r.output_dtypes);
  s.Bind(14, r.timeout_ms);
  s.Bind(15, r.time_created_ns);
  s.Bind(16, static_cast<int64_t>(r.is_p2p));
  s.Bind(17, static_cast<int64_t>(r.retired));
  s.Bind(18, r.frame);
  s.Bind(19, r.line_no);
  s.Run();
}

void IndexStore::Insert(const FrGroupRow& r) {
  Statement& s = fr_group_;
  s.Bind(1, r.file_id);
  s.Bind(2, r.rank);
  s.Bind(3, r.pg_id);
  s.Bind(4, r.name);
  s.Bind(5, r.desc);
  s.Bind(6, r.ranks);
  s.Bind(7, r.last_enqueued);
  s.Bind(8, r.last_started);
  s.Bind(9, r.last_completed);
  s.Run();
}

void IndexStore::Insert(const VersionRow& r) {
  Statement& s = version_;
  s.Bind(1, r.file_id);
  s.Bind(2, r.line_no);
  s.Bind(3, r.component);
  s.Bind(4, r.version);
  s.Bind(5, r.detail);
  s.Bind(6, r.source);
  s.Run();
}

void IndexStore::Insert(const NcclRankRow& r) {
  Statement& s = nccl_rank_;
  s.Bind(1, r.file_id);
  s.Bind(2, r.line_no);
  s.Bind(3, r.host);
  s.Bind(4, r.pid);
  s.Bind(5, r.rank);
  s.Bind(6, r.nranks);
  s.Bind(7, r.cuda_dev);
  s.Bind(8, r.nnodes);
  s.Bind(9, r.comm);
  s.Bind(10, r.comm_id);
  s.Bind(11, r.parent);
  s.Bind(12, r.bus_id);
  s.Bind(13, r.nccl_version);
  s.Bind(14, r.cuda_runtime);
  s.Bind(15, r.cuda_driver);
  s.Bind(16, r.net);
  s.Bind(17, r.net_devices);
  s.Bind(18, r.transports);
  s.Bind(19, r.env);
  s.Bind(20, r.channel_lines);
  s.Bind(21, r.init_line);
  s.Bind(22, r.complete_line);
  s.Bind(23, r.warn_count);
  s.Bind(24, r.first_warn_line);
  s.Bind(25, r.last_line);
  s.Bind(26, r.version_line);
  s.Run();
}

void IndexStore::Insert(const TraceStatRow& r) {
  Statement& s = trace_stat_;
  s.Bind(1, r.file_id);
  s.Bind(2, r.key);
  s.Bind(3, r.value);
  s.Bind(4, r.detail);
  s.Run();
}

void IndexStore::Insert(const NetLinkRow& r) {
  Statement& s = net_link_;
  s.Bind(1, r.file_id);
  s.Bind(2, r.src);
  s.Bind(3, r.dst);
  s.Bind(4, r.transfers);
  s.Bind(5, r.bytes);
  s.Bind(6, r.lat_p50_us);
  s.Bind(7, r.lat_p90_us);
  s.Bind(8, r.lat_max_us);
  s.Bind(9, r.lat_mean_us);
  s.Run();
}

void IndexStore::Insert(const NetSizeRow& r) {
  Statement& s = net_size_;
  s.Bind(1, r.file_id);
  s.Bind(2, r.lo_bytes);
  s.Bind(3, r.hi_bytes);
  s.Bind(4, r.transfers);
  s.Bind(5, r.bytes);
  s.Run();
}

void IndexStore::Insert(const NetTimelineRow& r) {
  Statement& s = net_timeline_;
  s.Bind(1, r.file_id);
  s.Bind(2, r.t0_us);
  s.Bind(3, r.t1_us);
  s.Bind(4, r.bytes);
  s.Bind(5, r.transfers);
  s.Bind(6, r.collectives_in_flight);
  s.Bind(7, r.busy_us);
  s.Bind(8, r.rpc_max_us);
  s.Run();
}

void IndexStore::Insert(const TraceMarkRow& r) {
  Statement& s = trace_mark_;
  s.Bind(1, r.file_id);
  s.Bind(2, r.kind);
  s.Bind(3, r.line_no);
  s.Bind(4, r.offset);
  s.Bind(5, r.ts_us);
  s.Bind(6, r.dur_us);
  s.Bind(7, r.pid);
  s.Bind(8, r.text);
  s.Bind(9, r.detail);
  s.Run();
}

void IndexStore::Insert(const TemplateSignatureRow& r) {
  Statement& s = template_signature_;
  s.Bind(1, r.id);
  s.Bind(2, r.template_id);
  s.Bind(3, r.level);
  s.Bind(4, r.pattern);
  s.Bind(5, r.count);
  s.Bind(6, r.first_file_id);
  s.Bind(7, r.first_line_no);
  s.Run();
}

void IndexStore::Insert(const TemplateRow& r) {
  Statement& s = template_;
  s.Bind(1, r.id);
  s.Bind(2, r.level);
  s.Bind(3, r.pattern);
  s.Bind(4, r.count);
  s.Bind(5, r.signatures);
  s.Bind(6, r.first_file_id);
  s.Bind(7, r.first_line_no);
  s.Bind(8, r.example);
  s.Run();
}

void IndexStore::StoreBlock(const StoredBlock& block) {
  Statement& s = block_;
  s.Bind(1, block.file_id);
  s.Bind(2, block.block_no);
  s.Bind(3, block.first_line);
  s.Bind(4, block.line_count);
  s.Bind(5, block.first_offset);
  if (block.min_ts != kNoTimestamp) {
    s.Bind(6, block.min_ts);
    s.Bind(7, block.max_ts);
  }
  s.Bind(8, block.raw_bytes);
  s.BindBlobStatic(9, block.data.data(), block.data.size());
  s.Bind(10, static_cast<int64_t>(block.scan_marks));
  s.Run();
}

void IndexStore::Finish(const std::map<std::string, std::string>& forced,
                        const std::map<std::string, std::string>& defaults) {
  for (const auto& [key, value] : forced) Insert(SetMetaOp{key, value});
  for (const auto& [key, value] : defaults) {
    meta_default_.Bind(1, key);
    meta_default_.Bind(2, value);
    meta_default_.Run();
  }
  // Row counts for the query planner. Without them SQLite assumes a million
  // rows per table and would rather scan all of `lines` than drive a join
  // from a small `files`. The limit keeps ANALYZE cheap on big tables.
  for (const std::string& sql : IndexStatements()) Exec(db_, sql.c_str());
  Exec(db_, "PRAGMA analysis_limit=1000; ANALYZE");
  Exec(db_, ("PRAGMA user_version=" + std::to_string(kIndexSchemaVersion)).c_str());
  Exec(db_, "COMMIT");
  for (Statement* s :
       {&add_bundle_,   &update_bundle_, &add_file_,      &update_file_,  &set_meta_,
        &meta_default_, &process_name_,  &thread_name_,   &trace_event_,  &hlo_module_,
        &config_,       &ingest_issue_,  &numeric_frame_, &metric_chunk_, &dist_event_,
        &fr_entry_,     &fr_group_,      &version_,       &nccl_rank_,    &trace_stat_,
        &net_link_,     &net_size_,      &net_timeline_,  &trace_mark_,   &template_signature_,
        &template_,     &block_}) {
    s->Finalize();
  }
  int rc = sqlite3_close(db_);
  if (rc != SQLITE_OK) ThrowSqlite(db_, rc, "cannot close index file " + path_);
  db_ = nullptr;
}

}  // namespace casefile
