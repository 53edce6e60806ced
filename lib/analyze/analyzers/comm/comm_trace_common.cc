#include "analyze/analyzers/comm/comm_trace_common.h"

#include <cmath>
#include <cstdio>
#include <set>

#include "analyze/analyzers/comm/comm_log_rules.h"
#include "analyze/analyzers/comm/comm_trace_thresholds.h"

namespace casefile::comm {

Finding NewTraceFinding(std::string_view code, Severity severity, std::string title) {
  Finding f;
  f.code = std::string(code);
  f.analyzer = kAnalyzerName;
  f.severity = severity;
  f.title = std::move(title);
  return f;
}

void AddHostCulprit(Finding& f, const std::string& host) {
  if (host.empty()) return;
  Culprit c;
  c.host = host;
  f.culprits.push_back(std::move(c));
}

std::string HostNames(const std::vector<std::string>& hosts, size_t max_named) {
  std::string out;
  const size_t named = std::min(hosts.size(), max_named);
  for (size_t i = 0; i < named; ++i) {
    if (i > 0) out += (i + 1 == hosts.size()) ? " and " : ", ";
    out += hosts[i].empty() ? "the host" : hosts[i];
  }
  if (hosts.size() > named) out += " and " + std::to_string(hosts.size() - named) + " more";
  return out;
}

std::string HostCount(const std::vector<std::string>& hosts) {
  // One entry per trace; a host profiled per rank (torch.profiler) has
  // several: count hosts, and say how many traces when they differ.
  const size_t distinct = std::set<std::string>(hosts.begin(), hosts.end()).size();
  std::string out = std::to_string(distinct) + (distinct == 1 ? " host" : " hosts");
  if (distinct != hosts.size()) out += " (" + std::to_string(hosts.size()) + " traces)";
  return out;
}

std::string JoinParts(const std::vector<std::string>& parts) {
  std::string out;
  for (size_t i = 0; i < parts.size() && i < kMaxCitedTraces; ++i)
    out += (i ? "; " : "") + parts[i];
  if (parts.size() > kMaxCitedTraces)
    out += "; and " + std::to_string(parts.size() - kMaxCitedTraces) + " more";
  return out;
}

std::string TraceName(const TraceFile& t) { return t.host.empty() ? t.path : t.host; }

namespace {
std::string Fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}
}  // namespace

std::string Number(double v) {
  if (std::fabs(v - std::round(v)) < 1e-9) return Fixed(v, 0);
  return Fixed(v, std::fabs(v) < 10 ? 2 : 1);
}

std::string Micros(double us) {
  if (us < 1000) return Fixed(us, us < 10 ? 1 : 0) + " us";
  if (us < 1'000'000) return Fixed(us / 1000, us < 100'000 ? 1 : 0) + " ms";
  return Fixed(us / 1'000'000, 2) + " s";
}

std::string Percent(double share) {
  const double p = share * 100;
  return Fixed(p, p < 10 ? 1 : 0) + "%";
}

std::string Bytes(double bytes) {
  static const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB"};
  if (bytes < 1024) return Fixed(bytes, 0) + " bytes";
  double v = bytes;
  size_t u = 0;
  v /= 1024;
  while (v >= 1024 && u + 1 < std::size(kUnits)) {
    v /= 1024;
    ++u;
  }
  const bool whole = std::fabs(v - std::round(v)) < 1e-9;
  return Fixed(v, whole ? 0 : 1) + " " + kUnits[u];
}

Evidence MarkEvidence(const TraceFacts& facts, const TraceMark& m) {
  return facts.evidence(m.file_id, m.line_no, m.text);
}

bool AddMarkEvidence(const TraceFacts& facts, const TraceFile& t, const std::string& kind,
                     size_t max, Finding& f) {
  const std::vector<TraceMark>& marks = t.Marks(kind);
  for (size_t i = 0; i < marks.size() && i < max; ++i)
    f.evidence.push_back(MarkEvidence(facts, marks[i]));
  return !marks.empty();
}

std::string PremapSentence(const TraceFacts& facts) {
  if (!facts.premap) return "";
  return " The job sets --megascale_grpc_premap_memory_bytes=" + Number(facts.premap->bytes) +
         " (" + Bytes(facts.premap->bytes) + ").";
}

std::string PremapAdvice(const TraceFacts& facts) {
  if (!facts.premap) return "";
  return " (now " + Number(facts.premap->bytes) + "; try " + Number(facts.premap->bytes * 2) + ")";
}

std::string EventName(std::string_view json) {
  // The "name" key of the event object itself (depth 1): strings are
  // skipped whole and nested objects (args) are not looked into.
  size_t depth = 0;
  for (size_t i = 0; i < json.size(); ++i) {
    const char c = json[i];
    if (c == '{') {
      ++depth;
      continue;
    }
    if (c == '}') {
      if (depth > 0) --depth;
      continue;
    }
    if (c != '"') continue;
    const size_t open = i;
    for (++i; i < json.size() && json[i] != '"'; ++i) {
      if (json[i] == '\\') ++i;
    }
    if (depth != 1 || json.substr(open, i + 1 - open) != "\"name\"") continue;
    size_t j = i + 1;
    while (j < json.size() && json[j] == ' ') ++j;
    if (j >= json.size() || json[j] != ':') continue;  // a value "name", not the key
    ++j;
    while (j < json.size() && json[j] == ' ') ++j;
    if (j >= json.size() || json[j] != '"') return "";
    std::string out;
    for (++j; j < json.size() && json[j] != '"'; ++j) {
      if (json[j] == '\\' && j + 1 < json.size()) ++j;
      out += json[j];
    }
    return out;
  }
  return "";
}

}  // namespace casefile::comm
