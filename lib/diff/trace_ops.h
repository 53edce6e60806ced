// What the traces section of the diff reads from one side's index: per trace
// file, the communication statistics filled at ingest (trace_comm_stats) and
// the operations' total time, summed in SQL (GROUP BY name) over the events
// that are operations, never streamed event by event into C++.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "diff/diff_types.h"

namespace casefile::diff {

// One operation (event name) over every trace file of a side.
struct OpTotal {
  double total_us = 0;
  int64_t count = 0;
  // Its longest event (evidence).
  double max_dur_us = -1;
  int64_t file_id = 0;
  int64_t line_no = 0;
  std::string evidence_text;  // composed from the stored columns (see .cc)
};

struct TraceSide {
  int64_t files = 0;  // trace files
  int64_t files_with_steps = 0;
  double steps = 0;    // summed over files (trace_comm_stats steps)
  double span_us = 0;  // summed over files
  // Communication share: busy and steady span summed over the files that
  // have both, so each file weighs by its length.
  double comm_busy_us = 0;
  double steady_span_us = 0;
  int64_t comm_files = 0;
  std::optional<double> step_median_us;  // median over files of step_median_us
  std::map<std::string, OpTotal> ops;
  double op_total_us = 0;
  // The first file's steady_start mark (evidence of the comm share).
  std::optional<Evidence> steady_mark;
};

// Which events are operations, per trace source (trace_comm_stats source):
// xprof: events of the threads named "XLA Ops" (not Steps, XLA Modules, or
// the host's Megascale threads, which overlap them); kineto: GPU activity
// (categories kernel, gpu_memcpy, gpu_memset); otherwise every event with a
// duration except steps (a thread named "Steps", "ProfilerStep#N").
TraceSide LoadTraceSide(const DiffSide& side);

}  // namespace casefile::diff
