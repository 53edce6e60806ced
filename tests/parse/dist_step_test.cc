// step_time events (step_time.cc, step_forms.cc) from lines run through the
// prefix parsing ingest uses. Expected steps and seconds are read off each
// sample by hand (ms / 1000, 1 / it_s).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "dist_test_util.h"
#include "parse/dist/dist_family.h"
#include "parse/dist/dist_kinds.h"
#include "parse/dist/step_forms.h"
#include "parse/line/line_prefix.h"

namespace casefile::dist {
namespace {

std::vector<DistEventRow> Read(const std::vector<std::string>& lines) {
  return test::FeedFamily(*MakeStepTimeFamily(), lines, 4, 2026);
}

// The one event of a one-line input.
DistEventRow One(const std::string& line) {
  const auto rows = Read({line});
  EXPECT_EQ(rows.size(), 1u) << line;
  return rows.empty() ? DistEventRow() : rows[0];
}

void ExpectStep(const std::string& line, int64_t step, double seconds, const std::string& form) {
  const DistEventRow r = One(line);
  EXPECT_EQ(r.kind, std::string(kStepTime)) << line;
  EXPECT_EQ(r.seq.value_or(-1), step) << line;
  EXPECT_NEAR(r.value.value_or(-1), seconds, 1e-9) << line;
  EXPECT_EQ(r.detail.value_or(""), form) << line;
}

TEST(DistStep, Megatron) {
  ExpectStep(
      " iteration       10/  500000 | consumed samples:          640 | elapsed time per "
      "iteration (ms): 4567.8 | learning rate: 1.500E-05 | global batch size:    64 | lm loss: "
      "7.123E+00 |",
      10, 4.5678, "elapsed time per iteration");
}

TEST(DistStep, TqdmBars) {
  ExpectStep(
      " 45%|\xE2\x96\x88\xE2\x96\x88\xE2\x96\x88\xE2\x96\x88\xE2\x96\x8C     | 450/1000 "
      "[10:01<12:14,  1.34s/it]",
      450, 1.34, "tqdm total=1000");
  ExpectStep("451/1000 [10:02<03:06,  2.95it/s, loss=2.1]", 451, 1 / 2.95, "tqdm total=1000");
  // Lightning counts per epoch: epoch 2 of 1000 batches, batch 450.
  ExpectStep("Epoch 2:  45%|####5     | 450/1000 [10:01<12:14,  2.00it/s, v_num=3]", 2450, 0.5,
             "tqdm total=1000");
}

TEST(DistStep, TqdmBarsThatAreNotTrainingSteps) {
  EXPECT_TRUE(Read({
                       "Loading checkpoint shards: 100%|##########| 4/4 [00:12<00:00,  3.05s/it]",
                       "Map: 100%|##########| 1000/1000 [00:01<00:00, 812.33 examples/s]",
                       "Evaluating:  40%|####      | 8/20 [00:02<00:03,  3.90it/s]",
                       "450it [10:01,  1.34s/it]",
                       "  0%|          | 0/1000 [00:00<?, ?it/s]",
                       "450/1000 [10:01<12:14,  1.3",
                   })
                  .empty());
}

TEST(DistStep, KeyValueForms) {
  ExpectStep("step 120 | loss 2.31 | step_time=0.41s", 120, 0.41, "step_time");
  ExpectStep("step=121 loss=2.31 time=0.42", 121, 0.42, "time");
  ExpectStep("Step 122: loss 2.31 (0.43 s/step)", 122, 0.43, "rate");
  ExpectStep("step 123 took 0.44s", 123, 0.44, "took");
  ExpectStep("[step 124] loss 2.31, 412ms/step", 124, 0.412, "rate");
  ExpectStep("iter 125 | loss 2.31 | time: 0.45", 125, 0.45, "time");
  ExpectStep("{\"step\": 126, \"step_time\": 0.46, \"loss\": 2.3}", 126, 0.46, "step_time");
  ExpectStep("{'loss': 2.3, 'step': 127, 'step_time': 0.47}", 127, 0.47, "step_time");
}

TEST(DistStep, Units) {
  ExpectStep("step 5 step_time_ms=412", 5, 0.412, "step_time_ms");
  ExpectStep("step 6 | time: 1.5 sec", 6, 1.5, "time");
  ExpectStep("step 7 | time: 2 seconds", 7, 2, "time");
  ExpectStep("step 8 | time: 250 ms", 8, 0.25, "time");
  ExpectStep("step 9 | step_time: 0.5 min", 9, 30, "step_time");
  ExpectStep("step 10 | time_ms: 125", 10, 0.125, "time_ms");
  ExpectStep("step 11 | iter_time (ms): 90", 11, 0.09, "iter_time");
}

TEST(DistStep, FrameworkLines) {
  // MaxText.
  ExpectStep(
      "completed step: 120, seconds: 0.412, TFLOP/s/device: 130.2, Tokens/s/device: "
      "4021.7, total_weights: 65536, loss: 2.310",
      120, 0.412, "seconds");
  // NeMo's bar: global_step is a float and wins over the bar's count.
  ExpectStep(
      "Epoch 0: :  12%|#         | 120/1000 [02:00<14:40, reduced_train_loss=2.300, "
      "global_step=119.0, consumed_samples=30720.0, train_step_timing in s=0.412]",
      119, 0.412, "train_step_timing");
  // mmengine.
  ExpectStep(
      "Iter(train) [  50/1000]  lr: 1.0000e-04  eta: 0:10:00  time: 0.4120  data_time: "
      "0.0100  memory: 1234  loss: 2.3",
      50, 0.412, "time");
}

TEST(DistStep, LookAlikesEmitNothing) {
  EXPECT_TRUE(Read({
                       "timestep 500 took 0.3s",
                       "steps_per_print .............. 10",
                       "{'step_time': null, 'step': 5}",
                       "warmup_steps=100 time=0.5",
                       "epoch=0/micro_step=10/global_step=10, RunningAvgSamplesPerSec=45.31, "
                       "CurrSamplesPerSec=46.02, MemAllocated=12.4GB, MaxMemAllocated=20.1GB",
                       "[Rank 0] time (ms) | forward: 123.45 | backward: 234.56 | "
                       "backward_inner: 200.12 | step: 12.30",
                       "Saving checkpoint at step 1000, took 12.3s",
                       "Evaluation at step 500: time 3.2s",
                       " validation loss at iteration 500 | lm loss value: 2.1 | time: 3.2",
                       "step 120, loss 2.3",
                       "time=0.41s loss=2.3",
                       "step 12:30 time 5s",
                       "step 5 time: 2024-05-01 12:00:00",
                       "step 5 | time=1700000000.5",
                       "step 6 | time: 5x",
                       "step 7 | took: 0.4",
                       "step 8 took 0.4",
                       "loss 2.3 lr 1e-4",
                   })
                  .empty());
}

// The form reader finds the words through their rare letters ('p' and 'r'
// of the step words, 'm' and 'c' of the time keys), in any case, wherever
// those letters sit in the word and however many times. (Upper-case lines
// do not reach it in ingest: the anchors want a lower-case time word.)
TEST(DistStep, FormReaderTakesWordsInAnyCase) {
  struct Case {
    const char* line;
    int64_t step;
    double seconds;
    const char* form;
  };
  for (const Case& c : {
           Case{"STEP 5 TIME=0.4", 5, 0.4, "time"},
           Case{"ITER 7 SECS: 2", 7, 2, "secs"},
           Case{"Iteration 8 | Seconds: 1.5", 8, 1.5, "seconds"},
           Case{"GLOBAL_STEP=9 step=3 STEP_TIME_MS=412", 9, 0.412, "step_time_ms"},
           Case{"mmm ccc step 4 mcmc ms_per_step=250", 4, 0.25, "ms_per_step"},
           Case{"step 6 Time per step: 0.5 time per step: 0.7", 6, 0.7, "time per step"},
       }) {
    step::StepTime st;
    ASSERT_TRUE(step::ReadStepTime(c.line, &st)) << c.line;
    EXPECT_EQ(st.step, c.step) << c.line;
    EXPECT_NEAR(st.seconds, c.seconds, 1e-9) << c.line;
    EXPECT_EQ(std::string(st.form), c.form) << c.line;
  }
}

// Checkpoint and evaluation lines are dropped whatever the case of the word
// and wherever it is; words that only look close are not.
TEST(DistStep, CheckpointAndEvaluationWordsInAnyCaseAndPlace) {
  for (const std::string line : {
           "SAVED step 3 step_time=0.4s",
           "step 3 step_time=0.4s [saving]",
           "step 3 step_time=0.4s checkpointing",
           "step 3 step_time=0.4s CheckPoint",
           "step 3 step_time=0.4s Reevaluating",
           "VALIDATION step 3 step_time=0.4s",
       }) {
    EXPECT_TRUE(Read({line}).empty()) << line;
  }
  ExpectStep("step 3 step_time=0.4s saver ckpt valid check point", 3, 0.4, "step_time");
}

TEST(DistStep, InterleavedRanksKeepTheirWrappers) {
  const auto rows = Read({
      "[rank0]: step 10 step_time=0.40s",
      "[rank1]: step 10 step_time=0.52s",
      "node-2: [rank5]: step 10 step_time=0.41s",
      "3: step 11 | time: 0.39",
  });
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].rank.value_or(-1), 0);
  EXPECT_EQ(rows[1].rank.value_or(-1), 1);
  EXPECT_NEAR(rows[1].value.value_or(0), 0.52, 1e-9);
  EXPECT_EQ(rows[2].rank.value_or(-1), 5);
  EXPECT_EQ(rows[2].host.value_or(""), "node-2");
  EXPECT_EQ(rows[3].rank.value_or(-1), 3);  // srun -l label
  EXPECT_EQ(rows[3].seq.value_or(-1), 11);
  EXPECT_EQ(rows[3].line_no, 4);
}

