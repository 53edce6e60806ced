// Open MPI's reports of a failed rank, printed by mpirun (also mpiexec,
// orterun, prterun):
//   "mpirun noticed that process rank 3 with PID 1234 on node node-2 exited
//    on signal 9 (Killed)."  (often hard-wrapped over two lines)
//   "mpirun has exited due to process rank 0 with PID 0 on node n5 exiting
//    improperly." / "... calling "abort"."
//   "MPI_ABORT was invoked on rank 3 in communicator MPI_COMM_WORLD" and,
//    on the next line, "with errorcode 1."
//   "mpirun detected that one or more processes exited with non-zero
//    status, ... The first process to do so was:" then "Process name:
//    [[17468,1],3]" and "Exit code:    1".
// Internal to lib/parse/dist (launcher_summary.cc drives it).
#pragma once

#include <string>
#include <string_view>

#include "parse/dist/dist_family.h"

namespace casefile::dist::launcher {

class MpiReports {
 public:
  // True while a report waits for its next line.
  bool Pending() const { return wait_ != Wait::kNone; }
  // Feeds the line after a pending report's start; true when the line was
  // part of the report (the caller then reads it no further).
  bool Continue(const LineRecord& line, std::string_view msg, const DistEmitter& out);
  // Reads a line that may start a report; true when it did.
  bool AddLine(const LineRecord& line, std::string_view msg, const DistEmitter& out);
  void Finish(const DistEmitter& out);

 private:
  enum class Wait { kNone, kExit, kAbortCode, kFirstProcess };

  void EmitPending(const DistEmitter& out);

  Wait wait_ = Wait::kNone;
  DistEventRow row_;  // started on the report's first line
  bool has_row_ = false;
  std::string text_;    // kExit: the first line of a wrapped report
  int lines_left_ = 0;  // kFirstProcess: lines the block may still take
};

}  // namespace casefile::dist::launcher
