// `casefile query` as a user runs it: every statement that would write,
// attach, change the connection or load code is refused with exit 2 and no
// file written; --max-rows, --max-bytes and --timeout stop a query with exit
// 3 after printing what came before. And every command that prints bundle
// text (analyze, show, files, query) shows a log line's escape sequences
// instead of sending them to the terminal (docs/CLI.md, "Terminal safety").
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "cli_spawn.h"
#include "test_util.h"

namespace {

using casefile::test::CliRun;
using casefile::test::RunCliInFixedEnv;
using casefile::test::TempDir;
using casefile::test::WriteFile;

const std::string kBinary = CASEFILE_BINARY_DIR "/bin/casefile";

bool Exists(const std::string& path) { return access(path.c_str(), F_OK) == 0; }

class QueryCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    WriteFile(dir_.Join("run/logs/host-0/worker.log"),
              "I1129 09:20:00.000000  4021 train.py:10] step 1 loss 2.5\n"
              "I1129 09:20:01.000000  4021 train.py:10] step 2 loss 2.4\n"
              "I1129 09:20:02.000000  4021 train.py:10] step 3 loss 2.3\n");
  }

  CliRun Query(const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"query", "--index", dir_.Join("idx.db"), dir_.Join("run")};
    args.insert(args.end(), extra.begin(), extra.end());
    return RunCliInFixedEnv(kBinary, args, dir_);
  }

  TempDir dir_;
};

TEST_F(QueryCliTest, EveryWriteIsRefused) {
  const std::string attached = dir_.Join("attached.db");
  const std::string vacuumed = dir_.Join("vacuumed.db");
  const std::vector<std::string> refused = {
      "INSERT INTO meta (key, value) VALUES ('k', 'v')",
      "UPDATE files SET path = 'x'",
      "DELETE FROM files",
      "CREATE TABLE t (x)",
      "DROP TABLE files",
      "ATTACH DATABASE '" + attached + "' AS other",
      "PRAGMA writable_schema = 1",
      "PRAGMA journal_mode = WAL",
      "PRAGMA user_version = 1",
      "VACUUM INTO '" + vacuumed + "'",
      "SELECT load_extension('libm.so.6')",
      "SELECT 1; DELETE FROM files",
  };
  for (const std::string& sql : refused) {
    CliRun r = Query({sql});
    EXPECT_EQ(r.code, 2) << sql << "\n" << r.err;
    EXPECT_NE(r.err.find("query refused"), std::string::npos) << sql << "\n" << r.err;
    EXPECT_EQ(r.out, "") << sql;
  }
  EXPECT_FALSE(Exists(attached));
  EXPECT_FALSE(Exists(vacuumed));
  EXPECT_FALSE(Exists(dir_.Join("idx.db-wal")));
  CliRun count =
      Query({"--format", "csv", "SELECT count(*) AS n FROM files WHERE entry_type = 'file'"});
  EXPECT_EQ(count.code, 0) << count.err;
  EXPECT_EQ(count.out, "n\n1\n");
}

TEST_F(QueryCliTest, RowByteAndTimeLimits) {
  const std::string three = "SELECT value AS v FROM json_each('[\"aa\",\"bb\",\"cc\"]')";
  // Exactly the limit: fine.
  CliRun ok = Query({"--format", "csv", "--max-rows", "3", "--max-bytes", "6", three});
  EXPECT_EQ(ok.code, 0) << ok.err;
  EXPECT_EQ(ok.out, "v\naa\nbb\ncc\n");
  // One row over: the rows before the limit are printed, then exit 3.
  CliRun rows = Query({"--format", "csv", "--max-rows", "2", three});
  EXPECT_EQ(rows.code, 3) << rows.err;
  EXPECT_EQ(rows.out, "v\naa\nbb\n");
  EXPECT_NE(rows.err.find("more than 2 rows"), std::string::npos) << rows.err;
  // The table format prints the rows it held back to size its columns.
  CliRun table = Query({"--max-rows", "1", three});
  EXPECT_EQ(table.code, 3) << table.err;
  EXPECT_NE(table.out.find("aa"), std::string::npos) << table.out;
  EXPECT_EQ(table.out.find("bb"), std::string::npos) << table.out;
  // JSON: the array is closed, so what came out still parses.
  CliRun json = Query({"--format", "json", "--max-bytes", "5", three});
  EXPECT_EQ(json.code, 3) << json.err;
  EXPECT_EQ(json.out.front(), '[');
  EXPECT_NE(json.out.find("\"aa\""), std::string::npos) << json.out;
  EXPECT_NE(json.out.find("\"bb\""), std::string::npos) << json.out;
  EXPECT_EQ(json.out.find("\"cc\""), std::string::npos) << json.out;
  EXPECT_NE(json.out.find(']'), std::string::npos) << json.out;
  EXPECT_NE(json.err.find("larger than 5 bytes"), std::string::npos) << json.err;
  // A recursive CTE without an end: stopped by --timeout.
  const std::string endless =
      "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n";
  CliRun timeout = Query({"--timeout", "300ms", endless});
  EXPECT_EQ(timeout.code, 3) << timeout.err;
  EXPECT_NE(timeout.err.find("300 ms"), std::string::npos) << timeout.err;
  // A huge blob: a limit, whatever the flags.
  CliRun blob = Query({"SELECT length(zeroblob(2000000000))"});
  EXPECT_EQ(blob.code, 3) << blob.err;
  EXPECT_NE(blob.err.find("67108864"), std::string::npos) << blob.err;
  // Bad values are usage errors.
  EXPECT_EQ(Query({"--max-rows", "0", "SELECT 1"}).code, 2);
  EXPECT_EQ(Query({"--timeout", "soon", "SELECT 1"}).code, 2);
  EXPECT_EQ(Query({"--timeout", "0", "SELECT 1"}).code, 0);
}

