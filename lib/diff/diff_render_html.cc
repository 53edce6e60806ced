// The HTML form of a diff (docs/REPORTS.md): one self-contained page with the
// headline, then one section per diff section holding its lists as tables of
// items (key, host, the value and evidence on each side, summary, fields), a
// chart of good vs bad counts for the top templates, small charts for the
// metrics that carry good and bad numbers, the warnings and the inputs.
//
// Everything from the bundles (keys, values, summaries, evidence, paths,
// warnings) goes through html::Escape. The page stays under
// html::kPageBudgetBytes whatever the report holds: every text is cut, and
// the rows of the lists share what the rest of the page leaves of the
// budget; a list cut short says how many items it left out and the command
// that lists them (the JSON).
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "diff/diff.h"
#include "report/html/html_page.h"
#include "report/html/html_text.h"
#include "report/html/svg_chart.h"

namespace casefile::diff {
namespace {

// Input bytes kept of each text before escaping (escaping may grow them).
constexpr size_t kKeyBytes = 300;
constexpr size_t kHostBytes = 120;
constexpr size_t kValueBytes = 200;
constexpr size_t kSummaryBytes = 500;
constexpr size_t kHeadlineBytes = 600;
constexpr size_t kFieldNameBytes = 60;
constexpr size_t kFieldValueBytes = 120;
constexpr size_t kEvidenceWhereBytes = 240;
constexpr size_t kEvidenceTextBytes = 300;
constexpr size_t kWarningBytes = 1000;
constexpr size_t kBundleNameBytes = 100;
constexpr size_t kBundleTextBytes = 300;
constexpr size_t kChartLabelBytes = 80;
// Evidence lines shown per item and side, fields per item (the JSON has all).
constexpr size_t kEvidencePerSide = 3;
constexpr size_t kFieldsPerItem = 12;
// Rows of the templates chart, metrics charts, bundles named in the
// subtitle, bundles listed per side, warnings listed.
constexpr size_t kTemplateChartRows = 12;
constexpr size_t kMetricCharts = 8;
constexpr size_t kSubtitleBundles = 5;
constexpr size_t kBundlesListed = 20;
constexpr size_t kWarningsListed = 100;
// A command longer than this (hundreds of inputs) is shown in its generic
// form: eleven copies of it would eat the page.
constexpr size_t kCommandBytes = 2000;
// Room kept for what is measured only after the rows are written (list
// headings, empty states, "more" lines, closing tags).
constexpr size_t kPerListOverhead = 1024;
constexpr size_t kSafetyMargin = 16 * 1024;

static_assert(DiffReport::kListCount == 11, "a new list needs a place in kSections");

// The page's sections in order and the lists (indices into Lists()) each holds.
struct SectionSpec {
  const char* id;
  const char* heading;
  size_t first_list;
  size_t list_count;
};
constexpr SectionSpec kSections[] = {
    {"diff-findings", "Findings", 0, 3}, {"diff-versions", "Versions", 3, 1},
    {"diff-configs", "Configs", 4, 1},   {"diff-templates", "Log templates", 5, 3},
    {"diff-metrics", "Metrics", 8, 1},   {"diff-hlo", "HLO modules", 9, 1},
    {"diff-traces", "Traces", 10, 1},
};

// `text` cut to at most `max` bytes, never inside a UTF-8 sequence, with "…"
// when cut: for labels handed to the chart writers, which escape them.
std::string CutPlain(std::string_view text, size_t max) {
  if (text.size() <= max) return std::string(text);
  size_t end = max;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return std::string(text.substr(0, end)) + "\xE2\x80\xA6";
}

// Shortest round-trip text of a double, locale-independent: fields hold
// small ratios (0.0012) that a fixed 2-decimal format would flatten.
std::string DoubleText(double v) {
  if (!std::isfinite(v)) return std::isnan(v) ? "NaN" : (v > 0 ? "inf" : "-inf");
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, 6);
  if (ec != std::errc()) return "?";
  return std::string(buf, end);
}

std::string ScoreText(double score) { return DoubleText(std::round(score * 10) / 10); }

std::string ValueText(const DiffValue& v) {
  if (const auto* s = std::get_if<std::string>(&v)) return html::EscapeCut(*s, kFieldValueBytes);
  if (const auto* i = std::get_if<int64_t>(&v)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&v)) return DoubleText(*d);
  if (const auto* b = std::get_if<bool>(&v)) return *b ? "true" : "false";
  return "null";
}

