#include "parse/version/cuda_path.h"

#include "parse/version/version_text.h"

namespace casefile::version {
namespace {

// "12", "12.1", "11.8.0": a major and minor of at most two digits, so that
// "cuda-121" or a date is not read as a release.
bool IsRelease(std::string_view r) {
  if (!IsDottedNumber(r)) return false;
  size_t part = 0;
  size_t digits = 0;
  for (char c : r) {
    if (c == '.') {
      ++part;
      digits = 0;
      continue;
    }
    if (++digits > 2 && part < 2) return false;
  }
  return part <= 2;
}

// The release a component names after "cuda", or "" with *toolkit false.
std::string_view ComponentRelease(std::string_view c, bool* toolkit) {
  *toolkit = false;
  if (!StartsWithNoCase(c, "cuda")) return {};
  std::string_view rest = c.substr(4);
  if (rest.empty()) {
    *toolkit = true;
    return {};
  }
  if (rest[0] == '-') {
    rest.remove_prefix(1);
    if (!IsRelease(rest)) return {};
  } else if (!IsRelease(rest) || rest.find('.') == std::string_view::npos) {
    return {};
  }
  *toolkit = true;
  return rest;
}

}  // namespace

CudaPath ReadCudaPath(std::string_view path) {
  CudaPath out;
  bool bare_cuda = false;  // the previous component was exactly "cuda"
  size_t i = 0;
  while (i <= path.size()) {
    size_t end = path.find_first_of("/\\", i);
    if (end == std::string_view::npos) end = path.size();
    const std::string_view c = path.substr(i, end - i);
    i = end + 1;
    if (c.empty()) continue;
    if (bare_cuda) {
      bare_cuda = false;
      std::string_view r = c;
      if (r[0] == 'v' || r[0] == 'V') r.remove_prefix(1);
      if (IsRelease(r)) {
        out.release = r;
        continue;
      }
    }
    bool toolkit = false;
    const std::string_view release = ComponentRelease(c, &toolkit);
    if (!toolkit) continue;
    out.under_toolkit = true;
    if (release.empty()) {
      bare_cuda = true;
    } else {
      out.release = release;
    }
  }
  return out;
}

}  // namespace casefile::version
