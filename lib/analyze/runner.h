// Runs analyzers over an index. A failing analyzer never stops the others: its
// status is "failed" with the error, and the rest still run.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "analyze/analyzer.h"
#include "analyze/registry.h"

namespace casefile {

struct AnalyzerStatus {
  std::string name;
  std::string version;
  std::string status;  // "ran", "not_applicable", "failed"
  std::string reason;  // why not applicable or failed; "" when ran
  int64_t findings = 0;
};

struct AnalysisResult {
  std::vector<AnalyzerStatus> analyzers;
  std::vector<Finding> findings;  // sorted: severity desc, code, first evidence
};

// `names` empty = all. Throws Error(kUnknownAnalyzer) for a name not registered.
// Runs over a snapshot of AllAnalyzers().
AnalysisResult RunAnalyzers(const IndexReader& index, const std::vector<std::string>& names);

// The same over a snapshot the caller took (so that it can also record
// which analyzers ran, e.g. the provenance of stored findings).
AnalysisResult RunAnalyzers(const IndexReader& index, const std::vector<std::string>& names,
                            const AnalyzerList& analyzers);

// Opens another reader of the index being analysed (for a worker thread).
using ReaderFactory = std::function<std::unique_ptr<IndexReader>()>;

// The same, with the analyzers that run on any thread
// (Analyzer::RunsOnAnyThread: the built-in ones) spread over up to `threads`
// threads (0: one per core), the calling thread and workers that each read
// through a reader from `more_readers`; the others then run on the calling
// thread. The line scans of the first (Analyzer::MakeLineScan) run before
// them, in one pass that decodes each file once, a file at a time on
// whichever thread is free (line_pass.h); when `threads` is above 1, those
// that make no line scan run meanwhile on one more thread with its own
// reader (side_runner.h), so up to `threads` + 1 threads work during the
// pass. The result is the same as the sequential run's, whatever the thread
// count. A reader that cannot be opened means fewer threads, not a failure.
AnalysisResult RunAnalyzers(const IndexReader& index, const std::vector<std::string>& names,
                            const AnalyzerList& analyzers, const ReaderFactory& more_readers,
                            unsigned threads = 0);

// The same over a given list of analyzers (tests, embedders' own lists).
AnalysisResult RunAnalyzers(const IndexReader& index, const std::vector<std::string>& names,
                            const std::vector<std::unique_ptr<Analyzer>>& analyzers);

}  // namespace casefile
