#include "analyze/analyzers/hang/progress_rules.h"

#include <map>
#include <tuple>

namespace casefile::hang {
namespace {

constexpr size_t kMaxHostsNamed = 8;

}  // namespace

std::optional<ProgressLag> FindProgressLag(const DistContext& ctx) {
  // host -> its highest launch id, at its last line with that id.
  std::map<std::string, const ProgressPoint*> last;
  for (const ProgressPoint& p : ctx.in.progress) {
    const ProgressPoint*& have = last[p.host];
    if (!have || p.launch_id > have->launch_id ||
        (p.launch_id == have->launch_id &&
         std::tie(p.file_id, p.line_no) > std::tie(have->file_id, have->line_no))) {
      have = &p;
    }
  }
  if (last.size() < 2) return std::nullopt;
  std::map<int64_t, size_t> counts;
  for (const auto& [host, p] : last) ++counts[p->launch_id];
  const int64_t common = ModeOf(counts, /*prefer_high=*/true);
  ProgressLag out;
  LineCitations ev(ctx.evidence);
  std::vector<std::string> clauses;
  const ProgressPoint* at_common = nullptr;
  for (const auto& [host, p] : last) {
    if (p->launch_id >= common) {
      if (!at_common && p->launch_id == common) at_common = p;
      continue;
    }
    Culprit c;
    c.host = host;
    out.culprits.push_back(std::move(c));
    ev.Add(p->file_id, p->line_no);
    if (clauses.size() < kMaxHostsNamed)
      clauses.push_back("host " + host + " stopped at launch id " + std::to_string(p->launch_id));
  }
  if (out.culprits.empty()) return std::nullopt;
  if (at_common) ev.Add(at_common->file_id, at_common->line_no);
  std::string s = "MXLA program progress: ";
  for (size_t i = 0; i < clauses.size(); ++i) s += (i ? ", " : "") + clauses[i];
  if (out.culprits.size() > clauses.size())
    s += " and " + std::to_string(out.culprits.size() - clauses.size()) + " more hosts behind";
  s += " while " + Count(counts[common], "host", "hosts") + " reached launch id " +
       std::to_string(common) + ".";
  out.summary = s;
  out.evidence = ev.Take();
  return out;
}

}  // namespace casefile::hang
