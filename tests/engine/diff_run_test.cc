// The diff end to end through the engine: stored findings and their
// provenance, two sides sharing an index file, findings read back from JSON.
#include "engine/diff_run.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <string>

#include "common/error.h"
#include "diff/diff.h"
#include "engine/stored_findings.h"
#include "index/index_reader.h"
#include "report/report.h"
#include "test_util.h"

namespace fs = std::filesystem;

namespace casefile {
namespace {

const std::string kPair = std::string(CASEFILE_SOURCE_DIR) + "/corpus/diff/diff_straggler_host";

std::string Provenance(const std::string& index_path) {
  return IndexReader::Open(index_path)->Meta(kFindingsProvenanceKey);
}

TEST(DiffRun, SecondDiffReadsStoredFindingsAndSaysTheSame) {
  test::TempDir tmp;
  DiffRunOptions o;
  o.good_index_path = tmp.Join("g.db");
  o.bad_index_path = tmp.Join("b.db");
  diff::DiffReport first = RunDiff({kPair + "/good"}, {kPair + "/bad"}, o, nullptr);
  ASSERT_FALSE(first.findings_new.empty());
  EXPECT_EQ(first.findings_new[0].key, "hang.straggler");
  // Both indexes now say whose their findings are.
  EXPECT_EQ(Provenance(o.good_index_path), FullAnalysisProvenance());
  EXPECT_EQ(Provenance(o.bad_index_path), FullAnalysisProvenance());
  diff::DiffReport second = RunDiff({kPair + "/good"}, {kPair + "/bad"}, o, nullptr);
  EXPECT_EQ(diff::RenderDiffJson(first), diff::RenderDiffJson(second));
  EXPECT_EQ(diff::RenderDiffText(first, false), diff::RenderDiffText(second, false));
}

TEST(DiffRun, AFailedAnalyzerLeavesNoProvenanceAndIsReportedEachTime) {
  test::TempDir tmp;
  DiffRunOptions o;
  o.good_index_path = tmp.Join("g.db");
  o.bad_index_path = tmp.Join("b.db");
  RunDiff({kPair + "/good"}, {kPair + "/bad"}, o, nullptr);
  // Break a table the hang analyzer reads in the good index.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(o.good_index_path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "DROP TABLE fr_groups; CREATE TABLE fr_groups(x);", nullptr, nullptr,
                         nullptr),
            SQLITE_OK);
  // And its stored findings' provenance, so the analyzers run again.
  ASSERT_EQ(sqlite3_exec(db, "DELETE FROM meta WHERE key = 'findings_provenance'", nullptr, nullptr,
                         nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  for (int run = 0; run < 2; ++run) {
    diff::DiffReport r = RunDiff({kPair + "/good"}, {kPair + "/bad"}, o, nullptr);
    bool warned = false;
    for (const std::string& w : r.warnings)
      warned |= w.find("analyzer hang failed") != std::string::npos;
    EXPECT_TRUE(warned) << "run " << run;
    // An analysis with a failed analyzer is not a full one: never reused.
    EXPECT_EQ(Provenance(o.good_index_path), "") << "run " << run;
  }
}

TEST(DiffRun, TwoSidesCannotShareOneIndexFile) {
  test::TempDir tmp;
  DiffRunOptions o;
  o.good_index_path = tmp.Join("same.db");
  o.bad_index_path = tmp.Join("./same.db");
  o.reindex = true;
  try {
    RunDiff({kPair + "/good"}, {kPair + "/bad"}, o, nullptr);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kArgument);
    EXPECT_NE(std::string(e.what()).find("same index file"), std::string::npos);
  }
  // The same inputs on both sides may share it: one index, built once.
  diff::DiffReport self = RunDiff({kPair + "/good"}, {kPair + "/good"}, o, nullptr);
  EXPECT_TRUE(self.headline.empty());
  EXPECT_TRUE(self.findings_new.empty());
}

TEST(StoredFindings, JsonRoundTrip) {
  Finding f;
  f.code = "hang.straggler";
  f.analyzer = "hang";
  f.severity = Severity::kWarning;
  f.title = "Straggler";
  f.summary = "gpu-s03 is slower";
  f.recommendation = "drain it";
  Culprit c;
  c.host = "gpu-s03";
  c.rank = 17;
  f.culprits.push_back(c);
  Culprit t;
  t.task = "worker/3";
  f.culprits.push_back(t);
  Evidence e;
  e.bundle = "bad";
  e.path = "nodes/gpu-s03/train.log";
  e.line = 1998;
  e.text = "step 175 \"quoted\" \\ tab\t";
  f.evidence.push_back(e);
  std::optional<Finding> back = ParseFindingJson(RenderFindingJson(f));
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(RenderFindingJson(*back), RenderFindingJson(f));
  EXPECT_EQ(back->culprits.size(), 2u);
  EXPECT_EQ(back->culprits[0].rank, 17);
  EXPECT_FALSE(back->culprits[1].host.has_value());
  EXPECT_EQ(back->evidence[0].text, e.text);
  // Not a finding: refused, so the caller re-runs the analyzers.
  EXPECT_FALSE(ParseFindingJson("{\"code\": 3}").has_value());
  EXPECT_FALSE(ParseFindingJson("not json").has_value());
  EXPECT_FALSE(ParseFindingJson("{\"code\":\"a\",\"analyzer\":\"b\",\"severity\":\"fatal\","
                                "\"title\":\"\",\"summary\":\"\",\"recommendation\":\"\","
                                "\"culprits\":[],\"evidence\":[]}")
                   .has_value());
}

}  // namespace
}  // namespace casefile
