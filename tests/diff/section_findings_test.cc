// The findings section: matching by code and culprits.
#include <gtest/gtest.h>

#include "diff/sections.h"
#include "diff_test_side.h"

namespace casefile::test {
namespace {

using diff::DiffItem;

Finding Make(const std::string& code, Severity s, std::vector<std::string> hosts,
             const std::string& evidence_path = "logs/a.log", int64_t line = 7) {
  Finding f;
  f.code = code;
  f.analyzer = code.substr(0, code.find('.'));
  f.severity = s;
  f.title = "title of " + code;
  for (const std::string& h : hosts) {
    Culprit c;
    c.host = h;
    f.culprits.push_back(c);
  }
  Evidence e;
  e.bundle = "run.tar.zst";
  e.path = evidence_path;
  e.line = line;
  e.text = "the line";
  f.evidence.push_back(e);
  return f;
}

std::vector<DiffItem> DiffOf(std::vector<Finding> good, std::vector<Finding> bad) {
  TempDir tmp;
  DiffSideBuilder g(tmp, "g");
  auto gi = g.Finish();
  DiffSideBuilder b(tmp, "b");
  auto bi = b.Finish();
  return diff::DiffFindings(diff::LoadSide("good", *gi, {}, std::move(good)),
                            diff::LoadSide("bad", *bi, {}, std::move(bad)));
}

TEST(FindingsSection, NewResolvedPersisting) {
  auto items =
      DiffOf({Make("build.version_skew", Severity::kWarning, {"h1"}),
              Make("comm.slow_link", Severity::kWarning, {"h2"})},
             {Make("build.version_skew", Severity::kWarning, {"h1"}),
              Make("numeric.loss_scale_collapse", Severity::kError, {}, "logs/train.log", 767)});
  ASSERT_EQ(items.size(), 3u);
  // Ranked: new error (95), resolved (30), persisting (10).
  EXPECT_EQ(items[0].kind, "new");
  EXPECT_EQ(items[0].key, "numeric.loss_scale_collapse");
  EXPECT_EQ(items[0].score, 95);
  ASSERT_EQ(items[0].bad_evidence.size(), 1u);
  EXPECT_EQ(items[0].bad_evidence[0].line, 767);
  EXPECT_EQ(items[0].bad_evidence[0].path, "logs/train.log");
  EXPECT_TRUE(items[0].good_evidence.empty());
  EXPECT_EQ(items[1].kind, "resolved");
  EXPECT_EQ(items[1].key, "comm.slow_link");
  EXPECT_EQ(items[1].good_evidence.size(), 1u);
  EXPECT_EQ(items[2].kind, "persisting");
  EXPECT_EQ(items[2].key, "build.version_skew");
  EXPECT_EQ(items[2].good_evidence.size(), 1u);
  EXPECT_EQ(items[2].bad_evidence.size(), 1u);
}

TEST(FindingsSection, SameCodeOnOtherCulpritsIsNewButLessSo) {
  auto items = DiffOf({Make("hang.step_straggler", Severity::kError, {"h1"})},
                      {Make("hang.step_straggler", Severity::kError, {"h7"})});
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0].kind, "new");
  EXPECT_EQ(items[0].score, 65);  // 95 less 30
  EXPECT_EQ(items[1].kind, "resolved");
  // Culprit order does not matter.
  auto twins = DiffOf({Make("hang.straggler", Severity::kError, {"h1", "h2"})},
                      {Make("hang.straggler", Severity::kError, {"h2", "h1"})});
  ASSERT_EQ(twins.size(), 1u);
  EXPECT_EQ(twins[0].kind, "persisting");
}

TEST(FindingsSection, CulpritsOfOneHostReadAsOne) {
  Finding f = Make("hang.straggler", Severity::kError, {});
  for (int64_t r : {19, 16, 17, 18, 23}) {
    Culprit c;
    c.host = "gpu-s03";
    c.rank = r;
    f.culprits.push_back(c);
  }
  Culprit other;
  other.host = "gpu-s01";
  other.rank = 3;
  f.culprits.push_back(other);
  auto items = DiffOf({}, {f});
  ASSERT_EQ(items.size(), 1u);
  EXPECT_EQ(items[0].summary,
            "New in bad: hang.straggler (gpu-s01 rank 3, gpu-s03 ranks 16-19,23): "
            "title of hang.straggler");
}

TEST(FindingsSection, SeverityScores) {
  auto items = DiffOf({}, {Make("a.x", Severity::kWarning, {}), Make("b.y", Severity::kInfo, {})});
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0].score, 75);
  EXPECT_EQ(items[1].score, 40);
  EXPECT_TRUE(DiffOf({}, {}).empty());
}

}  // namespace
}  // namespace casefile::test
