// IndexWriter's preparing stage: a function run on every block of lines, in
// line order, on a thread of the writer, before the block is stored (ingest
// fills template signatures there).
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <string>
#include <vector>

#include "common/error.h"
#include "index/index_reader.h"
#include "index/index_writer.h"
#include "index/line_block.h"
#include "index_fixture.h"
#include "test_util.h"

namespace casefile {
namespace {

using test::PlainLine;

// Writes `files` files of `lines` lines each ("line N of file F").
void AddLines(IndexWriter& w, int64_t bundle, int files, int64_t lines,
              std::vector<std::string>& keep) {
  for (int f = 0; f < files; ++f) {
    int64_t file = w.AddFile(test::MakeFile(bundle, "logs/f" + std::to_string(f) + ".log"));
    uint64_t offset = 0;
    for (int64_t i = 1; i <= lines; ++i) {
      keep.push_back("line " + std::to_string(i) + " of file " + std::to_string(file));
      w.AddLine(PlainLine(file, i, keep.back(), offset));
      offset += keep.back().size() + 1;
    }
    w.EndFileLines(file);
  }
}

TEST(BlockPreparer, SeesEveryBlockInOrderAndWhatItSetsIsStored) {
  test::TempDir dir;
  const std::string db = dir.Join("p.db");
  std::vector<std::pair<int64_t, int64_t>> seen;  // (file, first line) per block
  std::vector<std::string> keep;
  keep.reserve(3 * 10000);
  {
    IndexWriter w(db);
    w.SetBlockPreparer([&](Block& b) {
      seen.emplace_back(b.file_id, b.first_line);
      // The line number as its "signature": checks it reaches the index.
      for (size_t i = 0; i < b.lines.size(); ++i) {
        b.lines[i].signature = static_cast<uint32_t>(b.first_line + static_cast<int64_t>(i));
      }
    });
    int64_t bundle = w.AddBundle(test::MakeBundle("b"));
    AddLines(w, bundle, 3, 10000, keep);  // 10,000 lines: three blocks per file
    w.DrainPreparer();
    // Drained: every block so far was seen, in order (read on this thread).
    ASSERT_EQ(seen.size(), 9u);
    for (size_t i = 0; i < seen.size(); ++i) {
      EXPECT_EQ(seen[i].first, static_cast<int64_t>(i / 3 + 1));
      EXPECT_EQ(seen[i].second, static_cast<int64_t>(i % 3) * int64_t{kMaxBlockLines} + 1);
    }
    w.Commit();
  }
  auto reader = IndexReader::Open(db);
  int64_t checked = 0;
  reader->ScanLines(2, [&](const LineRecord& r) {
    EXPECT_EQ(r.signature, static_cast<uint32_t>(r.line_no));
    ++checked;
    return true;
  });
  EXPECT_EQ(checked, 10000);
}

TEST(BlockPreparer, AnErrorInThePreparerFailsTheWriter) {
  test::TempDir dir;
  const std::string db = dir.Join("e.db");
  std::vector<std::string> keep;
  keep.reserve(2 * 5000);
  IndexWriter w(db);
  w.SetBlockPreparer([](Block&) { throw Error(ErrorCode::kIo, "preparer says no"); });
  int64_t bundle = w.AddBundle(test::MakeBundle("b"));
  try {
    AddLines(w, bundle, 2, 5000, keep);
    w.DrainPreparer();
    w.Commit();
    FAIL() << "the preparer's error was lost";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kIo);
    EXPECT_NE(std::string(e.what()).find("preparer says no"), std::string::npos);
  }
  EXPECT_FALSE(std::filesystem::exists(db));
}

TEST(BlockPreparer, SetAfterLinesIsMisuseAndStopLeavesNoFile) {
  test::TempDir dir;
  std::vector<std::string> keep;
  {
    IndexWriter w(dir.Join("m.db"));
    int64_t bundle = w.AddBundle(test::MakeBundle("b"));
    AddLines(w, bundle, 1, 10, keep);
    try {
      w.SetBlockPreparer([](Block&) {});
      FAIL() << "no error";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kMisuse);
    }
  }
  {
    std::atomic<int> calls{0};
    IndexWriter w(dir.Join("s.db"));
    w.SetBlockPreparer([&](Block&) { ++calls; });
    int64_t bundle = w.AddBundle(test::MakeBundle("b"));
    AddLines(w, bundle, 2, 100, keep);
    w.StopPreparer();  // as ingest does when it gives up
    EXPECT_THROW(w.Commit(), Error);
  }
  // No index and no temporary file is left behind.
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) {
    ADD_FAILURE() << "left behind: " << e.path();
  }
}

}  // namespace
}  // namespace casefile
