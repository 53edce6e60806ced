#include "engine/diff_run.h"

#include <exception>
#include <filesystem>
#include <memory>
#include <mutex>
#include <thread>

#include "common/error.h"
#include "engine/stored_findings.h"

namespace casefile {
namespace {

// Indexes the side when needed and returns its findings; warnings name the
// side.
std::vector<Finding> SideFindings(const char* name, Session& session, bool store_findings,
                                  const ProgressFn& progress, std::vector<std::string>& warnings) {
  if (!session.indexed()) {
    IndexOutcome outcome = session.Index(progress);
    for (const std::string& e : outcome.errors) {
      warnings.push_back(std::string(name) + " side read only in part: " + e);
    }
  }
  // Findings a full analysis by this build stored in the index are what a
  // new run would find: reading them saves the analyzers' line scans.
  if (std::optional<std::vector<Finding>> stored = LoadStoredFindings(session.reader())) {
    return std::move(*stored);
  }
  // Only the findings are compared: the report context is not read.
  Report report = session.Analyze({}, store_findings, ReportParts::kNoContext);
  for (const std::string& w : report.warnings) warnings.push_back(std::string(name) + ": " + w);
  for (const AnalyzerStatus& a : report.analyzers) {
    if (a.status == "failed") {
      warnings.push_back(std::string(name) + ": analyzer " + a.name + " failed: " + a.reason);
    }
  }
  return std::move(report.findings);
}

// Whether two paths name one file (resolving relative parts and links;
// neither needs to exist yet).
bool SameFile(const std::string& a, const std::string& b) {
  std::error_code ec1, ec2;
  const auto ca = std::filesystem::weakly_canonical(a, ec1);
  const auto cb = std::filesystem::weakly_canonical(b, ec2);
  if (ec1 || ec2) return a == b;
  return ca == cb;
}

bool IsAbort(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const Error& e) {
    return e.code() == ErrorCode::kAborted;
  } catch (...) {
    return false;
  }
}

}  // namespace

diff::DiffReport DiffSessions(Session& good, Session& bad, bool store_findings,
                              const ProgressFn& progress) {
  // The two sides are independent until the comparison: each is indexed and
  // analysed on its own thread, so a machine with cores to spare diffs in
  // the time of the larger side. Progress reaches the caller from one thread
  // at a time, as the sum of both sides; once it asks to stop, both stop.
  std::mutex progress_mutex;
  uint64_t done[2] = {0, 0};
  bool stop = false;
  auto side_progress = [&](int side) -> ProgressFn {
    return [&, side](uint64_t bytes_done, std::string_view path) {
      std::lock_guard<std::mutex> lock(progress_mutex);
      done[side] = bytes_done;
      if (!stop && progress && !progress(done[0] + done[1], path)) stop = true;
      return !stop;
    };
  };
  std::vector<std::string> good_warnings, bad_warnings;
  std::vector<Finding> good_findings, bad_findings;
  // Two sessions of the same index (`diff X -- X` without index paths) must
  // not build it twice at once.
  const bool same_index = SameFile(good.index_path(), bad.index_path());
  if (same_index && good.inputs() != bad.inputs()) {
    // One file cannot hold two indexes: the second side would rebuild it
    // over the first, which then reads the other run.
    throw Error(ErrorCode::kArgument, "the good and the bad side have the same index file " +
                                          good.index_path() + "; give each side its own");
  }
  const bool parallel = !same_index;
  std::exception_ptr good_error;
  std::thread good_thread;
  auto run_good = [&] {
    try {
      good_findings = SideFindings("good", good, store_findings, side_progress(0), good_warnings);
    } catch (...) {
      good_error = std::current_exception();
      std::lock_guard<std::mutex> lock(progress_mutex);
      stop = true;  // no point finishing the other side
    }
  };
  if (parallel) {
    good_thread = std::thread(run_good);
  } else {
    run_good();
  }
  std::exception_ptr bad_error;
  try {
    bad_findings = SideFindings("bad", bad, store_findings, side_progress(1), bad_warnings);
  } catch (...) {
    bad_error = std::current_exception();
    std::lock_guard<std::mutex> lock(progress_mutex);
    stop = true;
  }
  if (good_thread.joinable()) good_thread.join();
  // A side's failure stops the other, which then throws kAborted: the
  // failure, not that abort, is what the caller must see.
  if (good_error && bad_error && IsAbort(good_error) && !IsAbort(bad_error)) {
    std::rethrow_exception(bad_error);
  }
  if (good_error) std::rethrow_exception(good_error);
  if (bad_error) std::rethrow_exception(bad_error);

  diff::DiffSide gs =
      diff::LoadSide("good", good.reader(), good.inputs(), std::move(good_findings));
  diff::DiffSide bs = diff::LoadSide("bad", bad.reader(), bad.inputs(), std::move(bad_findings));
  diff::DiffReport report = diff::BuildDiff(gs, bs);
  std::vector<std::string> warnings = std::move(good_warnings);
  warnings.insert(warnings.end(), bad_warnings.begin(), bad_warnings.end());
  report.warnings.insert(report.warnings.begin(), warnings.begin(), warnings.end());
  return report;
}

diff::DiffReport RunDiff(const std::vector<std::string>& good_inputs,
                         const std::vector<std::string>& bad_inputs, const DiffRunOptions& options,
                         const ProgressFn& progress) {
  if (good_inputs.empty()) throw Error(ErrorCode::kArgument, "no good bundles given");
  if (bad_inputs.empty()) throw Error(ErrorCode::kArgument, "no bad bundles given");
  auto open = [&](const std::vector<std::string>& inputs, const std::string& path) {
    SessionOptions so;
    so.index_path = path;
    so.index_dir = options.index_dir;
    so.reindex = options.reindex;
    so.limits = options.limits;
    return Session(inputs, so);
  };
  Session good = open(good_inputs, options.good_index_path);
  Session bad = open(bad_inputs, options.bad_index_path);
  return DiffSessions(good, bad, /*store_findings=*/true, progress);
}

}  // namespace casefile
