// Runs a LineMarking's tests on every line of every block on the index
// writer's preparing thread (before template mining, off the parsing
// thread), and stores what they found in the block's scan_marks.
#pragma once

#include <cstdint>
#include <memory>

#include "index/line_block.h"
#include "index/line_marker.h"

namespace casefile {

class BlockMarks {
 public:
  explicit BlockMarks(const LineMarking& marking) : marking_(marking) {}
  // Blocks come in the order their lines were added: a file's blocks one
  // after another, so one marker per file sees its lines in order.
  void Prepare(Block& block);

 private:
  const LineMarking& marking_;
  int64_t file_ = 0;
  std::unique_ptr<LineMarker> marker_;
};

}  // namespace casefile
