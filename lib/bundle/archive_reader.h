// Reads one archive file entry by entry with libarchive, in archive order,
// without extracting anything.
#pragma once

#include <string>

#include "bundle/bundle_reader.h"
#include "common/limits.h"

namespace casefile::bundle {

// `path` must name a regular file. Fills `result` (format included); throws
// as ReadBundle documents.
void ReadArchive(const std::string& path, const Limits& limits, ReadBudget& budget,
                 BundleVisitor& visitor, const ReadTuning& tuning, BundleReadResult& result);

}  // namespace casefile::bundle