// ---------------------------------------------------------------------------
// Terminal safety.

// A log line that tries everything a terminal acts on: colour (CSI), a
// window title (OSC), cursor movement, a clear screen, C1 CSI as UTF-8 and
// as a raw byte, a bidi override and backspaces (a carriage return would
// make ingest keep only the text after it, as a terminal would show it);
// it also names a full disk, so that the built-in rule pack cites it.
const std::string kHostile =
    "E1129 09:21:00.000000  4021 ckpt.py:88] \x1b[31mOSError: [Errno 28] No space left on "
    "device\x1b[0m \x1b]0;pwned\x07\x1b[2A\x1b[2J\xc2\x9b"
    "31m\x9b"
    "1m \xe2\x80\xae"
    "gol.exe\b\bDONE";

// No byte of `text` would drive a terminal: no C0 control but newline (and
// tab), no DEL, no C1 control (as UTF-8 or a raw byte), no U+202E.
::testing::AssertionResult Inert(const std::string& text) {
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f || c == 0x9b) {
      return ::testing::AssertionFailure() << "byte " << int(c) << " at " << i << " in:\n" << text;
    }
    if (c == 0xc2 && i + 1 < text.size() &&
        (static_cast<unsigned char>(text[i + 1]) & 0xe0) == 0x80) {
      return ::testing::AssertionFailure() << "a C1 control at " << i << " in:\n" << text;
    }
  }
  if (text.find("\xe2\x80\xae") != std::string::npos) {
    return ::testing::AssertionFailure() << "U+202E in:\n" << text;
  }
  return ::testing::AssertionSuccess();
}

class TerminalCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    WriteFile(dir_.Join("run/logs/host-0/worker.log"),
              "I1129 09:20:00.000000  4021 train.py:10] step 1 loss 2.5\n" + kHostile + "\n");
    // A file name with an escape and a bidi override, for `files`.
    WriteFile(dir_.Join("run/logs/host-0/evil\x1b[2J\xe2\x80\xae.log"), "x\n");
  }

  CliRun Run(std::vector<std::string> args) {
    args.insert(args.begin() + 1, {"--index", dir_.Join("idx.db")});
    return RunCliInFixedEnv(kBinary, args, dir_);
  }

  TempDir dir_;
};

TEST_F(TerminalCliTest, AnalyzeTextShowsTheSequences) {
  CliRun r = Run({"analyze", "--no-color", dir_.Join("run")});
  EXPECT_TRUE(Inert(r.out));
  EXPECT_TRUE(Inert(r.err));
  // The rule cited the line; what it held is visible (in whatever form
  // ingest kept it) instead of acting.
  EXPECT_NE(r.out.find("runtime.disk_full"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("No space left on"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("<U+202E>gol.exe"), std::string::npos) << r.out;
}

TEST_F(TerminalCliTest, ShowFilesAndQueryShowTheSequences) {
  CliRun show = Run({"show", dir_.Join("run"), "logs/host-0/worker.log:2"});
  EXPECT_EQ(show.code, 0) << show.err;
  EXPECT_TRUE(Inert(show.out));
  EXPECT_NE(show.out.find("<U+202E>gol.exe"), std::string::npos) << show.out;

  CliRun files = Run({"files", dir_.Join("run")});
  EXPECT_EQ(files.code, 0) << files.err;
  EXPECT_TRUE(Inert(files.out));
  // However ingest recorded the odd name, it reaches the terminal inert.
  EXPECT_NE(files.out.find("evil"), std::string::npos) << files.out;

  // The raw text through SQL (the `lines` table keeps what ingest stored;
  // a value made in SQL holds every byte as written here).
  CliRun query = Run({"query", dir_.Join("run"),
                      "SELECT char(27) || '[31mred' || char(27) || ']0;t' || char(7) || "
                      "char(155) || char(8238) || x'9b' || char(13) AS v"});
  EXPECT_EQ(query.code, 0) << query.err;
  EXPECT_TRUE(Inert(query.out));
  EXPECT_NE(query.out.find("^[[31mred^[]0;t^G<U+009B><U+202E><0x9B>^M"), std::string::npos)
      << query.out;

  // JSON escapes them (RFC 8259 \u escapes; C1 and bidi too, so the JSON is
  // inert on a terminal and parses to the same text).
  CliRun json = Run({"query", "--format", "json", dir_.Join("run"),
                     "SELECT char(27) || char(155) || char(8238) || char(8232) AS v"});
  EXPECT_EQ(json.code, 0) << json.err;
  EXPECT_TRUE(Inert(json.out));
  EXPECT_NE(json.out.find("\\u001b\\u009b\\u202e\\u2028"), std::string::npos) << json.out;

  CliRun report = Run({"analyze", "--format", "json", dir_.Join("run")});
  EXPECT_TRUE(Inert(report.out));
}

}  // namespace
