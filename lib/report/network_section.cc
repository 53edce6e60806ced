#include "report/network_section.h"

#include <cstdio>

#include "common/json_writer.h"

namespace casefile {
namespace {

// Statistics shown per trace, in this order (comm_trace_keys.h names them;
// the report stage does not depend on parse, so they are spelled here).
constexpr const char* kShownStats[] = {
    "steady_start_us", "step_median_us", "comm_share",   "recv_done_share", "recv_done_p90_us",
    "collectives",     "low_slack",      "slack_p50_us", "map_dma_steady",  "memory_copy_in_recv",
    "rpc_p50_us",      "rpc_p99_us",     "rpc_spikes",   "transfers",       "nccl_kernel_share",
};

std::optional<double> Real(const std::optional<std::string>& v) {
  if (!v) return std::nullopt;
  try {
    return std::stod(*v);
  } catch (...) {
    return std::nullopt;
  }
}

int64_t Int(const std::optional<std::string>& v) {
  const auto d = Real(v);
  return d ? static_cast<int64_t>(*d) : 0;
}

std::string Clean(std::string_view text, size_t max = 120) {
  std::string s = SanitizeUtf8(text.substr(0, max));
  for (char& c : s) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  }
  return s;
}

std::string Num(double v, const char* format = "%.0f") {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string Ms(double us) { return Num(us / 1000.0, "%.2f ms"); }

}  // namespace

NetworkSection LoadNetworkSection(const IndexReader& index) {
  NetworkSection s;
  std::map<int64_t, size_t> by_file;  // file id -> traces index
  index.Query(
      "SELECT f.id, b.name, f.path, f.host FROM files AS f JOIN bundles AS b ON b.id = "
      "f.bundle_id WHERE f.id IN (SELECT DISTINCT file_id FROM trace_comm_stats WHERE key <> "
      "'source' AND key <> 'events') ORDER BY b.id, f.path",
      [&](const QueryRow& r) {
        ++s.trace_count;
        if (s.traces.size() >= kNetworkTraces) return true;
        NetworkTrace t;
        t.bundle = r.values[1].value_or("");
        t.path = r.values[2].value_or("");
        t.host = r.values[3];
        by_file[Int(r.values[0])] = s.traces.size();
        s.traces.push_back(std::move(t));
        return true;
      });
  index.Query("SELECT file_id, key, value, detail FROM trace_comm_stats ORDER BY rowid",
              [&](const QueryRow& r) {
                auto it = by_file.find(Int(r.values[0]));
                if (it == by_file.end()) return true;
                NetworkTrace& t = s.traces[it->second];
                const std::string key = r.values[1].value_or("");
                if (key == "source") t.source = r.values[3].value_or("");
                if (auto v = Real(r.values[2])) t.stats[key] = *v;
                return true;
              });
  index.Query(
      "SELECT file_id, count(*), max(collectives_in_flight), max(busy_us / max(t1_us - t0_us, "
      "1e-9)) FROM net_timeline GROUP BY file_id",
      [&](const QueryRow& r) {
        auto it = by_file.find(Int(r.values[0]));
        if (it == by_file.end()) return true;
        NetworkTrace& t = s.traces[it->second];
        t.timeline_buckets = Int(r.values[1]);
        t.max_collectives_in_flight = Int(r.values[2]);
        t.max_busy_share = Real(r.values[3]).value_or(0);
        return true;
      });
  index.Query("SELECT count(*) FROM net_links", [&](const QueryRow& r) {
    s.link_count = Int(r.values[0]);
    return true;
  });
  index.Query(
      "SELECT f.path, l.src, l.dst, l.transfers, l.bytes, l.lat_p50_us, l.lat_p90_us, "
      "l.lat_max_us FROM net_links AS l JOIN files AS f ON f.id = l.file_id "
      "ORDER BY l.lat_p50_us DESC, f.path, l.src, l.dst LIMIT " +
          std::to_string(kNetworkLinks),
      [&](const QueryRow& r) {
        NetworkLink l;
        l.path = r.values[0].value_or("");
        l.src = r.values[1].value_or("");
        l.dst = r.values[2].value_or("");
        l.transfers = Int(r.values[3]);
        l.bytes = Real(r.values[4]).value_or(0);
        l.lat_p50_us = Real(r.values[5]).value_or(0);
        l.lat_p90_us = Real(r.values[6]).value_or(0);
        l.lat_max_us = Real(r.values[7]).value_or(0);
        s.links.push_back(std::move(l));
        return true;
      });
  index.Query(
      "SELECT lo_bytes, hi_bytes, sum(transfers), sum(bytes) FROM net_sizes GROUP BY lo_bytes, "
      "hi_bytes ORDER BY lo_bytes",
      [&](const QueryRow& r) {
        s.sizes.push_back({Real(r.values[0]).value_or(0), Real(r.values[1]).value_or(0),
                           Int(r.values[2]), Real(r.values[3]).value_or(0)});
        return true;
      });
  return s;
}

void WriteNetworkJson(JsonWriter& w, const NetworkSection& s) {
  w.BeginObject();
  w.Key("traces").BeginArray();
  for (const NetworkTrace& t : s.traces) {
    w.BeginObject();
    w.Key("bundle").String(t.bundle);
    w.Key("path").String(t.path);
    w.Key("host").OptString(t.host);
    w.Key("source").String(t.source);
    w.Key("stats").BeginObject();
    for (const auto& [key, value] : t.stats) w.Key(key).Double(value);
    w.EndObject();
    w.Key("timeline_buckets").Int(t.timeline_buckets);
    w.Key("max_collectives_in_flight").Int(t.max_collectives_in_flight);
    w.Key("max_busy_share").Double(t.max_busy_share);
    w.EndObject();
  }
  w.EndArray();
  w.Key("trace_count").Int(s.trace_count);
  w.Key("links").BeginArray();
  for (const NetworkLink& l : s.links) {
    w.BeginObject();
    w.Key("path").String(l.path);
    w.Key("src").String(l.src);
    w.Key("dst").String(l.dst);
    w.Key("transfers").Int(l.transfers);
    w.Key("bytes").Double(l.bytes);
    w.Key("lat_p50_us").Double(l.lat_p50_us);
    w.Key("lat_p90_us").Double(l.lat_p90_us);
    w.Key("lat_max_us").Double(l.lat_max_us);
    w.EndObject();
  }
  w.EndArray();
  w.Key("link_count").Int(s.link_count);
  w.Key("sizes").BeginArray();
  for (const NetworkSize& z : s.sizes) {
    w.BeginObject();
    w.Key("lo_bytes").Double(z.lo_bytes);
    w.Key("hi_bytes").Double(z.hi_bytes);
    w.Key("transfers").Int(z.transfers);
    w.Key("bytes").Double(z.bytes);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

std::string RenderNetworkText(const NetworkSection& s) {
  if (s.empty()) return "";
  std::string out;
  for (const NetworkTrace& t : s.traces) {
    out += "  " + Clean(t.path, 200) + (t.host ? " (" + Clean(*t.host) + ")" : "") + "\n   ";
    size_t shown = 0;
    for (const char* key : kShownStats) {
      auto it = t.stats.find(key);
      if (it == t.stats.end()) continue;
      const std::string k = key;
      std::string v;
      if (k.ends_with("_us")) {
        v = Ms(it->second);
      } else if (k.ends_with("_share")) {
        v = Num(100 * it->second, "%.1f%%");
      } else {
        v = Num(it->second);
      }
      out += (shown++ % 4 == 0 && shown > 1 ? "\n   " : "") + std::string(" ") + k + "=" + v;
    }
    if (t.timeline_buckets > 0) {
      out += (shown % 4 == 0 ? "\n   " : "") + std::string(" collectives_in_flight_max=") +
             std::to_string(t.max_collectives_in_flight);
    }
    out += "\n";
  }
  if (s.trace_count > static_cast<int64_t>(s.traces.size())) {
    out += "  ... and " + std::to_string(s.trace_count - static_cast<int64_t>(s.traces.size())) +
           " more traces (SELECT * FROM trace_comm_stats)\n";
  }
  if (!s.links.empty()) {
    out += "  Slowest links (median latency; all: SELECT * FROM net_links):\n";
    for (const NetworkLink& l : s.links) {
      out += "    " + Clean(l.src) + " -> " + Clean(l.dst) + "  p50 " + Ms(l.lat_p50_us) +
             "  p90 " + Ms(l.lat_p90_us) + "  max " + Ms(l.lat_max_us) + "  " +
             std::to_string(l.transfers) + " transfers\n";
    }
  }
  if (!s.sizes.empty()) {
    out += "  Transfer sizes:";
    for (const NetworkSize& z : s.sizes) {
      out += " [" + Num(z.lo_bytes) + "," + Num(z.hi_bytes) + "):" + std::to_string(z.transfers);
    }
    out += "\n";
  }
  return out;
}

}  // namespace casefile
