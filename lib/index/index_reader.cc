#include "index/index_reader.h"

#include <cctype>
#include <chrono>

#include "common/error.h"
#include "index/index_open.h"
#include "index/line_block.h"
#include "index/query_guard.h"
#include "index/sqlite_util.h"

namespace casefile {
namespace {

// BLOBs up to this size are shown as hex; larger ones by their size only.
constexpr int kMaxHexBlob = 64;

constexpr const char* kBlocksOfFile =
    "SELECT first_line, line_count, raw_bytes, data FROM line_blocks "
    "INDEXED BY line_blocks_by_line WHERE file_id = ?1 ORDER BY first_line";
constexpr const char* kBlockOfLine =
    "SELECT first_line, line_count, raw_bytes, data FROM line_blocks "
    "INDEXED BY line_blocks_by_line WHERE file_id = ?1 AND first_line <= ?2 "
    "ORDER BY first_line DESC LIMIT 1";

// Decodes the block of the current row of `s` (columns as in kBlocksOfFile).
void DecodeRow(const Statement& s, DecodedBlock& block) {
  const void* data = sqlite3_column_blob(s.get(), 3);
  int size = sqlite3_column_bytes(s.get(), 3);
  block.Decode(data, static_cast<size_t>(size), s.Int(2));
  if (block.size() != static_cast<size_t>(s.Int(1))) {
    throw Error(ErrorCode::kCorrupt, "corrupt line block in index: line count differs from row");
  }
}

std::optional<std::string> ColumnAsText(sqlite3_stmt* stmt, int i) {
  switch (sqlite3_column_type(stmt, i)) {
    case SQLITE_NULL:
      return std::nullopt;
    case SQLITE_BLOB: {
      const auto* p = static_cast<const unsigned char*>(sqlite3_column_blob(stmt, i));
      int n = sqlite3_column_bytes(stmt, i);
      if (n > kMaxHexBlob) return "<blob " + std::to_string(n) + " bytes>";
      static const char kHex[] = "0123456789abcdef";
      std::string hex;
      for (int k = 0; k < n; ++k) {
        hex += kHex[p[k] >> 4];
        hex += kHex[p[k] & 15];
      }
      return hex;
    }
    default: {
      // INTEGER and REAL as SQLite renders them; TEXT as stored bytes.
      const unsigned char* p = sqlite3_column_text(stmt, i);
      int n = sqlite3_column_bytes(stmt, i);
      return std::string(reinterpret_cast<const char*>(p), static_cast<size_t>(n));
    }
  }
}

// True when `s` holds nothing but whitespace and semicolons.
bool Blank(std::string_view s) {
  for (char c : s) {
    if (!std::isspace(static_cast<unsigned char>(c)) && c != ';') return false;
  }
  return true;
}

struct StmtHolder {
  sqlite3_stmt* stmt = nullptr;
  ~StmtHolder() { sqlite3_finalize(stmt); }
};

// SQLite calls the progress handler every this many virtual-machine steps:
// often enough that a runaway query stops within milliseconds of its
// deadline, rarely enough that reading the clock costs nothing measurable.
constexpr int kProgressSteps = 1000;

// The time budget of one query, spent only while SQLite works: the clock
// runs inside sqlite3_step and stops while the row callback has the row.
class QueryClock {
 public:
  using Clock = std::chrono::steady_clock;
  QueryClock(sqlite3* db, uint32_t timeout_ms)
      : db_(db), left_(std::chrono::milliseconds(timeout_ms)) {
    if (timeout_ms != 0) sqlite3_progress_handler(db_, kProgressSteps, &QueryClock::Tick, this);
  }
  ~QueryClock() { sqlite3_progress_handler(db_, 0, nullptr, nullptr); }
  QueryClock(const QueryClock&) = delete;
  QueryClock& operator=(const QueryClock&) = delete;

  void Start() { since_ = Clock::now(); }
  void Stop() { left_ -= Clock::now() - since_; }
  bool expired() const { return expired_; }

 private:
  static int Tick(void* self) {
    auto* clock = static_cast<QueryClock*>(self);
    if (Clock::now() - clock->since_ > clock->left_) clock->expired_ = true;
    return clock->expired_ ? 1 : 0;  // non-zero interrupts the statement
  }

