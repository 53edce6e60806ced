// Fuzz target: the line layer as ingest runs it (ingest_lines.h: LineSplitter
// fed in two chunks, StripAnsi, the UTF-8 check, ParseLinePrefix with a
// TimeContext). Checked on every input:
//  - the splitter's output does not depend on where the chunks were cut
//    (its header's promise): one whole Feed, the ingest cut, and a
//    byte-at-a-time feed with a small line limit against its own whole feed
//    (the production limit, 64 KiB, is never reached under -max_len=65536,
//    so a small one exercises truncation);
//  - offsets increase and stay in the input; no line is longer than the
//    limit; no line holds '\n';
//  - StripAnsi only removes bytes; IsValidUtf8 agrees with a plain decoder;
//  - the prefix stays inside the line (msg_start, host), sets only known
//    wrapper bits and levels, and any time is a calendar time of a 4-digit
//    year.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_abort.h"
#include "ingest_lines.h"
#include "parse/line/timestamp.h"

namespace {

using casefile::LineSplitter;
using casefile::RawLine;

struct Emitted {
  std::string text;
  uint64_t offset;
  uint32_t flags;
  bool operator==(const Emitted&) const = default;
};

std::vector<Emitted> Split(std::string_view input, uint32_t max_line, size_t step) {
  std::vector<Emitted> out;
  LineSplitter splitter(max_line, [&](const RawLine& l) {
    out.push_back({std::string(l.text), l.offset, l.flags});
  });
  for (size_t i = 0; i < input.size(); i += step) splitter.Feed(input.substr(i, step));
  splitter.Finish();
  return out;
}

std::vector<Emitted> SplitAt(std::string_view input, uint32_t max_line, size_t cut) {
  std::vector<Emitted> out;
  LineSplitter splitter(max_line, [&](const RawLine& l) {
    out.push_back({std::string(l.text), l.offset, l.flags});
  });
  splitter.Feed(input.substr(0, cut));
  splitter.Feed(input.substr(cut));
  splitter.Finish();
  return out;
}

void CheckLines(const std::vector<Emitted>& lines, std::string_view input, uint32_t max_line) {
  uint64_t last = 0;
  bool first = true;
  for (const Emitted& l : lines) {
    if (l.text.size() > max_line) FUZZ_ABORT();
    if (l.text.find('\n') != std::string::npos) FUZZ_ABORT();
    if (l.offset >= input.size() && !(l.offset == input.size() && l.text.empty())) FUZZ_ABORT();
    if (!first && l.offset <= last) FUZZ_ABORT();
    if (l.flags &
        ~uint32_t{casefile::kLineTruncated | casefile::kLineHadFrames | casefile::kLineNoNewline})
      FUZZ_ABORT();
    last = l.offset;
    first = false;
  }
}

// RFC 3629 by decoding each code point, a different method from the
// library's table of second-byte ranges.
bool ReferenceUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto b = static_cast<unsigned char>(s[i]);
    size_t len;
    uint32_t cp;
    if (b < 0x80) {
      ++i;
      continue;
    } else if ((b & 0xE0) == 0xC0) {
      len = 2, cp = b & 0x1F;
    } else if ((b & 0xF0) == 0xE0) {
      len = 3, cp = b & 0x0F;
    } else if ((b & 0xF8) == 0xF0) {
      len = 4, cp = b & 0x07;
    } else {
      return false;
    }
    if (i + len > s.size()) return false;
    for (size_t k = 1; k < len; ++k) {
      const auto c = static_cast<unsigned char>(s[i + k]);
      if ((c & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (c & 0x3F);
    }
    const uint32_t min_cp = len == 2 ? 0x80 : len == 3 ? 0x800 : 0x10000;
    if (cp < min_cp || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += len;
  }
  return true;
}

bool Within(std::string_view inner, std::string_view outer) {
  if (inner.empty()) return true;
  return inner.data() >= outer.data() && inner.data() + inner.size() <= outer.data() + outer.size();
}

// 0000-01-01 and 10000-01-01, with a day of slack for zone offsets.
const int64_t kMinUs = (casefile::DaysFromCivil(0, 1, 1) - 1) * 86400 * 1000000LL;
const int64_t kMaxUs = (casefile::DaysFromCivil(10000, 1, 1) + 1) * 86400 * 1000000LL;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const uint32_t kLimit = casefile::Limits{}.max_line_bytes;

  // Chunk independence of the splitter, at the production limit and at a
  // small one that makes truncation reachable.
  const std::vector<Emitted> whole = Split(input, kLimit, input.size() + 1);
  if (SplitAt(input, kLimit, casefile::fuzz::ChunkCut(input)) != whole) FUZZ_ABORT();
  CheckLines(whole, input, kLimit);
  const uint32_t small = size > 1 ? 1 + static_cast<unsigned char>(input[1]) % 48 : 1;
  const std::vector<Emitted> small_whole = Split(input, small, input.size() + 1);
  CheckLines(small_whole, input, small);
  if (size <= 4096 && Split(input, small, 1) != small_whole) FUZZ_ABORT();
  if (SplitAt(input, small, casefile::fuzz::ChunkCut(input)) != small_whole) FUZZ_ABORT();

  std::string clean;
  size_t index = 0;
  const int64_t n = casefile::fuzz::FeedLikeIngest(
      input, 1, [&](const casefile::LineRecord& rec, const casefile::LinePrefix& p) {
        // The raw line before ANSI removal: the whole run's line at this index.
        if (index >= whole.size()) FUZZ_ABORT();
        const Emitted& raw = whole[index++];
        if (rec.offset != raw.offset) FUZZ_ABORT();
        if (rec.text.size() > raw.text.size()) FUZZ_ABORT();
        const bool stripped = casefile::StripAnsi(raw.text, clean);
        if (stripped != ((rec.flags & casefile::kLineHadAnsi) != 0)) FUZZ_ABORT();
        if (stripped && (clean.size() >= raw.text.size() || clean != rec.text)) FUZZ_ABORT();
        if (!stripped && (!clean.empty() || rec.text != raw.text)) FUZZ_ABORT();
        const bool valid = casefile::IsValidUtf8(rec.text);
        if (valid != ReferenceUtf8(rec.text)) FUZZ_ABORT();
        if (valid == ((rec.flags & casefile::kLineInvalidUtf8) != 0)) FUZZ_ABORT();

        if (p.msg_start > rec.text.size()) FUZZ_ABORT();
        if (!Within(p.host, rec.text)) FUZZ_ABORT();
        if (p.wrappers >> 16) FUZZ_ABORT();
        if (static_cast<unsigned>(p.level) > static_cast<unsigned>(casefile::Level::kFatal))
          FUZZ_ABORT();
        if (p.rank < -1 || p.local_rank < -1) FUZZ_ABORT();
        if (p.ts_us != casefile::kNoTimestamp && (p.ts_us < kMinUs || p.ts_us > kMaxUs))
          FUZZ_ABORT();
        if (p.wrappers == 0 && p.msg_start != 0) FUZZ_ABORT();
      });
  if (n != static_cast<int64_t>(whole.size()) || index != whole.size()) FUZZ_ABORT();
  return 0;
}
