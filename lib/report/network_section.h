// The network section of the report: the communication tables the trace
// reader fills at ingest (trace_comm_stats, net_links, net_sizes,
// net_timeline), summarised per trace so that the seed's network-analysis
// views (latency by source/destination pair, transfer sizes, collectives in
// flight, busy time) are in the report, not only in the index. Bounded: at
// most kNetworkTraces traces and kNetworkLinks links are listed; the index
// holds all (casefile query ... "SELECT * FROM net_links").
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "index/index_reader.h"

namespace casefile {

class JsonWriter;

inline constexpr size_t kNetworkTraces = 64;
inline constexpr size_t kNetworkLinks = 20;

struct NetworkTrace {
  std::string bundle;
  std::string path;
  std::optional<std::string> host;
  // trace_comm_stats of the trace, by key (lib/parse/trace/comm_trace_keys.h).
  std::map<std::string, double> stats;
  std::string source;  // the "source" stat's detail: xprof, kineto, generic
  // From net_timeline: buckets, the most collectives in flight at once, the
  // busiest bucket's share of busy time.
  int64_t timeline_buckets = 0;
  int64_t max_collectives_in_flight = 0;
  double max_busy_share = 0;
};

struct NetworkLink {
  std::string path;  // the trace that saw it
  std::string src;
  std::string dst;
  int64_t transfers = 0;
  double bytes = 0;
  double lat_p50_us = 0;
  double lat_p90_us = 0;
  double lat_max_us = 0;
};

struct NetworkSize {
  double lo_bytes = 0;
  double hi_bytes = 0;
  int64_t transfers = 0;
  double bytes = 0;
};

struct NetworkSection {
  std::vector<NetworkTrace> traces;  // traces with communication statistics, by path
  int64_t trace_count = 0;           // all of them (traces may be capped)
  std::vector<NetworkLink> links;    // slowest median latency first
  int64_t link_count = 0;
  std::vector<NetworkSize> sizes;  // all traces together, by bucket
  bool empty() const { return traces.empty() && links.empty() && sizes.empty(); }
};

NetworkSection LoadNetworkSection(const IndexReader& index);

// {"traces": [...], "trace_count": N, "links": [...], "link_count": N, "sizes": [...]}
void WriteNetworkJson(JsonWriter& w, const NetworkSection& section);
// A few aligned lines per table; "" when the section is empty.
std::string RenderNetworkText(const NetworkSection& section);

}  // namespace casefile
