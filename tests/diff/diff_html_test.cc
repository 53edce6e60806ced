// The HTML page of a diff (docs/REPORTS.md): built from DiffReports written
// by hand, so each test states exactly what the page must show. Escaping of
// everything that came from a bundle, the headline items in order, every
// list with its total and a "more" line when cut, the templates and metrics
// charts, no external reference, determinism and the size budget.
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "common/json_writer.h"
#include "diff/diff.h"
#include "report/html/html_page.h"

namespace casefile::test {
namespace {

using diff::DiffField;
using diff::DiffItem;
using diff::DiffReport;

size_t Count(std::string_view hay, std::string_view needle) {
  size_t n = 0;
  for (size_t at = hay.find(needle); at != std::string_view::npos;
       at = hay.find(needle, at + needle.size())) {
    ++n;
  }
  return n;
}

// The text of the element that starts at `open` (its first occurrence) up to
// the next `close`; "" when absent.
std::string Between(const std::string& page, std::string_view open, std::string_view close) {
  const size_t a = page.find(open);
  if (a == std::string::npos) return "";
  const size_t b = page.find(close, a);
  if (b == std::string::npos) return "";
  return page.substr(a, b + close.size() - a);
}

std::string SectionOf(const std::string& page, std::string_view id) {
  return Between(page, "<section id=\"" + std::string(id) + "\">", "</section>");
}

BundleRow Bundle(const std::string& name, const std::string& status = "complete") {
  BundleRow b;
  b.name = name;
  b.path = "/runs/" + name;
  b.format = "tar.zst";
  b.status = status;
  if (status != "complete") b.error = "truncated archive after 812 entries";
  return b;
}

Evidence Ev(const std::string& bundle, const std::string& path, int64_t line,
            const std::string& text) {
  Evidence e;
  e.bundle = bundle;
  e.path = path;
  e.line = line;
  e.text = text;
  return e;
}

DiffItem Item(const std::string& section, const std::string& kind, const std::string& key,
              double score, const std::string& summary) {
  DiffItem item;
  item.section = section;
  item.kind = kind;
  item.key = key;
  item.score = score;
  item.summary = summary;
  return item;
}

// A small report with the lists a real diff of a NCCL failure holds: a new
// finding, a changed version, a new warning template, a slower step time.
DiffReport SmallReport() {
  DiffReport r;
  r.good_inputs = {"good.tar.zst"};
  r.bad_inputs = {"bad run.tar.zst"};
  r.good_bundles = {Bundle("good.tar.zst")};
  r.bad_bundles = {Bundle("bad run.tar.zst")};

  DiffItem finding = Item("findings", "new", "comm.nccl_error", 95,
                          "New in bad: comm.nccl_error: NCCL failed on host-3");
  finding.bad = "error";
  finding.host = "host-3";
  finding.bad_evidence.push_back(
      Ev("bad run.tar.zst", "logs/host-3/train.log", 4211,
         "host-3:1234:1290 [2] NCCL WARN Call to ibv_modify_qp failed with error Connection "
         "timed out"));
  finding.fields.push_back({"severity", std::string("error")});
  finding.fields.push_back({"title", std::string("NCCL failed")});
  r.findings_new.push_back(finding);

  DiffItem version = Item("versions", "changed", "nccl", 80, "nccl 2.18.3 -> 2.19.3 on 4 hosts");
  version.good = "2.18.3";
  version.bad = "2.19.3";
  version.good_evidence.push_back(
      Ev("good.tar.zst", "hosts/host-0/versions/collect_env.txt", 17, "NCCL version 2.18.3"));
  version.bad_evidence.push_back(
      Ev("bad run.tar.zst", "hosts/host-0/versions/collect_env.txt", 17, "NCCL version 2.19.3"));
  r.versions.push_back(version);

  DiffItem tmpl = Item("templates", "new", "NCCL WARN Call to ibv_modify_qp failed with error <*>",
                       65, "New in bad (warning), 40 lines: NCCL WARN Call to ibv_modify_qp ...");
  tmpl.bad = "40";
  tmpl.fields.push_back({"level", std::string("warning")});
  tmpl.fields.push_back({"signatures", int64_t{1}});
  tmpl.fields.push_back({"count", int64_t{40}});
  r.templates_new.push_back(tmpl);

  DiffItem gone = Item("templates", "vanished", "checkpoint saved to <*>", 10,
                       "Only in good, 7 lines: checkpoint saved to /ckpt/step_1000");
  gone.good = "7";
  gone.fields.push_back({"signatures", int64_t{1}});
  gone.fields.push_back({"count", int64_t{7}});
  r.templates_vanished.push_back(gone);

  DiffItem changed = Item("templates", "changed", "[rank<*>]: Watchdog caught collective <*>", 55,
                          "20.0x more frequent in bad (10 -> 200 lines): [rank3]: Watchdog ...");
  changed.good = "10";
  changed.bad = "200";
  changed.fields.push_back({"good_count", int64_t{10}});
  changed.fields.push_back({"bad_count", int64_t{200}});
  changed.fields.push_back({"rate_factor", 20.0});
  r.templates_changed.push_back(changed);

  DiffItem step =
      Item("metrics", "slower", "step_time", 70, "median step time 1.2 s -> 2.5 s (2.08x slower)");
  step.good = "1.2 s";
  step.bad = "2.5 s";
  step.fields.push_back({"good_median_s", 1.2});
  step.fields.push_back({"bad_median_s", 2.5});
  step.fields.push_back({"good_p90_s", 1.4});
  step.fields.push_back({"bad_p90_s", 3.0});
  r.metrics.push_back(step);

  r.headline = {finding, version, step};
  r.totals = {1, 0, 0, 1, 0, 1, 1, 1, 1, 0, 0};
  return r;
}

TEST(DiffHtml, IsOneSelfContainedPage) {
  const std::string page = diff::RenderDiffHtml(SmallReport());
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(page.find("<meta charset=\"utf-8\">"), std::string::npos);
  EXPECT_NE(page.find("<meta http-equiv=\"Content-Security-Policy\""), std::string::npos);
  EXPECT_NE(page.find("<h1>casefile diff</h1>"), std::string::npos);
  EXPECT_EQ(page.size() - page.rfind("</html>\n"), 8u) << "the page ends with </html>";
  // "http-equiv" of the CSP meta is the one "http" the page holds.
  for (const char* external : {"http:", "https:", "src=", "<link", "//", "@import", "url("}) {
    EXPECT_EQ(page.find(external), std::string::npos) << external;
  }
  EXPECT_EQ(Count(page, "<script"), 1u) << "only the page's own inline script";
}

TEST(DiffHtml, SubtitleNamesBothSidesAndBadgesPartialBundles) {
  DiffReport r = SmallReport();
  r.bad_bundles.push_back(Bundle("host-7.tar.zst", "partial"));
  const std::string page = diff::RenderDiffHtml(r);
  const std::string subtitle = Between(page, "<p class=\"subtitle\">", "</p>");
  EXPECT_NE(subtitle.find("good: good.tar.zst"), std::string::npos) << subtitle;
  EXPECT_NE(subtitle.find("bad: bad run.tar.zst, host-7.tar.zst <span class=\"badge "
                          "partial\">PARTIAL</span>"),
            std::string::npos)
      << subtitle;
  EXPECT_LT(subtitle.find("good:"), subtitle.find("bad:"));
  // The inputs table gives the reason.
  const std::string inputs = SectionOf(page, "diff-inputs");
  EXPECT_NE(inputs.find("PARTIAL</span> truncated archive after 812 entries"), std::string::npos)
      << inputs;
}

TEST(DiffHtml, HeadlineItemsInOrderLinkedToTheirRows) {
  const std::string page = diff::RenderDiffHtml(SmallReport());
  const std::string headline = SectionOf(page, "headline");
  ASSERT_FALSE(headline.empty());
  EXPECT_EQ(Count(headline, "<li class=\"headline-item\""), 3u);
  const size_t first = headline.find("New in bad: comm.nccl_error: NCCL failed on host-3");
  const size_t second = headline.find("nccl 2.18.3 -&gt; 2.19.3 on 4 hosts");
  const size_t third = headline.find("median step time 1.2 s -&gt; 2.5 s (2.08x slower)");
  ASSERT_NE(first, std::string::npos) << headline;
  ASSERT_NE(second, std::string::npos) << headline;
  ASSERT_NE(third, std::string::npos) << headline;
  EXPECT_LT(first, second);
  EXPECT_LT(second, third);
  // Each links to the row of its list, which exists.
  for (const char* id : {"item-findings-new-0", "item-versions-0", "item-metrics-0"}) {
    EXPECT_NE(headline.find(std::string("href=\"#") + id + "\""), std::string::npos) << id;
    EXPECT_NE(page.find(std::string("<tr class=\"diff-item\" id=\"") + id + "\""),
              std::string::npos)
        << id;
  }
  // The headline comes before the first section of lists.
  EXPECT_LT(page.find("<section id=\"headline\">"), page.find("<section id=\"diff-findings\">"));
}

TEST(DiffHtml, NoHeadlineSaysSoAndMentionsPartialBundles) {
  DiffReport r = SmallReport();
  r.headline.clear();
  std::string headline = SectionOf(diff::RenderDiffHtml(r), "headline");
  EXPECT_NE(headline.find("<p class=\"headline\">No difference worth a headline: no difference "
                          "scores 50 or more."),
            std::string::npos)
      << headline;
  EXPECT_EQ(headline.find("headline-item"), std::string::npos);
  EXPECT_EQ(headline.find("partial"), std::string::npos);

  r.good_bundles[0].status = "partial";
  headline = SectionOf(diff::RenderDiffHtml(r), "headline");
  EXPECT_NE(headline.find("some bundles are partial"), std::string::npos) << headline;
}

TEST(DiffHtml, EveryListHasItsSectionHeadingAndTotal) {
  DiffReport r = SmallReport();
  r.totals = {1, 0, 0, 1, 0, 1, 1, 1, 1, 0, 0};
  const std::string page = diff::RenderDiffHtml(r);
  // Sections in the documented order.
  size_t last = 0;
  for (const char* id : {"headline", "diff-findings", "diff-versions", "diff-configs",
                         "diff-templates", "diff-metrics", "diff-hlo", "diff-traces"}) {
    const std::string open = std::string("<section id=\"") + id + "\">";
    ASSERT_EQ(Count(page, open), 1u) << id;
    EXPECT_GT(page.find(open), last) << id;
    last = page.find(open);
  }
  // Each list inside its section, with its name and total.
  struct Expect {
    const char* section;
    const char* list;
    int total;
  };
  for (const Expect& e : std::vector<Expect>{{"diff-findings", "findings.new", 1},
                                             {"diff-findings", "findings.resolved", 0},
                                             {"diff-findings", "findings.persisting", 0},
                                             {"diff-versions", "versions", 1},
                                             {"diff-configs", "configs", 0},
                                             {"diff-templates", "templates.new", 1},
                                             {"diff-templates", "templates.vanished", 1},
                                             {"diff-templates", "templates.changed", 1},
                                             {"diff-metrics", "metrics", 1},
                                             {"diff-hlo", "hlo", 0},
                                             {"diff-traces", "traces", 0}}) {
    const std::string section = SectionOf(page, e.section);
    const std::string heading = std::string("data-list=\"") + e.list + "\" data-total=\"" +
                                std::to_string(e.total) + "\">" + e.list +
                                " <span class=\"total\">(" + std::to_string(e.total) + ")</span>";
    EXPECT_NE(section.find(heading), std::string::npos) << e.list << "\n" << section;
  }
  // An empty list says so; no list here was cut.
  EXPECT_NE(SectionOf(page, "diff-hlo").find("<p class=\"empty\">"), std::string::npos);
  EXPECT_EQ(page.find("class=\"more\""), std::string::npos);
}

TEST(DiffHtml, RowsCarryKeyHostBothSidesSummaryFieldsAndEvidence) {
  const std::string page = diff::RenderDiffHtml(SmallReport());
  const std::string row =
      Between(page, "<tr class=\"diff-item\" id=\"item-findings-new-0\"", "</tr>");
  ASSERT_FALSE(row.empty());
  EXPECT_NE(row.find("data-section=\"findings\" data-kind=\"new\""), std::string::npos) << row;
  EXPECT_NE(row.find("<code>comm.nccl_error</code>"), std::string::npos) << row;
  EXPECT_NE(row.find("<span class=\"kind\">new</span> on <span class=\"host\">host-3</span>"),
            std::string::npos)
      << row;
  EXPECT_NE(row.find(">95</td>"), std::string::npos) << row;
  // Absent on good, "error" on bad with its line.
  EXPECT_NE(row.find("<span class=\"absent\">absent</span>"), std::string::npos) << row;
  EXPECT_NE(row.find(">error</span>"), std::string::npos) << row;
  EXPECT_NE(row.find("bad run.tar.zst:logs/host-3/train.log:4211"), std::string::npos) << row;
  EXPECT_NE(row.find("host-3:1234:1290 [2] NCCL WARN Call to ibv_modify_qp failed"),
            std::string::npos)
      << row;
  EXPECT_NE(row.find("title=NCCL failed"), std::string::npos) << row;
  EXPECT_NE(row.find("severity=error"), std::string::npos) << row;
  // The good side's cell comes before the bad side's.
  const std::string version = Between(page, "id=\"item-versions-0\"", "</tr>");
  EXPECT_LT(version.find("2.18.3"), version.find("2.19.3"));
  EXPECT_LT(version.find("good.tar.zst:hosts/host-0/versions/collect_env.txt:17"),
            version.find("bad run.tar.zst:hosts/host-0/versions/collect_env.txt:17"));
}

TEST(DiffHtml, CutListsSayHowManyMoreAndTheJsonCommand) {
  DiffReport r = SmallReport();
  r.totals[5] = 151;  // templates.new: 151 found, 1 kept here
  r.totals[3] = 4;    // versions: 4 found, 1 kept
  r.good_inputs = {"runs/good", "it's.tar"};
  const std::string page = diff::RenderDiffHtml(r);
  const std::string command =
      "<code>casefile diff runs/good &#39;it&#39;\\&#39;&#39;s.tar&#39; -- &#39;bad "
      "run.tar.zst&#39; --format json</code>";
  EXPECT_NE(SectionOf(page, "diff-templates")
                .find("<p class=\"more\">150 more templates.new items (the JSON lists the first "
                      "100): " +
                      command + "</p>"),
            std::string::npos)
      << SectionOf(page, "diff-templates");
  EXPECT_NE(SectionOf(page, "diff-versions")
                .find("<p class=\"more\">3 more versions items: " + command + "</p>"),
            std::string::npos)
      << SectionOf(page, "diff-versions");
  EXPECT_EQ(Count(page, "<p class=\"more\">"), 2u);
}

TEST(DiffHtml, WithoutInputsTheCommandNamesTheBundlePaths) {
  DiffReport r = SmallReport();
  r.good_inputs.clear();
  r.bad_inputs.clear();
  r.totals[3] = 2;
  const std::string page = diff::RenderDiffHtml(r);
  EXPECT_NE(page.find("<code>casefile diff /runs/good.tar.zst -- &#39;/runs/bad "
                      "run.tar.zst&#39; --format json</code>"),
            std::string::npos);
}

TEST(DiffHtml, TemplatesChartShowsGoodAndBadCountsOfTheTopTemplates) {
  const std::string page = diff::RenderDiffHtml(SmallReport());
  const std::string section = SectionOf(page, "diff-templates");
  ASSERT_EQ(Count(section, "<svg class=\"chart templates\""), 1u) << section;
  // Rows by score: the new warning (65), the changed watchdog (55), the
  // vanished checkpoint line (10); values good then bad.
  const size_t fresh = section.find("<title>new: NCCL WARN Call to ibv_modify_qp");
  const size_t changed = section.find("<title>changed: [rank&lt;*&gt;]: Watchdog caught");
  const size_t vanished = section.find("<title>vanished: checkpoint saved to &lt;*&gt;");
  ASSERT_NE(fresh, std::string::npos) << section;
  ASSERT_NE(changed, std::string::npos) << section;
  ASSERT_NE(vanished, std::string::npos) << section;
  EXPECT_LT(fresh, changed);
  EXPECT_LT(changed, vanished);
  EXPECT_NE(section.find("\ngood: 0\nbad: 40</title>", fresh), std::string::npos);
  EXPECT_NE(section.find("\ngood: 10\nbad: 200</title>", changed), std::string::npos);
  EXPECT_NE(section.find("\ngood: 7\nbad: 0</title>", vanished), std::string::npos);
  // The chart comes before the lists it summarises.
  EXPECT_LT(section.find("<svg"), section.find("data-list=\"templates.new\""));
}

TEST(DiffHtml, NoTemplateItemsNoChart) {
  DiffReport r = SmallReport();
  r.templates_new.clear();
  r.templates_vanished.clear();
  r.templates_changed.clear();
  r.totals[5] = r.totals[6] = r.totals[7] = 0;
  const std::string page = diff::RenderDiffHtml(r);
  EXPECT_EQ(page.find("chart templates"), std::string::npos);
}

TEST(DiffHtml, StepTimeItemGetsAChartOfMedianAndP90) {
  const std::string section = SectionOf(diff::RenderDiffHtml(SmallReport()), "diff-metrics");
  ASSERT_EQ(Count(section, "<svg class=\"chart metric\""), 1u) << section;
  EXPECT_NE(section.find("<title>median step time (s)\ngood: 1.2\nbad: 2.5</title>"),
            std::string::npos)
      << section;
  EXPECT_NE(section.find("<title>p90 step time (s)\ngood: 1.4\nbad: 3</title>"), std::string::npos)
      << section;
}

TEST(DiffHtml, MetricWithoutNumbersGetsNoChart) {
  DiffReport r = SmallReport();
  DiffItem loss = Item("metrics", "diverged", "loss", 75,
                       "loss diverges from step 120: 2.31 in good vs 2.9 in bad");
  loss.fields.push_back({"first_divergence_step", int64_t{120}});
  loss.fields.push_back({"median_relative_change", 0.25});
  r.metrics = {loss};
  const std::string section = SectionOf(diff::RenderDiffHtml(r), "diff-metrics");
  EXPECT_EQ(section.find("<svg"), std::string::npos);
  EXPECT_NE(section.find("median_relative_change=0.25"), std::string::npos) << section;
}

TEST(DiffHtml, EverythingFromTheBundlesIsEscaped) {
  DiffReport r = SmallReport();
  r.bad_bundles[0].name = "<b>bad</b>.tar";
  DiffItem t = Item("templates", "new", "<script>alert(1)</script> <*>", 85,
                    "New in bad (error): <img src=x onerror=alert(2)>");
  t.host = "host\"><script>";
  t.fields.push_back({"level", std::string("error\" onclick=\"x")});
  t.fields.push_back({"count", int64_t{3}});
  t.bad_evidence.push_back(Ev("b.tar", "logs/<i>.log", 9,
                              "bad \xff\xfe bytes \x1b[31mred\x1b[0m \xc2\x9b"
                              "2J it's \"quoted\" & <tag>"));
  r.templates_new = {t};
  DiffItem c = Item("configs", "changed", "zero_optimization.stage", 60, "stage 2 -> 3");
  c.good = "<iframe>";
  c.bad = "'single' & \"double\"";
  r.configs = {c};
  r.totals[4] = 1;
  DiffItem odd = Item("x\" onmouseover=\"alert(3)", "k'ind", "key", 1, "summary");
  r.hlo = {odd};
  r.totals[9] = 1;
  r.warnings = {"section traces failed: <svg onload=alert(4)>"};
  r.headline = {t};

  const std::string page = diff::RenderDiffHtml(r);
  for (const char* raw : {"<script>alert", "<img", "<iframe", "<b>bad", "<i>.log", "<tag>",
                          "<svg onload", "\" onclick=", "\" onmouseover=", "'single'", "\"double\"",
                          "\x1b", "\xc2\x9b", "src=", "onerror="}) {
    EXPECT_EQ(page.find(raw), std::string::npos) << raw;
  }
  EXPECT_NE(page.find("<code>&lt;script&gt;alert(1)&lt;/script&gt; &lt;*&gt;</code>"),
            std::string::npos);
  EXPECT_NE(page.find("&lt;iframe&gt;"), std::string::npos);
  EXPECT_NE(page.find("&#39;single&#39; &amp; &quot;double&quot;"), std::string::npos);
  EXPECT_NE(page.find("&lt;b&gt;bad&lt;/b&gt;.tar"), std::string::npos);
  EXPECT_NE(page.find("data-section=\"x&quot; onmouseover&#61;&quot;alert(3)\""),
            std::string::npos);
  // Invalid bytes and control characters are replaced, so the page is valid
  // UTF-8 throughout.
  EXPECT_NE(page.find("bad \xef\xbf\xbd\xef\xbf\xbd bytes"), std::string::npos);
  EXPECT_EQ(SanitizeUtf8(page), page);
  EXPECT_EQ(Count(page, "<script"), 1u);
  EXPECT_NE(
      SectionOf(page, "warnings").find("section traces failed: &lt;svg onload&#61;alert(4)&gt;"),
      std::string::npos);
}

TEST(DiffHtml, UrlsInLogLinesAreTextNotReferences) {
  DiffReport r = SmallReport();
  r.findings_new[0].bad_evidence.push_back(
      Ev("bad.tar", "logs/a.log", 3,
         "fetching https://example.invalid/x.js <script src=\"//cdn.invalid/a.js\"></script>"));
  const std::string page = diff::RenderDiffHtml(r);
  EXPECT_EQ(page.find("//"), std::string::npos);
  EXPECT_EQ(page.find("<script src"), std::string::npos);
  EXPECT_EQ(page.find("src="), std::string::npos);
  EXPECT_EQ(Count(page, "<script"), 1u);
}

TEST(DiffHtml, WarningsSectionOnlyWhenThereAreWarnings) {
  DiffReport r = SmallReport();
  EXPECT_EQ(diff::RenderDiffHtml(r).find("<section id=\"warnings\">"), std::string::npos);
  r.warnings = {"section hlo failed: no such table: hlo_modules", "second warning"};
  const std::string warnings = SectionOf(diff::RenderDiffHtml(r), "warnings");
  EXPECT_NE(warnings.find("<li>section hlo failed: no such table: hlo_modules</li>"),
            std::string::npos)
      << warnings;
  EXPECT_NE(warnings.find("<li>second warning</li>"), std::string::npos);
}

TEST(DiffHtml, OutputIsDeterministic) {
  EXPECT_EQ(diff::RenderDiffHtml(SmallReport()), diff::RenderDiffHtml(SmallReport()));
}

std::string Long(const std::string& unit, size_t bytes) {
  std::string s;
  while (s.size() < bytes) s += unit;
  return s;
}

// Every list at kMaxItemsPerSection items, each as large as a bundle can
// make it: the page stays under the budget, every list still shows rows,
// and every list that could not show all says how many more.
TEST(DiffHtml, StaysUnderTheBudgetWithEveryListFullOfLongValues) {
  DiffReport r;
  for (int i = 0; i < 300; ++i) {
    r.good_inputs.push_back("/data/good/" + Long("g", 200) + std::to_string(i));
    r.good_bundles.push_back(Bundle(Long("<g>", 400) + std::to_string(i), "partial"));
    r.bad_bundles.push_back(Bundle(Long("\"b\"", 400) + std::to_string(i)));
  }
  r.bad_inputs = {"bad"};
  auto lists = r.Lists();
  for (size_t l = 0; l < lists.size(); ++l) {
    for (size_t k = 0; k < diff::kMaxItemsPerSection; ++k) {
      // Each text several times longer than the page shows of it.
      DiffItem item = Item("templates", "new", Long("<key>", 2000) + std::to_string(k), 99,
                           Long("<summary & 'quotes'>", 2000));
      item.host = Long("<host>", 1000);
      item.good = Long("\"good\"", 1000);
      item.bad = Long("\"bad\"", 1000);
      for (int e = 0; e < 5; ++e) {
        item.good_evidence.push_back(Ev(Long("<b>", 300), Long("<p>", 1000), e, Long("<t>", 2000)));
        item.bad_evidence.push_back(Ev(Long("<b>", 300), Long("<p>", 1000), e, Long("<t>", 2000)));
      }
      for (int f = 0; f < 20; ++f) {
        item.fields.push_back({Long("<n>", 300), Long("<v>", 1000)});
      }
      item.fields.push_back({"count", int64_t{1000000}});
      lists[l]->push_back(item);
    }
    r.totals.push_back(5000);
  }
  r.headline = {r.findings_new[0], r.versions[0], r.configs[0]};
  for (int i = 0; i < 5000; ++i) r.warnings.push_back(Long("<warning>", 5000));

  const std::string page = diff::RenderDiffHtml(r);
  EXPECT_LT(page.size(), html::kPageBudgetBytes);
  EXPECT_EQ(page.size() - page.rfind("</html>\n"), 8u);
  EXPECT_EQ(SanitizeUtf8(page), page);
  for (size_t l = 0; l < DiffReport::kListCount; ++l) {
    const std::string name = DiffReport::ListNames()[l];
    std::string slug = name;
    for (char& c : slug) c = c == '.' ? '-' : c;
    EXPECT_NE(page.find("id=\"item-" + slug + "-0\""), std::string::npos) << name;
    EXPECT_NE(page.find("more " + name + " items"), std::string::npos) << name;
  }
  EXPECT_NE(SectionOf(page, "warnings").find("<p class=\"more\">4900 more warnings"),
            std::string::npos);
}

// A full diff of ordinary size (every list at its cap, items as the
// sections write them) fits whole: the budget cuts only pathological pages.
TEST(DiffHtml, AnOrdinaryFullReportShowsEveryKeptItem) {
  DiffReport r = SmallReport();
  auto lists = r.Lists();
  r.totals.clear();
  for (size_t l = 0; l < lists.size(); ++l) {
    lists[l]->clear();
    for (size_t k = 0; k < diff::kMaxItemsPerSection; ++k) {
      DiffItem item = Item("templates", "new",
                           "[rank<*>]: NCCL WARN NET/IB : Got completion with error <*>, opcode "
                           "<*>, len <*>, vendor err <*> " +
                               std::to_string(k),
                           40,
                           "New in bad (warning), 12 lines: [rank3]: NCCL WARN NET/IB : Got "
                           "completion with error 12, opcode 0, len 0, vendor err 129");
      item.host = "host-" + std::to_string(k);
      item.bad = "12";
      item.bad_evidence.push_back(Ev("bad.tar.zst", "logs/host-3/rank3/stderr.log", 1000 + k,
                                     "[rank3]: host-3:8812:9011 [3] NCCL WARN NET/IB : Got "
                                     "completion from peer 10.1.2.3<33012> with error 12"));
      item.fields.push_back({"level", std::string("warning")});
      item.fields.push_back({"signatures", int64_t{2}});
      item.fields.push_back({"count", int64_t{12}});
      lists[l]->push_back(item);
    }
    r.totals.push_back(static_cast<int64_t>(diff::kMaxItemsPerSection));
  }
  const std::string page = diff::RenderDiffHtml(r);
  EXPECT_LT(page.size(), html::kPageBudgetBytes);
  EXPECT_EQ(Count(page, "<tr class=\"diff-item\""),
            DiffReport::kListCount * diff::kMaxItemsPerSection);
  EXPECT_EQ(page.find("<p class=\"more\">"), std::string::npos);
}

}  // namespace
}  // namespace casefile::test
