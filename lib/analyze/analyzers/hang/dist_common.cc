#include "analyze/analyzers/hang/dist_common.h"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <ctime>

namespace casefile::hang {

void LineCitations::Add(int64_t file_id, int64_t line_no) {
  if (line_no <= 0 || !seen_.insert({file_id, line_no}).second) return;
  items_.push_back(fn_(file_id, line_no));
}

void AddCulprit(std::vector<Culprit>& culprits, const Culprit& c) {
  if (!c.host && !c.task && !c.rank) return;
  for (Culprit& have : culprits) {
    bool same = false;
    if (c.rank && have.rank) {
      same = *c.rank == *have.rank;
    } else if (c.host && have.host) {
      same = *c.host == *have.host && (!c.task || !have.task || *c.task == *have.task);
    } else if (c.task && have.task) {
      same = *c.task == *have.task;
    }
    if (!same) continue;
    if (!have.host && c.host) have.host = c.host;
    if (!have.task && c.task) have.task = c.task;
    if (!have.rank && c.rank) have.rank = c.rank;
    return;
  }
  culprits.push_back(c);
}

Culprit RankCulprit(const RankHostMap& ranks, int64_t rank, const std::string& fallback) {
  Culprit c;
  c.rank = rank;
  if (const std::string* h = ranks.HostOf(rank)) {
    c.host = *h;
  } else if (!fallback.empty()) {
    c.host = fallback;
  }
  return c;
}

std::string RankName(const Culprit& c) {
  std::string s = c.rank ? "rank " + std::to_string(*c.rank) : std::string("a rank");
  if (c.host) s += " (host " + *c.host + ")";
  return s;
}

std::string RanksText(const std::vector<int64_t>& ranks) {
  std::vector<int64_t> unique = ranks;
  std::sort(unique.begin(), unique.end());
  unique.erase(std::unique(unique.begin(), unique.end()), unique.end());
  return (unique.size() == 1 ? "rank " : "ranks ") + RankRanges(unique);
}

std::string Fixed2(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

std::string DurationText(int64_t us) {
  if (us < 0) us = us == INT64_MIN ? INT64_MAX : -us;
  // Under a second, "0 s" would read as "at the same time".
  if (us < 950'000) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f s", static_cast<double>(us) / 1e6);
    return buf;
  }
  const int64_t s = (us + 500'000) / 1'000'000;
  if (s < 60) return std::to_string(s) + " s";
  if (s < 3600) {
    const int64_t rest = s % 60;
    return std::to_string(s / 60) + " min" + (rest ? " " + std::to_string(rest) + " s" : "");
  }
  const int64_t min = (s % 3600) / 60;
  return std::to_string(s / 3600) + " h" + (min ? " " + std::to_string(min) + " min" : "");
}

std::string Shorten(std::string_view s, size_t max) {
  if (s.size() <= max) return std::string(s);
  return std::string(s.substr(0, max)) + "...";
}

std::optional<int64_t> TaskNumber(std::string_view task) {
  size_t end = task.size();
  size_t start = end;
  while (start > 0 && task[start - 1] >= '0' && task[start - 1] <= '9') --start;
  if (start == end || end - start > 12) return std::nullopt;
  int64_t v = 0;
  for (size_t i = start; i < end; ++i) v = v * 10 + (task[i] - '0');
  return v;
}

}  // namespace casefile::hang
