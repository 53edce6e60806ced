// comm.tcp_config (docs/FINDINGS.md): TCP settings of the hosts, as the
// collector gathered them, outside the ranges a high-bandwidth data-centre
// network needs. The seed: high RPC latency in cloud is often the TCP
// configuration inside the container.
#include <map>
#include <set>

#include "analyze/analyzers/comm/comm_tcp_sysctl.h"
#include "analyze/analyzers/comm/comm_trace_checks.h"
#include "analyze/analyzers/comm/comm_trace_common.h"
#include "analyze/analyzers/comm/comm_trace_thresholds.h"

namespace casefile::comm {
namespace {

struct Setting {
  SysctlValue value;
  int64_t file_id = 0;
  int64_t line_no = 0;
  std::string text;
};

struct HostIssues {
  std::vector<std::pair<TcpIssue, const Setting*>> issues;  // in JudgedTcpKeys order
  std::string Signature() const {
    std::string s;
    for (const auto& [issue, setting] : issues) s += issue.key + "=" + issue.found + "\n";
    return s;
  }
};

}  // namespace

std::optional<Finding> CheckTcpConfig(const TraceFacts& facts) {
  // The last value of each key per host (a later file or line overrides).
  // Files without a host are named by their path, which is no culprit.
  std::map<std::string, std::map<std::string, Setting>> by_host;
  std::set<std::string> real_hosts;
  for (const SysctlFile& file : facts.sysctl) {
    const std::string host = file.host.empty() ? file.path : file.host;
    if (!file.host.empty()) real_hosts.insert(host);
    auto& settings = by_host[host];
    for (const SysctlLine& line : file.lines) {
      std::optional<SysctlValue> v = ParseSysctlLine(line.message);
      if (!v) continue;
      Setting s{std::move(*v), file.file_id, line.line_no, line.text};
      settings[s.value.key] = std::move(s);
    }
  }
  std::map<std::string, HostIssues> issues;  // by host
  for (const auto& [host, settings] : by_host) {
    for (const std::string& key : JudgedTcpKeys()) {
      const auto it = settings.find(key);
      if (it == settings.end()) continue;
      if (std::optional<TcpIssue> issue = JudgeTcpSetting(it->second.value))
        issues[host].issues.emplace_back(std::move(*issue), &it->second);
    }
  }
  std::erase_if(issues, [](const auto& kv) { return kv.second.issues.empty(); });
  if (issues.empty()) return std::nullopt;

  Finding f = NewTraceFinding("comm.tcp_config", Severity::kWarning,
                              "TCP settings outside the recommended ranges");
  // Hosts with the same issues are named together.
  std::map<std::string, std::vector<std::string>> hosts_of;
  std::map<std::string, const HostIssues*> sample_of;
  for (const auto& [host, hi] : issues) {
    hosts_of[hi.Signature()].push_back(host);
    sample_of[hi.Signature()] = &hi;
  }
  std::string summary;
  for (const auto& [sig, hosts] : hosts_of) {
    if (!summary.empty()) summary += " ";
    summary += "On " + HostNames(hosts) + ": ";
    // Settings that share a reason (the two buffer triples, the two caps)
    // give it once, after the last of them.
    const auto& list = sample_of[sig]->issues;
    for (size_t i = 0; i < list.size(); ++i) {
      const TcpIssue& issue = list[i].first;
      summary +=
          (i ? "; " : "") + issue.key + " is " + issue.found + ", expected " + issue.expected;
      if (i + 1 == list.size() || list[i + 1].first.why != issue.why)
        summary += " (" + issue.why + ")";
    }
    summary += ".";
  }
  size_t cited = 0;
  for (const auto& [host, hi] : issues) {
    if (real_hosts.count(host)) AddHostCulprit(f, host);
    if (cited++ >= kMaxCitedTraces) continue;
    for (const auto& [issue, setting] : hi.issues)
      f.evidence.push_back(facts.evidence(setting->file_id, setting->line_no, setting->text));
  }
  f.summary = summary + " " + std::to_string(issues.size()) + " of " +
              std::to_string(by_host.size()) +
              " host(s) with a sysctl output are affected. High RPC latency and slow transfers "
              "in cloud are often the TCP configuration inside the container.";
  f.recommendation =
      "Set these values where the job runs (inside the container too: most net.* settings "
      "belong to the network namespace), e.g. `sysctl -w net.ipv4.tcp_rmem=\"4096 131072 "
      "67108864\"` and `net.ipv4.tcp_slow_start_after_idle=0`, persist them in "
      "/etc/sysctl.d/, restart the job and check RPC latency in a new trace; on Cloud TPU, ask "
      "Google Cloud ML Compute Services (CMCS) for the recommended settings.";
  return f;
}

}  // namespace casefile::comm
