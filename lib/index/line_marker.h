// Line tests run at ingest for a later stage. Ingest hands every stored line
// to a marker, and ORs the bits it returns into the line's block
// (line_blocks.scan_marks); what the bits mean belongs to whoever supplies
// the marker (the analyze stage: analyze/line_marks.h), so that ingest and
// the index need not know the analyzers' tests.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "index/index_types.h"

namespace casefile {

// Marks the lines of one file, handed over in order. Used by one thread.
class LineMarker {
 public:
  virtual ~LineMarker() = default;
  virtual uint32_t Mark(const LineRecord& line) = 0;
};

struct LineMarking {
  // A fresh marker for each file.
  std::function<std::unique_ptr<LineMarker>()> make;
  // A meta row that says which tests made the marks; a reader trusts the
  // marks only when it finds the value it expects.
  std::string meta_key;
  std::string meta_value;
};

}  // namespace casefile
