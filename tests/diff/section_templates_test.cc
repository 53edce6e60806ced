// The templates section over two hand-built indexes: new, vanished and
// changed templates, matching through signatures and through <*>, and the
// run-length noise that must stay quiet.
#include <gtest/gtest.h>

#include "diff/sections.h"
#include "diff_test_side.h"

namespace casefile::test {
namespace {

using diff::DiffItem;
using diff::DiffSide;

TemplateSignatureRow Sig(int64_t id, int64_t tmpl, const std::string& level,
                         const std::string& pattern, int64_t count, int64_t file, int64_t line) {
  TemplateSignatureRow r;
  r.id = id;
  r.template_id = tmpl;
  r.level = level;
  r.pattern = pattern;
  r.count = count;
  r.first_file_id = file;
  r.first_line_no = line;
  return r;
}

TemplateRow Tmpl(int64_t id, const std::string& level, const std::string& pattern, int64_t count,
                 int64_t file, int64_t line, const std::string& example, int64_t signatures = 1) {
  TemplateRow r;
  r.id = id;
  r.level = level;
  r.pattern = pattern;
  r.count = count;
  r.signatures = signatures;
  r.first_file_id = file;
  r.first_line_no = line;
  r.example = example;
  return r;
}

const DiffItem* Find(const std::vector<DiffItem>& items, const std::string& kind,
                     const std::string& key) {
  for (const DiffItem& i : items) {
    if (i.kind == kind && i.key == key) return &i;
  }
  return nullptr;
}

class TemplatesSection : public ::testing::Test {
 protected:
  void SetUp() override {
    // Good: 100 steps, the network line, two retries, one disk warning
    // that bad never prints, and a shard line of its own shape.
    {
      DiffSideBuilder g(tmp_, "good");
      int64_t f = g.File("logs/host-1/train.log", "host-1");
      g.Line("Using network IB", 2);
      g.Line("Loading shard a.bin", 6);
      g.Line("retrying connection to 10.0.0.7", 3, Level::kWarning);
      for (int s = 1; s <= 100; ++s) g.Line("step " + std::to_string(s) + " loss 2.5", 1);
      g.Line("retrying connection to 10.0.0.9", 3, Level::kWarning);
      g.Line("disk quota of /scratch almost full", 4, Level::kError);
      g.Signature(Sig(1, 1, "info", "step <NUM> loss <NUM>", 100, f, 4));
      g.Signature(Sig(2, 2, "info", "Using network IB", 1, f, 1));
      g.Signature(Sig(3, 3, "warning", "retrying connection to <IP>", 2, f, 3));
      g.Signature(Sig(4, 4, "error", "disk quota of <PATH> almost full", 1, f, 105));
      g.Signature(Sig(6, 5, "info", "Loading shard a.bin", 1, f, 2));
      g.Template(Tmpl(1, "info", "step <NUM> loss <NUM>", 100, f, 4, "step 1 loss 2.5"));
      g.Template(Tmpl(2, "info", "Using network IB", 1, f, 1, "Using network IB"));
      g.Template(Tmpl(3, "warning", "retrying connection to <IP>", 2, f, 3,
                      "retrying connection to 10.0.0.7"));
      g.Template(Tmpl(4, "error", "disk quota of <PATH> almost full", 1, f, 105,
                      "disk quota of /scratch almost full"));
      g.Template(Tmpl(5, "info", "Loading shard a.bin", 1, f, 2, "Loading shard a.bin"));
      good_index_ = g.Finish();
    }
    // Bad: three times the steps (run length, not a difference), the same
    // network line, 60 retries, a new NCCL warning and a new error, and shard
    // lines merged into a <*> template.
    {
      DiffSideBuilder b(tmp_, "bad");
      int64_t f = b.File("logs/host-1/train.log", "host-1");
      b.Line("Using network IB", 1);
      b.Line("Loading shard b.bin", 7);
      b.Line("Loading shard c.bin", 8);
      for (int s = 1; s <= 300; ++s) b.Line("step " + std::to_string(s) + " loss 2.5", 2);
      for (int r = 0; r < 60; ++r) b.Line("retrying connection to 10.0.0.9", 3, Level::kWarning);
      b.Line("NCCL WARN NET/IB : Got async event : port error", 4, Level::kWarning);  // 364
      b.Line("RuntimeError: NCCL communicator was aborted", 5, Level::kError);        // 365
      b.Signature(Sig(1, 1, "info", "Using network IB", 1, f, 1));
      b.Signature(Sig(2, 2, "info", "step <NUM> loss <NUM>", 300, f, 4));
      b.Signature(Sig(3, 3, "warning", "retrying connection to <IP>", 60, f, 304));
      b.Signature(
          Sig(4, 4, "warning", "NCCL WARN NET/IB : Got async event : port error", 1, f, 364));
      b.Signature(Sig(5, 5, "error", "RuntimeError: NCCL communicator was aborted", 1, f, 365));
      b.Signature(Sig(7, 6, "info", "Loading shard b.bin", 1, f, 2));
      b.Signature(Sig(8, 6, "info", "Loading shard c.bin", 1, f, 3));
      b.Template(Tmpl(1, "info", "Using network IB", 1, f, 1, "Using network IB"));
      b.Template(Tmpl(2, "info", "step <NUM> loss <NUM>", 300, f, 4, "step 1 loss 2.5"));
      b.Template(Tmpl(3, "warning", "retrying connection to <IP>", 60, f, 304,
                      "retrying connection to 10.0.0.9"));
      b.Template(Tmpl(4, "warning", "NCCL WARN NET/IB : Got async event : port error", 1, f, 364,
                      "NCCL WARN NET/IB : Got async event : port error"));
      b.Template(Tmpl(5, "error", "RuntimeError: NCCL communicator was aborted", 1, f, 365,
                      "RuntimeError: NCCL communicator was aborted"));
      b.Template(Tmpl(6, "info", "Loading shard <*>", 2, f, 2, "Loading shard b.bin", 2));
      bad_index_ = b.Finish();
    }
  }