  sqlite3* db_;
  Clock::duration left_;
  Clock::time_point since_{};
  bool expired_ = false;
};

Error ValueTooLong() {
  return Error(ErrorCode::kLimit, "query limit: a value made or read by the query is longer than " +
                                      std::to_string(kQueryMaxValueBytes) +
                                      " bytes, the longest a query may handle (string or blob too "
                                      "big); narrow the query");
}

}  // namespace

struct IndexReader::Impl {
  std::string path;
  sqlite3* db = nullptr;
  // The query connection, opened on first Query(): it carries the authorizer,
  // which must not restrict the reader's own statements.
  sqlite3* query_db = nullptr;
  QueryGuard guard;
  // The last block LineText decoded: evidence lines cluster, so consecutive
  // lookups usually hit it.
  DecodedBlock line_cache;
  int64_t cache_file = 0;
  int64_t cache_first = 0;
  bool cache_valid = false;

  ~Impl() {
    if (query_db) sqlite3_close_v2(query_db);
    if (db) sqlite3_close_v2(db);
  }
};

IndexReader::IndexReader() : impl_(std::make_unique<Impl>()) {}
IndexReader::~IndexReader() = default;

std::unique_ptr<IndexReader> IndexReader::Open(const std::string& path) {
  std::unique_ptr<IndexReader> reader(new IndexReader());
  reader->impl_->path = path;
  reader->impl_->db = OpenIndexConnection(path, false);
  return reader;
}

sqlite3* IndexReader::db() const { return impl_->db; }

std::string IndexReader::Meta(const std::string& key) const {
  Statement s(impl_->db, "SELECT value FROM meta WHERE key = ?1");
  s.Bind(1, key);
  return s.Step() ? s.Text(0) : std::string();
}

std::vector<BundleRow> IndexReader::Bundles() const {
  Statement s(impl_->db,
              "SELECT id, name, path, identity, format, status, error, host, entries, bytes "
              "FROM bundles ORDER BY id");
  std::vector<BundleRow> out;
  while (s.Step()) {
    BundleRow& r = out.emplace_back();
    r.id = s.Int(0);
    r.name = s.Text(1);
    r.path = s.Text(2);
    r.identity = s.Text(3);
    r.format = s.Text(4);
    r.status = s.Text(5);
    r.error = s.Text(6);
    r.host = s.OptText(7);
    r.entries = s.Int(8);
    r.bytes = s.Int(9);
  }
  return out;
}

std::vector<FileRow> IndexReader::Files() const {
  Statement s(impl_->db,
              "SELECT id, bundle_id, path, kind, entry_type, link_target, size, mtime, host, "
              "task, rank, line_count, gunzipped, truncated FROM files ORDER BY bundle_id, path");
  std::vector<FileRow> out;
  while (s.Step()) {
    FileRow& r = out.emplace_back();
    r.id = s.Int(0);
    r.bundle_id = s.Int(1);
    r.path = s.Text(2);
    r.kind = s.Text(3);
    r.entry_type = s.Text(4);
    r.link_target = s.Text(5);
    r.size = s.Int(6);
    r.mtime = s.Int(7);
    r.host = s.OptText(8);
    r.task = s.OptText(9);
    r.rank = s.OptInt(10);
    r.line_count = s.Int(11);
    r.gunzipped = s.Int(12) != 0;
    r.truncated = s.Int(13) != 0;
  }
  return out;
}

std::vector<IngestIssueRow> IndexReader::IngestIssues() const {
  Statement s(impl_->db,
              "SELECT bundle_id, path, offset, kind, message FROM ingest_issues ORDER BY rowid");
  std::vector<IngestIssueRow> out;
  while (s.Step()) {
    IngestIssueRow& r = out.emplace_back();
    r.bundle_id = s.Int(0);
    r.path = s.Text(1);
    r.offset = s.Int(2);
    r.kind = s.Text(3);
    r.message = s.Text(4);
  }
  return out;
}

std::vector<TemplateRow> IndexReader::Templates() const {
  Statement s(impl_->db,
              "SELECT id, level, pattern, count, signatures, first_file_id, first_line_no, "
              "example FROM templates ORDER BY id");
  std::vector<TemplateRow> out;
  while (s.Step()) {
    TemplateRow& r = out.emplace_back();
    r.id = s.Int(0);
    r.level = s.Text(1);
    r.pattern = s.Text(2);
    r.count = s.Int(3);
    r.signatures = s.Int(4);
    r.first_file_id = s.Int(5);
    r.first_line_no = s.Int(6);
    r.example = s.Text(7);
  }
  return out;
}

std::vector<TemplateSignatureRow> IndexReader::TemplateSignatures() const {
  Statement s(impl_->db,
              "SELECT id, template_id, level, pattern, count, first_file_id, first_line_no "
              "FROM template_signatures ORDER BY id");
  std::vector<TemplateSignatureRow> out;
  while (s.Step()) {
    TemplateSignatureRow& r = out.emplace_back();
    r.id = s.Int(0);
    r.template_id = s.Int(1);
    r.level = s.Text(2);
    r.pattern = s.Text(3);
    r.count = s.Int(4);
    r.first_file_id = s.Int(5);
    r.first_line_no = s.Int(6);
  }
  return out;
}

namespace {

// Lines without their own host or rank take the file's (see lines_vtab.cc).
struct FileDefaults {
  std::string host;
  int64_t rank = -1;
};

FileDefaults DefaultsOf(sqlite3* db, int64_t file_id) {
  FileDefaults d;
  Statement a(db, "SELECT host, rank FROM files WHERE id = ?1");
  a.Bind(1, file_id);
  if (a.Step()) {
    if (!a.IsNull(0)) d.host = a.Text(0);
    if (!a.IsNull(1)) d.rank = a.Int(1);
  }
  return d;
}

// Hands out the lines of the decoded `block`; false when `cb` stopped.
bool HandOut(const DecodedBlock& block, int64_t file_id, int64_t first_line, const FileDefaults& d,
             const std::function<bool(const LineRecord&)>& cb) {
  for (size_t i = 0; i < block.size(); ++i) {
    LineRecord rec = block.Record(i, file_id, first_line);
    if (rec.host.empty()) rec.host = d.host;
    if (rec.rank == -1 && d.rank >= 0 && d.rank <= INT32_MAX)
      rec.rank = static_cast<int32_t>(d.rank);
    if (!cb(rec)) return false;
  }
  return true;
}

}  // namespace

void IndexReader::ScanLines(int64_t file_id,
                            const std::function<bool(const LineRecord&)>& cb) const {
  const FileDefaults d = DefaultsOf(impl_->db, file_id);
  Statement s(impl_->db, kBlocksOfFile);
  s.Bind(1, file_id);
  DecodedBlock block;
  while (s.Step()) {
    DecodeRow(s, block);
    if (!HandOut(block, file_id, s.Int(0), d, cb)) return;
  }
}

std::vector<BlockInfo> IndexReader::Blocks(int64_t file_id) const {
  // Without `data`: a step would read the blob's overflow pages.
  Statement s(impl_->db,
              "SELECT first_line, line_count, min_ts, max_ts, scan_marks FROM line_blocks "
              "INDEXED BY line_blocks_by_line WHERE file_id = ?1 ORDER BY first_line");
  s.Bind(1, file_id);
  std::vector<BlockInfo> out;
  while (s.Step()) {
    BlockInfo& b = out.emplace_back();
    b.first_line = s.Int(0);
    b.line_count = s.Int(1);
    if (!s.IsNull(2)) b.min_ts = s.Int(2);
    if (!s.IsNull(3)) b.max_ts = s.Int(3);
    b.scan_marks = static_cast<uint32_t>(s.Int(4));
  }
  return out;
}

void IndexReader::ScanBlocks(int64_t file_id, std::span<const BlockInfo> blocks,
                             const std::function<bool(const BlockInfo&)>& want,
                             const std::function<bool(const LineRecord&)>& cb) const {
  const FileDefaults d = DefaultsOf(impl_->db, file_id);
  Statement s(impl_->db,
              "SELECT first_line, line_count, raw_bytes, data FROM line_blocks "
              "INDEXED BY line_blocks_by_line WHERE file_id = ?1 AND first_line = ?2");
  DecodedBlock block;
  for (const BlockInfo& b : blocks) {
    if (!want(b)) continue;
    s.Reset();
    s.Bind(1, file_id);
    s.Bind(2, b.first_line);
    if (!s.Step()) {
      throw Error(ErrorCode::kCorrupt, "line block of file " + std::to_string(file_id) +
                                           " at line " + std::to_string(b.first_line) +
                                           " is gone from the index");
    }
    DecodeRow(s, block);
    if (!HandOut(block, file_id, b.first_line, d, cb)) return;
  }
}

std::optional<std::string> IndexReader::LineText(int64_t file_id, int64_t line_no) const {
  Impl& r = *impl_;
  auto cached = [&]() -> std::optional<std::string> {
    if (r.cache_valid && r.cache_file == file_id && line_no >= r.cache_first &&
        line_no - r.cache_first < static_cast<int64_t>(r.line_cache.size())) {
      return std::string(r.line_cache.Text(static_cast<size_t>(line_no - r.cache_first)));
    }
    return std::nullopt;
  };
  if (auto hit = cached()) return hit;
  Statement s(r.db, kBlockOfLine);
  s.Bind(1, file_id);
  s.Bind(2, line_no);
  if (!s.Step()) return std::nullopt;
  int64_t first_line = s.Int(0);
  if (line_no - first_line >= s.Int(1)) return std::nullopt;  // past the file's last line
  r.cache_valid = false;
  DecodeRow(s, r.line_cache);
  r.cache_file = file_id;
  r.cache_first = first_line;
  r.cache_valid = true;
  return cached();
}

void IndexReader::Query(std::string_view sql, const std::function<bool(const QueryRow&)>& row_cb,
                        const QueryLimits& limits) const {
  Impl& r = *impl_;
  if (!r.query_db) {
    r.query_db = OpenIndexConnection(r.path, false);
    r.guard.Install(r.query_db);
  }
  sqlite3* db = r.query_db;
  r.guard.Clear();
  auto refused = [&](const std::string& what) {
    return Error(ErrorCode::kReadOnly,
                 "query refused: " + what +
                     "; the index is read-only, a query may only read (SELECT, or a PRAGMA that "
                     "reads)");
  };

  if (Blank(sql)) throw Error(ErrorCode::kQuery, "SQL error: no statement in the query");
  if (sql.size() > static_cast<size_t>(kQueryMaxSqlBytes)) {
    throw Error(ErrorCode::kLimit, "query limit: the SQL is " + std::to_string(sql.size()) +
                                       " bytes, longer than the " +
                                       std::to_string(kQueryMaxSqlBytes) + " a query may have");
  }
  StmtHolder holder;
  const char* tail = nullptr;
  int rc = sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &holder.stmt, &tail);
  if (rc != SQLITE_OK) {
    if (!r.guard.refused().empty()) throw refused(r.guard.refused());
    if ((rc & 0xff) == SQLITE_TOOBIG) throw ValueTooLong();
    std::string msg = sqlite3_errmsg(db);
    // SQLite's own refusal to write a table (sqlite_master, say): still a
    // write attempt, so reported as one.
    if (msg.find("may not be modified") != std::string::npos) throw refused(msg);
    throw Error(ErrorCode::kQuery, "SQL error: " + msg);
  }
  if (!holder.stmt) throw Error(ErrorCode::kQuery, "SQL error: no statement in the query");

