// Host names as logs and bundles spell them: "node-1" in a folder name and
// "node-1.cluster.local" in a syslog or NCCL line are one host.
#pragma once

#include <string_view>

namespace casefile {

// Equal, or one is the other's short form (the part before a '.').
bool SameHost(std::string_view a, std::string_view b);

}  // namespace casefile
