#include "analyze/analyzers/runtime/line_scan.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "analyze/analyzers/runtime/cuda_text.h"
#include "analyze/analyzers/runtime/kernel_lines.h"
#include "analyze/line_marks.h"

namespace casefile::runtime {
namespace {

// Lines a kill's messages may span: the trigger line comes first, then the
// memory report and one task-table row per process (thousands on a big
// host), then the summary and victim lines.
constexpr int64_t kMaxKillSpan = 20'000;
// Kernel events kept per file: a flood of kills says no more than the first.
constexpr size_t kMaxKillsPerFile = 256;
constexpr size_t kMaxXidsPerFile = 256;
constexpr size_t kMaxAssertsPerFile = 16;
constexpr size_t kMaxPidOwners = 200'000;
// A failure row without a time takes the time of the closest stamped line
// at most this many lines before it, else of one at most this many lines
// after it: interleaved ranks keep the lines of one moment together, and a
// traceback is tens of lines.
constexpr int64_t kMaxEstimateGap = 200;
// Rows waiting for a stamped line after them.
constexpr size_t kMaxPending = 4096;

bool ScannedKind(const std::string& kind) {
  // Version files too: a job log that starts with a version report is one.
  return kind == "log" || kind == "sysinfo" || kind == "other" || kind == "version";
}

// Names of kernel log captures (dmesg, kern.log, syslog, journal,
// /var/log/messages).
bool IsKernelLogName(std::string_view path) {
  const size_t slash = path.rfind('/');
  const std::string_view base = slash == std::string_view::npos ? path : path.substr(slash + 1);
  for (std::string_view w : {"dmesg", "kern", "syslog", "journal", "messages"}) {
    if (base.find(w) != std::string_view::npos) return true;
  }
  return false;
}

}  // namespace

FileScanner::FileScanner(bool is_log, bool want_asserts, RuntimeFacts& facts)
    : FileScanner(is_log, want_asserts, facts.rows, facts) {}

FileScanner::FileScanner(bool is_log, bool want_asserts, std::vector<FailureRow>& rows,
                         RuntimeFacts& out)
    : is_log_(is_log), want_asserts_(want_asserts), rows_(rows), facts_(out) {}

void FileScanner::Add(const LineRecord& rec) {
  if (rec.ts_us != kNoTimestamp) {
    // Rows that had no stamped line close before them take this one's time
    // when it is close after them.
    for (size_t i : pending_) {
      FailureRow& row = rows_[i];
      if (rec.line_no - row.line_no <= kMaxEstimateGap) row.est_ts_us = rec.ts_us;
    }
    pending_.clear();
  }
  while (next_wanted_ < wanted_.size()) {
    const size_t index = wanted_[next_wanted_];
    FailureRow& row = rows_[index];
    if (row.line_no > rec.line_no) break;
    ++next_wanted_;
    if (row.line_no == rec.line_no && rec.ts_us != kNoTimestamp) {
      row.est_ts_us = rec.ts_us;
    } else if (last_ts_ != kNoTimestamp && row.line_no - last_ts_line_ <= kMaxEstimateGap) {
      row.est_ts_us = last_ts_;
    } else {
      if (pending_.size() >= kMaxPending) {
        // Rows further back than the gap can no longer get a time. Dropping
        // them keeps the set the same whether or not the stamped lines
        // between far-apart rows were read (the line pass skips blocks).
        std::erase_if(pending_,
                      [&](size_t i) { return rec.line_no - rows_[i].line_no > kMaxEstimateGap; });
      }
      if (pending_.size() < kMaxPending) pending_.push_back(index);
    }
  }
  if (rec.ts_us != kNoTimestamp) {
    last_ts_ = rec.ts_us;
    last_ts_line_ = rec.line_no;
    if (is_log_) {
      if (facts_.run_first_us == kNoTimestamp || rec.ts_us < facts_.run_first_us)
        facts_.run_first_us = rec.ts_us;
      if (facts_.run_last_us == kNoTimestamp || rec.ts_us > facts_.run_last_us)
        facts_.run_last_us = rec.ts_us;
    }
  }
  if (is_log_ && rec.pid >= 0 && rec.rank >= 0 && facts_.pids.size() < kMaxPidOwners) {
    // One owner per (pid, rank) is enough; the rules drop a pid that two
    // ranks claim.
    if (owners_seen_.insert({rec.pid, rec.rank}).second) {
      facts_.pids.push_back({rec.pid, std::string(rec.host), rec.rank, rec.file_id, rec.line_no});
    }
  }
  const std::string_view msg = rec.message();
  if (MayBeKernelEvent(msg)) AddKernel(rec, msg);
  if (want_asserts_ && asserts_ < kMaxAssertsPerFile && IsDeviceAssertionLine(msg)) {
    AssertLine a;
    a.file_id = rec.file_id;
    a.line_no = rec.line_no;
    a.host = std::string(rec.host);
    if (rec.rank >= 0) a.rank = rec.rank;
    facts_.asserts.push_back(std::move(a));
    ++asserts_;
  }
}

void FileScanner::AddKernel(const LineRecord& rec, std::string_view msg) {
  const std::optional<KernelLine> k = ParseKernelLine(msg);
  if (!k) return;
  const std::string host(rec.host);
  if (k->kind == KernelLineKind::kXid) {
    if (xids_ >= kMaxXidsPerFile) return;
    ++xids_;
    XidLine x;
    x.file_id = rec.file_id;
    x.line_no = rec.line_no;
    x.host = host;
    x.ts_us = rec.ts_us;
    x.xid = k->xid;
    x.pci = k->pci;
    x.pid = k->pid;
    x.comm = k->comm;
    x.text = k->text;
    facts_.xids.push_back(std::move(x));
    return;
  }
  const bool joins = has_kill_ && rec.line_no - kill_start_ <= kMaxKillSpan && kill_.host == host &&
                     !kill_.slurm && (kill_.pid < 0 || k->pid < 0 || kill_.pid == k->pid);
  int64_t* slot = nullptr;
  switch (k->kind) {
    case KernelLineKind::kOomTrigger:
      Flush();
      break;
    case KernelLineKind::kOomSummary:
      if (joins && kill_.summary_line == 0 && kill_.victim_line == 0) slot = &kill_.summary_line;
      if (!slot) Flush();
      break;
    case KernelLineKind::kOomVictim:
      if (joins && kill_.victim_line == 0) slot = &kill_.victim_line;
      if (!slot) Flush();
      break;
    case KernelLineKind::kSlurmOom:
      Flush();
      break;
    case KernelLineKind::kXid:
      return;
  }
  if (!has_kill_) {
    if (kills_ >= kMaxKillsPerFile) return;
    ++kills_;
    has_kill_ = true;
    kill_ = KernelKill();
    kill_.file_id = rec.file_id;
    kill_.host = host;
    kill_start_ = rec.line_no;
  }
  if (kill_.ts_us == kNoTimestamp) kill_.ts_us = rec.ts_us;
  if (k->pid >= 0) kill_.pid = k->pid;
  // The victim's name wins over the allocating task's.
  if (!k->comm.empty() && (kill_.comm.empty() || k->kind != KernelLineKind::kOomTrigger))
    kill_.comm = k->comm;
  kill_.memcg = kill_.memcg || k->memcg;
  if (k->anon_rss_kb >= 0) kill_.anon_rss_kb = k->anon_rss_kb;
  switch (k->kind) {
    case KernelLineKind::kOomTrigger:
      kill_.trigger_line = rec.line_no;
      break;
    case KernelLineKind::kOomSummary:
      kill_.summary_line = rec.line_no;
      break;
    case KernelLineKind::kOomVictim:
      kill_.victim_line = rec.line_no;
      break;
    case KernelLineKind::kSlurmOom:
      kill_.slurm = true;
      kill_.slurm_line = rec.line_no;
      Flush();
      break;
    case KernelLineKind::kXid:
      break;
  }
  // A victim line ends a kill: the next message is another kill.
  if (k->kind == KernelLineKind::kOomVictim) Flush();
}

void FileScanner::Flush() {
  if (!has_kill_) return;
  has_kill_ = false;
  facts_.kills.push_back(std::move(kill_));
  kill_ = KernelKill();
}

void FileScanner::Finish() {
  Flush();
  // Rows past the last line (a cut file) keep what they had.
  while (next_wanted_ < wanted_.size()) {
    FailureRow& row = rows_[wanted_[next_wanted_++]];
    if (last_ts_ != kNoTimestamp && row.line_no - last_ts_line_ <= kMaxEstimateGap)
      row.est_ts_us = last_ts_;
  }
  pending_.clear();
}

namespace {

// One file's scanner and what it found (kills, xids, pids, asserts, span);
// the rows' estimated times go straight into the scan's rows (each file
// owns its own range of them).
class RuntimeFileLines : public FileLineConsumer {
 public:
  RuntimeFileLines(bool is_log, bool want_asserts, bool marked, std::vector<FailureRow>& rows,
                   std::vector<size_t> wanted)
      : is_log_(is_log), marked_(marked) {
    // The lines within kMaxEstimateGap of each unstamped row: the stamped
    // lines that may lend it their time. Rows are in line order.
    for (size_t i : wanted) {
      const int64_t at = rows[i].line_no;
      if (!near_rows_.empty() && at - kMaxEstimateGap <= near_rows_.back().second) {
        near_rows_.back().second = at + kMaxEstimateGap;
      } else {
        near_rows_.emplace_back(at - kMaxEstimateGap, at + kMaxEstimateGap);
      }
    }
    marks_ = kMarkKernel | (want_asserts ? kMarkAssert : 0) | (is_log ? kMarkNewPid : 0);
    scanner_ = std::make_unique<FileScanner>(is_log, want_asserts, rows, found);
    scanner_->SetWanted(std::move(wanted));
  }
  // The span of a log's times is in its blocks' columns.
  void Plan(const std::vector<BlockInfo>& blocks) override {
    if (!is_log_) return;
    for (const BlockInfo& b : blocks) {
      if (b.min_ts == kNoTimestamp) continue;
      if (found.run_first_us == kNoTimestamp || b.min_ts < found.run_first_us)
        found.run_first_us = b.min_ts;
      if (found.run_last_us == kNoTimestamp || b.max_ts > found.run_last_us)
        found.run_last_us = b.max_ts;
    }
  }
  // Blocks with a kernel event, an assertion or a process's first line,
  // and those near an unstamped row. Asked in block order.
  bool Wants(const BlockInfo& block) const override {
    if (!marked_ || (block.scan_marks & marks_) != 0) return true;
    while (next_near_ < near_rows_.size() && near_rows_[next_near_].second < block.first_line)
      ++next_near_;
    return next_near_ < near_rows_.size() && near_rows_[next_near_].first <= block.last_line();
  }
  void Line(const LineRecord& rec) override { scanner_->Add(rec); }
  void Finish() override {
    scanner_->Finish();
    scanner_.reset();
  }
  // Estimated times are already in the rows; nothing else to merge.
  bool Empty() const override {
    return found.kills.empty() && found.xids.empty() && found.pids.empty() &&
           found.asserts.empty() && found.run_first_us == kNoTimestamp &&
           found.run_last_us == kNoTimestamp;
  }

