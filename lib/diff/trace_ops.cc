#include "diff/trace_ops.h"

#include <cstdio>
#include <vector>

#include "analyze/query_values.h"
#include "diff/metric_stats.h"

namespace casefile::diff {
namespace {

std::string Quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    out += c;
    if (c == '\'') out += c;
  }
  return out + "'";
}

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

// The event as a one-line object: trace_events_raw keeps the columns, not
// the text (a TSL trace is one line of hundreds of MB), so the evidence is
// composed like trace_marks' B/E events (docs/TRACE_COMM.md).
std::string ComposeEvent(const std::string& name, const std::string& ts, double dur,
                         const std::string& pid, const std::string& tid) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f", dur);
  return "{\"name\":" + JsonString(name) + ",\"ph\":\"X\",\"ts\":" + ts + ",\"dur\":" + buf +
         ",\"pid\":" + JsonString(pid) + ",\"tid\":" + JsonString(tid) +
         ",\"composed_from\":\"trace_events\"}";
}

// Adds the GROUP BY name totals of the events `where` selects.
void AddOps(const IndexReader& index, int64_t file_id, const std::string& where, TraceSide& out) {
  // One max() and no min(): SQLite takes the bare columns (line, ts, pid,
  // tid) from the row holding the max, i.e. the op's longest event.
  index.Query(
      "SELECT name, sum(dur_us), count(*), max(dur_us), line_no, ts_us, pid, tid "
      "FROM trace_events_raw WHERE file_id = " +
          std::to_string(file_id) + " AND dur_us IS NOT NULL AND " + where + " GROUP BY name",
      [&](const QueryRow& r) {
        const auto& v = r.values;
        OpTotal& op = out.ops[TextOf(v[0])];
        const double total = RealOf(v[1]).value_or(0);
        op.total_us += total;
        out.op_total_us += total;
        op.count += IntOf(v[2]).value_or(0);
        const double max_dur = RealOf(v[3]).value_or(0);
        if (max_dur > op.max_dur_us) {
          op.max_dur_us = max_dur;
          op.file_id = file_id;
          op.line_no = IntOf(v[4]).value_or(0);
          op.evidence_text =
              ComposeEvent(TextOf(v[0]), TextOf(v[5]), max_dur, TextOf(v[6]), TextOf(v[7]));
        }
        return true;
      });
}

}  // namespace

TraceSide LoadTraceSide(const DiffSide& side) {
  TraceSide out;
  if (side.index == nullptr) return out;
  const IndexReader& index = *side.index;
  std::vector<int64_t> trace_files;
  for (const FileRow& f : side.files) {
    if (f.kind == "trace") trace_files.push_back(f.id);
  }
  out.files = static_cast<int64_t>(trace_files.size());
  if (trace_files.empty()) return out;

  const bool has_stats = HasTable(index, "trace_comm_stats");
  const bool has_events = HasTable(index, "trace_events_raw");
  std::vector<double> step_medians;
  for (const int64_t file_id : trace_files) {
    std::map<std::string, std::pair<double, std::string>> stats;
    if (has_stats) {
      index.Query(
          "SELECT key, value, detail FROM trace_comm_stats WHERE file_id = " +
              std::to_string(file_id),
          [&](const QueryRow& r) {
            stats[TextOf(r.values[0])] = {RealOf(r.values[1]).value_or(0), TextOf(r.values[2])};
            return true;
          });
    }
    auto stat = [&](const char* key) -> std::optional<double> {
      auto it = stats.find(key);
      if (it == stats.end()) return std::nullopt;
      return it->second.first;
    };
    if (const auto steps = stat("steps"); steps && *steps > 0) {
      out.steps += *steps;
      ++out.files_with_steps;
    }
    out.span_us += stat("span_us").value_or(0);
    const auto busy = stat("comm_busy_us"), steady = stat("steady_span_us");
    if (busy && steady && *steady > 0) {
      out.comm_busy_us += *busy;
      out.steady_span_us += *steady;
      ++out.comm_files;
    }
    if (const auto m = stat("step_median_us"); m && *m > 0) step_medians.push_back(*m);
    if (!out.steady_mark && HasTable(index, "trace_marks")) {
      index.Query(
          "SELECT line_no, text FROM trace_marks WHERE kind = 'steady_start' AND file_id = " +
              std::to_string(file_id) + " ORDER BY ts_us LIMIT 1",
          [&](const QueryRow& r) {
            out.steady_mark =
                side.MakeEvidence(file_id, IntOf(r.values[0]).value_or(0), TextOf(r.values[1]));
            return false;
          });
    }
    if (!has_events) continue;

    const std::string source = stats.count("source") ? stats["source"].second : "";
    if (source == "xprof") {
      std::vector<std::pair<std::string, std::string>> threads;
      index.Query("SELECT pid, tid FROM trace_threads WHERE name = 'XLA Ops' AND file_id = " +
                      std::to_string(file_id) + " ORDER BY pid, tid",
                  [&](const QueryRow& r) {
                    threads.emplace_back(TextOf(r.values[0]), TextOf(r.values[1]));
                    return true;
                  });
      if (!threads.empty()) {
        // One query per ops thread: each is a range of trace_events_by_thread.
        for (const auto& [pid, tid] : threads) {
          AddOps(index, file_id, "pid = " + Quote(pid) + " AND tid = " + Quote(tid), out);
        }
        continue;
      }
    }
    if (source == "kineto") {
      AddOps(index, file_id, "category IN ('kernel', 'gpu_memcpy', 'gpu_memset')", out);
      continue;
    }
    AddOps(index, file_id,
           "name NOT LIKE 'ProfilerStep#%' AND NOT EXISTS (SELECT 1 FROM trace_threads AS t "
           "WHERE t.file_id = trace_events_raw.file_id AND t.pid = trace_events_raw.pid AND "
           "t.tid = trace_events_raw.tid AND t.name = 'Steps')",
           out);
  }
  out.step_median_us = Median(step_medians);
  return out;
}

}  // namespace casefile::diff
