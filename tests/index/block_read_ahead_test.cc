// The read-ahead decoder of the `lines` table on its own: blocks come back
// in the order given, whichever thread decoded them; a damaged block comes
// back with its error at its place; a new scan drops what was in flight.
#include "index/block_read_ahead.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/error.h"
#include "index/block_compressor.h"

namespace casefile {
namespace {

// Block `n`: n % 7 + 1 lines "block n line i" (file n, first line 10 * n).
StoredBlock MakeBlock(int n) {
  Block b;
  b.Reset(n, 0, 10 * n);
  for (int i = 0; i < n % 7 + 1; ++i) {
    const std::string text = "block " + std::to_string(n) + " line " + std::to_string(i);
    LineRecord l;
    l.file_id = n;
    l.line_no = 10 * n + i;
    l.text = text;
    AppendLine(b, l, 0);
  }
  BlockCompressor c;
  StoredBlock s;
  c.Compress(b, s);
  return s;
}

void Submit(BlockReadAhead& ra, const StoredBlock& s) {
  ra.Submit(s.file_id, s.first_line, s.line_count, s.raw_bytes, s.data.data(), s.data.size());
}

// Takes the next block and checks it is block `n`, whole.
void ExpectBlock(BlockReadAhead& ra, int n) {
  BlockReadAhead::Decoded d = ra.Take();
  ASSERT_FALSE(d.error) << "block " << n;
  EXPECT_EQ(d.file_id, n);
  EXPECT_EQ(d.first_line, 10 * n);
  EXPECT_EQ(d.line_count, n % 7 + 1);
  ASSERT_EQ(d.block->size(), static_cast<size_t>(n % 7 + 1));
  for (size_t i = 0; i < d.block->size(); ++i) {
    EXPECT_EQ(d.block->Text(i), "block " + std::to_string(n) + " line " + std::to_string(i));
  }
  ra.Recycle(std::move(d.block));
}

TEST(BlockReadAhead, BlocksComeBackInOrder) {
  std::vector<StoredBlock> blocks;
  for (int n = 1; n <= 200; ++n) blocks.push_back(MakeBlock(n));
  BlockReadAhead ra;
  size_t next_submit = 0;
  int next_take = 1;
  // The cursor's pattern: fill, take one, fill again.
  while (next_take <= 200) {
    while (next_submit < blocks.size() && ra.HasRoom()) Submit(ra, blocks[next_submit++]);
    EXPECT_LE(ra.in_flight(), kReadAheadBlocks);
    ExpectBlock(ra, next_take++);
  }
  EXPECT_EQ(ra.in_flight(), 0u);
}

TEST(BlockReadAhead, WithoutAWorkerTheCallerDecodes) {
  BlockReadAhead ra(/*with_worker=*/false);
  const StoredBlock good1 = MakeBlock(1);
  StoredBlock bad = MakeBlock(2);
  bad.data.set_size(bad.data.size() / 2);
  Submit(ra, good1);
  Submit(ra, bad);
  Submit(ra, MakeBlock(3));
  ExpectBlock(ra, 1);
  BlockReadAhead::Decoded d = ra.Take();
  EXPECT_TRUE(d.error);
  ra.Recycle(std::move(d.block));
  ExpectBlock(ra, 3);
  for (int n = 4; n <= 40; ++n) {
    Submit(ra, MakeBlock(n));
    if (n % 3 == 0) {
      while (ra.in_flight() > 0) ExpectBlock(ra, n - static_cast<int>(ra.in_flight()) + 1);
    }
  }
  ra.Drain();
  EXPECT_EQ(ra.in_flight(), 0u);
}

TEST(BlockReadAhead, OneAtATime) {
  BlockReadAhead ra;
  for (int n = 1; n <= 20; ++n) {
    Submit(ra, MakeBlock(n));
    ExpectBlock(ra, n);
  }
}

TEST(BlockReadAhead, DamagedBlockFailsAtItsPlace) {
  BlockReadAhead ra;
  const StoredBlock good1 = MakeBlock(1), good3 = MakeBlock(3);
  StoredBlock bad = MakeBlock(2);
  bad.data.set_size(bad.data.size() / 2);  // a cut zstd frame
  Submit(ra, good1);
  Submit(ra, bad);
  Submit(ra, good3);
  ExpectBlock(ra, 1);
  BlockReadAhead::Decoded d = ra.Take();
  ASSERT_TRUE(d.error);
  EXPECT_EQ(d.file_id, 2);
  try {
    std::rethrow_exception(d.error);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kCorrupt);
  }
  ra.Recycle(std::move(d.block));
  // The decoder goes on: a scan that catches the error may read further.
  ExpectBlock(ra, 3);
}

TEST(BlockReadAhead, DrainDropsWhatIsInFlight) {
  BlockReadAhead ra;
  for (int n = 1; n <= 3; ++n) Submit(ra, MakeBlock(n));
  ra.Drain();
  EXPECT_EQ(ra.in_flight(), 0u);
  Submit(ra, MakeBlock(9));
  ExpectBlock(ra, 9);
}

TEST(BlockReadAhead, DestroyedWithBlocksInFlight) {
  // Nothing taken: the destructor stops the worker (ASan and TSan watch).
  for (int round = 0; round < 20; ++round) {
    BlockReadAhead ra;
    for (int n = 1; n <= 3; ++n) Submit(ra, MakeBlock(n + round));
  }
}

}  // namespace
}  // namespace casefile
