// The analyzer interface. An analyzer reads only the index (never the raw
// bundle) and emits findings. It declares the inputs it needs so the report can
// say "not applicable: no log files" instead of a silent empty result.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "analyze/finding.h"
#include "analyze/line_pass.h"
#include "analyze/rank_map.h"
#include "index/index_reader.h"

namespace casefile {

struct AnalyzerInfo {
  std::string name;                       // "hang"
  std::string version;                    // bumped when its findings change
  std::string description;                // one line
  std::vector<std::string> codes;         // every code it may emit
  std::vector<std::string> needed_kinds;  // file kinds it reads; any one present is enough
};

class AnalysisContext {
 public:
  explicit AnalysisContext(const IndexReader& index);
  // A context over the same index that shares `other`'s lazily built facts
  // (the rank->host map), so that one analysis builds them once whatever
  // the number of analyzers; its findings are its own.
  AnalysisContext(const IndexReader& index, const AnalysisContext& other);
  const IndexReader& index() const { return index_; }
  // Display name of a bundle id (for evidence).
  const std::string& BundleName(int64_t bundle_id) const;
  const FileRow* File(int64_t file_id) const;
  const std::vector<FileRow>& files() const { return files_; }
  // Evidence for a line of a file.
  Evidence MakeEvidence(int64_t file_id, int64_t line_no, std::string_view text) const;
  void Emit(Finding f);
  std::vector<Finding> TakeFindings();
  // Host of each global rank (rank_map.h), built from the index on the first
  // call and then shared by every context of this analysis; safe to call from
  // the contexts of several threads at once.
  const RankHostMap& rank_hosts() const;
  // The analyzer's line scan once the runner's shared pass filled it
  // (line_pass.h); analyzers take it through FilledLineScan.
  void SetLineScan(std::unique_ptr<LineScan> scan) { line_scan_ = std::move(scan); }
  std::unique_ptr<LineScan> TakeLineScan() { return std::move(line_scan_); }

 private:
  struct Shared {
    // Built once, by whichever analyzer asks first (analyzers may run on
    // several threads, each context over its own reader of one index).
    std::once_flag rank_hosts_once;
    std::unique_ptr<RankHostMap> rank_hosts;
  };
  const IndexReader& index_;
  std::shared_ptr<Shared> shared_;
  std::vector<FileRow> files_;
  std::vector<BundleRow> bundles_;
  std::vector<Finding> findings_;
  std::unique_ptr<LineScan> line_scan_;
};

class Analyzer {
 public:
  virtual ~Analyzer() = default;
  virtual const AnalyzerInfo& info() const = 0;
  // nullopt when the analyzer can run; else why not ("no log files").
  // The default checks info().needed_kinds against the index's files.
  virtual std::optional<std::string> NotApplicable(const AnalysisContext& ctx) const;
  // Emits findings through ctx. May throw: the runner records the failure
  // and goes on with the other analyzers.
  virtual void Run(AnalysisContext& ctx) const = 0;
  // True when NotApplicable and Run read only through their context and
  // share no mutable state with other analyzers: the runner may then run
  // this analyzer on a worker thread, beside others, over its own reader of
  // the index (runner.h). The built-in analyzers are; an external one is
  // run on the calling thread, as the C API promises.
  virtual bool RunsOnAnyThread() const { return false; }
  // An analyzer that reads every line of some files returns a scan of them
  // here (line_pass.h), and Run takes it back filled through
  // FilledLineScan: the runner decodes each file once for all the scans of
  // an analysis, on its threads. Called after NotApplicable, on the calling
  // thread, only for analyzers that run on any thread. Default: none.
  virtual std::unique_ptr<LineScan> MakeLineScan(const AnalysisContext& ctx) const {
    (void)ctx;
    return nullptr;
  }
};

}  // namespace casefile
