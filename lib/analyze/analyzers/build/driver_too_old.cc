// build.driver_too_old (docs/FINDINGS.md): the GPU driver is older than the
// CUDA runtime the framework was built with. Since CUDA 11.1 a driver runs
// any runtime of its own major release (minor version compatibility), so
// only an older major is too old: a host re-imaged with a 470 driver
// (CUDA 11.4) meeting a torch cu121 wheel cannot initialise CUDA at all.
#include <algorithm>
#include <map>
#include <string>

#include "analyze/analyzers/build/build_common.h"
#include "analyze/analyzers/build/build_rules.h"
#include "analyze/analyzers/build/version_text.h"
#include "parse/dist/dist_kinds.h"
#include "parse/version/version_facts.h"

namespace casefile::build {
namespace {

// The CUDA runtime a host's framework needs: torch's CUDA, else the release
// of pip's CUDA runtime wheel (nvidia-cuda-runtime-cu12 12.1.105, which JAX
// and others load).
const VersionFactRow* RuntimeCuda(const HostVersions& versions) {
  if (const VersionFactRow* tc = First(versions, version::kTorchCuda)) return tc;
  for (const auto& [component, rows] : versions) {
    if (component.starts_with("pip:nvidia-cuda-runtime-cu") && !rows.empty()) return rows.front();
  }
  return nullptr;
}

}  // namespace

std::optional<Finding> BuildDriverTooOld(const BuildFacts& facts) {
  Finding f = NewFinding("build.driver_too_old", Severity::kWarning,
                         "The GPU driver is older than the CUDA runtime needs");
  std::vector<std::string> hosts;
  auto add_host = [&](const std::string& host) {
    if (std::find(hosts.begin(), hosts.end(), host) == hosts.end()) hosts.push_back(host);
  };
  // "driver 470.223.02, CUDA 11.4 at most, against CUDA 12.1 for torch" of
  // the first host whose versions show it.
  std::string pair;
  // The message: the runtime refused the driver. Every process of a host
  // prints it (twice with torch: a warning, then the error): the host is
  // the culprit, its first message the evidence.
  size_t messages = 0;
  std::string found;  // "11.4": the driver's CUDA the first message names
  for (const BuildErrorRow& e : facts.errors) {
    if (e.op != dist::kBuildDriverTooOld) continue;
    ++messages;
    if (found.empty() && e.detail.starts_with("found=")) found = e.detail.substr(6);
    if (std::find(hosts.begin(), hosts.end(), e.host) != hosts.end()) continue;
    hosts.push_back(e.host);
    AddCulprit(f, e.host);
    if (hosts.size() <= kMaxCited) f.evidence.push_back(facts.line(e.file_id, e.line_no));
  }
  // The versions: nvidia-smi's "CUDA Version" (the newest runtime the
  // driver supports) against the runtime the framework needs.
  size_t cited = 0;
  for (const auto& [host, versions] : VersionsByHost(facts.versions)) {
    const VersionFactRow* dc = First(versions, version::kDriverCuda);
    const VersionFactRow* rc = RuntimeCuda(versions);
    if (!dc || !rc) continue;
    const Release driver = ParseRelease(dc->version);
    const Release runtime = ParseRelease(rc->version);
    if (!driver.ok() || !runtime.ok() || driver.major >= runtime.major) continue;
    add_host(host);
    AddCulprit(f, host);
    if (pair.empty()) {
      const VersionFactRow* drv = First(versions, version::kDriver);
      pair = (drv ? "driver " + drv->version + ", " : std::string()) + "CUDA " +
             ReleaseText(driver) + " at most, against CUDA " + ReleaseText(runtime) +
             (rc->component == version::kTorchCuda ? " for torch" : " of the runtime wheel");
    }
    if (cited++ < kMaxCited) {
      f.evidence.push_back(facts.line(dc->file_id, dc->line_no));
      f.evidence.push_back(facts.line(rc->file_id, rc->line_no));
    }
  }
  if (f.evidence.empty()) return std::nullopt;
  if (pair.empty() && !found.empty()) pair = "the driver supports CUDA " + found + " at most";
  std::sort(hosts.begin(), hosts.end());
  // A message is the runtime's own refusal; versions alone may be saved by
  // the CUDA forward-compatibility package (cuda-compat) on data-center GPUs.
  f.severity = messages > 0 ? Severity::kError : Severity::kWarning;
  f.summary = "On " + HostList(hosts) + ", the GPU driver is too old for the CUDA runtime" +
              (pair.empty() ? std::string(". ") : " (" + pair + "). ") +
              (messages > 0 ? "CUDA could not be initialised: the runtime refused the driver " +
                                  std::to_string(messages) + " time(s)."
                            : "A driver runs CUDA runtimes of its own major release only: "
                              "without the forward-compatibility package, CUDA will not "
                              "initialise.");
  f.recommendation =
      "Install a driver that supports the framework's CUDA release (R525 or newer for CUDA "
      "12.x, R450.80 or newer for 11.x) on the hosts named, or install the framework build "
      "for the driver's CUDA (e.g. a cu118 torch wheel); inside containers, check that the "
      "image does not ship its own libcuda (`ldconfig -p | grep libcuda`). Compare "
      "`nvidia-smi` (CUDA Version) with `python -c \"import torch; "
      "print(torch.version.cuda)\"` on every host.";
  return f;
}

}  // namespace casefile::build
