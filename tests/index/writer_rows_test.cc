// Plain rows through IndexWriter: bundles, files, trace events with their
// process and thread names, HLO modules, configs, ingest issues, meta.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "common/error.h"
#include "index/index_reader.h"
#include "index/index_writer.h"
#include "index_fixture.h"
#include "test_util.h"

namespace casefile {
namespace {

using test::QueryAll;
using test::QueryOne;
using test::Row;

TraceEventRow Event(int64_t file_id, const std::string& pid, const std::string& tid,
                    const std::string& name, double ts) {
  TraceEventRow e;
  e.file_id = file_id;
  e.pid = pid;
  e.tid = tid;
  e.name = name;
  e.category = "cat";
  e.phase = "X";
  e.ts_us = ts;
  e.dur_us = 2.5;
  e.args_json = R"({"k":1})";
  return e;
}

TEST(WriterRows, BundlesAndFilesRoundTrip) {
  test::TempDir dir;
  std::string path = dir.Join("index.db");
  {
    IndexWriter w(path);
    BundleRow b = test::MakeBundle("run1.tar.zst");
    b.format = "tar.zst";
    b.status = "partial";
    b.error = "truncated archive";
    b.host = "host-7";
    b.entries = 12;
    b.bytes = 3456;
    EXPECT_EQ(w.AddBundle(b), 1);
    int64_t b2 = w.AddBundle(test::MakeBundle("run2"));
    EXPECT_EQ(b2, 2);
    BundleRow updated = test::MakeBundle("run2");
    updated.id = b2;
    updated.entries = 5;
    w.UpdateBundle(updated);

    FileRow f = test::MakeFile(1, "z/last.log");
    f.host = "host-7";
    f.task = "worker_3";
    f.rank = 3;
    f.size = 100;
    f.mtime = 1700000000;
    f.gunzipped = true;
    EXPECT_EQ(w.AddFile(f), 1);
    FileRow g = test::MakeFile(1, "a/first.log");
    g.entry_type = "symlink";
    g.link_target = "../z/last.log";
    EXPECT_EQ(w.AddFile(g), 2);
    f.id = 1;
    f.line_count = 42;
    f.truncated = true;
    w.UpdateFile(f);
    w.Commit();
  }
  auto r = IndexReader::Open(path);
  std::vector<BundleRow> bundles = r->Bundles();
  ASSERT_EQ(bundles.size(), 2u);
  EXPECT_EQ(bundles[0].id, 1);
  EXPECT_EQ(bundles[0].name, "run1.tar.zst");
  EXPECT_EQ(bundles[0].path, "/inputs/run1.tar.zst");
  EXPECT_EQ(bundles[0].identity, "id-run1.tar.zst");
  EXPECT_EQ(bundles[0].format, "tar.zst");
  EXPECT_EQ(bundles[0].status, "partial");
  EXPECT_EQ(bundles[0].error, "truncated archive");
  EXPECT_EQ(bundles[0].host, "host-7");
  EXPECT_EQ(bundles[0].entries, 12);
  EXPECT_EQ(bundles[0].bytes, 3456);
  EXPECT_EQ(bundles[1].host, std::nullopt);
  EXPECT_EQ(bundles[1].entries, 5);

  std::vector<FileRow> files = r->Files();  // by bundle, path
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].id, 2);
  EXPECT_EQ(files[0].path, "a/first.log");
  EXPECT_EQ(files[0].entry_type, "symlink");
  EXPECT_EQ(files[0].link_target, "../z/last.log");
  EXPECT_EQ(files[0].host, std::nullopt);
  EXPECT_EQ(files[0].task, std::nullopt);
  EXPECT_EQ(files[0].rank, std::nullopt);
  EXPECT_EQ(files[0].size, -1);
  EXPECT_EQ(files[1].id, 1);
  EXPECT_EQ(files[1].host, "host-7");
  EXPECT_EQ(files[1].task, "worker_3");
  EXPECT_EQ(files[1].rank, 3);
  EXPECT_EQ(files[1].size, 100);
  EXPECT_EQ(files[1].mtime, 1700000000);
  EXPECT_EQ(files[1].line_count, 42);
  EXPECT_TRUE(files[1].gunzipped);
  EXPECT_TRUE(files[1].truncated);
  EXPECT_FALSE(files[0].gunzipped);
  EXPECT_EQ(QueryOne(*r, "SELECT rank FROM files WHERE id = 2"), std::nullopt);
}

