// Launchers' reports of a failed worker (kind launcher_failure): torchrun's
// failure summary and agent line (launcher_torchrun.cc), DeepSpeed's
// launch.py and srun's task exits (launcher_lines.cc), Open MPI's mpirun
// (launcher_mpi.cc). op = the launcher, value = the exit code (negative for
// a signal), host/rank from the message when it names them.
#include <string_view>

#include "parse/dist/dist_family.h"
#include "parse/dist/dist_kinds.h"
#include "parse/dist/launcher_lines.h"
#include "parse/dist/launcher_mpi.h"
#include "parse/dist/launcher_torchrun.h"
#include "parse/line/byte_search.h"

namespace casefile::dist {
namespace {

using scan::AnyOfFourBytes;
using scan::HasAt;
using scan::HasBefore;

// What a line's rare bytes announce (see Read).
enum : unsigned { kExitWord = 1, kTask = 2, kRank = 4, kHeader = 8 };

class LauncherFamily : public DistFamily {
 public:
  LauncherFamily() : DistFamily(kAnchorExit | kAnchorTask | kAnchorRank | kAnchorFail) {}

  bool ReadLine(const LineRecord& line, uint32_t /*anchors*/, const DistEmitter& out) override {
    Read(line, out);
    // An open torchrun summary or a wrapped MPI report reads the next lines.
    return torchrun_.HasOpenBlocks() || mpi_.Pending();
  }

  void Finish(const DistEmitter& out) override {
    torchrun_.Finish(out);
    mpi_.Finish(out);
  }

 private:
  void Read(const LineRecord& line, const DistEmitter& out) {
    const std::string_view msg = line.message();
    // Multi-line reports first: their inner lines match nothing else.
    const bool open = torchrun_.HasOpenBlocks();
    if (open && torchrun_.AddLine(line, msg, out)) return;
    if (mpi_.Pending() && mpi_.Continue(line, msg, out)) return;
    // The line holds a launcher anchor (dist_prefilter.h) or follows an open
    // report. Every one-line report has one of a few rare bytes: 'x' of an
    // exit word ("exitcode", "exits with return code", "Exited with exit
    // code", "exited on signal"), 'k' of srun's "task" or mpirun's "process
    // rank", 'F' / 'R' of the torchrun summary's headers. One pass finds them.
    unsigned hints = 0;
    AnyOfFourBytes(msg, 'x', 'k', 'F', 'R', [&](size_t p) {
      switch (msg[p]) {
        case 'x':
          if (p > 0 && (msg[p - 1] | 0x20) == 'e' && HasAt(msg, p + 1, "it")) hints |= kExitWord;
          break;
        case 'k':
          if (HasBefore(msg, p, "tas")) {
            hints |= kTask;
          } else if (HasBefore(msg, p, "process ran") || HasBefore(msg, p, "job ran") ||
                     HasBefore(msg, p, "invoked on ran")) {
            hints |= kRank;
          }
          break;
        case 'F':
          if (HasAt(msg, p, "Failures:")) hints |= kHeader;
          break;
        default:
          if (HasAt(msg, p, "Root Cause")) hints |= kHeader;
          break;
      }
      return false;
    });
    if (hints == 0) {
      // torchrun's agent says its workers finished ("ucc" anchors it).
      if (msg.find("worker group successfully finished") != std::string_view::npos ||
          msg.find("(WorkerState.SUCCEEDED)") != std::string_view::npos)
        out.Emit(out.Start(line, kLauncherSuccess));
      return;
    }
    if ((hints & kHeader) && !open && torchrun_.AddLine(line, msg, out)) return;
    if (hints & kExitWord) {
      if (launcher::ParseTorchrunAgentLine(line, msg, out)) return;
      if (launcher::ParseDeepSpeedExit(line, msg, out)) return;
    }
    if ((hints & (kExitWord | kTask)) && launcher::ParseSrunTaskExit(line, msg, out)) return;
    if (hints & (kExitWord | kRank)) mpi_.AddLine(line, msg, out);
  }

  launcher::TorchrunSummary torchrun_;
  launcher::MpiReports mpi_;
};

}  // namespace

std::unique_ptr<DistFamily> MakeLauncherFamily() { return std::make_unique<LauncherFamily>(); }

}  // namespace casefile::dist
