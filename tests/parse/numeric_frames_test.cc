// DebugUnderflowOverflow tables (frame_tables.h): the report and trace
// layouts of Transformers' debug_utils, with [rankN]: interleaving, cut
// tables, None / "not a tensor" rows, elisions and detect_overflow lines.
// The sample tables are written here by hand in the printed layout
// (prefix of 17 spaces, "%8.2e %8.2e role" rows).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "parse/numeric/frame_tables.h"
#include "parse/numeric/numeric_prefilter.h"

namespace casefile::numeric {
namespace {

const std::string kPad(18, ' ');

class Feeder {
 public:
  Feeder() : parser_(7, [this](const NumericFrameRow& r) { rows.push_back(r); }) {}
  // Feeds one line; returns whether the parser took it.
  bool Line(const std::string& msg, int32_t rank = -1) {
    texts_.push_back(msg);
    const std::string& t = texts_.back();
    return parser_.Feed(FrameLine{++line_no_, rank, "", t}, ScanLiterals(t));
  }
  void Lines(const std::vector<std::string>& msgs, int32_t rank = -1) {
    for (const auto& m : msgs) Line(m, rank);
  }
  void Finish() { parser_.Finish(); }
  FrameTableParser& parser() { return parser_; }
  std::vector<NumericFrameRow> rows;

