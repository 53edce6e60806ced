// build.compiler_unsupported (docs/FINDINGS.md): nvcc checks the host
// compiler's major in crt/host_config.h and refuses newer ones ("#error --
// unsupported GNU version!"). From versions alone the problem is latent
// until an extension is built: a warning, raised to an error when the host
// also failed a build or printed the refusal.
#include <algorithm>
#include <set>
#include <string>

#include "analyze/analyzers/build/build_common.h"
#include "analyze/analyzers/build/build_rules.h"
#include "analyze/analyzers/build/version_text.h"
#include "parse/dist/dist_kinds.h"
#include "parse/version/version_facts.h"

namespace casefile::build {

std::optional<Finding> BuildCompilerUnsupported(const BuildFacts& facts) {
  Finding f = NewFinding("build.compiler_unsupported", Severity::kWarning,
                         "The host compiler is newer than nvcc supports");
  std::set<std::string> failed_hosts;
  for (const BuildErrorRow& e : facts.errors) {
    if (e.op == dist::kBuildExtensionFailed) failed_hosts.insert(e.host);
  }
  std::vector<std::string> hosts;
  std::string first_case;
  bool error = false;
  for (const auto& [host, versions] : VersionsByHost(facts.versions)) {
    const VersionFactRow* gcc = First(versions, version::kGcc);
    const VersionFactRow* nv = First(versions, version::kNvcc);
    if (!gcc || !nv) continue;
    const Release g = ParseRelease(gcc->version);
    const Release n = ParseRelease(nv->version);
    const std::optional<int> max = MaxGccMajorForNvcc(n);
    if (!g.ok() || !max || g.major <= *max) continue;
    hosts.push_back(host);
    AddCulprit(f, host);
    error |= failed_hosts.count(host) > 0;
    if (first_case.empty()) {
      first_case = "gcc " + gcc->version + " with nvcc " + ReleaseText(n) + ", which accepts gcc " +
                   std::to_string(*max) + " at most";
    }
    if (hosts.size() <= kMaxCited) {
      f.evidence.push_back(facts.line(gcc->file_id, gcc->line_no));
      f.evidence.push_back(facts.line(nv->file_id, nv->line_no));
    }
  }
  size_t messages = 0;
  for (const BuildErrorRow& e : facts.errors) {
    if (e.op != dist::kBuildGccUnsupported) continue;
    error = true;
    if (std::find(hosts.begin(), hosts.end(), e.host) == hosts.end()) hosts.push_back(e.host);
    AddCulprit(f, e.host);
    if (first_case.empty()) {
      first_case =
          "nvcc refused the host " + (e.detail.empty() ? std::string("compiler") : e.detail);
      if (e.value)
        first_case += ": versions later than " + std::to_string(static_cast<int>(*e.value)) +
                      " are not supported";
    }
    if (messages++ < kMaxCited) f.evidence.push_back(facts.line(e.file_id, e.line_no));
  }
  if (f.evidence.empty()) return std::nullopt;
  f.severity = error ? Severity::kError : Severity::kWarning;
  f.summary = "On " + HostList(hosts) + ", " + first_case + ". " +
              (error ? "CUDA extension builds fail on it."
                     : "Any CUDA extension build (DeepSpeed ops, custom kernels) will fail on "
                       "it.");
  f.recommendation =
      "Install a gcc/g++ the toolkit supports (NVIDIA's host compiler table) and point nvcc "
      "at it: CC/CXX, or `export NVCC_PREPEND_FLAGS='-ccbin /usr/bin/g++-N'`, or symlink "
      "gcc-N/g++-N into $CUDA_HOME/bin; or use a toolkit release that supports this "
      "compiler. Do not rely on -allow-unsupported-compiler.";
  return f;
}

}  // namespace casefile::build
