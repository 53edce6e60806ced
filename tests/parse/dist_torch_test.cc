// The ProcessGroupNCCL / c10d family (parse/dist/torch_watchdog*.cc). Lines
// go through StripAnsi and ParseLinePrefix as ingest sends them, so the real
// wrappers ([rankN]:, glog headers, tqdm bars, host prefixes) are part of the
// test. Expected values are read off the message formats in
// shared/reference/formats.md section 3 and real-logs.md; the samples are
// written for these tests.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "common/line_fields.h"
#include "dist_test_util.h"
#include "parse/dist/dist_family.h"
#include "parse/dist/dist_kinds.h"
#include "parse/dist/torch_watchdog_kinds.h"
#include "parse/line/ansi.h"
#include "parse/line/line_prefix.h"

namespace casefile::dist {
namespace {

std::vector<DistEventRow> Feed(const std::vector<std::string>& lines) {
  return test::FeedFamily(*MakeTorchWatchdogFamily(), lines, 7, 2024);
}

// The only event the lines produce; fails the test when there is not
// exactly one.
DistEventRow One(const std::vector<std::string>& lines) {
  const auto rows = Feed(lines);
  EXPECT_EQ(rows.size(), 1u) << lines.front();
  return rows.empty() ? DistEventRow{} : rows.front();
}

std::vector<DistEventRow> OfKind(const std::vector<DistEventRow>& rows, std::string_view kind) {
  std::vector<DistEventRow> out;
  for (const auto& r : rows) {
    if (r.kind == kind) out.push_back(r);
  }
  return out;
}

// --- watchdog_timeout, by era ------------------------------------------------

// TORCH_DISTRIBUTED_DEBUG=DETAIL's fingerprint check (the hang analyzer reads
// it from crash rows' exception text): the full fingerprint of torch 2.x and
// the older op-only one.
TEST(DistTorchMismatch, FingerprintsOfBothRanks) {
  DistEventRow row;
  ASSERT_TRUE(torch::ReadCollectiveMismatch(
      "RuntimeError: Detected mismatch between collectives on ranks. Rank 3 is running "
      "collective: CollectiveFingerPrint(SequenceNumber=1503, OpType=BROADCAST, "
      "TensorShape=[1], TensorDtypes=Long, TensorDeviceTypes=TensorOptions(dtype=float "
      "(default), device=cuda, layout=Strided (default), requires_grad=false (default), "
      "pinned_memory=false (default), memory_format=(nullopt))), but Rank 0 is running "
      "collective: CollectiveFingerPrint(SequenceNumber=1503, OpType=ALLREDUCE, "
      "TensorShape=[1024, 4096], TensorDtypes=Float).Collectives differ in the following "
      "aspects: \t Op type: BROADCASTvs ALLREDUCE",
      row));
  EXPECT_EQ(row.rank, 3);
  EXPECT_EQ(row.seq, 1503);
  EXPECT_EQ(row.op, "BROADCAST [1] Long");
  EXPECT_EQ(row.value, 0.0);
  EXPECT_EQ(row.detail, "ALLREDUCE [1024, 4096] Float");
  DistEventRow old;
  ASSERT_TRUE(torch::ReadCollectiveMismatch(
      "Detected mismatch between collectives on ranks. Rank 5 is running collective: "
      "CollectiveFingerPrint(OpType=ALLREDUCE), but Rank 3 is running collective: "
      "CollectiveFingerPrint(OpType=BROADCAST).",
      old));
  EXPECT_EQ(old.rank, 5);
  EXPECT_FALSE(old.seq.has_value());
  EXPECT_EQ(old.op, "ALLREDUCE");
  EXPECT_EQ(old.value, 3.0);
  EXPECT_EQ(old.detail, "BROADCAST");
  DistEventRow none;
  EXPECT_FALSE(torch::ReadCollectiveMismatch(
      "Collectives differ in the following aspects: Op type: ALLREDUCEvs BROADCAST", none));
  // A stored detail keeps 512 bytes: the other rank's fingerprint may be
  // cut, even inside its op, and the speaker's still counts.
  DistEventRow cut;
  ASSERT_TRUE(torch::ReadCollectiveMismatch(
      "Detected mismatch between collectives on ranks. Rank 5 is running collective: "
      "CollectiveFingerPrint(SequenceNumber=9, OpType=ALLREDUCE, TensorShape=[4], "
      "TensorDtypes=Float), but Rank 3 is running collective: "
      "CollectiveFingerPrint(SequenceNumber=9, OpType=BROAD",
      cut));
  EXPECT_EQ(cut.rank, 5);
  EXPECT_EQ(cut.op, "ALLREDUCE [4] Float");
  EXPECT_FALSE(cut.value.has_value());
  EXPECT_FALSE(cut.detail.has_value());
}

TEST(DistTorchWatchdog, OldestEraWithTensorShape) {
  const auto r = One(
      {"[E ProcessGroupNCCL.cpp:566] [Rank 1] Watchdog caught collective operation timeout: "
       "WorkNCCL(OpType=BROADCAST, TensorShape=[25557032], Timeout(ms)=1800000) ran for 1800353 "
       "milliseconds before timing out."});
  EXPECT_EQ(r.kind, kWatchdogTimeout);
  EXPECT_EQ(r.file_id, 7);
  EXPECT_EQ(r.line_no, 1);
  EXPECT_EQ(r.rank, 1);
  EXPECT_FALSE(r.pg.has_value());
  EXPECT_FALSE(r.pg_rank.has_value());
  EXPECT_FALSE(r.seq.has_value());
  EXPECT_EQ(r.op, "BROADCAST");
  EXPECT_FALSE(r.numel_in.has_value());
  EXPECT_EQ(r.timeout_ms, 1800000);
  EXPECT_EQ(r.elapsed_ms, 1800353);
  EXPECT_FALSE(r.detail.has_value());
}

TEST(DistTorchWatchdog, OldestEraWithoutTensorShape) {
  const auto r = One(
      {"[E ProcessGroupNCCL.cpp:566] [Rank 4] Watchdog caught collective operation timeout: "
       "WorkNCCL(OpType=ALLREDUCE, Timeout(ms)=900000) ran for 900112 milliseconds before timing "
       "out."});
  EXPECT_EQ(r.rank, 4);
  EXPECT_EQ(r.op, "ALLREDUCE");
  EXPECT_EQ(r.timeout_ms, 900000);
  EXPECT_EQ(r.elapsed_ms, 900112);
}

TEST(DistTorchWatchdog, SeqNumEra) {
  const auto r =
      One({"[E ProcessGroupNCCL.cpp:737] [Rank 3] Watchdog caught collective operation timeout: "
           "WorkNCCL(SeqNum=469508, OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1804406 "
           "milliseconds before timing out."});
  EXPECT_EQ(r.rank, 3);
  EXPECT_EQ(r.seq, 469508);
  EXPECT_EQ(r.op, "ALLREDUCE");
  EXPECT_FALSE(r.numel_in.has_value());
  EXPECT_FALSE(r.numel_out.has_value());
  EXPECT_EQ(r.timeout_ms, 1800000);
  EXPECT_EQ(r.elapsed_ms, 1804406);
}

TEST(DistTorchWatchdog, NumelEraWithRankTagAndGlogHeader) {
  const auto r =
      One({"[rank5]:[E1218 20:27:21.426415540 ProcessGroupNCCL.cpp:629] [Rank 5] Watchdog caught "
           "collective operation timeout: WorkNCCL(SeqNum=1042, OpType=ALLREDUCE, NumelIn=4194304, "
           "NumelOut=4194304, Timeout(ms)=600000) ran for 600081 milliseconds before timing out."});
  EXPECT_EQ(r.rank, 5);
  EXPECT_NE(r.ts_us, kNoTimestamp);  // the glog header's time
  EXPECT_EQ(r.seq, 1042);
  EXPECT_EQ(r.op, "ALLREDUCE");
  EXPECT_EQ(r.numel_in, 4194304);
  EXPECT_EQ(r.numel_out, 4194304);
  EXPECT_EQ(r.timeout_ms, 600000);
  EXPECT_EQ(r.elapsed_ms, 600081);
  EXPECT_FALSE(r.pg.has_value());
}

TEST(DistTorchWatchdog, RankTagWinsOverTheGroupRank) {
  // "[Rank N]" is the rank in the collective's group; the [rankN]: tag is
  // the global rank.
  const auto r =
      One({"[rank9]:[E1218 20:27:21.426415540 ProcessGroupNCCL.cpp:629] [Rank 1] Watchdog caught "
           "collective operation timeout: WorkNCCL(SeqNum=7, OpType=SEND, NumelIn=10, NumelOut=10, "
           "Timeout(ms)=600000) ran for 600002 milliseconds before timing out."});
  EXPECT_EQ(r.rank, 9);
  EXPECT_EQ(r.op, "SEND");
}

TEST(DistTorchWatchdog, PgNamePrefix) {
  const auto r =
      One({"[rank2]:[E321 02:07:08.465150152 ProcessGroupNCCL.cpp:1664] [PG 1 Rank 0] Watchdog "
           "caught collective operation timeout: WorkNCCL(SeqNum=1580, OpType=_ALLGATHER_BASE, "
           "NumelIn=1024, NumelOut=8192, Timeout(ms)=600000) ran for 600012 milliseconds before "
           "timing out."});
  EXPECT_EQ(r.rank, 2);
  EXPECT_EQ(r.pg, "1");
  EXPECT_EQ(r.pg_rank, 0);
  EXPECT_EQ(r.seq, 1580);
  EXPECT_EQ(r.op, "_ALLGATHER_BASE");
  EXPECT_EQ(r.numel_in, 1024);
  EXPECT_EQ(r.numel_out, 8192);
}

TEST(DistTorchWatchdog, PgGuidPrefixOfTheDefaultGroupGivesTheGlobalRank) {
  const auto r = One(
      {"[E626 06:24:44.906457629 ProcessGroupNCCL.cpp:1785] [PG ID 0 PG GUID 0(default_pg) Rank "
       "6] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=808, OpType=BROADCAST, "
       "NumelIn=512, NumelOut=512, Timeout(ms)=1800000) ran for 1800090 milliseconds before "
       "timing out."});
  EXPECT_EQ(r.pg, "0(default_pg)");
  EXPECT_EQ(r.pg_rank, 6);
  EXPECT_EQ(r.rank, 6);
  EXPECT_EQ(r.seq, 808);
  EXPECT_EQ(r.op, "BROADCAST");
}

TEST(DistTorchWatchdog, PgGuidPrefixOfAnotherGroupLeavesTheGlobalRankUnset) {
  const auto r = One(
      {"[E1218 20:27:21.426415540 ProcessGroupNCCL.cpp:629] [PG ID 1 PG GUID 1 Rank 1] Watchdog "
       "caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE, NumelIn=8, "
       "NumelOut=8, Timeout(ms)=600000) ran for 600500 milliseconds before timing out."});
  EXPECT_EQ(r.pg, "1");
  EXPECT_EQ(r.pg_rank, 1);
  EXPECT_FALSE(r.rank.has_value());
}

TEST(DistTorchWatchdog, WrappedTimeoutsAreMarked) {
  const auto rows = Feed({
      "[rank0]:[E1218 20:27:21.486305774 ProcessGroupNCCL.cpp:1895] [PG ID 1 PG GUID 1 Rank 0] "
      "Process group watchdog thread terminated with exception: [Rank 0] Watchdog caught "
      "collective operation timeout: WorkNCCL(SeqNum=547, OpType=ALLREDUCE, NumelIn=64, "
      "NumelOut=64, Timeout(ms)=600000) ran for 600081 milliseconds before timing out.",
      "  what():  [PG ID 1 PG GUID 1 Rank 3] Process group watchdog thread terminated with "
      "exception: [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=547, "
      "OpType=ALLREDUCE, NumelIn=64, NumelOut=64, Timeout(ms)=600000) ran for 600090 "
      "milliseconds before timing out.",
      "  what():  [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=9, "
      "OpType=BARRIER, Timeout(ms)=1800000) ran for 1800842 milliseconds before timing out.",
      "RuntimeError: NCCL communicator was aborted on rank 2.  Original reason for failure was: "
      "[Rank 2] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=12, "
      "OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1800700 milliseconds before timing out.",
  });
  ASSERT_EQ(rows.size(), 4u);
  for (const auto& r : rows) {
    EXPECT_EQ(r.kind, kWatchdogTimeout);
    EXPECT_EQ(r.detail, "terminated") << r.line_no;
  }
  EXPECT_EQ(rows[0].rank, 0);
  EXPECT_EQ(rows[0].pg, "1");
  EXPECT_EQ(rows[0].pg_rank, 0);
  EXPECT_EQ(rows[0].seq, 547);
  EXPECT_EQ(rows[0].elapsed_ms, 600081);
  EXPECT_FALSE(rows[1].rank.has_value());  // group 1's rank 3, no rank tag
  EXPECT_EQ(rows[1].pg_rank, 3);
  EXPECT_EQ(rows[2].rank, 1);
  EXPECT_EQ(rows[2].op, "BARRIER");
  EXPECT_EQ(rows[3].rank, 2);
  EXPECT_EQ(rows[3].seq, 12);
}

TEST(DistTorchWatchdog, GluedAfterAProgressBar) {
  const auto rows = Feed({
      "Map: 100%|██████████| 1000/1000 [00:06<00:00, 155.57 examples/s][E "
      "ProcessGroupNCCL.cpp:475] [Rank 2] Watchdog caught collective operation timeout: "
      "WorkNCCL(SeqNum=5, OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1800170 milliseconds "
      "before timing out.",
      // A bar the line layer does not recognise stays in the message.
      "Epoch 3: 42% 420/1000 [02:11<03:01] [E ProcessGroupNCCL.cpp:475] [Rank 4] Watchdog caught "
      "collective operation timeout: WorkNCCL(SeqNum=6, OpType=ALLGATHER, Timeout(ms)=1800000) "
      "ran for 1800200 milliseconds before timing out.",
  });
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].rank, 2);
  EXPECT_EQ(rows[0].seq, 5);
  EXPECT_EQ(rows[0].elapsed_ms, 1800170);
  EXPECT_FALSE(rows[0].detail.has_value());
  EXPECT_EQ(rows[1].rank, 4);
  EXPECT_EQ(rows[1].seq, 6);
  EXPECT_EQ(rows[1].op, "ALLGATHER");
  EXPECT_FALSE(rows[1].detail.has_value());
}

