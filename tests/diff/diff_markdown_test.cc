// The markdown diff (RenderDiffMarkdown): what an issue tracker shows when a
// diff is pasted. DiffReports are built by hand, log lines are synthetic
// (formats of ../shared/reference/formats.md). As in
// tests/report/markdown_test.cc, the safety tests read the markdown as a
// CommonMark renderer does and check what is left outside code.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/version.h"
#include "diff/diff.h"
#include "support/markdown_prose.h"

namespace casefile::diff {
namespace {

// The markdown reader of the safety tests (tests/support/markdown_prose.h).
using test::AnyFenceHasLine;
using test::CodePoints;
using test::ExpectFencesClosed;
using test::ExpectNoForeignHtml;
using test::ExpectNoMentionOrLink;
using test::FencedBlock;
using test::ParsedMarkdown;
using test::ParseMarkdown;
using test::SplitLines;
using test::UnescapedPipes;

// --- diffs built by hand ---

BundleRow Bundle(const std::string& name, const std::string& status = "complete") {
  BundleRow b;
  b.name = name;
  b.path = "/data/" + name;
  b.format = "tar.zst";
  b.status = status;
  if (status == "partial") b.error = "archive truncated after entry 12";
  return b;
}

DiffItem Item(const std::string& section, const std::string& kind, const std::string& key,
              double score, const std::string& summary) {
  DiffItem i;
  i.section = section;
  i.kind = kind;
  i.key = key;
  i.score = score;
  i.summary = summary;
  return i;
}

Evidence Ev(const std::string& bundle, const std::string& path, int64_t line,
            const std::string& text) {
  return {bundle, path, line, text};
}

void SetTotals(DiffReport& r) {
  r.totals.clear();
  for (const auto* list : r.Lists()) r.totals.push_back(static_cast<int64_t>(list->size()));
}

DiffReport Sample() {
  DiffReport r;
  r.good_inputs = {"runs/good.tar.zst"};
  r.bad_inputs = {"runs/bad.tar.zst"};
  r.good_bundles = {Bundle("good.tar.zst")};
  r.bad_bundles = {Bundle("bad.tar.zst", "partial")};

  DiffItem nccl = Item("findings", "new", "comm.nccl_error", 90,
                       "New in bad: comm.nccl_error (NCCL failed) on host-1");
  nccl.host = "host-1";
  nccl.bad = "error";
  nccl.bad_evidence = {Ev("bad.tar.zst", "logs/host-1/train.log", 3,
                          "host-1:20417:20519 [0] NCCL WARN Call to ibv_modify_qp failed")};
  DiffItem torch = Item("versions", "changed", "torch", 70, "torch changed: 2.3.0 -> 2.4.0");
  torch.good = "2.3.0+cu121";
  torch.bad = "2.4.0+cu121";
  torch.good_evidence = {Ev("good.tar.zst", "hosts/host-1/versions/pip_list.txt", 41,
                            "torch                    2.3.0+cu121")};
  torch.bad_evidence = {Ev("bad.tar.zst", "hosts/host-1/versions/pip_list.txt", 41,
                           "torch                    2.4.0+cu121")};
  r.findings_new = {nccl};
  r.versions = {torch};
  DiffItem fresh = Item("templates", "new", "NCCL WARN Call to ibv_modify_qp failed", 60,
                        "New in bad (W), 4 lines: NCCL WARN Call to ibv_modify_qp failed");
  fresh.bad = "4";
  DiffItem gone = Item("templates", "vanished", "Saving checkpoint to <*>", 20,
                       "Only in good, 12 lines: Saving checkpoint to /ckpt/step_400");
  gone.good = "12";
  DiffItem more = Item("templates", "changed", "[deepspeed] OVERFLOW! Rank <*> Skipping step.", 55,
                       "12.0x more frequent in bad (3 -> 36 lines): [deepspeed] OVERFLOW!");
  more.good = "3";
  more.bad = "36";
  r.templates_new = {fresh};
  r.templates_vanished = {gone};
  r.templates_changed = {more};
  r.headline = {nccl, torch, more};
  SetTotals(r);
  return r;
}

// --- shape ---

TEST(RenderDiffMarkdown, HeadingSidesAndHeadline) {
  const std::string md = RenderDiffMarkdown(Sample());
  EXPECT_EQ(md.rfind(std::string("## casefile diff (casefile ") + kVersionString + ")\n\n", 0), 0u)
      << md;
  EXPECT_NE(md.find("- **Good:** `good.tar.zst` (tar.zst)\n- **Bad:** `bad.tar.zst` (tar.zst, "
                    "**partial**: archive truncated after entry 12)\n"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("### Headline\n\n1. New in bad: comm.nccl\\_error (NCCL failed) on host-1 "
                    "_(findings, score 90)_\n   ```text\n   bad   bad.tar.zst:logs/host-1/"
                    "train.log:3  host-1:20417:20519 [0] NCCL WARN Call to ibv_modify_qp failed\n"
                    "   ```\n2. torch changed: 2.3.0 -\\> 2.4.0 _(versions, score 70)_\n"),
            std::string::npos)
      << md;
  const ParsedMarkdown p = ParseMarkdown(md);
  EXPECT_TRUE(
      AnyFenceHasLine(p,
                      "good  good.tar.zst:hosts/host-1/versions/pip_list.txt:41  torch      "
                      "              2.3.0+cu121"));
  EXPECT_TRUE(AnyFenceHasLine(p,
                              "bad   bad.tar.zst:hosts/host-1/versions/pip_list.txt:41  torch      "
                              "              2.4.0+cu121"));
  EXPECT_NE(md.find("\n3. 12.0x more frequent in bad (3 -\\> 36 lines): \\[deepspeed\\] "
                    "OVERFLOW! _(templates, score 55)_\n"),
            std::string::npos)
      << md;
}

TEST(RenderDiffMarkdown, OneTablePerNonEmptyList) {
  const std::string md = RenderDiffMarkdown(Sample());
  const std::string head =
      "| Score | Kind | Key | Host | Good | Bad | Summary |\n|--:|---|---|---|---|---|---|\n";
  EXPECT_NE(md.find("### Findings new in bad (1)\n\n" + head +
                    "| 90 | new | `comm.nccl_error` | `host-1` | — | `error` | New in bad: "
                    "comm.nccl\\_error (NCCL failed) on host-1 |\n"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("### Versions (1)\n\n" + head +
                    "| 70 | changed | `torch` |  | `2.3.0+cu121` | `2.4.0+cu121` | torch changed: "
                    "2.3.0 -\\> 2.4.0 |\n"),
            std::string::npos)
      << md;
  // Templates with their counts on each side.
  EXPECT_NE(md.find("### Log templates new in bad (1)\n\n" + head +
                    "| 60 | new | `NCCL WARN Call to ibv_modify_qp failed` |  | — | `4` |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("### Log templates vanished from bad (1)\n\n" + head +
                    "| 20 | vanished | `Saving checkpoint to <*>` |  | `12` | — |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("### Log templates changed in frequency (1)\n\n" + head +
                    "| 55 | changed | `[deepspeed] OVERFLOW! Rank <*> Skipping step.` |  | `3` | "
                    "`36` |"),
            std::string::npos)
      << md;
  // Empty lists have no section.
  for (const char* absent : {"Findings resolved", "Findings in both", "### Configs", "### Metrics",
                             "### HLO", "### Traces", "### Warnings"}) {
    EXPECT_EQ(md.find(absent), std::string::npos) << absent;
  }
  EXPECT_NE(md.find("_Full diff: `casefile diff runs/good.tar.zst -- runs/bad.tar.zst --format "
                    "html -o casefile-diff.html`_\n"),
            std::string::npos)
      << md;
}

TEST(RenderDiffMarkdown, LongListsShowTenAndCountTheRest) {
  DiffReport r = Sample();
  r.configs.clear();
  for (int i = 0; i < 100; ++i) {
    DiffItem c = Item("configs", "changed", "optimizer.params.lr_" + std::to_string(100 + i),
                      40 - i * 0.1, "lr changed");
    c.good = "0.0001";
    c.bad = "0.001";
    r.configs.push_back(c);
  }
  SetTotals(r);
  r.totals[4] = 340;  // the list was cut to kMaxItemsPerSection; its total is more
  const std::string md = RenderDiffMarkdown(r);
  EXPECT_NE(md.find("### Configs (340)\n"), std::string::npos);
  EXPECT_NE(md.find("`optimizer.params.lr_109`"), std::string::npos);
  EXPECT_EQ(md.find("`optimizer.params.lr_110`"), std::string::npos);
  EXPECT_NE(md.find("\n330 more: `casefile diff runs/good.tar.zst -- runs/bad.tar.zst --format "
                    "json`\n"),
            std::string::npos)
      << md;
}

TEST(RenderDiffMarkdown, EmptyHeadlineAndNoDifferences) {
  DiffReport r;
  r.good_bundles = {Bundle("good.tar.zst")};
  r.bad_bundles = {Bundle("bad.tar.zst")};
  SetTotals(r);
  const std::string md = RenderDiffMarkdown(r);
  EXPECT_NE(md.find("### Headline\n\nNo difference worth a headline: no difference scores 50 or "
                    "more.\n"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("No differences in any section."), std::string::npos);
  // No inputs given: the bundle paths stand in the command.
  EXPECT_NE(md.find("`casefile diff /data/good.tar.zst -- /data/bad.tar.zst --format html"),
            std::string::npos)
      << md;
}

TEST(RenderDiffMarkdown, WarningsAndManyInputs) {
  DiffReport r = Sample();
  r.warnings = {"section templates failed: index has no templates table"};
  r.good_inputs = {"a", "b", "c", "d", "e"};
  const std::string md = RenderDiffMarkdown(r);
  EXPECT_NE(md.find("### Warnings\n\n- section templates failed: index has no templates table\n"),
            std::string::npos)
      << md;
  // Five inputs are too many to paste: the usage form stands in.
  EXPECT_NE(md.find("`casefile diff GOOD... -- runs/bad.tar.zst --format html"), std::string::npos)
      << md;
}

// --- safety ---

DiffReport Hostile() {
  DiffReport r;
  r.good_inputs = {"runs/good <b>.tar"};
  r.bad_inputs = {"runs/it's $(bad).tar"};
  r.good_bundles = {Bundle("good<script>.tar")};
  r.bad_bundles = {Bundle("bad`x`.tar", "partial")};
  r.bad_bundles[0].error = "entry @octocat [x](http://e.vil)";
  DiffItem i = Item("configs", "changed<i>", "a|b`c``d", 99,
                    "<script>alert(1)</script> @octocat [l](https://x.y) *e* _u_ #12 a|b\n## h "
                    "\x1b[31m\xff\xe2\x80\xae");
  i.host = "h|@x";
  i.good = "`v`|1";
  i.bad = "<img src=x>";
  i.good_evidence = {Ev("good<script>.tar", "logs/```.log", 7, "```"),
                     Ev("good<script>.tar", "logs/a.log", 8, "````` @root </details>")};
  i.bad_evidence = {Ev("bad`x`.tar", "logs/a.log", 9, "\x1b[1;31m[rank0]: boom ``` \xff")};
  r.configs = {i};
  r.headline = {i};
  r.warnings = {"warn @someone <b>x</b> [l](http://w.w)"};
  SetTotals(r);
  return r;
}

TEST(RenderDiffMarkdownSafety, NothingFromTheBundlesBecomesMarkupMentionOrLink) {
  const std::string md = RenderDiffMarkdown(Hostile());
  const ParsedMarkdown p = ParseMarkdown(md);
  ExpectFencesClosed(p);
  ExpectNoForeignHtml(p.prose);  // the diff has no tags of its own
  ExpectNoMentionOrLink(p.prose);
  EXPECT_EQ(p.prose.find("#12"), std::string::npos) << p.prose;
  EXPECT_EQ(p.prose.find("*e*"), std::string::npos) << p.prose;
  for (const std::string& line : SplitLines(p.prose)) EXPECT_NE(line.rfind("## h", 0), 0u) << line;
  EXPECT_EQ(md.find('\x1b'), std::string::npos);
  EXPECT_EQ(md.find('\xff'), std::string::npos);
  EXPECT_EQ(md.find("\xe2\x80\xae"), std::string::npos);
  // The text is still there, as text.
  EXPECT_NE(md.find("\\<script\\>alert(1)\\</script\\> `@octocat`"), std::string::npos) << md;
}

TEST(RenderDiffMarkdownSafety, HeadlineEvidenceStaysInItsFence) {
  const std::string md = RenderDiffMarkdown(Hostile());
  const ParsedMarkdown p = ParseMarkdown(md);
  // Two lines of the good side, one of the bad, in one block that their
  // backticks cannot close.
  bool found = false;
  for (const FencedBlock& f : p.fences) {
    if (f.lines.size() == 3 && f.lines[0] == "good  good<script>.tar:logs/```.log:7  ```" &&
        f.lines[1] == "good  good<script>.tar:logs/a.log:8  ````` @root </details>" &&
        f.lines[2] ==
            "bad   bad`x`.tar:logs/a.log:9  \xef\xbf\xbd[1;31m[rank0]: boom ``` "
            "\xef\xbf\xbd") {
      found = true;
    }
  }
  EXPECT_TRUE(found) << md;
}

TEST(RenderDiffMarkdownSafety, TableRowsKeepTheirColumns) {
  const std::string md = RenderDiffMarkdown(Hostile());
  bool seen = false;
  for (const std::string& line : SplitLines(md)) {
    if (line.rfind("| 99 |", 0) != 0) continue;
    seen = true;
    EXPECT_EQ(UnescapedPipes(line), 8u) << line;  // 8 for 7 columns
    EXPECT_NE(line.find("| ```a\\|b`c``d``` | `h\\|@x` | `` `v`\\|1 `` | `<img src=x>` |"),
              std::string::npos)
        << line;
  }
  EXPECT_TRUE(seen) << md;
  // A command with a quote and a "$(" is single-quoted, the quote closed and
  // reopened: pasting it runs nothing.
  EXPECT_NE(md.find("'runs/it'\\''s $(bad).tar'"), std::string::npos) << md;
}

// --- size ---

DiffReport Enormous() {
  DiffReport r;
  std::string long_text;
  while (long_text.size() < 4000) long_text += "<*_`|@x#1 \xff [a](http://b.c) ";
  for (int b = 0; b < 200; ++b) {
    r.good_bundles.push_back(Bundle("good-" + std::to_string(b) + long_text));
    r.bad_bundles.push_back(Bundle("bad-" + std::to_string(b) + long_text, "partial"));
    r.good_inputs.push_back(long_text);
    r.bad_inputs.push_back(long_text);
  }
  DiffItem big = Item(long_text, long_text, long_text, 100, long_text);
  big.host = long_text;
  big.good = long_text;
  big.bad = long_text;
  for (auto* list : r.Lists()) list->assign(kMaxItemsPerSection, big);
  // Evidence is shown for the headline only.
  for (int e = 0; e < 10; ++e) {
    big.good_evidence.push_back(Ev(long_text, long_text, e, long_text));
    big.bad_evidence.push_back(Ev(long_text, long_text, e, long_text));
  }
  r.headline.assign(kHeadlineItems + 5, big);
  r.totals.assign(DiffReport::kListCount, 1000000);
  r.warnings.assign(1000, long_text);
  return r;
}

TEST(RenderDiffMarkdownSize, StaysUnderTheCommentLimitWhateverTheInput) {
  const std::string md = RenderDiffMarkdown(Enormous());
  EXPECT_LT(md.size(), 65536u);
  EXPECT_LT(CodePoints(md), 65536u);
  // Every list is there with its total and what it left out.
  for (const char* title :
       {"### Findings new in bad (1000000)", "### Findings resolved (only in good) (1000000)",
        "### Findings in both (1000000)", "### Versions (1000000)", "### Configs (1000000)",
        "### Log templates new in bad (1000000)", "### Log templates vanished from bad (1000000)",
        "### Log templates changed in frequency (1000000)", "### Metrics (1000000)",
        "### HLO modules (1000000)", "### Traces (1000000)", "### Warnings"}) {
    EXPECT_NE(md.find(title), std::string::npos) << title;
  }
  EXPECT_NE(md.find(" more: `casefile diff GOOD... -- BAD... --format json`"), std::string::npos);
  EXPECT_EQ(md.find("Cut to stay within"), std::string::npos);
  // At most kHeadlineItems in the headline.
  EXPECT_EQ(md.find("\n4. "), std::string::npos);
  const ParsedMarkdown p = ParseMarkdown(md);
  ExpectFencesClosed(p);
  ExpectNoForeignHtml(p.prose);
  EXPECT_EQ(p.prose.find('@'), std::string::npos);
}

TEST(RenderDiffMarkdownSize, Deterministic) {
  const DiffReport a = Hostile();
  const DiffReport b = a;
  EXPECT_EQ(RenderDiffMarkdown(a), RenderDiffMarkdown(b));
  const DiffReport big = Enormous();
  EXPECT_EQ(RenderDiffMarkdown(big), RenderDiffMarkdown(big));
}

}  // namespace
}  // namespace casefile::diff
