// The log forms that carry training metrics, as data: one table, each form
// with the prefilter families that can announce it, a literal anchor, a
// parser and a sample message it must read (tests run every sample). Adding
// a form is one entry in MetricForms() and its parser.
//
// Metric names stored (metric_chunks.name):
//   loss, eval_loss, grad_norm           values of the training curve
//   loss_scale                           a logged scale: Megatron's column, or a
//                                        loss_scale/scale key beside a loss
//   loss_scale.attempted / .reduced_to   a loss-scaler reduction (S -> S')
//   loss_scale.at_minimum                "Current loss scale already at minimum" (1)
//   overflow_skip                        one skipped step (1 per line)
//   skipped_iterations, nan_iterations   Megatron's per-interval counters
//   rerun_check                          Megatron's "Unexpected result X on rank R"
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "parse/numeric/metric_value.h"

namespace casefile::numeric {

inline constexpr char kLoss[] = "loss";
inline constexpr char kEvalLoss[] = "eval_loss";
inline constexpr char kGradNorm[] = "grad_norm";
inline constexpr char kLossScale[] = "loss_scale";
inline constexpr char kScaleAttempted[] = "loss_scale.attempted";
inline constexpr char kScaleReducedTo[] = "loss_scale.reduced_to";
inline constexpr char kScaleAtMinimum[] = "loss_scale.at_minimum";
inline constexpr char kOverflowSkip[] = "overflow_skip";
inline constexpr char kSkippedIterations[] = "skipped_iterations";
inline constexpr char kNanIterations[] = "nan_iterations";
inline constexpr char kRerunCheck[] = "rerun_check";

// What one line said. Names are the constants above, compared by pointer
// in the extractor, so always use them, never a copy. They are arrays, not
// pointers to literals: an inline array is one object with one address in
// every translation unit, while equal string literals need not be merged
// (clang under ASan keeps each apart, and every comparison failed).
struct LineMetrics {
  static constexpr size_t kMaxValues = 8;
  struct Item {
    const char* name;
    MetricValue value;
  };
  Item items[kMaxValues];
  size_t count = 0;
  std::optional<int64_t> step;
  int32_t named_rank = -1;  // a rank the message itself names; -1 when none

  void Clear() {
    count = 0;
    step.reset();
    named_rank = -1;
  }
  // Keeps the first value of each name; later ones and overflow are dropped.
  void Add(const char* name, const MetricValue& v);
  bool Has(const char* name) const;
};

// `anchor_pos` is where the form's anchor was found in `msg` (after it, for
// anchors longer than one byte); `hits` are the line's LiteralHit and
// FormHit bits.
using FormParser = bool (*)(std::string_view msg, size_t anchor_pos, uint32_t hits,
                            LineMetrics* out);

// Bits ReadMetricLine adds to the prefilter's LiteralHit bits on lines that
// mention a loss, from one pass over the message.
enum FormHit : uint32_t {
  kHitBar = 1u << 8,       // '|': Megatron's field separator
  kHitBrace = 1u << 9,     // '{': a Python dict
  kHitAnchorR = 1u << 10,  // 'R': "Reducing dynamic loss scale"
  kHitAnchorC = 1u << 11,  // 'C': "Current loss scale already at minimum"
};

struct MetricForm {
  const char* name;  // metric_chunks.form
  uint32_t any;      // LiteralHit bits (numeric_prefilter.h); one of them lets the form be tried
  uint32_t all;      // LiteralHit / FormHit bits that must all be present too
  std::string_view anchor;  // literal the message must contain; empty for none
  FormParser parse;
  const char* sample;  // a message (after line prefixes) the form reads
  // The global rank that prints this form, for a line whose message and
  // wrappers name none: HF Trainer prints its log dicts on the world's
  // process zero only. -1 when any rank may print it.
  int32_t implied_rank = -1;
};

// All forms, in the order they are tried: specific forms before the generic
// key/value form, so a line is read by the most specific form that knows it.
std::span<const MetricForm> MetricForms();

// The first form, among those `hits` allows, that reads `msg`; nullptr when
// none does. `out` holds what that form read.
const MetricForm* ReadMetricLine(std::string_view msg, uint32_t hits, LineMetrics* out);

}  // namespace casefile::numeric