TEST(DistTorchWatchdog, AnsiColoursAndTheirRemnants) {
  const auto rows = Feed({
      "\x1b[31m[rank1]:[E1218 20:27:21.426415540 ProcessGroupNCCL.cpp:629] [Rank 1] Watchdog "
      "caught collective operation timeout: WorkNCCL(SeqNum=33, OpType=REDUCE_SCATTER, "
      "NumelIn=2048, NumelOut=256, Timeout(ms)=600000) ran for 600010 milliseconds before timing "
      "out.\x1b[0m",
      "[31m[rank6]:[E1218 20:27:21.426415540 ProcessGroupNCCL.cpp:629] [Rank 6] Watchdog caught "
      "collective operation timeout: WorkNCCL(SeqNum=33, OpType=REDUCE_SCATTER, NumelIn=2048, "
      "NumelOut=256, Timeout(ms)=600000) ran for 600011 milliseconds before timing out.[0m",
  });
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].rank, 1);
  EXPECT_EQ(rows[0].op, "REDUCE_SCATTER");
  EXPECT_EQ(rows[0].numel_out, 256);
  EXPECT_EQ(rows[0].elapsed_ms, 600010);
  EXPECT_EQ(rows[1].rank, 6);
  EXPECT_EQ(rows[1].elapsed_ms, 600011);
}

