// End-to-end ingest: a bundle made at test time goes through the bundle,
// parse and index stages; SQL over the index must show each file with its
// kind and attribution, each line with its metadata, and every skipped or
// damaged piece as an ingest issue.
#include "ingest/ingest.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "common/error.h"
#include "index/index_reader.h"
#include "index/index_writer.h"
#include "sql_rows.h"
#include "test_util.h"

namespace fs = std::filesystem;

namespace casefile {
namespace {

using test::Rows;
using test::Sql;

std::unique_ptr<IndexReader> Build(const std::vector<std::string>& inputs, const std::string& db,
                                   IngestResult* result = nullptr, Limits limits = {}) {
  {
    IndexWriter w(db);
    IngestResult r = IngestInputs(inputs, limits, nullptr, w);
    if (result) *result = r;
    w.Commit();
  }
  return IndexReader::Open(db);
}

void MakeBundle(const std::string& root) {
  test::WriteFile(root + "/logs/host-017/worker.log",
                  "I1129 09:21:26.123456  1234 train.py:12] step 1 loss=2.5\n"
                  "\x1b[31mE1129 09:21:27.000001  1234 train.py:13] boom\x1b[0m\n"
                  "[rank3]:[E1129 09:21:28.123456789 ProcessGroupNCCL.cpp:629] [PG ID 0 PG GUID 0 "
                  "Rank 1] Watchdog caught\n"
                  "node-9:2017630:2017671 [2] NCCL INFO Using network IB\n"
                  "progress 10%\rprogress 50%\rprogress 100%\n"
                  "no newline at end");
  test::WriteFile(root + "/hlo/module_0001.jit_step.before_optimizations.txt",
                  "HloModule jit_step, entry_computation_layout={(f32[8]{0})->f32[8]{0}}\n\n"
                  "ENTRY %main.3 (Arg_0.1: f32[8]) -> f32[8] {\n"
                  "  %Arg_0.1 = f32[8]{0} parameter(0)\n"
                  "  ROOT %add.2 = f32[8]{0} add(f32[8]{0} %Arg_0.1, f32[8]{0} %Arg_0.1)\n"
                  "}\n");
  test::WriteFile(root + "/config/ds_config.json",
                  "{\n  \"fp16\": {\"enabled\": true, \"initial_scale_power\": 16},\n"
                  "  \"train_batch_size\": 64\n}\n");
  test::WriteFile(
      root + "/traces/host-017.trace.json",
      "{\"displayTimeUnit\":\"ns\",\"traceEvents\":["
      "{\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\",\"args\":{\"name\":\"/device:TPU:0\"}},"
      "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":10.5,\"dur\":2.25,\"name\":\"all-reduce.1\","
      "\"args\":{\"a\":\"b\"}},"
      "{}]}");
  test::WriteFile(
      root + "/versions/nvcc_version.txt",
      "nvcc: NVIDIA (R) Cuda compiler driver\nCuda compilation tools, release 12.4, V12.4.131\n");
}

TEST(Ingest, DirectoryBundleRowsAndLines) {
  test::TempDir tmp;
  const std::string root = tmp.Join("bundle");
  MakeBundle(root);
  IngestResult result;
  auto r = Build({root}, tmp.Join("i.db"), &result);
  EXPECT_FALSE(result.partial);

  const Rows files = Sql(
      *r, "SELECT path, kind, host, line_count FROM files WHERE entry_type='file' ORDER BY path");
  ASSERT_EQ(files.size(), 5u);
  EXPECT_EQ(files[0], (std::vector<std::string>{"config/ds_config.json", "config", "NULL", "4"}));
  EXPECT_EQ(files[1][1], "hlo");
  EXPECT_EQ(files[2],
            (std::vector<std::string>{"logs/host-017/worker.log", "log", "host-017", "6"}));
  EXPECT_EQ(files[3][1], "trace");
  EXPECT_EQ(files[4][1], "version");

  const Rows lines = Sql(
      *r,
      "SELECT l.line_no, l.level, l.host, l.rank, l.pid, l.text, l.message, l.ts_us FROM lines l "
      "JOIN files f ON f.id = l.file_id WHERE f.path = 'logs/host-017/worker.log' ORDER BY "
      "l.line_no");
  ASSERT_EQ(lines.size(), 6u);
  // glog header: level, time (2026 from the file's mtime year is not assumed:
  // the mtime of a file written now is this year, so only check it is set).
  EXPECT_EQ(lines[0][1], "info");
  EXPECT_EQ(lines[0][6], "step 1 loss=2.5");
  EXPECT_NE(lines[0][7], "NULL");
  // ANSI removed, level from the glog letter.
  EXPECT_EQ(lines[1][5], "E1129 09:21:27.000001  1234 train.py:13] boom");
  EXPECT_EQ(lines[1][1], "error");
  // [rank3]: sets the rank; the PG rank inside the message does not.
  EXPECT_EQ(lines[2][3], "3");
  EXPECT_EQ(lines[2][6], "[PG ID 0 PG GUID 0 Rank 1] Watchdog caught");
  // NCCL prefix: host and pid from the line override the file's host.
  EXPECT_EQ(lines[3][2], "node-9");
  EXPECT_EQ(lines[3][4], "2017630");
  EXPECT_EQ(lines[3][6], "NCCL INFO Using network IB");
  // \r frames reduced to the last one.
  EXPECT_EQ(lines[4][5], "progress 100%");
  EXPECT_EQ(lines[5][5], "no newline at end");
  // Lines with no host prefix fall back to the file's host.
  EXPECT_EQ(lines[0][2], "host-017");

  const Rows hlo = Sql(*r, "SELECT module_name, stage, instruction_count FROM hlo_modules");
  ASSERT_EQ(hlo.size(), 1u);
  EXPECT_EQ(hlo[0], (std::vector<std::string>{"jit_step", "before_optimizations", "2"}));

  const Rows cfg = Sql(*r, "SELECT key, value FROM configs ORDER BY key");
  ASSERT_EQ(cfg.size(), 3u);
  EXPECT_EQ(cfg[0], (std::vector<std::string>{"fp16.enabled", "true"}));
  EXPECT_EQ(cfg[1], (std::vector<std::string>{"fp16.initial_scale_power", "16"}));
  EXPECT_EQ(cfg[2], (std::vector<std::string>{"train_batch_size", "64"}));

  const Rows ev = Sql(*r, "SELECT name, process_name, ts_us, dur_us FROM trace_events");
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0][0], "all-reduce.1");
  EXPECT_EQ(ev[0][1], "/device:TPU:0");
  EXPECT_EQ(std::stod(ev[0][2]), 10.5);
  EXPECT_EQ(std::stod(ev[0][3]), 2.25);
}

