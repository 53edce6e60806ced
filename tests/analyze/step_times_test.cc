// Step times end to end: log lines of several ranks and forms go through
// ingest, are stored as metric_chunks series (parse/dist/step_series.h) and
// read back by analyze/step_times.h and the `step_times` view. The series
// must keep every point with its line, step and value, whatever the chunking.
#include "analyze/step_times.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "index/index_reader.h"
#include "index/index_writer.h"
#include "ingest/ingest.h"
#include "parse/dist/step_series.h"
#include "parse/numeric/metric_chunk.h"
#include "sql_rows.h"
#include "test_util.h"

namespace casefile {
namespace {

using test::Rows;
using test::Sql;

// Two hosts. host-a's log interleaves ranks 0 and 1 (torchrun prefixes)
// with a glog line and a tqdm bar between them; host-b's has 2,500 steps of
// one rank, more than one chunk holds.
class StepTimesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string a;
    for (int s = 1; s <= 40; ++s) {
      a += "[rank0]: step " + std::to_string(s) + " | loss 2.31 | step_time=0.41" +
           std::to_string(s % 10) + "s\n";
      a += "I1129 09:21:26.123456  1234 train.py:12] heartbeat\n";
      a += "[rank1]: step " + std::to_string(s) + " | loss 2.29 | step_time=0.52s\n";
    }
    a += "Epoch 0:  45%|####5     | 450/1000 [10:01<12:14,  2.05it/s, loss=2.1]\n";
    test::WriteFile(root_ + "/nodes/host-a/train.log", a);
    std::string b;
    for (int s = 1; s <= 2500; ++s) b += "step " + std::to_string(s) + " step_time=1.25s\n";
    test::WriteFile(root_ + "/nodes/host-b/train.log", b);
    {
      IndexWriter w(db_);
      IngestInputs({root_}, Limits{}, nullptr, w);
      w.Commit();
    }
    index_ = IndexReader::Open(db_);
  }

  int64_t FileId(const std::string& suffix) {
    for (const FileRow& f : index_->Files()) {
      if (f.path.ends_with(suffix)) return f.id;
    }
    ADD_FAILURE() << "no file " << suffix;
    return 0;
  }

  test::TempDir tmp_;
  std::string root_ = tmp_.Join("bundle");
  std::string db_ = tmp_.Join("i.db");
  std::unique_ptr<IndexReader> index_;
};

TEST_F(StepTimesTest, StoredAsSeriesNotAsEventRows) {
  EXPECT_EQ(Sql(*index_, "SELECT count(*) FROM dist_events WHERE kind = 'step_time'")[0][0], "0");
  // host-a: rank 0 and rank 1 (form step_time), and the tqdm bar (no rank);
  // host-b: one series of 2,500 points in three chunks of at most 1,024.
  EXPECT_EQ(Sql(*index_,
                "SELECT c.rank, c.form, count(*), sum(c.point_count) FROM metric_chunks AS c "
                "JOIN files AS f ON f.id = c.file_id WHERE c.name = 'step_time' "
                "GROUP BY f.path, c.rank, c.form ORDER BY f.path, c.rank, c.form"),
            (Rows{{"NULL", "tqdm total=1000", "1", "1"},
                  {"0", "step_time", "1", "40"},
                  {"1", "step_time", "1", "40"},
                  {"NULL", "step_time", "3", "2500"}}));
  EXPECT_EQ(
      Sql(*index_, "SELECT max(point_count) FROM metric_chunks WHERE name = 'step_time'")[0][0],
      std::to_string(numeric::kMaxChunkPoints));
}

TEST_F(StepTimesTest, ViewListsEveryStepWithItsLine) {
  const int64_t a = FileId("host-a/train.log");
  // Line 4 is rank 0's step 2; line 3 rank 1's step 1; the bar is line 121.
  EXPECT_EQ(Sql(*index_,
                "SELECT line_no, host, rank, step, seconds, form FROM step_times "
                "WHERE file_id = " +
                    std::to_string(a) + " AND line_no IN (3, 4, 121) ORDER BY line_no"),
            (Rows{{"3", "host-a", "1", "1", "0.52", "step_time"},
                  {"4", "host-a", "0", "2", "0.412", "step_time"},
                  // 1 / 2.05 it/s, six significant digits.
                  {"121", "host-a", "NULL", "450", "0.487805", "tqdm total=1000"}}));
  EXPECT_EQ(Sql(*index_,
                "SELECT count(*), min(step), max(step), min(line_no), max(line_no) "
                "FROM step_times WHERE file_id = " +
                    std::to_string(FileId("host-b/train.log"))),
            (Rows{{"2500", "1", "2500", "1", "2500"}}));
}