// A numeric field of an item (integer or double), when present.
std::optional<double> NumberField(const DiffItem& item, std::string_view name) {
  for (const DiffField& f : item.fields) {
    if (f.name != name) continue;
    if (const auto* i = std::get_if<int64_t>(&f.value)) return static_cast<double>(*i);
    if (const auto* d = std::get_if<double>(&f.value)) {
      if (std::isfinite(*d)) return *d;
    }
    return std::nullopt;
  }
  return std::nullopt;
}

// "findings.new" -> "findings-new": ids and CSS stay free of dots.
std::string Slug(std::string_view list_name) {
  std::string out(list_name);
  std::replace(out.begin(), out.end(), '.', '-');
  return out;
}

std::string RowId(size_t list, size_t k) {
  return "item-" + Slug(DiffReport::ListNames()[list]) + "-" + std::to_string(k);
}

int64_t ListTotal(const DiffReport& report, size_t list, size_t shown_max) {
  const int64_t size = static_cast<int64_t>(shown_max);
  if (list < report.totals.size()) return std::max(report.totals[list], size);
  return size;
}

// --- the command of "more" lines --------------------------------------------

// The inputs of one side as the user gave them; a report built through the
// C API without them names its bundles' paths.
std::vector<std::string> SideArgs(const std::vector<std::string>& inputs,
                                  const std::vector<BundleRow>& bundles, const char* fallback) {
  if (!inputs.empty()) return inputs;
  std::vector<std::string> out;
  for (const BundleRow& b : bundles) out.push_back(b.path.empty() ? b.name : b.path);
  if (out.empty()) out.push_back(fallback);
  return out;
}

std::string JsonCommand(const DiffReport& report) {
  std::string cmd = "casefile diff";
  for (const std::string& a : SideArgs(report.good_inputs, report.good_bundles, "GOOD")) {
    cmd += " " + html::ShellQuote(a);
  }
  cmd += " --";
  for (const std::string& a : SideArgs(report.bad_inputs, report.bad_bundles, "BAD")) {
    cmd += " " + html::ShellQuote(a);
  }
  cmd += " --format json";
  if (cmd.size() > kCommandBytes) return "casefile diff GOOD... -- BAD... --format json";
  return cmd;
}

// --- header and headline -----------------------------------------------------

bool AnyPartial(const DiffReport& report) {
  for (const auto* side : {&report.good_bundles, &report.bad_bundles}) {
    for (const BundleRow& b : *side) {
      if (b.status != "complete") return true;
    }
  }
  return false;
}

