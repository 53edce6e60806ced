// Helpers shared by the index tests: building small indexes and collecting
// query results.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "index/index_reader.h"
#include "index/index_writer.h"

namespace casefile::test {

using Row = std::vector<std::optional<std::string>>;

// All rows of `sql`, values as the query path renders them.
inline std::vector<Row> QueryAll(const IndexReader& reader, std::string_view sql) {
  std::vector<Row> rows;
  reader.Query(sql, [&](const QueryRow& r) {
    rows.push_back(r.values);
    return true;
  });
  return rows;
}

// The single value of a one-row, one-column query.
inline std::optional<std::string> QueryOne(const IndexReader& reader, std::string_view sql) {
  std::vector<Row> rows = QueryAll(reader, sql);
  if (rows.size() != 1 || rows[0].size() != 1) return "<" + std::to_string(rows.size()) + " rows>";
  return rows[0][0];
}

inline BundleRow MakeBundle(const std::string& name) {
  BundleRow b;
  b.name = name;
  b.path = "/inputs/" + name;
  b.identity = "id-" + name;
  b.format = "directory";
  b.status = "complete";
  return b;
}

inline FileRow MakeFile(int64_t bundle_id, const std::string& path) {
  FileRow f;
  f.bundle_id = bundle_id;
  f.path = path;
  f.kind = "log";
  f.entry_type = "file";
  return f;
}

// A line with text only: no timestamp, level, host, rank or pid.
inline LineRecord PlainLine(int64_t file_id, int64_t line_no, std::string_view text,
                            uint64_t offset) {
  LineRecord l;
  l.file_id = file_id;
  l.line_no = line_no;
  l.offset = offset;
  l.text = text;
  return l;
}

}  // namespace casefile::test
