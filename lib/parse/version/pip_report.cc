// pip's package listings (formats.md 6.7):
//  - `pip freeze` / `pip list --format freeze`: "name==1.0" ("===" for
//    non-PEP 440 versions), direct-URL installs "name @ file:///...whl"
//    (the version is read from a wheel or sdist file name, else none),
//    editables "-e git+...#egg=name" (no version) or the comment
//    "# Editable install with no version control (name==1.0)" followed by
//    "-e /path" (the fact is held one line to take the path as detail);
//  - `pip list` columns: "Package  Version  [Editable project location]",
//    a dashes line giving the column spans, then rows;
//  - `pip list --format json`: one line, an array of objects.
// Nothing is kept per package: each line is read and forgotten.
#include <array>
#include <string>

#include "parse/version/package_names.h"
#include "parse/version/report_readers.h"
#include "parse/version/version_text.h"

namespace casefile::version {
namespace {

const char* const kSource = kSourcePip;

inline constexpr size_t kMaxColumns = 8;

// The version in a wheel or sdist file name at the end of a URL:
// ".../torch-2.1.0%2Bcu121-cp310-cp310-linux_x86_64.whl" -> "2.1.0+cu121".
std::string VersionOfArchiveUrl(std::string_view url) {
  url = url.substr(0, url.find_first_of("#?"));
  const size_t slash = url.rfind('/');
  std::string_view file = slash == std::string_view::npos ? url : url.substr(slash + 1);
  std::string_view version;
  if (file.ends_with(".whl")) {
    // {name}-{version}(-{build})?-{python}-{abi}-{platform}.whl
    const size_t dash = file.find('-');
    if (dash == std::string_view::npos) return {};
    version = file.substr(dash + 1);
    version = version.substr(0, version.find('-'));
  } else {
    for (std::string_view ext : {".tar.gz", ".zip", ".tar.bz2", ".tgz"}) {
      if (!file.ends_with(ext)) continue;
      file.remove_suffix(ext.size());
      const size_t dash = file.rfind('-');
      if (dash != std::string_view::npos) version = file.substr(dash + 1);
      break;
    }
  }
  if (!StartsWithDigit(version)) return {};
  std::string out;
  for (size_t i = 0; i < version.size(); ++i) {
    if (version[i] == '%' && i + 2 < version.size() && version[i + 1] == '2' &&
        (version[i + 2] == 'B' || version[i + 2] == 'b')) {
      out.push_back('+');
      i += 2;
    } else {
      out.push_back(version[i]);
    }
  }
  return out;
}

// "name @ <url>": the name and the URL; false for other lines.
bool SplitDirectUrl(std::string_view text, std::string_view* name, std::string_view* url) {
  const size_t at = text.find(" @ ");
  if (at == std::string_view::npos) return false;
  *name = text.substr(0, at);
  *url = Trim(text.substr(at + 3));
  return IsProjectName(*name, false) && url->find("://") != std::string_view::npos;
}

// The string value of "key" in one json object's text; "" when absent.
std::string_view JsonString(std::string_view obj, std::string_view key) {
  size_t at = 0;
  while ((at = obj.find(key, at)) != std::string_view::npos) {
    const size_t end = at + key.size();
    if (at == 0 || obj[at - 1] != '"' || end >= obj.size() || obj[end] != '"') {
      at = end;
      continue;
    }
    std::string_view rest = TrimLeft(obj.substr(end + 1));
    if (!rest.starts_with(":")) return {};
    rest = TrimLeft(rest.substr(1));
    if (!rest.starts_with("\"")) return {};
    size_t close = 1;
    while (close < rest.size() && rest[close] != '"') close += rest[close] == '\\' ? 2 : 1;
    if (close >= rest.size()) return {};
    return rest.substr(1, close - 1);
  }
  return {};
}

class PipReader final : public ReportReader {
 public:
  explicit PipReader(const FactOut* out) : out_(*out) {}

  void Begin(std::string_view) override {
    End();
    list_ = List::kNone;
    columns_ = 0;
    editable_at_ = std::string_view::npos;
    editable_col_ = kMaxColumns;
  }
  void Line(int64_t line_no, std::string_view text) override;
  void End() override { FlushEditable("editable"); }
  size_t HeldBytes() const override { return editable_.HeldBytes(); }

 private:
  enum class List { kNone, kHeader, kRows };

  void Header(std::string_view text);
  void Dashes(std::string_view text);
  void Row(int64_t line_no, std::string_view text);
  void Json(int64_t line_no, std::string_view text);
  void EditableComment(int64_t line_no, std::string_view text);
  void FlushEditable(std::string_view detail);