TEST(WriterRows, TraceEventsGetProcessAndThreadNames) {
  test::TempDir dir;
  std::string path = dir.Join("index.db");
  {
    IndexWriter w(path);
    int64_t b = w.AddBundle(test::MakeBundle("b"));
    int64_t t = w.AddFile(test::MakeFile(b, "trace_a.json"));
    int64_t u = w.AddFile(test::MakeFile(b, "trace_b.json"));
    w.AddTraceEvent(Event(t, "1", "10", "step", 100));
    w.AddTraceEvent(Event(t, "1", "10", "matmul", 110.5));
    w.AddTraceEvent(Event(t, "1", "11", "allreduce", 120));
    TraceEventRow instant = Event(t, "host:2", "10", "marker", 130);
    instant.phase = "i";
    instant.dur_us.reset();
    instant.args_json.clear();
    w.AddTraceEvent(instant);
    w.SetTraceProcessName(t, "1", "python");
    w.SetTraceProcessName(t, "1", "python3");  // the last name wins
    w.SetTraceThreadName(t, "1", "10", "MainThread");
    // Named before its events, as when metadata events open the trace.
    w.SetTraceThreadName(t, "1", "11", "stream 7");
    w.AddTraceEvent(Event(t, "1", "11", "late", 140));
    w.AddTraceEvent(Event(u, "1", "10", "other file", 5));
    w.Commit();
  }
  auto r = IndexReader::Open(path);
  EXPECT_EQ(
      QueryAll(*r,
               "SELECT file_id, pid, tid, process_name, thread_name, name, category, phase, "
               "ts_us, dur_us, args FROM trace_events ORDER BY file_id, ts_us"),
      (std::vector<Row>{
          {"1", "1", "10", "python3", "MainThread", "step", "cat", "X", "100.0", "2.5",
           R"({"k":1})"},
          {"1", "1", "10", "python3", "MainThread", "matmul", "cat", "X", "110.5", "2.5",
           R"({"k":1})"},
          {"1", "1", "11", "python3", "stream 7", "allreduce", "cat", "X", "120.0", "2.5",
           R"({"k":1})"},
          {"1", "host:2", "10", std::nullopt, std::nullopt, "marker", "cat", "i", "130.0",
           std::nullopt, "{}"},
          {"1", "1", "11", "python3", "stream 7", "late", "cat", "X", "140.0", "2.5", R"({"k":1})"},
          {"2", "1", "10", std::nullopt, std::nullopt, "other file", "cat", "X", "5.0", "2.5",
           R"({"k":1})"},
      }));
}

TEST(WriterRows, HloConfigsIssuesAndMeta) {
  test::TempDir dir;
  std::string path = dir.Join("index.db");
  {
    IndexWriter w(path);
    int64_t b = w.AddBundle(test::MakeBundle("b"));
    int64_t h =
        w.AddFile(test::MakeFile(b, "xla_dump/module_0001.jit_step.before_optimizations.txt"));
    int64_t c = w.AddFile(test::MakeFile(b, "ds_config.json"));
    HloModuleRow m;
    m.file_id = h;
    m.module_name = "jit_step";
    m.stage = "before_optimizations";
    m.fingerprint = "00ff00ff00ff00ff";
    m.instruction_count = 120;
    m.computation_count = 4;
    w.AddHloModule(m);
    w.AddConfig({c, "fp16.enabled", "true", 3});
    w.AddConfig({c, "optimizer.params.lr", "0.0001", 0});
    w.AddIngestIssue({b, "logs/cut.log", 1048576, "entry_limit", "entry cut at 1 MiB"});
    w.SetMeta("tool_args", "--fast");
    w.SetMeta("created_at", "2000-01-01T00:00:00Z");
    w.SetMeta("schema_version", "77");  // owned by the writer: overwritten
    w.Commit();
  }
  auto r = IndexReader::Open(path);
  EXPECT_EQ(QueryAll(*r,
                     "SELECT file_id, module_name, stage, host, fingerprint, xla_fingerprint, "
                     "instruction_count, computation_count FROM hlo_modules"),
            (std::vector<Row>{{"1", "jit_step", "before_optimizations", std::nullopt,
                               "00ff00ff00ff00ff", std::nullopt, "120", "4"}}));
  EXPECT_EQ(QueryAll(*r, "SELECT file_id, key, value, line_no FROM configs ORDER BY key"),
            (std::vector<Row>{{"2", "fp16.enabled", "true", "3"},
                              {"2", "optimizer.params.lr", "0.0001", "0"}}));
  std::vector<IngestIssueRow> issues = r->IngestIssues();
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].bundle_id, 1);
  EXPECT_EQ(issues[0].path, "logs/cut.log");
  EXPECT_EQ(issues[0].offset, 1048576);
  EXPECT_EQ(issues[0].kind, "entry_limit");
  EXPECT_EQ(issues[0].message, "entry cut at 1 MiB");
  EXPECT_EQ(r->Meta("tool_args"), "--fast");
  EXPECT_EQ(r->Meta("created_at"), "2000-01-01T00:00:00Z");
  EXPECT_EQ(r->Meta("schema_version"), std::to_string(kIndexSchemaVersion));
}

