// build.multiple_toolkits (docs/FINDINGS.md): several CUDA toolkits on one
// host are harmless until the variables that choose one disagree; then nvcc
// comes from one release and the libraries a build links from another.
#include <iterator>
#include <string>

#include "analyze/analyzers/build/build_common.h"
#include "analyze/analyzers/build/build_rules.h"
#include "analyze/analyzers/build/version_text.h"
#include "parse/version/version_facts.h"

namespace casefile::build {
namespace {

struct Pointer {
  const char* what;  // "PATH", "LD_LIBRARY_PATH", "CUDA_HOME"
  const VersionFactRow* row = nullptr;
  std::string release;  // resolved
};

// The release of a pointer: its own, else that of the installed toolkit
// whose path it names (a /usr/local/cuda symlink the listing resolved).
std::string Resolve(const VersionFactRow& row, const HostVersions& host) {
  if (!row.version.empty()) return row.version;
  const auto it = host.find(version::kCudaToolkit);
  if (it == host.end()) return "";
  std::string_view path = row.detail;
  for (const VersionFactRow* t : it->second) {
    std::string_view dir = t->detail;
    while (dir.size() > 1 && dir.back() == '/') dir.remove_suffix(1);
    if (!t->version.empty() && !dir.empty() && path.starts_with(dir) &&
        (path.size() == dir.size() || path[dir.size()] == '/'))
      return t->version;
  }
  return "";
}

// Two releases name different toolkits: the majors differ, or both name a
// minor and the minors differ ("12", a /usr/local/cuda-12 link, matches
// any 12.x).
bool Conflict(const std::string& a, const std::string& b) {
  const Release x = ParseRelease(a), y = ParseRelease(b);
  if (!x.ok() || !y.ok()) return false;
  if (x.major != y.major) return true;
  return x.minor >= 0 && y.minor >= 0 && x.minor != y.minor;
}

}  // namespace

std::optional<Finding> BuildMultipleToolkits(const BuildFacts& facts) {
  Finding f = NewFinding("build.multiple_toolkits", Severity::kWarning,
                         "PATH, LD_LIBRARY_PATH and CUDA_HOME point at different CUDA toolkits");
  std::vector<std::string> hosts;
  std::string first_case;
  for (const auto& [host, versions] : VersionsByHost(facts.versions)) {
    Pointer ptrs[] = {
        {"PATH", nullptr, ""}, {"LD_LIBRARY_PATH", nullptr, ""}, {"CUDA_HOME", nullptr, ""}};
    ptrs[0].row = First(versions, version::kPathCuda);
    ptrs[1].row = First(versions, version::kLdPathCuda);
    ptrs[2].row = First(versions, version::kCudaHome);
    bool conflict = false;
    for (Pointer& p : ptrs) {
      if (p.row) p.release = Resolve(*p.row, versions);
    }
    // The nvcc PATH runs is `which -a nvcc`'s first. It overrides PATH's
    // first CUDA entry when it is another release: a directory whose name
    // says nothing of CUDA came first (a conda env's bin with its own
    // cuda-nvcc; /usr/bin/nvcc of a distribution's package), and `nvcc
    // --version` ran that one.
    if (const VersionFactRow* which = First(versions, version::kNvccPath)) {
      std::string release = Resolve(*which, versions);
      if (release.empty()) {
        if (const VersionFactRow* nv = First(versions, version::kNvcc))
          release = ReleaseText(ParseRelease(nv->version));
      }
      if (!ptrs[0].row || (!release.empty() && Conflict(release, ptrs[0].release))) {
        ptrs[0].row = which;
        ptrs[0].release = release;
      }
    }
    for (size_t i = 0; i < std::size(ptrs); ++i) {
      for (size_t j = i + 1; j < std::size(ptrs); ++j) {
        if (!ptrs[i].release.empty() && !ptrs[j].release.empty())
          conflict |= Conflict(ptrs[i].release, ptrs[j].release);
      }
    }
    if (!conflict) continue;
    hosts.push_back(host);
    AddCulprit(f, host);
    std::string text;
    for (const Pointer& p : ptrs) {
      if (!p.row || p.release.empty()) continue;
      if (!text.empty()) text += ", ";
      text += std::string(p.what) + " -> " + p.row->detail + " (CUDA " + p.release + ")";
      if (hosts.size() <= kMaxCited)
        f.evidence.push_back(facts.line(p.row->file_id, p.row->line_no));
    }
    if (first_case.empty()) first_case = HostName(host) + ": " + text;
  }
  if (f.evidence.empty()) return std::nullopt;
  f.summary = "On " + HostList(hosts) + ", the variables that choose a CUDA toolkit disagree (" +
              first_case +
              "). nvcc then comes from one release while the build links and loads "
              "libraries (libcudart) from another, which fails in confusing ways.";
  f.recommendation =
      "Pick one toolkit, the release torch was built for, and point all three at it: "
      "export CUDA_HOME=/usr/local/cuda-X.Y, PATH=$CUDA_HOME/bin:$PATH and "
      "LD_LIBRARY_PATH=$CUDA_HOME/lib64:$LD_LIBRARY_PATH (earlier entries win); check that "
      "the directories exist.";
  return f;
}

}  // namespace casefile::build
