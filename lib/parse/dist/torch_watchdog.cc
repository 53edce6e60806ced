// The PyTorch ProcessGroupNCCL / c10d family: watchdog timeouts, group
// progress, "Some NCCL operations have failed", a stuck watchdog, store
// timeouts, NCCL and CUDA errors (the readers are in torch_watchdog_*.cc).
//
// Reject path. The family reads only lines that hold one of its anchors
// (dist_prefilter.h: "dog", "nqu", "fai", "meo"/"med", NCCL error names,
// "cud"), and runs each reader only behind the anchor its literal contains,
// so an unrelated line costs nothing here and a row is taken only for a
// reader whose anchor the line holds (into a reused row: no allocation).
#include <map>
#include <string>
#include <unordered_set>

#include "parse/dist/dist_family.h"
#include "parse/dist/dist_kinds.h"
#include "parse/dist/torch_watchdog_fields.h"
#include "parse/dist/torch_watchdog_kinds.h"

namespace casefile::dist {
namespace {

constexpr size_t npos = std::string_view::npos;

// "timeout", "Timeout", "timed out", "Timed out": one scan for their 'm'.
bool HasTimeoutWord(std::string_view msg) {
  for (size_t m = msg.find('m', 1); m != npos; m = msg.find('m', m + 1)) {
    if (msg[m - 1] != 'i') continue;
    const std::string_view rest = msg.substr(m + 1);
    if (rest.substr(0, 4) == "eout" || rest.substr(0, 6) == "ed out") return true;
  }
  return false;
}

// Two readers keep the word tests that gated them before the anchors: their
// literals do not imply them ("atchdog got stuck", "ncclInvalidUsage:").
bool StuckGate(std::string_view msg) {
  return msg.find("Watchdog") != npos || msg.find("watchdog") != npos || HasTimeoutWord(msg);
}
bool CollectiveGate(std::string_view msg) {
  return msg.find("NCCL") != npos || msg.find("Error:") != npos;
}

std::string RankKey(const DistEventRow& row) {
  std::string key = row.host.value_or("");
  key.push_back('\x1f');
  key.append(row.rank ? std::to_string(*row.rank) : "-");
  return key;
}

class TorchWatchdogFamily : public DistFamily {
 public:
  TorchWatchdogFamily()
      : DistFamily(kAnchorWatchdog | kAnchorEnqueued | kAnchorFail | kAnchorTimeout |
                   kAnchorNcclError | kAnchorCuda) {}

  bool ReadLine(const LineRecord& line, uint32_t anchors, const DistEmitter& out) override {
    const std::string_view msg = line.message();
    if (anchors & kAnchorWatchdog) {
      out.Restart(row_, line, kWatchdogTimeout);
      if (torch::ReadWatchdogTimeout(msg, row_)) out.Emit(row_);
    }
    if (anchors & kAnchorEnqueued) {
      out.Restart(row_, line, kWorkProgress);
      if (torch::ReadWorkProgress(msg, row_)) {
        if (row_.detail && *row_.detail == torch::kPeriodicDetail) {
          KeepPeriodic(row_);
        } else {
          out.Emit(row_);
        }
      }
    }
    if (anchors & kAnchorFail) {
      out.Restart(row_, line, kNcclFailed);
      if (torch::ReadNcclFailed(msg, row_)) out.Emit(row_);
    }
    if ((anchors & (kAnchorWatchdog | kAnchorTimeout)) && StuckGate(msg)) {
      out.Restart(row_, line, kWatchdogStuck);
      if (torch::ReadWatchdogStuck(msg, row_)) out.Emit(row_);
    }
    if (anchors & kAnchorTimeout) {
      out.Restart(row_, line, kStoreTimeout);
      if (torch::ReadStoreTimeout(msg, row_)) out.Emit(row_);
    }
    // ncclUnhandledCudaError has "cud" rather than an NCCL error anchor.
    if ((anchors & (kAnchorNcclError | kAnchorCuda)) && CollectiveGate(msg)) {
      out.Restart(row_, line, kCollectiveError);
      if (torch::ReadCollectiveError(msg, row_)) EmitOnce(row_, collective_seen_, out);
    }
    if (anchors & kAnchorCuda) AddCuda(line, msg, out);
    return false;
  }

  void Finish(const DistEmitter& out) override {
    for (const auto& [key, row] : periodic_) out.Emit(row);
    periodic_.clear();
  }

 private:
  // Distinct keys remembered per file for de-duplication; past this a file
  // is pathological and further distinct errors are not counted.
  static constexpr size_t kMaxDistinct = 4096;
  // (host, rank, group) series of periodic progress kept per file.
  static constexpr size_t kMaxPeriodic = 256;

  // A repeated error of one rank (the error line, then NCCL's result-name
  // line, then the same text in what() and in the traceback) is one event.
  void EmitOnce(const DistEventRow& row, std::unordered_set<std::string>& seen,
                const DistEmitter& out) {
    if (seen.size() >= kMaxDistinct) return;
    std::string key = RankKey(row);
    key.push_back('\x1f');
    key.append(row.detail.value_or(""));
    key.push_back('\x1f');
    key.append(row.seq ? std::to_string(*row.seq) : "-");
    if (seen.insert(std::move(key)).second) out.Emit(row);
  }

  void AddCuda(const LineRecord& line, std::string_view msg, const DistEmitter& out) {
    DistEventRow& row = row_;
    out.Restart(row, line, kCudaError);
    switch (torch::ReadCudaError(msg, row)) {
      case torch::CudaLine::kNone:
        return;
      case torch::CudaLine::kError:
        if (cuda_ranks_.size() < kMaxDistinct) cuda_ranks_.insert(RankKey(row));
        EmitOnce(row, cuda_seen_, out);
        return;
      case torch::CudaLine::kAsyncNotice:
        // The notice follows every CUDA error torch raises; it counts only
        // when the rank's error line itself is missing (cut, or lost).
        if (cuda_ranks_.count(RankKey(row)) == 0) EmitOnce(row, cuda_seen_, out);
        return;
    }
  }

  // "NCCL Work update periodically" repeats every few seconds for the whole
  // run; only the last one of each series says where the group stood, and
  // it is emitted when the file ends.
  void KeepPeriodic(const DistEventRow& row) {
    std::string key = RankKey(row);
    key.push_back('\x1f');
    key.append(row.pg.value_or(""));
    auto it = periodic_.find(key);
    if (it != periodic_.end()) {
      it->second = row;
    } else if (periodic_.size() < kMaxPeriodic) {
      periodic_.emplace(std::move(key), row);
    }
  }

  DistEventRow row_;  // the row readers fill, reused from line to line
  std::unordered_set<std::string> collective_seen_;
  std::unordered_set<std::string> cuda_seen_;
  std::unordered_set<std::string> cuda_ranks_;
  std::map<std::string, DistEventRow> periodic_;
};

}  // namespace

std::unique_ptr<DistFamily> MakeTorchWatchdogFamily() {
  return std::make_unique<TorchWatchdogFamily>();
}

}  // namespace casefile::dist
