// The analysis HTML page: the contract of docs/REPORTS.md (section ids and
// order, classes, data attributes), escaping of everything a hostile bundle
// can put in a report, the headline choice, the size budget with every list
// at its cap and the "N more" lines, determinism and well-formedness basics.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "report/html/html_page.h"
#include "report/report.h"

namespace casefile {
namespace {

size_t Count(const std::string& s, std::string_view what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

// The attribute names of every tag of the page. Text from a bundle is
// escaped, so a raw "<" always starts markup and a raw quote always delimits
// an attribute value: names read outside quotes are the page's own.
std::vector<std::string> AttributeNames(const std::string& page) {
  std::vector<std::string> names;
  size_t i = 0;
  while ((i = page.find('<', i)) != std::string::npos) {
    ++i;
    if (i < page.size() && (page[i] == '/' || page[i] == '!')) continue;
    while (i < page.size() && page[i] != ' ' && page[i] != '>') ++i;  // tag name
    while (i < page.size() && page[i] != '>') {
      if (page[i] == ' ' || page[i] == '\n') {
        ++i;
        continue;
      }
      std::string name;
      while (i < page.size() && page[i] != '=' && page[i] != ' ' && page[i] != '>') {
        name += page[i++];
      }
      names.push_back(name);
      if (i < page.size() && page[i] == '=') {
        ++i;
        if (i < page.size() && page[i] == '"') {
          const size_t close = page.find('"', i + 1);
          if (close == std::string::npos) return names;
          i = close + 1;
        } else {
          while (i < page.size() && page[i] != ' ' && page[i] != '>') ++i;
        }
      }
    }
  }
  return names;
}

bool ValidUtf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (len == 0 || i + len > s.size()) return false;
    for (size_t k = 1; k < len; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    }
    i += len;
  }
  return true;
}

BundleRow Bundle(std::string name, std::string path, std::string status, std::string error = "") {
  BundleRow b;
  b.name = std::move(name);
  b.path = std::move(path);
  b.format = "tar.zst";
  b.status = std::move(status);
  b.error = std::move(error);
  return b;
}

Finding MakeFinding(std::string code, Severity sev, std::string title) {
  Finding f;
  f.code = std::move(code);
  f.analyzer = f.code.substr(0, f.code.find('.'));
  f.severity = sev;
  f.title = std::move(title);
  f.summary = "summary of " + f.code;
  f.recommendation = "do something about " + f.code;
  return f;
}

// A report in which every string a bundle or a plugin controls is hostile.
Report Hostile() {
  const std::string evil =
      "<script>alert(1)</script> <img src=x onerror=alert(2)> \" onload=\"x\" 'q' "
      "http://evil.example/a https://evil.example/b //cdn.example/c.js "
      "<link rel=stylesheet href=http://x> \x1b[31mred\x1b[0m \xff\xfe bad \x01\x02";
  Report r;
  r.bundles.push_back(Bundle("run<1>.tar.zst" + evil, "/data/it's here/run.tar.zst", "partial",
                             "truncated: " + evil));
  r.analyzers.push_back({"hang" + evil, "1", "ran", "", 1});
  r.analyzers.push_back({"plugin", "1", "failed", evil, 0});
  Finding f = MakeFinding("plugin.x" + evil, Severity::kError, "title " + evil);
  f.summary = evil;
  f.recommendation = evil;
  f.culprits.push_back({std::string("host") + evil, std::string("task") + evil, 3});
  for (int i = 0; i < 30; ++i) {
    f.evidence.push_back({"b" + evil, "logs/" + evil + ".log", i + 1, "[rank3]: " + evil});
  }
  r.findings.push_back(f);
  EvidenceContext ctx;
  ctx.before = {{1, evil}, {2, evil}};
  ctx.after = {{4, evil}};
  r.context.evidence = {{ctx, ctx}};
  r.ingest_issues.push_back({"b" + evil, {1, evil, 10, "archive_corrupt", evil}});
  r.ingest_issue_counts["archive_corrupt"] = 1;
  r.warnings.push_back(evil);
  r.context.inventory.bundles.push_back({"inv" + evil, evil, "partial", 10, {{evil, 1, 2, 3}}});
  r.context.inventory.hosts = {"h" + evil};
  r.context.inventory.host_count = 1;
  VersionSpread v;
  v.component = "torch" + evil;
  v.key = true;
  v.values = {{"2.3.0" + evil, {"h1" + evil}, 3, evil, 4}, {evil, {evil}, 1, evil, 5}};
  v.value_count = 2;
  r.context.versions.push_back(v);
  HostTimeline h;
  h.host = "host" + evil;
  h.first_us = 1'796'126'400'000'000;
  h.last_us = h.first_us + 5'000'000;
  h.marks.push_back({h.first_us + 1'000'000, "crash" + evil, evil, evil, 3});
  r.context.timeline.hosts.push_back(h);
  r.context.timeline.host_count = 1;
  r.context.timeline.first_silent = h.host;
  r.context.timeline.start_us = h.first_us;
  r.context.timeline.end_us = h.last_us;
  MetricSeries loss;
  loss.name = "loss";
  loss.host = evil;
  loss.points = {{1, 2.0, false}, {2, NAN, true}};
  loss.mark_step = 2;
  loss.mark_label = evil;
  r.context.loss.push_back(loss);
  r.context.loss_series_count = 1;
  r.context.step_times.push_back({evil, 10, 1, 1, 1, 1, 2, true});
  r.context.latency.endpoints = {evil, "b"};
  r.context.latency.p50_us = {NAN, 5, 7, NAN};
  r.context.environment.command_line = "torchrun " + evil;
  r.context.environment.command_line_path = evil;
  r.context.environment.deepspeed_config = {{evil, evil}};
  r.context.environment.deepspeed_config_path = evil;
  NetworkTrace t;
  t.path = evil;
  t.host = evil;
  t.source = evil;
  t.stats[evil] = 1;
  r.network.traces.push_back(t);
  r.network.trace_count = 1;
  r.network.links.push_back({evil, evil, evil, 1, 2, 3, 4, 5});
  r.network.link_count = 1;
  return r;
}

TEST(RenderHtml, HostileTextNeverAppearsRaw) {
  const std::string page = RenderHtml(Hostile());
  EXPECT_TRUE(ValidUtf8(page));
  EXPECT_EQ(page.find("<script>alert"), std::string::npos);
  EXPECT_EQ(page.find("<img"), std::string::npos);
  EXPECT_EQ(page.find("<link"), std::string::npos);
  EXPECT_EQ(page.find("http://"), std::string::npos);
  EXPECT_EQ(page.find("https://"), std::string::npos);
  EXPECT_EQ(page.find("//"), std::string::npos);
  EXPECT_EQ(page.find('\x1b'), std::string::npos);
  for (char c = 1; c < 0x20; ++c) {
    if (c == '\n' || c == '\t') continue;
    EXPECT_EQ(page.find(c), std::string::npos) << "control byte " << int(c);
  }
  // Exactly one script element: the page's own.
  EXPECT_EQ(Count(page, "<script"), 1u);
  EXPECT_EQ(page.find("src="), std::string::npos);
  EXPECT_EQ(page.find("onerror="), std::string::npos);
  EXPECT_EQ(page.find("onload="), std::string::npos);
  const std::vector<std::string> names = AttributeNames(page);
  EXPECT_GT(names.size(), 100u);
  for (const std::string& name : names) {
    EXPECT_NE(name, "src");
    EXPECT_FALSE(name.starts_with("on")) << name;
  }
  // The only links are to fragments of the page.
  for (size_t at = page.find("href="); at != std::string::npos; at = page.find("href=", at + 1)) {
    EXPECT_EQ(page.substr(at, 7), "href=\"#");
  }
  // The hostile text is there, as text.
  EXPECT_NE(page.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(page.find("https:/&#47;evil.example/b"), std::string::npos);
  // The "more" command quotes the bundle path for a shell.
  EXPECT_NE(page.find("casefile analyze &#39;/data/it&#39;\\&#39;&#39;s here/run.tar.zst&#39; "
                      "--format json"),
            std::string::npos);
}

TEST(RenderHtml, SectionsInContractOrderAndClosed) {
  const std::string page = RenderHtml(Hostile());
  size_t last = 0;
  for (std::string_view id :
       {"headline", "findings", "timeline", "metrics", "step-times", "network", "analyzers",
        "ingest-issues", "inventory", "versions", "environment", "warnings"}) {
    const size_t at = page.find("<section id=\"" + std::string(id) + "\">");
    ASSERT_NE(at, std::string::npos) << id;
    EXPECT_GT(at, last) << id;
    last = at;
  }
  for (std::string_view el : {"section", "article", "figure", "table", "svg", "pre", "ul", "p",
                              "details", "div", "tr", "td", "mark", "code"}) {
    EXPECT_EQ(Count(page, "<" + std::string(el) + ">") + Count(page, "<" + std::string(el) + " "),
              Count(page, "</" + std::string(el) + ">"))
        << el;
  }
  EXPECT_NE(page.find("<svg class=\"chart loss\""), std::string::npos);
  EXPECT_NE(page.find("<svg class=\"chart step-times\""), std::string::npos);
  EXPECT_NE(page.find("<svg class=\"chart heatmap\""), std::string::npos);
  EXPECT_NE(page.find("<svg class=\"chart timeline\""), std::string::npos);
  EXPECT_NE(page.find("<input id=\"filter\" type=\"search\""), std::string::npos);
  EXPECT_NE(page.find("<tr class=\"differs\">"), std::string::npos);
  EXPECT_EQ(Count(page, "<td class=\"minority\">"), 1u);
  EXPECT_NE(page.find("<span class=\"badge partial\""), std::string::npos);
}

TEST(RenderHtml, FindingMarkupAndEvidenceContext) {
  Report r;
  r.bundles.push_back(Bundle("host-0.tar.zst", "/runs/host-0.tar.zst", "complete"));
  Finding f = MakeFinding("comm.nccl_timeout", Severity::kError, "NCCL collective timed out");
  f.culprits.push_back({std::string("host-3"), std::nullopt, 12});
  for (int i = 0; i < 30; ++i) {
    f.evidence.push_back({"host-0.tar.zst", "logs/rank12.log", 100 + i,
                          "[rank12]:[E1201 12:00:0" + std::to_string(i % 10) +
                              " ProcessGroupNCCL.cpp:616] Watchdog caught collective operation "
                              "timeout: WorkNCCL(SeqNum=" +
                              std::to_string(i) + ", OpType=ALLREDUCE)"});
  }
  r.findings.push_back(f);
  EvidenceContext ctx;
  ctx.before = {{98, "before two"}, {99, "before one"}};
  ctx.after = {{101, "after one"}, {102, "after two"}};
  r.context.evidence = {{ctx}};
  const std::string page = RenderHtml(r);
  EXPECT_NE(page.find("<article class=\"finding sev-error\" id=\"finding-1\" "
                      "data-code=\"comm.nccl_timeout\" data-severity=\"error\">"),
            std::string::npos);
  EXPECT_NE(page.find("<ul class=\"culprits\"><li>host-3 rank 12</li></ul>"), std::string::npos);
  // kContextEvidence (5) figures, the first with its surrounding lines in order.
  EXPECT_EQ(Count(page, "<figure class=\"evidence\""), 5u);
  const size_t fig = page.find(
      "<figure class=\"evidence\" data-path=\"logs/rank12.log\" data-line=\"100\"><figcaption>"
      "host-0.tar.zst:logs/rank12.log:100</figcaption><pre>");
  ASSERT_NE(fig, std::string::npos);
  const size_t b2 = page.find("<span class=\"ln\">98</span>before two\n", fig);
  const size_t b1 = page.find("<span class=\"ln\">99</span>before one\n", fig);
  const size_t m = page.find("<mark><span class=\"ln\">100</span>[rank12]:[E1201", fig);
  const size_t a1 = page.find("<span class=\"ln\">101</span>after one\n", fig);
  ASSERT_NE(b2, std::string::npos);
  EXPECT_LT(b2, b1);
  EXPECT_LT(b1, m);
  EXPECT_LT(m, a1);
  // 30 pieces: 5 figures, 20 listed, "5 more" with the JSON command.
  EXPECT_EQ(Count(page, "<li><code>host-0.tar.zst:logs/rank12.log:"), 20u);
  EXPECT_NE(page.find("<p class=\"more\">5 more pieces of evidence: <code>casefile analyze "
                      "/runs/host-0.tar.zst --format json</code></p>"),
            std::string::npos);
  EXPECT_NE(page.find("<p class=\"recommendation\">do something about comm.nccl_timeout</p>"),
            std::string::npos);
}

TEST(RenderHtml, HeadlinePicksFirstErrorOverEarlierWarnings) {
  Report r;
  r.bundles.push_back(Bundle("b", "/b", "complete"));
  r.findings.push_back(MakeFinding("numeric.loss_spike", Severity::kWarning, "Loss spiked"));
  r.findings.push_back(MakeFinding("hang.bad_chip", Severity::kError, "Hang caused by a bad chip"));
  r.findings.back().culprits.push_back({std::string("t1v-n-1-w-5"), std::nullopt, std::nullopt});
  r.findings.push_back(MakeFinding("comm.nccl_timeout", Severity::kError, "NCCL timeout"));
  const std::string page = RenderHtml(r);
  const size_t at = page.find("<p class=\"headline sev-error\">");
  ASSERT_NE(at, std::string::npos);
  const std::string headline = page.substr(at, page.find("</p>", at) - at);
  EXPECT_NE(headline.find("hang.bad_chip: Hang caused by a bad chip \xE2\x80\x94 t1v-n-1-w-5"),
            std::string::npos)
      << headline;
  EXPECT_NE(headline.find("href=\"#finding-2\""), std::string::npos);
  EXPECT_EQ(headline.find("loss_spike"), std::string::npos);
  EXPECT_EQ(headline.find("nccl_timeout"), std::string::npos);
  // Every finding's code once; errors grouped before warnings.
  for (std::string_view code : {"numeric.loss_spike", "hang.bad_chip", "comm.nccl_timeout"}) {
    EXPECT_EQ(Count(page, "data-code=\"" + std::string(code) + "\""), 1u) << code;
  }
  EXPECT_LT(page.find("data-code=\"comm.nccl_timeout\""),
            page.find("data-code=\"numeric.loss_spike\""));
  EXPECT_NE(page.find("<h3 class=\"sev-error\">Errors (2)</h3>"), std::string::npos);
  EXPECT_NE(page.find("<h3 class=\"sev-warning\">Warnings (1)</h3>"), std::string::npos);
}

TEST(RenderHtml, NoFindingsSaysSoAndNamesPartialInput) {
  Report r;
  r.bundles.push_back(
      Bundle("host-1.tar", "/in/host-1.tar", "partial", "archive truncated at byte 5000"));
  r.analyzers.push_back({"hang", "1", "ran", "", 0});
  r.analyzers.push_back({"numeric", "1", "not_applicable", "no metric lines", 0});
  const std::string page = RenderHtml(r);
  EXPECT_NE(page.find("<p class=\"headline\">No findings: 1 analyzer ran and none reported a "
                      "problem. The input is partial (host-1.tar: archive truncated at byte "
                      "5000)"),
            std::string::npos);
  EXPECT_NE(page.find("<section id=\"timeline\">\n<h2>Timeline</h2>\n<p class=\"empty\">"),
            std::string::npos);
  EXPECT_EQ(page.find("<section id=\"warnings\">"), std::string::npos);
  const Report complete = [] {
    Report c;
    c.bundles.push_back(Bundle("ok", "/ok", "complete"));
    return c;
  }();
  EXPECT_EQ(RenderHtml(complete).find("The input is partial"), std::string::npos);
}

TEST(RenderHtml, VersionRowsMarkTheMinority) {
  Report r;
  VersionSpread nccl;
  nccl.component = "nccl";
  nccl.key = true;
  nccl.values = {{"2.21.5", {"host-0", "host-1"}, 63, "hosts/host-0/versions/env.txt", 7},
                 {"2.18.1", {"host-9"}, 1, "hosts/host-9/versions/env.txt", 7}};
  nccl.value_count = 2;
  VersionSpread py;
  py.component = "python";
  py.values = {{"3.11.9", {"host-0"}, 64, "", 0}};
  py.value_count = 1;
  r.context.versions = {nccl, py};
  r.context.version_component_count = 90;
  const std::string page = RenderHtml(r);
  EXPECT_EQ(Count(page, "<tr class=\"differs\">"), 1u);
  const size_t minority = page.find("<td class=\"minority\"><code>2.18.1</code> (1 host: host-9)");
  EXPECT_NE(minority, std::string::npos);
  // The majority cell only counts its hosts; a component all hosts agree on
  // names a couple of them.
  EXPECT_NE(page.find("<td><code>2.21.5</code> (63 hosts)</td>"), std::string::npos);
  EXPECT_NE(page.find("<td><code>3.11.9</code> (64 hosts: host-0, \xE2\x80\xA6)</td>"),
            std::string::npos);
  EXPECT_NE(page.find("hosts/host-9/versions/env.txt:7"), std::string::npos);
  EXPECT_NE(page.find("88 more components: <code>casefile query BUNDLE &quot;SELECT * FROM "
                      "versions ORDER BY component&quot;</code>"),
            std::string::npos);
}

// Every list at its report_context.h cap, with long lines: the page stays
// under the budget and says how many more of each there are.
Report AtCaps() {
  Report r;
  r.bundles.push_back(Bundle("run.tar.zst", "/data/run.tar.zst", "complete"));
  const std::string long_line(4096, 'x');
  // 210 findings (10 over the page's cap of 200); the first ten with 500
  // pieces of evidence, the rest with 40 (past every per-finding cap, and
  // 500 x 4 KiB for all would be 400 MB of test data).
  for (int i = 0; i < 210; ++i) {
    Finding f = MakeFinding("rules.code_" + std::to_string(i),
                            i < 100 ? Severity::kError : Severity::kWarning,
                            "Title " + std::string(500, 't'));
    f.summary = std::string(5000, 's');
    f.recommendation = std::string(5000, 'r');
    for (int c = 0; c < 40; ++c) f.culprits.push_back({"host-" + std::to_string(c), {}, c});
    for (int e = 0; e < (i < 10 ? 500 : 40); ++e) {
      f.evidence.push_back({"run.tar.zst", "hosts/host-1/logs/train.log", e + 1, long_line});
    }
    r.findings.push_back(std::move(f));
    EvidenceContext ctx;
    ctx.before = {{1, long_line}, {2, long_line}};
    ctx.after = {{4, long_line}, {5, long_line}};
    r.context.evidence.push_back(std::vector<EvidenceContext>(kContextEvidence, ctx));
  }
  auto& tl = r.context.timeline;
  tl.start_us = 1'796'126'400'000'000;
  tl.end_us = tl.start_us + 3'600'000'000LL;
  for (size_t h = 0; h < kContextHosts; ++h) {
    HostTimeline ht;
    ht.host = "t1v-n-0123abcd-w-" + std::to_string(h);
    ht.first_us = tl.start_us;
    ht.last_us = tl.end_us - static_cast<int64_t>(h);
    for (size_t m = 0; m < kContextMarksPerHost; ++m) {
      ht.marks.push_back({tl.start_us + static_cast<int64_t>(m) * 100'000'000, "finding",
                          "rules.code_" + std::to_string(m), "hosts/x/logs/train.log", 10});
    }
    ht.mark_count = 100;
    tl.hosts.push_back(ht);
  }
  tl.host_count = 2000;
  tl.first_silent = tl.hosts[0].host;
  for (size_t s = 0; s < kContextSeries; ++s) {
    MetricSeries loss, scale;
    loss.name = "loss";
    scale.name = "loss_scale";
    loss.host = scale.host = "host-" + std::to_string(s);
    loss.rank = scale.rank = static_cast<int64_t>(s);
    for (size_t p = 0; p < kContextPointsPerSeries; ++p) {
      loss.points.push_back({double(p), 3.0 / (1.0 + double(p)) + 0.01 * double(s), false});
      scale.points.push_back({double(p), std::ldexp(1.0, 16 - int(p / 40)), false});
    }
    r.context.loss.push_back(loss);
    r.context.loss_scale.push_back(scale);
  }
  r.context.loss_series_count = 300;
  r.context.loss_scale_series_count = 16;
  for (size_t h = 0; h < kContextHosts; ++h) {
    r.context.step_times.push_back({"t1v-n-0123abcd-w-" + std::to_string(h), 1000, 1.0, 1.1, 1.2,
                                    1.4, 2.0 + double(h) / 10, h < 3});
  }
  r.context.step_time_host_count = 2000;
  for (size_t e = 0; e < kContextEndpoints; ++e) {
    r.context.latency.endpoints.push_back("/job:worker/replica:0/task:" + std::to_string(e));
  }
  for (size_t i = 0; i < kContextEndpoints * kContextEndpoints; ++i) {
    r.context.latency.p50_us.push_back(double(i % 97) * 13.5);
  }
  r.context.latency.endpoint_count = 512;
  for (size_t c = 0; c < kContextVersionRows; ++c) {
    VersionSpread v;
    v.component = "component_" + std::to_string(c);
    for (size_t k = 0; k < kContextVersionValues; ++k) {
      VersionSpreadValue val;
      val.value = "1." + std::to_string(k) + "." + std::string(100, 'v');
      for (size_t h = 0; h < kContextVersionHosts; ++h) {
        val.hosts.push_back("t1v-n-0123abcd-w-" + std::to_string(h));
      }
      val.host_count = 300;
      val.path = "hosts/t1v-n-0123abcd-w-0/versions/pip_freeze.txt";
      val.line = 12;
      v.values.push_back(val);
    }
    v.value_count = 9;
    r.context.versions.push_back(v);
  }
  r.context.version_component_count = 500;
  for (size_t k = 0; k < kContextConfigKeys; ++k) {
    r.context.environment.deepspeed_config.push_back(
        {"zero_optimization.key_" + std::to_string(k), std::string(300, 'c')});
  }
  r.context.environment.deepspeed_config_keys = 120;
  r.context.environment.deepspeed_config_path = "hosts/host-0/ds_config.json";
  r.context.environment.command_line = "deepspeed train.py " + std::string(20000, 'a');
  for (size_t h = 0; h < kContextInventoryHosts; ++h) {
    r.context.inventory.hosts.push_back("t1v-n-0123abcd-w-" + std::to_string(h));
  }
  r.context.inventory.host_count = 2000;
  r.context.inventory.bundles.push_back(
      {"run.tar.zst", "tar.zst", "complete", 1 << 30, {{"log", 2000, 1 << 29, 90000000}}});
  for (const char* kind : {"archive_corrupt", "too_large", "bad_json", "link_skipped"}) {
    for (int i = 0; i < kReportIssuesPerKind; ++i) {
      r.ingest_issues.push_back(
          {"run.tar.zst", {1, "hosts/h/x" + std::to_string(i), i, kind, std::string(2000, 'm')}});
    }
    r.ingest_issue_counts[kind] = 1000;
  }
  for (int w = 0; w < 80; ++w) r.warnings.push_back("warning " + std::string(1000, 'w'));
  for (int t = 0; t < 64; ++t) {
    NetworkTrace nt;
    nt.path = "hosts/h/trace" + std::to_string(t) + ".json";
    nt.stats = {{"step_median_us", 1234.5}, {"comm_share", 0.25}};
    r.network.traces.push_back(nt);
  }
  r.network.trace_count = 64;
  for (int l = 0; l < 20; ++l) {
    r.network.links.push_back({"p", "src" + std::to_string(l), "dst", 10, 1e6, 5, 6, 7});
  }
  r.network.link_count = 400;
  return r;
}

TEST(RenderHtml, StaysUnderBudgetWithEveryListAtItsCap) {
  const Report r = AtCaps();
  const std::string page = RenderHtml(r);
  EXPECT_LT(page.size(), html::kPageBudgetBytes);
  EXPECT_TRUE(page.ends_with("</html>\n"));
  // 210 findings, at most 200 shown: the budget lets all 200 in, later ones
  // shorter.
  EXPECT_EQ(Count(page, "<article class=\"finding"), 200u);
  EXPECT_NE(page.find("<p class=\"more\">10 more findings: <code>casefile analyze "
                      "/data/run.tar.zst --format json</code></p>"),
            std::string::npos);
  EXPECT_EQ(Count(page, "<section"), Count(page, "</section>"));
  // The first finding in full: 500 pieces = 5 figures + 20 listed + 475 more.
  EXPECT_NE(page.find("475 more pieces of evidence"), std::string::npos);
  EXPECT_NE(page.find("20 more culprits"), std::string::npos);
  // Context lists: totals beyond the caps.
  EXPECT_NE(page.find("<p class=\"more\">1936 more hosts: <code>casefile query "
                      "/data/run.tar.zst &quot;SELECT host, min(ts_us)"),
            std::string::npos);
  EXPECT_NE(page.find("284 more loss curves"), std::string::npos);
  EXPECT_EQ(page.find("more loss-scale curves"), std::string::npos);
  EXPECT_NE(page.find("1936 more hosts: <code>casefile query /data/run.tar.zst &quot;SELECT * "
                      "FROM step_times&quot;</code>"),
            std::string::npos);
  EXPECT_NE(page.find("488 more endpoints"), std::string::npos);
  EXPECT_NE(page.find("380 more links"), std::string::npos);
  EXPECT_NE(page.find("44 more traces"), std::string::npos);
  EXPECT_NE(page.find("420 more components"), std::string::npos);
  EXPECT_NE(page.find("40 more keys: <code>casefile show /data/run.tar.zst "
                      "hosts/host-0/ds_config.json</code>"),
            std::string::npos);
  EXPECT_NE(page.find("1800 more hosts"), std::string::npos);
  EXPECT_NE(page.find("980 more too_large issues: <code>casefile query /data/run.tar.zst "
                      "&quot;SELECT * FROM ingest_issues WHERE kind&#61;&#39;too_large&#39;&quot;"
                      "</code>"),
            std::string::npos);
  EXPECT_NE(page.find("30 more warnings"), std::string::npos);
  // Every section of the contract is present, none replaced for size.
  EXPECT_EQ(page.find("Left out: this section"), std::string::npos);
}

TEST(RenderHtml, ManyLongBundlePathsDoNotCrowdOutTheFindings) {
  // 1,000 bundles with 600-byte paths: a "more" command naming them all
  // would be 600 KB, shown in every such line. Past 4 bundles (or 400 bytes)
  // commands say BUNDLE... instead, and every finding still shows.
  Report r = AtCaps();
  r.bundles.clear();
  for (int i = 0; i < 1000; ++i) {
    BundleRow b;
    b.id = i + 1;
    b.name = "bundle_" + std::to_string(i);
    b.path = "/" + std::string(600, 'p') + "/bundle_" + std::to_string(i);
    b.format = "directory";
    b.status = "complete";
    r.bundles.push_back(b);
  }
  const std::string page = RenderHtml(r);
  EXPECT_LT(page.size(), html::kPageBudgetBytes);
  EXPECT_EQ(Count(page, "<article class=\"finding"), 200u);
  EXPECT_NE(page.find("10 more findings: <code>casefile analyze BUNDLE... --format json</code>"),
            std::string::npos);
  EXPECT_EQ(page.find("Left out: this section"), std::string::npos);
}

TEST(RenderHtml, Deterministic) {
  const Report r = AtCaps();
  EXPECT_EQ(RenderHtml(r), RenderHtml(r));
  const Report h = Hostile();
  EXPECT_EQ(RenderHtml(h), RenderHtml(h));
}

TEST(RenderHtml, EmptyReport) {
  const std::string page = RenderHtml(Report{});
  EXPECT_NE(page.find("<h1>casefile report</h1>"), std::string::npos);
  EXPECT_NE(page.find("No findings: 0 analyzers ran"), std::string::npos);
  EXPECT_NE(page.find("<section id=\"findings\">"), std::string::npos);
  EXPECT_EQ(Count(page, "<section"), Count(page, "</section>"));
}

}  // namespace
}  // namespace casefile
