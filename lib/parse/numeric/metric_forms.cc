#include "parse/numeric/metric_forms.h"

#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "parse/line/scan.h"
#include "parse/numeric/form_text.h"
#include "parse/numeric/key_value_form.h"
#include "parse/numeric/numeric_prefilter.h"

namespace casefile::numeric {
namespace {

using form::After;
using form::AllDigits;
using form::EqualsLower;
using form::HasCurveValue;
using form::kNpos;
using form::ReadCount;
using form::ReadValueAt;
using form::SkipBlanks;

// A '{' that does not open a metrics dict is skipped; a line with more than
// this many is not a metrics line worth reading further.
constexpr int kMaxDictTries = 4;

const MetricValue kOne{1.0, ValueKind::kFinite, "1"};

// ---- Loss scaler messages -------------------------------------------------

// "[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 65536,
// reducing to 32768" and "... Attempted loss scale: 65536, but hysteresis is
// 2. Reducing hysteresis to 1" (the scale stays).
bool ParseDeepSpeedOverflow(std::string_view s, size_t at, uint32_t, LineMetrics* out) {
  const size_t rank_at = After(s, at, "Rank ");
  int64_t rank = 0;
  if (rank_at != kNpos && ReadCount(s, rank_at, &rank) && rank <= INT32_MAX) {
    out->named_rank = static_cast<int32_t>(rank);
  }
  const size_t skip = After(s, at, "Skipping step");
  const size_t attempted = After(s, at, "Attempted loss scale:");
  if (skip == kNpos && attempted == kNpos) return false;
  out->Add(kOverflowSkip, kOne);
  MetricValue v;
  size_t end = attempted == kNpos ? 0 : ReadValueAt(s, attempted, &v);
  if (end) {
    out->Add(kScaleAttempted, v);
    const size_t reduced = After(s, end, "reducing to");
    if (reduced != kNpos && ReadValueAt(s, reduced, &v)) out->Add(kScaleReducedTo, v);
  }
  return true;
}

// DeepSpeed's FP16_Optimizer through log_dist: "[Rank 0] Overflow detected.
// Skipping step. Attempted loss scale: 1.0, reducing to 1.0": the rank
// comes before the words.
bool ParseOverflowDetected(std::string_view s, size_t at, uint32_t hits, LineMetrics* out) {
  if (!ParseDeepSpeedOverflow(s, at, hits, out)) return false;
  const size_t rank_at = s.rfind("Rank ", at);
  int64_t rank = 0;
  if (out->named_rank < 0 && rank_at != kNpos && ReadCount(s, rank_at + 5, &rank) &&
      rank <= INT32_MAX)
    out->named_rank = static_cast<int32_t>(rank);
  return true;
}

// fairseq: "NOTE: gradient overflow detected, ignoring gradient, setting loss
// scale to: 0.0009765625".
bool ParseFairseqOverflow(std::string_view s, size_t at, uint32_t, LineMetrics* out) {
  const size_t to = After(s, at, "setting loss scale to:");
  MetricValue v;
  if (to == kNpos || !ReadValueAt(s, to, &v)) return false;
  out->Add(kOverflowSkip, kOne);
  out->Add(kScaleReducedTo, v);
  return true;
}

// Apex / Megatron: "Gradient overflow.  Skipping step, loss scaler 0 reducing
// loss scale to 32768.0".
bool ParseApexOverflow(std::string_view s, size_t at, uint32_t, LineMetrics* out) {
  out->Add(kOverflowSkip, kOne);
  const size_t to = After(s, at, "loss scale to");
  MetricValue v;
  if (to != kNpos && ReadValueAt(s, to, &v)) out->Add(kScaleReducedTo, v);
  return true;
}

// DeepSpeed fp16 optimizers: "Grad overflow on iteration 1234".
bool ParseGradOverflowIteration(std::string_view s, size_t at, uint32_t, LineMetrics* out) {
  int64_t step = 0;
  if (ReadCount(s, at, &step)) out->step = step;
  out->Add(kOverflowSkip, kOne);
  return true;
}

// "Reducing dynamic loss scale from 65536.0 to 32768.0".
bool ParseScaleReduce(std::string_view s, size_t at, uint32_t, LineMetrics* out) {
  MetricValue from, to;
  const size_t end = ReadValueAt(s, at, &from);
  if (!end) return false;
  const size_t to_at = After(s, end, " to");
  if (to_at == kNpos || !ReadValueAt(s, to_at, &to)) return false;
  out->Add(kScaleAttempted, from);
  out->Add(kScaleReducedTo, to);
  return true;
}

// DeepSpeed with raise_error_at_min_scale: "Current loss scale already at
// minimum - cannot decrease scale anymore. Exiting run."
bool ParseScaleAtMinimum(std::string_view, size_t, uint32_t, LineMetrics* out) {
  out->Add(kScaleAtMinimum, kOne);
  return true;
}

// ---- Megatron --------------------------------------------------------------

// The rerun state machine: "Unexpected result nan on rank 3 at iteration
// #1234 invocation #1 (message='found NaN in local grad norm ...')".
bool ParseMegatronRerun(std::string_view s, size_t at, uint32_t, LineMetrics* out) {
  MetricValue v;
  const size_t end = ReadValueAt(s, at, &v);
  if (!end) return false;
  const size_t rank_at = After(s, end, "on rank ");
  int64_t n = 0;
  if (rank_at == kNpos || !ReadCount(s, rank_at, &n) || n > INT32_MAX) return false;
  out->named_rank = static_cast<int32_t>(n);
  const size_t iter_at = After(s, rank_at, "iteration #");
  if (iter_at != kNpos && ReadCount(s, iter_at, &n)) out->step = n;
  out->Add(kRerunCheck, v);
  return true;
}

// Megatron-core before the rerun state machine asserts instead: "Rank 13:
// found NaN in local grad norm in backward pass before data-parallel
// communication collective. Device: 5, node: h100-a02" (also "found Inf").
// `at` is past the anchor " in local grad norm"; the value is the word
// before it.
bool ParseMegatronNanAssert(std::string_view s, size_t at, uint32_t, LineMetrics* out) {
  constexpr std::string_view kAnchor = " in local grad norm";
  if (at < kAnchor.size() + 9) return false;
  const size_t word = at - kAnchor.size() - 3;  // "NaN" / "Inf"
  if (s.substr(word - 6, 6) != "found ") return false;
  MetricValue v;
  if (ReadValueAt(s, word, &v) != word + 3) return false;
  const size_t rank_at = s.rfind("Rank ", word);
  int64_t n = 0;
  if (rank_at == kNpos || !ReadCount(s, rank_at + 5, &n) || n > INT32_MAX) return false;
  out->named_rank = static_cast<int32_t>(n);
  out->Add(kRerunCheck, v);
  return true;
}

struct FieldAlias {
  std::string_view key;  // lower case, as Megatron prints it
  const char* name;
};

const FieldAlias kIterationFields[] = {
    {"lm loss", kLoss},
    {"loss scale", kLossScale},
    {"grad norm", kGradNorm},
    {"number of skipped iterations", kSkippedIterations},
    {"number of nan iterations", kNanIterations},
};

// Reads the "key: value" fields of a '|'-separated line from `from` on.
void ReadPipeFields(std::string_view s, size_t from, const FieldAlias* aliases, size_t n_aliases,
                    LineMetrics* out) {
  size_t i = from;
  while (i < s.size()) {
    size_t end = s.find('|', i);
    if (end == kNpos) end = s.size();
    const std::string_view field = s.substr(i, end - i);
    const size_t colon = field.find(':');
    if (colon != kNpos) {
      size_t kb = SkipBlanks(field, 0), ke = colon;
      while (ke > kb && scan::IsBlank(field[ke - 1])) --ke;
      const std::string_view key = field.substr(kb, ke - kb);
      for (size_t k = 0; k < n_aliases; ++k) {
        MetricValue v;
        if (EqualsLower(key, aliases[k].key) && ReadValueAt(field, colon + 1, &v)) {
          out->Add(aliases[k].name, v);
          break;
        }
      }
    }
    i = end + 1;
  }
}

// Megatron-LM / Megatron-DeepSpeed: " iteration      100/    1000 | consumed
// samples: 51200 | ... | lm loss: 2.345E+00 | loss scale: 65536.0 | grad
// norm: 1.234 | number of skipped iterations:   0 | number of nan
// iterations:   0 |". The anchor is the first '|'.
bool ParseMegatronIteration(std::string_view s, size_t bar, uint32_t, LineMetrics* out) {
  const size_t it = s.substr(0, bar).find("iteration");
  if (it == kNpos) return false;
  int64_t step = 0;
  if (!ReadCount(s, it + 9, &step)) return false;
  out->step = step;
  ReadPipeFields(s, bar + 1, kIterationFields, std::size(kIterationFields), out);
  return out->count > 0;
}

const FieldAlias kValidationFields[] = {{"lm loss value", kEvalLoss}};

// " validation loss at iteration 100 on validation set | lm loss value:
// 2.345E+00 | lm loss PPL: 1.043E+01 |".
bool ParseMegatronValidation(std::string_view s, size_t at, uint32_t, LineMetrics* out) {
  int64_t step = 0;
  if (ReadCount(s, at, &step)) out->step = step;
  const size_t bar = s.find('|', at);
  if (bar == kNpos) return false;
  ReadPipeFields(s, bar + 1, kValidationFields, std::size(kValidationFields), out);
  return out->count > 0;
}

// ---- Python dicts (HF Trainer) ---------------------------------------------

struct KeyAlias {
  std::string_view key;
  const char* name;  // nullptr: the key is the step
};

// The scale keys hold the scale a user or framework logs beside the loss
// (torch GradScaler.get_scale(), Apex's loss_scale); they are read only in
// a dict that also holds a curve value, like every key here.
const KeyAlias kDictKeys[] = {
    {"loss", kLoss},
    {"eval_loss", kEvalLoss},
    {"grad_norm", kGradNorm},
    {"loss_scale", kLossScale},
    {"grad_scale", kLossScale},
    {"scale", kLossScale},
    {"loss scale", kLossScale},
    {"step", nullptr},
    {"global_step", nullptr},
};

// Skips one value of a dict: to the ',' or closing bracket at depth 0,
// across quotes and nested brackets. Returns where it stopped.
size_t SkipValue(std::string_view s, size_t i) {
  int depth = 0;
  char quote = 0;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '{' || c == '[' || c == '(') {
      ++depth;
    } else if (c == '}' || c == ']' || c == ')') {
      if (depth == 0) return i;
      --depth;
    } else if (c == ',' && depth == 0) {
      return i;
    }
  }
  return i;
}

