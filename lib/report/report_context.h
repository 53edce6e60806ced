// What the HTML and markdown reports show beside the findings: the bundle
// inventory, versions across hosts, a per-host timeline, loss and loss-scale
// curves, step-time distributions, the latency matrix, the lines around each
// piece of evidence, and the environment maintainers ask for in bug reports.
// Loaded from the index once, when the report is built (the report outlives
// its session), with every list capped so that the cost and the report's size
// stay bounded whatever the bundle: a 2,000-host run gives the same size of
// context as a 300-host one. Each cap has a total beside it so a renderer
// can say "N more" and name the command that shows the rest.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analyze/finding.h"
#include "index/index_reader.h"

namespace casefile {

// Caps. A renderer may show less; it never gets more.
inline constexpr size_t kContextHosts = 64;             // timeline and step-time hosts
inline constexpr size_t kContextMarksPerHost = 24;      // timeline marks per host
inline constexpr size_t kContextVersionRows = 80;       // version components
inline constexpr size_t kContextVersionValues = 6;      // distinct values per component
inline constexpr size_t kContextVersionHosts = 8;       // hosts named per value
inline constexpr size_t kContextSeries = 16;            // curves per metric name
inline constexpr size_t kContextPointsPerSeries = 400;  // points per curve (downsampled)
inline constexpr size_t kContextEndpoints = 24;         // latency matrix side
inline constexpr size_t kContextEvidence = 5;           // evidence with context, per finding
inline constexpr int kContextLinesAround = 2;           // lines before and after evidence
inline constexpr size_t kContextConfigKeys = 80;        // DeepSpeed config keys
inline constexpr size_t kContextInventoryHosts = 200;   // host names listed

// Files of one kind in one bundle.
struct InventoryKind {
  std::string kind;  // files.kind
  int64_t files = 0;
  int64_t bytes = 0;
  int64_t lines = 0;
};

struct InventoryBundle {
  std::string name;
  std::string format;
  std::string status;  // complete, partial, unreadable
  int64_t bytes = 0;
  std::vector<InventoryKind> kinds;  // by kind name
};

struct ReportInventory {
  std::vector<InventoryBundle> bundles;  // in bundle id order
  std::vector<std::string> hosts;        // sorted; at most kContextInventoryHosts
  int64_t host_count = 0;                // all distinct files.host
};

// One component's versions across hosts: each distinct value with the hosts
// that report it (majority first). `key` marks the components bug reports ask
// for (torch, CUDA, NCCL, driver, jax/jaxlib/libtpu, deepspeed, transformers,
// python); key rows come first.
struct VersionSpreadValue {
  std::string value;
  std::vector<std::string> hosts;  // sorted; at most kContextVersionHosts
  int64_t host_count = 0;
  std::string path;  // where it was first read (bundle path) and the line
  int64_t line = 0;
};
struct VersionSpread {
  std::string component;
  bool key = false;
  std::vector<VersionSpreadValue> values;  // at most kContextVersionValues
  int64_t value_count = 0;
  bool differs() const { return value_count > 1; }
};

// A point on a host's timeline: an error event, a crash, the hang point, the
// line a finding cites.
struct TimelineMark {
  int64_t ts_us = 0;
  std::string kind;   // "error", "crash", "hang", "finding"
  std::string label;  // short: the finding code or the event kind
  std::string path;   // bundle path and line of the mark
  int64_t line = 0;
};
struct HostTimeline {
  std::string host;
  int64_t first_us = 0;  // first and last timestamped line of the host
  int64_t last_us = 0;
  int64_t lines = 0;
  std::vector<TimelineMark> marks;  // by time; at most kContextMarksPerHost
  int64_t mark_count = 0;
};
struct ReportTimeline {
  // Hosts with timestamped lines. The host that went silent first comes
  // first (smallest last_us), then by last_us, then name; at most
  // kContextHosts, always including every host a finding names when there
  // is room.
  std::vector<HostTimeline> hosts;
  int64_t host_count = 0;
  std::optional<std::string> first_silent;  // set when it fell silent clearly earlier than the rest
  int64_t start_us = 0;                     // over all hosts shown
  int64_t end_us = 0;
};

// A training curve of one host/rank, downsampled to kContextPointsPerSeries
// (the first non-finite point and the extremes are always kept).
struct CurvePoint {
  double step = 0;   // the step, else the point's position in its series
  double value = 0;  // NaN for nan, +-inf as such
  bool nonfinite = false;
};
struct MetricSeries {
  std::string name;  // loss or loss_scale
  std::optional<std::string> host;
  std::optional<int64_t> rank;
  bool by_step = true;  // false when the log names no step (x is the position)
  std::vector<CurvePoint> points;
  // The marked step: the first non-finite value (loss), or where the loss
  // scale reached its minimum after falling at least 256-fold (loss_scale).
  std::optional<double> mark_step;
  std::string mark_label;  // "nan", "inf", "collapse"
};

// Step-time distribution of one host, from dist_events kind step_time.
struct StepTimeStats {
  std::string host;
  int64_t count = 0;
  double min_s = 0, p10_s = 0, p50_s = 0, p90_s = 0, max_s = 0;
  bool straggler = false;  // median at least 1.2x the median of host medians, or a finding names it
};

// Median latency between endpoints of the traces' net_links.
struct LatencyMatrix {
  std::vector<std::string> endpoints;  // at most kContextEndpoints (most traffic first)
  std::vector<double> p50_us;          // endpoints^2, row = source; NaN where no link
  int64_t endpoint_count = 0;
};

// The lines around one piece of evidence (same file).
struct ContextLine {
  int64_t line = 0;
  std::string text;
};
struct EvidenceContext {
  std::vector<ContextLine> before;  // up to kContextLinesAround, in order
  std::vector<ContextLine> after;
};

struct ConfigEntry {
  std::string key;
  std::string value;
};

// What maintainers ask for in a bug report.
struct ReportEnvironment {
  std::optional<std::string> command_line;  // job/job_cmdline.txt or a cmdline file, first host
  std::string command_line_path;
  std::vector<ConfigEntry> deepspeed_config;  // flattened; at most kContextConfigKeys
  std::string deepspeed_config_path;
  int64_t deepspeed_config_keys = 0;  // all keys of that file
};

struct ReportContext {
  ReportInventory inventory;
  std::vector<VersionSpread> versions;  // key rows first, then by component
  int64_t version_component_count = 0;
  ReportTimeline timeline;
  std::vector<MetricSeries> loss, loss_scale;  // at most kContextSeries each
  int64_t loss_series_count = 0, loss_scale_series_count = 0;
  std::vector<StepTimeStats> step_times;  // stragglers first, then by host; at most kContextHosts
  int64_t step_time_host_count = 0;
  LatencyMatrix latency;
  // Parallel to the report's findings: for finding i, the context of its
  // first min(kContextEvidence, evidence) pieces of evidence.
  std::vector<std::vector<EvidenceContext>> evidence;
  ReportEnvironment environment;
  // Parts that could not be loaded (a damaged block...): the report lists
  // them with its own warnings.
  std::vector<std::string> warnings;
};

// Loads the context from `index` for `findings` (after analysis). Never
// throws for what the index lacks: a missing table or an empty one gives an
// empty part.
ReportContext LoadReportContext(const IndexReader& index, const std::vector<Finding>& findings);

}  // namespace casefile
