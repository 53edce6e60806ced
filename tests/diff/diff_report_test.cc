// BuildDiff and its renderings: the headline, evidence read for kept items,
// the cut of long lists, the JSON shape of docs/DIFF.md, determinism.
#include <gtest/gtest.h>
#include <simdjson.h>

#include "common/json_writer.h"
#include "diff/diff.h"
#include "diff_test_side.h"

namespace casefile::test {
namespace {

using diff::DiffReport;

TemplateRow Tmpl(int64_t id, const std::string& level, const std::string& pattern, int64_t count,
                 int64_t file, int64_t line) {
  TemplateRow r;
  r.id = id;
  r.level = level;
  r.pattern = pattern;
  r.count = count;
  r.signatures = 1;
  r.first_file_id = file;
  r.first_line_no = line;
  r.example = pattern;
  return r;
}

TemplateSignatureRow Sig(int64_t id, const TemplateRow& t) {
  TemplateSignatureRow s;
  s.id = id;
  s.template_id = t.id;
  s.level = t.level;
  s.pattern = t.pattern;
  s.count = t.count;
  s.first_file_id = t.first_file_id;
  s.first_line_no = t.first_line_no;
  return s;
}

Finding NewError() {
  Finding f;
  f.code = "comm.nccl_error";
  f.analyzer = "comm";
  f.severity = Severity::kError;
  f.title = "NCCL failed";
  Evidence e;
  e.bundle = "bad.tar.zst";
  e.path = "logs/host-1/train.log";
  e.line = 3;
  e.text = "NCCL WARN Call to ibv_modify_qp failed";
  f.evidence.push_back(e);
  return f;
}

class DiffReportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    DiffSideBuilder g(tmp_, "good");
    int64_t gf = g.File("logs/host-1/train.log", "host-1");
    g.Line("step 1 loss 2.5", 1);
    g.Line("step 2 loss 2.4", 1);
    TemplateRow gt = Tmpl(1, "info", "step <NUM> loss <NUM>", 2, gf, 1);
    g.Template(gt);
    g.Signature(Sig(1, gt));
    good_ = g.Finish();

    DiffSideBuilder b(tmp_, "bad");
    int64_t bf = b.File("logs/host-1/train.log", "host-1");
    b.Line("step 1 loss 2.5", 1);
    b.Line("step 2 loss 2.4", 1);
    b.Line("NCCL WARN Call to ibv_modify_qp failed", 2, Level::kWarning);
    TemplateRow t1 = Tmpl(1, "info", "step <NUM> loss <NUM>", 2, bf, 1);
    TemplateRow t2 = Tmpl(2, "warning", "NCCL WARN Call to ibv_modify_qp failed", 1, bf, 3);
    b.Template(t1);
    b.Template(t2);
    b.Signature(Sig(1, t1));
    b.Signature(Sig(2, t2));
    // 150 one-off info lines: more than a list keeps.
    for (int i = 0; i < 150; ++i) {
      int64_t line = b.Line("rare info line number x" + std::to_string(i) + "y", 3 + i);
      TemplateRow t =
          Tmpl(3 + i, "info", "rare info line number x" + std::to_string(i) + "y", 1, bf, line);
      b.Template(t);
      b.Signature(Sig(3 + i, t));
    }
    bad_ = b.Finish();
  }

  DiffReport Build() {
    diff::DiffSide g = diff::LoadSide("good", *good_, {"good"}, {});
    diff::DiffSide b = diff::LoadSide("bad", *bad_, {"bad"}, {NewError()});
    return diff::BuildDiff(g, b);
  }

  TempDir tmp_;
  std::unique_ptr<IndexReader> good_, bad_;
};

TEST_F(DiffReportTest, HeadlineIsTheTopOfAllSections) {
  DiffReport r = Build();
  ASSERT_EQ(r.headline.size(), 2u);  // the rare info lines score below the cut
  EXPECT_EQ(r.headline[0].section, "findings");
  EXPECT_EQ(r.headline[0].key, "comm.nccl_error");
  EXPECT_EQ(r.headline[1].section, "templates");
  EXPECT_EQ(r.headline[1].key, "NCCL WARN Call to ibv_modify_qp failed");
}

TEST_F(DiffReportTest, EvidenceIsReadForKeptItems) {
  DiffReport r = Build();
  ASSERT_FALSE(r.templates_new.empty());
  const diff::DiffItem& warn = r.templates_new.front();
  EXPECT_EQ(warn.key, "NCCL WARN Call to ibv_modify_qp failed");
  ASSERT_EQ(warn.bad_evidence.size(), 1u);
  EXPECT_EQ(warn.bad_evidence[0].bundle, "bad.tar.zst");
  EXPECT_EQ(warn.bad_evidence[0].path, "logs/host-1/train.log");
  EXPECT_EQ(warn.bad_evidence[0].line, 3);
  EXPECT_EQ(warn.bad_evidence[0].text, "NCCL WARN Call to ibv_modify_qp failed");
  EXPECT_TRUE(warn.bad_lines.empty());
}

