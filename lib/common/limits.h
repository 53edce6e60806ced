// Resource limits applied while reading a bundle. Every limit that cuts input
// records an ingest issue, so nothing is dropped silently.
#pragma once

#include <cstdint>

namespace casefile {

struct Limits {
  // Decompressed bytes read from one entry; the rest is skipped and recorded.
  uint64_t max_entry_bytes = 8ull << 30;
  // Decompressed bytes read from all entries of all inputs together.
  uint64_t max_total_bytes = 256ull << 30;
  // Entries (files, directories, links) per input.
  uint64_t max_entries = 1000000;
  // A longer line is kept truncated to this many bytes and marked.
  uint32_t max_line_bytes = 64 * 1024;
  // One trace event object larger than this is skipped and recorded.
  uint32_t max_trace_event_bytes = 1 << 20;
  // Decompression-bomb guard (lib/bundle/bomb_guard.h). A layer of
  // decompression (an archive's own compression, or the gzip of a *.gz
  // member) whose output passes both bomb_floor_bytes and bomb_ratio times
  // the compressed bytes it has read so far is stopped there: ingest issue
  // "decompression_bomb", the bundle partial. Without it a 2 MB tar.zst of
  // zeros would keep a reader busy up to max_total_bytes (minutes). Log
  // text compresses 5-20x (gzip) to ~50x (zstd -19 on repetitive output);
  // zeros reach ~1000x in gzip (deflate's ceiling is 1032:1) and ~30000x in
  // zstd, so 500 stops every single-layer bomb while legitimate logs keep a
  // tenfold margin. Not open options (include/casefile.h) for now: tests
  // shrink them, the CLI uses these defaults.
  uint64_t bomb_floor_bytes = 1ull << 30;
  uint64_t bomb_ratio = 500;
};

}  // namespace casefile
