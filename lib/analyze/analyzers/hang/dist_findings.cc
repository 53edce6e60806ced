#include "analyze/analyzers/hang/dist_findings.h"

#include <algorithm>

#include "analyze/analyzers/hang/collective_rules.h"
#include "analyze/analyzers/hang/hlo_rules.h"
#include "analyze/analyzers/hang/progress_rules.h"
#include "analyze/analyzers/hang/step_stragglers.h"
#include "analyze/analyzers/hang/task_lost_rules.h"

namespace casefile::hang {
namespace {

const char kStragglerCode[] = "hang.straggler";

Finding* FindCode(std::vector<Finding>& fs, const std::string& code) {
  for (Finding& f : fs) {
    if (f.code == code) return &f;
  }
  return nullptr;
}

void Attach(Finding& f, const std::vector<Culprit>& culprits, const std::vector<Evidence>& evidence,
            const std::string& sentence) {
  for (const Culprit& c : culprits) AddCulprit(f.culprits, c);
  f.evidence.insert(f.evidence.end(), evidence.begin(), evidence.end());
  if (!sentence.empty()) f.summary += (f.summary.empty() ? "" : " ") + sentence;
}

// R6: hosts that stopped advancing, named in the Megascale finding.
void MergeProgress(std::vector<Finding>& out, const MxlaOutcome& mxla, const DistContext& ctx) {
  if (out.empty()) return;
  const std::optional<ProgressLag> lag = FindProgressLag(ctx);
  if (!lag) return;
  if (mxla.any_digest) {
    for (Finding& f : out) Attach(f, lag->culprits, lag->evidence, lag->summary);
    return;
  }
  // No digest: the report-only hang.unknown becomes a straggler finding.
  for (Finding& f : out) {
    if (f.code == "hang.unknown") {
      f.code = kStragglerCode;
      f.title = "Megascale hang: straggling worker";
      f.summary += " But the program progress names the hosts that stopped advancing first.";
      f.recommendation =
          "Look at what the straggling hosts were doing when the others timed out: their last "
          "log lines, stack traces (py-spy or the cloud-tpu-diagnostics stack trace sidecar), "
          "input pipeline, checkpoint writes and host health (dmesg, memory). If the same host "
          "lags in several runs, replace it.";
    }
    if (f.code == kStragglerCode) Attach(f, lag->culprits, lag->evidence, lag->summary);
  }
}

// R4: a digest finding of the same code takes the HLO evidence (and its
// culprits, unless the dumps tie and so name every host).
void MergeHlo(std::vector<Finding>& out, const MxlaOutcome& mxla, const DistContext& ctx) {
  const std::vector<HloComparison> found = CompareHloAcrossHosts(ctx);
  if (found.empty()) return;
  for (const HloComparison& c : found) {
    if (Finding* f = FindCode(out, c.code)) {
      Attach(*f, c.tie ? std::vector<Culprit>{} : c.culprits, c.evidence, c.summary);
    } else {
      out.push_back(HloFinding(c));
    }
  }
  if (!mxla.any_digest) {
    out.erase(std::remove_if(out.begin(), out.end(),
                             [](const Finding& f) { return f.code == "hang.unknown"; }),
              out.end());
  }
}

// R5: a straggler by step times; a warning alone, an error beside a hang.
void MergeSteps(std::vector<Finding>& out, const DistContext& ctx) {
  const StepStragglers found = FindStepStragglers(ctx);
  if (found.stragglers.empty()) return;
  std::vector<Culprit> culprits;
  std::string s = "Step times: ";
  for (size_t i = 0; i < found.stragglers.size(); ++i) {
    culprits.push_back(found.stragglers[i].culprit);
    s += (i ? "; " : "") + found.stragglers[i].summary;
  }
  s += ".";
  if (Finding* f = FindCode(out, kStragglerCode)) {
    Attach(*f, culprits, found.evidence, s);
    return;
  }
  const bool hang = !out.empty();
  Finding f;
  f.code = kStragglerCode;
  f.analyzer = "hang";
  f.severity = hang ? Severity::kError : Severity::kWarning;
  f.title = "Straggler: consistently slower steps";
  f.summary = s + (hang ? " The job hung (see the other hang findings), and this straggler "
                          "explains it: the others waited for it at every collective."
                        : " No hang was found; the job ran at the pace of its slowest member.");
  f.culprits = culprits;
  f.evidence = found.evidence;
  f.recommendation =
      "Compare the straggler's host with its peers: GPU or TPU clocks and temperature (thermal "
      "or power throttling, nvidia-smi -q -d PERFORMANCE), hardware errors (dmesg, Xid), CPU "
      "contention or a slow disk in its data loading, a slower network link. A py-spy dump of "
      "its process during a slow step shows where the time goes. Exclude or replace the host if "
      "it lags in several runs.";
  out.push_back(std::move(f));
}

}  // namespace

std::vector<Finding> CombineHangFindings(MxlaOutcome mxla, const DistContext& ctx) {
  std::vector<Finding> out = std::move(mxla.findings);
  MergeProgress(out, mxla, ctx);
  for (Finding& f : CollectiveFindings(ctx)) out.push_back(std::move(f));
  for (Finding& f : TaskLostFindings(ctx)) out.push_back(std::move(f));
  MergeHlo(out, mxla, ctx);
  MergeSteps(out, ctx);
  return out;
}

}  // namespace casefile::hang
