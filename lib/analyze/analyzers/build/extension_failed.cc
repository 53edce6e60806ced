// build.extension_failed (docs/FINDINGS.md): a CUDA/C++ extension that did
// not build. The evidence an expert wants is the compiler's first error,
// found in the lines before the failure, not the RuntimeError at the end of
// the traceback.
#include <algorithm>
#include <map>
#include <string>

#include "analyze/analyzers/build/build_common.h"
#include "analyze/analyzers/build/build_rules.h"
#include "parse/dist/dist_kinds.h"

namespace casefile::build {
namespace {

// The failure rows of one build: in one file, each within kOneBuildLines of
// the previous.
struct FailedBuild {
  const BuildErrorRow* first = nullptr;
  const BuildErrorRow* last = nullptr;
  std::string name;  // the extension (or "ninja", a command), "" when unnamed
};

bool IsNamed(const std::string& detail) {
  return !detail.empty() && detail != "ninja" && detail.find('/') == std::string::npos;
}

}  // namespace

std::optional<Finding> BuildExtensionFailed(const BuildFacts& facts) {
  std::vector<FailedBuild> builds;
  for (const BuildErrorRow& e : facts.errors) {
    if (e.op != dist::kBuildExtensionFailed) continue;
    if (!builds.empty() && builds.back().last->file_id == e.file_id &&
        e.line_no - builds.back().last->line_no <= kOneBuildLines) {
      FailedBuild& b = builds.back();
      b.last = &e;
      if (IsNamed(e.detail) && !IsNamed(b.name)) b.name = e.detail;
      continue;
    }
    builds.push_back({&e, &e, e.detail});
  }
  if (builds.empty()) return std::nullopt;
  Finding f = NewFinding("build.extension_failed", Severity::kError,
                         "A CUDA/C++ extension failed to build");
  std::string first_error;
  std::string first_name;
  std::vector<std::string> hosts;
  std::map<int64_t, int64_t> searched_to;  // per file: the last line already searched
  size_t cited = 0;
  for (const FailedBuild& b : builds) {
    const int64_t file = b.first->file_id;
    int64_t from = std::max<int64_t>(1, b.first->line_no - kCompilerErrorWindow);
    if (auto it = searched_to.find(file); it != searched_to.end())
      from = std::max(from, it->second + 1);
    searched_to[file] = b.last->line_no;
    std::optional<CompilerErrorLine> err;
    if (facts.first_compiler_error) err = facts.first_compiler_error(file, from, b.first->line_no);
    if (std::find(hosts.begin(), hosts.end(), b.first->host) == hosts.end())
      hosts.push_back(b.first->host);
    AddCulprit(f, b.first->host, b.first->rank);
    if (first_name.empty() && IsNamed(b.name)) first_name = b.name;
    if (first_error.empty() && err) {
      first_error = err->text;
      if (err->count > 1) first_error += " (" + std::to_string(err->count) + " error lines)";
    }
    if (cited++ < kMaxCited) {
      if (err) f.evidence.push_back(facts.line(file, err->line_no));
      f.evidence.push_back(facts.line(file, b.last->line_no));
    }
  }
  f.summary = "The build of " +
              (first_name.empty() ? std::string("a CUDA/C++ extension")
                                  : "the extension '" + first_name + "'") +
              " failed on " + HostList(hosts) + " (" + std::to_string(builds.size()) +
              " failed build(s)). ";
  f.summary += first_error.empty()
                   ? "No compiler error line was found before the failure; the build's "
                     "output may be in another file."
                   : "The first compiler error: " + first_error;
  f.recommendation =
      "Fix the first compiler error, not the last line of the traceback. Rebuild verbosely "
      "(DS_BUILD_OPS=1 / MAX_JOBS=1, `pip install -v`) to see it; check that nvcc, gcc and "
      "torch's CUDA agree (other build.* findings), or pre-build the ops once into a wheel "
      "(`python setup.py bdist_wheel`) and install it on every host.";
  return f;
}

}  // namespace casefile::build
