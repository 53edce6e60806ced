// comm.slow_link (docs/FINDINGS.md): (source, destination) pairs whose
// median transfer latency is an outlier against the other pairs of the job
// (the seed's network analysis: "analyse (source, destination) pairs to find
// possible hardware faults on individual hosts"). Robust statistics: the
// median and the median absolute deviation of the pairs' medians, which a
// few slow pairs do not move.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "analyze/analyzers/comm/comm_trace_checks.h"
#include "analyze/analyzers/comm/comm_trace_common.h"
#include "analyze/analyzers/comm/comm_trace_thresholds.h"
#include "parse/trace/comm_trace_keys.h"

namespace casefile::comm {
namespace {

namespace tc = trace_comm;

// One pair over every trace of the job that saw it.
struct Pair {
  std::string src, dst;
  int64_t transfers = 0;  // in the trace that saw it slowest
  double p50 = 0;
  double max_us = 0;
  double P50() const { return p50; }
};

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// The host an endpoint names: a trace's host exactly, or followed by a port
// or a device ("host:8081", "host/TPU:0"); else the endpoint as written.
std::string HostOf(const std::string& endpoint, const std::set<std::string>& hosts) {
  if (hosts.count(endpoint)) return endpoint;
  for (const std::string& h : hosts) {
    if (endpoint.size() > h.size() && endpoint.starts_with(h) &&
        (endpoint[h.size()] == ':' || endpoint[h.size()] == '/'))
      return h;
  }
  return endpoint;
}

}  // namespace

std::optional<Finding> CheckSlowLink(const TraceFacts& facts) {
  // A pair may be in the traces of both its ends, which time its transfers
  // from their own side: the pair counts as its slower view (a sender that
  // waits on a sick receiver sees what the receiver's trace may not).
  std::map<std::pair<std::string, std::string>, Pair> pairs;
  std::set<std::string> hosts;
  for (const TraceFile& t : facts.traces) {
    if (!t.host.empty()) hosts.insert(t.host);
    for (const NetLinkRow& l : t.links) {
      if (l.transfers < kMinLinkTransfers || l.src == l.dst) continue;
      Pair& p = pairs[{l.src, l.dst}];
      p.src = l.src;
      p.dst = l.dst;
      if (p.transfers == 0 || l.lat_p50_us > p.p50) {
        p.transfers = l.transfers;
        p.p50 = l.lat_p50_us;
      }
      p.max_us = std::max(p.max_us, l.lat_max_us);
    }
  }
  std::vector<const Pair*> counted;
  std::vector<double> p50s;
  for (const auto& [key, p] : pairs) {
    counted.push_back(&p);
    p50s.push_back(p.P50());
  }
  if (counted.size() < kMinLinks) return std::nullopt;
  const double median = Median(p50s);
  if (median <= 0) return std::nullopt;
  std::vector<double> deviations;
  for (double v : p50s) deviations.push_back(std::fabs(v - median));
  const double mad = Median(deviations);
  const double bound = std::max(kSlowLinkRatio * median, median + kSlowLinkMads * mad);
  std::vector<const Pair*> slow;
  for (const Pair* p : counted) {
    if (p->P50() > bound) slow.push_back(p);
  }
  if (slow.empty() ||
      static_cast<double>(slow.size()) > kMaxSlowLinkShare * static_cast<double>(counted.size()))
    return std::nullopt;
  std::stable_sort(slow.begin(), slow.end(),
                   [](const Pair* a, const Pair* b) { return a->P50() > b->P50(); });

  // A host at one end of most slow pairs is the likely culprit.
  std::map<std::string, size_t> ends;
  for (const Pair* p : slow) {
    const std::string a = HostOf(p->src, hosts), b = HostOf(p->dst, hosts);
    ++ends[a];
    if (b != a) ++ends[b];
  }
  std::vector<std::string> likely;
  for (const auto& [host, n] : ends) {
    if (n >= 2 && static_cast<double>(n) > kCulpritHostShare * static_cast<double>(slow.size()))
      likely.push_back(host);
  }

  Finding f = NewTraceFinding("comm.slow_link", Severity::kWarning,
                              "Network links much slower than their peers");
  // The slowest transfer of each slow pair, from every trace that kept one,
  // slowest pairs first.
  std::map<std::string, size_t> rank_of;  // "src -> dst" -> place among the slow pairs
  for (size_t i = 0; i < slow.size(); ++i) rank_of.emplace(slow[i]->src + " -> " + slow[i]->dst, i);
  std::vector<std::pair<size_t, const TraceMark*>> cited;
  for (const TraceFile& t : facts.traces) {
    for (const TraceMark& m : t.Marks(tc::kMarkLinkSlowest)) {
      if (const auto it = rank_of.find(m.detail); it != rank_of.end())
        cited.push_back({it->second, &m});
    }
  }
  std::stable_sort(cited.begin(), cited.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (size_t i = 0; i < cited.size() && i < kMaxLinkMarks; ++i)
    f.evidence.push_back(MarkEvidence(facts, *cited[i].second));
  if (f.evidence.empty()) return std::nullopt;
  if (!likely.empty()) {
    for (const std::string& h : likely) AddHostCulprit(f, h);
  } else {
    for (const auto& [host, n] : ends) AddHostCulprit(f, host);
  }

  std::string summary = "Of " + std::to_string(counted.size()) +
                        " (source, destination) pairs with " + std::to_string(kMinLinkTransfers) +
                        " transfers or more, " + std::to_string(slow.size()) +
                        " are outliers (median transfer latency of all pairs " + Micros(median) +
                        ", MAD " + Micros(mad) + "; slow means over " + Micros(bound) + "): ";
  for (size_t i = 0; i < slow.size() && i < kMaxQuotedLinks; ++i) {
    const Pair& p = *slow[i];
    summary += (i ? "; " : "") + p.src + " -> " + p.dst + " p50 " + Micros(p.P50()) + " (" +
               Number(std::round(p.P50() / median * 10) / 10) + "x), longest " + Micros(p.max_us) +
               ", " + std::to_string(p.transfers) + " transfers";
  }
  if (slow.size() > kMaxQuotedLinks)
    summary += " and " + std::to_string(slow.size() - kMaxQuotedLinks) + " more";
  summary += ".";
  if (!likely.empty()) {
    summary += " " + HostNames(likely) + (likely.size() == 1 ? " is" : " are") + " one end of " +
               std::to_string(ends[likely.front()]) + " of the " + std::to_string(slow.size()) +
               " slow pairs: the likely culprit (its NIC, cable or switch port), not the fabric.";
  } else {
    summary += " No host is common to most slow pairs: suspect the links themselves.";
  }
  summary += " The whole table is net_links (`casefile query`).";
  f.summary = std::move(summary);
  f.recommendation =
      "Check the hardware of the named host(s) and links: NIC error and drop counters "
      "(`ethtool -S`, `ip -s link`), negotiated link speed and MTU, switch port errors; run a "
      "point-to-point bandwidth test between the slow pair(s); drain or replace the host if "
      "it is confirmed and capture a new trace.";
  return f;
}

}  // namespace casefile::comm