TEST(DistTorchWatchdog, CutLinesKeepWhatWasRead) {
  const std::string head =
      "[rank7]:[E1218 20:27:21.426415540 ProcessGroupNCCL.cpp:629] [Rank 7] Watchdog caught";
  const auto rows = Feed({
      head,
      head + " collective operation timeout: WorkNCCL(SeqNum=1042, OpType=ALLRED",
      head + " collective operation timeout: WorkNCCL(SeqNum=1042, OpType=ALLREDUCE, NumelIn=4194",
      head +
          " collective operation timeout: WorkNCCL(SeqNum=1042, OpType=ALLREDUCE, NumelIn=4194304, "
          "NumelOut=4194304, Timeout(ms)=600000) ran for 6000",
  });
  ASSERT_EQ(rows.size(), 4u);
  for (const auto& r : rows) EXPECT_EQ(r.rank, 7);
  EXPECT_FALSE(rows[0].seq.has_value());
  EXPECT_FALSE(rows[0].op.has_value());
  EXPECT_EQ(rows[1].seq, 1042);
  EXPECT_FALSE(rows[1].op.has_value());  // "ALLRED" may be cut: not taken
  EXPECT_EQ(rows[2].op, "ALLREDUCE");
  EXPECT_FALSE(rows[2].numel_in.has_value());
  EXPECT_EQ(rows[3].numel_in, 4194304);
  EXPECT_EQ(rows[3].timeout_ms, 600000);
  EXPECT_FALSE(rows[3].elapsed_ms.has_value());
}

TEST(DistTorchWatchdog, InterleavedRanksOfOneFile) {
  std::vector<std::string> lines;
  for (int rank = 0; rank < 16; ++rank) {
    if (rank == 11) continue;  // the silent one
    lines.push_back("[rank" + std::to_string(rank) +
                    "]:[E416 20:40:12.986037518 ProcessGroupNCCL.cpp:632] [Rank " +
                    std::to_string(rank) +
                    "] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1042, "
                    "OpType=ALLREDUCE, NumelIn=4194304, NumelOut=4194304, Timeout(ms)=600000) "
                    "ran for 600043 milliseconds before timing out.");
    lines.push_back("[rank" + std::to_string(rank) + "]: step 1041 done");
  }
  const auto rows = OfKind(Feed(lines), kWatchdogTimeout);
  ASSERT_EQ(rows.size(), 15u);
  for (size_t i = 0; i < rows.size(); ++i) {
    const int64_t expected_rank = i < 11 ? static_cast<int64_t>(i) : static_cast<int64_t>(i) + 1;
    EXPECT_EQ(rows[i].rank, expected_rank);
    EXPECT_EQ(rows[i].line_no, static_cast<int64_t>(2 * i + 1));
    EXPECT_EQ(rows[i].seq, 1042);
  }
}

// --- the default group without a description --------------------------------

