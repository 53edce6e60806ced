// The numeric analyzer end to end: bundles written here go through ingest
// into an index, and the analyzer reads them back. Each case pins the code,
// culprits and cited lines the rules of docs/FINDINGS.md ("numeric") give,
// with values written by hand; the must-not-fire cases are the look-alikes
// of real healthy runs (scaler calibration, bf16's constant scale, a noisy
// loss).
#include "analyze/analyzers/numeric/numeric_analyzer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "analyze/analyzer_test_util.h"
#include "analyze/analyzers/numeric/numeric_inputs.h"

namespace casefile {
namespace {

std::unique_ptr<IndexReader> Index(const test::TempDir& tmp, const std::string& root) {
  return test::IndexOf(tmp, root);
}

AnalysisResult RunNumeric(const IndexReader& index) {
  return test::RunOne(index, MakeNumericAnalyzer());
}

const Finding* Find(const AnalysisResult& r, const std::string& code) {
  return test::FindCode(r, code);
}

std::vector<std::string> Codes(const AnalysisResult& r) {
  std::vector<std::string> out;
  for (const Finding& f : r.findings) out.push_back(f.code);
  return out;
}

const Evidence* Cited(const Finding& f, const std::string& path, int64_t line) {
  for (const Evidence& e : f.evidence) {
    if (e.path == path && e.line == line) return &e;
  }
  return nullptr;
}

bool Contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

std::vector<std::vector<std::optional<std::string>>> Sql(const IndexReader& r,
                                                         const std::string& q) {
  std::vector<std::vector<std::optional<std::string>>> rows;
  r.Query(q, [&](const QueryRow& row) {
    rows.push_back(row.values);
    return true;
  });
  return rows;
}

// An HF Trainer dict line.
std::string Dict(const std::string& loss, const std::string& grad_norm = "0.8") {
  return "{'loss': " + loss + ", 'grad_norm': " + grad_norm +
         ", 'learning_rate': 1e-05, 'epoch': 0.1}\n";
}

const std::string kPad(18, ' ');

TEST(NumericAnalyzer, OverflowReportOnOneRank) {
  test::TempDir tmp;
  const std::string root = tmp.Join("bundle");
  std::string log =
      "[rank0]:{'loss': 1.61, 'grad_norm': 0.9, 'learning_rate': 1e-05, 'epoch': 1.0}\n"  // 1
      "[rank2]:output has infs\n"                                                         // 2
      "[rank2]:Detected inf/nan during batch_number=7\n"                                  // 3
      "[rank2]:Last 3 forward frames:\n"                                                  // 4
      "[rank2]:abs min  abs max  metadata\n"                                              // 5
      "[rank2]:" +
      kPad +
      "encoder.block.5.layer.1.DenseReluDense.wo Linear\n"  // 6
      "[rank2]:1.11e-06 6.93e+00 weight\n"                  // 7
      "[rank2]:0.00e+00 1.03e+04 input[0]\n"                // 8
      "[rank0]:step 4850 running\n"                         // 9
      "[rank2]:1.19e-05 6.31e+04 output\n"                  // 10
      "[rank2]:" +
      kPad +
      "encoder.block.5.layer.1.dropout Dropout\n"  // 11
      "[rank2]:8.91e-05 6.31e+04 input[0]\n"       // 12
      "[rank2]:0.00e+00      inf output\n"         // 13
      "[rank2]:" +
      kPad +
      "encoder.block.5 T5Block\n"                      // 14
      "[rank2]:     nan      nan output[0]\n"          // 15
      "[rank2]:Traceback (most recent call last):\n";  // 16
  test::WriteFile(root + "/logs/host-3/train.log", log);
  auto index = Index(tmp, root);
  const AnalysisResult r = RunNumeric(*index);
  ASSERT_EQ(r.analyzers.size(), 1u);
  EXPECT_EQ(r.analyzers[0].status, "ran") << r.analyzers[0].reason;
  ASSERT_EQ(Codes(r), std::vector<std::string>{"numeric.overflow"});
  const Finding& f = r.findings[0];
  EXPECT_EQ(f.severity, Severity::kError);
  ASSERT_EQ(f.culprits.size(), 1u);
  EXPECT_EQ(f.culprits[0].host, "host-3");
  EXPECT_EQ(f.culprits[0].rank, 2);
  const std::string path = "logs/host-3/train.log";
  const Evidence* detected = Cited(f, path, 3);
  ASSERT_NE(detected, nullptr);
  EXPECT_EQ(detected->text, "[rank2]:Detected inf/nan during batch_number=7");
  const Evidence* module = Cited(f, path, 11);
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(module->text, "[rank2]:" + kPad + "encoder.block.5.layer.1.dropout Dropout");
  EXPECT_NE(Cited(f, path, 2), nullptr);  // detect_overflow's line
  EXPECT_EQ(Cited(f, path, 14), nullptr);
  EXPECT_TRUE(Contains(f.summary, "batch 7")) << f.summary;
  EXPECT_TRUE(Contains(f.summary, "encoder.block.5.layer.1.dropout (Dropout)")) << f.summary;
  EXPECT_TRUE(Contains(f.summary, "6.31e+04")) << f.summary;
  EXPECT_TRUE(Contains(f.summary, "96% of the fp16 maximum 65504")) << f.summary;
  EXPECT_TRUE(Contains(f.recommendation, "encoder.block.5.layer.1.dropout")) << f.recommendation;

  // The rows as stored: one per tensor row, in frame order.
  const auto rows = Sql(*index,
                        "SELECT frame_index, module_class, role, min_text, max_text, abs_max, rank "
                        "FROM numeric_frames WHERE report_kind = 'overflow' ORDER BY line_no");
  ASSERT_EQ(rows.size(), 6u);
  EXPECT_EQ(rows[0][1], "Linear");
  EXPECT_EQ(rows[2][2], "output");
  EXPECT_EQ(rows[2][5], "63100.0");
  EXPECT_EQ(rows[4][0], "1");
  EXPECT_EQ(rows[4][4], "inf");
  EXPECT_EQ(rows[5][4], "nan");
  EXPECT_FALSE(rows[5][5]);  // NaN is stored as NULL
  EXPECT_EQ(rows[5][6], "2");
}

TEST(NumericAnalyzer, NanLossFromHfDictsOnRankZero) {
  test::TempDir tmp;
  const std::string root = tmp.Join("bundle");
  std::string log = "loading model\n";                                                    // 1
  for (const char* v : {"2.31", "2.28", "2.30", "2.27", "2.25", "2.26"}) log += Dict(v);  // 2-7
  log += Dict("nan", "nan");                                                              // 8
  log += Dict("nan", "nan");                                                              // 9
  test::WriteFile(root + "/nodes/gpu-1/train.log", log);
  auto index = Index(tmp, root);
  const AnalysisResult r = RunNumeric(*index);
  ASSERT_EQ(Codes(r), std::vector<std::string>{"numeric.nan_loss"});
  const Finding& f = r.findings[0];
  ASSERT_EQ(f.culprits.size(), 1u);
  EXPECT_EQ(f.culprits[0].host, "gpu-1");
  EXPECT_EQ(f.culprits[0].rank, 0);  // HF prints its dicts on the world's process zero
  ASSERT_NE(Cited(f, "nodes/gpu-1/train.log", 8), nullptr);
  EXPECT_EQ(Cited(f, "nodes/gpu-1/train.log", 9), nullptr);
  EXPECT_TRUE(Contains(f.summary, "The loss logged by rank 0 on gpu-1 became nan")) << f.summary;
  EXPECT_TRUE(Contains(f.summary, "last finite value was 2.26")) << f.summary;
  EXPECT_TRUE(Contains(f.summary, "did not spike")) << f.summary;
}

// A framework's NaN check raised before any logged loss went non-finite:
// the check is the finding, naming who raised it and the operation. A
// caught or unrelated exception is not one.
TEST(NumericAnalyzer, NanChecksThatStoppedTheRun) {
  test::TempDir tmp;
  const std::string root = tmp.Join("bundle");
  std::string log;
  for (const char* v : {"2.31", "2.28", "2.30"})
    log += "[rank6]:step 1 loss=" + std::string(v) + "\n";
  log +=
      "[rank6]:Traceback (most recent call last):\n"               // 4
      "[rank6]:  File \"/work/train.py\", line 90, in <module>\n"  // 5
      "[rank6]:    loss.backward()\n"                              // 6
      "[rank6]:RuntimeError: Function 'LogSoftmaxBackward0' returned nan values in its 0th "
      "output.\n";  // 7
  test::WriteFile(root + "/nodes/dgx-12/train.log", log);
  test::WriteFile(root + "/nodes/w-1/train.log",
                  "Traceback (most recent call last):\n"
                  "  File \"/app/train.py\", line 40, in step\n"
                  "FloatingPointError: invalid value (nan) encountered in jit(train_step)\n");
  auto index = Index(tmp, root);
  const AnalysisResult r = RunNumeric(*index);
  ASSERT_EQ(Codes(r), std::vector<std::string>{"numeric.nan_loss"});
  const Finding& f = r.findings[0];
  EXPECT_EQ(f.culprits.size(), 2u);
  EXPECT_NE(Cited(f, "nodes/dgx-12/train.log", 7), nullptr);
  EXPECT_NE(Cited(f, "nodes/w-1/train.log", 3), nullptr);
  EXPECT_TRUE(Contains(f.summary, "PyTorch's anomaly detection stopped rank 6 on dgx-12"))
      << f.summary;
  EXPECT_TRUE(Contains(f.summary, "2 ranks/hosts raised it")) << f.summary;
}

TEST(NumericAnalyzer, MegatronRerunNamesTheRankAndTheSpikeBeforeIt) {
  test::TempDir tmp;
  const std::string root = tmp.Join("bundle");
  auto iteration = [](int it, const char* loss) {
    return " iteration " + std::to_string(it) +
           "/  1000 | consumed samples: 100 | lm loss: " + loss +
           " | loss scale: 1.0 | grad norm: 0.3 | number of skipped iterations:   0 | number of "
           "nan iterations:   0 |\n";
  };
  std::string log;
  const char* losses[] = {"2.50E+00", "2.48E+00", "2.52E+00", "2.49E+00",
                          "2.51E+00", "2.47E+00", "9.90E+00"};
  for (int i = 0; i < 7; ++i) log += iteration(100 + i, losses[i]);  // lines 1-7; 7 spikes
  log +=
      "ERROR:megatron.core.rerun_state_machine:Unexpected result nan on rank 5 at iteration "
      "#107 invocation #1 (message='found NaN in local grad norm for bucket #0')\n";  // 8
  test::WriteFile(root + "/nodes/gpu-a-04/torchrun.log", log);
  auto index = Index(tmp, root);
  const AnalysisResult r = RunNumeric(*index);
  ASSERT_EQ(Codes(r), std::vector<std::string>{"numeric.nan_loss"});  // the spike is told there
  const Finding& f = r.findings[0];
  ASSERT_EQ(f.culprits.size(), 1u);
  EXPECT_EQ(f.culprits[0].host, "gpu-a-04");
  EXPECT_EQ(f.culprits[0].rank, 5);
  EXPECT_NE(Cited(f, "nodes/gpu-a-04/torchrun.log", 8), nullptr);
  EXPECT_NE(Cited(f, "nodes/gpu-a-04/torchrun.log", 7), nullptr);
  EXPECT_TRUE(Contains(f.summary, "local grad norm on rank 5")) << f.summary;
  EXPECT_TRUE(Contains(f.summary, "iteration 107")) << f.summary;
  EXPECT_TRUE(Contains(f.summary, "spiked to 9.9")) << f.summary;
}

TEST(NumericAnalyzer, LossStuckAtZeroIsAnInferredNan) {
  test::TempDir tmp;
  const std::string root = tmp.Join("bundle");
  std::string log;
  for (const char* v : {"1.92", "1.90", "1.85", "1.83"}) log += Dict(v);  // 1-4
  log += Dict("0.0") + Dict("0.0");                                       // 5-6
  test::WriteFile(root + "/nodes/gpu-2/train.log", log);
  auto index = Index(tmp, root);
  const AnalysisResult r = RunNumeric(*index);
  ASSERT_EQ(Codes(r), std::vector<std::string>{"numeric.nan_loss"});
  const Finding& f = r.findings[0];
  EXPECT_NE(Cited(f, "nodes/gpu-2/train.log", 5), nullptr);
  EXPECT_TRUE(Contains(f.summary, "Inferred")) << f.summary;
  EXPECT_TRUE(Contains(f.summary, "logging_nan_inf_filter")) << f.summary;
}

TEST(NumericAnalyzer, LossApproachingZeroIsNoNan) {
  test::TempDir tmp;
  const std::string root = tmp.Join("bundle");
  std::string log;
  for (const char* v : {"0.9", "0.3", "0.08", "0.02", "0.004", "0.0", "0.0"}) log += Dict(v);
  test::WriteFile(root + "/nodes/gpu-2/train.log", log);
  auto index = Index(tmp, root);
  EXPECT_TRUE(RunNumeric(*index).findings.empty());
}

TEST(NumericAnalyzer, SpikeWithoutNan) {
  test::TempDir tmp;
  const std::string root = tmp.Join("bundle");
  std::string log;
  const char* losses[] = {"1.31", "1.28", "1.30", "1.26", "1.29", "1.27", "6.40", "1.35", "1.25"};
  for (int i = 0; i < 9; ++i) {
    log += "[rank1]:step " + std::to_string(i + 1) + " loss=" + losses[i] + " lr=1e-4\n";
  }
  test::WriteFile(root + "/logs/node03/train.log", log);
  auto index = Index(tmp, root);
  const AnalysisResult r = RunNumeric(*index);
  ASSERT_EQ(Codes(r), std::vector<std::string>{"numeric.loss_spike"});
  const Finding& f = r.findings[0];
  EXPECT_EQ(f.severity, Severity::kWarning);
  ASSERT_EQ(f.culprits.size(), 1u);
  EXPECT_EQ(f.culprits[0].host, "node03");
  EXPECT_EQ(f.culprits[0].rank, 1);
  const Evidence* spike = Cited(f, "logs/node03/train.log", 7);
  ASSERT_NE(spike, nullptr);
  EXPECT_EQ(spike->text, "[rank1]:step 7 loss=6.40 lr=1e-4");
  // Median of 1.26 1.27 1.28 1.29 1.30 1.31 is 1.285; 6.40 / 1.285 = 4.98.
  EXPECT_TRUE(Contains(f.summary, "4.98x the median 1.285")) << f.summary;
  EXPECT_TRUE(Contains(f.summary, "at step 7")) << f.summary;
}

TEST(NumericAnalyzer, NoisyLossCurveIsHealthy) {
  test::TempDir tmp;
  const std::string root = tmp.Join("bundle");
  std::string log;
  // A decreasing loss with noise up to +-60% around its trend, and a grad
  // norm that jumps around: no spike by the 3x median rule.
  const double noise[] = {0.0, 0.5, -0.4, 0.6, -0.2, 0.3, -0.5, 0.55, 0.1, -0.3};
  for (int i = 0; i < 200; ++i) {
    const double trend = 3.0 - i * 0.01;
    const double loss = trend * (1 + noise[i % 10]);
    log += "{'loss': " + std::to_string(loss) +
           ", 'grad_norm': " + std::to_string(0.5 + (i % 7) * 3.0) +
           ", 'learning_rate': 1e-05, 'epoch': 0.1}\n";
  }
  test::WriteFile(root + "/nodes/gpu-1/train.log", log);
  auto index = Index(tmp, root);
  const AnalysisResult r = RunNumeric(*index);
  EXPECT_EQ(r.analyzers[0].status, "ran");
  EXPECT_TRUE(r.findings.empty()) << r.findings[0].code << ": " << r.findings[0].summary;
}

std::string Overflow(const std::string& attempted, const std::string& reduced, int rank = 0) {
  return "[2026-02-03 22:05:57,856] [INFO] [loss_scaler.py:183:update_scale] [deepspeed] "
         "OVERFLOW! Rank " +
         std::to_string(rank) + " Skipping step. Attempted loss scale: " + attempted +
         ", reducing to " + reduced + "\n";
}

const std::string kDsConfig =
    "{\n"
    "  \"fp16\": {\n"
    "    \"enabled\": true,\n"
    "    \"loss_scale\": 0,\n"
    "    \"initial_scale_power\": 16,\n"
    "    \"min_loss_scale\": 1\n"
    "  },\n"
    "  \"train_micro_batch_size_per_gpu\": 8\n"
    "}\n";

TEST(NumericAnalyzer, LossScaleCollapseAtTheMinimum) {
  test::TempDir tmp;
  const std::string root = tmp.Join("bundle");
  std::string log = Overflow("65536", "32768") + Overflow("32768", "16384");  // 1-2: calibration
  for (int i = 0; i < 5; ++i) log += Dict("2.5");                             // 3-7
  std::string scale = "16384";
  int line = 8;
  for (int s = 16384; s > 1; s /= 2, ++line)
    log += Overflow(std::to_string(s), std::to_string(s / 2));
  // lines 8-21 halve the scale down to 1; then it overflows at 1.
  EXPECT_EQ(line, 22);
  log += " 63%|######3   | 626/1000 [13:58<08:21,  1.34s/it]" + Overflow("1", "1");  // 22
  log += Overflow("1", "1") + Overflow("1", "1") + Overflow("1", "1");               // 23-25
  test::WriteFile(root + "/nodes/gpu-node-11/logs/train.log", log);
  test::WriteFile(root + "/config/ds_config.json", kDsConfig);
  auto index = Index(tmp, root);
  const AnalysisResult r = RunNumeric(*index);
  ASSERT_EQ(Codes(r), std::vector<std::string>{"numeric.loss_scale_collapse"});
  const Finding& f = r.findings[0];
  EXPECT_TRUE(f.culprits.empty());  // run-wide: only rank 0 is named
  const Evidence* first = Cited(f, "nodes/gpu-node-11/logs/train.log", 22);
  ASSERT_NE(first, nullptr);
  EXPECT_TRUE(Contains(first->text, "Attempted loss scale: 1, reducing to 1")) << first->text;
  EXPECT_TRUE(Contains(f.summary, "minimum scale 1")) << f.summary;
  EXPECT_TRUE(Contains(f.summary, "4 of the 20 overflow lines")) << f.summary;
  EXPECT_TRUE(Contains(f.recommendation, "initial_scale_power")) << f.recommendation;
  EXPECT_TRUE(Contains(f.recommendation, "bf16")) << f.recommendation;
}

TEST(NumericAnalyzer, CollapseOnAnotherRankNamesIt) {
  test::TempDir tmp;
  const std::string root = tmp.Join("bundle");
  std::string log;
  for (int i = 0; i < 3; ++i) log += Overflow("1", "1", 3);
  test::WriteFile(root + "/nodes/gpu-5/train.log", log);
  auto index = Index(tmp, root);
  const AnalysisResult r = RunNumeric(*index);
  ASSERT_EQ(Codes(r), std::vector<std::string>{"numeric.loss_scale_collapse"});
  ASSERT_EQ(r.findings[0].culprits.size(), 1u);
  EXPECT_EQ(r.findings[0].culprits[0].rank, 3);
  EXPECT_EQ(r.findings[0].culprits[0].host, "gpu-5");
}

// Review of issue 5: a scaler without a floor (Apex, GradScaler) that falls
// far below 1 must be described as an underflow with the lowest scale, not as
// "reached its minimum scale 1".
TEST(NumericAnalyzer, ScalerWithoutAFloorUnderflows) {
  test::TempDir tmp;
  const std::string root = tmp.Join("bundle");
  std::string log;
  double scale = 65536;
  for (int i = 0; i < 30; ++i) {
    scale /= 2;
    char line[160];
    std::snprintf(line, sizeof line,
                  "Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to %g\n",
                  scale);
    log += line;
  }
  test::WriteFile(root + "/nodes/gpu-1/train.log", log);
  auto index = Index(tmp, root);
  const AnalysisResult r = RunNumeric(*index);
  ASSERT_EQ(Codes(r), std::vector<std::string>{"numeric.loss_scale_collapse"});
  const std::string& summary = r.findings[0].summary;
  EXPECT_NE(summary.find("underflowed"), std::string::npos) << summary;
  EXPECT_NE(summary.find("6.104e-05"), std::string::npos) << summary;  // 65536 / 2^30
  EXPECT_EQ(summary.find("minimum scale 1"), std::string::npos) << summary;
}

// A scale logged as a metric (torch GradScaler.get_scale(), Apex's
// loss_scale) beside the loss, with no scaler message in the log.
std::string KeyValueScale(int step, const std::string& scale) {
  return "step " + std::to_string(step) + " loss=2.31 grad_norm=0.9 loss_scale=" + scale + "\n";
}

TEST(NumericAnalyzer, LoggedScaleWithoutAFloorUnderflows) {
  test::TempDir tmp;
  const std::string root = tmp.Join("bundle");
  std::string log;
  for (int i = 1; i < 60; ++i) log += KeyValueScale(i, i < 20 ? "65536.0" : "0.5");
  log += KeyValueScale(60, "3.7e-09");
  test::WriteFile(root + "/nodes/gpu-1/train.log", log);
  auto index = Index(tmp, root);
  const AnalysisResult r = RunNumeric(*index);
  ASSERT_EQ(Codes(r), std::vector<std::string>{"numeric.loss_scale_collapse"});
  const std::string& summary = r.findings[0].summary;
  EXPECT_NE(summary.find("underflowed"), std::string::npos) << summary;
  EXPECT_NE(summary.find("3.7e-09"), std::string::npos) << summary;
  EXPECT_NE(summary.find("from 6.554e+04"), std::string::npos) << summary;  // %.4g of 65536
  // The evidence is the line of the first scale far below 1 (line 60).
  ASSERT_FALSE(r.findings[0].evidence.empty());
  EXPECT_EQ(r.findings[0].evidence[0].line, 60);
  EXPECT_NE(r.findings[0].evidence[0].text.find("loss_scale=3.7e-09"), std::string::npos);
}

TEST(NumericAnalyzer, LoggedScaleInHfDictsAndBareScaleKey) {
  {
    test::TempDir tmp;
    const std::string root = tmp.Join("bundle");
    std::string log;
    for (int i = 0; i < 10; ++i) log += Dict("2.3" + std::to_string(i));
    log += "{'loss': 2.31, 'grad_norm': 0.9, 'loss_scale': 1.1e-10, 'epoch': 59}\n";
    test::WriteFile(root + "/nodes/gpu-1/train.log", log);
    auto index = Index(tmp, root);
    EXPECT_EQ(Codes(RunNumeric(*index)), std::vector<std::string>{"numeric.loss_scale_collapse"});
  }
  {
    test::TempDir tmp;
    const std::string root = tmp.Join("bundle");
    test::WriteFile(root + "/nodes/gpu-1/train.log",
                    "step 4 loss=2.32 scale=2.0\nstep 5 loss=2.31 scale=0.0\n");
    auto index = Index(tmp, root);
    EXPECT_EQ(Codes(RunNumeric(*index)), std::vector<std::string>{"numeric.loss_scale_collapse"});
  }
}

TEST(NumericAnalyzer, LoggedScaleCalibrationAndBf16AreHealthy) {
  test::TempDir tmp;
  const std::string root = tmp.Join("bundle");
  // fp16: the scaler halves on overflows and grows back, never below 1.
  std::string fp16;
  const char* scales[] = {"65536.0", "32768.0", "65536.0", "16384.0", "32768.0", "65536.0"};
  for (int i = 0; i < 60; ++i) fp16 += KeyValueScale(i, scales[i % std::size(scales)]);
  test::WriteFile(root + "/nodes/gpu-1/train.log", fp16);
  // bf16: no scaling, the scale is logged as a constant 1.
  std::string bf16;
  for (int i = 0; i < 60; ++i) {
    bf16 +=
        "{'loss': 2.31, 'grad_norm': 0.9, 'loss_scale': 1.0, 'step': " + std::to_string(i) + "}\n";
  }
  test::WriteFile(root + "/nodes/gpu-2/train.log", bf16);
  auto index = Index(tmp, root);
  EXPECT_TRUE(RunNumeric(*index).findings.empty());
}

TEST(NumericAnalyzer, EarlyCalibrationIsHealthy) {
  test::TempDir tmp;
  const std::string root = tmp.Join("bundle");
  std::string log = Overflow("4294967296", "2147483648");
  for (int64_t s = 2147483648; s > 8192; s /= 2)
    log += Overflow(std::to_string(s), std::to_string(s / 2));
  for (int i = 0; i < 30; ++i) log += Dict(std::to_string(3.0 - i * 0.02));
  log += Overflow("16384", "8192");  // a later, isolated overflow
  test::WriteFile(root + "/nodes/gpu-c-01/train.log", log);
  test::WriteFile(root + "/config/ds_config.json", kDsConfig);
  auto index = Index(tmp, root);
  EXPECT_TRUE(RunNumeric(*index).findings.empty());
}

std::string MegatronIteration(int it, const std::string& scale, int skipped) {
  return " [2026-03-14 01:49:41] iteration " + std::to_string(it) +
         "/   20000 | consumed samples: 1024 | lm loss: 2.476230E+00 | loss scale: " + scale +
         " | grad norm: 0.316 | number of skipped iterations:   " + std::to_string(skipped) +
         " | number of nan iterations:   0 |\n";
}

TEST(NumericAnalyzer, Bf16ConstantLossScaleIsHealthy) {
  test::TempDir tmp;
  const std::string root = tmp.Join("bundle");
  std::string log;
  for (int i = 1; i <= 50; ++i) log += MegatronIteration(i, "1.0", 0);
  test::WriteFile(root + "/nodes/gpu-a-11/torchrun.log", log);
  auto index = Index(tmp, root);
  EXPECT_TRUE(RunNumeric(*index).findings.empty());
}

TEST(NumericAnalyzer, MegatronScaleFallsToTheMinimum) {
  test::TempDir tmp;
  const std::string root = tmp.Join("bundle");
  std::string log = MegatronIteration(1, "4096.0", 0) + MegatronIteration(2, "64.0", 6) +
                    MegatronIteration(3, "2.0", 5);                     // 1-3
  for (int i = 4; i <= 8; ++i) log += MegatronIteration(i, "1.0", 10);  // 4-8
  test::WriteFile(root + "/nodes/gpu-x-1/torchrun.log", log);
  auto index = Index(tmp, root);
  const AnalysisResult r = RunNumeric(*index);
  ASSERT_EQ(Codes(r), std::vector<std::string>{"numeric.loss_scale_collapse"});
  const Finding& f = r.findings[0];
  EXPECT_NE(Cited(f, "nodes/gpu-x-1/torchrun.log", 4), nullptr);
  EXPECT_TRUE(Contains(f.summary, "5 of the 5 iteration lines")) << f.summary;
  EXPECT_TRUE(Contains(f.summary, "by step 4")) << f.summary;
}

const std::string kModelConfig =
    "{\n"
    "  \"architectures\": [\"LlamaForCausalLM\"],\n"
    "  \"hidden_size\": 3072,\n"
    "  \"torch_dtype\": \"bfloat16\",\n"
    "  \"vocab_size\": 128256\n"
    "}\n";

TEST(NumericAnalyzer, Bf16ModelTrainedInFp16) {
  test::TempDir tmp;
  const std::string root = tmp.Join("bundle");
  test::WriteFile(root + "/model/llama/config.json", kModelConfig);
  test::WriteFile(root + "/config/ds_config.json", kDsConfig);
  test::WriteFile(root + "/logs/train.log", Dict("2.1") + Dict("2.0"));
  auto index = Index(tmp, root);
  const AnalysisResult r = RunNumeric(*index);
  ASSERT_EQ(Codes(r), std::vector<std::string>{"numeric.bf16_in_fp16"});
  const Finding& f = r.findings[0];
  EXPECT_EQ(f.severity, Severity::kWarning);
  EXPECT_TRUE(f.culprits.empty());
  const Evidence* dtype = Cited(f, "model/llama/config.json", 4);
  ASSERT_NE(dtype, nullptr);
  EXPECT_EQ(dtype->text, "  \"torch_dtype\": \"bfloat16\",");
  const Evidence* enabled = Cited(f, "config/ds_config.json", 3);
  ASSERT_NE(enabled, nullptr);
  EXPECT_EQ(enabled->text, "    \"enabled\": true,");
}

TEST(NumericAnalyzer, Bf16WithAutoFp16NeedsTheCommandLine) {
  const std::string auto_config =
      "{\"fp16\": {\"enabled\": \"auto\"}, \"bf16\": {\"enabled\": \"auto\"}}\n";
  for (const bool fp16_flag : {true, false}) {
    test::TempDir tmp;
    const std::string root = tmp.Join("bundle");
    test::WriteFile(root + "/model/llama/config.json", kModelConfig);
    test::WriteFile(root + "/config/ds_config.json", auto_config);
    const std::string flag = fp16_flag ? "--fp16" : "--bf16 True";
    test::WriteFile(root + "/logs/train.log", "+ deepspeed train.py --deepspeed ds_config.json " +
                                                  flag + " --do_train\n" + Dict("2.1"));
    auto index = Index(tmp, root);
    const AnalysisResult r = RunNumeric(*index);
    if (!fp16_flag) {
      EXPECT_TRUE(r.findings.empty());
      continue;
    }
    ASSERT_EQ(Codes(r), std::vector<std::string>{"numeric.bf16_in_fp16"});
    EXPECT_NE(Cited(r.findings[0], "logs/train.log", 1), nullptr);
    EXPECT_NE(Cited(r.findings[0], "config/ds_config.json", 1), nullptr);
    EXPECT_TRUE(Contains(r.findings[0].summary, "--fp16")) << r.findings[0].summary;
  }
}

TEST(NumericAnalyzer, Bf16BecomesAnErrorWithANan) {
  test::TempDir tmp;
  const std::string root = tmp.Join("bundle");
  test::WriteFile(root + "/model/llama/config.json", kModelConfig);
  test::WriteFile(root + "/config/ds_config.json", kDsConfig);
  test::WriteFile(root + "/logs/train.log", Dict("2.1") + Dict("2.0") + Dict("nan"));
  auto index = Index(tmp, root);
  const AnalysisResult r = RunNumeric(*index);
  const Finding* bf16 = Find(r, "numeric.bf16_in_fp16");
  const Finding* nan = Find(r, "numeric.nan_loss");
  ASSERT_NE(bf16, nullptr);
  ASSERT_NE(nan, nullptr);
  EXPECT_EQ(bf16->severity, Severity::kError);
  EXPECT_TRUE(Contains(bf16->summary, "numeric.nan_loss")) << bf16->summary;
  EXPECT_TRUE(Contains(nan->summary, "numeric.bf16_in_fp16")) << nan->summary;
}

TEST(NumericAnalyzer, TrainerStateWhenNoLogHasALoss) {
  test::TempDir tmp;
  const std::string root = tmp.Join("bundle");
  test::WriteFile(root + "/nodes/gpu-9/checkpoint-300/trainer_state.json",
                  "{\n"
                  "  \"global_step\": 300,\n"
                  "  \"log_history\": [\n"
                  "    {\n"
                  "      \"epoch\": 0.1,\n"
                  "      \"grad_norm\": 0.9,\n"
                  "      \"loss\": 2.4,\n"
                  "      \"step\": 100\n"
                  "    },\n"
                  "    {\n"
                  "      \"epoch\": 0.2,\n"
                  "      \"grad_norm\": NaN,\n"
                  "      \"loss\": 2.3,\n"
                  "      \"step\": 200\n"
                  "    }\n"
                  "  ]\n"
                  "}\n");
  test::WriteFile(root + "/nodes/gpu-9/stdout.log", "training started\n");
  auto index = Index(tmp, root);
  const AnalysisResult r = RunNumeric(*index);
  ASSERT_EQ(Codes(r), std::vector<std::string>{"numeric.nan_loss"});
  const Finding& f = r.findings[0];
  EXPECT_NE(Cited(f, "nodes/gpu-9/checkpoint-300/trainer_state.json", 12), nullptr);
  EXPECT_TRUE(Contains(f.summary, "grad norm")) << f.summary;
  EXPECT_TRUE(Contains(f.summary, "step 200")) << f.summary;
}

TEST(NumericAnalyzer, MetricsViewListsEveryPoint) {
  test::TempDir tmp;
  const std::string root = tmp.Join("bundle");
  test::WriteFile(root + "/logs/host-2/rank3.log",
                  "step 10 loss=2.5000 grad_norm=inf\n"
                  "nothing here\n"
                  "step 11 loss=NaN grad_norm=1e-05\n");
  test::WriteFile(root + "/logs/host-2/rank4.log",
                  "step 7 loss=3.0\nstep 9 loss=2.9\nx\nstep 8 loss=2.8\nloss=2.7\n");
  auto index = Index(tmp, root);
  const auto rows = Sql(*index,
                        "SELECT line_no, host, rank, step, name, value, value_text, form "
                        "FROM metrics WHERE rank = 3 ORDER BY name, line_no");
  ASSERT_EQ(rows.size(), 4u);
  using Row = std::vector<std::optional<std::string>>;
  EXPECT_EQ(rows[0], (Row{"1", "host-2", "3", "10", "grad_norm", "Inf", "inf", "key_value"}));
  EXPECT_EQ(rows[1], (Row{"3", "host-2", "3", "11", "grad_norm", "1.0e-05", "1e-05", "key_value"}));
  EXPECT_EQ(rows[2], (Row{"1", "host-2", "3", "10", "loss", "2.5", "2.5000", "key_value"}));
  EXPECT_EQ(rows[3], (Row{"3", "host-2", "3", "11", "loss", std::nullopt, "nan", "key_value"}));

  // Lines and steps are running sums inside a chunk, also when the query
  // filters (steps may go back; a line without one has none).
  const auto rank4 = Sql(*index,
                         "SELECT line_no, step, value_text FROM metrics WHERE file_id = (SELECT id "
                         "FROM files WHERE path LIKE '%rank4.log') AND name = 'loss' ORDER BY "
                         "line_no");
  ASSERT_EQ(rank4.size(), 4u);
  EXPECT_EQ(rank4[0], (Row{"1", "7", "3.0"}));
  EXPECT_EQ(rank4[1], (Row{"2", "9", "2.9"}));
  EXPECT_EQ(rank4[2], (Row{"4", "8", "2.8"}));
  EXPECT_EQ(rank4[3], (Row{"5", std::nullopt, "2.7"}));
}

TEST(NumericAnalyzer, NotApplicableWithoutLogsOrConfigs) {
  test::TempDir tmp;
  const std::string root = tmp.Join("bundle");
  test::WriteFile(
      root + "/env/nvidia-smi.txt",
      "+-----------------------------------------------------------------------------+\n"
      "| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2     |\n");
  auto index = Index(tmp, root);
  const AnalysisResult r = RunNumeric(*index);
  ASSERT_EQ(r.analyzers.size(), 1u);
  EXPECT_EQ(r.analyzers[0].status, "not_applicable");
  EXPECT_TRUE(r.findings.empty());
}

TEST(NumericAnalyzer, StepTimesAreNotDecodedWithTheCurves) {
  // Megatron's iteration lines give a loss and a step time per iteration:
  // the index holds both series, and the analyzer's scan of the metrics
  // reads the loss only (it has no rule on step times; the hang analyzer
  // reads them).
  test::TempDir tmp;
  const std::string root = tmp.Join("bundle");
  std::string log;
  for (int i = 1; i <= 30; ++i) {
    log += " iteration " + std::to_string(i) +
           "/    1000 | elapsed time per iteration (ms): 1000.0 | lm loss: 7.0" +
           std::to_string(i % 10) + "E+00 | loss scale: 65536.0 |\n";
  }
  test::WriteFile(root + "/nodes/gpu-1/train.log", log);
  auto index = Index(tmp, root);
  std::set<std::string> stored;
  for (const auto& row : Sql(*index, "SELECT DISTINCT name FROM metric_chunks")) {
    stored.insert(row[0].value_or(""));
  }
  ASSERT_TRUE(stored.count("loss"));
  ASSERT_TRUE(stored.count("step_time"));
  std::set<std::string> scanned;
  numeric::ScanMetricGroups(*index, index->Files(), [&](const numeric::MetricGroup& g) {
    for (const auto& [name, points] : g.series) {
      scanned.insert(name);
      if (name == "loss") {
        EXPECT_EQ(points.size(), 30u);
      }
    }
  });
  EXPECT_TRUE(scanned.count("loss"));
  EXPECT_FALSE(scanned.count("step_time"));
  EXPECT_TRUE(Codes(RunNumeric(*index)).empty());
}

}  // namespace
}  // namespace casefile