  std::vector<DiffItem> Run() {
    DiffSide g = diff::LoadSide("good", *good_index_, {"good"}, {});
    DiffSide b = diff::LoadSide("bad", *bad_index_, {"bad"}, {});
    return diff::DiffTemplates(g, b);
  }

  TempDir tmp_;
  std::unique_ptr<IndexReader> good_index_, bad_index_;
};

TEST_F(TemplatesSection, NewTemplatesRankedByLevelWithTheirFirstLine) {
  std::vector<DiffItem> items = Run();
  const DiffItem* err = Find(items, "new", "RuntimeError: NCCL communicator was aborted");
  const DiffItem* warn = Find(items, "new", "NCCL WARN NET/IB : Got async event : port error");
  ASSERT_NE(err, nullptr);
  ASSERT_NE(warn, nullptr);
  EXPECT_EQ(err->score, 85);
  EXPECT_EQ(warn->score, 65);
  // Evidence is read after ranking (BuildDiff); the section names the line.
  ASSERT_EQ(warn->bad_lines.size(), 1u);
  EXPECT_EQ(warn->bad_lines[0].second, 364);
  EXPECT_TRUE(warn->good_lines.empty());
  EXPECT_EQ(warn->bad, "1");
  // Ranked: the error first.
  EXPECT_EQ(items.front().key, "RuntimeError: NCCL communicator was aborted");
}

TEST_F(TemplatesSection, RunLengthAndMergingAreNotDifferences) {
  std::vector<DiffItem> items = Run();
  for (const DiffItem& i : items) {
    EXPECT_NE(i.key, "step <NUM> loss <NUM>") << i.kind;
    EXPECT_NE(i.key, "Using network IB") << i.kind;
    // Good's "Loading shard a.bin" matches bad's "Loading shard <*>".
    EXPECT_EQ(i.key.find("Loading shard"), std::string::npos) << i.kind << " " << i.key;
  }
}

TEST_F(TemplatesSection, VanishedAndFrequency) {
  std::vector<DiffItem> items = Run();
  const DiffItem* gone = Find(items, "vanished", "disk quota of <PATH> almost full");
  ASSERT_NE(gone, nullptr);
  EXPECT_EQ(gone->score, 40);
  ASSERT_EQ(gone->good_lines.size(), 1u);
  EXPECT_EQ(gone->good_lines[0].second, 105);

  // 2 of 105 lines in good, 60 of 365 in bad: 8.6 times the rate.
  const DiffItem* more = Find(items, "changed", "retrying connection to <IP>");
  ASSERT_NE(more, nullptr);
  EXPECT_EQ(more->score, 55);
  EXPECT_EQ(more->good, "2");
  EXPECT_EQ(more->bad, "60");
  bool factor_found = false;
  for (const auto& f : more->fields) {
    if (f.name == "rate_factor") {
      factor_found = true;
      EXPECT_NEAR(std::get<double>(f.value), (60.0 / 365) / (2.0 / 105), 0.01);
    }
  }
  EXPECT_TRUE(factor_found);
}

// A flood of a new warning in bad lowers every other template's rate: a
// template with the same count on both sides is no change; one whose count
// fell with its rate still is.
TEST(TemplatesSectionFlood, SameCountIsNoChangeWhateverTheRate) {
  TempDir tmp;
  DiffSideBuilder g(tmp, "good");
  const int64_t gf = g.File("logs/host-1/train.log", "host-1");
  for (int i = 0; i < 32; ++i) g.Line("checkpoint saved to /ckpt/" + std::to_string(i), 1);
  for (int i = 0; i < 40; ++i) g.Line("eval accuracy " + std::to_string(i), 2);
  g.Signature(Sig(1, 1, "info", "checkpoint saved to <PATH>", 32, gf, 1));
  g.Signature(Sig(2, 2, "info", "eval accuracy <NUM>", 40, gf, 33));
  g.Template(
      Tmpl(1, "info", "checkpoint saved to <PATH>", 32, gf, 1, "checkpoint saved to /ckpt/0"));
  g.Template(Tmpl(2, "info", "eval accuracy <NUM>", 40, gf, 33, "eval accuracy 0"));
  auto good = g.Finish();
  DiffSideBuilder b(tmp, "bad");
  const int64_t bf = b.File("logs/host-1/train.log", "host-1");
  for (int i = 0; i < 32; ++i) b.Line("checkpoint saved to /ckpt/" + std::to_string(i), 1);
  for (int i = 0; i < 4; ++i) b.Line("eval accuracy " + std::to_string(i), 2);
  for (int i = 0; i < 600; ++i)
    b.Line("UserWarning: this overload is deprecated", 3, Level::kWarning);
  b.Signature(Sig(1, 1, "info", "checkpoint saved to <PATH>", 32, bf, 1));
  b.Signature(Sig(2, 2, "info", "eval accuracy <NUM>", 4, bf, 33));
  b.Signature(Sig(3, 3, "warning", "UserWarning: this overload is deprecated", 600, bf, 37));
  b.Template(
      Tmpl(1, "info", "checkpoint saved to <PATH>", 32, bf, 1, "checkpoint saved to /ckpt/0"));
  b.Template(Tmpl(2, "info", "eval accuracy <NUM>", 4, bf, 33, "eval accuracy 0"));
  b.Template(Tmpl(3, "warning", "UserWarning: this overload is deprecated", 600, bf, 37,
                  "UserWarning: this overload is deprecated"));
  auto bad = b.Finish();
  const std::vector<DiffItem> items = diff::DiffTemplates(
      diff::LoadSide("good", *good, {"good"}, {}), diff::LoadSide("bad", *bad, {"bad"}, {}));
  EXPECT_EQ(Find(items, "changed", "checkpoint saved to <PATH>"), nullptr);
  EXPECT_NE(Find(items, "changed", "eval accuracy <NUM>"), nullptr);
  EXPECT_NE(Find(items, "new", "UserWarning: this overload is deprecated"), nullptr);
}

TEST_F(TemplatesSection, ItemsAreDeterministic) {
  std::vector<DiffItem> a = Run();
  std::vector<DiffItem> b = Run();
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].key, b[i].key);
    EXPECT_EQ(a[i].kind, b[i].kind);
  }
}

TEST(TemplatesSectionEmpty, IndexWithoutTemplatesGivesNothing) {
  TempDir tmp;
  DiffSideBuilder g(tmp, "g");
  g.File("a.log");
  g.Line("hello", 0);
  auto gi = g.Finish();
  DiffSideBuilder b(tmp, "b");
  b.File("a.log");
  b.Line("hello", 0);
  auto bi = b.Finish();
  auto items =
      diff::DiffTemplates(diff::LoadSide("good", *gi, {}, {}), diff::LoadSide("bad", *bi, {}, {}));
  EXPECT_TRUE(items.empty());
}

}  // namespace
}  // namespace casefile::test