// Reads the top-level pairs of the dict opened at s[open]. Nested dicts are
// skipped, so a config dump's {"fp16": {"loss_scale": 0}} reads as nothing.
void ParseDictAt(std::string_view s, size_t open, LineMetrics* out) {
  size_t i = open + 1;
  for (int pairs = 0; pairs < 64; ++pairs) {
    i = SkipBlanks(s, i);
    if (i >= s.size() || (s[i] != '\'' && s[i] != '"')) return;
    const char quote = s[i];
    const size_t key_end = s.find(quote, i + 1);
    if (key_end == kNpos) return;
    const std::string_view key = s.substr(i + 1, key_end - i - 1);
    i = SkipBlanks(s, key_end + 1);
    if (i >= s.size() || s[i] != ':') return;
    const size_t value_at = SkipBlanks(s, i + 1);
    for (const KeyAlias& a : kDictKeys) {
      if (key != a.key) continue;
      MetricValue v;
      if (!ReadValueAt(s, value_at, &v)) break;
      if (a.name) {
        out->Add(a.name, v);
      } else if (v.finite() && AllDigits(v.text)) {
        out->step = static_cast<int64_t>(v.value);
      }
      break;
    }
    i = SkipValue(s, value_at);
    if (i >= s.size() || s[i] != ',') return;
    ++i;
  }
}