  RuntimeFacts found;

 private:
  const bool is_log_;
  const bool marked_;  // the index's marks can be trusted
  uint32_t marks_ = 0;
  std::vector<std::pair<int64_t, int64_t>> near_rows_;  // line ranges, in order
  mutable size_t next_near_ = 0;
  std::unique_ptr<FileScanner> scanner_;
};

template <class T>
void Append(std::vector<T>& to, std::vector<T>& from, size_t cap) {
  for (T& v : from) {
    if (to.size() >= cap) break;
    to.push_back(std::move(v));
  }
}

}  // namespace

RuntimeLineScan::RuntimeLineScan(RuntimeFacts facts, bool marked)
    : facts_(std::move(facts)), marked_(marked) {}

std::unique_ptr<FileLineConsumer> RuntimeLineScan::ForFile(const FileRow& file) const {
  if (!ScannedKind(file.kind) || file.entry_type != "file" || file.line_count <= 0) return nullptr;
  std::vector<size_t> wanted;
  bool asserts = false;
  // Rows are in file order: this file's are one range.
  const auto first =
      std::lower_bound(facts_.rows.begin(), facts_.rows.end(), file.id,
                       [](const FailureRow& r, int64_t id) { return r.file_id < id; });
  for (size_t i = static_cast<size_t>(first - facts_.rows.begin()); i < facts_.rows.size(); ++i) {
    const FailureRow& r = facts_.rows[i];
    if (r.file_id != file.id) break;
    if (r.ts_us == kNoTimestamp) wanted.push_back(i);
    asserts = asserts || ClassifyCudaText(r.detail) == CudaFault::kDeviceAssert;
  }
  return std::make_unique<RuntimeFileLines>(file.kind == "log", asserts, marked_, facts_.rows,
                                            std::move(wanted));
}

void RuntimeLineScan::MergeInto(const std::vector<FileRow>& files) {
  RuntimeFacts& facts = facts_;
  for (size_t i = 0; i < files.size() && i < consumers.size(); ++i) {
    const FileRow& file = files[i];
    if (!ScannedKind(file.kind) || file.entry_type != "file" || file.line_count <= 0) continue;
    if (file.kind != "log" && IsKernelLogName(file.path) && file.host) {
      if (std::find(facts.kernel_log_hosts.begin(), facts.kernel_log_hosts.end(), *file.host) ==
          facts.kernel_log_hosts.end()) {
        facts.kernel_log_hosts.push_back(*file.host);
      }
    }
    auto* file_lines = static_cast<RuntimeFileLines*>(consumers[i].get());
    if (!file_lines) continue;
    RuntimeFacts& found = file_lines->found;
    Append(facts.kills, found.kills, SIZE_MAX);
    Append(facts.xids, found.xids, SIZE_MAX);
    Append(facts.pids, found.pids, kMaxPidOwners);
    Append(facts.asserts, found.asserts, SIZE_MAX);
    if (found.run_first_us != kNoTimestamp &&
        (facts.run_first_us == kNoTimestamp || found.run_first_us < facts.run_first_us))
      facts.run_first_us = found.run_first_us;
    if (found.run_last_us != kNoTimestamp &&
        (facts.run_last_us == kNoTimestamp || found.run_last_us > facts.run_last_us))
      facts.run_last_us = found.run_last_us;
  }
}

}  // namespace casefile::runtime
