#include "analyze/analyzers/hang/worker_reports.h"

#include <algorithm>
#include <set>
#include <utility>

namespace casefile::hang {
namespace {

// The value most hosts share (ties: the largest), and the range.
struct Tally {
  std::optional<int64_t> mode, min, max;
};
template <typename Get>
Tally TallyOf(const ReportView& v, Get get) {
  std::map<int64_t, int> counts;
  for (const auto& [key, h] : v.hosts) {
    if (auto x = get(*h.last)) ++counts[*x];
  }
  Tally t;
  int best = 0;
  for (const auto& [value, n] : counts) {
    if (n >= best) {
      best = n;
      t.mode = value;
    }
  }
  if (!counts.empty()) {
    t.min = counts.begin()->first;
    t.max = counts.rbegin()->first;
  }
  return t;
}

std::string TallyText(const Tally& t) {
  std::string s = std::to_string(*t.mode);
  if (*t.min != *t.max) {
    s += " on most workers (" + std::to_string(*t.min) + " to " + std::to_string(*t.max) + ")";
  }
  return s;
}

bool Behind(const HangReport& r, int64_t launch, std::optional<int64_t> completed) {
  if (!r.launch_id) return false;
  if (*r.launch_id != launch) return *r.launch_id < launch;
  return completed && r.completed && *r.completed < *completed;
}

std::string BaseName(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

ReportView CollectReports(const std::vector<FileScan>& files) {
  ReportView v;
  for (const FileScan& f : files) {
    v.total += f.report_count;
    for (const HangReport& r : f.reports) {
      // The file's host (from the bundle layout) is the authority for a
      // per-host log; a host from a line prefix counts only in a log that
      // mixes hosts, where the file has none.
      std::string host = f.host.empty() ? r.host : f.host;
      // A report does not name its task, and the bundle layout's task
      // ("worker_3" from "...-w-3") is a slice-local index, not the job's
      // task id: stragglers carry no task.
      std::string key = !host.empty() ? "h:" + host : "f:" + f.path;
      HostReports& h = v.hosts[key];
      if (!h.first) {
        h.host = host;
        h.file_id = f.file_id;
        h.first = &r;
      }
      h.last = &r;
      ++h.count;
      if (r.ts_us != kNoTimestamp && (v.earliest_ts == kNoTimestamp || r.ts_us < v.earliest_ts)) {
        v.earliest_ts = r.ts_us;
      }
      if (!v.timeout_us && !r.timeout.empty()) v.timeout_us = ParseDurationUs(r.timeout);
    }
  }
  return v;
}

std::string ReportContext(const ReportView& v) {
  if (v.hosts.empty()) return "";
  const Tally graphs = TallyOf(v, [](const HangReport& r) { return r.graphs; });
  const Tally launch = TallyOf(v, [](const HangReport& r) { return r.launch_id; });
  const Tally done = TallyOf(v, [](const HangReport& r) { return r.completed; });
  std::map<std::string, int> timeouts;
  for (const auto& [key, h] : v.hosts) {
    if (!h.last->timeout.empty()) ++timeouts[h.last->timeout];
  }
  std::string s = std::to_string(v.hosts.size()) +
                  (v.hosts.size() == 1 ? " worker reported" : " workers reported") +
                  " \"Megascale hang detected\"";
  if (v.total != static_cast<int64_t>(v.hosts.size()))
    s += " (" + std::to_string(v.total) + " reports)";
  s += ": timed out waiting for ";
  s += graphs.mode ? TallyText(graphs) + " graphs" : "graphs";
  s += " to complete";
  if (launch.mode) s += " at launch_id " + TallyText(launch);
  if (done.mode) s += ", already completed " + TallyText(done);
  if (!timeouts.empty()) {
    auto it = std::max_element(timeouts.begin(), timeouts.end(),
                               [](const auto& a, const auto& b) { return a.second < b.second; });
    s += ", timeout " + it->first;
  }
  return s + ".";
}

std::vector<Straggler> FindBehind(const ReportView& v) {
  // The position most hosts report (ties: the most advanced) is the
  // reference; a host short of it is what the others wait for.
  std::map<std::pair<int64_t, int64_t>, int> counts;
  for (const auto& [key, h] : v.hosts) {
    if (h.last->launch_id) ++counts[{*h.last->launch_id, h.last->completed.value_or(-1)}];
  }
  std::vector<Straggler> out;
  if (counts.size() < 2) return out;
  std::pair<int64_t, int64_t> ref{};
  int best = 0;
  for (const auto& [pos, n] : counts) {
    if (n >= best) {
      best = n;
      ref = pos;
    }
  }
  const std::optional<int64_t> ref_done =
      ref.second >= 0 ? std::optional<int64_t>(ref.second) : std::nullopt;
  for (const auto& [key, h] : v.hosts) {
    if (h.host.empty()) continue;
    if (!Behind(*h.last, ref.first, ref_done)) continue;
    Straggler s;
    s.host = h.host;
    s.file_id = h.file_id;
    s.line = &h.last->line;
    s.why = h.host + " is at launch_id " + std::to_string(*h.last->launch_id);
    if (h.last->completed) s.why += " with " + std::to_string(*h.last->completed) + " completed";
    out.push_back(std::move(s));
  }
  return out;
}

// Hosts whose logs end well before the first hang report and that never
// report: they stopped before the others started waiting. Only hosts with a
// log of the same file name as a reporting host's are considered, so a
// launcher's or a notebook's log that ends early is not taken for a worker.
std::vector<Straggler> FindSilent(const std::vector<FileScan>& files, const ReportView& v) {
  std::vector<Straggler> out;
  if (v.earliest_ts == kNoTimestamp) return out;
  std::set<std::string> reporting_hosts, worker_file_names;
  for (const auto& [key, h] : v.hosts) {
    if (!h.host.empty()) reporting_hosts.insert(h.host);
  }
  for (const FileScan& f : files) {
    if (!f.reports.empty()) worker_file_names.insert(BaseName(f.path));
  }
  struct Last {
    int64_t ts = kNoTimestamp;
    int64_t file_id = 0;
    const SourceLine* line = nullptr;
    bool worker_like = false;
  };
  std::map<std::string, Last> last;
  for (const FileScan& f : files) {
    if (f.host.empty() || reporting_hosts.count(f.host)) continue;
    Last& l = last[f.host];
    if (f.last_ts_us != kNoTimestamp && (l.ts == kNoTimestamp || f.last_ts_us > l.ts)) {
      l.ts = f.last_ts_us;
      l.file_id = f.file_id;
      l.line = &f.last_ts_line;
    }
    l.worker_like = l.worker_like || worker_file_names.count(BaseName(f.path)) > 0;
  }
  const int64_t wait = v.timeout_us.value_or(0) + kSilentMarginUs;
  for (const auto& [host, l] : last) {
    if (!l.worker_like || l.ts == kNoTimestamp || l.ts >= v.earliest_ts - wait) continue;
    Straggler s;
    s.host = host;
    s.file_id = l.file_id;
    s.line = l.line;
    const int64_t gap_s = (v.earliest_ts - l.ts) / 1'000'000;
    s.why = host + " never reports and its log ends " + std::to_string(gap_s) +
            " s before the first hang report";
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace casefile::hang
