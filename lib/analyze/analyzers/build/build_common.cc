#include "analyze/analyzers/build/build_common.h"

#include "analyze/summary_text.h"

namespace casefile::build {

Finding NewFinding(std::string_view code, Severity severity, std::string title) {
  Finding f;
  f.code = std::string(code);
  f.analyzer = kAnalyzerName;
  f.severity = severity;
  f.title = std::move(title);
  return f;
}

void AddCulprit(Finding& f, const std::string& host, std::optional<int64_t> rank) {
  if (host.empty() && !rank) return;
  Culprit c;
  if (!host.empty()) c.host = host;
  c.rank = rank;
  f.culprits.push_back(std::move(c));
}

std::string HostName(const std::string& host) { return host.empty() ? "the host" : host; }

std::string HostList(const std::vector<std::string>& hosts, size_t max_named) {
  std::vector<std::string> names;
  for (const std::string& h : hosts) names.push_back(HostName(h));
  return NameList(names, max_named);
}

const VersionFactRow* First(const HostVersions& host, std::string_view component) {
  const auto it = host.find(std::string(component));
  if (it == host.end() || it->second.empty()) return nullptr;
  return it->second.front();
}

}  // namespace casefile::build
