// Template mining during ingest: every line of a log gets a signature, the
// tables are written at the end, and the same line shapes give the same
// pattern text in two indexes of bundles of different lengths (what the diff
// joins on). Lines of files that are not logs are not mined.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "index/index_reader.h"
#include "index/index_writer.h"
#include "ingest/ingest.h"
#include "parse/template/signature_table.h"
#include "sql_rows.h"
#include "test_util.h"

namespace casefile {
namespace {

using test::Rows;
using test::Sql;

std::unique_ptr<IndexReader> Build(const std::string& input, const std::string& db) {
  {
    IndexWriter w(db);
    IngestInputs({input}, Limits{}, nullptr, w);
    w.Commit();
  }
  return IndexReader::Open(db);
}

// A worker log with `steps` step lines, two shard lines of one statement, a
// connection error, and (when `extra`) a shape the shorter run lacks; plus
// a config whose lines are stored but not mined.
void MakeRun(const std::string& root, int steps, bool extra) {
  std::string log =
      "I1129 09:21:26.123456  1234 train.py:12] step 1 loss=2.5\n"
      "I1129 09:21:26.200000  1234 loader.py:40] Loading shard 1 of model alpha\n"
      "I1129 09:21:26.300000  1234 loader.py:40] Loading shard 2 of model beta\n"
      "E1129 09:21:27.000001  1234 comm.py:7] connect to 10.0.0.1:29500 failed\n";
  for (int s = 2; s <= steps; ++s) {
    log += "I1129 09:22:" + std::to_string(10 + s) + ".000000  1234 train.py:12] step " +
           std::to_string(s) + " loss=" + std::to_string(3.0 / s) + "\n";
  }
  if (extra) log += "W1129 09:23:00.000000  1234 train.py:99] loss scale lowered to 1024\n";
  log += "\n";  // an empty line: a signature too
  test::WriteFile(root + "/logs/host-3/worker.log", log);
  test::WriteFile(root + "/config/run.yaml", "lr: 0.1\nsteps: 100\n");
}

TEST(TemplateIngest, SamePatternsInTwoRunsOfDifferentLengths) {
  test::TempDir dir;
  MakeRun(dir.Join("short"), 3, false);
  MakeRun(dir.Join("long"), 9, true);
  auto a = Build(dir.Join("short"), dir.Join("a.db"));
  auto b = Build(dir.Join("long"), dir.Join("b.db"));

  // Signatures in order of first occurrence, with their counts.
  const Rows sa = Sql(*a,
                      "SELECT id, template_id, level, pattern, count, first_line_no "
                      "FROM template_signatures ORDER BY id");
  ASSERT_EQ(sa.size(), 5u);
  EXPECT_EQ(sa[0], (std::vector<std::string>{"1", "1", "info", "step <NUM> loss=<NUM>", "3", "1"}));
  EXPECT_EQ(sa[1], (std::vector<std::string>{"2", "2", "info", "Loading shard <NUM> of model alpha",
                                             "1", "2"}));
  EXPECT_EQ(sa[2], (std::vector<std::string>{"3", "2", "info", "Loading shard <NUM> of model beta",
                                             "1", "3"}));
  EXPECT_EQ(sa[3],
            (std::vector<std::string>{"4", "3", "error", "connect to <IP> failed", "1", "4"}));
  EXPECT_EQ(sa[4], (std::vector<std::string>{"5", "4", "", "", "1", "7"}));

  const Rows ta = Sql(*a,
                      "SELECT id, level, pattern, count, signatures, first_line_no, example "
                      "FROM templates ORDER BY id");
  ASSERT_EQ(ta.size(), 4u);
  EXPECT_EQ(ta[0], (std::vector<std::string>{"1", "info", "step <NUM> loss=<NUM>", "3", "1", "1",
                                             "step 1 loss=2.5"}));
  EXPECT_EQ(ta[1], (std::vector<std::string>{"2", "info", "Loading shard <NUM> of model <*>", "2",
                                             "2", "2", "Loading shard 1 of model alpha"}));
  EXPECT_EQ(ta[2][2], "connect to <IP> failed");

  // The longer run: same patterns (the join key of the diff), other counts,
  // and its extra shape after them.
  const Rows tb = Sql(*b, "SELECT id, level, pattern, count FROM templates ORDER BY id");
  ASSERT_EQ(tb.size(), 5u);
  EXPECT_EQ(tb[0], (std::vector<std::string>{"1", "info", "step <NUM> loss=<NUM>", "9"}));
  EXPECT_EQ(tb[1],
            (std::vector<std::string>{"2", "info", "Loading shard <NUM> of model <*>", "2"}));
  EXPECT_EQ(tb[2], (std::vector<std::string>{"3", "error", "connect to <IP> failed", "1"}));
  EXPECT_EQ(tb[3], (std::vector<std::string>{"4", "warning", "loss scale lowered to <NUM>", "1"}));
  EXPECT_EQ(tb[4], (std::vector<std::string>{"5", "", "", "1"}));
  const Rows joined = Sql(*b,
                          "SELECT count(*) FROM template_signatures WHERE pattern IN "
                          "('step <NUM> loss=<NUM>', 'Loading shard <NUM> of model alpha', "
                          "'Loading shard <NUM> of model beta', 'connect to <IP> failed')");
  EXPECT_EQ(joined[0][0], "4");
}

TEST(TemplateIngest, EveryLogLineHasASignatureAndOtherFilesNone) {
  test::TempDir dir;
  MakeRun(dir.Join("run"), 6, true);
  auto r = Build(dir.Join("run"), dir.Join("x.db"));
  const Rows per_kind = Sql(*r,
                            "SELECT f.kind, count(*), count(l.signature_id), "
                            "count(l.template_id) FROM lines AS l JOIN files AS f "
                            "ON f.id = l.file_id GROUP BY f.kind ORDER BY f.kind");
  ASSERT_EQ(per_kind.size(), 2u);
  EXPECT_EQ(per_kind[0], (std::vector<std::string>{"config", "2", "0", "0"}));
  EXPECT_EQ(per_kind[1], (std::vector<std::string>{"log", "11", "11", "11"}));
  // The lines' counts add up to the tables' counts.
  EXPECT_EQ(Sql(*r, "SELECT sum(count) FROM template_signatures")[0][0], "11");
  EXPECT_EQ(Sql(*r, "SELECT sum(count) FROM templates")[0][0], "11");
  // Each line's template is its signature's.
  EXPECT_EQ(Sql(*r,
                "SELECT count(*) FROM lines AS l JOIN template_signatures AS s "
                "ON s.id = l.signature_id WHERE s.template_id != l.template_id")[0][0],
            "0");
  // ScanLines carries the signature too.
  const int64_t log_id =
      std::stoll(Sql(*r, "SELECT id FROM files WHERE path = 'logs/host-3/worker.log'")[0][0]);
  int64_t with = 0;
  r->ScanLines(log_id, [&](const LineRecord& l) {
    with += l.signature != 0;
    return true;
  });
  EXPECT_EQ(with, 11);
}

TEST(TemplateIngest, TheSignatureCapIsAnIngestIssue) {
  test::TempDir dir;
  // More distinct shapes than the cap: words without digits, so no masks.
  std::string log;
  const size_t shapes = templates::kMaxSignatures + 10;
  for (size_t i = 0; i < shapes; ++i) {
    std::string w;
    for (size_t k = 0, v = i; k < 4; ++k, v /= 26) w.push_back(static_cast<char>('a' + v % 26));
    log += "shape " + w + "\n";
  }
  test::WriteFile(dir.Join("in/logs/w.log"), log);
  auto r = Build(dir.Join("in"), dir.Join("cap.db"));
  const Rows issues = Sql(*r, "SELECT kind, path, offset FROM ingest_issues");
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0][0], "template_limit");
  EXPECT_EQ(issues[0][1], "logs/w.log");
  // The first line past the cap starts at 65,536 lines of 11 bytes.
  EXPECT_EQ(issues[0][2], std::to_string(templates::kMaxSignatures * 11));
  const Rows overflow =
      Sql(*r,
          "SELECT id, count, first_line_no FROM template_signatures WHERE pattern = "
          "'<overflow>'");
  ASSERT_EQ(overflow.size(), 1u);
  EXPECT_EQ(overflow[0][0], std::to_string(templates::kMaxSignatures + 1));
  EXPECT_EQ(overflow[0][1], "10");
  EXPECT_EQ(overflow[0][2], std::to_string(templates::kMaxSignatures + 1));
  EXPECT_EQ(Sql(*r, "SELECT count(*) FROM lines WHERE signature_id IS NULL")[0][0], "0");
}

}  // namespace
}  // namespace casefile
