#include "analyze/host_names.h"

#include <utility>

namespace casefile {

bool SameHost(std::string_view a, std::string_view b) {
  if (a == b) return true;
  if (a.size() > b.size()) std::swap(a, b);
  return !a.empty() && b.starts_with(a) && b[a.size()] == '.';
}

}  // namespace casefile
