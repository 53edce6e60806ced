// build.arch_mismatch (docs/FINDINGS.md): kernels built for architectures
// that do not include the GPU's. Read from TORCH_CUDA_ARCH_LIST against the
// GPUs' compute capabilities (nvidia-smi's compute_cap, else the model name),
// and from what the failure says: torch's "with CUDA capability sm_XY is not
// compatible", nvcc's "Unsupported gpu architecture", and the CUDA error "no
// kernel image is available for execution on the device".
#include <algorithm>
#include <set>
#include <string>

#include "analyze/analyzers/build/build_common.h"
#include "analyze/analyzers/build/build_rules.h"
#include "analyze/analyzers/build/version_text.h"
#include "parse/dist/dist_kinds.h"
#include "parse/version/version_facts.h"

namespace casefile::build {
namespace {

struct Gpu {
  const VersionFactRow* row;
  Release cc;
  std::string name;
};

// The GPUs of a host with their capabilities: compute_cap rows first, then
// the model names of GPUs with no such row.
std::vector<Gpu> GpusOf(const HostVersions& host) {
  std::vector<Gpu> out;
  std::set<std::string> seen;  // "GPU N"
  if (auto it = host.find(version::kGpuComputeCapability); it != host.end()) {
    for (const VersionFactRow* r : it->second) {
      const Release cc = ParseRelease(r->version);
      if (cc.ok() && cc.minor >= 0) {
        out.push_back({r, cc, r->detail});
        seen.insert(r->detail);
      }
    }
  }
  if (auto it = host.find(version::kGpuName); it != host.end()) {
    for (const VersionFactRow* r : it->second) {
      if (!r->detail.empty() && seen.count(r->detail)) continue;
      if (const auto cc = ComputeCapabilityOfGpu(r->version)) out.push_back({r, *cc, r->version});
    }
  }
  return out;
}

}  // namespace

std::optional<Finding> BuildArchMismatch(const BuildFacts& facts) {
  Finding f = NewFinding("build.arch_mismatch", Severity::kError,
                         "Kernels were not built for the GPU's architecture");
  std::vector<std::string> hosts;
  std::string first_case;
  for (const auto& [host, versions] : VersionsByHost(facts.versions)) {
    const VersionFactRow* list_row = First(versions, version::kTorchCudaArchList);
    if (!list_row) continue;
    const std::vector<ArchEntry> list = ParseArchList(list_row->version);
    if (list.empty()) continue;
    const Gpu* missed = nullptr;
    const std::vector<Gpu> gpus = GpusOf(versions);
    for (const Gpu& g : gpus) {
      if (!ArchListCovers(list, g.cc)) {
        missed = &g;
        break;
      }
    }
    if (!missed) continue;
    hosts.push_back(host);
    AddCulprit(f, host);
    if (first_case.empty()) {
      first_case =
          "TORCH_CUDA_ARCH_LIST=\"" + list_row->version + "\" does not include " +
          ReleaseText(missed->cc) + ", the compute capability of " +
          (missed->row->component == version::kGpuName ? missed->name : missed->row->detail);
    }
    if (hosts.size() <= kMaxCited) {
      f.evidence.push_back(facts.line(list_row->file_id, list_row->line_no));
      f.evidence.push_back(facts.line(missed->row->file_id, missed->row->line_no));
    }
  }
  size_t messages = 0;
  std::string message_case;
  for (const BuildErrorRow& e : facts.errors) {
    const bool no_image = e.op == kOpNoKernelImage;
    if (!no_image && e.op != dist::kBuildArchUnsupported) continue;
    if (std::find(hosts.begin(), hosts.end(), e.host) == hosts.end()) hosts.push_back(e.host);
    AddCulprit(f, e.host);
    if (message_case.empty()) {
      message_case = no_image ? "CUDA reported \"no kernel image is available for execution on "
                                "the device\""
                              : "the build or torch refused the architecture (" + e.detail + ")";
    }
    if (messages++ < kMaxCited) f.evidence.push_back(facts.line(e.file_id, e.line_no));
  }
  if (f.evidence.empty()) return std::nullopt;
  std::string what = first_case;
  if (!message_case.empty()) what += (what.empty() ? "" : "; ") + message_case;
  f.summary = "On " + HostList(hosts) + ": " + what +
              ". A kernel compiled for other architectures cannot run on this GPU.";
  if (messages > 1) f.summary += " (" + std::to_string(messages) + " such errors.)";
  f.recommendation =
      "Rebuild the extension with TORCH_CUDA_ARCH_LIST naming the GPU's compute capability "
      "(`nvidia-smi --query-gpu=compute_cap --format=csv`; e.g. \"8.0;9.0\" for A100 and H100, "
      "add +PTX to the last entry for newer GPUs), or install a torch/extension build that "
      "supports it (`python -c \"import torch; print(torch.cuda.get_arch_list())\"`).";
  return f;
}

}  // namespace casefile::build
