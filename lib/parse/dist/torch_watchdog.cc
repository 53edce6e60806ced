// The PyTorch ProcessGroupNCCL / c10d family: watchdog timeouts, group
// progress, "Some NCCL operations have failed", a stuck watchdog, store
// timeouts, NCCL and CUDA errors (the readers are in torch_watchdog_*.cc).
//
// Reject path. The family reads only lines that hold one of its anchors
// (dist_prefilter.h: "dog", "nqu", "fai", "meo"/"med", NCCL error names,
// "cud", "kncc", and the cut group head kLineOpenHead), and runs each reader
// only behind the anchor its literal contains, so an unrelated line costs
// nothing here and a row is taken only for a reader whose anchor the line
// holds (into a reused row: no allocation).
//
// Hard wraps (torch_watchdog_wrap.h). A line that ends mid-way through a
// watchdog or WorkNCCL message is held, not read; the next line is read
// joined to it, as the held line (its number, time, host and rank), when it
// continues the message: it has no wrapper of its own (or the same rank's),
// no header, and starts no message. Otherwise the held line is read alone,
// as it stands. One continuation at most, kMaxJoinedBytes at most; nothing
// is held on the frequent lines (only lines with a watchdog anchor, a
// WorkNCCL, or a cut group head at their end are looked at).
#include <algorithm>
#include <map>
#include <string>
#include <unordered_set>

#include "parse/dist/dist_family.h"
#include "parse/dist/dist_kinds.h"
#include "parse/dist/torch_watchdog_fields.h"
#include "parse/dist/torch_watchdog_kinds.h"
#include "parse/dist/torch_watchdog_wrap.h"

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
                   kAnchorNcclError | kAnchorCuda | kAnchorWorkNccl | kLineOpenHead) {}

  bool ReadLine(const LineRecord& line, uint32_t anchors, const DistEmitter& out) override {
    if (held_) {
      held_ = false;
      if (Continues(line)) {
        const std::string_view rest = line.message();
        joined_.assign(held_text_);
        joined_.append(rest.substr(0, kMaxJoined - std::min(kMaxJoined, joined_.size())));
        ReadHeld(joined_, out);
        return false;
      }
      ReadHeld(held_text_, out);
    }
    if (Opens(line, anchors)) {
      Hold(line);
      return true;
    }
    ReadMessage(line, anchors, out);
    return false;
  }

  void Finish(const DistEmitter& out) override {
    if (held_) {
      held_ = false;
      ReadHeld(held_text_, out);
    }
    for (const auto& [key, row] : periodic_) out.Emit(row);
    periodic_.clear();
  }

 private:
  static constexpr size_t kMaxJoined = torch::kMaxJoinedBytes;
  // Distinct keys remembered per file for de-duplication; past this a file
  // is pathological and further distinct errors are not counted.
  static constexpr size_t kMaxDistinct = 4096;
  // (host, rank, group) series of periodic progress kept per file.
  static constexpr size_t kMaxPeriodic = 256;

  // Whether `line` ends mid-way through a message whose rest may follow.
  static bool Opens(const LineRecord& line, uint32_t anchors) {
    if ((anchors & (kAnchorWatchdog | kAnchorWorkNccl | kLineOpenHead)) == 0) return false;
    const std::string_view msg = line.message();
    if (msg.size() >= kMaxJoined) return false;
    return (anchors & kLineOpenHead) != 0 || torch::MessageCut(msg);
  }

  void Hold(const LineRecord& line) {
    held_ = true;
    held_line_ = line;
    held_text_.assign(line.message());
    held_host_.assign(line.host);
    held_phrase_ = held_text_.find("Watchdog caught") != std::string::npos;
  }

  // Whether `line` is the rest of the held line's message: no wrapper but
  // the held line's own ones, no header, no message of its own.
  bool Continues(const LineRecord& line) const {
    if (line.ts_us != kNoTimestamp || line.level != Level::kUnknown || line.pid >= 0) return false;
    if (line.rank >= 0 && line.rank != held_line_.rank) return false;
    if (line.local_rank >= 0 && line.local_rank != held_line_.local_rank) return false;
    if (!line.host.empty() && line.host != held_host_) return false;
    const std::string_view msg = line.message();
    return !msg.empty() && !torch::StartsOwnMessage(msg, held_phrase_);
  }

  // Reads `text` as the held line's message.
  void ReadHeld(const std::string& text, const DistEmitter& out) {
    LineRecord rec = held_line_;
    rec.text = text;
    rec.msg_start = 0;
    rec.host = held_host_;
    ReadMessage(rec, LineAnchors(rec), out);
  }

  void ReadMessage(const LineRecord& line, uint32_t anchors, const DistEmitter& out) {
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
  }

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
  // The held line (Hold): its record, with its message and host copied,
  // since the views die with the line.
  bool held_ = false;
  bool held_phrase_ = false;  // it holds "Watchdog caught"
  LineRecord held_line_;
  std::string held_text_;
  std::string held_host_;
  std::string joined_;
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
