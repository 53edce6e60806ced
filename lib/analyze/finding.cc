#include "analyze/finding.h"

#include <algorithm>
#include <tuple>

namespace casefile {

const char* SeverityName(Severity s) {
  switch (s) {
    case Severity::kInfo:
      return "info";
    case Severity::kWarning:
      return "warning";
    case Severity::kError:
      return "error";
  }
  return "error";
}

bool Culprit::operator<(const Culprit& o) const {
  return std::tie(host, task, rank) < std::tie(o.host, o.task, o.rank);
}

bool Culprit::operator==(const Culprit& o) const {
  return std::tie(host, task, rank) == std::tie(o.host, o.task, o.rank);
}

bool Evidence::operator<(const Evidence& o) const {
  return std::tie(bundle, path, line) < std::tie(o.bundle, o.path, o.line);
}

void Normalize(Finding& f) {
  std::sort(f.culprits.begin(), f.culprits.end());
  f.culprits.erase(std::unique(f.culprits.begin(), f.culprits.end()), f.culprits.end());
  std::sort(f.evidence.begin(), f.evidence.end());
  f.evidence.erase(std::unique(f.evidence.begin(), f.evidence.end(),
                               [](const Evidence& a, const Evidence& b) {
                                 return a.bundle == b.bundle && a.path == b.path &&
                                        a.line == b.line;
                               }),
                   f.evidence.end());
}

}  // namespace casefile