TEST_F(DiffReportTest, LongListsAreCutButCounted) {
  DiffReport r = Build();
  EXPECT_EQ(r.templates_new.size(), diff::kMaxItemsPerSection);
  const auto lists = r.Lists();
  for (size_t i = 0; i < lists.size(); ++i) {
    if (std::string(DiffReport::ListNames()[i]) == "templates.new") {
      EXPECT_EQ(r.totals[i], 151);
    }
  }
}

TEST_F(DiffReportTest, JsonHasTheDocumentedShapeAndIsDeterministic) {
  const std::string json = diff::RenderDiffJson(Build());
  EXPECT_EQ(json, diff::RenderDiffJson(Build()));
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.parse(json);
  for (const char* key :
       {"good", "bad", "headline", "versions", "configs", "metrics", "hlo", "traces", "warnings"}) {
    EXPECT_FALSE(doc[key].error()) << key;
  }
  EXPECT_EQ(doc["findings"]["new"].get_array().size(), 1u);
  EXPECT_EQ(doc["findings"]["resolved"].get_array().size(), 0u);
  EXPECT_EQ(doc["templates"]["new"].get_array().size(), diff::kMaxItemsPerSection);
  EXPECT_EQ(int64_t(doc["totals"]["templates.new"]), 151);
  simdjson::dom::element first = doc["headline"].at(0);
  EXPECT_EQ(std::string_view(first["section"]), "findings");
  EXPECT_EQ(double(first["score"]), 95.0);
  simdjson::dom::element warn = doc["templates"]["new"].at(0);
  EXPECT_EQ(int64_t(warn["bad_evidence"].at(0)["line"]), 3);
  EXPECT_EQ(std::string_view(warn["fields"]["level"]), "warning");
  EXPECT_EQ(std::string_view(doc["good"].at(0)["name"]), "good.tar.zst");
}

TEST_F(DiffReportTest, TextShowsHeadlineAndCutsLists) {
  const std::string text = diff::RenderDiffText(Build(), /*color=*/false);
  EXPECT_NE(text.find("Headline\n  1. New in bad: comm.nccl_error"), std::string::npos) << text;
  EXPECT_NE(text.find("templates.new (151)"), std::string::npos);
  EXPECT_NE(text.find("... and 141 more"), std::string::npos);
  EXPECT_NE(text.find("bad  bad.tar.zst:logs/host-1/train.log:3"), std::string::npos);
  EXPECT_EQ(text.find('\x1b'), std::string::npos);
}

TEST(DiffReportText, LogBytesCannotDriveTheTerminalOrBreakUtf8) {
  test::TempDir tmp;
  DiffSideBuilder g(tmp, "g");
  g.File("a.log");
  g.Line("hello", 0);
  auto gi = g.Finish();
  DiffSideBuilder b(tmp, "b");
  int64_t f = b.File("a.log");
  // Invalid UTF-8, an ANSI escape, a C1 control (U+009B, CSI) and a long
  // tail of 3-byte characters, so the cut would fall inside one.
  std::string text = "bad \xff\xfe bytes \x1b[31mred\x1b[0m \xc2\x9b" "2J ";
  for (int i = 0; i < 200; ++i) text += "\xe2\x82\xac";  // U+20AC
  b.Line(text, 1, Level::kError);
  TemplateRow t = Tmpl(1, "error", "bad pattern", 1, f, 1);
  b.Template(t);
  b.Signature(Sig(1, t));
  auto bi = b.Finish();
  const std::string out = diff::RenderDiffText(
      diff::BuildDiff(diff::LoadSide("good", *gi, {}, {}), diff::LoadSide("bad", *bi, {}, {})),
      false);
  EXPECT_EQ(out.find('\x1b'), std::string::npos);
  EXPECT_EQ(out.find("\xc2\x9b"), std::string::npos);
  EXPECT_NE(out.find("bad \xef\xbf\xbd\xef\xbf\xbd bytes"), std::string::npos) << out;
  EXPECT_EQ(SanitizeUtf8(out), out);  // valid UTF-8 throughout: no character cut
}

TEST(DiffReportEmpty, IdenticalSidesHaveNoHeadline) {
  TempDir tmp;
  DiffSideBuilder g(tmp, "g");
  g.File("a.log");
  g.Line("hello", 0);
  auto gi = g.Finish();
  DiffSideBuilder b(tmp, "b");
  b.File("a.log");
  b.Line("hello", 0);
  auto bi = b.Finish();
  DiffReport r =
      diff::BuildDiff(diff::LoadSide("good", *gi, {}, {}), diff::LoadSide("bad", *bi, {}, {}));
  EXPECT_TRUE(r.headline.empty());
  EXPECT_NE(diff::RenderDiffText(r, false).find("Nothing suspicious"), std::string::npos);
}

}  // namespace
}  // namespace casefile::test
