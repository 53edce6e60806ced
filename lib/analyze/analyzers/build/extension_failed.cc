// build.extension_failed (docs/FINDINGS.md): a CUDA/C++ extension that did
// not build. The evidence an expert wants is the compiler's first error,
// found in the lines of the build, not the RuntimeError at the end of the
// traceback.
#include <algorithm>
#include <map>
#include <string>
#include <tuple>

#include "analyze/analyzers/build/build_common.h"
#include "analyze/analyzers/build/build_rules.h"
#include "parse/dist/dist_kinds.h"

namespace casefile::build {
namespace {

// The failure rows of one build: one file, one host and rank, each row
// within kOneBuildLines of the previous.
struct FailedBuild {
  const BuildErrorRow* first = nullptr;
  const BuildErrorRow* last = nullptr;
  std::string name;  // the extension, "" when no row named it
};

// Rows that name the extension: not ninja, not a setuptools command
// ("command: gcc"), not a path.
bool IsNamed(const std::string& detail) {
  return !detail.empty() && detail != "ninja" && !detail.starts_with("command: ") &&
         detail.find('/') == std::string::npos;
}

using BuildKey = std::tuple<int64_t, std::string, int64_t>;  // file, host, rank (-1)

BuildKey KeyOf(const BuildErrorRow& e) { return {e.file_id, e.host, e.rank.value_or(-1)}; }

std::string Trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return std::string(s);
}

}  // namespace

std::optional<Finding> BuildExtensionFailed(const BuildFacts& facts) {
  std::vector<FailedBuild> builds;
  std::map<BuildKey, size_t> open;  // the last build of each key
  for (const BuildErrorRow& e : facts.errors) {
    if (e.op != dist::kBuildExtensionFailed) continue;
    const BuildKey key = KeyOf(e);
    const auto it = open.find(key);
    if (it != open.end() && e.line_no - builds[it->second].last->line_no <= kOneBuildLines) {
      FailedBuild& b = builds[it->second];
      b.last = &e;
      if (IsNamed(e.detail) && !IsNamed(b.name)) b.name = e.detail;
      continue;
    }
    open[key] = builds.size();
    builds.push_back({&e, &e, IsNamed(e.detail) ? e.detail : ""});
  }
  if (builds.empty()) return std::nullopt;
  Finding f = NewFinding("build.extension_failed", Severity::kError,
                         "A CUDA/C++ extension failed to build");
  std::string first_error;
  std::string first_name;
  std::string first_failure;  // the failure line, when no compiler line was found
  std::vector<std::string> hosts;
  std::map<BuildKey, int64_t> searched_to;  // per key: the last line already searched
  size_t cited = 0;
  for (const FailedBuild& b : builds) {
    const int64_t file = b.first->file_id;
    const BuildKey key = KeyOf(*b.first);
    int64_t from = std::max<int64_t>(1, b.first->line_no - kCompilerErrorWindow);
    if (auto it = searched_to.find(key); it != searched_to.end())
      from = std::max(from, it->second + 1);
    searched_to[key] = b.last->line_no;
    // Up to the build's last row: a build that was not verbose prints the
    // compiler's output after "Error building extension 'x':".
    std::optional<CompilerErrorLine> err;
    if (facts.first_compiler_error)
      err = facts.first_compiler_error(file, from, b.last->line_no, b.first->host);
    if (std::find(hosts.begin(), hosts.end(), b.first->host) == hosts.end())
      hosts.push_back(b.first->host);
    AddCulprit(f, b.first->host, b.first->rank);
    if (first_name.empty() && !b.name.empty()) first_name = b.name;
    const Evidence failure = facts.line(file, b.last->line_no);
    if (first_error.empty() && err) {
      first_error = Trimmed(err->text);
      if (err->count > 1) first_error += " (" + std::to_string(err->count) + " error lines)";
    }
    if (first_failure.empty() && !err) first_failure = Trimmed(failure.text);
    if (cited++ < kMaxCited) {
      if (err && err->line_no != b.last->line_no)
        f.evidence.push_back(facts.line(file, err->line_no));
      f.evidence.push_back(failure);
    }
  }
  f.summary = "The build of " +
              (first_name.empty() ? std::string("a CUDA/C++ extension")
                                  : "the extension '" + first_name + "'") +
              " failed on " + HostList(hosts) + " (" + std::to_string(builds.size()) +
              " failed build(s)). ";
  if (!first_error.empty()) {
    f.summary += "The first compiler error: " + first_error;
  } else {
    f.summary += "No compiler ran or its output is not in the bundle; the failure: " +
                 (first_failure.empty() ? std::string("(empty line)") : first_failure);
  }
  f.recommendation =
      "Fix the first compiler error, not the last line of the traceback. Rebuild verbosely "
      "(DS_BUILD_OPS=1 / MAX_JOBS=1, `pip install -v`) to see it; check that nvcc, gcc and "
      "torch's CUDA agree (other build.* findings), that CUDA_HOME names an installed "
      "toolkit and ninja is installed, or pre-build the ops once into a wheel "
      "(`python setup.py bdist_wheel`) and install it on every host.";
  return f;
}

}  // namespace casefile::build