TEST(Ingest, ArchiveGivesTheSameRowsAsDirectory) {
  test::TempDir tmp;
  const std::string root = tmp.Join("bundle");
  MakeBundle(root);
  test::ArchiveDirectory(root, tmp.Join("bundle.tar.zst"), "tar.zst");
  auto a = Build({root}, tmp.Join("a.db"));
  auto b = Build({tmp.Join("bundle.tar.zst")}, tmp.Join("b.db"));
  const std::string q =
      "SELECT f.path, l.line_no, l.offset, l.level, l.host, l.rank, l.text FROM lines l JOIN files "
      "f ON f.id=l.file_id ORDER BY f.path, l.line_no";
  EXPECT_EQ(Sql(*a, q), Sql(*b, q));
  EXPECT_GT(Sql(*a, q).size(), 10u);
}

TEST(Ingest, TruncatedArchiveKeepsWhatCameBeforeAndIsPartial) {
  test::TempDir tmp;
  std::vector<test::ArchiveMember> members;
  std::string big;
  for (int i = 0; i < 20000; ++i)
    big +=
        "I1129 09:21:26.123456  1234 train.py:12] line " + std::to_string(i * 7919 % 100003) + "\n";
  members.push_back({"a_first.log", "first file\nsecond line\n"});
  members.push_back({"b_big.log", big});
  members.push_back({"c_last.log", "never reached\n"});
  const std::string archive = tmp.Join("b.tar.zst");
  test::WriteArchive(archive, "tar.zst", members);
  std::string bytes = test::ReadFile(archive);
  bytes.resize(bytes.size() / 2);
  test::WriteFile(archive, bytes);

  IngestResult result;
  auto r = Build({archive}, tmp.Join("i.db"), &result);
  EXPECT_TRUE(result.partial);
  ASSERT_EQ(result.errors.size(), 1u);
  EXPECT_NE(result.errors[0].find("b_big.log"), std::string::npos) << result.errors[0];
  const Rows first = Sql(*r, "SELECT line_count FROM files WHERE path='a_first.log'");
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0][0], "2");
  const Rows bundles = Sql(*r, "SELECT status FROM bundles");
  EXPECT_EQ(bundles[0][0], "partial");
  const Rows issues = Sql(*r, "SELECT kind FROM ingest_issues WHERE kind='archive_corrupt'");
  EXPECT_EQ(issues.size(), 1u);
}

