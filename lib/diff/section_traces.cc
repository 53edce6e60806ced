// The traces section of the diff (docs/DIFF.md): the communication share of
// step time and the top operations by total time, side by side. Totals are
// normalised per step (per second of trace when a side's traces have no
// steps), so traces of different lengths compare.
#include <algorithm>
#include <cmath>
#include <set>

#include "diff/metric_stats.h"
#include "diff/sections.h"
#include "diff/trace_ops.h"

namespace casefile::diff {
namespace {

constexpr size_t kTopOps = 10;
// Communication share moved by this many points (0..1 shares): 55.
constexpr double kCommShareDelta = 0.10;
constexpr double kCommShareScore = 55;
// A top operation's normalised time changed by >= 25% either way: 40.
constexpr double kOpChangeRatio = 1.25;
constexpr double kOpChangeScore = 40;
// Below this share of its side's operation time, an operation's change is
// too small to matter, however large the ratio.
constexpr double kOpMinShare = 0.01;
// Side-by-side rows that did not change enough.
constexpr double kSideBySideScore = 5;

std::string PerUnit(double us, bool per_step) {
  return FormatSeconds(us / 1e6) + (per_step ? "/step" : " per s of trace");
}

void CommShare(const TraceSide& g, const TraceSide& b, std::vector<DiffItem>& out) {
  if (g.comm_files == 0 || b.comm_files == 0) return;
  const double gs = g.comm_busy_us / g.steady_span_us, bs = b.comm_busy_us / b.steady_span_us;
  const double delta = bs - gs;
  DiffItem item;
  item.section = "traces";
  item.kind = "comm_share";
  item.key = "comm_share";
  item.good = FormatPercent(gs);
  item.bad = FormatPercent(bs);
  const bool moved = std::fabs(delta) >= kCommShareDelta;
  item.score = moved ? kCommShareScore : kSideBySideScore;
  char pts[32];
  std::snprintf(pts, sizeof pts, "%+.1f", delta * 100);
  item.summary = std::string("communication takes ") + FormatPercent(gs) +
                 " of the steady step time in good, " + FormatPercent(bs) + " in bad (" + pts +
                 " points)";
  if (g.step_median_us && b.step_median_us) {
    item.summary += "; trace step median " + FormatSeconds(*g.step_median_us / 1e6) + " vs " +
                    FormatSeconds(*b.step_median_us / 1e6);
    item.fields.push_back({"good_step_median_us", *g.step_median_us});
    item.fields.push_back({"bad_step_median_us", *b.step_median_us});
  }
  if (g.steady_mark) item.good_evidence.push_back(*g.steady_mark);
  if (b.steady_mark) item.bad_evidence.push_back(*b.steady_mark);
  item.fields.push_back({"good_comm_share", gs});
  item.fields.push_back({"bad_comm_share", bs});
  item.fields.push_back({"delta_points", delta * 100});
  item.fields.push_back({"good_comm_busy_us", g.comm_busy_us});
  item.fields.push_back({"bad_comm_busy_us", b.comm_busy_us});
  item.fields.push_back({"good_traces", g.comm_files});
  item.fields.push_back({"bad_traces", b.comm_files});
  out.push_back(std::move(item));
}

std::vector<std::string> TopNames(const TraceSide& s) {
  std::vector<std::pair<double, std::string>> v;
  for (const auto& [name, op] : s.ops) v.emplace_back(op.total_us, name);
  std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  std::vector<std::string> out;
  for (size_t i = 0; i < v.size() && i < kTopOps; ++i) out.push_back(v[i].second);
  return out;
}

int64_t RankOf(const std::vector<std::string>& top, const std::string& name) {
  auto it = std::find(top.begin(), top.end(), name);
  return it == top.end() ? 0 : static_cast<int64_t>(it - top.begin()) + 1;
}

void TopOps(const DiffSide& good, const DiffSide& bad, const TraceSide& g, const TraceSide& b,
            std::vector<DiffItem>& out) {
  if (g.ops.empty() || b.ops.empty()) return;
  // Per step when every trace of both sides has steps, else per second.
  const bool per_step =
      g.files_with_steps == g.files && b.files_with_steps == b.files && g.steps > 0 && b.steps > 0;
  const double g_norm = per_step ? g.steps : g.span_us / 1e6;
  const double b_norm = per_step ? b.steps : b.span_us / 1e6;
  if (g_norm <= 0 || b_norm <= 0) return;
  const std::vector<std::string> g_top = TopNames(g), b_top = TopNames(b);
  std::set<std::string> names(g_top.begin(), g_top.end());
  names.insert(b_top.begin(), b_top.end());
  for (const std::string& name : names) {
    const auto gi = g.ops.find(name), bi = b.ops.find(name);
    const OpTotal* go = gi == g.ops.end() ? nullptr : &gi->second;
    const OpTotal* bo = bi == b.ops.end() ? nullptr : &bi->second;
    const double gv = go ? go->total_us / g_norm : 0, bv = bo ? bo->total_us / b_norm : 0;
    const double g_share = go && g.op_total_us > 0 ? go->total_us / g.op_total_us : 0;
    const double b_share = bo && b.op_total_us > 0 ? bo->total_us / b.op_total_us : 0;
    const double ratio = gv > 0 ? bv / gv : INFINITY;
    const bool changed = ratio >= kOpChangeRatio || ratio <= 1 / kOpChangeRatio;
    DiffItem item;
    item.section = "traces";
    item.kind = "top_op";
    item.key = name;
    item.score =
        changed && std::max(g_share, b_share) >= kOpMinShare ? kOpChangeScore : kSideBySideScore;
    if (go) item.good = PerUnit(gv, per_step);
    if (bo) item.bad = PerUnit(bv, per_step);
    std::string ranks;
    const int64_t gr = RankOf(g_top, name), br = RankOf(b_top, name);
    ranks = " (#" + (gr ? std::to_string(gr) : std::string("-")) + " in good, #" +
            (br ? std::to_string(br) : std::string("-")) + " in bad)";
    if (go && bo) {
      item.summary = "operation " + name + ": " + PerUnit(gv, per_step) + " -> " +
                     PerUnit(bv, per_step) + ", " + FormatRatio(ratio) + ranks;
    } else if (bo) {
      item.summary = "operation " + name + " only in bad traces: " + PerUnit(bv, per_step) + ranks;
    } else {
      item.summary = "operation " + name + " only in good traces: " + PerUnit(gv, per_step) + ranks;
    }
    if (go) {
      item.good_evidence.push_back(good.MakeEvidence(go->file_id, go->line_no, go->evidence_text));
      item.fields.push_back({"good_total_us", go->total_us});
      item.fields.push_back({"good_count", go->count});
      item.fields.push_back({"good_share", g_share});
    }
    if (bo) {
      item.bad_evidence.push_back(bad.MakeEvidence(bo->file_id, bo->line_no, bo->evidence_text));
      item.fields.push_back({"bad_total_us", bo->total_us});
      item.fields.push_back({"bad_count", bo->count});
      item.fields.push_back({"bad_share", b_share});
    }
    item.fields.push_back({per_step ? "good_us_per_step" : "good_us_per_trace_s", gv});
    item.fields.push_back({per_step ? "bad_us_per_step" : "bad_us_per_trace_s", bv});
    if (go && bo) item.fields.push_back({"change_ratio", ratio});
    item.fields.push_back({"good_rank", gr});
    item.fields.push_back({"bad_rank", br});
    out.push_back(std::move(item));
  }
}

}  // namespace

std::vector<DiffItem> DiffTraces(const DiffSide& good, const DiffSide& bad) {
  std::vector<DiffItem> out;
  const TraceSide g = LoadTraceSide(good);
  if (g.files == 0) return out;
  const TraceSide b = LoadTraceSide(bad);
  if (b.files == 0) return out;
  CommShare(g, b, out);
  TopOps(good, bad, g, b, out);
  RankItems(out);
  return out;
}

}  // namespace casefile::diff