TEST(DistStep, CutLines) {
  EXPECT_TRUE(Read({"step 120 step_time=", "step 12", "[step 1"}).empty());
  // Cut before its unit: the number alone is read as seconds.
  ExpectStep("step 120 step_time=0.4", 120, 0.4, "step_time");
}

TEST(DistStep, HostileLinesStayBounded) {
  std::string rates;
  while (rates.size() < 200000) rates += "3/9 [00:01<00:02, 1.5s/it, 2.0it/s] ";
  std::string words;
  while (words.size() < 200000) words += "step step_time= iter time: 1.5s/step/it ";
  std::string spaces = "step 1 time " + std::string(100000, ' ') + "x";
  const auto rows = Read({rates, words, spaces});
  // The bar is read once (its first rate); the rest give nothing.
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].seq.value_or(-1), 3);
  EXPECT_NEAR(rows[0].value.value_or(0), 1.5, 1e-9);
}

TEST(DistStep, PrefilterKeepsEveryFormAndRejectsOthers) {
  for (const char* s : {"step 1 time 2", "Step 1 took 2s", "iter 1 (ms): 3", "Iteration 1, 2 sec",
                        "1/9 [00:01<00:02, 1.3s/it]", "1/9 [00:01<00:02, 2.9it/s]",
                        "global_step=3 step_timing in s=1", "step 4 4 min"}) {
    EXPECT_TRUE(step::MayHoldStep(s)) << s;
  }
  for (const char* s :
       {"step 120 loss 2.3 lr 1e-4", "time 0.4 loss 2", "Traceback (most recent call last):", "",
        "t", "STEP 1 TIME 2", "optimizer step 5 done", "step 5 items 3 admin"}) {
    EXPECT_FALSE(step::MayHoldStep(s)) << s;
  }
}

}  // namespace
}  // namespace casefile::dist
