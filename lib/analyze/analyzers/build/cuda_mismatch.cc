// build.cuda_mismatch (docs/FINDINGS.md): torch's CUDA against the host's
// nvcc. DeepSpeed's op builder refuses to compile when the majors differ
// and accepts a minor difference with a warning; torch.utils.cpp_extension
// warns. The rule judges the same way.
#include <algorithm>
#include <string>

#include "analyze/analyzers/build/build_common.h"
#include "analyze/analyzers/build/build_rules.h"
#include "analyze/analyzers/build/version_text.h"
#include "parse/dist/dist_kinds.h"
#include "parse/version/version_facts.h"

namespace casefile::build {
namespace {

// "installed=11.8 torch=12.1" -> the two releases.
std::pair<Release, Release> MismatchPair(std::string_view detail) {
  Release installed, torch;
  const size_t i = detail.find("installed=");
  if (i != std::string_view::npos) installed = ParseRelease(detail.substr(i + 10));
  const size_t t = detail.find("torch=");
  if (t != std::string_view::npos) torch = ParseRelease(detail.substr(t + 6));
  return {installed, torch};
}

bool MajorDiffers(Release a, Release b) { return a.ok() && b.ok() && a.major != b.major; }

}  // namespace

std::optional<Finding> BuildCudaMismatch(const BuildFacts& facts) {
  Finding f = NewFinding("build.cuda_mismatch", Severity::kWarning,
                         "torch was built for another CUDA release than the system toolkit");
  std::vector<std::string> hosts;
  std::string pair;  // "torch 12.1 / nvcc 11.8" of the first case
  bool major = false;
  size_t cited = 0;
  for (const auto& [host, versions] : VersionsByHost(facts.versions)) {
    const VersionFactRow* tc = First(versions, version::kTorchCuda);
    const VersionFactRow* nv = First(versions, version::kNvcc);
    if (!tc || !nv) continue;
    const Release torch = ParseRelease(tc->version);
    const Release nvcc = ParseRelease(nv->version);
    if (!torch.ok() || !nvcc.ok() || torch.minor < 0 || nvcc.minor < 0) continue;
    if (torch.major == nvcc.major && torch.minor == nvcc.minor) continue;
    major |= torch.major != nvcc.major;
    hosts.push_back(host);
    AddCulprit(f, host);
    if (pair.empty()) pair = "CUDA " + ReleaseText(torch) + " for torch, nvcc " + ReleaseText(nvcc);
    if (cited++ < kMaxCited) {
      f.evidence.push_back(facts.line(tc->file_id, tc->line_no));
      f.evidence.push_back(facts.line(nv->file_id, nv->line_no));
    }
  }
  size_t messages = 0;
  for (const BuildErrorRow& e : facts.errors) {
    if (e.op != dist::kBuildCudaMismatch) continue;
    const auto [installed, torch] = MismatchPair(e.detail);
    // A message that names no releases is DeepSpeed's refusal: a major
    // difference.
    major |= MajorDiffers(installed, torch) || !installed.ok() || !torch.ok();
    // A message may name one side only (apex names torch's; a wrapped
    // torch message may have lost it).
    if (pair.empty() && (installed.ok() || torch.ok())) {
      if (torch.ok()) pair = "CUDA " + ReleaseText(torch) + " for torch";
      if (installed.ok())
        pair += (pair.empty() ? "" : ", ") + std::string("nvcc ") + ReleaseText(installed);
    }
    if (std::find(hosts.begin(), hosts.end(), e.host) == hosts.end()) hosts.push_back(e.host);
    AddCulprit(f, e.host);
    if (messages++ < kMaxCited) f.evidence.push_back(facts.line(e.file_id, e.line_no));
  }
  if (f.evidence.empty()) return std::nullopt;
  f.severity = major ? Severity::kError : Severity::kWarning;
  f.summary = "On " + HostList(hosts) + ", torch and the system CUDA toolkit disagree" +
              (pair.empty() ? std::string(". ") : " (" + pair + "). ") +
              (major ? "The major releases differ: DeepSpeed and torch.utils.cpp_extension "
                       "cannot build CUDA extensions (fused optimizers, custom kernels) "
                       "against this toolkit."
                     : "Only the minor releases differ: builds usually work, but DeepSpeed "
                       "warns and some kernels may not compile.");
  if (messages > 0)
    f.summary += " The build printed the mismatch " + std::to_string(messages) + " time(s).";
  f.recommendation =
      "Make the toolkit that builds extensions match torch's CUDA: install that release "
      "(e.g. /usr/local/cuda-X.Y) and put it first on PATH and LD_LIBRARY_PATH, set CUDA_HOME "
      "to it, or install the torch wheel built for the installed toolkit. Check with `nvcc "
      "--version` and `python -c \"import torch; print(torch.version.cuda)\"` on every host.";
  return f;
}

}  // namespace casefile::build