// A bundle's status other than complete, as a badge: "PARTIAL" with class
// "badge partial" (the page's stylesheet colours partial and unreadable).
std::string StatusBadge(const std::string& status) {
  std::string upper = CutPlain(status, 40);
  std::transform(upper.begin(), upper.end(), upper.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return "<span class=\"badge " + html::Escape(CutPlain(status, 40)) + "\">" + html::Escape(upper) +
         "</span>";
}

// <span class="bundle side-good">good: a.tar.zst, b <span class="badge
// partial">PARTIAL</span></span> (HTML for PageBeginRaw: names escaped here).
std::string SideSubtitle(const char* name, const std::vector<BundleRow>& bundles) {
  std::string out = std::string("<span class=\"bundle side-") + name + "\">" + name + ":";
  if (bundles.empty()) out += " (no bundle)";
  for (size_t i = 0; i < bundles.size() && i < kSubtitleBundles; ++i) {
    out += (i == 0 ? " " : ", ") + html::EscapeCut(bundles[i].name, kBundleNameBytes);
    if (bundles[i].status != "complete") out += " " + StatusBadge(bundles[i].status);
  }
  if (bundles.size() > kSubtitleBundles) {
    out += " and " + std::to_string(bundles.size() - kSubtitleBundles) + " more";
  }
  return out + "</span>";
}

// Where each headline item is in the lists: the row to link to.
struct RowRef {
  size_t list = 0, k = 0;
  bool found = false;
};

RowRef FindRow(const DiffReport& report, const DiffItem& h) {
  const auto lists = report.Lists();
  for (size_t i = 0; i < lists.size(); ++i) {
    for (size_t k = 0; k < lists[i]->size(); ++k) {
      const DiffItem& item = (*lists[i])[k];
      if (item.section == h.section && item.kind == h.kind && item.key == h.key &&
          item.host == h.host) {
        return {i, k, true};
      }
    }
  }
  return {};
}

// `shown[i]`: rows written of list i; nullptr while measuring (every found
// row linked: the longest the headline can be).
std::string Headline(const DiffReport& report, const std::vector<size_t>* shown) {
  std::string out = html::SectionBegin("headline", "Headline");
  if (report.headline.empty()) {
    out += "<p class=\"headline\">No difference worth a headline: no difference scores " +
           DoubleText(kHeadlineMinScore) + " or more";
    out += AnyPartial(report) ? "; some bundles are partial, so a difference may be missing "
                                "(see Inputs).</p>\n"
                              : ".</p>\n";
    return out + html::SectionEnd();
  }
  out += "<ol class=\"headline-list\">\n";
  for (const DiffItem& item : report.headline) {
    out += "<li class=\"headline-item\" data-section=\"" + html::Escape(item.section) +
           "\" data-kind=\"" + html::Escape(item.kind) +
           "\"><span class=\"score\" title=\"score, 0 to 100\">" + ScoreText(item.score) +
           "</span> " + html::EscapeCut(item.summary, kHeadlineBytes);
    const RowRef ref = FindRow(report, item);
    if (ref.found && (shown == nullptr || ref.k < (*shown)[ref.list])) {
      out += " <a class=\"goto\" href=\"#" + RowId(ref.list, ref.k) + "\">details</a>";
    }
    out += "</li>\n";
  }
  out += "</ol>\n";
  return out + html::SectionEnd();
}

// --- rows ----------------------------------------------------------------

void AppendEvidence(std::string& out, const std::vector<Evidence>& evidence) {
  if (evidence.empty()) return;
  out += "<ul class=\"evidence-list\">";
  for (size_t i = 0; i < evidence.size() && i < kEvidencePerSide; ++i) {
    const Evidence& e = evidence[i];
    out += "<li data-path=\"" + html::EscapeCut(e.path, kEvidenceWhereBytes) + "\" data-line=\"" +
           std::to_string(e.line) + "\"><code class=\"where\">" +
           html::EscapeCut(e.bundle + ":" + e.path, kEvidenceWhereBytes) + ":" +
           std::to_string(e.line) + "</code> <code class=\"line\">" +
           html::EscapeCut(e.text, kEvidenceTextBytes) + "</code></li>";
  }
  if (evidence.size() > kEvidencePerSide) {
    out += "<li class=\"more\">" + std::to_string(evidence.size() - kEvidencePerSide) +
           " more lines in the JSON</li>";
  }
  out += "</ul>";
}

void AppendSide(std::string& out, const char* side, const std::optional<std::string>& value,
                const std::vector<Evidence>& evidence) {
  out += std::string("<td class=\"") + side + "\">";
  if (value) {
    out += std::string("<span class=\"value side-") + side + "\">" +
           html::EscapeCut(*value, kValueBytes) + "</span>";
  } else {
    out += "<span class=\"absent\">absent</span>";
  }
  AppendEvidence(out, evidence);
  out += "</td>";
}

std::string Row(const DiffItem& item, const std::string& id) {
  std::string out;
  out += "<tr class=\"diff-item\" id=\"" + id + "\" data-section=\"" + html::Escape(item.section) +
         "\" data-kind=\"" + html::Escape(item.kind) + "\" data-score=\"" + ScoreText(item.score) +
         "\">";
  out += "<td class=\"num score\">" + ScoreText(item.score) + "</td>";
  // The key with its kind and host under it: fewer, wider columns read
  // better than seven narrow ones.
  out += "<td class=\"key\"><code>" + html::EscapeCut(item.key, kKeyBytes) +
         "</code><div class=\"meta\"><span class=\"kind\">" +
         html::EscapeCut(item.kind, kFieldNameBytes) + "</span>";
  if (item.host) {
    out += " on <span class=\"host\">" + html::EscapeCut(*item.host, kHostBytes) + "</span>";
  }
  out += "</div></td>";
  AppendSide(out, "good", item.good, item.good_evidence);
  AppendSide(out, "bad", item.bad, item.bad_evidence);
  out += "<td class=\"summary\"><p>" + html::EscapeCut(item.summary, kSummaryBytes) + "</p>";
  if (!item.fields.empty()) {
    // name=value pairs on one wrapped line, as compact as the JSON's.
    out += "<p class=\"fields mono\">";
    for (size_t i = 0; i < item.fields.size() && i < kFieldsPerItem; ++i) {
      if (i > 0) out += "; ";
      out += html::EscapeCut(item.fields[i].name, kFieldNameBytes) + "=" +
             ValueText(item.fields[i].value);
    }
    if (item.fields.size() > kFieldsPerItem) {
      out +=
          "; " + std::to_string(item.fields.size() - kFieldsPerItem) + " more fields in the JSON";
    }
    out += "</p>";
  }
  out += "</td></tr>\n";
  return out;
}

constexpr const char* kTableHead =
    "<div class=\"scroll\"><table class=\"diff-list\">\n<thead><tr><th>Score</th><th>Key</th>"
    "<th>Good</th><th>Bad</th><th>Summary</th></tr></thead>\n<tbody>\n";
constexpr const char* kTableEnd = "</tbody></table></div>\n";

// One list: heading with its total, rows while `allowance` bytes last, the
// "more" line for what the page or the report left out. Sets `shown`.
std::string List(const DiffReport& report, size_t list, size_t allowance,
                 const std::string& command, size_t& shown) {
  const std::vector<DiffItem>& items = *report.Lists()[list];
  const std::string name = DiffReport::ListNames()[list];
  const int64_t total = ListTotal(report, list, items.size());
  std::string out = "<h3 class=\"list\" id=\"list-" + Slug(name) + "\" data-list=\"" + name +
                    "\" data-total=\"" + std::to_string(total) + "\">" + name +
                    " <span class=\"total\">(" + std::to_string(total) + ")</span></h3>\n";
  shown = 0;
  if (total == 0) return out + "<p class=\"empty\">No difference.</p>\n";
  std::string rows;
  for (size_t k = 0; k < items.size(); ++k) {
    std::string row = Row(items[k], RowId(list, k));
    if (rows.size() + row.size() > allowance) break;
    rows += row;
    ++shown;
  }
  if (shown > 0) out += kTableHead + rows + kTableEnd;
  const int64_t left = total - static_cast<int64_t>(shown);
  if (left > 0) {
    std::string what = name + " items";
    if (total > static_cast<int64_t>(kMaxItemsPerSection)) {
      what += " (the JSON lists the first " + std::to_string(kMaxItemsPerSection) + ")";
    }
    out += html::MoreLine(left, what, command);
  }
  return out;
}

// --- charts --------------------------------------------------------------

// Good vs bad line counts of the top templates of all three kinds; counts
// from the fields section_templates.cc writes ("count" on the side that has
// the template, good_count / bad_count for changed ones).
std::string TemplatesChart(const DiffReport& report) {
  std::vector<const DiffItem*> items;
  for (const auto* list :
       {&report.templates_new, &report.templates_vanished, &report.templates_changed}) {
    for (const DiffItem& item : *list) items.push_back(&item);
  }
  std::stable_sort(items.begin(), items.end(), [](const DiffItem* a, const DiffItem* b) {
    if (a->score != b->score) return a->score > b->score;
    return std::tie(a->key, a->kind) < std::tie(b->key, b->kind);
  });
  std::vector<html::BarRow> rows;
  for (const DiffItem* item : items) {
    if (rows.size() == kTemplateChartRows) break;
    std::optional<double> good, bad;
    if (item->kind == "new") {
      good = 0;
      bad = NumberField(*item, "count");
    } else if (item->kind == "vanished") {
      good = NumberField(*item, "count");
      bad = 0;
    } else {
      good = NumberField(*item, "good_count");
      bad = NumberField(*item, "bad_count");
    }
    if (!good || !bad) continue;
    rows.push_back({item->kind + ": " + CutPlain(item->key, kChartLabelBytes), {*good, *bad}});
  }
  if (rows.empty()) return "";
  return "<figure class=\"chart\">" +
         html::GroupedBars(
             "templates",
             "Lines per template, good vs bad (top " + std::to_string(rows.size()) + " by score)",
             {"good", "bad"}, rows) +
         "</figure>\n";
}

// A small chart per metrics item whose fields carry both sides' numbers:
// step time (median and p90, seconds) and throughput medians.
std::string MetricsCharts(const DiffReport& report) {
  std::string out;
  size_t charts = 0;
  for (const DiffItem& item : report.metrics) {
    if (charts == kMetricCharts) break;
    std::vector<html::BarRow> rows;
    auto pair = [&](const char* label, const char* good, const char* bad) {
      const std::optional<double> g = NumberField(item, good), b = NumberField(item, bad);
      if (g && b) rows.push_back({label, {*g, *b}});
    };
    pair("median step time (s)", "good_median_s", "bad_median_s");
    pair("p90 step time (s)", "good_p90_s", "bad_p90_s");
    pair("median", "good_median", "bad_median");
    if (rows.empty()) continue;
    out +=
        "<figure class=\"chart\">" +
        html::GroupedBars("metric", CutPlain(item.key, kChartLabelBytes) + " (" + item.kind + ")",
                          {"good", "bad"}, rows) +
        "</figure>\n";
    ++charts;
  }
  return out;
}

// --- inputs and warnings ----------------------------------------------------

void AppendBundleRows(std::string& out, const char* side, const std::vector<BundleRow>& bundles) {
  for (size_t i = 0; i < bundles.size() && i < kBundlesListed; ++i) {
    const BundleRow& b = bundles[i];
    out += std::string("<tr><td>") + side + "</td><td>" +
           html::EscapeCut(b.name, kBundleTextBytes) + "</td><td>" + html::EscapeCut(b.format, 60) +
           "</td><td>";
    if (b.status == "complete") {
      out += "complete";
    } else {
      out += StatusBadge(b.status) + " " + html::EscapeCut(b.error, kBundleTextBytes);
    }
    out += "</td><td><code>" + html::EscapeCut(b.path, kBundleTextBytes) + "</code></td></tr>\n";
  }
}

std::string Inputs(const DiffReport& report, const std::string& command) {
  std::string out = html::SectionBegin("diff-inputs", "Inputs");
  out +=
      "<div class=\"scroll\"><table class=\"inputs\">\n<thead><tr><th>Side</th><th>Bundle</th>"
      "<th>Format</th><th>Status</th><th>Path</th></tr></thead>\n<tbody>\n";
  AppendBundleRows(out, "good", report.good_bundles);
  AppendBundleRows(out, "bad", report.bad_bundles);
  out += kTableEnd;
  const size_t left =
      (report.good_bundles.size() - std::min(report.good_bundles.size(), kBundlesListed)) +
      (report.bad_bundles.size() - std::min(report.bad_bundles.size(), kBundlesListed));
  out += html::MoreLine(static_cast<int64_t>(left), "bundles", command);
  return out + html::SectionEnd();
}

std::string Warnings(const DiffReport& report, const std::string& command) {
  if (report.warnings.empty()) return "";
  std::string out = html::SectionBegin("warnings", "Warnings");
  out += "<ul class=\"warnings\">\n";
  for (size_t i = 0; i < report.warnings.size() && i < kWarningsListed; ++i) {
    out += "<li>" + html::EscapeCut(report.warnings[i], kWarningBytes) + "</li>\n";
  }
  out += "</ul>\n";
  if (report.warnings.size() > kWarningsListed) {
    out += html::MoreLine(static_cast<int64_t>(report.warnings.size() - kWarningsListed),
                          "warnings", command);
  }
  return out + html::SectionEnd();
}

}  // namespace

