// NumericExtractor: lines of one file in, rows out. Series are kept apart by
// host, rank, name and form; named and implied ranks win over none; chunks
// close at their limit and at Finish(); caps are reported, never silent.
#include "parse/numeric/numeric_extractor.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

namespace casefile::numeric {
namespace {

class Extraction {
 public:
  Extraction()
      : x_(3, NumericSinks{[this](const NumericFrameRow& r) { frames.push_back(r); },
                           [this](const MetricChunkRow& r) { chunks.push_back(r); },
                           [this](const std::string& kind, const std::string& message) {
                             issues.push_back(kind + ": " + message);
                           }}) {}
  void Line(const std::string& text, int32_t rank = -1, const std::string& host = "",
            uint32_t msg_start = 0) {
    texts_.push_back(text);
    hosts_.push_back(host);
    LineRecord r;
    r.file_id = 3;
    r.line_no = ++line_no_;
    r.rank = rank;
    r.host = hosts_.back();
    r.text = texts_.back();
    r.msg_start = msg_start;
    x_.AddLine(r);
  }
  void Finish() { x_.Finish(); }
  const MetricChunkRow* Chunk(const std::string& name, const std::string& form,
                              std::optional<int64_t> rank) const {
    for (const auto& c : chunks) {
      if (c.name == name && c.form == form && c.rank == rank) return &c;
    }
    return nullptr;
  }
  std::vector<NumericFrameRow> frames;
  std::vector<MetricChunkRow> chunks;
  std::vector<std::string> issues;

 private:
  NumericExtractor x_;
  std::vector<std::string> texts_, hosts_;
  int64_t line_no_ = 0;
};

TEST(NumericExtractor, SeriesAndAttribution) {
  Extraction run;
  run.Line("[rank1]:step 1 loss=2.50 grad_norm=1.0", 1, "", 8);
  run.Line("[rank0]:step 1 loss=2.40 grad_norm=0.9", 0, "", 8);
  run.Line("[rank1]:step 2 loss=nan grad_norm=inf", 1, "", 8);
  run.Line("{'loss': 2.3, 'grad_norm': 0.5, 'epoch': 0.1}");  // rank 0: HF prints there
  run.Line("[deepspeed] OVERFLOW! Rank 3 Skipping step. Attempted loss scale: 8, reducing to 4", 0);
  run.Line("node-7 pdsh line step 3 loss=2.0", -1, "node-7");
  run.Line("unrelated line with nothing");
  run.Finish();
  EXPECT_TRUE(run.issues.empty());
  EXPECT_TRUE(run.frames.empty());

  const MetricChunkRow* loss1 = run.Chunk("loss", "key_value", 1);
  ASSERT_NE(loss1, nullptr);
  EXPECT_EQ(loss1->file_id, 3);
  EXPECT_EQ(loss1->points, "[[0,1,\"2.50\"],[2,1,\"nan\"]]");
  EXPECT_EQ(loss1->nonfinite_count, 1);
  EXPECT_FALSE(loss1->host);

  const MetricChunkRow* loss0 = run.Chunk("loss", "key_value", 0);
  ASSERT_NE(loss0, nullptr);
  EXPECT_EQ(loss0->points, "[[0,1,\"2.40\"]]");

  const MetricChunkRow* dict = run.Chunk("loss", "hf_dict", 0);
  ASSERT_NE(dict, nullptr);
  EXPECT_EQ(dict->first_line, 4);

  // The rank the message names beats the [rank0] wrapper.
  EXPECT_NE(run.Chunk("loss_scale.attempted", "deepspeed_overflow", 3), nullptr);
  EXPECT_EQ(run.Chunk("loss_scale.attempted", "deepspeed_overflow", 0), nullptr);

  const MetricChunkRow* pdsh = run.Chunk("loss", "key_value", std::nullopt);
  ASSERT_NE(pdsh, nullptr);
  EXPECT_EQ(pdsh->host, "node-7");
}

TEST(NumericExtractor, ChunksCloseAtTheLimit) {
  Extraction run;
  for (size_t i = 0; i < kMaxChunkPoints + 3; ++i) run.Line("loss=1.5");
  ASSERT_EQ(run.chunks.size(), 1u);  // the first chunk left when it filled
  EXPECT_EQ(run.chunks[0].point_count, static_cast<int64_t>(kMaxChunkPoints));
  run.Finish();
  ASSERT_EQ(run.chunks.size(), 2u);
  EXPECT_EQ(run.chunks[1].point_count, 3);
  EXPECT_EQ(run.chunks[1].first_line, static_cast<int64_t>(kMaxChunkPoints) + 1);
}

TEST(NumericExtractor, TooManySeriesAreCounted) {
  Extraction run;
  for (size_t r = 0; r < kMaxSeries + 2; ++r) {
    run.Line("step 1 loss=1.0", static_cast<int32_t>(r));
  }
  run.Finish();
  EXPECT_EQ(run.chunks.size(), kMaxSeries);
  ASSERT_EQ(run.issues.size(), 1u);
  EXPECT_EQ(run.issues[0].rfind("numeric_rows_dropped: 2 metric value(s)", 0), 0u) << run.issues[0];
}

TEST(NumericExtractor, TablesAndMetricsInOneLog) {
  Extraction run;
  run.Line("{'loss': 1.2, 'grad_norm': 0.4}");
  run.Line("output has infs");
  run.Line("Detected inf/nan during batch_number=3");
  run.Line("abs min  abs max  metadata");
  run.Line("                  lm_head Linear");
  run.Line("0.00e+00      inf output");
  run.Line("{'loss': nan, 'grad_norm': nan}");  // ends the table, is a metric line
  run.Finish();
  ASSERT_EQ(run.frames.size(), 2u);
  EXPECT_EQ(run.frames[0].report_kind, "detect");
  EXPECT_EQ(run.frames[1].module_path, "lm_head");
  const MetricChunkRow* loss = run.Chunk("loss", "hf_dict", 0);
  ASSERT_NE(loss, nullptr);
  EXPECT_EQ(loss->points, "[[0,null,\"1.2\"],[6,null,\"nan\"]]");
}

}  // namespace
}  // namespace casefile::numeric
