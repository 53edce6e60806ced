// The CUDA toolkits installed on a host, from `ls -ld /usr/local/cuda*`
// (long format: "lrwxrwxrwx 1 root root 22 Jan 1 00:00 /usr/local/cuda ->
// /usr/local/cuda-12.1") or plain `ls -d` paths, one or several per line.
// Each toolkit directory gives a cuda_toolkit fact: detail the path,
// version the release its name says, else its symlink target's.
#include "parse/version/cuda_path.h"
#include "parse/version/report_readers.h"
#include "parse/version/version_text.h"

namespace casefile::version {
namespace {

const char* const kSource = kSourceCudaDirs;

// "drwxr-xr-x", "lrwxrwxrwx", with an optional ACL/SELinux mark ('+', '.').
bool IsModeString(std::string_view t) {
  if (t.size() != 10 && t.size() != 11) return false;
  if (std::string_view("-dlcbps").find(t[0]) == std::string_view::npos) return false;
  for (size_t i = 1; i < 10; ++i) {
    if (std::string_view("rwxsStT-").find(t[i]) == std::string_view::npos) return false;
  }
  return t.size() == 10 || t[10] == '+' || t[10] == '.' || t[10] == '@';
}

class CudaDirsReader final : public ReportReader {
 public:
  explicit CudaDirsReader(const FactOut* out) : out_(*out) {}

  void Begin(std::string_view) override {}
  void Line(int64_t line_no, std::string_view text) override {
    const std::string_view t = Trim(text);
    size_t pos = 0;
    if (IsModeString(NextToken(t, &pos))) {
      Long(line_no, t);
      return;
    }
    pos = 0;
    for (std::string_view p = NextToken(t, &pos); !p.empty(); p = NextToken(t, &pos)) {
      if (p.starts_with("/") || StartsWithNoCase(p, "cuda")) Entry(line_no, p, {});
    }
  }

 private:
  // The name follows the mode, links, owner, group, size and a date whose
  // shape depends on the locale and --time-style: an absolute name is found
  // by its '/', a relative one as the ninth field. The symlink target is
  // split off first: the absolute target of a relative name (`ls -l
  // /usr/local`: "cuda -> /usr/local/cuda-12.1") is not the name.
  void Long(int64_t line_no, std::string_view t) {
    std::string_view target;
    const size_t arrow = t.find(" -> ");
    if (arrow != std::string_view::npos) {
      target = Trim(t.substr(arrow + 4));
      t = TrimRight(t.substr(0, arrow));
    }
    std::string_view name;
    const size_t slash = t.find(" /");
    if (slash != std::string_view::npos) {
      name = t.substr(slash + 1);
    } else {
      size_t pos = 0;
      for (int i = 0; i < 8; ++i) NextToken(t, &pos);
      name = TrimLeft(t.substr(pos));
    }
    if (!name.empty()) Entry(line_no, name, target);
  }

  void Entry(int64_t line_no, std::string_view name, std::string_view target) {
    const CudaPath own = ReadCudaPath(name);
    const CudaPath linked = ReadCudaPath(target);
    if (!own.under_toolkit) return;
    std::string_view release = own.release;
    // "cuda-12 -> cuda-12.4": the target says more than the name.
    if (!linked.release.empty() && (release.empty() || (linked.release.size() > release.size() &&
                                                        linked.release.starts_with(release) &&
                                                        linked.release[release.size()] == '.'))) {
      release = linked.release;
    }
    out_.Emit(line_no, kCudaToolkit, release, name, kSource);
  }

  const FactOut& out_;
};

}  // namespace

std::unique_ptr<ReportReader> MakeCudaDirsReader(const FactOut* out) {
  return std::make_unique<CudaDirsReader>(out);
}

}  // namespace casefile::version
