// `conda list`: "# packages in environment at /opt/conda:", a "# Name
// Version Build Channel" comment, then one row per package in those
// columns ("pytorch  2.1.0  py3.10_cuda12.1_cudnn8.9.2_0  pytorch"). Packages
// that pip installed show channel "pypi" and keep their pip names. conda's
// own torch builds name their CUDA release in the build string
// (EmitCondaPackage).
#include "parse/version/package_names.h"
#include "parse/version/report_readers.h"
#include "parse/version/version_text.h"

namespace casefile::version {
namespace {

class CondaListReader final : public ReportReader {
 public:
  explicit CondaListReader(const FactOut* out) : out_(*out) {}

  void Begin(std::string_view) override {}
  void Line(int64_t line_no, std::string_view text) override {
    if (text.empty() || text[0] == '#') return;
    size_t pos = 0;
    const std::string_view name = NextToken(text, &pos);
    const std::string_view version = NextToken(text, &pos);
    const std::string_view build = NextToken(text, &pos);
    EmitCondaPackage(out_, line_no, name, version, build);
  }

 private:
  const FactOut& out_;
};

}  // namespace

std::unique_ptr<ReportReader> MakeCondaListReader(const FactOut* out) {
  return std::make_unique<CondaListReader>(out);
}

}  // namespace casefile::version
