// Reads a directory input: every entry below it in sorted order, links and
// special files recorded and never followed or opened.
#pragma once

#include <string>

#include "bundle/bundle_reader.h"
#include "common/limits.h"

namespace casefile::bundle {

// Fills `result` (format "directory"); throws Error(kIo) when the directory
// itself cannot be listed.
void ReadDirectory(const std::string& path, const Limits& limits, ReadBudget& budget,
                   BundleVisitor& visitor, const ReadTuning& tuning, BundleReadResult& result);

}  // namespace casefile::bundle
