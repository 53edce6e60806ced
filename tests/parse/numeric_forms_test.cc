// The metric forms (lib/parse/numeric/metric_forms.cc): every form reads its
// own sample, and the families of real lines read as the form tables of
// docs/FINDINGS.md ("numeric") say, including what must not be read.
#include <gtest/gtest.h>

#include <string>

#include "parse/numeric/metric_forms.h"
#include "parse/numeric/numeric_prefilter.h"

namespace casefile::numeric {
namespace {

struct Read {
  std::string form;  // "" when no form read the line
  LineMetrics m;
  std::string Text(const char* name) const {
    for (size_t k = 0; k < m.count; ++k) {
      if (m.items[k].name == name) return std::string(m.items[k].value.text);
    }
    return "<none>";
  }
};

Read ReadLine(std::string_view msg) {
  Read r;
  if (const MetricForm* f = ReadMetricLine(msg, ScanLiterals(msg), &r.m)) r.form = f->name;
  return r;
}

TEST(MetricForms, EverySampleReadsAsItsOwnForm) {
  for (const MetricForm& f : MetricForms()) {
    const Read r = ReadLine(f.sample);
    EXPECT_EQ(r.form, f.name) << f.sample;
    EXPECT_GT(r.m.count, 0u) << f.name;
  }
}

TEST(MetricForms, DeepSpeedOverflowVariants) {
  Read r = ReadLine(
      "[deepspeed] OVERFLOW! Rank 3 Skipping step. Attempted loss scale: 1, reducing to 1");
  EXPECT_EQ(r.form, "deepspeed_overflow");
  EXPECT_EQ(r.m.named_rank, 3);
  EXPECT_EQ(r.Text(kOverflowSkip), "1");
  EXPECT_EQ(r.Text(kScaleAttempted), "1");
  EXPECT_EQ(r.Text(kScaleReducedTo), "1");

  // The old tag, a float scale, no tag at all.
  r = ReadLine(
      " [deepscale] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 262144, reducing to "
      "131072.0");
  EXPECT_EQ(r.Text(kScaleReducedTo), "131072.0");
  r = ReadLine("OVERFLOW! Rank 12 Skipping step. Attempted loss scale: 4096, reducing to 2048");
  EXPECT_EQ(r.m.named_rank, 12);

  // Glued behind a tqdm bar on the same line.
  r = ReadLine(
      " 63%|######3   | 626/1000 [13:58<08:21,  1.34s/it][2026-02-03 22:19:56,702] [INFO] "
      "[loss_scaler.py:183:update_scale] [deepspeed] OVERFLOW! Rank 0 Skipping step. "
      "Attempted loss scale: 1, reducing to 1");
  EXPECT_EQ(r.form, "deepspeed_overflow");
  EXPECT_EQ(r.Text(kScaleAttempted), "1");

  // Hysteresis: the scale is not reduced on this overflow.
  r = ReadLine(
      "[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 65536, but "
      "hysteresis is 2. Reducing hysteresis to 1");
  EXPECT_EQ(r.Text(kScaleAttempted), "65536");
  EXPECT_EQ(r.Text(kScaleReducedTo), "<none>");
  EXPECT_EQ(r.Text(kOverflowSkip), "1");

  // FP16_Optimizer through log_dist: the rank before the words.
  r = ReadLine(
      "[2024-05-01 10:00:00,000] [INFO] [logging.py:96:log_dist] [Rank 5] Overflow detected. "
      "Skipping step. Attempted loss scale: 1.0, reducing to 1.0");
  EXPECT_EQ(r.form, "deepspeed_overflow_detected");
  EXPECT_EQ(r.m.named_rank, 5);
  EXPECT_EQ(r.Text(kScaleAttempted), "1.0");
  EXPECT_EQ(r.Text(kScaleReducedTo), "1.0");
}

TEST(MetricForms, FairseqScaler) {
  Read r = ReadLine(
      "2024-05-01 10:00:00 | INFO | fairseq.trainer | NOTE: gradient overflow detected, ignoring "
      "gradient, setting loss scale to: 0.0009765625");
  EXPECT_EQ(r.form, "fairseq_overflow");
  EXPECT_EQ(r.Text(kOverflowSkip), "1");
  EXPECT_EQ(r.Text(kScaleReducedTo), "0.0009765625");
  r = ReadLine(
      "FloatingPointError: Minimum loss scale reached (0.0001). Your loss is probably exploding. "
      "Try lowering the learning rate, using gradient clipping or increasing the batch size.");
  EXPECT_EQ(r.form, "fairseq_min_scale");
  EXPECT_EQ(r.Text(kScaleAtMinimum), "1");
}

TEST(MetricForms, OtherScalerMessages) {
  Read r = ReadLine(
      "Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to 0.0001220703125");
  EXPECT_EQ(r.form, "apex_overflow");
  EXPECT_EQ(r.Text(kScaleReducedTo), "0.0001220703125");
  EXPECT_EQ(r.m.named_rank, -1);  // "loss scaler 0" is the scaler's id, not a rank

  r = ReadLine("Grad overflow on iteration 77");
  EXPECT_EQ(r.form, "deepspeed_grad_overflow");
  ASSERT_TRUE(r.m.step);
  EXPECT_EQ(*r.m.step, 77);

  r = ReadLine("Reducing dynamic loss scale from 2.0 to 1.0");
  EXPECT_EQ(r.form, "deepspeed_scale_reduce");
  EXPECT_EQ(r.Text(kScaleAttempted), "2.0");
  EXPECT_EQ(r.Text(kScaleReducedTo), "1.0");

  r = ReadLine(
      "Exception: Current loss scale already at minimum - cannot decrease scale anymore. Exiting "
      "run.");
  EXPECT_EQ(r.form, "scale_at_minimum");
}

TEST(MetricForms, Megatron) {
  Read r = ReadLine(
      " [2026-03-14 01:50:14] iteration     2740/   20000 | consumed samples:       701440 | "
      "elapsed time per iteration (ms): 2304.0 | learning rate: 1.992504E-04 | global batch "
      "size:   256 | lm loss: NAN | loss scale: 1.0 | grad norm: 86.295 | number of skipped "
      "iterations:   1 | number of nan iterations:   1 |");
  EXPECT_EQ(r.form, "megatron_iteration");
  ASSERT_TRUE(r.m.step);
  EXPECT_EQ(*r.m.step, 2740);
  EXPECT_EQ(r.Text(kLoss), "nan");
  EXPECT_EQ(r.Text(kLossScale), "1.0");
  EXPECT_EQ(r.Text(kGradNorm), "86.295");
  EXPECT_EQ(r.Text(kSkippedIterations), "1");
  EXPECT_EQ(r.Text(kNanIterations), "1");

  r = ReadLine(
      "ERROR:megatron.core.rerun_state_machine:Unexpected result inf on rank 14 at "
      "iteration #88 invocation #1 (message='found Inf in local grad norm for bucket #0')");
  EXPECT_EQ(r.form, "megatron_rerun");
  EXPECT_EQ(r.m.named_rank, 14);
  EXPECT_EQ(*r.m.step, 88);
  EXPECT_EQ(r.Text(kRerunCheck), "inf");

  // The assertion of Megatron-core before the rerun state machine.
  r = ReadLine(
      "AssertionError: Rank 13: found NaN in local grad norm in backward pass before "
      "data-parallel communication collective. Device: 5, node: h100-a02");
  EXPECT_EQ(r.form, "megatron_nan_assert");
  EXPECT_EQ(r.m.named_rank, 13);
  EXPECT_EQ(r.Text(kRerunCheck), "nan");
  r = ReadLine("AssertionError: Rank 2: found Inf in local grad norm in backward pass");
  EXPECT_EQ(r.form, "megatron_nan_assert");
  EXPECT_EQ(r.Text(kRerunCheck), "inf");
  EXPECT_EQ(ReadLine("found no NaN in local grad norm, all good").form, "");

  // Its follow-up message names no result in that shape.
  r = ReadLine(
      "Rank 5, node gpu-a-04, device 1, iteration #2741: First rerun: unexpected result "
      "is reproducible within the tolerance (nan = nan).");
  EXPECT_EQ(r.form, "");

  r = ReadLine(
      " validation loss at iteration 500 on validation set | lm loss value: 2.105E+00 | lm loss "
      "PPL: 8.2E+00 |");
  EXPECT_EQ(r.form, "megatron_validation");
  EXPECT_EQ(r.Text(kEvalLoss), "2.105E+00");
  EXPECT_EQ(r.Text(kLoss), "<none>");
}

TEST(MetricForms, HfDicts) {
  Read r = ReadLine("{'loss': nan, 'grad_norm': inf, 'learning_rate': 1.2e-05, 'epoch': 0.5}");
  EXPECT_EQ(r.form, "hf_dict");
  EXPECT_EQ(r.Text(kLoss), "nan");
  EXPECT_EQ(r.Text(kGradNorm), "inf");
  r = ReadLine("{\"loss\": NaN, \"grad_norm\": -Infinity, \"step\": 40}");
  EXPECT_EQ(r.Text(kLoss), "nan");
  EXPECT_EQ(r.Text(kGradNorm), "-inf");
  EXPECT_EQ(*r.m.step, 40);
  r = ReadLine("{'eval_loss': 1.87, 'eval_runtime': 12.3, 'epoch': 1.0}");
  EXPECT_EQ(r.Text(kEvalLoss), "1.87");
  // Behind a progress bar, with a tensor value.
  r = ReadLine(
      " 40%|####      | 400/1000 [02:00<03:00,  3.3it/s]{'loss': tensor(0.0, device='cuda:0'), "
      "'grad_norm': 0.5}");
  EXPECT_EQ(r.Text(kLoss), "0.0");
  EXPECT_EQ(r.Text(kGradNorm), "0.5");
  // The end-of-run summary has no loss point; a config dump's nested
  // "loss_scale" is none either.
  EXPECT_EQ(ReadLine("{'train_runtime': 1351.2, 'train_loss': 2.6165, 'epoch': 0.62}").form, "");
  EXPECT_EQ(ReadLine("json = {\"train_micro_batch_size_per_gpu\": 4, \"fp16\": {\"enabled\": true, "
                     "\"loss_scale\": 0, \"initial_scale_power\": 16}}")
                .form,
            "");
  EXPECT_EQ(ReadLine("dynamic_loss_scale_args ...... {'init_scale': 65536, 'scale_window': 1000, "
                     "'min_scale': 1}")
                .form,
            "");
}

TEST(MetricForms, KeyValueText) {
  Read r = ReadLine("[rank 1] step 1/1200 loss 2.8879 lr 3.333e-07 tokens/s 11862 mem 32.1GB");
  EXPECT_EQ(r.form, "key_value");
  EXPECT_EQ(*r.m.step, 1);
  EXPECT_EQ(r.m.named_rank, 1);
  EXPECT_EQ(r.Text(kLoss), "2.8879");

  r = ReadLine("Epoch 0:  45%|####5     | 450/1000 [00:30<00:37, 14.80it/s, loss=NaN, v_num=0]");
  EXPECT_EQ(r.Text(kLoss), "nan");
  EXPECT_FALSE(r.m.step);

  // Lightning 2 names a metric logged on_step and on_epoch "<name>_step";
  // its "<name>_epoch" mean is not a point of the step curve.
  r = ReadLine(
      "Epoch 4:  45%|####5     | 450/1000 [07:30<09:10,  1.02it/s, v_num=3, "
      "train_loss_step=nan, train_loss_epoch=2.310]");
  EXPECT_EQ(r.Text(kLoss), "nan");
  r = ReadLine(
      "Epoch 4: 100%|##########| 1000/1000 [16:40<00:00,  1.00it/s, v_num=3, "
      "loss_step=2.291]");
  EXPECT_EQ(r.Text(kLoss), "2.291");
  EXPECT_EQ(ReadLine("Epoch 4: 100%|##########| 1000/1000 [16:40<00:00, v_num=3, "
                     "train_loss_epoch=2.310]")
                .form,
            "");

  // NeMo names the data-parallel mean "reduced_train_loss"; its step is a
  // float.
  r = ReadLine(
      "Epoch 0: :  12%|#2        | 1520/12500 [24:49<3:02:15, reduced_train_loss=nan, "
      "global_step=1519.0, consumed_samples=778240.0, train_step_timing in s=0.980]");
  EXPECT_EQ(r.Text(kLoss), "nan");

  r = ReadLine("Step [300/1000] train_loss: 1.25e+00 val loss = 1.3 grad norm: Infinity");
  EXPECT_EQ(*r.m.step, 300);
  EXPECT_EQ(r.Text(kLoss), "1.25e+00");
  EXPECT_EQ(r.Text(kEvalLoss), "1.3");
  EXPECT_EQ(r.Text(kGradNorm), "inf");

  r = ReadLine("global_step=12 LOSS=-inf gnorm=3");
  EXPECT_EQ(*r.m.step, 12);
  EXPECT_EQ(r.Text(kLoss), "-inf");
  EXPECT_EQ(r.Text(kGradNorm), "3");

  // Words past a 64-byte block boundary, and a key word split by it.
  // "steps" spans bytes 61-65, "training_loss" 125-137.
  // (The values point into the line: it must outlive the reading.)
  const std::string split =
      std::string(60, 'x') + " steps 9 " + std::string(55, 'y') + " training_loss=0.75";
  r = ReadLine(split);
  EXPECT_EQ(*r.m.step, 9);
  EXPECT_EQ(r.Text(kLoss), "0.75");

  // Not points of the curve.
  EXPECT_EQ(ReadLine("  train_loss               =     2.6165").form, "");
  EXPECT_EQ(ReadLine("saving checkpoint, best loss 1.02").form, "");
  EXPECT_EQ(ReadLine("loss scale: 65536.0").form, "");
  EXPECT_EQ(ReadLine("cross entropy gloss 2").form, "");
  EXPECT_EQ(ReadLine("loss=2.5x").form, "");
  EXPECT_EQ(ReadLine("loss function: CrossEntropyLoss").form, "");
}

TEST(MetricForms, LoggedLossScale) {
  Read r = ReadLine("step 60 loss=2.31 grad_norm=0.9 loss_scale=3.7e-09");
  EXPECT_EQ(r.form, "key_value");
  EXPECT_EQ(r.Text(kLoss), "2.31");
  EXPECT_EQ(r.Text(kLossScale), "3.7e-09");
  r = ReadLine("step 5 loss=2.31 scale=0.0");
  EXPECT_EQ(r.Text(kLossScale), "0.0");
  r = ReadLine("iter 7 | loss: 2.31 | loss scale: 32768.0 | lr 1e-4");
  EXPECT_EQ(r.Text(kLossScale), "32768.0");
  r = ReadLine("[rank 3] step 9, loss 2.31, grad_scale 65536");
  EXPECT_EQ(r.Text(kLossScale), "65536");
  r = ReadLine("{'loss': 2.31, 'grad_norm': 0.9, 'loss_scale': 1.1e-10, 'epoch': 59}");
  EXPECT_EQ(r.form, "hf_dict");
  EXPECT_EQ(r.Text(kLossScale), "1.1e-10");
  r = ReadLine("{\"loss\": 2.31, \"scale\": 0.0, \"step\": 5}");
  EXPECT_EQ(r.Text(kLossScale), "0.0");
  EXPECT_EQ(*r.m.step, 5);
  r = ReadLine("{'loss': 2.31, 'grad_scale': 1024.0}");
  EXPECT_EQ(r.Text(kLossScale), "1024.0");

  // A scale named by another word is not the loss scale; a scale alone is
  // no metrics line.
  r = ReadLine("step 3 loss=2.31 noise scale 0.0");
  EXPECT_EQ(r.form, "key_value");
  EXPECT_EQ(r.Text(kLossScale), "<none>");
  r = ReadLine("loss=2.31 rope scale: 0.0");
  EXPECT_EQ(r.Text(kLossScale), "<none>");
  EXPECT_EQ(ReadLine("loss_scale=0.0").form, "");
  EXPECT_EQ(ReadLine("{'loss_scale': 0, 'initial_scale_power': 16}").form, "");
}

TEST(MetricForms, FirstValueOfANameWins) {
  const Read r = ReadLine("loss 1.5 loss 9.5 step 3 step 4");
  EXPECT_EQ(r.Text(kLoss), "1.5");
  EXPECT_EQ(*r.m.step, 3);
}

}  // namespace
}  // namespace casefile::numeric
