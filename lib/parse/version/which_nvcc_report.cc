// `which -a nvcc` (also `type -a nvcc`'s "nvcc is /path"): one nvcc per
// line in PATH order. Each gives an nvcc_path fact; its version is the
// toolkit release the path names (cuda_path.h), "" when it names none
// (/usr/bin/nvcc of a distribution package).
#include "parse/version/cuda_path.h"
#include "parse/version/report_readers.h"
#include "parse/version/version_text.h"

namespace casefile::version {
namespace {

class WhichNvccReader final : public ReportReader {
 public:
  explicit WhichNvccReader(const FactOut* out) : out_(*out) {}

  void Begin(std::string_view) override {}
  void Line(int64_t line_no, std::string_view text) override {
    std::string_view path = Trim(text);
    const size_t is = path.find(" is /");
    if (is != std::string_view::npos) path = path.substr(is + 4);
    const bool absolute =
        path.starts_with("/") || (path.size() > 2 && path[1] == ':' && path[2] == '\\');
    if (!absolute) return;  // "which: no nvcc in (...)"
    const size_t slash = path.find_last_of("/\\");
    if (!path.substr(slash + 1).starts_with("nvcc")) return;
    out_.Emit(line_no, kNvccPath, ReadCudaPath(path).release, path, kSourceWhichNvcc);
  }

 private:
  const FactOut& out_;
};

}  // namespace

std::unique_ptr<ReportReader> MakeWhichNvccReader(const FactOut* out) {
  return std::make_unique<WhichNvccReader>(out);
}

}  // namespace casefile::version
