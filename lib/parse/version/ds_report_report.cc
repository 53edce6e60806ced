// DeepSpeed's `ds_report` (formats.md 6.2): after the op table (skipped),
// "DeepSpeed general environment info:" lists "key ..... value" lines, the
// key padded with dots to 33 columns (so a long key may have none).
#include <array>
#include <utility>

#include "parse/version/report_readers.h"
#include "parse/version/version_text.h"

namespace casefile::version {
namespace {

const char* const kSource = kSourceDsReport;

constexpr std::array<std::pair<std::string_view, const char*>, 5> kKeys = {{
    {"torch version", kTorch},
    {"torch cuda version", kTorchCuda},
    {"nvcc version", kNvcc},
    {"deepspeed info", kDeepspeed},
    {"deepspeed wheel compiled w.", kDeepspeedBuild},
}};

// "torch version .......... 2.3.0+cu121" -> key, value. The dots follow a
// blank; a key's own '.' ("compiled w.") does not.
bool SplitDottedKey(std::string_view text, std::string_view* key, std::string_view* value) {
  const size_t dots = text.find(" .");
  if (dots == std::string_view::npos) return false;
  size_t end = dots + 1;
  while (end < text.size() && text[end] == '.') ++end;
  if (end < text.size() && text[end] != ' ') return false;
  *key = Trim(text.substr(0, dots));
  *value = Trim(text.substr(end));
  return true;
}

class DsReportReader final : public ReportReader {
 public:
  explicit DsReportReader(const FactOut* out) : out_(*out) {}

  void Begin(std::string_view) override {}
  void Line(int64_t line_no, std::string_view text) override {
    std::string_view key, value;
    if (!SplitDottedKey(text, &key, &value) || IsNoValue(value)) return;
    for (const auto& [name, component] : kKeys) {
      if (key != name) continue;
      const std::string_view c = component;
      if (c == kDeepspeed) {
        // "0.15.5+46d7d0d1, 46d7d0d1, patch-1": version, git hash, branch.
        value = Trim(value.substr(0, value.find(',')));
      } else if (c != kDeepspeedBuild) {
        value = FirstToken(value);
      }
      // "torch 2.3, cuda 12.1" is kept whole; the others are versions.
      if (c == kDeepspeedBuild || StartsWithDigit(value)) {
        out_.Emit(line_no, component, value, "", kSource);
      }
      return;
    }
  }

 private:
  const FactOut& out_;
};

}  // namespace

std::unique_ptr<ReportReader> MakeDsReportReader(const FactOut* out) {
  return std::make_unique<DsReportReader>(out);
}

}  // namespace casefile::version
