// `nvcc --version` (formats.md 6.6). The version is on the line
// "Cuda compilation tools, release 11.8, V11.8.89": the full "V" build
// number when printed, else the release (as DeepSpeed reads it).
#include "parse/version/report_readers.h"
#include "parse/version/version_text.h"

namespace casefile::version {
namespace {

class NvccReader final : public ReportReader {
 public:
  explicit NvccReader(const FactOut* out) : out_(*out) {}

  void Begin(std::string_view) override {}
  void Line(int64_t line_no, std::string_view text) override {
    const size_t at = text.find("Cuda compilation tools, release ");
    if (at == std::string_view::npos) return;
    const std::string_view rest = text.substr(at + 32);
    const std::string_view release = DottedNumberPrefix(rest);
    if (release.empty()) return;
    const size_t v = rest.find(", V");
    if (v != std::string_view::npos) {
      const std::string_view build = DottedNumberPrefix(rest.substr(v + 3));
      if (!build.empty()) {
        out_.Emit(line_no, kNvcc, build, "", kSourceNvcc);
        return;
      }
    }
    out_.Emit(line_no, kNvcc, release, "", kSourceNvcc);
  }

 private:
  const FactOut& out_;
};

}  // namespace

std::unique_ptr<ReportReader> MakeNvccReader(const FactOut* out) {
  return std::make_unique<NvccReader>(out);
}

}  // namespace casefile::version
