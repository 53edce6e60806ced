#include "analyze/analyzers/comm/comm_trace_inputs.h"

#include <algorithm>
#include <charconv>
#include <unordered_map>

#include "analyze/analyzers/comm/comm_trace_thresholds.h"
#include "analyze/query_values.h"
#include "analyze/summary_text.h"

namespace casefile::comm {

double TraceFile::Value(const std::string& key, double fallback) const {
  const auto it = stats.find(key);
  return it == stats.end() ? fallback : it->second.value;
}

std::string TraceFile::Detail(const std::string& key) const {
  const auto it = stats.find(key);
  return it == stats.end() ? std::string() : it->second.detail;
}

const std::vector<TraceMark>& TraceFile::Marks(const std::string& kind) const {
  static const std::vector<TraceMark> kNone;
  const auto it = marks.find(kind);
  return it == marks.end() ? kNone : it->second;
}

namespace {

// The byte count after "premap_memory_bytes=" (a flag inside a value), or
// the whole value when the key itself is the setting.
std::optional<double> PremapBytes(const std::string& key, const std::string& value) {
  constexpr std::string_view kFlag = "premap_memory_bytes";
  std::string_view digits;
  if (const size_t at = value.find(std::string(kFlag) + "="); at != std::string::npos) {
    digits = std::string_view(value).substr(at + kFlag.size() + 1);
  } else if (key.find(kFlag) != std::string::npos) {
    digits = value;
  } else {
    return std::nullopt;
  }
  int64_t n = 0;
  const auto res = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (res.ec != std::errc() || n <= 0) return std::nullopt;
  return static_cast<double>(n);
}

bool IsSysctlFile(const FileRow& f) {
  if (f.kind != "sysinfo") return false;
  const size_t slash = f.path.rfind('/');
  const std::string_view base = slash == std::string::npos
                                    ? std::string_view(f.path)
                                    : std::string_view(f.path).substr(slash + 1);
  return ContainsNoCase(base, "sysctl");
}

}  // namespace

void LoadTraceFacts(const IndexReader& index, const std::vector<FileRow>& files,
                    TraceFacts& facts) {
  std::unordered_map<int64_t, const FileRow*> by_id;
  for (const FileRow& f : files) by_id[f.id] = &f;
  std::map<int64_t, TraceFile> traces;
  auto trace_of = [&](int64_t file_id) -> TraceFile& {
    TraceFile& t = traces[file_id];
    if (t.file_id == 0) {
      t.file_id = file_id;
      if (const auto it = by_id.find(file_id); it != by_id.end()) {
        t.path = it->second->path;
        t.host = it->second->host.value_or("");
      }
    }
    return t;
  };
  size_t rows = 0;
  index.Query("SELECT file_id, key, value, detail FROM trace_comm_stats ORDER BY file_id, key",
              [&](const QueryRow& r) {
                if (++rows > kMaxTraceRows) return false;
                const auto& v = r.values;
                TraceFile& t = trace_of(IntOf(v[0]).value_or(0));
                t.stats[TextOf(v[1])] = TraceStat{RealOf(v[2]).value_or(0), TextOf(v[3])};
                return true;
              });
  rows = 0;
  index.Query(
      "SELECT file_id, src, dst, transfers, bytes, lat_p50_us, lat_p90_us, lat_max_us, "
      "lat_mean_us FROM net_links ORDER BY file_id, src, dst",
      [&](const QueryRow& r) {
        if (++rows > kMaxTraceRows) return false;
        const auto& v = r.values;
        NetLinkRow l;
        l.file_id = IntOf(v[0]).value_or(0);
        l.src = TextOf(v[1]);
        l.dst = TextOf(v[2]);
        l.transfers = IntOf(v[3]).value_or(0);
        l.bytes = RealOf(v[4]).value_or(0);
        l.lat_p50_us = RealOf(v[5]).value_or(0);
        l.lat_p90_us = RealOf(v[6]).value_or(0);
        l.lat_max_us = RealOf(v[7]).value_or(0);
        l.lat_mean_us = RealOf(v[8]).value_or(0);
        trace_of(l.file_id).links.push_back(std::move(l));
        return true;
      });
  rows = 0;
  index.Query(
      "SELECT file_id, t0_us, t1_us, bytes, transfers, collectives_in_flight, busy_us, "
      "rpc_max_us FROM net_timeline ORDER BY file_id, t0_us",
      [&](const QueryRow& r) {
        if (++rows > kMaxTraceRows) return false;
        const auto& v = r.values;
        NetTimelineRow b;
        b.file_id = IntOf(v[0]).value_or(0);
        b.t0_us = RealOf(v[1]).value_or(0);
        b.t1_us = RealOf(v[2]).value_or(0);
        b.bytes = RealOf(v[3]).value_or(0);
        b.transfers = IntOf(v[4]).value_or(0);
        b.collectives_in_flight = IntOf(v[5]).value_or(0);
        b.busy_us = RealOf(v[6]).value_or(0);
        b.rpc_max_us = RealOf(v[7]).value_or(0);
        trace_of(b.file_id).timeline.push_back(b);
        return true;
      });
  rows = 0;
  index.Query(
      "SELECT file_id, kind, line_no, ts_us, dur_us, pid, text, detail FROM trace_marks "
      "ORDER BY file_id, kind, ts_us, line_no, offset",
      [&](const QueryRow& r) {
        if (++rows > kMaxTraceRows) return false;
        const auto& v = r.values;
        TraceMark m;
        m.file_id = IntOf(v[0]).value_or(0);
        m.kind = TextOf(v[1]);
        m.line_no = IntOf(v[2]).value_or(0);
        m.ts_us = RealOf(v[3]).value_or(0);
        m.dur_us = RealOf(v[4]);
        m.pid = TextOf(v[5]);
        m.text = TextOf(v[6]);
        m.detail = TextOf(v[7]);
        TraceFile& t = trace_of(m.file_id);
        t.marks[m.kind].push_back(std::move(m));
        return true;
      });
  for (auto& [id, t] : traces) facts.traces.push_back(std::move(t));

  for (const FileRow& f : files) {
    if (!IsSysctlFile(f)) continue;
    SysctlFile s;
    s.file_id = f.id;
    s.path = f.path;
    s.host = f.host.value_or("");
    index.ScanLines(f.id, [&](const LineRecord& rec) {
      if (s.lines.size() >= kMaxSysctlLinesPerFile) return false;
      s.lines.push_back({rec.line_no, std::string(rec.text), std::string(rec.message())});
      return true;
    });
    facts.sysctl.push_back(std::move(s));
  }

  index.Query(
      "SELECT file_id, line_no, key, value FROM configs WHERE key LIKE '%premap_memory_bytes%' "
      "OR value LIKE '%premap_memory_bytes=%' ORDER BY file_id, line_no LIMIT 64",
      [&](const QueryRow& r) {
        const auto& v = r.values;
        const std::optional<double> bytes = PremapBytes(TextOf(v[2]), TextOf(v[3]));
        if (!bytes) return true;
        facts.premap = PremapSetting{IntOf(v[0]).value_or(0), IntOf(v[1]).value_or(0), *bytes};
        return false;
      });
}

}  // namespace casefile::comm
