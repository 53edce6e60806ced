// The context sections of the analysis page: timeline, metrics, step times,
// network, analyzers, ingest issues, inventory, versions, environment and
// warnings. Each reads report.context (or the report's own tables), shows at
// most what its caps and its share of the page budget allow, and says how
// many more there are with the command that lists them.
#include <algorithm>
#include <cmath>

#include "report/html/html_page.h"
#include "report/html/html_text.h"
#include "report/html/svg_chart.h"
#include "report/render_html_parts.h"

namespace casefile::html_report {
namespace {

using html::AppendEscaped;
using html::Escape;
using html::EscapeCut;

std::string Empty(std::string_view text) { return "<p class=\"empty\">" + Escape(text) + "</p>\n"; }

std::string Count(int64_t n) { return std::to_string(n); }

int64_t More(int64_t total, size_t shown) {
  return std::max<int64_t>(0, total - static_cast<int64_t>(shown));
}

// Bytes as "12.5 MiB" (binary units, Num's fixed decimals).
std::string Bytes(double b) {
  if (!std::isfinite(b)) return "?";
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  size_t u = 0;
  while (std::fabs(b) >= 1024 && u + 1 < std::size(units)) b /= 1024, ++u;
  return html::Num(b) + " " + units[u];
}

std::string Micros(double us) {
  if (!std::isfinite(us)) return "?";
  if (std::fabs(us) >= 1000) return html::Num(us / 1000) + " ms";
  return html::Num(us) + " \xC2\xB5s";
}

std::string Td(std::string_view html_text, std::string_view cls = "") {
  std::string out = cls.empty() ? "<td>" : "<td class=\"" + std::string(cls) + "\">";
  out += html_text;
  out += "</td>";
  return out;
}

// A chart inside <figure class="chart"> with a caption.
std::string ChartFigure(const std::string& svg, std::string_view caption_html) {
  std::string out = "<figure class=\"chart\">\n" + svg;
  if (!caption_html.empty()) {
    out += "<figcaption>";
    out += caption_html;
    out += "</figcaption>\n";
  }
  out += "</figure>\n";
  return out;
}

std::string SeriesLabel(const MetricSeries& s) {
  std::string label = s.host.value_or("");
  if (s.rank) label += (label.empty() ? "rank " : " rank ") + std::to_string(*s.rank);
  return label.empty() ? s.name : label;
}

html::LineChartSpec CurveSpec(const std::vector<MetricSeries>& series, std::string_view css,
                              std::string_view title, bool log_y) {
  html::LineChartSpec spec;
  spec.css_class = css;
  spec.title = title;
  spec.log_y = log_y;
  spec.y_label = log_y ? "loss scale" : "loss";
  bool by_step = true;
  for (const auto& s : series) {
    by_step = by_step && s.by_step;
    html::LineSeries ls;
    ls.label = SeriesLabel(s);
    ls.xy.reserve(s.points.size());
    for (const auto& p : s.points) {
      ls.xy.emplace_back(p.step, p.nonfinite && std::isfinite(p.value) ? NAN : p.value);
    }
    ls.mark_x = s.mark_step;
    ls.mark_label = s.mark_label;
    spec.series.push_back(std::move(ls));
  }
  spec.x_label = by_step ? "step" : "position in the log";
  return spec;
}

// Names the marked points under a chart: "nan at step 1200 (host-3 rank 5)".
std::string MarkCaption(const std::vector<MetricSeries>& series) {
  std::string out;
  size_t n = 0;
  for (const auto& s : series) {
    if (!s.mark_step) continue;
    if (n++ >= 8) continue;
    if (!out.empty()) out += "; ";
    out += EscapeCut(s.mark_label.empty() ? "mark" : s.mark_label, 24) + " at step " +
           html::Num(*s.mark_step) + " (" + EscapeCut(SeriesLabel(s), 80) + ")";
  }
  if (n > 8) out += "; and " + std::to_string(n - 8) + " more";
  return out.empty() ? "" : "Marked: " + out + ".";
}

}  // namespace

std::string TimelineSection(const Report& report) {
  const ReportTimeline& tl = report.context.timeline;
  std::string out = html::SectionBegin("timeline", "Timeline");
  if (tl.hosts.empty()) {
    out += Empty("No timestamped lines: the logs carry no times the parser could read.");
    return out + html::SectionEnd();
  }
  std::vector<html::TimelineRow> rows;
  for (const auto& h : tl.hosts) {
    html::TimelineRow r;
    r.host = h.host;
    r.first_us = h.first_us;
    r.last_us = h.last_us;
    r.highlight = tl.first_silent && *tl.first_silent == h.host;
    for (const auto& m : h.marks) r.marks.push_back({m.ts_us, m.kind, m.label});
    rows.push_back(std::move(r));
  }
  // Fewer rows when the chart would not fit its share (long names, many marks).
  std::string svg = html::Timeline("Lines per host over time (UTC)", tl.start_us, tl.end_us, rows);
  while (svg.size() > kTimelineBudget - 8192 && rows.size() > 1) {
    rows.resize(rows.size() / 2);
    svg = html::Timeline("Lines per host over time (UTC)", tl.start_us, tl.end_us, rows);
  }
  std::string caption;
  if (tl.first_silent) {
    caption = "<strong>" + EscapeCut(*tl.first_silent, 120) + "</strong> went silent first";
    for (const auto& h : tl.hosts) {
      if (h.host == *tl.first_silent) {
        caption += " (last line at " + html::TimelineClock(h.last_us) + " UTC)";
        break;
      }
    }
    caption += ". ";
  }
  caption +=
      "Each row runs from a host's first to its last timestamped line; ticks mark errors, "
      "crashes, the hang point and lines cited by findings.";
  out += "<div class=\"scroll\">" + ChartFigure(svg, caption) + "</div>\n";
  out += html::MoreLine(
      More(std::max<int64_t>(tl.host_count, static_cast<int64_t>(tl.hosts.size())), rows.size()),
      "hosts",
      QueryCommand(report,
                   "SELECT host, min(ts_us), max(ts_us), count(*) FROM "
                   "lines GROUP BY host ORDER BY max(ts_us)"));
  return out + html::SectionEnd();
}

std::string MetricsSection(const Report& report) {
  const ReportContext& c = report.context;
  std::string out = html::SectionBegin("metrics", "Training metrics");
  if (c.loss.empty() && c.loss_scale.empty()) {
    out += Empty("No loss or loss-scale lines were found in the logs.");
    return out + html::SectionEnd();
  }
  if (!c.loss.empty()) {
    out +=
        ChartFigure(html::LineChart(CurveSpec(c.loss, "loss", "Loss", false)), MarkCaption(c.loss));
    out += html::MoreLine(More(c.loss_series_count, c.loss.size()), "loss curves",
                          QueryCommand(report, "SELECT * FROM metrics WHERE name='loss'"));
  }
  if (!c.loss_scale.empty()) {
    out += ChartFigure(
        html::LineChart(CurveSpec(c.loss_scale, "loss-scale", "Loss scale (log axis)", true)),
        MarkCaption(c.loss_scale));
    out += html::MoreLine(More(c.loss_scale_series_count, c.loss_scale.size()), "loss-scale curves",
                          QueryCommand(report, "SELECT * FROM metrics WHERE name='loss_scale'"));
  }
  return out + html::SectionEnd();
}

std::string StepTimesSection(const Report& report) {
  const auto& st = report.context.step_times;
  std::string out = html::SectionBegin("step-times", "Step times");
  if (st.empty()) {
    out += Empty("No step-time lines were found in the logs.");
    return out + html::SectionEnd();
  }
  std::vector<html::BoxRow> rows;
  size_t stragglers = 0;
  for (const auto& s : st) {
    rows.push_back({s.host, s.min_s, s.p10_s, s.p50_s, s.p90_s, s.max_s, s.straggler,
                    s.straggler ? "straggler" : ""});
    stragglers += s.straggler;
  }
  std::string caption = "Per host: whiskers min to max, box p10 to p90, bar at the median.";
  if (stragglers > 0) {
    caption += " " + std::to_string(stragglers) + (stragglers == 1 ? " straggler" : " stragglers") +
               " highlighted.";
  }
  out += ChartFigure(html::BoxPlot("step-times", "Step time per host", "seconds", rows), caption);
  out += html::MoreLine(More(report.context.step_time_host_count, st.size()), "hosts",
                        QueryCommand(report, "SELECT * FROM step_times"));
  return out + html::SectionEnd();
}

std::string NetworkHtmlSection(const Report& report) {
  const LatencyMatrix& lat = report.context.latency;
  const NetworkSection& net = report.network;
  std::string out = html::SectionBegin("network", "Network");
  if (lat.endpoints.empty() && net.empty()) {
    out += Empty("No communication tables: the bundle holds no profiler trace with transfers.");
    return out + html::SectionEnd();
  }
  if (!lat.endpoints.empty()) {
    out += "<div class=\"scroll\">" +
           ChartFigure(html::Heatmap("heatmap", "Median latency between endpoints", "\xC2\xB5s",
                                     lat.endpoints, lat.p50_us),
                       "Median transfer latency; rows are sources, columns destinations; empty "
                       "cells had no transfer.") +
           "</div>\n";
    out += html::MoreLine(More(lat.endpoint_count, lat.endpoints.size()), "endpoints",
                          QueryCommand(report, "SELECT * FROM net_links"));
  }
  if (!net.traces.empty()) {
    out +=
        "<h3>Traces</h3>\n<div class=\"scroll\"><table class=\"traces\"><thead><tr><th>trace"
        "</th><th>host</th><th>source</th><th>statistics</th></tr></thead><tbody>\n";
    size_t shown = 0;
    for (const auto& t : net.traces) {
      if (shown >= kTracesShown) break;
      ++shown;
      std::string stats;
      for (const auto& [key, value] : t.stats) {
        if (!stats.empty()) stats += ", ";
        std::string v;
        if (key.ends_with("_us")) {
          v = Micros(value);
        } else if (key.ends_with("_share")) {
          v = html::Num(100 * value) + "%";
        } else {
          v = html::Num(value);
        }
        stats += EscapeCut(key, 60) + " " + v;
      }
      if (t.timeline_buckets > 0) {
        stats += (stats.empty() ? "" : ", ") + std::string("collectives in flight max ") +
                 Count(t.max_collectives_in_flight);
      }
      out += "<tr>" + Td("<code>" + EscapeCut(t.path, kCellBytes) + "</code>") +
             Td(EscapeCut(t.host.value_or(""), kCellBytes)) + Td(EscapeCut(t.source, 40)) +
             Td(stats) + "</tr>\n";
    }
    out += "</tbody></table></div>\n";
    out += html::MoreLine(
        More(std::max<int64_t>(net.trace_count, static_cast<int64_t>(net.traces.size())), shown),
        "traces", QueryCommand(report, "SELECT * FROM trace_comm_stats"));
  }
  if (!net.links.empty()) {
    out +=
        "<h3>Slowest links (median latency)</h3>\n<div class=\"scroll\"><table "
        "class=\"links\"><thead><tr><th>source</th><th>destination</th><th "
        "class=\"num\">transfers</th><th class=\"num\">bytes</th><th class=\"num\">p50</th><th "
        "class=\"num\">p90</th><th class=\"num\">max</th></tr></thead><tbody>\n";
    for (const auto& l : net.links) {
      out += "<tr>" + Td(EscapeCut(l.src, kCellBytes)) + Td(EscapeCut(l.dst, kCellBytes)) +
             Td(Count(l.transfers), "num") + Td(Bytes(l.bytes), "num") +
             Td(Micros(l.lat_p50_us), "num") + Td(Micros(l.lat_p90_us), "num") +
             Td(Micros(l.lat_max_us), "num") + "</tr>\n";
    }
    out += "</tbody></table></div>\n";
    out += html::MoreLine(More(net.link_count, net.links.size()), "links",
                          QueryCommand(report, "SELECT * FROM net_links"));
  }
  if (!net.sizes.empty()) {
    out +=
        "<h3>Transfer sizes</h3>\n<div class=\"scroll\"><table class=\"sizes\"><thead><tr><th>"
        "size</th><th class=\"num\">transfers</th><th class=\"num\">bytes</th></tr></thead>"
        "<tbody>\n";
    for (const auto& z : net.sizes) {
      out += "<tr>" + Td(Bytes(z.lo_bytes) + " to " + Bytes(z.hi_bytes)) +
             Td(Count(z.transfers), "num") + Td(Bytes(z.bytes), "num") + "</tr>\n";
    }
    out += "</tbody></table></div>\n";
  }
  return out + html::SectionEnd();
}

std::string AnalyzersSection(const Report& report) {
  std::string out = html::SectionBegin("analyzers", "Analyzers");
  if (report.analyzers.empty()) {
    out += Empty("No analyzer ran.");
    return out + html::SectionEnd();
  }
  out +=
      "<div class=\"scroll\"><table class=\"analyzers\"><thead><tr><th>name</th><th>status"
      "</th><th class=\"num\">findings</th><th>reason</th></tr></thead><tbody>\n";
  for (const auto& a : report.analyzers) {
    const char* badge = a.status == "ran" ? "ok" : (a.status == "failed" ? "error" : "info");
    out += "<tr>" + Td(EscapeCut(a.name, 120)) +
           Td("<span class=\"badge " + std::string(badge) + "\">" + EscapeCut(a.status, 40) +
              "</span>") +
           Td(Count(a.findings), "num") + Td(EscapeCut(a.reason, 400)) + "</tr>\n";
    if (out.size() > kAnalyzersBudget - 4096) break;
  }
  out += "</tbody></table></div>\n";
  return out + html::SectionEnd();
}

std::string IngestSection(const Report& report) {
  std::string out = html::SectionBegin("ingest-issues", "Ingest issues");
  if (report.ingest_issue_counts.empty() && report.ingest_issues.empty()) {
    out += Empty("Every entry of the input was read.");
    return out + html::SectionEnd();
  }
  int64_t total = 0;
  for (const auto& [kind, n] : report.ingest_issue_counts) total += n;
  out += "<p>" + Count(total) + " issues while reading the input.</p>\n";
  out +=
      "<div class=\"scroll\"><table class=\"issue-counts\"><thead><tr><th>kind</th><th "
      "class=\"num\">count</th></tr></thead><tbody>\n";
  for (const auto& [kind, n] : report.ingest_issue_counts) {
    out += "<tr>" + Td(EscapeCut(kind, 80)) + Td(Count(n), "num") + "</tr>\n";
  }
  out += "</tbody></table></div>\n";
  std::map<std::string, size_t> shown_per_kind;
  out +=
      "<div class=\"scroll\"><table class=\"issues\"><thead><tr><th>kind</th><th>where</th><th "
      "class=\"num\">offset</th><th>message</th></tr></thead><tbody>\n";
  for (const auto& i : report.ingest_issues) {
    if (out.size() > kIngestBudget - 8192) break;
    ++shown_per_kind[i.row.kind];
    out += "<tr>" + Td(EscapeCut(i.row.kind, 80)) +
           Td("<code>" + EscapeCut((i.bundle.empty() ? "" : i.bundle + ":") + i.row.path, 300) +
              "</code>") +
           Td(Count(i.row.offset), "num") + Td(EscapeCut(i.row.message, 300)) + "</tr>\n";
  }
  out += "</tbody></table></div>\n";
  for (const auto& [kind, n] : report.ingest_issue_counts) {
    const auto it = shown_per_kind.find(kind);
    const size_t shown = it == shown_per_kind.end() ? 0 : it->second;
    out += html::MoreLine(
        More(n, shown), kind + " issues",
        QueryCommand(report, "SELECT * FROM ingest_issues WHERE kind='" + kind + "'"));
  }
  return out + html::SectionEnd();
}

std::string InventorySection(const Report& report) {
  const ReportInventory& inv = report.context.inventory;
  std::string out = html::SectionBegin("inventory", "Inventory");
  if (inv.bundles.empty() && inv.hosts.empty()) {
    out += Empty("No inventory was loaded for this report.");
    return out + html::SectionEnd();
  }
  for (const auto& b : inv.bundles) {
    if (out.size() > kInventoryBudget - 16384) break;
    out += "<h3>" + EscapeCut(b.name, 200) + " <small>" + EscapeCut(b.format, 40) + ", " +
           Bytes(static_cast<double>(b.bytes));
    if (b.status == "partial" || b.status == "unreadable") {
      out += " <span class=\"badge " + b.status + "\">" + b.status + "</span>";
    }
    out +=
        "</small></h3>\n<div class=\"scroll\"><table class=\"inventory\"><thead><tr><th>kind"
        "</th><th class=\"num\">files</th><th class=\"num\">bytes</th><th class=\"num\">lines"
        "</th></tr></thead><tbody>\n";
    for (const auto& k : b.kinds) {
      out += "<tr>" + Td(EscapeCut(k.kind, 60)) + Td(Count(k.files), "num") +
             Td(Bytes(static_cast<double>(k.bytes)), "num") + Td(Count(k.lines), "num") + "</tr>\n";
    }
    out += "</tbody></table></div>\n";
  }
  if (!inv.hosts.empty()) {
    out += "<h3>Hosts (" +
           Count(std::max<int64_t>(inv.host_count, static_cast<int64_t>(inv.hosts.size()))) +
           ")</h3>\n<p class=\"hosts\">";
    size_t shown = 0;
    for (const auto& h : inv.hosts) {
      if (out.size() > kInventoryBudget - 4096) break;
      if (shown > 0) out += ", ";
      out += "<code>" + EscapeCut(h, 120) + "</code>";
      ++shown;
    }
    out += "</p>\n";
    out += html::MoreLine(
        More(std::max<int64_t>(inv.host_count, static_cast<int64_t>(inv.hosts.size())), shown),
        "hosts", QueryCommand(report, "SELECT DISTINCT host FROM files ORDER BY host"));
  }
  return out + html::SectionEnd();
}

std::string VersionsSection(const Report& report) {
  const auto& versions = report.context.versions;
  std::string out = html::SectionBegin("versions", "Versions");
  if (versions.empty()) {
    out += Empty("No version reports were found (collect_env, nvidia-smi, pip freeze, ...).");
    return out + html::SectionEnd();
  }
  size_t columns = 1;
  for (const auto& v : versions) columns = std::max(columns, v.values.size());
  out +=
      "<div class=\"scroll\"><table class=\"versions\"><thead><tr><th>component</th><th "
      "colspan=\"" +
      std::to_string(columns) + "\">value (hosts)</th></tr></thead><tbody>\n";
  size_t shown = 0;
  for (const auto& v : versions) {
    if (out.size() > kVersionsBudget - 8192) break;
    ++shown;
    out += v.differs() ? "<tr class=\"differs\">" : "<tr>";
    out += "<th scope=\"row\">" + EscapeCut(v.component, 120);
    if (v.key) out += " <span class=\"badge info\">key</span>";
    out += "</th>";
    for (size_t i = 0; i < columns; ++i) {
      if (i >= v.values.size()) {
        out += "<td></td>";
        continue;
      }
      const auto& val = v.values[i];
      // Values come majority first: every other value of a component whose
      // hosts disagree is the minority to look at, so those cells name their
      // hosts and where the value was read; a majority cell only counts.
      const bool minority = v.differs() && i > 0;
      std::string cell = "<code>" + EscapeCut(val.value, kCellBytes) + "</code> (" +
                         Count(val.host_count) + (val.host_count == 1 ? " host" : " hosts");
      if (minority || !v.differs()) {
        const size_t named = minority ? val.hosts.size() : std::min<size_t>(val.hosts.size(), 2);
        if (named > 0) cell += ": ";
        for (size_t h = 0; h < named; ++h) cell += (h ? ", " : "") + EscapeCut(val.hosts[h], 80);
        if (val.host_count > static_cast<int64_t>(named) && named > 0) cell += ", \xE2\x80\xA6";
      }
      cell += ")";
      if (minority && !val.path.empty()) {
        cell += "<br><small><code>" + EscapeCut(val.path, kCellBytes) + ":" + Count(val.line) +
                "</code></small>";
      }
      out += Td(cell, minority ? "minority" : "");
    }
    if (v.value_count > static_cast<int64_t>(v.values.size())) {
      out += Td(Count(v.value_count - static_cast<int64_t>(v.values.size())) + " more values");
    }
    out += "</tr>\n";
  }
  out += "</tbody></table></div>\n";
  out += html::MoreLine(More(std::max<int64_t>(report.context.version_component_count,
                                               static_cast<int64_t>(versions.size())),
                             shown),
                        "components",
                        QueryCommand(report, "SELECT * FROM versions ORDER BY component"));
  return out + html::SectionEnd();
}

std::string EnvironmentSection(const Report& report) {
  const ReportEnvironment& env = report.context.environment;
  std::string out = html::SectionBegin("environment", "Environment");
  if (!env.command_line && env.deepspeed_config.empty()) {
    out += Empty("No command line or DeepSpeed config was found.");
    return out + html::SectionEnd();
  }
  if (env.command_line) {
    out += "<h3>Command line</h3>\n<figure class=\"evidence\" data-path=\"" +
           Escape(env.command_line_path) + "\"><figcaption>" +
           EscapeCut(env.command_line_path, 400) + "</figcaption><pre>" +
           EscapeCut(*env.command_line, 8000) + "</pre></figure>\n";
  }
  if (!env.deepspeed_config.empty()) {
    out += "<h3>DeepSpeed config <small><code>" + EscapeCut(env.deepspeed_config_path, 400) +
           "</code></small></h3>\n<div class=\"scroll\"><table class=\"config\"><thead><tr><th>"
           "key</th><th>value</th></tr></thead><tbody>\n";
    size_t shown = 0;
    for (const auto& e : env.deepspeed_config) {
      if (out.size() > kEnvironmentBudget - 4096) break;
      ++shown;
      out += "<tr>" + Td("<code>" + EscapeCut(e.key, kCellBytes) + "</code>") +
             Td("<code>" + EscapeCut(e.value, kCellBytes) + "</code>") + "</tr>\n";
    }
    out += "</tbody></table></div>\n";
    out += html::MoreLine(
        More(std::max<int64_t>(env.deepspeed_config_keys,
                               static_cast<int64_t>(env.deepspeed_config.size())),
             shown),
        "keys",
        "casefile show " + BundleArgs(report) + " " + html::ShellQuote(env.deepspeed_config_path));
  }
  return out + html::SectionEnd();
}

std::string WarningsSection(const Report& report) {
  if (report.warnings.empty()) return "";
  std::string out = html::SectionBegin("warnings", "Warnings");
  out += "<ul class=\"warnings\">";
  size_t shown = 0;
  for (const auto& w : report.warnings) {
    if (shown >= kWarningsShown || out.size() > kWarningsBudget - 2048) break;
    ++shown;
    out += "<li>" + EscapeCut(w, 300) + "</li>";
  }
  out += "</ul>\n";
  out += html::MoreLine(More(static_cast<int64_t>(report.warnings.size()), shown), "warnings",
                        "casefile analyze " + BundleArgs(report) + " --format json");
  return out + html::SectionEnd();
}

}  // namespace casefile::html_report