TEST(WriterRows, InputsIdentityFollowsTheBundles) {
  test::TempDir dir;
  auto identity_of = [&](const std::string& name, std::vector<std::string> ids) {
    std::string path = dir.Join(name);
    IndexWriter w(path);
    for (const std::string& id : ids) {
      BundleRow b = test::MakeBundle("x");
      b.identity = id;
      w.AddBundle(b);
    }
    w.Commit();
    return IndexReader::Open(path)->Meta("inputs_identity");
  };
  std::string ab = identity_of("1.db", {"a", "b"});
  EXPECT_EQ(identity_of("2.db", {"a", "b"}), ab);
  EXPECT_NE(identity_of("3.db", {"a", "c"}), ab);
  EXPECT_NE(identity_of("4.db", {"ab"}), ab);
}

TEST(WriterRows, UnknownIdsAreRefused) {
  test::TempDir dir;
  IndexWriter w(dir.Join("index.db"));
  int64_t b = w.AddBundle(test::MakeBundle("b"));
  w.AddFile(test::MakeFile(b, "a.log"));
  auto code_of = [](auto&& call) {
    try {
      call();
    } catch (const Error& e) {
      return e.code();
    }
    return ErrorCode::kInternal;
  };
  EXPECT_EQ(code_of([&] { w.AddTraceEvent(Event(5, "1", "1", "x", 0)); }), ErrorCode::kArgument);
  EXPECT_EQ(code_of([&] { w.AddConfig({0, "k", "v", 0}); }), ErrorCode::kArgument);
  EXPECT_EQ(code_of([&] { w.AddIngestIssue({9, "p", 0, "k", "m"}); }), ErrorCode::kArgument);
  EXPECT_EQ(code_of([&] {
              BundleRow r;
              r.id = 3;
              w.UpdateBundle(r);
            }),
            ErrorCode::kArgument);
  EXPECT_EQ(code_of([&] {
              FileRow r;
              r.id = 2;
              w.UpdateFile(r);
            }),
            ErrorCode::kArgument);
  w.Commit();
}

TEST(WriterRows, StoreFindingsReplacesTheFindings) {
  test::TempDir dir;
  std::string path = dir.Join("index.db");
  {
    IndexWriter w(path);
    int64_t f = w.AddFile(test::MakeFile(w.AddBundle(test::MakeBundle("b")), "a.log"));
    w.AddLine(test::PlainLine(f, 1, "kept", 0));
    w.Commit();
  }
  auto r = IndexReader::Open(path);  // open across the updates
  StoreFindings(path, {{"NCCL_TIMEOUT", "comm", "error", R"({"code":"NCCL_TIMEOUT"})"},
                       {"NAN_LOSS", "numeric", "warning", R"({"code":"NAN_LOSS"})"}});
  EXPECT_EQ(QueryAll(*r, "SELECT id, code, analyzer, severity, json FROM findings ORDER BY id"),
            (std::vector<Row>{{"1", "NCCL_TIMEOUT", "comm", "error", R"({"code":"NCCL_TIMEOUT"})"},
                              {"2", "NAN_LOSS", "numeric", "warning", R"({"code":"NAN_LOSS"})"}}));
  StoreFindings(path, {{"HANG", "hang", "error", "{}"}});
  EXPECT_EQ(QueryAll(*r, "SELECT id, code FROM findings"), (std::vector<Row>{{"1", "HANG"}}));
  StoreFindings(path, {});
  EXPECT_EQ(QueryOne(*r, "SELECT count(*) FROM findings"), "0");
  EXPECT_EQ(r->LineText(1, 1), "kept");
  EXPECT_EQ(QueryOne(*r, "SELECT text FROM lines"), "kept");
  try {
    StoreFindings(dir.Join("missing.db"), {});
    FAIL() << "stored findings into a missing index";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kNotFound);
  }
}

// The meta rows that describe the stored set change with it, in the same
// call: set, replaced, deleted.
TEST(WriterRows, StoreFindingsWritesItsMetaRowsInTheSameTransaction) {
  test::TempDir dir;
  std::string path = dir.Join("index.db");
  {
    IndexWriter w(path);
    int64_t f = w.AddFile(test::MakeFile(w.AddBundle(test::MakeBundle("b")), "a.log"));
    w.AddLine(test::PlainLine(f, 1, "kept", 0));
    w.Commit();
  }
  auto r = IndexReader::Open(path);
  StoreFindings(path, {{"HANG", "hang", "error", "{}"}}, {{"findings_provenance", "set A"}});
  EXPECT_EQ(r->Meta("findings_provenance"), "set A");
  StoreFindings(path, {{"NAN", "numeric", "error", "{}"}}, {{"findings_provenance", "set B"}});
  EXPECT_EQ(r->Meta("findings_provenance"), "set B");
  EXPECT_EQ(QueryAll(*r, "SELECT code FROM findings"), (std::vector<Row>{{"NAN"}}));
  StoreFindings(path, {}, {{"findings_provenance", std::nullopt}});
  EXPECT_EQ(r->Meta("findings_provenance"), "");
  EXPECT_EQ(QueryOne(*r, "SELECT count(*) FROM meta WHERE key = 'findings_provenance'"), "0");
}

}  // namespace
}  // namespace casefile
