#include "analyze/analyzers/hang/hang_analyzer.h"

#include <string>
#include <utility>
#include <vector>

#include "analyze/analyzers/hang/hang_findings.h"
#include "analyze/analyzers/hang/megascale_parser.h"

namespace casefile {
namespace {

// Kinds whose lines are scanned. Megascale messages live in logs; "other"
// catches event-log exports the classifier could not name. The parser's
// literal prefilter keeps the scan cheap on lines that mention neither.
bool ScannedKind(const std::string& kind) { return kind == "log" || kind == "other"; }

class HangAnalyzer : public Analyzer {
 public:
  const AnalyzerInfo& info() const override {
    static const AnalyzerInfo kInfo{
        hang::kAnalyzerName,
        "1",
        "Megascale (MXLA) hangs on TPU slices: the coordinator's digest and the workers' reports",
        {"hang.bad_chip", "hang.network", "hang.different_module", "hang.fingerprint_mismatch",
         "hang.input_stall", "hang.unrecoverable", "hang.unknown", "hang.straggler"},
        {"log"},
    };
    return kInfo;
  }

  void Run(AnalysisContext& ctx) const override {
    std::vector<hang::FileScan> scans;
    for (const FileRow& file : ctx.files()) {
      if (!ScannedKind(file.kind) || file.entry_type != "file") continue;
      hang::FileScan scan;
      scan.file_id = file.id;
      scan.path = file.path;
      scan.host = file.host.value_or("");
      hang::MegascaleParser parser;
      ctx.index().ScanLines(file.id, [&](const LineRecord& rec) {
        hang::ParserLine line;
        line.line_no = rec.line_no;
        line.text = rec.text;
        line.message = rec.message();
        line.host = rec.host;
        line.pid = rec.pid;
        line.ts_us = rec.ts_us;
        line.no_newline = (rec.flags & kLineNoNewline) != 0;
        parser.Feed(line);
        if (rec.ts_us != kNoTimestamp &&
            (scan.last_ts_us == kNoTimestamp || rec.ts_us >= scan.last_ts_us)) {
          scan.last_ts_us = rec.ts_us;
          scan.last_ts_line.line_no = rec.line_no;
        }
        return true;
      });
      parser.Finish();
      if (scan.last_ts_line.line_no > 0) {
        scan.last_ts_line.text =
            ctx.index().LineText(file.id, scan.last_ts_line.line_no).value_or("");
      }
      scan.reports = parser.reports();
      scan.report_count = parser.report_count();
      scan.digests = parser.digests();
      // A file with neither messages nor a host adds nothing to any rule.
      if (scan.reports.empty() && scan.digests.empty() && scan.host.empty()) continue;
      scans.push_back(std::move(scan));
    }
    const hang::EvidenceFn evidence = [&ctx](int64_t file_id, const hang::SourceLine& line) {
      return ctx.MakeEvidence(file_id, line.line_no, line.text);
    };
    for (Finding& f : hang::BuildHangFindings(scans, evidence)) ctx.Emit(std::move(f));
  }
};

}  // namespace

std::unique_ptr<Analyzer> MakeHangAnalyzer() { return std::make_unique<HangAnalyzer>(); }

}  // namespace casefile
