// Opens a finished index read-only. The `lines` virtual table is registered
// on the connection, so SQL sees every line with its metadata
// (docs/SCHEMA.md). Not thread-safe: one thread uses a reader at a time
// (open one reader per thread; readers of one file do not block each other).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "index/index_types.h"
#include "index/query_limits.h"

struct sqlite3;

namespace casefile {

// Schema version written to PRAGMA user_version; bump on any schema change.
inline constexpr int kIndexSchemaVersion = 9;

// One result row of a query: column values as text, nullopt for SQL NULL.
struct QueryRow {
  const std::vector<std::string>* columns;
  std::vector<std::optional<std::string>> values;
};

class IndexReader {
 public:
  // Throws Error(kNotFound), Error(kIndexVersion) for another schema version,
  // Error(kCorrupt) when the file is not a casefile index.
  static std::unique_ptr<IndexReader> Open(const std::string& path);
  ~IndexReader();

  // The reader's own connection (read-only, `lines` registered, no
  // authorizer); valid until the reader is destroyed.
  sqlite3* db() const;
  std::string Meta(const std::string& key) const;  // "" when absent

  std::vector<BundleRow> Bundles() const;
  std::vector<FileRow> Files() const;                // ordered by bundle_id, path
  std::vector<IngestIssueRow> IngestIssues() const;  // in the order they were added
  // All lines of one file in order, one block in memory at a time; the
  // record's views are valid during the callback only. The callback returns
  // false to stop. Throws Error(kCorrupt) for a damaged block.
  void ScanLines(int64_t file_id, const std::function<bool(const LineRecord&)>& cb) const;
  // The blocks of one file in line order, without their lines (no
  // decoding).
  std::vector<BlockInfo> Blocks(int64_t file_id) const;
  // The lines of the blocks of `blocks` (as Blocks gave them) that `want`
  // accepts, in order, as ScanLines gives them. `want` is asked for each
  // block in turn after the lines of the blocks before it were handed out,
  // so it may depend on them; a block it refuses is not read at all.
  void ScanBlocks(int64_t file_id, std::span<const BlockInfo> blocks,
                  const std::function<bool(const BlockInfo&)>& want,
                  const std::function<bool(const LineRecord&)>& cb) const;
  // One line, or nullopt when the file has no such line. The last decoded
  // block is kept, so nearby lines cost no further decoding.
  std::optional<std::string> LineText(int64_t file_id, int64_t line_no) const;

  // The template tables, ordered by id (see TemplateRow).
  std::vector<TemplateRow> Templates() const;
  std::vector<TemplateSignatureRow> TemplateSignatures() const;

  // Runs one SQL statement on a read-only connection (SQLITE_OPEN_READONLY
  // plus an authorizer that refuses writes, ATTACH, DDL, transactions and
  // pragmas that change state). Throws Error(kReadOnly) for a refused
  // statement or for more than one statement (trailing semicolons,
  // whitespace and comments are fine), Error(kQuery) with SQLite's message
  // for other SQL errors. Values are text as SQLite renders them; NULL is
  // nullopt; a BLOB is hex up to 64 bytes, else "<blob N bytes>". The row
  // is valid during the callback only; the callback returns false to stop
  // (not an error). `limits` bound the query's time and result
  // (query_limits.h): past one it throws Error(kLimit) naming the limit, or
  // QueryTimeoutError; a value longer than kQueryMaxValueBytes, made or
  // read, throws Error(kLimit) whatever the limits.
  void Query(std::string_view sql, const std::function<bool(const QueryRow&)>& row_cb,
             const QueryLimits& limits = {}) const;

 private:
  IndexReader();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Replaces the findings stored in the index at `path` (a separate, writable
// connection; the rest of the index is not touched), in one transaction:
// readers see the old set or the new one. Each finding is stored as its
// code, analyzer, severity and its JSON, with ids 1, 2, 3… in order.
// Throws as IndexReader::Open for a missing or foreign file, Error(kIo) when
// the file cannot be written.
struct StoredFinding {
  std::string code;
  std::string analyzer;
  std::string severity;
  std::string json;
};
// `meta` rows are set (or deleted, for nullopt) in the same transaction, so
// that what describes the stored set (its provenance) can never belong to
// another process's findings.
void StoreFindings(const std::string& path, const std::vector<StoredFinding>& findings,
                   const std::map<std::string, std::optional<std::string>>& meta = {});

}  // namespace casefile
