// The engine facade: index reuse keyed on the inputs' identity, --reindex,
// the default index location, stored findings, and partial inputs.
#include "engine/session.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <thread>

#include "common/error.h"
#include "test_util.h"

namespace fs = std::filesystem;

namespace casefile {
namespace {

constexpr const char* kDigest =
    "E1129 09:21:26.100000  4021 hang.cc:1] Megascale detects a hang that is likely caused by bad "
    "TPU chips on the following hosts. Please remove the hosts from the fleet and restart the "
    "workload.\n"
    "E1129 09:21:26.100001  4021 hang.cc:1]   The host that have bad TPUs are: host-b\n"
    "E1129 09:21:26.100002  4021 hang.cc:1]   Full error digest:\n"
    "E1129 09:21:26.100003  4021 hang.cc:1]     Potential cause: Bad TPU chips\n"
    "E1129 09:21:26.100004  4021 hang.cc:1]     Potential culprit workers: jax_worker/1:host-b\n";

std::string MakeBundle(const test::TempDir& tmp) {
  const std::string root = tmp.Join("bundle");
  test::WriteFile(root + "/logs/host-a/worker.log",
                  "I1129 09:20:00.000000  4021 train.py:1] step 1\n" + std::string(kDigest));
  test::WriteFile(root + "/logs/host-b/worker.log",
                  "E1129 09:21:20.000000  4022 hang.cc:9] Megascale hang detected: Timed out "
                  "waiting for 4 graphs to complete at launch_id 13650. Already completed: 100. "
                  "StepGloballyInProgress: true. Timeout: 1m\n");
  return root;
}

int64_t CountRows(Session& s, const std::string& sql) {
  int64_t n = 0;
  s.Query(sql, [&](const QueryRow& row) {
    n = std::stoll(*row.values.at(0));
    return true;
  });
  return n;
}

TEST(Session, ReusesIndexUntilInputsChange) {
  test::TempDir tmp;
  const std::string root = MakeBundle(tmp);
  SessionOptions opts;
  opts.index_path = tmp.Join("idx/i.db");
  {
    Session s({root}, opts);
    EXPECT_FALSE(s.Index(nullptr).reused);
    EXPECT_TRUE(fs::exists(opts.index_path));
  }
  {
    Session s({root}, opts);
    EXPECT_TRUE(s.Index(nullptr).reused);
  }
  {
    SessionOptions again = opts;
    again.reindex = true;
    Session s({root}, again);
    EXPECT_FALSE(s.Index(nullptr).reused);
  }
  // A changed input (new size and mtime) is never served from the old index.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  test::WriteFile(root + "/logs/host-a/worker.log",
                  "I1129 09:20:00.000000  4021 train.py:1] only this\n");
  {
    Session s({root}, opts);
    EXPECT_FALSE(s.Index(nullptr).reused);
    EXPECT_EQ(CountRows(s, "SELECT count(*) FROM lines"), 2);
  }
  // Other limits change what is indexed, so they also force a rebuild.
  {
    SessionOptions other = opts;
    other.limits.max_line_bytes = 100;
    Session s({root}, other);
    EXPECT_FALSE(s.Index(nullptr).reused);
  }
  // No temporary files are left next to the index.
  int entries = 0;
  for (const auto& e : fs::directory_iterator(tmp.Join("idx"))) {
    ++entries;
    EXPECT_EQ(e.path().filename(), "i.db");
  }
  EXPECT_EQ(entries, 1);
}

// Regression (review of issue 2): --index used to overwrite any file.
TEST(Session, NeverOverwritesAFileThatIsNotItsIndex) {
  test::TempDir tmp;
  const std::string root = MakeBundle(tmp);
  test::WriteFile(tmp.Join("precious.txt"), "keep me\n");
  SessionOptions opts;
  opts.index_path = tmp.Join("precious.txt");
  Session s({root}, opts);
  try {
    s.Index(nullptr);
    FAIL() << "no exception";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kArgument);
    EXPECT_NE(std::string(e.what()).find("not a casefile index"), std::string::npos) << e.what();
  }
  EXPECT_EQ(test::ReadFile(tmp.Join("precious.txt")), "keep me\n");

  // An index of other inputs is replaced only with reindex.
  SessionOptions idx;
  idx.index_path = tmp.Join("i.db");
  Session(std::vector<std::string>{root}, idx).Index(nullptr);
  Session other({root + "/logs"}, idx);
  EXPECT_THROW(other.Index(nullptr), Error);
  idx.reindex = true;
  Session replace({root + "/logs"}, idx);
  EXPECT_FALSE(replace.Index(nullptr).reused);
}

