// Fuzz target: the Megascale (MXLA) hang parser of the hang analyzer
// (lib/analyze/analyzers/hang/megascale_parser.h, digest_line.h) on the
// lines of one log file. The lines come through the line layer as ingest
// stores them (ingest_lines.h) and are fed as the hang analyzer feeds the
// stored lines (ParserLine from the LineRecord), then Finish(). Each line's
// message is also classified under every digest section. Checked:
//  - every kept line (reports, digest headers, key lines, rows, halted
//    workers) is cited with its own line number and its exact text: the
//    evidence contract;
//  - the per-file and per-digest caps of megascale_parser.h hold, and
//    worker names and lists respect megascale_text.h's bounds;
//  - ClassifyDigestLine's views point into the message it was given.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "analyze/analyzers/hang/digest_line.h"
#include "analyze/analyzers/hang/megascale_parser.h"
#include "fuzz_abort.h"
#include "ingest_lines.h"

namespace {

namespace h = casefile::hang;

struct Lines {
  std::vector<std::string> text;  // by line_no - 1
  void Check(const h::SourceLine& l) const {
    if (l.line_no < 1 || l.line_no > static_cast<int64_t>(text.size())) FUZZ_ABORT();
    if (l.text != text[l.line_no - 1]) FUZZ_ABORT();
  }
};

void CheckWorker(const h::WorkerRef& w) {
  if (w.host.size() > h::kMaxWorkerTokenBytes || w.task.size() > h::kMaxWorkerTokenBytes)
    FUZZ_ABORT();
}

void CheckWorkers(const std::vector<h::WorkerRef>& ws) {
  if (ws.size() > h::kMaxWorkersPerList) FUZZ_ABORT();
  for (const auto& w : ws) CheckWorker(w);
}

bool Within(std::string_view inner, std::string_view outer) {
  if (inner.empty()) return true;
  return inner.data() >= outer.data() && inner.data() + inner.size() <= outer.data() + outer.size();
}

void CheckDigest(const h::HangDigest& d, const Lines& lines) {
  lines.Check(d.header);
  if (d.last_line < d.header.line_no || d.last_line > static_cast<int64_t>(lines.text.size()))
    FUZZ_ABORT();
  if (d.key_lines.size() > h::kMaxKeyLinesPerDigest) FUZZ_ABORT();
  for (const auto& l : d.key_lines) lines.Check(l);
  CheckWorkers(d.named_hosts);
  CheckWorkers(d.inspect_workers);
  for (const auto& list : d.culprit_lists) CheckWorkers(list);
  for (const auto* values : {&d.tpu_stats, &d.program_fingerprints}) {
    for (const h::HostValue& v : *values) {
      CheckWorker(v.worker);
      lines.Check(v.line);
    }
  }
  if (d.modules.size() > h::kMaxModuleGroups) FUZZ_ABORT();
  for (const h::ModuleGroup& g : d.modules) {
    if (g.rows.size() > h::kMaxRowsPerGroup) FUZZ_ABORT();
    for (const auto& l : g.rows) lines.Check(l);
    CheckWorkers(g.workers);
  }
  for (const h::HaltedWorker& w : d.halted) {
    CheckWorker(w.worker);
    lines.Check(w.line);
    if (w.error.size() > h::kMaxErrorBytes) FUZZ_ABORT();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  Lines lines;
  h::MegascaleParser parser;
  // The stored lines, as ScanLines gives them to the hang analyzer: texts
  // kept, the host as an offset into its text (the texts move while the
  // vector grows).
  struct Stored {
    casefile::LineRecord rec;
    size_t host_at = 0;
  };
  std::vector<Stored> stored;
  casefile::fuzz::FeedLikeIngest(
      input, 11, [&](const casefile::LineRecord& rec, const casefile::LinePrefix&) {
        lines.text.emplace_back(rec.text);
        Stored s{rec,
                 rec.host.empty() ? 0 : static_cast<size_t>(rec.host.data() - rec.text.data())};
        stored.push_back(s);
      });
  std::vector<casefile::LineRecord> records;
  for (size_t i = 0; i < stored.size(); ++i) {
    casefile::LineRecord rec = stored[i].rec;
    rec.text = lines.text[i];
    rec.host =
        rec.host.empty() ? std::string_view() : rec.text.substr(stored[i].host_at, rec.host.size());
    records.push_back(rec);
  }
  for (const casefile::LineRecord& rec : records) {
    const h::ParserLine line = h::ParserLineOf(rec);
    parser.Feed(line);
    for (h::DigestSection s :
         {h::DigestSection::kNone, h::DigestSection::kStats, h::DigestSection::kStates,
          h::DigestSection::kFingerprints, h::DigestSection::kHalted, h::DigestSection::kInspect}) {
      const h::DigestLine d = h::ClassifyDigestLine(line.message, s);
      if (!Within(d.key, line.message) || !Within(d.value, line.message) ||
          !Within(d.hlo, line.message))
        FUZZ_ABORT();
    }
  }
  parser.Finish();

  if (parser.reports().size() > h::kMaxReportsPerFile) FUZZ_ABORT();
  if (parser.report_count() < static_cast<int64_t>(parser.reports().size())) FUZZ_ABORT();
  for (const h::HangReport& r : parser.reports()) lines.Check(r.line);
  if (parser.digests().size() > h::kMaxDigestsPerFile) FUZZ_ABORT();
  for (const h::HangDigest& d : parser.digests()) CheckDigest(d, lines);
  return 0;
}
