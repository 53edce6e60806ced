// The PyTorch ProcessGroupNCCL / c10d family: watchdog timeouts, group
// progress, "Some NCCL operations have failed", a stuck watchdog, store
// timeouts, NCCL and CUDA errors (the readers are in torch_watchdog_*.cc).
//
// Reject path. No single literal spans this family (its messages name NCCL,
// CUDA, the watchdog or a timeout, each in its own words), so a line is
// rejected after a short cascade of memchr-led scans, with no allocation:
// "NCCL", "Watchdog", "watchdog", "UDA", "uda", "Error:" (led by their
// first byte), "imeout" / "imed out" (one scan for their 'm'), "enqueued"
// (led by its 'q'). Leading each scan by a byte that is uncommon in logs
// keeps the cascade near the cost of a few memchr calls (50 to 70 ns for a
// typical 100-byte line on the shared development machine).
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

// Which literals a message holds; each reader runs only behind its own.
enum Hit : uint32_t {
  kHitNccl = 1u << 0,        // WorkNCCL, NCCL error, NCCL work, ProcessGroupNCCL's
  kHitWatchdog = 1u << 1,    // Watchdog caught, detected by watchdog, got stuck
  kHitTimeout = 1u << 2,     // store waits, heartbeat monitor timed out
  kHitCuda = 1u << 3,        // CUDA error, cudaErrorX, Cuda failure, cuda runtime error
  kHitNcclResult = 1u << 4,  // "Error:" of NCCL's result names (ncclSystemError: ...)
  kHitEnqueued = 1u << 5,    // a group's status in other words
};

// "timeout", "Timeout", "timed out", "Timed out": one scan for their 'm'.
bool HasTimeoutWord(std::string_view msg) {
  for (size_t m = msg.find('m', 1); m != npos; m = msg.find('m', m + 1)) {
    if (msg[m - 1] != 'i') continue;
    const std::string_view rest = msg.substr(m + 1);
    if (rest.substr(0, 4) == "eout" || rest.substr(0, 6) == "ed out") return true;
  }
  return false;
}

uint32_t Prefilter(std::string_view msg) {
  uint32_t hits = 0;
  if (msg.find("NCCL") != npos) hits |= kHitNccl;
  if (msg.find("Watchdog") != npos || msg.find("watchdog") != npos) hits |= kHitWatchdog;
  if (HasTimeoutWord(msg)) hits |= kHitTimeout;
  if (msg.find("UDA") != npos || msg.find("uda") != npos) hits |= kHitCuda;
  if (msg.find("Error:") != npos) hits |= kHitNcclResult;
  if (torch::ContainsAt(msg, "enqueued", 2)) hits |= kHitEnqueued;
  return hits;
}

std::string RankKey(const DistEventRow& row) {
  std::string key = row.host.value_or("");
  key.push_back('\x1f');
  key.append(row.rank ? std::to_string(*row.rank) : "-");
  return key;
}

class TorchWatchdogFamily : public DistFamily {
 public:
  void AddLine(const LineRecord& line, const DistEmitter& out) override {
    const std::string_view msg = line.message();
    const uint32_t hits = Prefilter(msg);
    if (hits == 0) return;
    if (hits & kHitWatchdog) {
      DistEventRow row = out.Start(line, kWatchdogTimeout);
      if (torch::ReadWatchdogTimeout(msg, row)) out.Emit(row);
    }
    if (hits & (kHitNccl | kHitWatchdog | kHitEnqueued)) {
      DistEventRow row = out.Start(line, kWorkProgress);
      if (torch::ReadWorkProgress(msg, row)) {
        if (row.detail && *row.detail == torch::kPeriodicDetail) {
          KeepPeriodic(std::move(row));
        } else {
          out.Emit(row);
        }
      }
    }
    if (hits & kHitNccl) {
      DistEventRow row = out.Start(line, kNcclFailed);
      if (torch::ReadNcclFailed(msg, row)) out.Emit(row);
    }
    if (hits & (kHitWatchdog | kHitTimeout)) {
      DistEventRow row = out.Start(line, kWatchdogStuck);
      if (torch::ReadWatchdogStuck(msg, row)) out.Emit(row);
    }
    if (hits & kHitTimeout) {
      DistEventRow row = out.Start(line, kStoreTimeout);
      if (torch::ReadStoreTimeout(msg, row)) out.Emit(row);
    }
    if (hits & (kHitNccl | kHitNcclResult)) {
      DistEventRow row = out.Start(line, kCollectiveError);
      if (torch::ReadCollectiveError(msg, row)) EmitOnce(row, collective_seen_, out);
    }
    if (hits & kHitCuda) AddCuda(line, msg, out);
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
    DistEventRow row = out.Start(line, kCudaError);
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
  void KeepPeriodic(DistEventRow row) {
    std::string key = RankKey(row);
    key.push_back('\x1f');
    key.append(row.pg.value_or(""));
    auto it = periodic_.find(key);
    if (it != periodic_.end()) {
      it->second = std::move(row);
    } else if (periodic_.size() < kMaxPeriodic) {
      periodic_.emplace(std::move(key), std::move(row));
    }
  }

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
