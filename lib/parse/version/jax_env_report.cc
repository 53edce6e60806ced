// `jax.print_environment_info()` (formats.md 6.4): "jax:    0.4.35",
// "jaxlib: ...", "numpy: ...", "python: 3.10.12 (main, ...)", a "libtpu:"
// line on TPU installs, and "device info: NVIDIA H100 80GB HBM3-8, 8 local
// devices"" (device kind, '-', device count; the stray '"' is jax's). The
// older "jax.devices (8 total, 8 local): [CudaDevice(id=0) ...]" names no
// model. The "$ nvidia-smi" table printed after it switches readers.
#include <array>
#include <utility>

#include "parse/version/report_readers.h"
#include "parse/version/version_text.h"

namespace casefile::version {
namespace {

const char* const kSource = kSourceJaxEnv;

constexpr std::array<std::pair<std::string_view, const char*>, 6> kKeys = {{
    {"jax", kJax},
    {"jaxlib", kJaxlib},
    {"numpy", kNumpy},
    {"python", kPython},
    {"libtpu", kLibtpu},
    {"libtpu-nightly", kLibtpu},
}};

// Device kinds that name a GPU model (the CUDA / ROCm device name). TPU
// kinds ("TPU v4") and "cpu" are not GPUs.
bool IsGpuKind(std::string_view kind) {
  for (std::string_view vendor :
       {"NVIDIA", "Tesla", "Quadro", "GeForce", "TITAN", "AMD", "Radeon", "Instinct"}) {
    if (StartsWithNoCase(kind, vendor)) return true;
  }
  return kind.find("GPU") != std::string_view::npos;
}

class JaxEnvReader final : public ReportReader {
 public:
  explicit JaxEnvReader(const FactOut* out) : out_(*out) {}

  void Begin(std::string_view) override {}
  void Line(int64_t line_no, std::string_view text) override {
    const size_t colon = text.find(':');
    if (colon == std::string_view::npos) return;
    const std::string_view key = text.substr(0, colon);
    const std::string_view value = Trim(text.substr(colon + 1));
    if (key == "device info") {
      DeviceInfo(line_no, value);
      return;
    }
    for (const auto& [name, component] : kKeys) {
      if (key != name) continue;
      const std::string_view v = FirstToken(value);
      if (StartsWithDigit(v)) out_.Emit(line_no, component, v, "", kSource);
      return;
    }
  }

 private:
  void DeviceInfo(int64_t line_no, std::string_view value) {
    if (value.ends_with("\"")) value.remove_suffix(1);
    const size_t comma = value.rfind(", ");
    if (comma == std::string_view::npos) return;
    std::string_view kind = value.substr(0, comma);
    const size_t dash = kind.rfind('-');
    if (dash == std::string_view::npos || !IsDottedNumber(kind.substr(dash + 1))) return;
    kind = Trim(kind.substr(0, dash));
    // The kind of jax.devices()[0].
    if (!kind.empty() && IsGpuKind(kind)) out_.Emit(line_no, kGpuName, kind, "GPU 0", kSource);
  }

  const FactOut& out_;
};

}  // namespace

bool IsJaxEnvBanner(std::string_view line) {
  if (!line.starts_with("jax:")) return false;
  return StartsWithDigit(TrimLeft(line.substr(4)));
}

std::unique_ptr<ReportReader> MakeJaxEnvReader(const FactOut* out) {
  return std::make_unique<JaxEnvReader>(out);
}

}  // namespace casefile::version