TEST(DistTorchWatchdog, GroupZeroIsTheDefaultGroup) {
  // torch 2.2-2.3 name the default group "0"; later ones print its GUID "0",
  // with "(default_pg)" only when the group has a description. Its rank is
  // the global rank when no [rankN]: wrapper named one.
  const std::string tail =
      "] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=12, OpType=ALLREDUCE, "
      "NumelIn=64, NumelOut=64, Timeout(ms)=600000) ran for 600015 milliseconds before timing "
      "out.";
  const auto rows = Feed({
      "[E508 09:17:31.486305770 ProcessGroupNCCL.cpp:1316] [PG 0 Rank 5" + tail,
      "[E508 09:17:31.486305771 ProcessGroupNCCL.cpp:632] [PG ID 0 PG GUID 0 Rank 6" + tail,
      "[E508 09:17:31.486305772 ProcessGroupNCCL.cpp:632] [PG ID 3 PG GUID 0 Rank 7" + tail,
      "[E508 09:17:31.486305773 ProcessGroupNCCL.cpp:632] [PG ID 0 PG GUID 4 Rank 1" + tail,
      "[E508 09:17:31.486305774 ProcessGroupNCCL.cpp:1316] [PG 10 Rank 2" + tail,
      "[rank9]:[E508 09:17:31.486305775 ProcessGroupNCCL.cpp:1316] [PG 0 Rank 3" + tail,
  });
  ASSERT_EQ(rows.size(), 6u);
  EXPECT_EQ(rows[0].pg, "0");
  EXPECT_EQ(rows[0].pg_rank, 5);
  EXPECT_EQ(rows[0].rank, 5);
  EXPECT_EQ(rows[1].pg, "0");
  EXPECT_EQ(rows[1].rank, 6);
  // The GUID names the group; the local ID 3 is a per-process counter.
  EXPECT_EQ(rows[2].pg, "0");
  EXPECT_EQ(rows[2].rank, 7);
  // GUID 4 under local ID 0, and group 10: not the default group.
  EXPECT_EQ(rows[3].pg, "4");
  EXPECT_EQ(rows[3].pg_rank, 1);
  EXPECT_FALSE(rows[3].rank.has_value());
  EXPECT_EQ(rows[4].pg, "10");
  EXPECT_FALSE(rows[4].rank.has_value());
  // The wrapper's rank stands.
  EXPECT_EQ(rows[5].rank, 9);
  EXPECT_EQ(rows[5].pg_rank, 3);
}

// --- hard wraps ------------------------------------------------------------------

TEST(DistTorchWrap, WatchdogSplitInsideItsFirstWord) {
  const auto rows = Feed({
      "[rank0]:[E1218 20:27:21.486305774 ProcessGroupNCCL.cpp:632] [Rank 0] Watch",
      "dog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=BROADCAST, "
      "NumelIn=131072000, NumelOut=131072000, Timeout(ms)=600000) ran for 600081 milliseconds "
      "before timing out.",
  });
  ASSERT_EQ(rows.size(), 1u);
  const DistEventRow& r = rows[0];
  EXPECT_EQ(r.kind, kWatchdogTimeout);
  EXPECT_EQ(r.line_no, 1);
  EXPECT_NE(r.ts_us, kNoTimestamp);  // the first line's glog header
  EXPECT_EQ(r.rank, 0);
  EXPECT_EQ(r.seq, 1);
  EXPECT_EQ(r.op, "BROADCAST");
  EXPECT_EQ(r.numel_in, 131072000);
  EXPECT_EQ(r.numel_out, 131072000);
  EXPECT_EQ(r.timeout_ms, 600000);
  EXPECT_EQ(r.elapsed_ms, 600081);
  EXPECT_FALSE(r.detail.has_value());
}

TEST(DistTorchWrap, SplitInsideATokenOrAfterTheBracket) {
  const std::string head = "[rank3]:[E1218 20:27:21.486305774 ProcessGroupNCCL.cpp:632] [Rank 3]";
  const auto rows = Feed({
      // Inside OpType; the continuation repeats the rank's wrapper.
      head + " Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpTy",
      "[rank3]:pe=BROADCAST, NumelIn=131072000, NumelOut=131072000, Timeout(ms)=600000) ran for "
      "600081 milliseconds before timing out.",
      // Right after the bracket, the blank kept at the end of the first line.
      head + " ",
      "Watchdog caught collective operation timeout: WorkNCCL(SeqNum=2, OpType=ALLREDUCE, "
      "NumelIn=8, NumelOut=8, Timeout(ms)=600000) ran for 600100 milliseconds before timing out.",
      // Inside the duration.
      head + " Watchdog caught collective operation timeout: WorkNCCL(SeqNum=3, "
             "OpType=ALLGATHER, NumelIn=4, NumelOut=32, Timeout(ms)=600000) ran for 6001",
      "23 milliseconds before timing out.",
  });
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].line_no, 1);
  EXPECT_EQ(rows[0].rank, 3);
  EXPECT_EQ(rows[0].seq, 1);
  EXPECT_EQ(rows[0].op, "BROADCAST");
  EXPECT_EQ(rows[0].numel_out, 131072000);
  EXPECT_EQ(rows[0].elapsed_ms, 600081);
  EXPECT_EQ(rows[1].line_no, 3);
  EXPECT_EQ(rows[1].rank, 3);
  EXPECT_EQ(rows[1].seq, 2);
  EXPECT_EQ(rows[1].op, "ALLREDUCE");
  EXPECT_EQ(rows[1].elapsed_ms, 600100);
  EXPECT_EQ(rows[2].line_no, 5);
  EXPECT_EQ(rows[2].op, "ALLGATHER");
  EXPECT_EQ(rows[2].numel_in, 4);
  EXPECT_EQ(rows[2].numel_out, 32);
  EXPECT_EQ(rows[2].elapsed_ms, 600123);
}

TEST(DistTorchWrap, SplitInsideTheGroupBracket) {
  // A default group without description: the joined prefix gives rank 5.
  const auto rows = Feed({
      "[E1218 20:27:21.486305774 ProcessGroupNCCL.cpp:632] [PG ID 0 PG GU",
      "ID 0 Rank 5] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=9, "
      "OpType=REDUCE_SCATTER, NumelIn=256, NumelOut=32, Timeout(ms)=600000) ran for 600010 "
      "milliseconds before timing out.",
      "[E1218 20:27:21.486305775 ProcessGroupNCCL.cpp:632] [Ra",
      "nk 6] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=9, "
      "OpType=REDUCE_SCATTER, NumelIn=256, NumelOut=32, Timeout(ms)=600000) ran for 600011 "
      "milliseconds before timing out.",
  });
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].line_no, 1);
  EXPECT_EQ(rows[0].pg, "0");
  EXPECT_EQ(rows[0].pg_rank, 5);
  EXPECT_EQ(rows[0].rank, 5);
  EXPECT_EQ(rows[0].op, "REDUCE_SCATTER");
  EXPECT_EQ(rows[1].line_no, 3);
  EXPECT_EQ(rows[1].rank, 6);
  EXPECT_EQ(rows[1].elapsed_ms, 600011);
}

