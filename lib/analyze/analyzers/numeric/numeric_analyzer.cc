#include "analyze/analyzers/numeric/numeric_analyzer.h"

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "analyze/analyzers/numeric/numeric_findings.h"
#include "analyze/analyzers/numeric/numeric_inputs.h"
#include "analyze/analyzers/numeric/numeric_rules.h"

namespace casefile {
namespace {

using numeric::CurveFacts;
using numeric::FrameTable;
using numeric::LineRef;
using numeric::MetricGroup;
using numeric::NumericFacts;
using numeric::TableFacts;
using numeric::Who;

// Reports and traces: culprit frames, the growth seen in the traces of the
// same log and rank, and that rank's detect_overflow lines before each.
void AddFrameFacts(const numeric::FrameInputs& in, NumericFacts& facts) {
  std::map<std::pair<int64_t, Who>, std::vector<const FrameTable*>> traces;
  for (const FrameTable& t : in.tables) {
    if (t.kind == "trace") traces[{t.file_id, t.who}].push_back(&t);
  }
  for (const FrameTable& t : in.tables) {
    TableFacts tf;
    tf.overflow = numeric::AnalyzeTable(t);
    if (t.kind == "trace" && !tf.overflow.found) continue;
    auto it = traces.find({t.file_id, t.who});
    if (it != traces.end()) tf.growth = numeric::FastestGrowth(it->second);
    for (const numeric::DetectLine& d : in.detects) {
      if (d.line.file_id == t.file_id && d.who == t.who && d.line.line_no < t.report_line_no &&
          t.report_line_no - d.line.line_no <= 50) {
        tf.detects.push_back(d);
      }
    }
    (t.kind == "overflow" ? facts.reports : facts.trace_overflows).push_back(std::move(tf));
  }
}

void AddGroupFacts(const MetricGroup& g, double min_scale, NumericFacts& facts) {
  for (const auto& [name, points] : g.series) {
    if (!numeric::IsCurveName(name)) continue;
    CurveFacts c = numeric::AnalyzeCurve(g, name, points);
    if (c.first_bad || c.first_spike || c.first_zero) facts.curves.push_back(std::move(c));
  }
  numeric::ScaleFacts s = numeric::AnalyzeScale(g, min_scale);
  if (s.collapsed) facts.scales.push_back(std::move(s));
}

class NumericAnalyzer : public Analyzer {
 public:
  const AnalyzerInfo& info() const override {
    static const AnalyzerInfo kInfo{
        numeric::kAnalyzerName,
        "3",
        "Numeric failures of mixed-precision training: overflowing modules, NaN loss, loss "
        "spikes, fp16 loss-scale collapse, bf16 models trained in fp16",
        {"numeric.overflow", "numeric.nan_loss", "numeric.loss_spike",
         "numeric.loss_scale_collapse", "numeric.bf16_in_fp16"},
        {"log", "config"},
    };
    return kInfo;
  }
  bool RunsOnAnyThread() const override { return true; }

  std::optional<std::string> NotApplicable(const AnalysisContext& ctx) const override {
    if (auto why = Analyzer::NotApplicable(ctx)) return why;
    if (!numeric::HasNumericTables(ctx.index())) {
      return "the index was built without the numeric tables; rebuild it (--reindex)";
    }
    return std::nullopt;
  }

  void Run(AnalysisContext& ctx) const override {
    const IndexReader& index = ctx.index();
    NumericFacts facts;
    facts.precision = numeric::LoadPrecision(index);
    facts.min_loss_scale = facts.precision.min_loss_scale.value_or(1.0);
    // The facts point into the tables: they live as long as `facts`.
    const numeric::FrameInputs frames = numeric::LoadFrames(index, ctx.files());
    AddFrameFacts(frames, facts);

    // Hosts whose logs carry a loss curve; trainer_state.json histories are
    // read only for the others (the same values, logged twice otherwise).
    std::set<std::string> hosts_with_loss;
    numeric::ScanMetricGroups(index, ctx.files(), [&](const MetricGroup& g) {
      if (g.Find("loss")) hosts_with_loss.insert(g.who.host);
      AddGroupFacts(g, facts.min_loss_scale, facts);
    });
    for (const MetricGroup& g : numeric::LoadTrainerStates(index, ctx.files())) {
      if (hosts_with_loss.count(g.who.host)) continue;
      AddGroupFacts(g, facts.min_loss_scale, facts);
    }

    numeric::LoadNanChecks(index, ctx.files(), [&](LineRef line, Who who, std::string text) {
      facts.nan_checks.push_back({line, std::move(who), std::move(text)});
    });

    const numeric::EvidenceFn evidence = [&ctx](const LineRef& l) {
      return ctx.MakeEvidence(l.file_id, l.line_no,
                              ctx.index().LineText(l.file_id, l.line_no).value_or(""));
    };
    const numeric::PathFn path = [&ctx](int64_t file_id) {
      const FileRow* f = ctx.File(file_id);
      return f ? f->path : std::string("?");
    };
    for (Finding& f : numeric::BuildNumericFindings(facts, evidence, path)) {
      ctx.Emit(std::move(f));
    }
  }
};

}  // namespace

std::unique_ptr<Analyzer> MakeNumericAnalyzer() { return std::make_unique<NumericAnalyzer>(); }

}  // namespace casefile
