#include "index/metric_points_codec.h"

#include <zstd.h>

#include "common/error.h"
#include "index/sqlite_util.h"

namespace casefile {
namespace {

// Level 3: level 19 saves a further eleventh for about ten times the time.
constexpr int kPointsLevel = 3;

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
  try {
    const std::string text = DecompressMetricPoints(
        sqlite3_value_blob(argv[0]), static_cast<size_t>(sqlite3_value_bytes(argv[0])));
    sqlite3_result_text(ctx, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
  } catch (const std::exception& e) {
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
  const unsigned long long claimed = ZSTD_getFrameContentSize(data, size);
  if (claimed == ZSTD_CONTENTSIZE_ERROR || claimed == ZSTD_CONTENTSIZE_UNKNOWN ||
      claimed > kMaxPointsText) {
    throw Error(ErrorCode::kCorrupt,
                "corrupt metric_chunks.points in index: not a zstd frame of "
                "at most 1 MiB");
  }
  std::string text(static_cast<size_t>(claimed), '\0');
  const size_t n = ZSTD_decompress(text.data(), text.size(), data, size);
  if (ZSTD_isError(n) || n != text.size()) {
    throw Error(ErrorCode::kCorrupt, std::string("corrupt metric_chunks.points in index: ") +
                                         (ZSTD_isError(n) ? ZSTD_getErrorName(n) : "short frame"));
  }
  return text;
}

void RegisterMetricPointsFunction(sqlite3* db) {
  const int rc = sqlite3_create_function_v2(db, "casefile_points", 1,
                                            SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS,
                                            nullptr, &PointsFunction, nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) ThrowSqlite(db, rc, "cannot register casefile_points");
}

}  // namespace casefile
