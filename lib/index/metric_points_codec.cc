#include "index/metric_points_codec.h"

#include <zstd.h>

#include "common/error.h"
#include "index/sqlite_util.h"
#include "index/zstd_thread_dctx.h"

namespace casefile {
namespace {

// Level 3: level 19 saves a further eleventh for about ten times the time.
constexpr int kPointsLevel = 3;

// The decompressed size a stored value claims. Throws Error(kCorrupt) when
// the bytes are not one frame of at most kMaxPointsText bytes.
size_t ClaimedTextSize(const void* data, size_t size) {
  const unsigned long long claimed = ZSTD_getFrameContentSize(data, size);
  if (claimed == ZSTD_CONTENTSIZE_ERROR || claimed == ZSTD_CONTENTSIZE_UNKNOWN ||
      claimed > kMaxPointsText) {
    throw Error(ErrorCode::kCorrupt,
                "corrupt metric_chunks.points in index: not a zstd frame of "
                "at most 1 MiB");
  }
  return static_cast<size_t>(claimed);
}

// Decompresses the frame into exactly `want` bytes at `dst`, with this
// thread's context (a context per call was a fresh mmap per chunk).
void DecompressInto(const void* data, size_t size, char* dst, size_t want) {
  const size_t n = ZSTD_decompressDCtx(ThreadDecompressor(), dst, want, data, size);
  if (ZSTD_isError(n) || n != want) {
    throw Error(ErrorCode::kCorrupt, std::string("corrupt metric_chunks.points in index: ") +
                                         (ZSTD_isError(n) ? ZSTD_getErrorName(n) : "short frame"));
  }
}

void PointsFunction(sqlite3_context* ctx, int, sqlite3_value** argv) {
  switch (sqlite3_value_type(argv[0])) {
    case SQLITE_NULL:
      sqlite3_result_null(ctx);
      return;
    case SQLITE_BLOB:
      break;
    default:
      sqlite3_result_value(ctx, argv[0]);
      return;
  }
  // Decompressed straight into the result's own buffer, which SQLite then
  // owns: no second copy of every chunk a query reads.
  char* text = nullptr;
  try {
    const void* data = sqlite3_value_blob(argv[0]);
    const size_t size = static_cast<size_t>(sqlite3_value_bytes(argv[0]));
    const size_t want = ClaimedTextSize(data, size);
    text = static_cast<char*>(sqlite3_malloc64(want + 1));
    if (text == nullptr) {
      sqlite3_result_error_nomem(ctx);
      return;
    }
    DecompressInto(data, size, text, want);
    sqlite3_result_text64(ctx, text, want, sqlite3_free, SQLITE_UTF8);
  } catch (const std::exception& e) {
    sqlite3_free(text);
    sqlite3_result_error(ctx, e.what(), -1);
  }
}

}  // namespace

MetricPointsCompressor::MetricPointsCompressor() : cctx_(ZSTD_createCCtx()) {
  if (!cctx_) throw Error(ErrorCode::kInternal, "cannot create a zstd compressor");
}

MetricPointsCompressor::~MetricPointsCompressor() { ZSTD_freeCCtx(cctx_); }

std::string_view MetricPointsCompressor::Compress(std::string_view text) {
  out_.resize(ZSTD_compressBound(text.size()));
  const size_t n =
      ZSTD_compressCCtx(cctx_, out_.data(), out_.size(), text.data(), text.size(), kPointsLevel);
  if (ZSTD_isError(n)) {
    throw Error(ErrorCode::kInternal,
                std::string("cannot compress metric points: ") + ZSTD_getErrorName(n));
  }
  return std::string_view(out_.data(), n);
}

std::string DecompressMetricPoints(const void* data, size_t size) {
  std::string text(ClaimedTextSize(data, size), '\0');
  DecompressInto(data, size, text.data(), text.size());
  return text;
}

void RegisterMetricPointsFunction(sqlite3* db) {
  const int rc = sqlite3_create_function_v2(db, "casefile_points", 1,
                                            SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS,
                                            nullptr, &PointsFunction, nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) ThrowSqlite(db, rc, "cannot register casefile_points");
}

}  // namespace casefile
