// The markdown report (RenderMarkdown): what an issue tracker shows when the
// report is pasted. Reports are built by hand (the renderer reads only the
// Report), log lines are synthetic, written from the formats of
// ../shared/reference/formats.md. The safety tests read the markdown the way
// a CommonMark renderer does (fences, code spans, backslash escapes) and
// check what is left outside code: that is what GitHub would turn into
// HTML, mentions and links.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/version.h"
#include "report/markdown/markdown_text.h"
#include "report/report.h"
#include "support/markdown_prose.h"

namespace casefile {
namespace {

// The markdown reader of the safety tests (tests/support/markdown_prose.h).
using test::AnyFenceHasLine;
using test::CodePoints;
using test::ExpectFencesClosed;
using test::ExpectNoMentionOrLink;
using test::FencedBlock;
using test::ParsedMarkdown;
using test::ParseMarkdown;
using test::SplitLines;
using test::UnescapedPipes;

// The prose may hold only the report's own tags (its folded sections).
void ExpectNoForeignHtmlInReport(const std::string& prose) {
  test::ExpectNoForeignHtml(prose, {"<details>", "</details>", "<summary>", "</summary>"});
}

// --- reports built by hand ---

BundleRow Bundle(const std::string& name, const std::string& status = "complete",
                 const std::string& error = "") {
  BundleRow b;
  b.id = 1;
  b.name = name;
  b.path = "/data/runs/" + name;
  b.format = "tar.zst";
  b.status = status;
  b.error = error;
  b.entries = 40;
  b.bytes = 1 << 20;
  return b;
}

Finding MakeFinding(const std::string& code, Severity s, const std::string& title) {
  Finding f;
  f.code = code;
  f.analyzer = code.substr(0, code.find('.'));
  f.severity = s;
  f.title = title;
  f.summary = "Synthetic summary of " + code + ".";
  f.recommendation = "Synthetic recommendation for " + code + ".";
  return f;
}

Evidence Ev(const std::string& path, int64_t line, const std::string& text,
            const std::string& bundle = "run-17.tar.zst") {
  return {bundle, path, line, text};
}

// One bundle, one hang finding (with the lines around its evidence), a
// warning, analyzers in every state, an ingest issue.
Report Sample() {
  Report r;
  r.bundles.push_back(Bundle("run-17.tar.zst"));
  r.analyzers.push_back({"hang", "1", "ran", "", 1});
  r.analyzers.push_back({"numeric", "1", "not_applicable", "no metric lines in the bundle", 0});
  r.analyzers.push_back({"site-check", "3", "failed", "plugin returned status 7", 0});
  r.analyzers.push_back({"runtime", "1", "ran", "", 1});

  Finding hang = MakeFinding("hang.bad_chip", Severity::kError, "Hang caused by a bad TPU chip");
  hang.culprits.push_back({std::string("t1v-n-4c1d-w-5"), std::string("worker/5"), 5});
  hang.evidence.push_back(
      Ev("logs/coordinator.log", 212,
         "E0417 09:12:33.118204  4711 coordinator.cc:88] Potential cause: Bad TPU chips"));
  r.findings.push_back(hang);
  Finding oom = MakeFinding("runtime.oom_killed", Severity::kWarning, "A process was OOM-killed");
  oom.evidence.push_back(
      Ev("sysinfo/dmesg.txt", 9, "[81234.551201] Out of memory: Killed process 30211 (python3)"));
  r.findings.push_back(oom);

  EvidenceContext ctx;
  ctx.before = {{210, "I0417 09:12:33.118101  4711 coordinator.cc:80] Megascale detects a hang"},
                {211, "I0417 09:12:33.118150  4711 coordinator.cc:84] Full error digest:"}};
  ctx.after = {{213, "I0417 09:12:33.118250  4711 coordinator.cc:91] Potential culprit workers:"}};
  r.context.evidence = {{ctx}, {}};

  r.ingest_issues.push_back(
      {"run-17.tar.zst", {1, "logs/worker-3.log", 81920, "line_too_long", "line over 1 MiB"}});
  r.ingest_issue_counts["line_too_long"] = 1;
  return r;
}

VersionSpreadValue Value(const std::string& value, std::vector<std::string> hosts,
                         int64_t host_count) {
  VersionSpreadValue v;
  v.value = value;
  v.hosts = std::move(hosts);
  v.host_count = host_count;
  v.path = "hosts/x/versions/pip_list.txt";
  v.line = 3;
  return v;
}

VersionSpread Spread(const std::string& component, bool key,
                     std::vector<VersionSpreadValue> values) {
  VersionSpread s;
  s.component = component;
  s.key = key;
  s.value_count = static_cast<int64_t>(values.size());
  s.values = std::move(values);
  return s;
}

std::vector<std::string> Hosts(int from, int to) {
  std::vector<std::string> out;
  for (int i = from; i < to; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "node-%02d", i);
    out.push_back(name);
  }
  return out;
}

// --- shape ---

TEST(RenderMarkdown, HeadingBundlesAndFindingLines) {
  const std::string md = RenderMarkdown(Sample());
  EXPECT_EQ(md.rfind(std::string("## casefile report (casefile ") + kVersionString + ")\n", 0), 0u)
      << md;
  EXPECT_NE(md.find("**Bundles:** `run-17.tar.zst` (tar.zst, complete)"), std::string::npos);
  EXPECT_NE(md.find("### Findings (2)\n\n1 error, 1 warning.\n"), std::string::npos) << md;
  EXPECT_NE(md.find("\n**[error] `hang.bad_chip`** Hang caused by a bad TPU chip\n"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("\n- host `t1v-n-4c1d-w-5`, task `worker/5`, rank 5\n"), std::string::npos);
  EXPECT_NE(md.find("**Recommendation:** Synthetic recommendation for hang.bad\\_chip.\n"),
            std::string::npos)
      << md;
  // The second finding is shown in full too (well under the full-form cap).
  EXPECT_NE(md.find("\n**[warning] `runtime.oom_killed`** A process was OOM-killed\n"),
            std::string::npos)
      << md;
}

TEST(RenderMarkdown, EvidenceWithContextMarksTheMatchedLine) {
  const std::string md = RenderMarkdown(Sample());
  const ParsedMarkdown p = ParseMarkdown(md);
  // Caption above the block: path:line (one bundle: no bundle prefix).
  EXPECT_NE(md.find("\n`logs/coordinator.log:212`\n\n```text\n"), std::string::npos) << md;
  EXPECT_TRUE(AnyFenceHasLine(
      p, "  210 | I0417 09:12:33.118101  4711 coordinator.cc:80] Megascale detects a hang"));
  EXPECT_TRUE(AnyFenceHasLine(
      p, "> 212 | E0417 09:12:33.118204  4711 coordinator.cc:88] Potential cause: Bad TPU chips"));
  EXPECT_TRUE(AnyFenceHasLine(
      p, "  213 | I0417 09:12:33.118250  4711 coordinator.cc:91] Potential culprit workers:"));
  // No context for the second finding: its line alone, still marked.
  EXPECT_TRUE(
      AnyFenceHasLine(p, "> 9 | [81234.551201] Out of memory: Killed process 30211 (python3)"));
  ExpectFencesClosed(p);
}

TEST(RenderMarkdown, GutterWidthFollowsTheWidestLineNumber) {
  Report r = Sample();
  EvidenceContext ctx;
  ctx.before = {{98, "[rank3]:[W417 09:12:31.000000001 ProcessGroupNCCL.cpp:1200] slow"},
                {99, "[rank3]:[W417 09:12:32.000000001 ProcessGroupNCCL.cpp:1200] slower"}};
  ctx.after = {{101, "[rank3]:[E417 09:12:34.000000001 ProcessGroupNCCL.cpp:1709] done"}};
  r.findings[0].evidence[0].line = 100;
  r.findings[0].evidence[0].text = "[rank3]:[E417 09:12:33.000000001 ProcessGroupNCCL.cpp:1709] x";
  r.context.evidence[0] = {ctx};
  const ParsedMarkdown p = ParseMarkdown(RenderMarkdown(r));
  EXPECT_TRUE(AnyFenceHasLine(
      p, "   98 | [rank3]:[W417 09:12:31.000000001 ProcessGroupNCCL.cpp:1200] slow"));
  EXPECT_TRUE(
      AnyFenceHasLine(p, "> 100 | [rank3]:[E417 09:12:33.000000001 ProcessGroupNCCL.cpp:1709] x"));
}

TEST(RenderMarkdown, SeveralBundlesPutTheBundleInTheCaption) {
  Report r = Sample();
  r.bundles.push_back(Bundle("run-18.tar.zst"));
  r.findings[0].evidence[0].bundle = "run-18.tar.zst";
  const std::string md = RenderMarkdown(r);
  EXPECT_NE(md.find("\n`run-18.tar.zst:logs/coordinator.log:212`\n"), std::string::npos) << md;
  EXPECT_NE(md.find("`run-17.tar.zst` (tar.zst, complete); `run-18.tar.zst` (tar.zst, complete)"),
            std::string::npos);
}

TEST(RenderMarkdown, EvidenceBeyondFiveIsFoldedThenCounted) {
  Report r = Sample();
  Finding& f = r.findings[0];
  f.evidence.clear();
  for (int i = 1; i <= 31; ++i) {
    f.evidence.push_back(Ev("logs/worker-" + std::to_string(i) + ".log", 40 + i,
                            "node-" + std::to_string(i) +
                                ":20417:20519 [0] NCCL INFO comm 0x55d0 rank " + std::to_string(i) +
                                " nranks 32 cudaDev 0 - Init COMPLETE"));
  }
  const std::string md = RenderMarkdown(r);
  const ParsedMarkdown p = ParseMarkdown(md);
  // The first five in their own blocks, marked.
  for (int i = 1; i <= 5; ++i) {
    EXPECT_NE(
        md.find("\n`logs/worker-" + std::to_string(i) + ".log:" + std::to_string(40 + i) + "`\n"),
        std::string::npos)
        << i;
  }
  // 26 more: 20 folded in one block, 6 counted with the command.
  EXPECT_NE(md.find("<details><summary>26 more evidence lines</summary>"), std::string::npos);
  EXPECT_TRUE(AnyFenceHasLine(p,
                              "logs/worker-6.log:46: node-6:20417:20519 [0] NCCL INFO comm 0x55d0 "
                              "rank 6 nranks 32 cudaDev 0 - Init COMPLETE"));
  EXPECT_TRUE(AnyFenceHasLine(p,
                              "logs/worker-25.log:65: node-25:20417:20519 [0] NCCL INFO comm "
                              "0x55d0 rank 25 nranks 32 cudaDev 0 - Init COMPLETE"));
  EXPECT_EQ(md.find("logs/worker-26.log"), std::string::npos);
  EXPECT_NE(md.find("6 more: `casefile analyze /data/runs/run-17.tar.zst --format json`"),
            std::string::npos)
      << md;
}

// --- headline ---

TEST(RenderMarkdown, HeadlineIsTheFirstFindingOfTheHighestSeverity) {
  Report r;
  r.bundles.push_back(Bundle("run-17.tar.zst"));
  Finding warn = MakeFinding("comm.slow_link", Severity::kWarning, "A slow link");
  warn.evidence.push_back(Ev("traces/a.json", 1, "{}"));
  Finding first = MakeFinding("comm.nccl_timeout", Severity::kError, "A collective timed out");
  first.culprits = {{std::string("node-03"), std::nullopt, 3},
                    {std::string("node-04"), std::nullopt, 4},
                    {std::string("node-05"), std::nullopt, 5},
                    {std::string("node-06"), std::nullopt, 6}};
  first.evidence.push_back(Ev("logs/rank3.log", 7, "[rank3]:[E417 ...] Watchdog caught ..."));
  Finding second = MakeFinding("runtime.crash", Severity::kError, "A worker crashed");
  second.evidence.push_back(Ev("logs/rank4.log", 2, "Segmentation fault"));
  r.findings = {warn, first, second};  // not in severity order: the choice must not rely on it
  const std::string md = RenderMarkdown(r);
  EXPECT_NE(md.find("\n**`comm.nccl_timeout`: A collective timed out — host `node-03`, rank 3; "
                    "host `node-04`, rank 4; host `node-05`, rank 5; 1 more**\n"),
            std::string::npos)
      << md;
  // One headline line only.
  EXPECT_EQ(md.find("**`runtime.crash`"), std::string::npos);
}

TEST(RenderMarkdown, HeadlineWithoutFindingsSaysWhetherInputWasPartial) {
  Report r;
  r.bundles.push_back(Bundle("run-17.tar.zst"));
  r.analyzers.push_back({"hang", "1", "ran", "", 0});
  const std::string complete = RenderMarkdown(r);
  EXPECT_NE(complete.find("\n**No findings: the analyzers that ran found nothing to report.**\n"),
            std::string::npos)
      << complete;
  EXPECT_EQ(complete.find("### Findings"), std::string::npos);
  EXPECT_NE(complete.find("Every bundle was read completely; no ingest issues."),
            std::string::npos);

  r.bundles[0] = Bundle("run-17.tar.zst", "partial", "archive truncated after entry 31");
  const std::string partial = RenderMarkdown(r);
  EXPECT_NE(partial.find("**No findings: the analyzers that ran found nothing to report. Some "
                         "input was read only in part"),
            std::string::npos)
      << partial;
  EXPECT_NE(partial.find("(tar.zst, **PARTIAL**: archive truncated after entry 31)"),
            std::string::npos);
  EXPECT_NE(partial.find("- `run-17.tar.zst` is **partial**: archive truncated after entry 31"),
            std::string::npos);
}

// --- environment ---

TEST(RenderMarkdown, EnvironmentTableAgreeingAndDisagreeingHosts) {
  Report r = Sample();
  std::vector<std::string> nccl_major = Hosts(0, 16);
  nccl_major.erase(nccl_major.begin() + 7);
  nccl_major.resize(8);  // the context names at most 8 hosts per value
  // Given out of the table's order: the table puts torch first, then nccl,
  // then python.
  r.context.versions = {
      Spread("python", true, {Value("3.10.12", Hosts(0, 8), 16)}),
      Spread("nccl", true, {Value("2.18.1", nccl_major, 15), Value("2.19.3", {"node-07"}, 1)}),
      Spread("torch", true, {Value("2.3.0+cu121", Hosts(0, 8), 16)}),
      Spread("gcc", false, {Value("11.4.0", Hosts(0, 8), 16)}),
      Spread("numpy", false, {Value("1.26.4", Hosts(0, 8), 12), Value("2.0.1", Hosts(12, 16), 4)}),
  };
  const std::string md = RenderMarkdown(r);
  const std::string table =
      "| Component | Version | Hosts |\n"
      "|---|---|---|\n"
      "| torch | `2.3.0+cu121` | 16 hosts |\n"
      "| nccl **differs** | `2.18.1` | 15 hosts: `node-00`, `node-01`, `node-02`, `node-03` +11 |\n"
      "|  | `2.19.3` | 1 host: `node-07` |\n"
      "| python | `3.10.12` | 16 hosts |\n";
  EXPECT_NE(md.find("### Environment\n\n" + table), std::string::npos) << md;
  // A component outside the key list shows only when hosts differ, folded.
  EXPECT_NE(md.find("<details><summary>Other components that differ across hosts (1)</summary>"),
            std::string::npos);
  EXPECT_NE(md.find("| numpy **differs** | `1.26.4` | 12 hosts:"), std::string::npos);
  EXPECT_EQ(md.find("gcc"), std::string::npos);
}

TEST(RenderMarkdown, VersionValuesBeyondTheCapAreCounted) {
  Report r = Sample();
  VersionSpread s = Spread(
      "driver", true, {Value("550.54.15", {"node-00"}, 9), Value("535.161.08", {"node-01"}, 1)});
  s.value_count = 4;
  r.context.versions = {s};
  const std::string md = RenderMarkdown(r);
  EXPECT_NE(md.find("| driver **differs** | `550.54.15` | 9 hosts: `node-00` +8 |\n"
                    "|  | `535.161.08` | 1 host: `node-01` |\n"
                    "| | 2 more values | |\n"),
            std::string::npos)
      << md;
}

TEST(RenderMarkdown, CommandLineAndDeepSpeedConfig) {
  Report r = Sample();
  r.context.environment.command_line =
      "deepspeed --num_gpus 8 train.py --deepspeed ds_config.json --bf16";
  r.context.environment.command_line_path = "job/job_cmdline.txt";
  r.context.environment.deepspeed_config = {{"fp16.enabled", "true"},
                                            {"zero_optimization.stage", "3"},
                                            {"train_micro_batch_size_per_gpu", "4"}};
  r.context.environment.deepspeed_config_path = "configs/ds_config.json";
  r.context.environment.deepspeed_config_keys = 5;
  const std::string md = RenderMarkdown(r);
  EXPECT_NE(md.find("Command line (`job/job_cmdline.txt`):\n\n```text\ndeepspeed --num_gpus 8 "
                    "train.py --deepspeed ds_config.json --bf16\n```\n"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("<details><summary>DeepSpeed config (5 keys)</summary>\n\nFrom "
                    "`configs/ds_config.json`:\n\n| Key | Value |\n|---|---|\n"
                    "| `fp16.enabled` | `true` |\n| `zero_optimization.stage` | `3` |\n"
                    "| `train_micro_batch_size_per_gpu` | `4` |\n"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("2 more keys: `casefile show /data/runs/run-17.tar.zst "
                    "configs/ds_config.json`"),
            std::string::npos);
}

// --- analyzers and input ---

TEST(RenderMarkdown, AnalyzersThatDidNotRunAndIngestIssues) {
  Report r = Sample();
  r.ingest_issue_counts["line_too_long"] = 23;
  r.ingest_issue_counts["trace_event_invalid"] = 2;
  const std::string md = RenderMarkdown(r);
  EXPECT_NE(md.find("### Analyzers\n\n2 ran (2 findings), 1 not applicable, 1 failed.\n\n"
                    "Failed:\n\n- `site-check` failed: plugin returned status 7\n"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("<details><summary>Not applicable (1)</summary>\n\n- `numeric` "
                    "not\\_applicable: no metric lines in the bundle\n"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("25 ingest issues"), std::string::npos);
  EXPECT_NE(md.find("| `line_too_long` | 23 | `casefile query /data/runs/run-17.tar.zst \"SELECT * "
                    "FROM ingest_issues WHERE kind='line_too_long'\"` |\n"),
            std::string::npos)
      << md;
}

// --- warnings (the section the report shares with the diff) ---

TEST(WarningsSection, NoneGivesNoSection) { EXPECT_EQ(md::WarningsSection({}, 20, 3072), ""); }

TEST(WarningsSection, EachWarningIsOneInertListItem) {
  // '<' '>' escaped, the mention a code span.
  EXPECT_EQ(md::WarningsSection({"disk <full> @ops", "index has no templates table"}, 20, 3072),
            "### Warnings\n\n- disk \\<full\\> `@ops`\n- index has no templates table\n\n");
}

TEST(WarningsSection, ListedCapCountsTheRest) {
  std::vector<std::string> warnings;
  for (int i = 0; i < 25; ++i) warnings.push_back("w" + std::to_string(i));
  const std::string section = md::WarningsSection(warnings, 20, 3072);
  EXPECT_NE(section.find("- w19\n- 5 more\n\n"), std::string::npos) << section;
  EXPECT_EQ(section.find("- w20\n"), std::string::npos) << section;
}

TEST(WarningsSection, BudgetKeepsRoomForTheCountLine) {
  const std::vector<std::string> warnings(5, "aaaa");
  // 60 bytes are kept for the count line: 88 leaves 28 for the heading
  // (14 bytes) and two items of 7.
  EXPECT_EQ(md::WarningsSection(warnings, 20, 88), "### Warnings\n\n- aaaa\n- aaaa\n- 3 more\n\n");
  EXPECT_EQ(md::WarningsSection(warnings, 20, 87), "### Warnings\n\n- aaaa\n- 4 more\n\n");
  // A budget under the reserve lists none and still says how many there are.
  EXPECT_EQ(md::WarningsSection(warnings, 20, 10), "### Warnings\n\n- 5 more\n\n");
}

// --- safety ---

// Every hostile string a bundle or a plugin can put in a report, in every
// place the report shows one.
Report Hostile() {
  Report r;
  r.bundles.push_back(Bundle("run <img src=x onerror=alert(1)>.tar"));
  r.bundles[0].path = "/tmp/run <img>.tar";
  r.bundles.push_back(Bundle("b2`x`.tar", "partial", "entry `a` at @evil: [x](https://e.vil)"));
  Finding f =
      MakeFinding("plugin.<b>bold</b>", Severity::kError,
                  "<script>alert(1)</script> cc @octocat see #123 and !45\n## fake heading");
  f.summary =
      "[click me](http://evil.example/x) ![img](javascript:alert(1)) *em* _u_ ~~s~~ "
      "&lt;b&gt; www.evil.example a|b |c| costs $5 and $10 \x1b[31mred\x1b[0m \xff\xfe \xe2\x80\xae"
      "evil";
  f.recommendation = "- not a list\n1. not a list either\n> not a quote\n    not code";
  f.culprits.push_back({std::string("h`o``st|<x>"), std::string("@team/admins"), 2});
  f.evidence.push_back(Ev("logs/```.log", 3, "```", "b2`x`.tar"));
  f.evidence.push_back(Ev("logs/a.log", 4, "</details><script>alert(2)</script> @octocat"));
  f.evidence.push_back(Ev("logs/a.log", 5, "[rank0]:\x1b[1;31mERROR\x1b[0m ````` fence? `"));
  for (int i = 0; i < 8; ++i) {
    f.evidence.push_back(Ev("logs/b.log", 10 + i, "````\n```` [l](http://x.y) <b>@u</b>"));
  }
  r.findings.push_back(f);
  EvidenceContext ctx;
  ctx.before = {{1, "```"}, {2, "~~~"}};
  ctx.after = {{4, "````````"}};
  r.context.evidence = {{ctx}};
  r.analyzers.push_back({"x<y>", "1", "failed", "reason with @someone and <i>html</i>", 0});
  r.ingest_issue_counts["kind'|`<k>"] = 3;
  r.warnings.push_back("warning with [link](http://a.b) and @user");
  r.context.versions = {
      Spread("torch", true,
             {Value("2.3|0`<x>", {"host|a", "@b"}, 2), Value("[v](http://u.v)", {"h`c"}, 1)})};
  r.context.environment.command_line = "python train.py\n````\nrm -rf / # ``` @root <script>";
  r.context.environment.command_line_path = "job/`cmd`.txt";
  r.context.environment.deepspeed_config = {{"a|b", "`x`|<y>"}, {"@k", "[l](http://m.n)"}};
  r.context.environment.deepspeed_config_path = "cfg/<ds>.json";
  r.context.environment.deepspeed_config_keys = 2;
  return r;
}

TEST(RenderMarkdownSafety, NothingFromTheBundleBecomesMarkupMentionOrLink) {
  const std::string md = RenderMarkdown(Hostile());
  const ParsedMarkdown p = ParseMarkdown(md);
  ExpectNoForeignHtmlInReport(p.prose);
  ExpectNoMentionOrLink(p.prose);
  EXPECT_EQ(p.prose.find("#123"), std::string::npos) << p.prose;
  EXPECT_EQ(p.prose.find("!45"), std::string::npos) << p.prose;
  EXPECT_EQ(p.prose.find("*em*"), std::string::npos) << p.prose;
  EXPECT_EQ(p.prose.find("_u_"), std::string::npos) << p.prose;
  EXPECT_EQ(p.prose.find("&lt;"), std::string::npos) << p.prose;
  EXPECT_EQ(p.prose.find('$'), std::string::npos) << p.prose;  // GitHub's math
  // The words are still there, as text.
  EXPECT_NE(md.find("\\<script\\>alert(1)\\</script\\>"), std::string::npos) << md;
  EXPECT_NE(md.find("`@octocat`"), std::string::npos);
  EXPECT_NE(md.find("costs \\$5 and \\$10"), std::string::npos) << md;
  EXPECT_NE(md.find("\\[click `me](http://evil.example/x)`"), std::string::npos) << md;
  EXPECT_NE(md.find("\\*em\\* \\_u\\_ \\~\\~s\\~\\~ \\&lt;b\\&gt;"), std::string::npos) << md;
}

TEST(RenderMarkdownSafety, NoLineOfBundleTextStartsABlock) {
  const std::string md = RenderMarkdown(Hostile());
  const ParsedMarkdown p = ParseMarkdown(md);
  for (const std::string& line : SplitLines(p.prose)) {
    EXPECT_NE(line.rfind("## fake", 0), 0u) << line;
    EXPECT_NE(line.rfind("- not", 0), 0u) << line;
    EXPECT_NE(line.rfind("1. not", 0), 0u) << line;
    EXPECT_NE(line.rfind("> not", 0), 0u) << line;
    EXPECT_NE(line.rfind("    not", 0), 0u) << line;
  }
  // The recommendation is one paragraph line, its list markers escaped.
  EXPECT_NE(md.find("**Recommendation:** \\- not a list 1. not a list either \\> not a quote     "
                    "not code\n"),
            std::string::npos)
      << md;
}

TEST(RenderMarkdownSafety, ListMarkersAtTheStartOfAParagraphAreEscaped) {
  Report r = Sample();
  r.findings[0].summary = "1. restart the job";
  r.findings[1].summary = "+ 7 more ranks";
  r.findings[0].recommendation = "=== drain the host";
  const std::string md = RenderMarkdown(r);
  EXPECT_NE(md.find("\n1\\. restart the job\n"), std::string::npos) << md;
  EXPECT_NE(md.find("\n\\+ 7 more ranks\n"), std::string::npos) << md;
  EXPECT_NE(md.find("**Recommendation:** \\=== drain the host\n"), std::string::npos) << md;
  // A number that is not a list marker stays as it is.
  r.findings[0].summary = "12.5x slower than the median";
  EXPECT_NE(RenderMarkdown(r).find("\n12.5x slower than the median\n"), std::string::npos);
}

TEST(RenderMarkdownSafety, FencesCannotBeClosedByTheirContent) {
  const std::string md = RenderMarkdown(Hostile());
  const ParsedMarkdown p = ParseMarkdown(md);
  ExpectFencesClosed(p);
  // The command line's own fence lines stay inside its block, and so does
  // the line after them.
  bool found = false;
  for (const FencedBlock& f : p.fences) {
    if (f.lines.size() == 3 && f.lines[0] == "python train.py" && f.lines[1] == "````" &&
        f.lines[2] == "rm -rf / # ``` @root <script>") {
      found = true;
    }
  }
  EXPECT_TRUE(found) << md;
  // The evidence block keeps its context lines and the matched one.
  EXPECT_TRUE(AnyFenceHasLine(p, "  1 | ```"));
  EXPECT_TRUE(AnyFenceHasLine(p, "  2 | ~~~"));
  EXPECT_TRUE(AnyFenceHasLine(p, "> 3 | ```"));
  EXPECT_TRUE(AnyFenceHasLine(p, "  4 | ````````"));
  // Lines folded in <details> keep their text in one block, the embedded
  // newline a space.
  EXPECT_TRUE(
      AnyFenceHasLine(p, "run-17.tar.zst:logs/b.log:17: ```` ```` [l](http://x.y) <b>@u</b>"));
}

TEST(RenderMarkdownSafety, ControlBytesAndInvalidUtf8AreReplaced) {
  const std::string md = RenderMarkdown(Hostile());
  EXPECT_EQ(md.find('\x1b'), std::string::npos);
  EXPECT_EQ(md.find('\r'), std::string::npos);
  EXPECT_EQ(md.find('\xff'), std::string::npos);
  EXPECT_EQ(md.find("\xe2\x80\xae"), std::string::npos);  // RIGHT-TO-LEFT OVERRIDE
  EXPECT_NE(md.find("\xef\xbf\xbd\\[31mred\xef\xbf\xbd\\[0m"), std::string::npos);
  const ParsedMarkdown p = ParseMarkdown(md);
  EXPECT_TRUE(
      AnyFenceHasLine(p, "> 5 | [rank0]:\xef\xbf\xbd[1;31mERROR\xef\xbf\xbd[0m ````` fence? `"));
}

TEST(RenderMarkdownSafety, TableCellsKeepTheirColumns) {
  const std::string md = RenderMarkdown(Hostile());
  // A '|' inside a cell (code span or not) is escaped, so each row has its
  // three columns.
  EXPECT_NE(md.find("| torch **differs** | ``2.3\\|0`<x>`` | 2 hosts: `host\\|a`, `@b` |\n"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| `a\\|b` | `` `x`\\|<y> `` |\n"), std::string::npos) << md;
  for (const std::string& line : SplitLines(md)) {
    if (line.rfind("| torch", 0) != 0 && line.rfind("| `a", 0) != 0) continue;
    EXPECT_EQ(UnescapedPipes(line), line.rfind("| torch", 0) == 0 ? 4u : 3u) << line;
  }
}

TEST(RenderMarkdownSafety, CodeSpansOutlastTheirBackticks) {
  const std::string md = RenderMarkdown(Hostile());
  // A culprit host holding two backticks in a row needs a three-backtick
  // span; one that ends in a backtick-free character needs no padding.
  EXPECT_NE(md.find("host ```h`o``st|<x>```, task `@team/admins`, rank 2"), std::string::npos)
      << md;
  // A bundle name ending in a backtick is padded.
  EXPECT_NE(md.find("``b2`x`.tar``"), std::string::npos) << md;
}

// --- size ---

// Everything at its cap and beyond, with text that grows when escaped.
Report Enormous() {
  Report r;
  const std::string long_text = [] {
    std::string s;
    while (s.size() < 4000) s += "<*_`|@x#1 \xff [a](http://b.c) ";
    return s;
  }();
  for (int b = 0; b < 300; ++b) {
    BundleRow row =
        Bundle("bundle-" + std::to_string(b) + long_text.substr(0, 500), "partial", long_text);
    r.bundles.push_back(row);
  }
  for (int i = 0; i < 200; ++i) {
    Finding f = MakeFinding("site.code_" + std::to_string(i) + long_text.substr(0, 200),
                            i % 3 == 0 ? Severity::kError : Severity::kWarning, long_text);
    f.summary = long_text;
    f.recommendation = long_text;
    for (int c = 0; c < 300; ++c) {
      f.culprits.push_back({long_text.substr(0, 300), long_text.substr(0, 300), c});
    }
    for (int e = 0; e < 60; ++e) f.evidence.push_back(Ev(long_text, e + 1, long_text));
    r.findings.push_back(std::move(f));
    EvidenceContext ctx;
    for (int k = 0; k < kContextLinesAround; ++k) {
      ctx.before.push_back({k + 1, long_text});
      ctx.after.push_back({k + 100, long_text});
    }
    r.context.evidence.push_back(std::vector<EvidenceContext>(kContextEvidence, ctx));
  }
  for (size_t v = 0; v < kContextVersionRows; ++v) {
    std::vector<VersionSpreadValue> values;
    for (size_t k = 0; k < kContextVersionValues; ++k) {
      values.push_back(
          Value(long_text, std::vector<std::string>(kContextVersionHosts, long_text), 1000));
    }
    VersionSpread s =
        Spread(v < 13 ? std::vector<std::string>{"torch", "transformers", "deepspeed", "torch_cuda",
                                                 "nvcc", "cuda_toolkit", "driver_cuda", "nccl",
                                                 "driver", "jax", "jaxlib", "libtpu", "python"}[v]
                      : "component_" + std::to_string(v),
               v % 2 == 0, values);
    s.value_count = 50;
    r.context.versions.push_back(s);
  }
  r.context.environment.command_line = long_text + "\n" + long_text;
  r.context.environment.command_line_path = long_text;
  for (size_t k = 0; k < kContextConfigKeys; ++k) {
    r.context.environment.deepspeed_config.push_back({long_text, long_text});
  }
  r.context.environment.deepspeed_config_path = long_text;
  r.context.environment.deepspeed_config_keys = 5000;
  for (int a = 0; a < 300; ++a) {
    r.analyzers.push_back(
        {"analyzer-" + std::to_string(a), "1", a % 2 ? "failed" : "not_applicable", long_text, 0});
  }
  for (int k = 0; k < 300; ++k) r.ingest_issue_counts["kind_" + std::to_string(k)] = 1000000;
  for (int w = 0; w < 500; ++w) r.warnings.push_back(long_text);
  return r;
}

TEST(RenderMarkdownSize, StaysUnderTheCommentLimitWhateverTheInput) {
  const std::string md = RenderMarkdown(Enormous());
  EXPECT_LT(md.size(), 65536u);
  EXPECT_LT(CodePoints(md), 65536u);
  // Still a report: every section is there, each saying what it left out.
  EXPECT_NE(md.find("### Findings (200)"), std::string::npos);
  EXPECT_NE(md.find("more findings: `casefile analyze BUNDLE... --format json`"),
            std::string::npos);
  EXPECT_NE(md.find("### Environment"), std::string::npos);
  EXPECT_NE(md.find("### Analyzers"), std::string::npos);
  EXPECT_NE(md.find("### Input"), std::string::npos);
  EXPECT_NE(md.find("### Warnings"), std::string::npos);
  EXPECT_NE(md.find("; 290 more\n"), std::string::npos);  // bundles
  EXPECT_EQ(md.find("Cut to stay within"), std::string::npos);
  const ParsedMarkdown p = ParseMarkdown(md);
  ExpectFencesClosed(p);
  ExpectNoForeignHtmlInReport(p.prose);
  EXPECT_EQ(p.prose.find('@'), std::string::npos);
}

TEST(RenderMarkdownSize, DeterministicAndIndependentOfCopies) {
  const Report a = Hostile();
  const Report b = a;
  EXPECT_EQ(RenderMarkdown(a), RenderMarkdown(b));
  const Report big = Enormous();
  EXPECT_EQ(RenderMarkdown(big), RenderMarkdown(big));
}

}  // namespace
}  // namespace casefile