std::string RenderDiffHtml(const DiffReport& report) {
  const std::string command = JsonCommand(report);
  // The item tables' layout (table.diff-list) is in the shared stylesheet.
  const std::string begin =
      html::PageBeginRaw("casefile diff", SideSubtitle("good", report.good_bundles) + " vs " +
                                              SideSubtitle("bad", report.bad_bundles));
  const std::string end = html::PageEnd();
  const std::string filter = html::FilterBar("Filter items", /*severity_toggles=*/false,
                                             /*expand_buttons=*/false);
  const std::string templates_chart = TemplatesChart(report);
  const std::string metrics_charts = MetricsCharts(report);
  const std::string warnings = Warnings(report, command);
  const std::string inputs = Inputs(report, command);

  // What the rows may take: the budget less everything else, measured (the
  // headline at its longest, every list's heading and "more" line bounded).
  size_t fixed = begin.size() + end.size() + templates_chart.size() + metrics_charts.size() +
                 warnings.size() + inputs.size() + Headline(report, nullptr).size() +
                 filter.size() + kSafetyMargin;
  for (const SectionSpec& s : kSections) fixed += 256 + std::string_view(s.heading).size();
  fixed += DiffReport::kListCount * (kPerListOverhead + 2 * command.size());
  size_t rows_budget = fixed < html::kPageBudgetBytes ? html::kPageBudgetBytes - fixed : 0;

  // The rows budget is shared by the lists that have items, in page order; a
  // list that needs less leaves the rest to the lists after it.
  const auto lists = report.Lists();
  size_t waiting = 0;
  for (const auto* l : lists) waiting += l->empty() ? 0 : 1;
  std::vector<size_t> shown(lists.size(), 0);
  std::string body;
  for (const SectionSpec& s : kSections) {
    body += html::SectionBegin(s.id, s.heading);
    if (std::string_view(s.id) == "diff-templates") body += templates_chart;
    if (std::string_view(s.id) == "diff-metrics") body += metrics_charts;
    for (size_t i = s.first_list; i < s.first_list + s.list_count; ++i) {
      const size_t allowance = waiting > 0 ? rows_budget / waiting : 0;
      const std::string list = List(report, i, allowance, command, shown[i]);
      if (!lists[i]->empty()) {
        --waiting;
        const size_t used = list.size();
        rows_budget -= std::min(rows_budget, used);
      }
      body += list;
    }
    body += html::SectionEnd();
  }

  std::string out;
  out.reserve(begin.size() + body.size() + warnings.size() + inputs.size() + end.size() + 4096);
  out += begin;
  out += Headline(report, &shown);
  out += filter;
  out += body;
  out += warnings;
  out += inputs;
  out += end;
  return out;
}

}  // namespace casefile::diff
