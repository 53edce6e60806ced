// One zstd decompression context per thread, shared by every decoder of the
// index (line blocks, metric points). A context is ~100 KB that malloc hands
// out with mmap, so making one per call (ZSTD_decompress) costs a fresh
// zeroed mapping each time: one per block object cost a fifth of analyze's
// time on an index of 100,000 one-line files, and one per metric chunk was
// the largest single cost of a diff with indexes in place (the kernel
// clearing pages). Decoders never call out while they hold the context, so
// nested scans on one thread can share it.
#pragma once

struct ZSTD_DCtx_s;

namespace casefile {

// This thread's context; throws std::bad_alloc when it cannot be made.
ZSTD_DCtx_s* ThreadDecompressor();

}  // namespace casefile
