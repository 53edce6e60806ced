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
};

}  // namespace casefile
