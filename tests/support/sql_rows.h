// The rows of an SQL query on an index as text, NULL spelled "NULL": what
// the ingest and analyzer tests compare against expected tables.
#pragma once

#include <string>
#include <vector>

#include "index/index_reader.h"

namespace casefile::test {

using Rows = std::vector<std::vector<std::string>>;

inline Rows Sql(const IndexReader& r, const std::string& sql) {
  Rows rows;
  r.Query(sql, [&](const QueryRow& row) {
    std::vector<std::string> v;
    for (const auto& x : row.values) v.push_back(x ? *x : "NULL");
    rows.push_back(std::move(v));
    return true;
  });
  return rows;
}

}  // namespace casefile::test
