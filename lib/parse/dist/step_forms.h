// The step-time forms of training logs, read from one message (step_time.cc
// runs them on lines its prefilter kept). Internal to lib/parse/dist.
#pragma once

#include <cstdint>
#include <string_view>

namespace casefile::dist::step {

struct StepTime {
  int64_t step = -1;
  double seconds = 0;
  // What the time was read from: "elapsed time per iteration" (Megatron),
  // a key ("step_time", "time", "seconds"...), a rate ("s/step", "s/it"),
  // "took", or "tqdm" (then `total` is the bar's total).
  const char* form = "";
  int64_t total = -1;
};

// Cheap test run on every line: true when `s` may hold a step time, i.e. a
// time word ("time", "ms", "sec", "took", a '/') and a step word ("step",
// "Step", "iter", "Iter") or a tqdm rate ("it/s", "s/it").
bool MayHoldStep(std::string_view s);

// Reads the step and its time from one message. The step must be on the
// same line: "step 120", "Step 120:", "step=120", "[step 120]", "iter 120",
// "iteration 10/500000", "global_step=119.0" (preferred when present),
// "'step': 120", "Iter(train) [120/1000]". The time, most specific first:
//   keys naming a step time: "step_time=0.41s", "time_per_step: 0.41",
//     "iter_time", "train_step_timing in s=0.41", "step_time_ms=412",
//     Megatron's "elapsed time per iteration (ms): 4567.8";
//   a rate: "(0.41 s/step)", "412ms/step", "1.34s/it";
//   "step 120 took 0.41s" ("took" right after the step, unit required);
//   generic keys: "time: 0.41", "time=0.41", "seconds: 0.412" (MaxText),
//     "secs".
// Units: s, sec, secs, second(s), ms, msec, millisecond(s), us, min(s),
// minute(s); none = seconds unless the key says ("_ms", "(ms)", "in ms").
// Otherwise a tqdm bar: "450/1000 [10:01<12:14,  1.34s/it]" or
// "...,  2.95it/s]" (seconds = 1 / rate), only with N/M and the bracket; a
// bar described as loading, mapping, evaluating... is not training. A
// Lightning bar "Epoch 3: ... 450/1000 [...]" gives step 3 * 1000 + 450, so
// steps keep growing across epochs.
// Not steps: "timestep", "steps_per_print", "warmup_steps", "step: 12.3"
// (a float), percentages; lines about checkpoints or evaluation; DeepSpeed's
// throughput line (samples per second, no step time without the batch size).
bool ReadStepTime(std::string_view s, StepTime* out);

}  // namespace casefile::dist::step
