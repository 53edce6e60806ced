// The ingest stage: reads inputs through the bundle stage, classifies each
// file, runs the matching parsers and streams rows into an IndexWriter.
// It is the only place that knows which parser handles which file kind.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "common/limits.h"
#include "index/index_writer.h"
#include "index/line_marker.h"

namespace casefile {

// Returns false to abort (ingest then throws Error(kAborted)).
using IngestProgress = std::function<bool(uint64_t bytes_done, std::string_view current_path)>;

struct IngestResult {
  bool partial = false;             // some input was read only in part
  std::vector<std::string> errors;  // one per partial input
  uint64_t bytes = 0;               // decompressed bytes read
  uint64_t lines = 0;
  uint64_t files = 0;
};

// Indexes every input into `writer` (each becomes a row of `bundles`).
// `marking`, when given, marks every stored line's block for a later stage
// (index/line_marker.h) and sets its meta row. Throws Error(kNotFound /
// kUnsupported) when an input cannot be read at all.
IngestResult IngestInputs(const std::vector<std::string>& inputs, const Limits& limits,
                          const IngestProgress& progress, IndexWriter& writer,
                          const LineMarking* marking = nullptr);

}  // namespace casefile