  const FactOut& out_;
  List list_ = List::kNone;
  std::array<size_t, kMaxColumns> starts_{};
  size_t columns_ = 0;
  size_t editable_at_ = std::string_view::npos;  // header offset of "Editable project location"
  size_t editable_col_ = kMaxColumns;
  // From the "# Editable ..." comment until its "-e" line; `component`
  // holds the project name as printed.
  HeldFact editable_;
};

void PipReader::Line(int64_t line_no, std::string_view text) {
  if (text.empty()) return;
  const bool e_line = text.starts_with("-e ") || text.starts_with("--editable");
  if (editable_.set) {
    if (e_line) {
      FlushEditable(Trim(text.substr(text.find_first_of(" =") + 1)));
      return;
    }
    End();
  }
  if (e_line) return;  // "-e git+...#egg=name": no version printed
  if (text[0] == '#') {
    EditableComment(line_no, text);
    return;
  }
  if (text[0] == '[') {
    Json(line_no, text);
    return;
  }
  if (IsPipListBanner(text)) {
    Header(text);
    return;
  }
  if (list_ == List::kHeader && text[0] == '-' && text.find_first_not_of("- ") == text.npos) {
    Dashes(text);
    return;
  }
  std::string_view name, version;
  if (SplitPin(text, &name, &version)) {
    EmitPackage(out_, line_no, name, version, "", kSource);
    return;
  }
  std::string_view url;
  if (SplitDirectUrl(text, &name, &url)) {
    const std::string v = VersionOfArchiveUrl(url);
    if (!v.empty()) EmitPackage(out_, line_no, name, v, url, kSource);
    return;
  }
  if (list_ != List::kNone) Row(line_no, text);
}

void PipReader::FlushEditable(std::string_view detail) {
  if (!editable_.set) return;
  editable_.set = false;
  EmitPackage(out_, editable_.line_no, editable_.component, editable_.version, detail, kSource);
}

void PipReader::Header(std::string_view text) {
  list_ = List::kHeader;
  columns_ = 0;
  editable_col_ = kMaxColumns;
  editable_at_ = text.find("Editable project location");
}

// "------------------------ ----------- ---------------------------": each
// run of dashes is a column, left-aligned at its first dash.
void PipReader::Dashes(std::string_view text) {
  columns_ = 0;
  for (size_t i = 0; i < text.size() && columns_ < kMaxColumns; ++i) {
    if (text[i] == '-' && (i == 0 || text[i - 1] == ' ')) {
      if (i == editable_at_) editable_col_ = columns_;
      starts_[columns_++] = i;
    }
  }
  list_ = List::kRows;
}

void PipReader::Row(int64_t line_no, std::string_view text) {
  // Names and versions hold no blanks: the first two tokens are right even
  // when a row is misaligned; only the editable location needs the spans.
  size_t pos = 0;
  const std::string_view name = NextToken(text, &pos);
  const std::string_view version = NextToken(text, &pos);
  std::string_view detail;
  if (editable_col_ < columns_ && starts_[editable_col_] < text.size()) {
    const size_t start = starts_[editable_col_];
    const size_t end = editable_col_ + 1 < columns_ ? starts_[editable_col_ + 1] : text.size();
    detail = Trim(text.substr(start, end - start));
  }
  EmitPackage(out_, line_no, name, version, detail, kSource);
}

void PipReader::Json(int64_t line_no, std::string_view text) {
  size_t i = 0;
  while ((i = text.find('{', i)) != std::string_view::npos) {
    const size_t close = text.find('}', i);
    if (close == std::string_view::npos) return;  // cut off: a truncated line
    const std::string_view obj = text.substr(i, close - i + 1);
    EmitPackage(out_, line_no, JsonString(obj, "name"), JsonString(obj, "version"),
                JsonString(obj, "editable_project_location"), kSource);
    i = close + 1;
  }
}

// "# Editable install with no version control (name==1.0)",
// "# Editable Git install with no remote (name==1.0)".
void PipReader::EditableComment(int64_t line_no, std::string_view text) {
  if (text.find("Editable") == std::string_view::npos) return;
  const size_t open = text.find('(');
  const size_t close = text.find(')', open == std::string_view::npos ? 0 : open);
  if (open == std::string_view::npos || close == std::string_view::npos) return;
  std::string_view name, version;
  if (!SplitPin(text.substr(open + 1, close - open - 1), &name, &version)) return;
  editable_.Hold(line_no, name, version, "");
}

}  // namespace

bool IsPipFreezeLine(std::string_view line) {
  if (line.empty() || line.find(' ') != std::string_view::npos) {
    std::string_view name, url;
    return SplitDirectUrl(line, &name, &url);
  }
  std::string_view name, version;
  return SplitPin(line, &name, &version) && StartsWithDigit(version);
}

bool IsPipListBanner(std::string_view line) {
  if (line.starts_with("[{\"name\"")) return true;
  if (!line.starts_with("Package ")) return false;
  size_t pos = 7;
  return NextToken(line, &pos) == "Version";
}

std::unique_ptr<ReportReader> MakePipReader(const FactOut* out) {
  return std::make_unique<PipReader>(out);
}

}  // namespace casefile::version