TEST(Session, RemovesTemporariesOfDeadWriters) {
  test::TempDir tmp;
  const std::string root = MakeBundle(tmp);
  // pid 999999999 cannot exist (pid_max is at most 4194304).
  test::WriteFile(tmp.Join("i.db.tmp-999999999-abcdef"), "half an index");
  test::WriteFile(tmp.Join("other.db.tmp-999999999-abcdef"), "not ours");
  SessionOptions opts;
  opts.index_path = tmp.Join("i.db");
  Session s({root}, opts);
  s.Index(nullptr);
  EXPECT_FALSE(fs::exists(tmp.Join("i.db.tmp-999999999-abcdef")));
  EXPECT_TRUE(fs::exists(tmp.Join("other.db.tmp-999999999-abcdef")));
}

TEST(Session, AnalyzeStoresFindingsInTheIndex) {
  test::TempDir tmp;
  const std::string root = MakeBundle(tmp);
  SessionOptions opts;
  opts.index_path = tmp.Join("i.db");
  Session s({root}, opts);
  const Report r = s.Analyze({}, true);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].code, "hang.bad_chip");
  EXPECT_EQ(CountRows(s, "SELECT count(*) FROM findings WHERE code='hang.bad_chip'"), 1);
  const Report only = s.Analyze({"hang"}, false);
  EXPECT_EQ(only.analyzers.size(), 1u);
  EXPECT_THROW(s.Analyze({"no-such-analyzer"}, false), Error);
}

TEST(Session, DefaultIndexPathFollowsTheCacheVariables) {
  test::TempDir tmp;
  const std::string root = MakeBundle(tmp);
  setenv("CASEFILE_CACHE_DIR", tmp.Join("cache").c_str(), 1);
  const std::string p = DefaultIndexPath({root});
  EXPECT_EQ(p.rfind(tmp.Join("cache") + "/", 0), 0u) << p;
  EXPECT_TRUE(p.ends_with(".casefile.db"));
  // The same inputs spelled differently map to the same index.
  EXPECT_EQ(DefaultIndexPath({root + "/./"}), DefaultIndexPath({root}));
  EXPECT_NE(DefaultIndexPath({root, root + "/logs"}), p);
  Session s({root}, {});
  s.Index(nullptr);
  EXPECT_TRUE(fs::exists(p));
  unsetenv("CASEFILE_CACHE_DIR");
}

TEST(Session, MissingInputAndQueryBeforeIndex) {
  test::TempDir tmp;
  try {
    Session s({tmp.Join("nope")}, {});
    FAIL() << "no exception";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kNotFound);
  }
  EXPECT_THROW(Session({}, {}), Error);
  const std::string root = MakeBundle(tmp);
  SessionOptions opts;
  opts.index_path = tmp.Join("i.db");
  Session s({root}, opts);
  try {
    s.Query("SELECT 1", [](const QueryRow&) { return true; });
    FAIL() << "no exception";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kMisuse);
  }
}

TEST(Session, PartialInputIsReportedAndReusedAsPartial) {
  test::TempDir tmp;
  std::string big;
  for (int i = 0; i < 30000; ++i)
    big +=
        "I1129 09:21:26.123456  1234 train.py:12] line " + std::to_string(i * 7919 % 100003) + "\n";
  const std::string archive = tmp.Join("b.tar.zst");
  test::WriteArchive(archive, "tar.zst", {{"a.log", "first\n"}, {"b.log", big}});
  std::string bytes = test::ReadFile(archive);
  bytes.resize(bytes.size() * 2 / 3);
  test::WriteFile(archive, bytes);
  SessionOptions opts;
  opts.index_path = tmp.Join("i.db");
  for (bool expect_reused : {false, true}) {
    Session s({archive}, opts);
    const IndexOutcome o = s.Index(nullptr);
    EXPECT_EQ(o.reused, expect_reused);
    EXPECT_TRUE(o.partial);
    ASSERT_EQ(o.errors.size(), 1u);
    EXPECT_NE(o.errors[0].find("b.log"), std::string::npos) << o.errors[0];
    const Report r = s.Analyze({}, false);
    EXPECT_TRUE(r.partial());
    EXPECT_FALSE(r.ingest_issues.empty());
  }
}

}  // namespace
}  // namespace casefile