TEST_F(StepTimesTest, LoadedInFileAndLineOrderAcrossSeries) {
  const StoredStepTimes t = LoadStoredStepTimes(*index_, 1'000'000);
  EXPECT_FALSE(t.truncated);
  ASSERT_EQ(t.rows.size(), 40u + 40u + 1u + 2500u);
  EXPECT_EQ(CountStoredStepTimes(*index_, nullptr), t.rows.size());
  for (size_t i = 1; i < t.rows.size(); ++i) {
    const StoredStepTime& p = t.rows[i - 1];
    const StoredStepTime& q = t.rows[i];
    ASSERT_TRUE(p.file_id < q.file_id || (p.file_id == q.file_id && p.line_no < q.line_no)) << i;
  }
  // host-a's first three step lines: rank 0, rank 1, rank 0 again.
  const int64_t a = FileId("host-a/train.log");
  const StoredStepTime* first = nullptr;
  for (const StoredStepTime& r : t.rows) {
    if (r.file_id == a) {
      first = &r;
      break;
    }
  }
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first[0].line_no, 1);
  EXPECT_EQ(t.series[first[0].series].rank, 0);
  EXPECT_EQ(first[1].line_no, 3);
  EXPECT_EQ(t.series[first[1].series].rank, 1);
  EXPECT_DOUBLE_EQ(first[1].seconds, 0.52);
  EXPECT_EQ(first[2].line_no, 4);
  EXPECT_EQ(first[2].step, 2);
}

TEST_F(StepTimesTest, CapKeepsTheFirstRowsAndSaysSo) {
  const StoredStepTimes t = LoadStoredStepTimes(*index_, 50);
  EXPECT_TRUE(t.truncated);
  ASSERT_EQ(t.rows.size(), 50u);
  // The first 50 in (file, line) order: all from the first file, lines
  // ascending without a gap in the step lines.
  const int64_t file = t.rows.front().file_id;
  for (const StoredStepTime& r : t.rows) EXPECT_EQ(r.file_id, file);
  const StoredStepTimes all = LoadStoredStepTimes(*index_, 1'000'000);
  for (size_t i = 0; i < 50; ++i) EXPECT_EQ(t.rows[i].line_no, all.rows[i].line_no) << i;
}

TEST_F(StepTimesTest, OnlyTheFilesAskedFor) {
  const std::vector<int64_t> b = {FileId("host-b/train.log")};
  EXPECT_EQ(CountStoredStepTimes(*index_, &b), 2500u);
  const StoredStepTimes t = LoadStoredStepTimes(*index_, 1'000'000, &b);
  ASSERT_EQ(t.rows.size(), 2500u);
  EXPECT_EQ(t.rows.front().file_id, b[0]);
  EXPECT_EQ(t.rows.back().step, 2500);
  const std::vector<int64_t> none;
  EXPECT_TRUE(LoadStoredStepTimes(*index_, 1'000'000, &none).rows.empty());
  EXPECT_EQ(CountStoredStepTimes(*index_, &none), 0u);
}

TEST_F(StepTimesTest, ForEachGoesSeriesBySeriesAndStops) {
  std::vector<uint32_t> series;
  size_t calls = 0;
  ForEachStoredStepTime(
      *index_, nullptr,
      [&](uint32_t s, const StoredStepSeries&, int64_t, std::optional<int64_t>, double) {
        if (series.empty() || series.back() != s) series.push_back(s);
        return ++calls < 100;
      });
  EXPECT_EQ(calls, 100u);
  // Series are numbered in the order they come, each once.
  for (size_t i = 0; i < series.size(); ++i) EXPECT_EQ(series[i], i);
}

// The writer on its own: the series cap drops points with an issue that
// counts them, and what fits is kept.
TEST(StepSeriesWriter, MoreSeriesThanTheCapAreCountedNotLost) {
  std::vector<MetricChunkRow> chunks;
  std::vector<std::string> issues;
  dist::StepSeriesWriter w(
      7, [&](const MetricChunkRow& c) { chunks.push_back(c); },
      [&](const std::string& kind, const std::string& message) {
        issues.push_back(kind + ": " + message);
      });
  const int ranks = static_cast<int>(dist::kMaxStepSeries) + 10;
  for (int r = 0; r < ranks; ++r) {
    DistEventRow row;
    row.file_id = 7;
    row.line_no = r + 1;
    row.kind = "step_time";
    row.rank = r;
    row.seq = 1;
    row.value = 0.5;
    row.detail = "step_time";
    w.Add(row);
  }
  w.Finish();
  EXPECT_EQ(chunks.size(), dist::kMaxStepSeries);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0],
            "step_times_dropped: 10 step time(s) not stored: more than 256 step-time series in "
            "one file");
  EXPECT_EQ(chunks[0].name, "step_time");
  EXPECT_EQ(chunks[0].points, "[[0,1,\"0.5\"]]");
}

TEST(StepSeriesWriter, NonFiniteValuesAreSpelledAsMetricsSpellThem) {
  std::vector<MetricChunkRow> chunks;
  dist::StepSeriesWriter w(
      1, [&](const MetricChunkRow& c) { chunks.push_back(c); }, nullptr);
  DistEventRow row;
  row.file_id = 1;
  row.kind = "step_time";
  row.detail = "took";
  row.line_no = 1;
  row.value = INFINITY;
  w.Add(row);
  row.line_no = 2;
  row.seq = 9;
  row.value = 1234567.891;
  w.Add(row);
  w.Finish();
  ASSERT_EQ(chunks.size(), 1u);
  EXPECT_EQ(chunks[0].points, "[[0,null,\"inf\"],[1,9,\"1.23457e+06\"]]");
  EXPECT_EQ(chunks[0].nonfinite_count, 1);
}

}  // namespace
}  // namespace casefile
