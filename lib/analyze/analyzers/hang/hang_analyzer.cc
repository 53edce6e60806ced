#include "analyze/analyzers/hang/hang_analyzer.h"

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "analyze/analyzers/hang/dist_findings.h"
#include "analyze/analyzers/hang/dist_inputs.h"
#include "analyze/analyzers/hang/hang_findings.h"
#include "analyze/analyzers/hang/megascale_parser.h"
#include "analyze/line_marks.h"

namespace casefile {
namespace {

// Kinds whose lines are scanned. Megascale messages live in logs; "other"
// catches event-log exports the classifier could not name. The parser's
// literal prefilter keeps the scan cheap on lines that mention neither.
// Version files too: a job log that starts with a version report is one.
bool ScannedKind(const std::string& kind) {
  return kind == "log" || kind == "other" || kind == "version";
}

// One file's Megascale messages and its latest timestamp.
class MegascaleFileLines : public FileLineConsumer {
 public:
  MegascaleFileLines(const FileRow& file, bool marked) : marked_(marked) {
    scan.file_id = file.id;
    scan.path = file.path;
    scan.host = file.host.value_or("");
  }
  // With marks, the file's latest time comes from the blocks' columns: it
  // is in the last block whose max_ts is the largest. The line that
  // carries it (the last such) is cited only when some host silently
  // stopped, so Run finds it in that block then (LatestLine).
  void Plan(const std::vector<BlockInfo>& blocks) override {
    if (!marked_) return;
    for (const BlockInfo& b : blocks) {
      if (b.max_ts != kNoTimestamp &&
          (scan.last_ts_us == kNoTimestamp || b.max_ts >= scan.last_ts_us)) {
        scan.last_ts_us = b.max_ts;
        latest_block = b;
      }
    }
  }
  // Marked blocks (a digest header or a worker's report), and every block
  // while a digest is open (its body lines are not marked).
  bool Wants(const BlockInfo& block) const override {
    return !marked_ || (block.scan_marks & kMarkMegascale) != 0 || parser_->in_digest();
  }
  void Line(const LineRecord& rec) override {
    parser_->Feed(hang::ParserLineOf(rec));
    if (!marked_ && rec.ts_us != kNoTimestamp &&
        (scan.last_ts_us == kNoTimestamp || rec.ts_us >= scan.last_ts_us)) {
      scan.last_ts_us = rec.ts_us;
      scan.last_ts_line.line_no = rec.line_no;
    }
  }
  void Finish() override {
    parser_->Finish();
    scan.reports = parser_->reports();
    scan.report_count = parser_->report_count();
    scan.digests = parser_->digests();
    parser_.reset();
  }
  // A file with neither messages nor a host adds nothing to any rule.
  bool Empty() const override {
    return scan.reports.empty() && scan.digests.empty() && scan.host.empty();
  }

  hang::FileScan scan;                    // last_ts_line.text is left to Run (one lookup per file)
  std::optional<BlockInfo> latest_block;  // with marks: the block of last_ts_us

 private:
  const bool marked_;
  std::unique_ptr<hang::MegascaleParser> parser_ = std::make_unique<hang::MegascaleParser>();
};

// The last line of `block` stamped `ts_us` (0 when none is).
int64_t LatestLine(const IndexReader& index, int64_t file_id, const BlockInfo& block,
                   int64_t ts_us) {
  int64_t line_no = 0;
  index.ScanBlocks(
      file_id, std::span(&block, 1), [](const BlockInfo&) { return true; },
      [&](const LineRecord& rec) {
        if (rec.ts_us == ts_us) line_no = rec.line_no;
        return true;
      });
  return line_no;
}

class MegascaleScan : public LineScan {
 public:
  explicit MegascaleScan(bool marked) : marked_(marked) {}
  std::unique_ptr<FileLineConsumer> ForFile(const FileRow& file) const override {
    if (!ScannedKind(file.kind) || file.entry_type != "file") return nullptr;
    return std::make_unique<MegascaleFileLines>(file, marked_);
  }