  // Only one statement: what follows it may be whitespace, semicolons and
  // comments, which SQLite prepares to no statement at all.
  std::string_view rest = sql.substr(static_cast<size_t>(tail - sql.data()));
  while (!Blank(rest)) {
    StmtHolder next;
    const char* next_tail = nullptr;
    int next_rc =
        sqlite3_prepare_v2(db, rest.data(), static_cast<int>(rest.size()), &next.stmt, &next_tail);
    if (next_rc != SQLITE_OK || next.stmt || next_tail == rest.data()) {
      throw Error(ErrorCode::kReadOnly,
                  "query refused: it holds more than one SQL statement; run one at a time");
    }
    rest = rest.substr(static_cast<size_t>(next_tail - rest.data()));
  }
  r.guard.Clear();
  if (!sqlite3_stmt_readonly(holder.stmt)) throw refused("a statement that writes");

  std::vector<std::string> names;
  int n = sqlite3_column_count(holder.stmt);
  for (int i = 0; i < n; ++i) {
    const char* name = sqlite3_column_name(holder.stmt, i);
    names.emplace_back(name ? name : "");
  }
  QueryRow row;
  row.columns = &names;
  QueryClock clock(db, limits.timeout_ms);
  uint64_t rows = 0;
  uint64_t bytes = 0;
  for (;;) {
    clock.Start();
    rc = sqlite3_step(holder.stmt);
    clock.Stop();
    if (rc == SQLITE_DONE) return;
    if (rc != SQLITE_ROW) {
      if (!r.guard.refused().empty()) throw refused(r.guard.refused());
      if ((rc & 0xff) == SQLITE_READONLY) throw refused(sqlite3_errmsg(db));
      if (clock.expired()) {
        throw QueryTimeoutError("query limit: stopped after " + std::to_string(limits.timeout_ms) +
                                " ms (the query timeout) with " + std::to_string(rows) +
                                " rows returned; narrow the query or raise the timeout");
      }
      if ((rc & 0xff) == SQLITE_TOOBIG) throw ValueTooLong();
      throw Error(ErrorCode::kQuery, std::string("SQL error: ") + sqlite3_errmsg(db));
    }
    if (limits.max_rows != 0 && rows == limits.max_rows) {
      throw Error(ErrorCode::kLimit, "query limit: the result has more than " +
                                         std::to_string(limits.max_rows) +
                                         " rows (the row limit); only the first " +
                                         std::to_string(limits.max_rows) + " were returned");
    }
    row.values.clear();
    uint64_t row_bytes = 0;
    for (int i = 0; i < n; ++i) {
      row.values.push_back(ColumnAsText(holder.stmt, i));
      if (row.values.back()) row_bytes += row.values.back()->size();
    }
    if (limits.max_result_bytes != 0 && row_bytes > limits.max_result_bytes - bytes) {
      throw Error(ErrorCode::kLimit, "query limit: the result is larger than " +
                                         std::to_string(limits.max_result_bytes) +
                                         " bytes (the result size limit); only the first " +
                                         std::to_string(rows) + " rows were returned");
    }
    bytes += row_bytes;
    ++rows;
    if (!row_cb(row)) return;
  }
}

