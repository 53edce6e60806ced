#include "analyze/analyzers/numeric/numeric_findings.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "analyze/summary_text.h"
#include "parse/numeric/metric_forms.h"

namespace casefile::numeric {
namespace {

constexpr size_t kMaxEvidence = 40;

std::string Num(double v, int digits = 4) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

std::string Sci(double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.2e", v);
  return buf;
}

std::string WhoText(const Who& w) {
  std::string s;
  if (w.rank) s = "rank " + std::to_string(*w.rank);
  if (!w.host.empty()) s += (s.empty() ? "" : " on ") + w.host;
  return s.empty() ? "an unattributed log" : s;
}

Culprit CulpritOf(const Who& w) {
  Culprit c;
  if (!w.host.empty()) c.host = w.host;
  c.rank = w.rank;
  return c;
}

class EvidenceList {
 public:
  explicit EvidenceList(const EvidenceFn& fn) : fn_(fn) {}
  void Add(const LineRef& line) {
    if (line.line_no <= 0 || items_.size() >= kMaxEvidence || !seen_.insert(line).second) return;
    items_.push_back(fn_(line));
  }
  std::vector<Evidence> Take() { return std::move(items_); }

 private:
  const EvidenceFn& fn_;
  std::set<LineRef> seen_;
  std::vector<Evidence> items_;
};

class CulpritList {
 public:
  void Add(const Who& w) {
    if (w.host.empty() && !w.rank) return;
    if (std::find(whos_.begin(), whos_.end(), w) == whos_.end()) whos_.push_back(w);
  }
  std::vector<Culprit> Take() const {
    std::vector<Culprit> out;
    for (const Who& w : whos_) out.push_back(CulpritOf(w));
    return out;
  }
  size_t size() const { return whos_.size(); }