 private:
  const bool marked_;  // the index's Megascale marks can be trusted
};

class HangAnalyzer : public Analyzer {
 public:
  const AnalyzerInfo& info() const override {
    static const AnalyzerInfo kInfo{
        hang::kAnalyzerName,
        "4",
        "Hangs of distributed runs: Megascale (MXLA) digests and reports, PyTorch collective "
        "timeouts and mismatches (logs and flight-recorder dumps), lost JAX tasks, HLO compiled "
        "differently across hosts, stragglers",
        {"hang.bad_chip", "hang.network", "hang.different_module", "hang.fingerprint_mismatch",
         "hang.input_stall", "hang.unrecoverable", "hang.unknown", "hang.straggler",
         "hang.collective_timeout", "hang.collective_mismatch", "hang.task_lost"},
        {"log", "hlo"},
    };
    return kInfo;
  }
  bool RunsOnAnyThread() const override { return true; }

  // Flight-recorder dumps alone are enough too (whatever kind the bundle
  // classifier gave their files).
  std::optional<std::string> NotApplicable(const AnalysisContext& ctx) const override {
    if (!Analyzer::NotApplicable(ctx)) return std::nullopt;
    bool dumps = false;
    ctx.index().Query("SELECT 1 FROM fr_entries LIMIT 1", [&](const QueryRow&) {
      dumps = true;
      return false;
    });
    if (dumps) return std::nullopt;
    return "no log or hlo files and no flight-recorder dumps in the bundle";
  }

  std::unique_ptr<LineScan> MakeLineScan(const AnalysisContext& ctx) const override {
    return std::make_unique<MegascaleScan>((TrustedMarks(ctx.index(), "") & kMarkMegascale) != 0);
  }

  void Run(AnalysisContext& ctx) const override {
    const auto lines = FilledLineScan<MegascaleScan>(ctx, *this);
    // A file's latest line is cited only for a host that stopped before
    // the workers reported a hang.
    bool any_reports = false;
    for (const auto& c : lines->consumers) {
      if (c) any_reports |= !static_cast<MegascaleFileLines*>(c.get())->scan.reports.empty();
    }
    std::vector<hang::FileScan> scans;
    for (size_t i = 0; i < ctx.files().size(); ++i) {
      auto* file_lines = static_cast<MegascaleFileLines*>(lines->consumers[i].get());
      if (!file_lines) continue;
      hang::FileScan& scan = file_lines->scan;
      if (any_reports && file_lines->latest_block) {
        scan.last_ts_line.line_no =
            LatestLine(ctx.index(), scan.file_id, *file_lines->latest_block, scan.last_ts_us);
      }
      if (scan.last_ts_line.line_no > 0) {
        scan.last_ts_line.text =
            ctx.index().LineText(scan.file_id, scan.last_ts_line.line_no).value_or("");
      }
      scans.push_back(std::move(scan));
    }
    const hang::EvidenceFn evidence = [&ctx](int64_t file_id, const hang::SourceLine& line) {
      return ctx.MakeEvidence(file_id, line.line_no, line.text);
    };
    hang::MxlaOutcome mxla;
    for (const hang::FileScan& scan : scans) mxla.any_digest |= !scan.digests.empty();
    mxla.findings = hang::BuildHangFindings(scans, evidence);

    // The cross-rank half reads the tables ingest filled (one query each)
    // and cites lines by number, so only cited lines are decoded.
    const hang::DistInputs inputs = hang::LoadDistInputs(ctx.index(), ctx.files());
    const hang::DistContext dist{
        inputs, ctx.rank_hosts(), [&ctx](int64_t file_id, int64_t line_no) {
          return ctx.MakeEvidence(file_id, line_no,
                                  ctx.index().LineText(file_id, line_no).value_or(""));
        }};
    for (Finding& f : hang::CombineHangFindings(std::move(mxla), dist)) ctx.Emit(std::move(f));
  }
};

}  // namespace

std::unique_ptr<Analyzer> MakeHangAnalyzer() { return std::make_unique<HangAnalyzer>(); }

}  // namespace casefile
