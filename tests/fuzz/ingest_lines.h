// The line layer as ingest's LineSink (lib/ingest/file_sink.cc) runs it, for
// the fuzz targets of the per-line extractors: LineSplitter fed in two chunks
// cut where the input's first byte says, StripAnsi, the UTF-8 flag,
// ParseLinePrefix with a TimeContext whose year starts from the file's mtime
// and follows full dates, and the year-before retry for glog and syslog
// stamps past the mtime. Each line reaches the callback as the LineRecord
// LineSink hands its extractors. Kept in step with LineSink by hand: that
// class is internal to file_sink.cc, and the targets must see what it sees.
#pragma once

#include <cstddef>
#include <cstdint>
#include <ctime>
#include <string>
#include <string_view>

#include "common/limits.h"
#include "index/index_types.h"
#include "parse/line/ansi.h"
#include "parse/line/line_prefix.h"
#include "parse/line/line_splitter.h"
#include "parse/line/utf8.h"

namespace casefile::fuzz {

// 2026-01-01T00:00:00Z: a fixed mtime keeps the targets deterministic.
inline constexpr int64_t kFuzzMtime = 1767225600;

inline int YearOfEpoch(int64_t epoch_seconds) {
  std::time_t t = static_cast<std::time_t>(epoch_seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  return tm.tm_year + 1900;
}

// Where the input is cut into its two chunks: a point derived from its first
// byte, so chunk boundaries are fuzzed along with the content.
inline size_t ChunkCut(std::string_view input) {
  if (input.empty()) return 0;
  return static_cast<size_t>(static_cast<unsigned char>(input[0])) * input.size() / 256;
}

// Runs `input` through the line layer; `on_line(const LineRecord&, const
// LinePrefix&)` sees each line (views valid during the call only). Returns
// the number of lines.
template <class OnLine>
int64_t FeedLikeIngest(std::string_view input, int64_t file_id, OnLine&& on_line) {
  constexpr int64_t kFutureSlackUs = 2 * 86400 * 1000000LL;  // as LineSink
  TimeContext time_ctx;
  time_ctx.default_year = YearOfEpoch(kFuzzMtime);
  bool year_from_mtime = true;
  const int64_t mtime_us = kFuzzMtime * 1000000;
  std::string clean;
  LineRecord record;
  record.file_id = file_id;
  int64_t lines = 0;
  LineSplitter splitter(Limits{}.max_line_bytes, [&](const RawLine& raw) {
    ++lines;
    uint32_t flags = raw.flags;
    std::string_view text = raw.text;
    if (StripAnsi(text, clean)) {
      text = clean;
      flags |= kLineHadAnsi;
    }
    if (!IsValidUtf8(text)) flags |= kLineInvalidUtf8;
    LinePrefix p = ParseLinePrefix(text, time_ctx);
    if ((p.wrappers & (kWrapIsoTime | kWrapDeepSpeed | kWrapCloudExport)) &&
        p.ts_us != kNoTimestamp) {
      time_ctx.default_year = YearOfEpoch(p.ts_us / 1000000);
      year_from_mtime = false;
    } else if (year_from_mtime && p.ts_us != kNoTimestamp && p.ts_us > mtime_us + kFutureSlackUs &&
               (p.wrappers & (kWrapGlog | kWrapSyslog))) {
      TimeContext previous = time_ctx;
      --previous.default_year;
      p = ParseLinePrefix(text, previous);
    }
    record.line_no = lines;
    record.offset = raw.offset;
    record.ts_us = p.ts_us;
    record.level = p.level;
    record.rank = p.rank;
    record.local_rank = p.local_rank;
    record.host = p.host;
    record.pid = p.pid;
    record.msg_start = p.msg_start;
    record.flags = flags;
    record.text = text;
    on_line(static_cast<const LineRecord&>(record), static_cast<const LinePrefix&>(p));
  });
  const size_t cut = ChunkCut(input);
  splitter.Feed(input.substr(0, cut));
  splitter.Feed(input.substr(cut));
  splitter.Finish();
  return lines;
}

}  // namespace casefile::fuzz
