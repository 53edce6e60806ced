// `transformers-cli env` / `transformers env` (formats.md 6.3): after
// "Copy-and-paste the text below in your GitHub issue ...", lines
// "- <key>: <value>". Version keys are "<Name> version" with an optional
// "(GPU?)"-style note ("PyTorch version (GPU?): 2.0.1+cu117 (True)", newer
// "PyTorch version (accelerator?): 2.5.1 (CUDA)"); the value's trailing
// "(...)" is that note's answer, not part of the version. Indented
// "\t- key: value" lines belong to the multi-line "Accelerate config".
#include "parse/version/package_names.h"
#include "parse/version/report_readers.h"
#include "parse/version/version_text.h"

namespace casefile::version {
namespace {

const char* const kSource = kSourceTransformersEnv;

class TransformersEnvReader final : public ReportReader {
 public:
  explicit TransformersEnvReader(const FactOut* out) : out_(*out) {}

  void Begin(std::string_view) override {}
  void Line(int64_t line_no, std::string_view text) override {
    if (!text.starts_with("- ")) return;
    const size_t colon = text.find(": ");
    if (colon == std::string_view::npos) return;
    std::string_view key = Trim(text.substr(2, colon - 2));
    const std::string_view value = Trim(text.substr(colon + 2));
    if (IsNoValue(value)) return;
    if (key == "GPU type") {
      // torch.cuda.get_device_name() of the default device.
      out_.Emit(line_no, kGpuName, value, "GPU 0", kSource);
      return;
    }
    const size_t note = key.find(" (");
    if (note != std::string_view::npos && key.ends_with(")")) key = key.substr(0, note);
    if (!key.ends_with(" version")) return;
    std::string_view name = key.substr(0, key.size() - 8);
    if (name.size() > 2 && name.front() == '`' && name.back() == '`') {
      name = name.substr(1, name.size() - 2);  // "`transformers` version"
    }
    // "PyTorch" and "Python" map through package_names ("pytorch" is torch).
    EmitPackage(out_, line_no, name, FirstToken(value), "", kSource);
  }

 private:
  const FactOut& out_;
};

}  // namespace

std::unique_ptr<ReportReader> MakeTransformersEnvReader(const FactOut* out) {
  return std::make_unique<TransformersEnvReader>(out);
}

}  // namespace casefile::version