TEST(DistTorchWrap, AsyncExceptionSplitInsideItsWorkNccl) {
  const auto rows = Feed({
      "[rank1]:[E1015 10:00:00.000000000 ProcessGroupNCCL.cpp:1600] [PG ID 0 PG GUID "
      "0(default_pg) Rank 1] Collective WorkNCCL(SeqNum=2, OpType=ALLRE",
      "[rank1]:DUCE, NumelIn=1, NumelOut=1, Timeout(ms)=1000000) raised the following async "
      "exception: NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details), "
      "NCCL version 2.21.5",
  });
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].kind, kCollectiveError);
  EXPECT_EQ(rows[0].line_no, 1);
  EXPECT_EQ(rows[0].rank, 1);
  EXPECT_EQ(rows[0].seq, 2);
  EXPECT_EQ(rows[0].op, "ALLREDUCE");
  EXPECT_EQ(rows[0].timeout_ms, 1000000);
  EXPECT_EQ(rows[0].detail, "unhandled system error");
}

TEST(DistTorchWrap, LinesThatDoNotContinueAreReadAlone) {
  const std::string cut =
      "[rank0]:[E1218 20:27:21.486305774 ProcessGroupNCCL.cpp:632] [Rank 0] Watchdog caught "
      "collective operation timeout: WorkNCCL(SeqNum=1, OpTy";
  const std::string rest =
      "pe=BROADCAST, NumelIn=131072000, NumelOut=131072000, Timeout(ms)=600000) ran for 600081 "
      "milliseconds before timing out.";
  const std::string whole =
      "[Rank 4] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, "
      "OpType=BROADCAST, NumelIn=131072000, NumelOut=131072000, Timeout(ms)=600000) ran for "
      "600090 milliseconds before timing out.";
  const auto rows = OfKind(Feed({
                               cut,
                               "[rank1]:" + rest,  // another rank's wrapper
                               cut,
                               "",  // a blank line
                               rest, cut,
                               whole,  // a message of its own, with no header
                               cut,    // the last line of the file
                           }),
                           kWatchdogTimeout);
  ASSERT_EQ(rows.size(), 5u);
  for (size_t i : {0, 1, 2, 4}) {
    EXPECT_EQ(rows[i].rank, 0) << i;
    EXPECT_EQ(rows[i].seq, 1) << i;
    EXPECT_FALSE(rows[i].op.has_value()) << i;
    EXPECT_FALSE(rows[i].elapsed_ms.has_value()) << i;
  }
  EXPECT_EQ(rows[0].line_no, 1);
  EXPECT_EQ(rows[1].line_no, 3);
  EXPECT_EQ(rows[2].line_no, 6);
  EXPECT_EQ(rows[3].line_no, 7);
  EXPECT_EQ(rows[3].rank, 4);
  EXPECT_EQ(rows[3].elapsed_ms, 600090);
  EXPECT_EQ(rows[4].line_no, 8);
}

TEST(DistTorchWrap, OneContinuationAndFourKibAtMost) {
  const std::string cut =
      "[rank0]:[E1218 20:27:21.486305774 ProcessGroupNCCL.cpp:632] [Rank 0] Watchdog caught "
      "collective operation timeout: WorkNCCL(SeqNum=1, OpTy";
  const auto rows = OfKind(
      Feed({
          cut,
          "pe=BROADCAST, NumelIn=131072000, Num",
          "elOut=131072000, Timeout(ms)=600000) ran for 600081 "
          "milliseconds before timing out.",
          cut,
          std::string(5000, 'x') + " ran for 600081 milliseconds",
          // A first line longer than the bound is read as it stands.
          "[rank0]:[E1218 20:27:21.486305774 ProcessGroupNCCL.cpp:632] " + std::string(5000, '-') +
              " [Rank 0] Watchdog caught collective operation timeout: "
              "WorkNCCL(SeqNum=1, OpTy",
          "pe=BROADCAST, NumelIn=131072000, NumelOut=131072000, "
          "Timeout(ms)=600000) ran for 600081 milliseconds before timing "
          "out.",
      }),
      kWatchdogTimeout);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].line_no, 1);
  EXPECT_EQ(rows[0].op, "BROADCAST");
  EXPECT_EQ(rows[0].numel_in, 131072000);
  EXPECT_FALSE(rows[0].numel_out.has_value());
  EXPECT_FALSE(rows[0].elapsed_ms.has_value());
  EXPECT_EQ(rows[1].line_no, 4);
  EXPECT_FALSE(rows[1].elapsed_ms.has_value());  // past 4 KiB of the join
  EXPECT_EQ(rows[2].line_no, 6);
  EXPECT_FALSE(rows[2].op.has_value());
}

// --- work_progress -------------------------------------------------------------

TEST(DistTorchProgress, ExceptionDetectedAtWork) {
  const auto r = One(
      {"[rank0]:[E321 02:07:08.465150152 ProcessGroupNCCL.cpp:1664] [PG 1 Rank 0] Exception "
       "(either an error or timeout) detected by watchdog at work: 1580, last enqueued NCCL work: "
       "1582, last completed NCCL work: 1579."});
  EXPECT_EQ(r.kind, kWorkProgress);
  EXPECT_EQ(r.rank, 0);
  EXPECT_EQ(r.pg, "1");
  EXPECT_EQ(r.pg_rank, 0);
  EXPECT_EQ(r.seq, 1580);
  EXPECT_EQ(r.last_enqueued, 1582);
  EXPECT_EQ(r.last_completed, 1579);
  EXPECT_FALSE(r.detail.has_value());
}

TEST(DistTorchProgress, TimeoutAtNcclWork) {
  const auto r = One(
      {"[rank3]:[E416 20:40:12.986037518 ProcessGroupNCCL.cpp:1709] [PG 5 Rank 3] Timeout at NCCL "
       "work: 8, last enqueued NCCL work: 10, last completed NCCL work: 7."});
  EXPECT_EQ(r.kind, kWorkProgress);
  EXPECT_EQ(r.rank, 3);
  EXPECT_EQ(r.pg, "5");
  EXPECT_EQ(r.seq, 8);
  EXPECT_EQ(r.last_enqueued, 10);
  EXPECT_EQ(r.last_completed, 7);
}

