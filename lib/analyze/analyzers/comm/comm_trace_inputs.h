// What the trace half of the comm analyzer reads, as plain structs: per
// trace file its trace_comm_stats, net_links, net_timeline rows and its
// trace_marks (lib/parse/trace/comm_trace_keys.h), the lines of collected
// sysctl outputs, and the --megascale_grpc_premap_memory_bytes setting when
// a config names it. LoadTraceFacts fills them from an index; the rules are
// functions of the facts.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analyze/finding.h"
#include "index/index_reader.h"

namespace casefile::comm {

struct TraceStat {
  double value = 0;
  std::string detail;
};

// A trace event kept at ingest as evidence (trace_marks).
struct TraceMark {
  int64_t file_id = 0;
  std::string kind;
  int64_t line_no = 0;
  double ts_us = 0;
  std::optional<double> dur_us;
  std::string pid;
  std::string text;    // the event object as written
  std::string detail;  // per kind: the link, the slack...
};

// One profiler trace with communication statistics.
struct TraceFile {
  int64_t file_id = 0;
  std::string path;
  std::string host;  // the file's; "" when unknown
  std::map<std::string, TraceStat> stats;
  std::vector<NetLinkRow> links;
  std::vector<NetTimelineRow> timeline;                 // by t0
  std::map<std::string, std::vector<TraceMark>> marks;  // by kind, in (ts, line) order

  bool Has(const std::string& key) const { return stats.count(key) > 0; }
  double Value(const std::string& key, double fallback = 0) const;
  std::string Detail(const std::string& key) const;
  const std::vector<TraceMark>& Marks(const std::string& kind) const;
};

// A line of a collected sysctl output.
struct SysctlLine {
  int64_t line_no = 0;
  std::string text;     // the line as stored (evidence)
  std::string message;  // after wrappers (what is parsed)
};
struct SysctlFile {
  int64_t file_id = 0;
  std::string path;
  std::string host;  // the file's; "" when unknown
  std::vector<SysctlLine> lines;
};

// A config value that sets --megascale_grpc_premap_memory_bytes.
struct PremapSetting {
  int64_t file_id = 0;
  int64_t line_no = 0;
  double bytes = 0;
};

struct TraceFacts {
  std::vector<TraceFile> traces;   // by file id
  std::vector<SysctlFile> sysctl;  // by file id
  std::optional<PremapSetting> premap;
  // Evidence for a line of a file with its text.
  std::function<Evidence(int64_t file_id, int64_t line_no, const std::string& text)> evidence;
};

// Loads every trace with trace_comm_stats rows, the sysctl outputs (sysinfo
// files whose name holds "sysctl") and the premap setting.
void LoadTraceFacts(const IndexReader& index, const std::vector<FileRow>& files, TraceFacts& facts);

}  // namespace casefile::comm
