// Changing one meta row of a finished index (a separate, writable
// connection, one transaction), for facts learnt after the build: the
// provenance of the findings an analysis stored.
#pragma once

#include <optional>
#include <string>

namespace casefile {

// Sets meta `key` to `value`, or deletes the row when value is nullopt.
// Throws as IndexReader::Open for a missing or foreign file, Error(kIo) when
// the file cannot be written.
void UpdateIndexMeta(const std::string& path, const std::string& key,
                     const std::optional<std::string>& value);

}  // namespace casefile
