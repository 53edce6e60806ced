// Helpers the build rules share: culprits, host lists and finding shells.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "analyze/analyzers/build/build_inputs.h"
#include "analyze/finding.h"

namespace casefile::build {

Finding NewFinding(std::string_view code, Severity severity, std::string title);

// A culprit for a host ("" gives none) and rank.
void AddCulprit(Finding& f, const std::string& host, std::optional<int64_t> rank = std::nullopt);

// "node-1, node-2 and 3 more" ("this host" for "").
std::string HostList(const std::vector<std::string>& hosts, size_t max_named = 4);
std::string HostName(const std::string& host);  // "node-1", or "the host" for ""

// The first row of a component on a host, or nullptr.
const VersionFactRow* First(const HostVersions& host, std::string_view component);

}  // namespace casefile::build
