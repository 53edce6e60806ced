// `gcc --version` / `g++ --version` / `cc --version` (formats.md 6.6): only
// the first line counts (the copyright lines are localized). The program
// name varies ("gcc", "gcc-9", "cc", "x86_64-conda-linux-gnu-gcc"); clang
// prints "clang version ..." and is not gcc.
#include "parse/version/report_readers.h"
#include "parse/version/version_text.h"

namespace casefile::version {
namespace {

bool IsGccName(std::string_view p) {
  if (p == "gcc" || p == "g++" || p == "cc" || p == "c++") return true;
  for (std::string_view stem : {std::string_view("gcc-"), std::string_view("g++-")}) {
    // "gcc-9", "gcc-12"
    if (p.starts_with(stem) && IsDottedNumber(p.substr(stem.size()))) return true;
  }
  // Cross and conda compilers: "x86_64-linux-gnu-gcc-11", "x86_64-conda-linux-gnu-g++".
  for (std::string_view tail : {std::string_view("-gcc"), std::string_view("-g++")}) {
    const size_t at = p.rfind(tail);
    if (at == std::string_view::npos || at == 0) continue;
    const std::string_view after = p.substr(at + tail.size());
    if (after.empty() || (after[0] == '-' && IsDottedNumber(after.substr(1)))) return true;
  }
  return false;
}

bool IsVersionToken(std::string_view t) {
  const std::string_view v = DottedNumberPrefix(t);
  return !v.empty() && v.size() == t.size() && v.find('.') != std::string_view::npos;
}

class GccReader final : public ReportReader {
 public:
  explicit GccReader(const FactOut* out) : out_(*out) {}

  void Begin(std::string_view) override {}
  void Line(int64_t line_no, std::string_view text) override {
    const std::string_view v = GccBannerVersion(text);
    if (!v.empty()) out_.Emit(line_no, kGcc, v, "", kSourceGcc);
  }

 private:
  const FactOut& out_;
};

}  // namespace

std::string_view GccVersionAfterProgram(std::string_view rest) {
  rest = TrimLeft(rest);
  if (rest.starts_with("(")) {
    // Skip the "(Ubuntu 11.4.0-1ubuntu1~22.04)" group, nesting included.
    int depth = 0;
    size_t i = 0;
    for (; i < rest.size(); ++i) {
      if (rest[i] == '(') ++depth;
      if (rest[i] == ')' && --depth == 0) break;
    }
    if (i >= rest.size()) return {};
    rest = rest.substr(i + 1);
  } else if (rest.starts_with("version ")) {
    rest = rest.substr(8);
  } else {
    return {};
  }
  // The first version token: "14.2.1" of "14.2.1 20250207", "8.5.0" of
  // "8.5.0 20210514 (Red Hat 8.5.0-18)".
  size_t pos = 0;
  for (std::string_view t = NextToken(rest, &pos); !t.empty(); t = NextToken(rest, &pos)) {
    if (IsVersionToken(t)) return t;
    if (t[0] == '(') break;
  }
  return {};
}

std::string_view GccBannerVersion(std::string_view line) {
  const size_t space = line.find(' ');
  if (space == std::string_view::npos || space == 0) return {};
  if (!IsGccName(line.substr(0, space))) return {};
  return GccVersionAfterProgram(line.substr(space));
}

std::unique_ptr<ReportReader> MakeGccReader(const FactOut* out) {
  return std::make_unique<GccReader>(out);
}

}  // namespace casefile::version