 private:
  std::vector<Who> whos_;
};

Finding NewFinding(const char* code, Severity severity, const char* title) {
  Finding f;
  f.code = code;
  f.analyzer = kAnalyzerName;
  f.severity = severity;
  f.title = title;
  return f;
}

std::string ModuleText(const OverflowFacts& o) {
  if (o.module_path.empty() && o.module_class.empty()) return "an unnamed module";
  if (o.module_path.empty()) return "the model (" + o.module_class + ")";
  return o.module_path + (o.module_class.empty() ? "" : " (" + o.module_class + ")");
}

// ---- numeric.overflow ---------------------------------------------------------

std::optional<Finding> BuildOverflow(const NumericFacts& facts, const EvidenceFn& evidence,
                                     const PathFn& path, std::string* why_short) {
  const bool from_reports = !facts.reports.empty();
  const std::vector<TableFacts>& tables = from_reports ? facts.reports : facts.trace_overflows;
  if (tables.empty()) return std::nullopt;
  // The report of the earliest batch leads the summary; ties keep file order.
  const TableFacts* lead = &tables.front();
  for (const TableFacts& t : tables) {
    const auto& b = t.overflow.table->batch;
    const auto& lb = lead->overflow.table->batch;
    if (b && (!lb || *b < *lb)) lead = &t;
  }
  Finding f = NewFinding("numeric.overflow", Severity::kError,
                         "Activations overflowed to inf/nan in the forward pass");
  EvidenceList ev(evidence);
  CulpritList culprits;
  std::set<std::string> modules;
  size_t cited = 0;
  auto cite = [&](const TableFacts& t) {
    const OverflowFacts& o = t.overflow;
    culprits.Add(o.table->who);
    if (o.found) modules.insert(ModuleText(o));
    if (cited++ >= kMaxCited) return;
    for (size_t i = 0; i < t.detects.size() && i < 2; ++i) ev.Add(t.detects[i].line);
    ev.Add({o.table->file_id, o.table->report_line_no});
    if (o.module_line) ev.Add({o.table->file_id, *o.module_line});
  };
  cite(*lead);
  for (const TableFacts& t : tables) {
    if (&t != lead) cite(t);
  }

  const OverflowFacts& o = lead->overflow;
  const FrameTable& table = *o.table;
  const std::string batch = table.batch ? "batch " + std::to_string(*table.batch) : "a batch";
  std::string s;
  if (from_reports) {
    s = "DebugUnderflowOverflow detected inf/nan during " + batch + " on " + WhoText(table.who) +
        " (" + path(table.file_id) + ":" + std::to_string(table.report_line_no) + ").";
  } else {
    s = "A DebugUnderflowOverflow trace of " + batch + " on " + WhoText(table.who) + " (" +
        path(table.file_id) + ":" + std::to_string(table.report_line_no) +
        ") holds inf/nan values.";
  }
  if (!o.found) {
    s += " The printed frames were cut off before any frame holding inf or nan, so the module "
         "that overflowed is not in the log.";
    *why_short = "inf/nan in the forward pass";
  } else {
    const std::string frame = o.frame_index
                                  ? " (frame " + std::to_string(*o.frame_index + 1) + " of the " +
                                        std::to_string(o.frames) + " printed)"
                                  : "";
    if (o.in_output) {
      s += " The first module whose output holds " + o.value_text + " is " + ModuleText(o) + frame +
           ".";
    } else {
      s += " No printed output holds inf or nan; the first non-finite value is the " + o.role +
           " of " + ModuleText(o) + frame +
           ", so it came from before the printed frames (a weight already broken by an earlier "
           "update, or an input).";
    }
    *why_short = "inf in " + (o.module_path.empty() ? ModuleText(o) : o.module_path);
    if (o.largest_finite) {
      const double ratio = *o.largest_finite / kFp16Max;
      s += " The largest finite value before it was " + Sci(*o.largest_finite) + " (" +
           o.largest_where + ")";
      if (ratio >= kNearFp16) {
        s += ", " + std::to_string(static_cast<int>(ratio * 100 + 0.5)) +
             "% of the fp16 maximum 65504: the values outgrew fp16's range.";
      } else {
        s += ", well below the fp16 maximum 65504, so the overflow happened inside the "
             "module's own computation.";
      }
    }
  }
  if (lead->growth) {
    const Growth& g = *lead->growth;
    s += " In the traced batches, the output of " + g.module_path +
         (g.module_class.empty() ? "" : " (" + g.module_class + ")") +
         " grew fastest: " + Sci(g.from) + " at batch " + std::to_string(g.batch_from) + " to " +
         Sci(g.to) + " at batch " + std::to_string(g.batch_to) + " (x" + Num(g.to / g.from, 3) +
         ").";
  }
  if (!lead->detects.empty()) {
    const DetectLine& d = lead->detects.front();
    s += " detect_overflow printed \"" + d.label + " has " + d.what + "s\" just before (" +
         path(d.line.file_id) + ":" + std::to_string(d.line.line_no) + ").";
  }
  if (tables.size() > 1) {
    s += " " + std::to_string(tables.size()) + " " + (from_reports ? "reports" : "traces") +
         " in all, from " + std::to_string(culprits.size()) + " rank(s)";
    if (modules.size() > 1) {
      std::string list;
      size_t n = 0;
      for (const std::string& m : modules) {
        if (n++ == 4) break;
        list += (list.empty() ? "" : "; ") + m;
      }
      s += "; first modules with inf/nan: " + list;
    }
    s += ".";
  }
  f.summary = s;
  f.recommendation =
      "Keep " + (o.found && !o.module_path.empty() ? o.module_path : std::string("that module")) +
      " (or the block around it) in fp32: disable autocast around its forward and cast its "
      "input to float32, or train in bf16, which has fp32's range, if the hardware supports it "
      "(Ampere or newer GPUs, TPUs). Values close to 65504 before the overflow mean the "
      "activations grow too large for fp16: a lower learning rate, a scaled initialisation or "
      "normalisation before the module also help. To see where the values start to grow, trace "
      "the batches before it with DebugUnderflowOverflow(trace_batch_nums=[...]).";
  f.culprits = culprits.Take();
  f.evidence = ev.Take();
  return f;
}

// ---- numeric.nan_loss ---------------------------------------------------------

std::string StepText(const std::optional<int64_t>& step) {
  return step ? "step " + std::to_string(*step) : "";
}

std::string At(const PathFn& path, int64_t file_id, int64_t line) {
  return path(file_id) + ":" + std::to_string(line);
}

std::string NameText(const std::string& name) {
  if (name == kLoss) return "loss";
  if (name == kEvalLoss) return "eval loss";
  if (name == kGradNorm) return "grad norm";
  return name;
}

// The largest loss spike (by ratio to its baseline) at or before `step`
// (or, without steps, before `line` in the same file).
const Spike* SpikeBefore(const NumericFacts& facts, int64_t file_id, int64_t line,
                         const std::optional<int64_t>& step, const CurveFacts** owner) {
  const Spike* best = nullptr;
  auto before = [&](const CurveFacts& c, const Spike& s) {
    return step && s.step ? *s.step <= *step : (c.file_id == file_id && s.line_no < line);
  };
  for (const CurveFacts& c : facts.curves) {
    if (c.name != kLoss) continue;
    for (const std::optional<Spike>* cand : {&c.max_spike, &c.last_spike}) {
      if (!*cand || !before(c, **cand)) continue;
      const Spike& s = **cand;
      if (!best || s.value / s.baseline > best->value / best->baseline) {
        best = &s;
        *owner = &c;
      }
      break;
    }
  }
  return best;
}

// No curve went non-finite, but a framework's NaN check stopped the run: the
// check names the operation, which a logged loss never does.
Finding NanCheckFinding(const NumericFacts& facts, const EvidenceFn& evidence, const PathFn& path,
                        std::string* why_short) {
  Finding f = NewFinding("numeric.nan_loss", Severity::kError,
                         "A NaN check stopped the run (debug_nans, checkify, anomaly detection)");
  EvidenceList ev(evidence);
  CulpritList culprits;
  std::set<Who> seen;
  for (const NanCheck& c : facts.nan_checks) {
    culprits.Add(c.who);
    if (seen.insert(c.who).second && seen.size() <= kMaxCited) ev.Add(c.line);
  }
  const NanCheck& lead = facts.nan_checks.front();
  const std::string t = ClipText(lead.text, 240);
  const bool torch = t.find("values in its") != std::string::npos;
  const bool checkify = t.find("generated by primitive") != std::string::npos;
  std::string s = std::string(torch      ? "PyTorch's anomaly detection"
                              : checkify ? "JAX's checkify"
                                         : "JAX's debug_nans check") +
                  " stopped " + WhoText(lead.who) + ": \"" + t + "\" (" +
                  At(path, lead.line.file_id, lead.line.line_no) + ").";
  if (seen.size() > 1) s += " " + std::to_string(seen.size()) + " ranks/hosts raised it.";
  s += " No logged loss shows a non-finite value before it: the check caught the first one.";
  f.summary = s;
  f.recommendation =
      torch ? "The backward function named produced the first NaN: look at its forward "
              "counterpart's inputs in that step (a log of zero, a division by a norm that is "
              "zero, an overflow in fp16). Anomaly detection is slow; turn it off again once "
              "the operation is found."
            : "The operation named produced the first NaN or inf of the step: look at its "
              "inputs in that step (a log or division of zero, an overflow in bf16/fp16, a "
              "learning rate too high for the layer). jax_debug_nans re-runs the failing "
              "function op by op, so the traceback above the error points at the line.";
  *why_short = "NaN check on " + WhoText(lead.who);
  f.culprits = culprits.Take();
  f.evidence = ev.Take();
  return f;
}

std::optional<Finding> BuildNanLoss(const NumericFacts& facts, const EvidenceFn& evidence,
                                    const PathFn& path, std::string* why_short) {
  std::vector<const CurveFacts*> rerun, bad, zero;
  for (const CurveFacts& c : facts.curves) {
    if (c.name == kRerunCheck && c.first_bad) rerun.push_back(&c);
    if (c.name != kRerunCheck && c.first_bad) bad.push_back(&c);
    if (c.first_zero) zero.push_back(&c);
  }
  if (rerun.empty() && bad.empty() && zero.empty()) {
    if (facts.nan_checks.empty()) return std::nullopt;
    return NanCheckFinding(facts, evidence, path, why_short);
  }
  Finding f = NewFinding("numeric.nan_loss", Severity::kError, "The training loss became NaN");
  EvidenceList ev(evidence);
  CulpritList culprits;
  std::string s;
  const CurveFacts* lead = nullptr;
  std::optional<SeriesPoint> lead_point;
  if (!rerun.empty()) {
    std::set<int64_t> ranks_cited;
    for (const CurveFacts* c : rerun) {
      culprits.Add(c->who);
      if (ranks_cited.size() < kMaxCited && ranks_cited.insert(c->who.rank.value_or(-1)).second) {
        ev.Add({c->file_id, c->first_bad->line_no});
      }
    }
    lead = rerun.front();
    lead_point = lead->first_bad;
    const Evidence line = evidence({lead->file_id, lead_point->line_no});
    std::string what = "a non-finite value";
    if (line.text.find("grad norm") != std::string::npos) {
      what = "a NaN in the local grad norm";
    } else if (line.text.find("loss") != std::string::npos) {
      what = "a NaN in the loss";
    }
    // The rerun state machine, or the assertion of Megatron-core before it.
    const bool assertion = lead->form == "megatron_nan_assert";
    s = std::string(assertion ? "Megatron's NaN check found "
                              : "Megatron's rerun state machine found ") +
        what + " on " + WhoText(lead->who) +
        (lead_point->step ? " at iteration " + std::to_string(*lead_point->step) : "") + " (" +
        At(path, lead->file_id, lead_point->line_no) + ").";
    if (culprits.size() > 1) {
      s += " It names " + std::to_string(culprits.size()) + " ranks in all.";
    }
    *why_short = "NaN on " + WhoText(lead->who);
  } else if (!bad.empty()) {
    // The first step that went bad; series without steps compete by nothing
    // and all count when no series has one.
    std::optional<int64_t> first_step;
    for (const CurveFacts* c : bad) {
      if (c->first_bad->step && (!first_step || *c->first_bad->step < *first_step)) {
        first_step = c->first_bad->step;
      }
    }
    std::set<std::pair<std::string, int64_t>> cited;
    // The loss leads the summary over the eval loss and the grad norm.
    auto rank_of = [](const CurveFacts* c) {
      return c->name == kLoss ? 0 : c->name == kEvalLoss ? 1 : 2;
    };
    for (const CurveFacts* c : bad) {
      if (first_step && c->first_bad->step != first_step) continue;
      if (!lead || rank_of(c) < rank_of(lead)) lead = c;
      culprits.Add(c->who);
      if (cited.size() < kMaxCited &&
          cited.insert({c->who.host, c->who.rank.value_or(-1)}).second) {
        ev.Add({c->file_id, c->first_bad->line_no});
      }
    }
    lead_point = lead->first_bad;
    const std::string value = lead_point->kind == ValueKind::kNan ? "nan" : "inf";
    s = "The " + NameText(lead->name) + " logged by " + WhoText(lead->who) + " became " + value +
        (lead_point->step ? " at " + StepText(lead_point->step) : "") + " (" +
        At(path, lead->file_id, lead_point->line_no) + ")";
    if (lead->last_finite) {
      s += "; the last finite value was " + Num(lead->last_finite->value) +
           (lead->last_finite->step ? " at " + StepText(lead->last_finite->step) : "");
    }
    s += ".";
    if (culprits.size() > 1) {
      s += " " + std::to_string(culprits.size()) + " ranks/hosts show it first at the same " +
           (first_step ? "step." : "time (their lines name no step).");
    }
    *why_short = NameText(lead->name) + " " + value + " on " + WhoText(lead->who);
  } else {
    lead = zero.front();
    lead_point = lead->first_zero;
    for (size_t i = 0; i < zero.size() && i < kMaxCited; ++i) {
      culprits.Add(zero[i]->who);
      ev.Add({zero[i]->file_id, zero[i]->first_zero->line_no});
    }
    s = "Inferred: the loss logged by " + WhoText(lead->who) + " drops from " +
        Num(lead->value_before_zero) + " to exactly 0.0" +
        (lead_point->step ? " at " + StepText(lead_point->step) : "") + " (" +
        At(path, lead->file_id, lead_point->line_no) +
        ") and stays there. HF Trainer's logging_nan_inf_filter (on by default) leaves NaN and "
        "inf steps out of the logged loss, so a window of only NaN steps is logged as 0.0: the "
        "run most likely went NaN there.";
    *why_short = "loss stuck at 0.0 (NaN filtered) on " + WhoText(lead->who);
  }
  // Was the loss rising before, or did it jump?
  const CurveFacts* spike_owner = nullptr;
  if (const Spike* sp =
          SpikeBefore(facts, lead->file_id, lead_point->line_no, lead_point->step, &spike_owner)) {
    s += " Before that the loss had spiked to " + Num(sp->value) + " (" +
         Num(sp->value / sp->baseline, 3) + "x the median " + Num(sp->baseline) +
         " of the values before it) " + (sp->step ? "at " + StepText(sp->step) + " " : "") + "(" +
         At(path, spike_owner->file_id, sp->line_no) + "): the run was diverging.";
    ev.Add({spike_owner->file_id, sp->line_no});
  } else if (lead->last_finite || lead->points > 1) {
    s += " The loss did not spike before: it jumped straight to a non-finite value, which "
         "points at one bad batch, an overflow in fp16, or a faulty device.";
  }
  f.summary = s;
  f.recommendation =
      "Restart from the last checkpoint before the step named here. If the loss was diverging "
      "(a spike first), lower the learning rate or lengthen the warmup and keep gradient "
      "clipping on; if it jumped, look at the batch of that step (empty, very long or corrupt "
      "samples). In fp16, prefer bf16 or check the loss scaler; run with DebugUnderflowOverflow "
      "(--debug underflow_overflow) to find the first module producing inf or nan. When one "
      "rank is named alone, rerun that step on other hardware to rule out a faulty GPU.";
  f.culprits = culprits.Take();
  f.evidence = ev.Take();
  return f;
}

// ---- numeric.loss_spike -------------------------------------------------------

std::optional<Finding> BuildSpike(const NumericFacts& facts, const EvidenceFn& evidence,
                                  const PathFn& path) {
  std::vector<const CurveFacts*> spiky;
  for (const CurveFacts& c : facts.curves) {
    if (c.name == kLoss && c.first_spike) spiky.push_back(&c);
  }
  if (spiky.empty()) return std::nullopt;
  Finding f = NewFinding("numeric.loss_spike", Severity::kWarning, "The training loss spiked");
  EvidenceList ev(evidence);
  CulpritList culprits;
  size_t total = 0;
  for (size_t i = 0; i < spiky.size(); ++i) {
    culprits.Add(spiky[i]->who);
    total += spiky[i]->spike_count;
    if (i < kMaxCited) ev.Add({spiky[i]->file_id, spiky[i]->first_spike->line_no});
  }
  const CurveFacts& c = *spiky.front();
  const Spike& sp = *c.first_spike;
  std::string s = "The loss logged by " + WhoText(c.who) + " jumped to " + Num(sp.value) +
                  (sp.step ? " at " + StepText(sp.step) : "") + " (" +
                  At(path, c.file_id, sp.line_no) + "), " + Num(sp.value / sp.baseline, 3) +
                  "x the median " + Num(sp.baseline) + " of the previous " +
                  std::to_string(kBaselineWindow) + " values (the threshold is " +
                  Num(kSpikeFactor, 2) + "x). ";
  s += total == 1 ? "It is the only spike" : std::to_string(total) + " spikes in all";
  if (spiky.size() > 1) s += ", in " + std::to_string(spiky.size()) + " logs";
  s += ", and no NaN followed.";
  f.summary = s;
  f.recommendation =
      "A single spike the loss recovers from is often one unusual batch: look at the samples of "
      "that step. Repeated or growing spikes are a sign of instability: lower the learning rate "
      "or lengthen the warmup, keep gradient clipping on, and watch the grad norm around the "
      "spike; checkpoint often enough to roll back if it turns into NaN.";
  f.culprits = culprits.Take();
  f.evidence = ev.Take();
  return f;
}

// ---- numeric.loss_scale_collapse ----------------------------------------------

std::optional<Finding> BuildCollapse(const NumericFacts& facts, const EvidenceFn& evidence,
                                     const PathFn& path, std::string* why_short) {
  if (facts.scales.empty()) return std::nullopt;
  Finding f =
      NewFinding("numeric.loss_scale_collapse", Severity::kError, "The fp16 loss scale collapsed");
  EvidenceList ev(evidence);
  CulpritList culprits;
  const ScaleFacts* lead = nullptr;
  // A scale that fell to 0 or far below 1 (a scaler without a floor) says
  // more than one resting at the floor, so it leads the summary.
  for (const ScaleFacts& g : facts.scales) {
    if (!lead || (g.first_zero && !lead->first_zero) ||
        (!lead->first_zero && g.first_at_minimum && !lead->first_at_minimum)) {
      lead = &g;
    }
  }
  size_t cited = 0;
  size_t overflows = 0, at_min = 0;
  std::optional<double> highest;
  const ScaleFacts* message = nullptr;
  for (const ScaleFacts& g : facts.scales) {
    overflows += g.overflows;
    at_min += g.at_minimum;
    if (g.highest && (!highest || *g.highest > *highest)) highest = g.highest;
    if (g.at_minimum_message && !message) message = &g;
    if (g.rank_named && g.who.rank && *g.who.rank != 0) culprits.Add(g.who);
    if (cited++ >= kMaxCited) continue;
    if (g.first_at_minimum) ev.Add({g.file_id, *g.first_at_minimum});
    if (g.first_zero) ev.Add({g.file_id, *g.first_zero});
    if (g.at_minimum_message) ev.Add({g.file_id, *g.at_minimum_message});
  }
  const std::string min = Num(facts.min_loss_scale);
  std::string s;
  if (lead->first_zero) {
    s = "The loss scale of " + WhoText(lead->who) + " fell" +
        (lead->highest ? " from " + Num(*lead->highest) : "") + " to " +
        Num(lead->lowest.value_or(0)) + " (first at " + At(path, lead->file_id, *lead->first_zero) +
        "): a scaler without a floor underflowed, so the gradients are scaled to nothing." +
        (overflows > 0 ? " " + std::to_string(overflows) +
                             " overflow line(s) (each a skipped optimizer step)."
                       : std::string());
  } else if (lead->first_at_minimum) {
    const std::string where = At(path, lead->file_id, *lead->first_at_minimum);
    if (lead->form == "megatron_iteration") {
      s = "The loss scale of " + WhoText(lead->who) + " fell from " +
          Num(lead->highest.value_or(0)) + " to the minimum " + min +
          (lead->first_at_minimum_step ? " by " + StepText(lead->first_at_minimum_step) : "") +
          " (" + where +
          ") and iterations kept being skipped there: " + std::to_string(lead->at_minimum) +
          " of the " + std::to_string(lead->iterations_after_minimum) +
          " iteration lines since report skipped iterations (" +
          std::to_string(lead->iterations_after_minimum
                             ? (lead->at_minimum * 100 + lead->iterations_after_minimum / 2) /
                                   lead->iterations_after_minimum
                             : 0) +
          "%).";
    } else {
      s = "The fp16 loss scaler reached its minimum scale " + min +
          (lead->first_at_minimum_step ? " at " + StepText(lead->first_at_minimum_step) : "") +
          " (" + where + ") and kept overflowing: " + std::to_string(at_min) + " of the " +
          std::to_string(overflows) +
          " overflow lines (each a skipped optimizer step) are at the minimum" +
          (highest ? ", after the scale fell from " + Num(*highest) : "") +
          ". Once the scale cannot go lower, every step that overflows is skipped and the model "
          "stops learning.";
    }
  }
  if (message) {
    s += (s.empty() ? "" : " ") +
         std::string(
             "The scaler stopped the run: \"Current loss scale "
             "already at minimum\" (") +
         At(path, message->file_id, *message->at_minimum_message) + ").";
  }
  *why_short = "loss scale stuck at its minimum";
  f.summary = s;
  f.recommendation =
      "A scale stuck at the minimum means the gradients overflow fp16 even without scaling: "
      "the model itself produces inf. Train in bf16 if the hardware supports it (it needs no "
      "loss scaling), or find the overflowing layer with DebugUnderflowOverflow and keep it in "
      "fp32; lower the learning rate and check the data at the step where it began. If the "
      "scale only ran out of room, raise initial_scale_power in the DeepSpeed fp16 config "
      "(32 is a common choice) so the scaler starts higher.";
  f.culprits = culprits.Take();
  f.evidence = ev.Take();
  return f;
}

// ---- numeric.bf16_in_fp16 -----------------------------------------------------

std::optional<Finding> BuildBf16(const NumericFacts& facts, const EvidenceFn& evidence,
                                 const PathFn& path) {
  const PrecisionInputs& p = facts.precision;
  if (p.bf16_dtypes.empty()) return std::nullopt;
  std::vector<const ConfigValue*> explicit_on, auto_on;
  for (const ConfigValue& c : p.fp16_settings) {
    std::string v = c.value;
    for (char& ch : v) ch = static_cast<char>(ch >= 'A' && ch <= 'Z' ? ch + 32 : ch);
    (v == "auto" ? auto_on : explicit_on).push_back(&c);
  }
  if (explicit_on.empty() && (auto_on.empty() || p.fp16_flags.empty())) return std::nullopt;
  Finding f =
      NewFinding("numeric.bf16_in_fp16", Severity::kWarning, "A bf16 model is trained in fp16");
  EvidenceList ev(evidence);
  for (size_t i = 0; i < p.bf16_dtypes.size() && i < 4; ++i) ev.Add(p.bf16_dtypes[i].line);
  const ConfigValue& dtype = p.bf16_dtypes.front();
  std::string s = "The model config " + path(dtype.line.file_id) + " says " + dtype.key + " " +
                  dtype.value + " (line " + std::to_string(dtype.line.line_no) +
                  "): the weights were trained in bf16. But training runs in fp16: ";
  if (!explicit_on.empty()) {
    for (size_t i = 0; i < explicit_on.size() && i < 4; ++i) ev.Add(explicit_on[i]->line);
    const ConfigValue& on = *explicit_on.front();
    s += path(on.line.file_id) + " sets " + on.key + " to " + on.value + " (line " +
         std::to_string(on.line.line_no) + ").";
  } else {
    for (size_t i = 0; i < auto_on.size() && i < 4; ++i) ev.Add(auto_on[i]->line);
    for (size_t i = 0; i < p.fp16_flags.size() && i < 4; ++i) ev.Add(p.fp16_flags[i]);
    const ConfigValue& on = *auto_on.front();
    s += path(on.line.file_id) + " sets " + on.key + " to \"auto\" (line " +
         std::to_string(on.line.line_no) + ") and the command line passes --fp16 (" +
         At(path, p.fp16_flags.front().file_id, p.fp16_flags.front().line_no) + ").";
  }
  s += " bf16 has fp32's range but fp16 stops at 65504, so values the model learned to produce "
       "in bf16 can overflow to inf and then NaN.";
  f.summary = s;
  f.recommendation =
      "Train in bf16 (DeepSpeed \"bf16\": {\"enabled\": true} with fp16 off, or --bf16) on "
      "hardware that supports it (Ampere or newer GPUs, TPUs), or in fp32. If fp16 is the only "
      "option, expect overflows: keep the layers that overflow in fp32 and watch the loss scale.";
  f.evidence = ev.Take();
  return f;
}

}  // namespace

std::vector<Finding> BuildNumericFindings(const NumericFacts& facts, const EvidenceFn& evidence,
                                          const PathFn& path) {
  std::vector<Finding> out;
  std::vector<std::string> failures;  // short descriptions for the bf16 cross-reference
  std::string why;
  if (auto f = BuildOverflow(facts, evidence, path, &why)) {
    out.push_back(std::move(*f));
    failures.push_back("numeric.overflow (" + why + ")");
  }
  bool nan = false;
  if (auto f = BuildNanLoss(facts, evidence, path, &why)) {
    out.push_back(std::move(*f));
    failures.push_back("numeric.nan_loss (" + why + ")");
    nan = true;
  }
  // A spike followed by NaN is part of the NaN story, told there.
  if (!nan) {
    if (auto f = BuildSpike(facts, evidence, path)) out.push_back(std::move(*f));
  }
  if (auto f = BuildCollapse(facts, evidence, path, &why)) {
    out.push_back(std::move(*f));
    failures.push_back("numeric.loss_scale_collapse (" + why + ")");
  }
  if (auto f = BuildBf16(facts, evidence, path)) {
    if (!failures.empty()) {
      f->severity = Severity::kError;
      std::string list;
      for (const std::string& x : failures) list += (list.empty() ? "" : "; ") + x;
      f->summary += " This likely explains what else went wrong in this run: " + list + ".";
      for (Finding& other : out) {
        if (other.code == "numeric.loss_spike") continue;
        other.summary +=
            " The model was pretrained in bf16 but is trained in fp16 (numeric.bf16_in_fp16), "
            "a likely cause.";
      }
    }
    out.push_back(std::move(*f));
  }
  return out;
}

}  // namespace casefile::numeric