TEST(DistTorchProgress, FailureDetectedAtWorkSequenceId) {
  // Two spaces after the prefix, and -1 for "nothing completed yet".
  const auto r = One(
      {"[rank1]:[E1218 20:27:21.484903450 ProcessGroupNCCL.cpp:2168] [PG ID 1 PG GUID 1 Rank 1]  "
       "failure detected by watchdog at work sequence id: 1 PG status: last enqueued work: 547, "
       "last completed work: -1"});
  EXPECT_EQ(r.kind, kWorkProgress);
  EXPECT_EQ(r.rank, 1);
  EXPECT_EQ(r.pg, "1");
  EXPECT_EQ(r.pg_rank, 1);
  EXPECT_EQ(r.seq, 1);
  EXPECT_EQ(r.last_enqueued, 547);
  EXPECT_EQ(r.last_completed, -1);
}

TEST(DistTorchProgress, DumpSignalHasNoWork) {
  const auto rows = Feed({
      "[rank4]:[E703 15:37:17.178360488 ProcessGroupNCCL.cpp:1987] [PG ID 0 PG GUID "
      "0(default_pg) Rank 4] Received a dump signal due to a collective timeout from  rank 7 and "
      "we will try our best to dump the debug info. Last enqueued NCCL work: 20589, last "
      "completed NCCL work: 20584.This is most likely caused by a wrong order of collectives.",
      "[PG ID 0 PG GUID 0(default_pg) Rank 7] Received a dump signal due to a collective timeout "
      "from this local rank and we will try our best to dump the debug info. Last enqueued NCCL "
      "work: 20590, last completed NCCL work: 20589.",
  });
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].kind, kWorkProgress);
  EXPECT_EQ(rows[0].rank, 4);
  EXPECT_FALSE(rows[0].seq.has_value());
  EXPECT_EQ(rows[0].last_enqueued, 20589);
  EXPECT_EQ(rows[0].last_completed, 20584);
  EXPECT_EQ(rows[0].detail, "dump signal from rank 7");
  EXPECT_EQ(rows[1].rank, 7);  // default group, no rank tag
  EXPECT_EQ(rows[1].last_enqueued, 20590);
  EXPECT_EQ(rows[1].detail, "dump signal from this local rank");
}

TEST(DistTorchProgress, PeriodicUpdatesKeepTheLastOfEachRank) {
  const auto rows = Feed({
      "[rank2]:[I1218 20:00:00.000000000 ProcessGroupNCCL.cpp:2090] [PG ID 0 PG GUID "
      "0(default_pg) Rank 2] NCCL Work update periodically: last enqueued NCCL work: 100, last "
      "completed NCCL work: 99.",
      "[rank3]:[I1218 20:00:00.000000000 ProcessGroupNCCL.cpp:2090] [PG ID 0 PG GUID "
      "0(default_pg) Rank 3] NCCL Work update periodically: last enqueued NCCL work: 100, last "
      "completed NCCL work: 100.",
      "[rank2]:[I1218 20:01:00.000000000 ProcessGroupNCCL.cpp:2090] [PG ID 0 PG GUID "
      "0(default_pg) Rank 2] NCCL Work update periodically: last enqueued NCCL work: 200, last "
      "completed NCCL work: 199.",
  });
  ASSERT_EQ(rows.size(), 2u);
  // Emitted when the file ends, one per (host, rank, group).
  const auto& r2 = rows[0].rank == 2 ? rows[0] : rows[1];
  const auto& r3 = rows[0].rank == 2 ? rows[1] : rows[0];
  EXPECT_EQ(r2.line_no, 3);
  EXPECT_EQ(r2.last_enqueued, 200);
  EXPECT_EQ(r2.last_completed, 199);
  EXPECT_EQ(r2.detail, "periodic");
  EXPECT_EQ(r3.rank, 3);
  EXPECT_EQ(r3.line_no, 2);
  EXPECT_EQ(r3.last_completed, 100);
}

// --- nccl_failed, watchdog_stuck ------------------------------------------------

TEST(DistTorchFailed, SomeNcclOperationsFailed) {
  const auto rows = Feed({
      "[rank1]:[E1218 20:27:21.484959605 ProcessGroupNCCL.cpp:681] [Rank 1] Some NCCL operations "
      "have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU "
      "operations might run on corrupted/incomplete data.",
      // The oldest form names no rank and mentions CUDA kernels: not a CUDA error.
      "[E ProcessGroupNCCL.cpp:325] Some NCCL operations have failed or timed out. Due to the "
      "asynchronous nature of CUDA kernels, subsequent GPU operations might run on "
      "corrupted/incomplete data. To avoid this inconsistency, we are taking the entire process "
      "down.",
  });
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].kind, kNcclFailed);
  EXPECT_EQ(rows[0].rank, 1);
  EXPECT_EQ(rows[1].kind, kNcclFailed);
  EXPECT_FALSE(rows[1].rank.has_value());
}

TEST(DistTorchStuck, WatchdogStuckAndHeartbeat) {
  const auto rows = Feed({
      "[rank0]:[F1218 20:35:21.000000000 ProcessGroupNCCL.cpp:1306] [PG 0 Rank 0] "
      "ProcessGroupNCCL's watchdog got stuck for 480 seconds without making progress in "
      "monitoring enqueued collectives. This typically indicates a NCCL/CUDA API hang blocking "
      "the watchdog.",
      "[E1218 20:35:21.000000000 ProcessGroupNCCL.cpp:1250] [PG ID 0 PG GUID 0(default_pg) Rank "
      "3] Heartbeat monitor timed out! Process will be terminated after dumping debug info. "
      "workMetaList_.size()=1",
      "[E1218 20:35:20.000000000 ProcessGroupNCCL.cpp:1240] [PG ID 0 PG GUID 0(default_pg) Rank "
      "5] First PG on this rank that detected no heartbeat of its watchdog.",
  });
  ASSERT_EQ(rows.size(), 3u);
  for (const auto& r : rows) EXPECT_EQ(r.kind, kWatchdogStuck);
  EXPECT_EQ(rows[0].rank, 0);
  EXPECT_EQ(rows[0].pg, "0");
  EXPECT_EQ(rows[0].elapsed_ms, 480000);
  EXPECT_EQ(rows[0].detail, "stuck");
  EXPECT_EQ(rows[1].rank, 3);
  EXPECT_FALSE(rows[1].elapsed_ms.has_value());
  EXPECT_EQ(rows[1].detail, "heartbeat");
  EXPECT_EQ(rows[2].rank, 5);
  EXPECT_EQ(rows[2].detail, "no_heartbeat");
}

