// One family of distributed-run messages (torch watchdog, launchers, JAX
// coordination...), read line by line during ingest. A family sees every line
// of a log file in order and must reject an unrelated line cheaply: one
// search for a rare literal before any parsing. Families keep state across
// lines where a message spans several (torchrun's root-cause block).
#pragma once

#include <functional>
#include <memory>

#include "index/index_types.h"

namespace casefile::dist {

class DistEmitter {
 public:
  DistEmitter(int64_t file_id, std::function<void(const DistEventRow&)> sink)
      : file_id_(file_id), sink_(std::move(sink)) {}
  // A row for `line` of `kind`, with file, line number, time, and the host
  // and rank the line's wrappers named already filled in.
  DistEventRow Start(const LineRecord& line, const char* kind) const {
    DistEventRow row;
    row.file_id = file_id_;
    row.line_no = line.line_no;
    row.ts_us = line.ts_us;
    if (!line.host.empty()) row.host = std::string(line.host);
    if (line.rank >= 0) row.rank = line.rank;
    row.kind = kind;
    return row;
  }
  void Emit(const DistEventRow& row) const { sink_(row); }
  int64_t file_id() const { return file_id_; }

 private:
  int64_t file_id_;
  std::function<void(const DistEventRow&)> sink_;
};

class DistFamily {
 public:
  virtual ~DistFamily() = default;
  virtual void AddLine(const LineRecord& line, const DistEmitter& out) = 0;
  // End of the file: emit what a pending multi-line message holds.
  virtual void Finish(const DistEmitter& /*out*/) {}
};

// The families, one per file (parse/dist/<family>.cc).
std::unique_ptr<DistFamily> MakeTorchWatchdogFamily();    // torch_watchdog.cc
std::unique_ptr<DistFamily> MakeCrashFamily();            // crash_lines.cc
std::unique_ptr<DistFamily> MakeLauncherFamily();         // launcher_summary.cc
std::unique_ptr<DistFamily> MakeJaxCoordinationFamily();  // jax_coordination.cc
std::unique_ptr<DistFamily> MakeProgramProgressFamily();  // program_progress.cc
std::unique_ptr<DistFamily> MakeStepTimeFamily();         // step_time.cc
std::unique_ptr<DistFamily> MakeRankHostFamily();         // rank_host.cc

}  // namespace casefile::dist