TEST(Ingest, LongLinesAreTruncatedAndRecorded) {
  test::TempDir tmp;
  test::WriteFile(tmp.Join("b/x.log"), std::string(5000, 'a') + "\nshort\n");
  Limits limits;
  limits.max_line_bytes = 1000;
  auto r = Build({tmp.Join("b")}, tmp.Join("i.db"), nullptr, limits);
  const Rows lines = Sql(*r, "SELECT length(text), flags & 1 FROM lines ORDER BY line_no");
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], (std::vector<std::string>{"1000", "1"}));
  EXPECT_EQ(lines[1], (std::vector<std::string>{"5", "0"}));
  const Rows issues = Sql(*r, "SELECT path FROM ingest_issues WHERE kind='line_truncated'");
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0][0], "x.log");
}

TEST(Ingest, ManifestAttributesHostsEvenWhenItComesLast) {
  test::TempDir tmp;
  const std::string archive = tmp.Join("m.tar");
  test::WriteArchive(
      archive, "tar",
      {{"logs/train.log", "hello\n"},
       {"casefile.json",
        R"({"format_version": 1, "host": "tpu-host-a", "files": [{"path": "logs/train.log", "kind": "log", "host": "tpu-host-b"}]})"}});
  auto r = Build({archive}, tmp.Join("i.db"));
  const Rows rows = Sql(*r, "SELECT path, host FROM files ORDER BY path");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"casefile.json", "tpu-host-a"}));
  EXPECT_EQ(rows[1], (std::vector<std::string>{"logs/train.log", "tpu-host-b"}));
  EXPECT_EQ(Sql(*r, "SELECT host FROM bundles")[0][0], "tpu-host-a");
  // Lines follow their file's attribution, also when the manifest came last.
  EXPECT_EQ(Sql(*r,
                "SELECT l.host FROM lines l JOIN files f ON f.id = l.file_id WHERE f.path = "
                "'logs/train.log'")[0][0],
            "tpu-host-b");
  bool scanned = false;
  const int64_t id = std::stoll(Sql(*r, "SELECT id FROM files WHERE path='logs/train.log'")[0][0]);
  r->ScanLines(id, [&](const LineRecord& l) {
    EXPECT_EQ(l.host, "tpu-host-b");
    scanned = true;
    return true;
  });
  EXPECT_TRUE(scanned);
}

// Regression (review of issue 2): damage inside the first 64 KiB of an entry,
// the bytes read to classify it, used to lose the entry's row and lines.
TEST(Ingest, DamageInsideTheFirstBytesKeepsWhatWasRead) {
  test::TempDir tmp;
  std::string text;
  for (int i = 0; text.size() < 40000; ++i) text += "line " + std::to_string(i) + "\n";
  const std::string archive = tmp.Join("small.tar");
  test::WriteArchive(archive, "tar", {{"a.log", text}});
  std::string bytes = test::ReadFile(archive);
  bytes.resize(512 + 20000);  // header + about half of the data
  test::WriteFile(archive, bytes);
  IngestResult result;
  auto r = Build({archive}, tmp.Join("i.db"), &result);
  EXPECT_TRUE(result.partial);
  const Rows rows =
      Sql(*r, "SELECT kind, truncated, line_count > 1000 FROM files WHERE path='a.log'");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"log", "1", "1"}));
  EXPECT_EQ(Sql(*r, "SELECT text FROM lines WHERE line_no=1")[0][0], "line 0");
}