// --- store_timeout ---------------------------------------------------------------

TEST(DistTorchStore, EveryEra) {
  const auto rows = Feed({
      "[rank6]: torch.distributed.DistStoreError: wait timeout after 300000ms, keys: "
      "/default_pg//cuda//0",
      "[rank3]: torch.distributed.DistStoreError: Timed out after 901 seconds waiting for "
      "clients. 7/8 clients joined.",
      "torch.distributed.DistStoreError: Timed out after 6 seconds waiting for workers. 1/2 "
      "workers joined.",
      "RuntimeError: Socket Timeout",
      "RuntimeError: [2] is setting up NCCL communicator and retrieving ncclUniqueId from [0] via "
      "c10d key-value store by key '0', but store->get('0') got error: Timeout waiting for key: "
      "default_pg/0/0 after 1800000 ms",
      "RuntimeError: Timed out initializing process group in store based barrier on rank 5, for "
      "key: store_based_barrier_key:1 (world_size=16, worker_count=15, timeout=0:30:00)",
      "torch.distributed.DistNetworkError: The client socket has timed out after 600s while "
      "trying to connect to (10.0.0.5, 29500).",
      "RuntimeError: connect() timed out. Original timeout was 60000 ms.",
  });
  ASSERT_EQ(rows.size(), 8u);
  for (const auto& r : rows) EXPECT_EQ(r.kind, kStoreTimeout);
  EXPECT_EQ(rows[0].rank, 6);
  EXPECT_EQ(rows[0].timeout_ms, 300000);
  EXPECT_EQ(rows[0].detail, "/default_pg//cuda//0");
  EXPECT_EQ(rows[1].rank, 3);
  EXPECT_EQ(rows[1].timeout_ms, 901000);
  EXPECT_EQ(rows[1].detail, "7/8 clients joined");
  EXPECT_EQ(rows[2].timeout_ms, 6000);
  EXPECT_EQ(rows[2].detail, "1/2 workers joined");
  EXPECT_FALSE(rows[3].timeout_ms.has_value());
  EXPECT_EQ(rows[3].detail, "Socket Timeout");
  EXPECT_EQ(rows[4].timeout_ms, 1800000);
  EXPECT_EQ(rows[4].detail, "default_pg/0/0");
  EXPECT_EQ(rows[5].rank, 5);
  EXPECT_EQ(rows[5].timeout_ms, 1800000);
  EXPECT_EQ(rows[5].detail, "store based barrier: store_based_barrier_key:1, 15/16 joined");
  EXPECT_EQ(rows[6].timeout_ms, 600000);
  EXPECT_EQ(rows[6].detail, "connect to (10.0.0.5, 29500)");
  EXPECT_EQ(rows[7].timeout_ms, 60000);
  EXPECT_EQ(rows[7].detail, "connect");
}

// Durations too large to be a timeout (found by fuzzing: seconds times 1000
// overflowed int64) are not read; the event still is.
TEST(DistTorchStore, AbsurdDurationsAreNotRead) {
  const auto rows = Feed({
      "torch.distributed.DistStoreError: Timed out after 333333333333333333 seconds waiting for "
      "clients. 1/2 clients joined.",
      "torch.distributed.DistStoreError: wait timeout after 9223372036854775807ms, keys: /k",
      "RuntimeError: Timed out initializing process group in store based barrier on rank 1, for "
      "key: k (world_size=2, worker_count=1, timeout=99999999999 days, 0:00:00)",
      "RuntimeError: Timed out initializing process group in store based barrier on rank 1, for "
      "key: k (world_size=2, worker_count=1, timeout=1 day, 2:00:30)",
  });
  ASSERT_EQ(rows.size(), 4u);
  for (const auto& r : rows) EXPECT_EQ(r.kind, kStoreTimeout);
  EXPECT_FALSE(rows[0].timeout_ms.has_value());
  EXPECT_EQ(rows[0].detail, "1/2 clients joined");
  EXPECT_FALSE(rows[1].timeout_ms.has_value());
  EXPECT_FALSE(rows[2].timeout_ms.has_value());
  EXPECT_EQ(rows[3].timeout_ms, (26 * 3600 + 30) * 1000);
}

TEST(DistTorchStore, WaitingIsNotTimingOut) {
  EXPECT_TRUE(
      Feed({"INFO:torch.distributed.distributed_c10d:Waiting in store based barrier to "
            "initialize process group for rank: 3, key: store_based_barrier_key:1 "
            "(world_size=8, num_workers_joined=7, timeout=0:30:00)",
            "[I socket.cpp:480] [c10d] The server socket has started to listen on [::]:29500.",
            "INFO: store timeout set to 1800 seconds"})
          .empty());
}

// --- collective_error --------------------------------------------------------------

TEST(DistTorchCollectiveError, ErrorClassesOfEachEra) {
  const auto rows = Feed({
      "[rank2]: torch.distributed.DistBackendError: NCCL error in: "
      "../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, unhandled system error (run "
      "with NCCL_DEBUG=INFO for details), NCCL version 2.19.3",
      // NCCL's result name for the same failure: the same event.
      "[rank2]: ncclSystemError: System call (e.g. socket, malloc) or external library call "
      "failed or device error.",
      "RuntimeError: NCCL error in: /opt/conda/torch/lib/c10d/ProcessGroupNCCL.cpp:825, "
      "unhandled cuda error, NCCL version 2.7.8",
      "[rank4]: torch.distributed.DistBackendError: NCCL error in: "
      "../torch/csrc/distributed/c10d/NCCLUtils.hpp:317, internal error - please report this "
      "issue to the NCCL developers, NCCL version 2.21.5",
      "[rank5]: torch.distributed.DistBackendError: NCCL error in: "
      "../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:2006, invalid usage (run with "
      "NCCL_DEBUG=WARN for details), NCCL version 2.18.1",
      "[rank6]: torch.distributed.DistBackendError: NCCL error in: "
      "../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:3356, remote process exited or there "
      "was a network error, NCCL version 2.20.5",
      "[rank7]: ncclInternalError: Internal check failed.",
  });
  ASSERT_EQ(rows.size(), 6u);
  for (const auto& r : rows) EXPECT_EQ(r.kind, kCollectiveError);
  EXPECT_EQ(rows[0].rank, 2);
  EXPECT_EQ(rows[0].line_no, 1);
  EXPECT_EQ(rows[0].detail, "unhandled system error");
  EXPECT_FALSE(rows[1].rank.has_value());
  EXPECT_EQ(rows[1].detail, "unhandled cuda error");
  EXPECT_EQ(rows[2].rank, 4);
  EXPECT_EQ(rows[2].detail, "internal error");
  EXPECT_EQ(rows[3].detail, "invalid usage");
  EXPECT_EQ(rows[4].detail, "remote process exited or there was a network error");
  EXPECT_EQ(rows[5].rank, 7);
  EXPECT_EQ(rows[5].detail, "internal error");
}

