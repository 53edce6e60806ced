// How metric_chunks.points is stored: the chunk's JSON text (the encoding of
// parse/numeric/metric_chunk.h) in one zstd frame. Every rank printing its
// loss, grad norm and step time on every step made these texts a fifth of
// the index; they compress about 3.6 times. SQL reads them through the
// function casefile_points(points), registered on every connection the
// index opens (the `metrics` view uses it), which also passes text through
// unchanged.
#pragma once

#include <sqlite3.h>

#include <string>
#include <string_view>

struct ZSTD_CCtx_s;

namespace casefile {

// Decompressed points text is at most this long (a chunk closes at 32 KiB
// of text; a frame that claims more is corrupt).
inline constexpr size_t kMaxPointsText = 1 << 20;

class MetricPointsCompressor {
 public:
  MetricPointsCompressor();
  ~MetricPointsCompressor();
  MetricPointsCompressor(const MetricPointsCompressor&) = delete;
  MetricPointsCompressor& operator=(const MetricPointsCompressor&) = delete;

  // The frame for `text`, valid until the next call.
  std::string_view Compress(std::string_view text);

 private:
  ZSTD_CCtx_s* cctx_;
  std::string out_;
};

// The text of a stored points value. Throws Error(kCorrupt) when the bytes
// are not one frame of at most kMaxPointsText bytes.
std::string DecompressMetricPoints(const void* data, size_t size);

// Registers casefile_points(x): the text of a stored points value (a blob
// is decompressed, text is returned as it is, NULL stays NULL).
void RegisterMetricPointsFunction(sqlite3* db);

}  // namespace casefile
