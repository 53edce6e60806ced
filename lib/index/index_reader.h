// Opens a finished index read-only. The `lines` virtual table is registered
// on the connection, so SQL sees every line with its metadata.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "index/index_types.h"

struct sqlite3;

namespace casefile {

// Schema version written to PRAGMA user_version; bump on any schema change.
inline constexpr int kIndexSchemaVersion = 1;

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

  sqlite3* db() const;
  std::string Meta(const std::string& key) const;  // "" when absent

  std::vector<BundleRow> Bundles() const;
  std::vector<FileRow> Files() const;  // ordered by bundle_id, path
  std::vector<IngestIssueRow> IngestIssues() const;
  // All lines of one file in order; the callback returns false to stop.
  void ScanLines(int64_t file_id, const std::function<bool(const LineRecord&)>& cb) const;
  // One line, or nullopt.
  std::optional<std::string> LineText(int64_t file_id, int64_t line_no) const;

  // Runs SQL on a read-only connection (SQLITE_OPEN_READONLY plus an
  // authorizer that refuses writes, ATTACH and pragmas that change state).
  // Throws Error(kReadOnly) for a refused statement, Error(kQuery) for others.
  // The callback returns false to stop.
  void Query(std::string_view sql, const std::function<bool(const QueryRow&)>& row_cb) const;

 private:
  IndexReader();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Replaces the findings stored in the index at `path` (a separate, writable
// connection; the rest of the index is not touched). Each finding is stored
// as its code, analyzer, severity and its JSON.
struct StoredFinding {
  std::string code;
  std::string analyzer;
  std::string severity;
  std::string json;
};
void StoreFindings(const std::string& path, const std::vector<StoredFinding>& findings);

}  // namespace casefile
