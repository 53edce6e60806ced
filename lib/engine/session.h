// The facade the C API bridge calls: a set of inputs, their index, analysis
// and read-only queries. capi/ only converts types and errors around it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "common/limits.h"
#include "index/index_reader.h"
#include "report/report.h"

namespace casefile {

struct SessionOptions {
  std::string index_path;  // empty: DefaultIndexPath(inputs), in index_dir when set
  std::string index_dir;
  bool reindex = false;
  Limits limits;
};

// Returns false to abort indexing.
using ProgressFn = std::function<bool(uint64_t bytes_done, std::string_view current_path)>;

struct IndexOutcome {
  bool reused = false;
  bool partial = false;             // some input read only in part
  std::vector<std::string> errors;  // one per partial input, naming entry and offset
};

// $CASEFILE_CACHE_DIR, else $XDG_CACHE_HOME/casefile, else $HOME/.cache/casefile,
// then "<16 hex of a hash of the absolute input paths>.casefile.db".
std::string DefaultIndexPath(const std::vector<std::string>& inputs);

class Session {
 public:
  // Throws Error(kArgument) for no inputs, Error(kNotFound) for a missing one.
  Session(std::vector<std::string> inputs, SessionOptions options);
  ~Session();

  const std::string& index_path() const { return index_path_; }
  const std::vector<std::string>& inputs() const { return inputs_; }

  // Builds or reuses the index. Throws Error(kCorrupt/kUnsupported) when an
  // input is unreadable from its first byte, Error(kAborted) when progress
  // returned false; a later corruption gives partial = true instead.
  IndexOutcome Index(const ProgressFn& progress);
  bool indexed() const { return reader_ != nullptr; }
  // Whether the last Index() reused an existing index.
  bool reused() const { return reused_; }
  // The open index; Error(kMisuse) before Index().
  const IndexReader& reader() const;

  // Indexes first if needed. Throws Error(kUnknownAnalyzer). `parts`:
  // ReportParts::kNoContext for a caller that keeps only the findings (the
  // diff), which saves reading the report context.
  Report Analyze(const std::vector<std::string>& analyzer_names, bool store_findings,
                 ReportParts parts = ReportParts::kAll);

  // One read-only statement on the index (IndexReader::Query), within
  // `limits`. Error(kMisuse) before Index().
  void Query(std::string_view sql, const std::function<bool(const QueryRow&)>& row_cb,
             const QueryLimits& limits = {});

 private:
  std::vector<std::string> inputs_;
  SessionOptions options_;
  std::string index_path_;
  std::unique_ptr<IndexReader> reader_;
  bool reused_ = false;
};

}  // namespace casefile