TEST(DistTorchCollectiveError, AsyncExceptionNamesTheCollective) {
  const auto r =
      One({"[rank1]:[E1015 10:00:00.000000000 ProcessGroupNCCL.cpp:1600] [PG ID 0 PG GUID "
           "0(default_pg) Rank 1] Collective WorkNCCL(SeqNum=2, OpType=ALLREDUCE, NumelIn=1, "
           "NumelOut=1, Timeout(ms)=1000000) raised the following async exception: NCCL error: "
           "unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5"});
  EXPECT_EQ(r.kind, kCollectiveError);
  EXPECT_EQ(r.rank, 1);
  EXPECT_EQ(r.pg, "0(default_pg)");
  EXPECT_EQ(r.pg_rank, 1);
  EXPECT_EQ(r.seq, 2);
  EXPECT_EQ(r.op, "ALLREDUCE");
  EXPECT_EQ(r.numel_in, 1);
  EXPECT_EQ(r.numel_out, 1);
  EXPECT_EQ(r.timeout_ms, 1000000);
  EXPECT_EQ(r.detail, "unhandled system error");
}

// --- cuda_error ------------------------------------------------------------------------

TEST(DistTorchCuda, OncePerRankAndText) {
  const auto rows = Feed({
      "[rank6]: RuntimeError: CUDA error: an illegal memory access was encountered",
      "[rank6]: CUDA kernel errors might be asynchronously reported at some other API call, so "
      "the stacktrace below might be incorrect.",
      "[rank6]: For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
      "[rank6]:[E1218 20:27:21.000000000 ProcessGroupNCCL.cpp:1515] [PG ID 0 PG GUID "
      "0(default_pg) Rank 6] Process group watchdog thread terminated with exception: CUDA "
      "error: an illegal memory access was encountered",
      "[rank6]: RuntimeError: CUDA error: device-side assert triggered",
      // Only the notice is left of rank 2's error.
      "[rank2]: CUDA kernel errors might be asynchronously reported at some other API call, so "
      "the stacktrace below might be incorrect.",
  });
  ASSERT_EQ(rows.size(), 3u);
  for (const auto& r : rows) EXPECT_EQ(r.kind, kCudaError);
  EXPECT_EQ(rows[0].rank, 6);
  EXPECT_EQ(rows[0].line_no, 1);
  EXPECT_EQ(rows[0].detail, "an illegal memory access was encountered");
  EXPECT_EQ(rows[1].line_no, 5);
  EXPECT_EQ(rows[1].detail, "device-side assert triggered");
  EXPECT_EQ(rows[2].rank, 2);
  EXPECT_EQ(rows[2].detail, "CUDA kernel errors might be asynchronously reported");
}

TEST(DistTorchCuda, OtherWordings) {
  const auto rows = Feed({
      "RuntimeError: cuda runtime error (59) : device-side assert triggered at "
      "/pytorch/aten/src/THC/generic/THCTensorMath.cu:26",
      "node-3:1234:1290 [0] include/alloc.h:48 NCCL WARN Cuda failure 700 'an illegal memory "
      "access was encountered'",
      "[rank1]: RuntimeError: kernel launch failed with cudaErrorLaunchFailure",
  });
  ASSERT_EQ(rows.size(), 3u);
  for (const auto& r : rows) EXPECT_EQ(r.kind, kCudaError);
  EXPECT_EQ(rows[0].detail, "device-side assert triggered");
  EXPECT_EQ(rows[1].host, "node-3");
  EXPECT_EQ(rows[1].detail, "an illegal memory access was encountered");
  EXPECT_EQ(rows[2].rank, 1);
  EXPECT_EQ(rows[2].detail, "cudaErrorLaunchFailure");
}

TEST(DistTorchCuda, AWatchdogThatWrapsACudaErrorIsNoTimeout) {
  const auto rows =
      Feed({"[rank3]:[E1218 20:27:21.000000000 ProcessGroupNCCL.cpp:1515] [PG ID 0 PG GUID "
            "0(default_pg) Rank 3] Process group watchdog thread terminated with exception: CUDA "
            "error: an illegal memory access was encountered"});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].kind, kCudaError);
  EXPECT_EQ(rows[0].rank, 3);
}

// --- look-alikes -----------------------------------------------------------------------

TEST(DistTorchLookAlikes, EmitNothing) {
  const auto rows = Feed({
      "[rank0]:[W1218 20:27:21.000000000 ProcessGroupNCCL.cpp:1009] Warning: "
      "TORCH_NCCL_ASYNC_ERROR_HANDLING is set, the watchdog aborts on errors",
      "config: {'watchdog': {'enabled': True, 'timeout': 600}, 'Watchdog_poll_s': 5}",
      "Watchdog timer started with a period of 30 s",
      "2024-05-01 10:00:00,000 - INFO - setting timeout to 1800 seconds",
      "NCCL_TIMEOUT=1800 NCCL_DEBUG=INFO NCCL_IB_TIMEOUT=22",
      "export TORCH_NCCL_BLOCKING_WAIT=1 CUDA_VISIBLE_DEVICES=0,1,2,3",
      "node-1:1234:1290 [0] NCCL INFO Channel 00/02 :    0   1   2   3",
      "node-1:1234:1290 [0] NCCL INFO comm 0x55d0 rank 0 nranks 4 cudaDev 0 - Init COMPLETE",
      "Enqueued 5 batches for the prefetcher",
      "torch.cuda.is_available(): True, running with CUDA 12.1",
      "requests.exceptions.ReadTimeout: HTTPSConnectionPool read timed out",
      "If you see an NCCL error, set NCCL_DEBUG=INFO",
      "[rank0]: step 100 | loss 2.31 | lr 3e-4 | 1.2 s/it",
  });
  for (const auto& r : rows) ADD_FAILURE() << r.kind << " at line " << r.line_no;
}

}  // namespace
}  // namespace casefile::dist
