#include "analyze/runner.h"

#include <algorithm>
#include <atomic>
#include <set>
#include <thread>
#include <tuple>

#include "analyze/line_pass.h"
#include "analyze/registry.h"
#include "analyze/side_runner.h"
#include "common/error.h"

namespace casefile {
namespace {

// Deterministic order: most severe first, then code, then first evidence.
bool FindingBefore(const Finding& a, const Finding& b) {
  if (a.severity != b.severity) return a.severity > b.severity;
  if (a.code != b.code) return a.code < b.code;
  const Evidence* ea = a.evidence.empty() ? nullptr : &a.evidence.front();
  const Evidence* eb = b.evidence.empty() ? nullptr : &b.evidence.front();
  if (ea && eb && (*ea < *eb || *eb < *ea)) return *ea < *eb;
  return a.summary < b.summary;
}

}  // namespace

namespace {

// A fallback error (Finding::error_unless_explained) becomes info when an
// error of another analyzer names the cause; its summary says which.
void LowerExplainedFallbacks(std::vector<Finding>& findings) {
  for (Finding& f : findings) {
    if (!f.error_unless_explained || f.severity != Severity::kError) continue;
    const auto other = std::find_if(findings.begin(), findings.end(), [&](const Finding& g) {
      return g.analyzer != f.analyzer && g.severity == Severity::kError &&
             !g.error_unless_explained;
    });
    if (other == findings.end()) continue;
    f.severity = Severity::kInfo;
    f.summary += " " + other->code + " explains the run.";
  }
}

}  // namespace

AnalysisResult RunAnalyzers(const IndexReader& index, const std::vector<std::string>& names) {
  return RunAnalyzers(index, names, AllAnalyzers());
}

AnalysisResult RunAnalyzers(const IndexReader& index, const std::vector<std::string>& names,
                            const std::vector<std::unique_ptr<Analyzer>>& analyzers) {
  AnalyzerList borrowed;
  for (const auto& a : analyzers) {
    borrowed.push_back(std::shared_ptr<const Analyzer>(std::shared_ptr<const Analyzer>(), a.get()));
  }
  return RunAnalyzers(index, names, borrowed);
}

AnalysisResult RunAnalyzers(const IndexReader& index, const std::vector<std::string>& names,
                            const AnalyzerList& all) {
  return RunAnalyzers(index, names, all, ReaderFactory(), 1);
}

namespace {

// What one analyzer gave: its status and its findings.
struct Outcome {
  AnalyzerStatus status;
  std::vector<Finding> findings;
};

// An analyzer before Run: whether it applies, and its line scan (null when
// it reads no lines); `done` when it needs no Run (not applicable, or
// failed while preparing).
struct Prepared {
  bool done = false;
  std::unique_ptr<LineScan> scan;
};

// Runs `body`; an exception makes the outcome "failed" with the error and
// drops the analyzer's partial findings, so a report never mixes half an
// analysis in, and the other analyzers still run.
template <class Body>
void Guarded(Outcome& out, Body&& body) {
  try {
    body();
  } catch (const std::exception& e) {
    out.status.status = "failed";
    out.status.reason = e.what();
    out.findings.clear();
  }
}

Prepared Prepare(const Analyzer& analyzer, const IndexReader& index, const AnalysisContext& shared,
                 Outcome& out) {
  const AnalyzerInfo& info = analyzer.info();
  out.status = {info.name, info.version, "ran", "", 0};
  Prepared p;
  p.done = true;
  Guarded(out, [&] {
    AnalysisContext own(index, shared);
    if (auto why = analyzer.NotApplicable(own)) {
      out.status.status = "not_applicable";
      out.status.reason = *why;
      return;
    }
    if (analyzer.RunsOnAnyThread()) p.scan = analyzer.MakeLineScan(own);
    p.done = false;
  });
  return p;
}

void RunPrepared(const Analyzer& analyzer, const IndexReader& index, const AnalysisContext& shared,
                 Prepared& prepared, Outcome& out) {
  if (prepared.done) return;
  const AnalyzerInfo& info = analyzer.info();
  Guarded(out, [&] {
    AnalysisContext own(index, shared);
    own.SetLineScan(std::move(prepared.scan));
    analyzer.Run(own);
    auto found = own.TakeFindings();
    for (auto& f : found) {
      if (f.analyzer.empty()) f.analyzer = info.name;
      if (f.evidence.empty()) {
        throw Error(ErrorCode::kInternal,
                    "analyzer '" + info.name + "' emitted " + f.code + " without evidence");
      }
    }
    out.status.findings = static_cast<int64_t>(found.size());
    out.findings = std::move(found);
  });
}

}  // namespace

AnalysisResult RunAnalyzers(const IndexReader& index, const std::vector<std::string>& names,
                            const AnalyzerList& all, const ReaderFactory& more_readers,
                            unsigned threads) {
  std::set<std::string> wanted(names.begin(), names.end());
  for (const auto& n : wanted) {
    const bool known =
        std::any_of(all.begin(), all.end(), [&](const auto& a) { return a->info().name == n; });
    if (!known) throw Error(ErrorCode::kUnknownAnalyzer, "unknown analyzer '" + n + "'");
  }
  std::vector<const Analyzer*> chosen;
  for (const auto& analyzer : all) {
    if (wanted.empty() || wanted.count(analyzer->info().name)) chosen.push_back(analyzer.get());
  }

  AnalysisContext shared(index);
  std::vector<Outcome> outcomes(chosen.size());
  std::vector<Prepared> prepared(chosen.size());
  // The analyzers that may run anywhere, taken in order by whichever thread
  // is free; each thread reads through its own reader.
  std::vector<size_t> anywhere;
  for (size_t i = 0; i < chosen.size(); ++i) {
    if (chosen[i]->RunsOnAnyThread()) anywhere.push_back(i);
  }
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::unique_ptr<IndexReader>> readers;
  while (more_readers && readers.size() + 1 < std::min<size_t>(threads, anywhere.size())) {
    try {
      std::unique_ptr<IndexReader> r = more_readers();
      if (!r) break;
      readers.push_back(std::move(r));
    } catch (const std::exception&) {
      break;  // fewer threads
    }
  }
  // The analyzers that read no lines need not wait for the pass: one more
  // thread runs them through its own reader while the other analyzers are
  // prepared and the pass decodes. Without it a core idled while the first
  // thread prepared the scans, and again while the numeric curves (half a
  // second on a 1 GiB bundle) ran alone after the pass. The threads then
  // outnumber the cores while the pass runs; the work is the same.
  SideRunner side;
  bool side_possible = threads > 1 && static_cast<bool>(more_readers);
  auto run_on_side = [&](size_t i) {
    RunPrepared(*chosen[i], *side.reader, shared, prepared[i], outcomes[i]);
  };
  // Whether analyzer `i` (prepared, reading no lines) now runs on the side
  // thread; only once a pass is certain, since without one the threads
  // below share the analyzers better.
  auto send_to_side = [&](size_t i) {
    if (!side_possible) return false;
    if (!side.reader) {
      try {
        side.reader = more_readers();
      } catch (const std::exception&) {
        side.reader.reset();
      }
      if (!side.reader) {
        side_possible = false;  // the analyzers run after the pass, as before
        return false;
      }
    }
    return side.Push(i, run_on_side);
  };
  // First their line scans, in one shared pass over the files (line_pass.h).
  std::vector<LineScan*> scans;
  std::vector<char> on_side(chosen.size(), 0);
  std::vector<size_t> waiting;  // no line scan, prepared before the first scan
  for (size_t i : anywhere) {
    prepared[i] = Prepare(*chosen[i], index, shared, outcomes[i]);
    if (prepared[i].done) continue;
    if (prepared[i].scan) {
      scans.push_back(prepared[i].scan.get());
      for (size_t w : waiting) on_side[w] = send_to_side(w);
      waiting.clear();
    } else if (scans.empty()) {
      waiting.push_back(i);
    } else {
      on_side[i] = send_to_side(i);
    }
  }
  side.Close();
  std::vector<const IndexReader*> pass_readers{&index};
  for (const auto& r : readers) pass_readers.push_back(r.get());
  RunLinePass(shared.files(), scans, pass_readers);

  std::vector<size_t> after_pass;
  for (size_t i : anywhere) {
    if (!on_side[i]) after_pass.push_back(i);
  }
  std::atomic<size_t> next{0};
  auto work = [&](const IndexReader& reader) {
    for (size_t k = next++; k < after_pass.size(); k = next++) {
      const size_t i = after_pass[k];
      RunPrepared(*chosen[i], reader, shared, prepared[i], outcomes[i]);
    }
  };
  std::vector<std::thread> workers;
  for (const auto& r : readers) workers.emplace_back(work, std::cref(*r));
  work(index);
  for (std::thread& t : workers) t.join();
  side.Join();
  for (size_t i = 0; i < chosen.size(); ++i) {
    if (chosen[i]->RunsOnAnyThread()) continue;
    prepared[i] = Prepare(*chosen[i], index, shared, outcomes[i]);
    RunPrepared(*chosen[i], index, shared, prepared[i], outcomes[i]);
  }

  AnalysisResult result;
  for (Outcome& o : outcomes) {
    result.analyzers.push_back(std::move(o.status));
    for (Finding& f : o.findings) result.findings.push_back(std::move(f));
  }
  LowerExplainedFallbacks(result.findings);
  std::sort(result.findings.begin(), result.findings.end(), FindingBefore);
  return result;
}

}  // namespace casefile
