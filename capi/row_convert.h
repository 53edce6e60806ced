// Hands the rows of a read-only query (casefile::QueryRow) to a C row
// callback as arrays of C strings. Shared by casefile_session_query and
// casefile_analysis_query so both give a callback the same shapes.
#pragma once

#include <string>
#include <vector>

#include "casefile.h"
#include "index/index_reader.h"

namespace casefile::capi {

class RowToC {
 public:
  // `callback` may be NULL: rows are then read and dropped.
  RowToC(casefile_row_fn callback, void* payload) : callback_(callback), payload_(payload) {}

  // The row callback for IndexReader::Query / Session::Query: false (stop)
  // once the C callback returned non-zero.
  bool operator()(const QueryRow& row);

  // Whether the C callback asked to stop; the caller then reports
  // CASEFILE_E_ABORTED.
  bool aborted() const { return aborted_; }

 private:
  casefile_row_fn callback_;
  void* payload_;
  bool aborted_ = false;
  // Column names are fixed for a statement; the array is rebuilt only when
  // the engine hands a different vector.
  const std::vector<std::string>* columns_ = nullptr;
  std::vector<const char*> names_;
  std::vector<const char*> values_;
};

}  // namespace casefile::capi