void StoreFindings(const std::string& path, const std::vector<StoredFinding>& findings,
                   const std::map<std::string, std::optional<std::string>>& meta) {
  sqlite3* db = OpenIndexConnection(path, true);
  struct Closer {
    sqlite3* db;
    ~Closer() { sqlite3_close_v2(db); }
  } closer{db};
  // The default rollback journal makes the replacement all or nothing.
  Exec(db, "BEGIN IMMEDIATE");
  try {
    Exec(db, "DELETE FROM findings");
    Statement ins(db,
                  "INSERT INTO findings (id, code, analyzer, severity, json) "
                  "VALUES (?1, ?2, ?3, ?4, ?5)");
    int64_t id = 1;
    for (const StoredFinding& f : findings) {
      ins.Bind(1, id++);
      ins.Bind(2, f.code);
      ins.Bind(3, f.analyzer);
      ins.Bind(4, f.severity);
      ins.Bind(5, f.json);
      ins.Run();
    }
    ins.Finalize();
    for (const auto& [key, value] : meta) {
      if (value) {
        Statement set(db, "INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)");
        set.Bind(1, key);
        set.Bind(2, *value);
        set.Run();
        set.Finalize();
      } else {
        Statement del(db, "DELETE FROM meta WHERE key = ?1");
        del.Bind(1, key);
        del.Run();
        del.Finalize();
      }
    }
    Exec(db, "COMMIT");
  } catch (...) {
    sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

}  // namespace casefile
