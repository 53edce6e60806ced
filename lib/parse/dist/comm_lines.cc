// The comm family: NCCL_DEBUG output (comm_nccl.h: nccl_ranks rows and
// nccl_warn rows), NCCL's "Last error:" detail that torch prints after its
// NCCL errors, c10d / elastic rendezvous failures (comm_rendezvous.cc) and
// the distributed GPU test (comm_gpu_test.cc).
//
// Cost. NCCL INFO lines are the frequent ones (hundreds per rank): they
// reach the family by the kLineNccl line fact and cost a process lookup
// (the last process is remembered; otherwise one hash of a reused key), a
// switch on the first byte of the message and a few literal compares; a
// channel line adds one search for " via " and sets a bit. Nothing is
// allocated on them. Other lines are read only behind the rendezvous, GPU
// test, NCCL error and fail anchors.
//
// Not here: torch's "NCCL error in: ..." / "... raised the following async
// exception: NCCL error" lines are torch_watchdog's collective_error rows;
// this family reads them only to find the "Last error:" lines that follow.
#include <string>
#include <unordered_map>

#include "parse/dist/comm_forms.h"
#include "parse/dist/comm_nccl.h"
#include "parse/dist/comm_text.h"
#include "parse/dist/dist_family.h"
#include "parse/dist/dist_kinds.h"
#include "parse/line/scan.h"

namespace casefile::dist {
namespace {

constexpr size_t npos = std::string_view::npos;
// Lines after torch's NCCL error in which its "Last error:" line may come
// (the result-name line sits between them; tracebacks of other ranks may
// interleave a line or two).
constexpr int kLastErrorWindow = 4;
// (op, endpoint) keys of rendezvous rows whose repeats a file counts.
constexpr size_t kMaxRepeatKeys = 256;

// torch's report of an NCCL error: "NCCL error in: ...", "NCCL error: ...",
// or the result-name line "ncclSystemError: System call ...".
// Searched by "Error:" (its 'E' is rare), then the identifier before it.
bool IsTorchNcclError(std::string_view msg) {
  if (msg.find("NCCL error") != npos) return true;
  for (size_t at = msg.find("Error:"); at != npos; at = msg.find("Error:", at + 6)) {
    size_t start = at;
    while (start > 0 && scan::IsAlpha(msg[start - 1]) && at - start < 24) --start;
    if (msg.substr(start, 4) == "nccl") return true;
  }
  return false;
}

std::string_view TrimLeft(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  return s;
}

class CommLinesFamily : public DistFamily {
 public:
  // kAnchorTimeout too: "The client socket has timed out" holds no
  // rendezvous gram ("socket" has none: "cke" would match "bucket").
  CommLinesFamily()
      : DistFamily(kLineNccl | kAnchorRendezvous | kAnchorGpuTest | kAnchorNcclError | kAnchorCuda |
                   kAnchorFail | kAnchorTimeout) {}

  bool ReadLine(const LineRecord& line, uint32_t anchors, const DistEmitter& out) override {
    if (anchors & kLineNccl) {
      nccl_.AddLine(line, out);
      return window_ > 0;
    }
    const std::string_view msg = line.message();
    if (window_ > 0 && ReadLastError(line, msg, out)) return window_ > 0;
    if ((anchors & (kAnchorNcclError | kAnchorCuda)) && IsTorchNcclError(msg)) {
      // The class torch names; the result-name line that follows keeps it.
      const char* cls = NcclClassOf(msg);
      if (cls || window_ == 0) torch_class_ = cls;
      window_ = kLastErrorWindow;
      wrapper_rank_ = line.rank;
      wrapper_local_rank_ = line.local_rank;
      expect_detail_ = false;
      return true;
    }
    // Into a reused row: the anchors let through many lines that are none
    // of these messages.
    if ((anchors & kAnchorGpuTest) && MayBeGpuTest(msg)) {
      out.Restart(row_, line, kGpuTest);
      if (ReadGpuTest(msg, row_)) {
        out.Emit(row_);
        return window_ > 0;
      }
    }
    if ((anchors & (kAnchorRendezvous | kAnchorFail | kAnchorTimeout)) && MayBeRendezvous(msg)) {
      out.Restart(row_, line, kRendezvousError);
      if (ReadRendezvous(msg, row_)) EmitRendezvous(row_, out);
    }
    return window_ > 0;
  }

  void Finish(const DistEmitter& out) override {
    nccl_.Finish(out);
    for (auto& [key, repeat] : repeats_) {
      if (repeat.count > kMaxRendezvousRepeats) out.Emit(repeat.last);
    }
    repeats_.clear();
    window_ = 0;
  }

 private:
  struct Repeat {
    int64_t count = 0;
    DistEventRow last;
  };

  // A line inside the window after torch's NCCL error. Returns whether it
  // was the "Last error:" line or its detail.
  bool ReadLastError(const LineRecord& line, std::string_view msg, const DistEmitter& out) {
    --window_;
    // Another rank's line between them belongs to another report.
    const bool same_source = line.rank == wrapper_rank_ && line.local_rank == wrapper_local_rank_;
    std::string_view text = TrimLeft(msg);
    if (expect_detail_) {
      expect_detail_ = false;
      window_ = 0;
      if (!same_source || text.empty() || text.starts_with("Exception raised from") ||
          text.starts_with("Traceback") || text.starts_with("frame #")) {
        return false;
      }
      EmitLastError(line, text, out);
      return true;
    }
    if (!same_source || !text.starts_with("Last error:")) return false;
    text = TrimLeft(text.substr(11));
    if (text.empty()) {
      // The detail is on the next line.
      expect_detail_ = true;
      window_ = 1;
      return true;
    }
    window_ = 0;
    EmitLastError(line, text, out);
    return true;
  }

  void EmitLastError(const LineRecord& line, std::string_view text, const DistEmitter& out) {
    DistEventRow row = out.Start(line, kNcclWarn);
    const char* cls = torch_class_ ? torch_class_ : NcclClassOf(text);
    row.op = cls ? cls : kNcclWarnOther;
    row.detail = std::string(ClipText(text, NcclProcesses::kMaxDetailBytes));
    out.Emit(row);
  }

  void EmitRendezvous(const DistEventRow& row, const DistEmitter& out) {
    std::string key = row.op.value_or("");
    key.push_back('\x1f');
    key.append(row.detail.value_or(""));
    auto it = repeats_.find(key);
    if (it == repeats_.end()) {
      if (repeats_.size() >= kMaxRepeatKeys) {
        out.Emit(row);
        return;
      }
      it = repeats_.emplace(std::move(key), Repeat{}).first;
    }
    Repeat& r = it->second;
    if (++r.count <= kMaxRendezvousRepeats) {
      out.Emit(row);
    } else {
      r.last = row;
    }
  }

  NcclProcesses nccl_;
  DistEventRow row_;
  int window_ = 0;  // lines left in which "Last error:" may come
  bool expect_detail_ = false;
  const char* torch_class_ = nullptr;
  int32_t wrapper_rank_ = -1;
  int32_t wrapper_local_rank_ = -1;
  std::unordered_map<std::string, Repeat> repeats_;
};

}  // namespace

std::unique_ptr<DistFamily> MakeCommLinesFamily() { return std::make_unique<CommLinesFamily>(); }

}  // namespace casefile::dist
