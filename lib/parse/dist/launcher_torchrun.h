// torchrun / torch.distributed.elastic failure reports (formats.md 5.1): the
// multi-line summary of ChildFailedError and the agent's one-line "failed
// (exitcode: E) local_rank: L (pid: P) of binary: B". Internal to
// lib/parse/dist (launcher_summary.cc drives them).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "parse/dist/dist_family.h"

namespace casefile::dist::launcher {

// The summary block, one per agent:
//   Failures:                              (entries, or "<NO_OTHER_FAILURES>")
//   Root Cause (first observed failure):
//   [0]:
//     time      : 2023-05-19_16:39:58
//     host      : node-3
//     rank      : 12 (local_rank: 4)
//     exitcode  : -9 (pid: 1322)
//     error_file: <N/A>
//     traceback : Signal 9 (SIGKILL) received by PID 1322
//   =========
// Each entry becomes one launcher_failure event on its "exitcode" line.
// Blocks are kept apart by the wrappers of their lines (pdsh host, srun
// label), so that two agents' summaries interleaved in one file do not mix.
class TorchrunSummary {
 public:
  // Feeds one line. True when the line opened a block or belonged to an open
  // one (the caller then reads it no further); false otherwise, closing the
  // block of the line's wrappers when the line cannot belong to it.
  bool AddLine(const LineRecord& line, std::string_view msg, const DistEmitter& out);
  // Emits what open blocks hold (a summary cut by the end of the file).
  void Finish(const DistEmitter& out);
  bool HasOpenBlocks() const { return !blocks_.empty(); }

 private:
  struct Entry {
    bool open = false;
    bool root_cause = false;
    DistEventRow row;  // started on the "[idx]:" line; moved to the exitcode line
    bool has_code = false;
    bool named = false;  // the entry named a rank or host
    int64_t code = 0;
    int64_t local_rank = -1;
    int64_t pid = -1;
    int64_t time_us = 0;
    bool has_time = false;
    std::string signal;     // "SIGKILL" from "Signal 9 (SIGKILL) received by PID"
    std::string exception;  // the last exception line of the traceback
    bool in_traceback = false;
    int traceback_lines = 0;
  };
  struct Block {
    std::string host;  // the wrappers of the block's lines
    int32_t rank = -1;
    bool root_section = false;
    int blank_lines = 0;
    Entry entry;
  };

  enum class Fed { kTaken, kTakenAndClose, kForeign };
  Fed Feed(Block& b, const LineRecord& line, std::string_view t, const DistEmitter& out);
  static void Field(Entry& e, const LineRecord& line, std::string_view key, std::string_view value);
  static void ScanTraceback(Entry& e, std::string_view t);
  static void Flush(Block& b, const DistEmitter& out);
  void Close(size_t index, const DistEmitter& out);

  std::vector<Block> blocks_;
};

// The agent's line; emits one event and returns true when `msg` is one.
bool ParseTorchrunAgentLine(const LineRecord& line, std::string_view msg, const DistEmitter& out);

}  // namespace casefile::dist::launcher