// "{'loss': 2.345, 'grad_norm': 0.87, 'learning_rate': 1e-05, 'epoch': 0.1}",
// also with double quotes and behind a tqdm bar. The anchor is the first '{'.
bool ParseHfDict(std::string_view s, size_t open, uint32_t, LineMetrics* out) {
  for (int tries = 0; tries < kMaxDictTries && open != kNpos; ++tries) {
    ParseDictAt(s, open, out);
    if (HasCurveValue(*out)) return true;
    out->Clear();
    open = s.find('{', open + 1);
  }
  return false;
}

const MetricForm kForms[] = {
    {"deepspeed_overflow", kHitOverflow, 0, "OVERFLOW!", ParseDeepSpeedOverflow,
     "[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 65536, reducing to "
     "32768"},
    {"deepspeed_overflow_detected", kHitOverflow, 0, "Overflow detected. Skipping step",
     ParseOverflowDetected,
     "[Rank 0] Overflow detected. Skipping step. Attempted loss scale: 1.0, reducing to 1.0"},
    {"fairseq_overflow", kHitOverflow, 0, "gradient overflow detected, ignoring gradient",
     ParseFairseqOverflow,
     "NOTE: gradient overflow detected, ignoring gradient, setting loss scale to: 0.0009765625"},
    {"fairseq_min_scale", kHitLoss, 0, "Minimum loss scale reached", ParseScaleAtMinimum,
     "FloatingPointError: Minimum loss scale reached (0.0001). Your loss is probably exploding."},
    {"apex_overflow", kHitOverflow, 0, "Gradient overflow.", ParseApexOverflow,
     "Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to 32768.0"},
    {"deepspeed_grad_overflow", kHitOverflow, 0, "Grad overflow on iteration",
     ParseGradOverflowIteration, "Grad overflow on iteration 1204"},
    {"deepspeed_scale_reduce", kHitLoss, kHitAnchorR, "Reducing dynamic loss scale from",
     ParseScaleReduce, "Reducing dynamic loss scale from 8192.0 to 4096.0"},
    {"scale_at_minimum", kHitLoss, kHitAnchorC, "Current loss scale already at minimum",
     ParseScaleAtMinimum,
     "Current loss scale already at minimum - cannot decrease scale anymore. Exiting run."},
    {"megatron_rerun", kHitNan | kHitInf, 0, "Unexpected result ", ParseMegatronRerun,
     "Unexpected result nan on rank 5 at iteration #3100 invocation #1 (message='found NaN in "
     "local grad norm for bucket #0 in backward pass before data-parallel communication "
     "collective')"},
    {"megatron_nan_assert", kHitNan | kHitInf, 0, " in local grad norm", ParseMegatronNanAssert,
     "AssertionError: Rank 13: found NaN in local grad norm in backward pass before data-parallel "
     "communication collective. Device: 5, node: h100-a02"},
    {"megatron_validation", kHitLoss, kHitBar, "validation loss at iteration",
     ParseMegatronValidation,
     " validation loss at iteration 500 on validation set | lm loss value: 2.105E+00 | lm loss "
     "PPL: 8.207E+00 |"},
    {"megatron_iteration", kHitLoss, kHitBar, "|", ParseMegatronIteration,
     " iteration      120/   20000 | consumed samples:        61440 | elapsed time per "
     "iteration (ms): 1843.2 | learning rate: 3.000E-05 | global batch size:   512 | lm loss: "
     "6.804E+00 | loss scale: 32768.0 | grad norm: 2.117 | number of skipped iterations:   0 | "
     "number of nan iterations:   0 |"},
    {"hf_dict", kHitLoss, kHitBrace, "{", ParseHfDict,
     "{'loss': 2.3451, 'grad_norm': 0.8712, 'learning_rate': 1e-05, 'epoch': 0.12}", 0},
    {"key_value", kHitLoss | kHitNan, 0, "", ParseKeyValue,
     "step 40 loss=2.6173 grad_norm=1.93 lr=3.0e-4"},
};

}  // namespace

