#include "parse/line/line_splitter.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/line_fields.h"

namespace casefile {
namespace {

struct Line {
  std::string text;
  uint64_t offset;
  uint32_t flags;
  bool operator==(const Line&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Line& l) {
  return os << "{\"" << l.text << "\" @" << l.offset << " flags " << l.flags << "}";
}

enum class Cut { kWhole, kBytes, kRandom };

std::vector<Line> Split(std::string_view input, uint32_t max, Cut cut, uint32_t seed = 1) {
  std::vector<Line> lines;
  LineSplitter splitter(max, [&](const RawLine& l) {
    lines.push_back({std::string(l.text), l.offset, l.flags});
  });
  if (cut == Cut::kWhole) {
    splitter.Feed(input);
  } else if (cut == Cut::kBytes) {
    for (size_t i = 0; i < input.size(); ++i) splitter.Feed(input.substr(i, 1));
  } else {
    std::mt19937 rng(seed);
    size_t i = 0;
    while (i < input.size()) {
      const size_t n = std::uniform_int_distribution<size_t>(0, 7)(rng);
      splitter.Feed(input.substr(i, n));
      i += n;
    }
  }
  splitter.Finish();
  EXPECT_EQ(splitter.lines(), lines.size());
  return lines;
}

// Splits `input` whole, byte by byte and in random chunks (some empty), checks
// that all agree, and returns the lines.
std::vector<Line> SplitEveryWay(std::string_view input, uint32_t max = 1024) {
  const std::vector<Line> whole = Split(input, max, Cut::kWhole);
  EXPECT_EQ(Split(input, max, Cut::kBytes), whole) << "byte by byte";
  for (uint32_t seed = 1; seed <= 8; ++seed) {
    EXPECT_EQ(Split(input, max, Cut::kRandom, seed), whole) << "random chunks, seed " << seed;
  }
  return whole;
}

constexpr uint32_t kTrunc = kLineTruncated;
constexpr uint32_t kFrames = kLineHadFrames;
constexpr uint32_t kNoNl = kLineNoNewline;

TEST(LineSplitter, PlainLinesAndOffsets) {
  EXPECT_EQ(SplitEveryWay("a\nbb\n\nccc"),
            (std::vector<Line>{{"a", 0, 0}, {"bb", 2, 0}, {"", 5, 0}, {"ccc", 6, kNoNl}}));
}

TEST(LineSplitter, EmptyStreamAndLoneNewline) {
  EXPECT_TRUE(SplitEveryWay("").empty());
  EXPECT_EQ(SplitEveryWay("\n"), (std::vector<Line>{{"", 0, 0}}));
}

TEST(LineSplitter, CrlfIsATerminatorNotAFrame) {
  EXPECT_EQ(SplitEveryWay("x\r\ny\r\n"), (std::vector<Line>{{"x", 0, 0}, {"y", 3, 0}}));
  EXPECT_EQ(SplitEveryWay("\r\n"), (std::vector<Line>{{"", 0, 0}}));
}

TEST(LineSplitter, ProgressFramesReduceToTheLast) {
  EXPECT_EQ(SplitEveryWay("a\rb\rc\n"), (std::vector<Line>{{"c", 0, kFrames}}));
  EXPECT_EQ(SplitEveryWay("a\rb\r\n"), (std::vector<Line>{{"b", 0, kFrames}}));
  EXPECT_EQ(SplitEveryWay("a\rb\r\r\r\n"), (std::vector<Line>{{"b", 0, kFrames}}));
  EXPECT_EQ(SplitEveryWay("first\nx 10%\rx 100%\nlast\n"),
            (std::vector<Line>{{"first", 0, 0}, {"x 100%", 6, kFrames}, {"last", 19, 0}}));
}

TEST(LineSplitter, EmptyFramesNeverReplaceContent) {
  // tqdm ends some bars with "\r" and then the newline: the final state is
  // the last frame that has content, and nothing else was dropped.
  EXPECT_EQ(SplitEveryWay("abc\r\r\n"), (std::vector<Line>{{"abc", 0, 0}}));
  EXPECT_EQ(SplitEveryWay("abc\r\r\r\r\n"), (std::vector<Line>{{"abc", 0, 0}}));
  EXPECT_EQ(SplitEveryWay("a\r\r\n"), (std::vector<Line>{{"a", 0, 0}}));
  EXPECT_EQ(SplitEveryWay("a\r\r\rb\r\r\n"), (std::vector<Line>{{"b", 0, kFrames}}));
  EXPECT_EQ(SplitEveryWay("\r\r\n"), (std::vector<Line>{{"", 0, 0}}));
  EXPECT_EQ(SplitEveryWay("x 50%\rx 100%\r\nnext\n"),
            (std::vector<Line>{{"x 100%", 0, kFrames}, {"next", 14, 0}}));
  // At the end of the stream as well.
  EXPECT_EQ(SplitEveryWay("abc\r\r"), (std::vector<Line>{{"abc", 0, kNoNl}}));
  // A truncated frame followed only by empty ones stays the kept, cut frame.
  EXPECT_EQ(SplitEveryWay("abcdefg\r\r\n", 4), (std::vector<Line>{{"abcd", 0, kTrunc}}));
  EXPECT_EQ(SplitEveryWay("xy\rabcdefg\r\r\n", 4),
            (std::vector<Line>{{"abcd", 0, kFrames | kTrunc}}));
}

TEST(LineSplitter, LeadingCarriageReturnsDropNothing) {
  // tqdm starts each frame with '\r': the first one has nothing before it.
  EXPECT_EQ(SplitEveryWay("\rc\n"), (std::vector<Line>{{"c", 0, 0}}));
  EXPECT_EQ(SplitEveryWay("\r\r\rc\n"), (std::vector<Line>{{"c", 0, 0}}));
}

TEST(LineSplitter, WatchdogGluedToTheFinalFrame) {
  const std::string in =
      "Map:  50%|#####     | 5/10 [00:01<00:01]\r"
      "Map: 100%|##########| 10/10 [00:02<00:00][E ProcessGroupNCCL.cpp:475] [Rank 2] Watchdog "
      "caught collective operation timeout\n";
  const std::vector<Line> lines = SplitEveryWay(in);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].text,
            "Map: 100%|##########| 10/10 [00:02<00:00][E ProcessGroupNCCL.cpp:475] [Rank 2] "
            "Watchdog caught collective operation timeout");
  EXPECT_EQ(lines[0].flags, kFrames);
}

TEST(LineSplitter, TruncatesLongLines) {
  EXPECT_EQ(SplitEveryWay("abcdefgh\nxy\n", 4),
            (std::vector<Line>{{"abcd", 0, kTrunc}, {"xy", 9, 0}}));
  EXPECT_EQ(SplitEveryWay("abcd\nabcde", 4),
            (std::vector<Line>{{"abcd", 0, 0}, {"abcd", 5, kTrunc | kNoNl}}));
  EXPECT_EQ(SplitEveryWay("abcdefgh\r\n", 4), (std::vector<Line>{{"abcd", 0, kTrunc}}));
}

TEST(LineSplitter, TruncationAppliesToTheKeptFrame) {
  // A long frame followed by a short one: the short one is whole.
  EXPECT_EQ(SplitEveryWay("abcdefg\rxy\n", 4), (std::vector<Line>{{"xy", 0, kFrames}}));
  // A short frame followed by a long one: the long one is cut.
  EXPECT_EQ(SplitEveryWay("ab\rcdefgh\n", 4), (std::vector<Line>{{"cdef", 0, kFrames | kTrunc}}));
}

TEST(LineSplitter, LastLineWithoutNewline) {
  EXPECT_EQ(SplitEveryWay("x\ntail"), (std::vector<Line>{{"x", 0, 0}, {"tail", 2, kNoNl}}));
  // A final '\r' ends the line like a newline would.
  EXPECT_EQ(SplitEveryWay("a\rb\r"), (std::vector<Line>{{"b", 0, kFrames | kNoNl}}));
  EXPECT_EQ(SplitEveryWay("x\n\r"), (std::vector<Line>{{"x", 0, 0}, {"", 2, kNoNl}}));
}

TEST(LineSplitter, MegabyteOfFramesNeverAccumulates) {
  std::string in;
  for (int i = 0; i < 100000; ++i) in += "\rstep " + std::to_string(i) + "/100000";
  in += "\rdone\n";
  ASSERT_GT(in.size(), 1000000u);
  // With a 16-byte limit, an accumulated line would come out truncated.
  for (Cut cut : {Cut::kWhole, Cut::kBytes, Cut::kRandom}) {
    EXPECT_EQ(Split(in, 16, cut), (std::vector<Line>{{"done", 0, kFrames}}));
  }
}

TEST(LineSplitter, FinishTwiceAndFeedAfterFinish) {
  std::vector<Line> lines;
  LineSplitter s(64, [&](const RawLine& l) {
    lines.push_back({std::string(l.text), l.offset, l.flags});
  });
  s.Feed("ab");
  s.Finish();
  s.Finish();
  s.Feed("cd\n");
  s.Finish();
  EXPECT_EQ(lines, (std::vector<Line>{{"ab", 0, kNoNl}, {"cd", 2, 0}}));
  EXPECT_EQ(s.lines(), 2u);
}

TEST(LineSplitter, RejectsBadArguments) {
  EXPECT_THROW(LineSplitter(0, [](const RawLine&) {}), Error);
  EXPECT_THROW(LineSplitter(8, LineSplitter::Callback()), Error);
}

// The rules of line_splitter.h, written line by line over the whole input: an
// independent model that the streaming splitter must agree with. The kept
// frame is the last non-empty one: strip the terminator, then the bare '\r's
// of empty trailing frames, then everything up to the last '\r' left.
std::vector<Line> Model(std::string_view in, uint32_t max) {
  std::vector<Line> out;
  size_t start = 0;
  while (start < in.size()) {
    const size_t nl = in.find('\n', start);
    const bool has_nl = nl != std::string_view::npos;
    std::string_view raw = in.substr(start, (has_nl ? nl : in.size()) - start);
    uint32_t flags = has_nl ? 0 : kNoNl;
    if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
    // Trailing bare '\r's close empty frames, which are never kept.
    while (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
    const size_t cr = raw.rfind('\r');
    if (cr != std::string_view::npos) {
      if (raw.substr(0, cr).find_first_not_of('\r') != std::string_view::npos) flags |= kFrames;
      raw.remove_prefix(cr + 1);
    }
    if (raw.size() > max) {
      raw = raw.substr(0, max);
      flags |= kTrunc;
    }
    out.push_back({std::string(raw), start, flags});
    start = has_nl ? nl + 1 : in.size();
  }
  return out;
}

TEST(LineSplitter, RandomInputsAgreeWithTheModel) {
  std::mt19937 rng(20240501);
  const char alphabet[] = {'a', 'b', '\r', '\n', '\r', 'c'};
  for (int round = 0; round < 400; ++round) {
    const size_t len = std::uniform_int_distribution<size_t>(0, 60)(rng);
    std::string in;
    for (size_t i = 0; i < len; ++i) in += alphabet[std::uniform_int_distribution<int>(0, 5)(rng)];
    const uint32_t max = std::uniform_int_distribution<uint32_t>(1, 6)(rng);
    EXPECT_EQ(SplitEveryWay(in, max), Model(in, max)) << "round " << round;
  }
}

}  // namespace
}  // namespace casefile
