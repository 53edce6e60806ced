// One family of distributed-run messages (torch watchdog, launchers, JAX
// coordination...), read line by line during ingest. DistExtractor scans each
// line once for the anchors of all families (dist_prefilter.h); a family
// reads only the lines that hold one of its anchors, in order, plus every
// line while it asked for them: families keep state across lines where a
// message spans several (torchrun's root-cause block, a traceback), and the
// inner lines of such a message may hold no anchor.
#pragma once

#include <functional>
#include <memory>

#include "index/index_types.h"
#include "parse/dist/dist_prefilter.h"

namespace casefile::dist {

class DistEmitter {
 public:
  DistEmitter(int64_t file_id, std::function<void(const DistEventRow&)> sink,
              std::function<void(const NcclRankRow&)> nccl_sink = {})
      : file_id_(file_id), sink_(std::move(sink)), nccl_sink_(std::move(nccl_sink)) {}
  // A row for `line` of `kind`, with file, line number, time, and the host,
  // rank and local rank the line's wrappers named already filled in.
  DistEventRow Start(const LineRecord& line, const char* kind) const {
    DistEventRow row;
    Restart(row, line, kind);
    return row;
  }
  // The same into an existing row, reusing the storage of its host and kind:
  // for readers that take a row before they know the line is theirs.
  void Restart(DistEventRow& row, const LineRecord& line, const char* kind) const;
  void Emit(const DistEventRow& row) const { sink_(row); }
  // A communicator row (nccl_ranks); file_id is filled in here. Dropped when
  // the extractor was made without an NCCL sink.
  void EmitNcclRank(NcclRankRow row) const {
    row.file_id = file_id_;
    if (nccl_sink_) nccl_sink_(row);
  }
  int64_t file_id() const { return file_id_; }

 private:
  int64_t file_id_;
  std::function<void(const DistEventRow&)> sink_;
  std::function<void(const NcclRankRow&)> nccl_sink_;
};

class DistFamily {
 public:
  virtual ~DistFamily() = default;
  // Feeds one line; `anchors` = LineAnchors(line). The family reads it when
  // the line holds one of its anchors (and all of its required ones), or
  // when its last read asked for the next line.
  void AddLine(const LineRecord& line, uint32_t anchors, const DistEmitter& out) {
    // One branch, rarely taken on the frequent lines (bitwise & of bools).
    const bool read = ((anchors & any_) != 0) & ((anchors & all_) == all_);
    if (!(read | wants_next_)) return;
    wants_next_ = ReadLine(line, anchors, out);
  }
  // The same for one family alone (tests, tools): scans the line itself.
  void AddLine(const LineRecord& line, const DistEmitter& out) {
    AddLine(line, LineAnchors(line), out);
  }
  // End of the file: emit what a pending multi-line message holds.
  virtual void Finish(const DistEmitter& /*out*/) {}

 protected:
  // `any`: the Anchor bits of the family's messages, one of which a line
  // must hold to be read; `all`: bits it must hold all of (0 for none).
  explicit DistFamily(uint32_t any, uint32_t all = 0) : any_(any), all_(all) {}
  // Reads a line that passed the anchors, or any line after a read that
  // returned true. Returns true while a multi-line message is open, so that
  // the next line is read whatever its anchors.
  virtual bool ReadLine(const LineRecord& line, uint32_t anchors, const DistEmitter& out) = 0;

 private:
  uint32_t any_;
  uint32_t all_;
  bool wants_next_ = false;
};

// The families, one per file (parse/dist/<family>.cc).
std::unique_ptr<DistFamily> MakeTorchWatchdogFamily();    // torch_watchdog.cc
std::unique_ptr<DistFamily> MakeCrashFamily();            // crash_lines.cc
std::unique_ptr<DistFamily> MakeLauncherFamily();         // launcher_summary.cc
std::unique_ptr<DistFamily> MakeJaxCoordinationFamily();  // jax_coordination.cc
std::unique_ptr<DistFamily> MakeProgramProgressFamily();  // program_progress.cc
std::unique_ptr<DistFamily> MakeStepTimeFamily();         // step_time.cc
std::unique_ptr<DistFamily> MakeRankHostFamily();         // rank_host.cc
std::unique_ptr<DistFamily> MakeBuildLinesFamily();       // build_lines.cc
std::unique_ptr<DistFamily> MakeCommLinesFamily();        // comm_lines.cc

}  // namespace casefile::dist