 private:
  FrameTableParser parser_;
  std::vector<std::string> texts_;
  int64_t line_no_ = 0;
};

TEST(FrameTables, OverflowReport) {
  Feeder f;
  EXPECT_FALSE(f.Line("training step 10"));
  EXPECT_TRUE(f.Line("output has infs"));                          // line 2: detect_overflow
  EXPECT_FALSE(f.Line(""));                                        // no table is open yet
  EXPECT_TRUE(f.Line("Detected inf/nan during batch_number=12"));  // line 4
  f.Lines({
      "Last 3 forward frames:",
      "abs min  abs max  metadata",
      kPad + "encoder.block.2.layer.1.DenseReluDense.wo Linear",  // line 7
      "1.01e-06 6.44e+00 weight",
      "0.00e+00 9.74e+03 input[0]",
      "3.18e-04 6.27e+04 output",
      "[...]",
      kPad + "encoder.block.2.layer.0 T5LayerSelfAttention",  // line 12
      "             None output[1]",
      "     nan      nan output[2]",
      kPad + "encoder.block.2.layer.1.dropout Dropout",  // line 15
      "3.18e-04 6.27e+04 input[0]",
      "0.00e+00      inf output",
  });
  EXPECT_FALSE(f.Line("Traceback (most recent call last):"));
  EXPECT_FALSE(f.Line("0.00e+00 1.00e+00 output"));  // after the table: not a row
  ASSERT_EQ(f.rows.size(), 8u);

  const NumericFrameRow& detect = f.rows[0];
  EXPECT_EQ(detect.report_kind, "detect");
  EXPECT_EQ(detect.line_no, 2);
  EXPECT_EQ(detect.role, "output");
  EXPECT_EQ(detect.max_text, "inf");
  EXPECT_FALSE(detect.frame_index);

  const NumericFrameRow& weight = f.rows[1];
  EXPECT_EQ(weight.file_id, 7);
  EXPECT_EQ(weight.report_kind, "overflow");
  EXPECT_EQ(weight.report_line_no, 4);
  EXPECT_EQ(weight.batch, 12);
  EXPECT_EQ(weight.frame_index, 0);
  EXPECT_EQ(weight.module_line_no, 7);
  EXPECT_EQ(weight.module_path, "encoder.block.2.layer.1.DenseReluDense.wo");
  EXPECT_EQ(weight.module_class, "Linear");
  EXPECT_EQ(weight.role, "weight");
  EXPECT_EQ(weight.min_text, "1.01e-06");
  EXPECT_EQ(weight.abs_min, 1.01e-06);
  EXPECT_EQ(weight.abs_max, 6.44);

  const NumericFrameRow& none = f.rows[4];
  EXPECT_EQ(none.frame_index, 1);
  EXPECT_EQ(none.role, "output[1]");
  EXPECT_EQ(none.max_text, "None");
  EXPECT_FALSE(none.abs_max);

  const NumericFrameRow& nan = f.rows[5];
  EXPECT_EQ(nan.max_text, "nan");
  EXPECT_FALSE(nan.abs_min);
  EXPECT_FALSE(nan.abs_max);

  const NumericFrameRow& inf = f.rows[7];
  EXPECT_EQ(inf.frame_index, 2);
  EXPECT_EQ(inf.module_line_no, 15);
  EXPECT_EQ(inf.module_class, "Dropout");
  EXPECT_EQ(inf.min_text, "0.00e+00");
  EXPECT_EQ(inf.max_text, "inf");
  ASSERT_TRUE(inf.abs_max);
  EXPECT_EQ(*inf.abs_max, INFINITY);
}

TEST(FrameTables, InterleavedRanksKeepTheirTables) {
  Feeder f;
  f.Line("Detected inf/nan during batch_number=5", 6);
  f.Line("Last 2 forward frames:", 6);
  f.Line("abs min  abs max  metadata", 6);
  f.Line(kPad + "decoder.block.0 T5Block", 6);
  // Another rank's ordinary line in the middle neither ends nor joins it.
  EXPECT_FALSE(f.Line("rank 4: step 5, 38.6 samples/s", 4));
  EXPECT_FALSE(f.Line("1.00e+00 2.00e+00 output", 4));
  EXPECT_TRUE(f.Line("1.00e-03 5.00e+02 input[0]", 6));
  // Rank 5 starts its own trace table meanwhile.
  EXPECT_TRUE(f.Line(kPad + "*** Starting batch number=5 ***", 5));
  EXPECT_TRUE(f.Line("abs min  abs max  metadata", 5));
  EXPECT_TRUE(f.Line(kPad + "shared Embedding", 5));
  EXPECT_TRUE(f.Line("1.01e-06 7.92e+02 weight", 5));
  EXPECT_TRUE(f.Line("0.00e+00      inf output", 6));
  ASSERT_EQ(f.rows.size(), 3u);
  EXPECT_EQ(f.rows[0].rank, 6);
  EXPECT_EQ(f.rows[0].module_path, "decoder.block.0");
  EXPECT_EQ(f.rows[0].report_kind, "overflow");
  EXPECT_EQ(f.rows[1].rank, 5);
  EXPECT_EQ(f.rows[1].report_kind, "trace");
  EXPECT_EQ(f.rows[1].batch, 5);
  EXPECT_EQ(f.rows[1].module_class, "Embedding");
  EXPECT_EQ(f.rows[2].rank, 6);
  EXPECT_EQ(f.rows[2].max_text, "inf");
  EXPECT_EQ(f.rows[2].module_line_no, 4);
}

TEST(FrameTables, TraceBatchesAndTheModelRow) {
  Feeder f;
  f.Lines({
      "",
      "",
      kPad + "*** Starting batch number=1 ***",  // line 3
      "abs min  abs max  metadata",
      kPad + "decoder T5Stack",
      "     not a tensor output",
      kPad + " T5ForConditionalGeneration",  // line 7: the model, no path
      "     not a tensor output",
      "",
      "",
      kPad + "*** Starting batch number=3 ***",  // line 11
      "abs min  abs max  metadata",
      kPad + "lm_head Linear",
      "6.06e-02 8.39e+01 output",
  });
  f.Finish();
  ASSERT_EQ(f.rows.size(), 3u);
  EXPECT_EQ(f.rows[0].max_text, "not a tensor");
  EXPECT_EQ(f.rows[0].batch, 1);
  EXPECT_EQ(f.rows[0].report_line_no, 3);
  EXPECT_EQ(f.rows[1].module_path, "");
  EXPECT_EQ(f.rows[1].module_class, "T5ForConditionalGeneration");
  EXPECT_EQ(f.rows[1].frame_index, 1);
  EXPECT_EQ(f.rows[2].batch, 3);
  EXPECT_EQ(f.rows[2].report_line_no, 11);
  EXPECT_EQ(f.rows[2].frame_index, 0);
}

TEST(FrameTables, CutTableKeepsItsRows) {
  Feeder f;
  f.Lines({"Detected inf/nan during batch_number=0",
           "Last 21 forward frames:", "abs min  abs max  metadata",
           kPad + "encoder.embed_tokens Embedding", "1.01e-06 7.92e+02 weight", "0.00e+00 2.4"});
  f.Finish();
  ASSERT_EQ(f.rows.size(), 1u);
  EXPECT_EQ(f.rows[0].role, "weight");
  // After Finish nothing is open: a row-shaped line is no row.
  EXPECT_FALSE(f.Line("1.00e+00 2.00e+00 output"));
}

TEST(FrameTables, ManyBlankLinesEndATable) {
  Feeder f;
  f.Lines({"Detected inf/nan during batch_number=0", kPad + "a Linear", "", "", "", "", ""});
  EXPECT_FALSE(f.Line(kPad + "b Linear"));
  EXPECT_TRUE(f.rows.empty());
}

TEST(FrameTables, LooksLikeButIsNot) {
  Feeder f;
  EXPECT_FALSE(f.Line("** Note: nothing to see"));
  EXPECT_FALSE(f.Line("absolute minimum reached"));
  // detect_overflow's label is free text: this is one of its lines.
  EXPECT_TRUE(f.Line("the cache has nans"));
  ASSERT_EQ(f.rows.size(), 1u);
  EXPECT_EQ(f.rows[0].role, "the cache");
  EXPECT_EQ(f.rows[0].max_text, "nan");
  EXPECT_FALSE(f.Line(" has infs"));  // no label
  EXPECT_FALSE(f.Line("Detected inf/nan during batch"));
}

TEST(FrameTables, RowCapIsCounted) {
  Feeder f;
  f.Line("Detected inf/nan during batch_number=0");
  f.Line(kPad + "m Linear");
  for (uint64_t i = 0; i < kMaxFrameRowsPerFile + 5; ++i) f.Line("1.00e+00 2.00e+00 weight");
  EXPECT_EQ(f.parser().rows(), kMaxFrameRowsPerFile);
  EXPECT_EQ(f.parser().dropped_rows(), 5u);
}

}  // namespace
}  // namespace casefile::numeric