void LineMetrics::Add(const char* name, const MetricValue& v) {
  if (count >= kMaxValues || Has(name)) return;
  items[count++] = {name, v};
}

bool LineMetrics::Has(const char* name) const {
  for (size_t k = 0; k < count; ++k) {
    if (items[k].name == name) return true;
  }
  return false;
}

std::span<const MetricForm> MetricForms() { return kForms; }

namespace {

// The FormHit bits of `s`: which of the bytes that begin the anchors of
// loss forms it holds, in one pass rather than a memchr per form.
uint32_t AnchorBytesSlow(std::string_view s) {
  uint32_t hits = 0;
  for (char c : s) {
    switch (c) {
      case '|':
        hits |= kHitBar;
        break;
      case '{':
        hits |= kHitBrace;
        break;
      case 'R':
        hits |= kHitAnchorR;
        break;
      case 'C':
        hits |= kHitAnchorC;
        break;
      default:
        break;
    }
  }
  return hits;
}

uint32_t AnchorBytes(std::string_view s) {
#if defined(__SSE2__)
  // Most lines hold none of the bytes: one combined test per 16 bytes, and
  // the byte loop only for lines that hold one.
  size_t i = 0;
  int any = 0;
  for (; i + 16 <= s.size(); i += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data() + i));
    any |= _mm_movemask_epi8(_mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('|')), _mm_cmpeq_epi8(v, _mm_set1_epi8('{'))),
        _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('R')),
                     _mm_cmpeq_epi8(v, _mm_set1_epi8('C')))));
  }
  if (any) return AnchorBytesSlow(s);
  return AnchorBytesSlow(s.substr(i));
#else
  return AnchorBytesSlow(s);
#endif
}

}  // namespace

const MetricForm* ReadMetricLine(std::string_view msg, uint32_t hits, LineMetrics* out) {
  if (hits & kHitLoss) hits |= AnchorBytes(msg);
  for (const MetricForm& f : kForms) {
    if (!(f.any & hits) || (f.all & hits) != f.all) continue;
    size_t at = 0;
    if (!f.anchor.empty()) {
      at = msg.find(f.anchor);
      if (at == kNpos) continue;
      // Parsers get the position after the anchor, except for one-byte
      // anchors ('|', '{'), which they read themselves.
      if (f.anchor.size() > 1) at += f.anchor.size();
    }
    out->Clear();
    if (f.parse(msg, at, hits, out)) return &f;
  }
  out->Clear();
  return nullptr;
}

}  // namespace casefile::numeric
