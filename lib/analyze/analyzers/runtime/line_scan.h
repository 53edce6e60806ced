// The runtime analyzer's part of the shared line pass (analyze/line_pass.h):
// what it reads from every line of a file. Kernel messages are not
// in any table filled at ingest, so the lines of files of kind log, sysinfo
// and other are scanned with MayBeKernelEvent as a literal prefilter; the
// same scan notes, at no further decoding cost, which PID each rank's lines
// carry, the time of the nearest stamped line before each unstamped failure
// row, device-side assertion lines (only in files that reported a
// device-side assert) and the time span of the logs. Only the blocks that
// hold such lines are read where ingest marked them (line_marks.h): those
// with a kernel line, an assertion or a process's first line, and those
// within kMaxEstimateGap lines of an unstamped row; the span comes from the
// blocks' min_ts and max_ts.
#pragma once

#include <memory>
#include <set>
#include <string_view>
#include <utility>
#include <vector>

#include "analyze/analyzers/runtime/runtime_inputs.h"
#include "analyze/line_pass.h"
#include "index/index_reader.h"

namespace casefile::runtime {

// The scan as a part of the analysis's shared line pass (line_pass.h).
// Needs facts.rows loaded (LoadFailureRows) before the pass; the pass fills
// est_ts_us in them, and MergeInto then adds, in file order, facts.kills,
// xids, pids, asserts, kernel_log_hosts, run_first_us and run_last_us.
class RuntimeLineScan : public LineScan {
 public:
  // `marked`: the index's line marks (line_marks.h) can be trusted, so
  // only the blocks that hold what the scan looks for are read.
  RuntimeLineScan(RuntimeFacts facts, bool marked = false);
  std::unique_ptr<FileLineConsumer> ForFile(const FileRow& file) const override;
  // `files`: those the pass ran over (the context's).
  void MergeInto(const std::vector<FileRow>& files);
  RuntimeFacts& facts() { return facts_; }

 private:
  // Mutable because each file's consumer writes est_ts_us into that file's
  // rows (a range no other file's consumer touches) during the pass.
  mutable RuntimeFacts facts_;
  bool marked_;
};

// The pieces of the scan, for tests: one file's lines in order.
class FileScanner {
 public:
  // is_log: the file is of kind log (pids of ranks and the run's span come
  // from logs only); want_asserts: look for assertion lines.
  FileScanner(bool is_log, bool want_asserts, RuntimeFacts& facts);
  // The same with the failure rows apart: est_ts_us goes into `rows`, the
  // rest into `out`.
  FileScanner(bool is_log, bool want_asserts, std::vector<FailureRow>& rows, RuntimeFacts& out);
  // `wanted`: indexes into facts.rows of this file's unstamped rows, in
  // line order.
  void SetWanted(std::vector<size_t> wanted) { wanted_ = std::move(wanted); }
  void Add(const LineRecord& rec);
  void Finish();

 private:
  void AddKernel(const LineRecord& rec, std::string_view msg);
  void Flush();

  bool is_log_;
  bool want_asserts_;
  std::vector<FailureRow>& rows_;
  RuntimeFacts& facts_;
  std::vector<size_t> wanted_;
  size_t next_wanted_ = 0;
  std::vector<size_t> pending_;  // wanted rows with no stamped line close before them
  int64_t last_ts_ = kNoTimestamp;
  int64_t last_ts_line_ = 0;
  bool has_kill_ = false;
  KernelKill kill_;
  int64_t kill_start_ = 0;
  size_t kills_ = 0;
  size_t xids_ = 0;
  size_t asserts_ = 0;
  std::set<std::pair<int64_t, int64_t>> owners_seen_;  // (pid, rank)
};

}  // namespace casefile::runtime
