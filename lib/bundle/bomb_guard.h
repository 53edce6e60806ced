// The decompression-bomb test (Limits::bomb_floor_bytes, bomb_ratio): a
// layer of decompression is a bomb once what it produced passes the floor
// and ratio times what it consumed. Each layer is judged on its own bytes:
//   - the archive's compression (tar.zst, tar.gz, zip's deflate): the
//     entries' stored bytes of the whole input so far (holes of sparse
//     members included) against the archive file's bytes read;
//   - the gzip of a *.gz member: its gunzipped bytes against the member's
//     stored bytes consumed.
// Judging the layers apart keeps a gzip bomb inside a plain tar from making
// the next, sound entry look like a bomb of the outer layer.
#pragma once

#include <cstdint>

#include "common/limits.h"

namespace casefile::bundle {

inline bool IsDecompressionBomb(uint64_t produced, uint64_t consumed, const Limits& limits) {
  if (produced <= limits.bomb_floor_bytes) return false;
  // consumed * ratio cannot overflow for any input that fits on a disk:
  // ratio is small and consumed is at most the input's size.
  return produced / limits.bomb_ratio > consumed ||
         (produced / limits.bomb_ratio == consumed && produced % limits.bomb_ratio != 0);
}

}  // namespace casefile::bundle