TEST(Ingest, EntryLimitMarksTheFileTruncated) {
  test::TempDir tmp;
  test::WriteFile(tmp.Join("b/x.log"), std::string(3000, 'a') + "\n");
  Limits limits;
  limits.max_entry_bytes = 100;
  auto r = Build({tmp.Join("b")}, tmp.Join("i.db"), nullptr, limits);
  EXPECT_EQ(Sql(*r, "SELECT truncated, size FROM files WHERE path='x.log'")[0],
            (std::vector<std::string>{"1", "100"}));
  EXPECT_EQ(Sql(*r, "SELECT count(*) FROM ingest_issues WHERE kind='entry_truncated'")[0][0], "1");
}

TEST(Ingest, OneUnreadableInputAmongSeveralIsRecordedNotFatal) {
  test::TempDir tmp;
  test::WriteFile(tmp.Join("good/x.log"), "hello\n");
  test::WriteFile(tmp.Join("garbage.tar.zst"), std::string("\x01\x02 this is not an archive"));
  IngestResult result;
  auto r = Build({tmp.Join("good"), tmp.Join("garbage.tar.zst")}, tmp.Join("i.db"), &result);
  EXPECT_TRUE(result.partial);
  const Rows bundles = Sql(*r, "SELECT name, status FROM bundles ORDER BY id");
  ASSERT_EQ(bundles.size(), 2u);
  EXPECT_EQ(bundles[0], (std::vector<std::string>{"good", "complete"}));
  EXPECT_EQ(bundles[1], (std::vector<std::string>{"garbage.tar.zst", "unreadable"}));
  EXPECT_EQ(Sql(*r, "SELECT count(*) FROM ingest_issues WHERE kind='bundle_unreadable'")[0][0],
            "1");
  EXPECT_EQ(Sql(*r, "SELECT count(*) FROM lines")[0][0], "1");
}

// Regression (review of issue 2): glog stamps carry no year; one after the
// file's mtime belongs to the year before (a log saved just after New Year).
TEST(Ingest, YearLessStampsDoNotLandInTheFuture) {
  test::TempDir tmp;
  const std::string archive = tmp.Join("y.tar");
  // Member mtime: 2025-11-29T09:20:00Z (test_util writes 1764408000).
  test::WriteArchive(archive, "tar",
                     {{"w.log",
                       "I1231 23:59:59.000000  1 a.cc:1] old year\n"
                       "I1129 09:00:00.000000  1 a.cc:1] this year\n"}});
  auto r = Build({archive}, tmp.Join("i.db"));
  const Rows rows = Sql(*r, "SELECT ts_us FROM lines ORDER BY line_no");
  ASSERT_EQ(rows.size(), 2u);
  // date -u -d '2024-12-31 23:59:59' +%s = 1735689599; 2025-11-29 09:00:00 = 1764406800
  EXPECT_EQ(rows[0][0], "1735689599000000");
  EXPECT_EQ(rows[1][0], "1764406800000000");
}

TEST(Ingest, UnreadableInputThrows) {
  test::TempDir tmp;
  test::WriteFile(tmp.Join("garbage.bin"), std::string("\x01\x02\x03 not an archive"));
  IndexWriter w(tmp.Join("i.db"));
  try {
    IngestInputs({tmp.Join("garbage.bin")}, {}, nullptr, w);
    FAIL() << "no exception";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUnsupported);
    EXPECT_NE(std::string(e.what()).find("garbage.bin"), std::string::npos);
  }
}

TEST(Ingest, ProgressCanAbort) {
  test::TempDir tmp;
  test::WriteFile(tmp.Join("b/x.log"), std::string(20u << 20, 'x'));
  IndexWriter w(tmp.Join("i.db"));
  int calls = 0;
  try {
    IngestInputs(
        {tmp.Join("b")}, {}, [&](uint64_t, std::string_view) { return ++calls < 2; }, w);
    FAIL() << "no exception";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kAborted);
  }
  EXPECT_EQ(calls, 2);
}

}  // namespace
}  // namespace casefile
