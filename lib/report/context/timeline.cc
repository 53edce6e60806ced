// The per-host timeline: when each host's logs start and stop, the error
// events and the lines findings cite on it, and the host that went silent
// first (in a hang, the first host to stop logging is where to look).
#include <algorithm>
#include <set>

#include "report/context/context_parts.h"

namespace casefile::context {
namespace {

// dist_events kinds drawn on the timeline, and how.
const char* MarkKind(const std::string& event_kind) {
  if (event_kind == "crash") return "crash";
  static const std::set<std::string> kErrors = {
      "watchdog_timeout", "nccl_failed",      "collective_error", "cuda_error",  "store_timeout",
      "launcher_failure", "jax_coordination", "rendezvous_error", "build_error", "watchdog_stuck"};
  return kErrors.count(event_kind) ? "error" : nullptr;
}

// Marks kept per host: the finding and hang marks first, then crashes,
// then the earliest errors (the first error on a host is the one that
// matters; the hundredth repeat is not).
int MarkPriority(const TimelineMark& m) {
  if (m.kind == "hang") return 0;
  if (m.kind == "finding") return 1;
  if (m.kind == "crash") return 2;
  return 3;
}

// Times outside 2000..2100 come from a clock that was never set (a host
// logging from 1970 after a cold boot) or a parse gone wrong: drawn, they
// would squash every other host into a point. Such blocks and events are
// left off the timeline (the lines stay in the index).
constexpr int64_t kPlausibleFromUs = 946'684'800LL * 1'000'000;  // 2000-01-01
constexpr int64_t kPlausibleToUs = 4'102'444'800LL * 1'000'000;  // 2100-01-01

// A host fell silent "clearly" first when the next host logged on for at
// least 30 s and 2% of the run longer.
constexpr int64_t kSilentGapUs = 30'000'000;

}  // namespace

ReportTimeline LoadTimeline(const IndexFacts& facts, const std::vector<Finding>& findings) {
  ReportTimeline tl;
  std::map<std::string, HostTimeline> hosts;
  // Blocks carry their smallest and largest timestamps: the span of each
  // host costs one pass over line_blocks' small columns, not over the lines.
  facts.index->Query(
      "SELECT file_id, min(min_ts), max(max_ts), sum(line_count) FROM line_blocks "
      "WHERE min_ts >= " +
          std::to_string(kPlausibleFromUs) + " AND max_ts < " + std::to_string(kPlausibleToUs) +
          " GROUP BY file_id",
      [&](const QueryRow& row) {
        const FileRow* f = facts.File(CellInt(row, 0));
        if (f == nullptr || f->kind != "log") return true;
        const std::string host = facts.HostOf(*f);
        auto [it, added] = hosts.try_emplace(host);
        HostTimeline& h = it->second;
        const int64_t first = CellInt(row, 1), last = CellInt(row, 2);
        if (added) {
          h.host = host;
          h.first_us = first;
          h.last_us = last;
        } else {
          h.first_us = std::min(h.first_us, first);
          h.last_us = std::max(h.last_us, last);
        }
        h.lines += CellInt(row, 3);
        return true;
      });
  if (hosts.empty()) return tl;

  std::map<std::string, std::vector<TimelineMark>> marks;
  facts.index->Query(
      "SELECT file_id, line_no, ts_us, kind, host FROM dist_events WHERE ts_us >= " +
          std::to_string(kPlausibleFromUs) + " AND ts_us < " + std::to_string(kPlausibleToUs) +
          " AND "
          "kind IN ('crash', 'watchdog_timeout', 'nccl_failed', 'collective_error', 'cuda_error', "
          "'store_timeout', 'launcher_failure', 'jax_coordination', 'rendezvous_error', "
          "'build_error', 'watchdog_stuck') ORDER BY ts_us, file_id, line_no LIMIT 100000",
      [&](const QueryRow& row) {
        const FileRow* f = facts.File(CellInt(row, 0));
        if (f == nullptr) return true;
        const std::string kind = CellText(row, 3);
        const char* mark_kind = MarkKind(kind);
        if (mark_kind == nullptr) return true;
        std::string host = facts.HostOf(*f);
        if (!hosts.count(host)) {
          if (auto named = CellOpt(row, 4); named && hosts.count(*named)) host = *named;
        }
        marks[host].push_back({CellInt(row, 2), mark_kind, kind, f->path, CellInt(row, 1)});
        return true;
      });
  // The lines findings cite, at their own time.
  for (const Finding& finding : findings) {
    size_t cited = 0;
    for (const Evidence& e : finding.evidence) {
      if (++cited > 20) break;
      const FileRow* f = facts.EvidenceFile(e);
      if (f == nullptr) continue;
      std::optional<int64_t> ts;
      facts.index->Query("SELECT ts_us FROM lines WHERE file_id = " + std::to_string(f->id) +
                             " AND line_no = " + std::to_string(e.line),
                         [&](const QueryRow& row) {
                           if (CellOpt(row, 0)) ts = CellInt(row, 0);
                           return false;
                         });
      if (!ts || *ts < kPlausibleFromUs || *ts >= kPlausibleToUs) continue;
      const bool hang = finding.code.rfind("hang.", 0) == 0;
      marks[facts.HostOf(*f)].push_back(
          {*ts, hang ? "hang" : "finding", finding.code, f->path, e.line});
    }
  }

  std::vector<HostTimeline> all;
  for (auto& [name, h] : hosts) {
    std::vector<TimelineMark>& m = marks[name];
    h.mark_count = static_cast<int64_t>(m.size());
    std::stable_sort(m.begin(), m.end(), [](const TimelineMark& a, const TimelineMark& b) {
      if (MarkPriority(a) != MarkPriority(b)) return MarkPriority(a) < MarkPriority(b);
      return a.ts_us < b.ts_us;
    });
    if (m.size() > kContextMarksPerHost) m.resize(kContextMarksPerHost);
    std::stable_sort(m.begin(), m.end(), [](const TimelineMark& a, const TimelineMark& b) {
      return a.ts_us < b.ts_us;
    });
    h.marks = std::move(m);
    all.push_back(std::move(h));
  }
  auto by_silence = [](const HostTimeline& a, const HostTimeline& b) {
    if (a.last_us != b.last_us) return a.last_us < b.last_us;
    return a.host < b.host;
  };
  std::sort(all.begin(), all.end(), by_silence);
  tl.host_count = static_cast<int64_t>(all.size());
  if (all.size() >= 2) {
    int64_t start = all[0].first_us, end = all[0].last_us;
    for (const auto& h : all) {
      start = std::min(start, h.first_us);
      end = std::max(end, h.last_us);
    }
    const int64_t gap = all[1].last_us - all[0].last_us;
    if (gap >= kSilentGapUs && gap * 50 >= end - start) tl.first_silent = all[0].host;
  }

  // Hosts shown: the silent end of the list, with every culprit host kept
  // when there is room (a culprit in the middle of 2,000 hosts must still
  // be on the picture).
  if (all.size() > kContextHosts) {
    const std::vector<std::string> culprits = CulpritHosts(findings);
    std::vector<HostTimeline> shown;
    std::set<std::string> taken;
    for (const auto& h : all) {
      if (shown.size() >= kContextHosts / 2) break;
      if (std::find(culprits.begin(), culprits.end(), h.host) != culprits.end()) {
        shown.push_back(h);
        taken.insert(h.host);
      }
    }
    for (const auto& h : all) {
      if (shown.size() >= kContextHosts) break;
      if (!taken.count(h.host)) shown.push_back(h);
    }
    std::sort(shown.begin(), shown.end(), by_silence);
    all = std::move(shown);
  }
  tl.start_us = all.front().first_us;
  tl.end_us = all.front().last_us;
  for (const auto& h : all) {
    tl.start_us = std::min(tl.start_us, h.first_us);
    tl.end_us = std::max(tl.end_us, h.last_us);
  }
  tl.hosts = std::move(all);
  return tl;
}

}  // namespace casefile::context
