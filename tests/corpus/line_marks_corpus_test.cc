// The line marks (analyze/line_marks.h) must change what an analysis reads,
// never what it finds. Every corpus scenario is copied twice with its text
// files padded so that a block boundary falls inside them (at a line chosen
// by the file's path, and right after the file's first line a scan looks
// for: a Megascale header, a kill, an error), indexed once, and analyzed
// twice: as indexed (blocks skipped by their
// marks), and on a copy of the index without its `line_marks` meta row
// (every block read). The findings must be the same, byte for byte, and the
// marked analysis must have decoded fewer blocks.
#include <gtest/gtest.h>
#include <simdjson.h>
#include <sqlite3.h>
#include <sys/time.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "analyze/line_marks.h"
#include "analyze/rules/rules_analyzer.h"
#include "analyze/rules/rules_registry.h"
#include "common/hash.h"
#include "engine/session.h"
#include "index/index_reader.h"
#include "index/line_block.h"
#include "report/report.h"
#include "test_util.h"

namespace fs = std::filesystem;

namespace casefile {
namespace {

std::string CorpusDir() { return std::string(CASEFILE_SOURCE_DIR) + "/corpus"; }

// Files whose lines an analyzer may read through the line pass.
bool Padded(const fs::path& p) {
  const std::string name = p.filename().string();
  for (const char* ext : {".log", ".txt", ".out", ".err"}) {
    if (p.extension() == ext) return true;
  }
  for (const char* w : {"dmesg", "syslog", "kern", "journal", "messages"}) {
    if (name.find(w) != std::string::npos) return true;
  }
  return false;
}

// How a file is padded.
enum class Cut {
  // The first block boundary after the padding falls at a line chosen from
  // the file's path (each file is cut somewhere else), and a few fillers
  // follow the file, so a last block of padding exists too.
  kByPath,
  // The boundary falls right after the file's first line that a scan may
  // look for (a Megascale header then ends its block, and its digest's body
  // is in the next), and the file ends as it did (a digest cut by the end
  // of the file, a last line without a newline).
  kAfterSignal,
};

// The first line (0-based) of `text` holding a word the line scans look
// for, the words tried in turn (a Megascale digest first, its header being
// what opens a window over the following lines), or npos.
size_t FirstSignalLine(const std::string& text) {
  for (std::string_view w :
       {"Megascale detects", "egascale", "nrecoverable", "Killed process", "Out of memory", "Xid",
        "Assertion", "Traceback", "rror", "WARN", "imed out"}) {
    const size_t at = text.find(w);
    if (at != std::string::npos) {
      return static_cast<size_t>(
          std::count(text.begin(), text.begin() + static_cast<long>(at), '\n'));
    }
  }
  return std::string::npos;
}

// Plain filler lines (no time, no pid, nothing a test looks for) before the
// file's own lines, at least one whole block of them.
void PadFile(const fs::path& p, const fs::path& root, Cut how) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream body;
  body << in.rdbuf();
  const std::string text = body.str();
  const size_t lines = static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
  size_t cut = 0;  // lines of the file before the boundary
  if (how == Cut::kByPath) {
    Fnv1a64 h;
    h.Update(fs::relative(p, root).string());
    cut = lines == 0 ? 0 : static_cast<size_t>(h.Digest() % lines);
  } else {
    const size_t signal = FirstSignalLine(text);
    cut = signal == std::string::npos ? lines / 2 : signal + 1;
  }
  const size_t before = (kMaxBlockLines - cut % kMaxBlockLines) % kMaxBlockLines + kMaxBlockLines;
  std::string out;
  for (size_t i = 0; i < before; ++i) out += "padding line " + std::to_string(i) + " of the test\n";
  out += text;
  if (how == Cut::kByPath) {
    if (!text.empty() && text.back() != '\n') out += '\n';
    for (size_t i = 0; i < 50; ++i) out += "trailing padding " + std::to_string(i) + "\n";
  }
  test::WriteFile(p.string(), out);
}

std::string FindingsJson(const std::string& index_path, const std::vector<std::string>& inputs) {
  SessionOptions opts;
  opts.index_path = index_path;
  Session session(inputs, opts);
  EXPECT_TRUE(session.Index(nullptr).reused);
  // Without the report context, whose evidence excerpts decode blocks of
  // their own.
  const Report report = session.Analyze({}, /*store_findings=*/false, ReportParts::kNoContext);
  std::string out;
  for (const auto& a : report.analyzers) {
    EXPECT_NE(a.status, "failed") << a.name << ": " << a.reason;
    out += a.name + " " + a.status + "\n";
  }
  for (const Finding& f : report.findings) out += RenderFindingJson(f) + "\n";
  return out;
}

void DropMarksMeta(const std::string& path) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  EXPECT_EQ(sqlite3_exec(db, "DELETE FROM meta WHERE key = 'line_marks'", nullptr, nullptr, &err),
            SQLITE_OK)
      << (err ? err : "");
  sqlite3_free(err);
  EXPECT_EQ(sqlite3_changes(db), 1);
  sqlite3_close(db);
}

// One index of `inputs`, analyzed with its marks and without them.
struct BothWays {
  std::string with_marks;
  std::string without;
  uint64_t decoded_with = 0;  // line blocks decoded by each analysis
  uint64_t decoded_without = 0;
  std::vector<std::string> blocks;  // "first_line:scan_marks", by path and line
};

BothWays AnalyzeBothWays(const std::vector<std::string>& inputs, const test::TempDir& tmp) {
  BothWays out;
  const std::string marked = tmp.Join("marked.casefile.db");
  {
    SessionOptions opts;
    opts.index_path = marked;
    Session session(inputs, opts);
    session.Index(nullptr);
    session.Query(
        "SELECT b.first_line, b.scan_marks FROM line_blocks b JOIN files f ON f.id = "
        "b.file_id ORDER BY f.path, b.first_line",
        [&](const QueryRow& row) {
          out.blocks.push_back(*row.values[0] + ":" + *row.values[1]);
          return true;
        });
  }
  const std::string unmarked = tmp.Join("unmarked.casefile.db");
  fs::copy_file(marked, unmarked);
  DropMarksMeta(unmarked);
  const uint64_t start = LineBlocksDecoded();
  out.with_marks = FindingsJson(marked, inputs);
  const uint64_t middle = LineBlocksDecoded();
  out.without = FindingsJson(unmarked, inputs);
  out.decoded_with = middle - start;
  out.decoded_without = LineBlocksDecoded() - middle;
  return out;
}

TEST(LineMarksCorpus, SkippingBlocksFindsTheSame) {
  size_t scenarios = 0;
  size_t findings = 0;
  uint64_t marked_blocks = 0;
  uint64_t all_blocks = 0;
  std::vector<fs::path> dirs;
  for (const auto& e : fs::directory_iterator(CorpusDir())) {
    if (fs::exists(e.path() / "expected.json")) dirs.push_back(e.path());
  }
  std::sort(dirs.begin(), dirs.end());
  for (const fs::path& dir : dirs) {
    for (const Cut how : {Cut::kByPath, Cut::kAfterSignal}) {
      SCOPED_TRACE(dir.filename().string() +
                   (how == Cut::kByPath ? ", cut by path" : ", cut after a signal"));
      test::TempDir tmp;
      simdjson::dom::parser parser;
      simdjson::dom::element doc = parser.load((dir / "expected.json").string());
      std::vector<std::string> inputs;
      for (auto in : doc["inputs"].get_array()) {
        const fs::path to = fs::path(tmp.Join("in")) / std::string_view(in.get_string());
        fs::create_directories(to);
        fs::copy(dir / std::string_view(in.get_string()), to, fs::copy_options::recursive);
        for (const auto& f : fs::recursive_directory_iterator(to)) {
          if (f.is_regular_file() && Padded(f.path())) PadFile(f.path(), to, how);
        }
        inputs.push_back(to.string());
      }
      const BothWays r = AnalyzeBothWays(inputs, tmp);
      marked_blocks += r.decoded_with;
      all_blocks += r.decoded_without;
      EXPECT_EQ(r.with_marks, r.without);
      findings += r.with_marks.find('{') != std::string::npos;
      ++scenarios;
    }
  }
  EXPECT_GE(scenarios, 80u);
  // Most scenarios find something: the comparison is not between two empty
  // reports.
  EXPECT_GE(findings, scenarios * 3 / 4);
  // The padding blocks are skipped.
  EXPECT_LT(marked_blocks * 5, all_blocks * 3) << marked_blocks << " of " << all_blocks;
  RecordProperty("blocks_decoded",
                 std::to_string(marked_blocks) + " of " + std::to_string(all_blocks));
}

// Writes a log of glog lines, which carry no year: ingest takes it from the
// file's mtime, set here to 2026-11-30 12:00 UTC so that the lines' times
// do not depend on the day the test runs.
void WriteLogOf20261130(const std::string& path, const std::string& text) {
  test::WriteFile(path, text);
  const struct timeval times[2] = {{1796040000, 0}, {1796040000, 0}};
  ASSERT_EQ(utimes(path.c_str(), times), 0) << path;
}

// A Megascale digest whose header ends one block and whose body starts the
// next: the body's block holds no mark, and must still be read while the
// digest is open. Every line is of one thread, so no process mark brings
// the block in either.
TEST(LineMarksCorpus, DigestBodyInTheNextBlock) {
  test::TempDir tmp;
  const std::string dir = tmp.Join("bundle");
  const std::string host = "t1v-n-5c2e91aa-w-0";
  fs::create_directories(dir + "/logs/" + host);
  std::string log;
  // Short lines: the block closes at kMaxBlockLines, with the header last.
  // Their times are later than the digest's (a clock step), so the file's
  // latest time does not bring the next block in either.
  for (size_t i = 1; i < kMaxBlockLines; ++i) {
    log += "I1130 03:1" + std::to_string(i / 1000 % 10) + ":00.000000  5120 train.py:88] step " +
           std::to_string(i) + " ok\n";
  }
  const std::string worker = "t1v-n-5c2e91aa-w-3";
  const std::string stamp = "E1130 02:20:41.000100  5120 megascale_hang_handler.cc:214] ";
  log += stamp +
         "Megascale detects a hang that is likely caused by bad TPU chips on the following "
         "hosts.\n";
  log += stamp + "  The host that have bad TPUs are: " + worker + "\n";
  log += stamp + "  Full error digest:\n";
  log += stamp + "    Potential cause: Bad TPU chips\n";
  log += stamp + "    Potential culprit workers: jax_worker/3:" + worker + "\n";
  for (int i = 0; i < 20; ++i) log += "I1130 02:20:42.000000  5120 train.py:90] waiting\n";
  WriteLogOf20261130(dir + "/logs/" + host + "/worker.log", log);

  const BothWays r = AnalyzeBothWays({dir}, tmp);
  // The layout this test is about: the header ends the first block, and
  // the body's block has no mark and not the latest time.
  ASSERT_EQ(r.blocks.size(), 2u);
  EXPECT_EQ(r.blocks[1], std::to_string(kMaxBlockLines + 1) + ":0");
  EXPECT_EQ(r.with_marks, r.without);
  const std::string& with_marks = r.with_marks;
  // The culprit is named only in the body.
  EXPECT_NE(with_marks.find("hang.bad_chip"), std::string::npos) << with_marks;
  EXPECT_NE(with_marks.find(worker), std::string::npos) << with_marks;
}

// An unstamped failure at the start of a block takes its time from the
// stamped line just before it, in a block that holds no mark: the block is
// read because it lies within the estimate's reach of the row.
TEST(LineMarksCorpus, UnstampedFailureTakesATimeFromAnUnmarkedBlock) {
  test::TempDir tmp;
  const std::string dir = tmp.Join("bundle");
  fs::create_directories(dir + "/nodes/a100-n7");
  std::string log;
  auto stamped = [&](const std::string& clock, size_t n) {
    log += "I1130 " + clock + ".000000  5120 train.py:88] step " + std::to_string(n) + " ok\n";
  };
  // Block 1 (the process's first line, so marked): the latest times.
  for (size_t i = 1; i <= kMaxBlockLines; ++i) stamped("03:10:00", i);
  // Block 2 (no mark): earlier times, up to its last line.
  for (size_t i = 1; i <= kMaxBlockLines; ++i) stamped("02:20:" + std::to_string(10 + i / 100), i);
  // Block 3: the failure, without a time of its own.
  log += "Traceback (most recent call last):\n";
  log += "  File \"/opt/job/train.py\", line 212, in <module>\n";
  log += "    loss.backward()\n";
  log += "RuntimeError: CUDA error: an illegal memory access was encountered\n";
  WriteLogOf20261130(dir + "/nodes/a100-n7/train.log", log);

  const BothWays r = AnalyzeBothWays({dir}, tmp);
  ASSERT_EQ(r.blocks.size(), 3u);
  EXPECT_EQ(r.blocks[1], std::to_string(kMaxBlockLines + 1) + ":0");
  EXPECT_EQ(r.with_marks, r.without);
  const std::string& with_marks = r.with_marks;
  // The time of line 8192, the last of block 2.
  EXPECT_NE(with_marks.find("at about 2026-11-30 02:20:50 UTC"), std::string::npos) << with_marks;
}

// The host's OOM killer names a pid; which rank it was comes from the
// first line that carries that pid, alone in a block with nothing else a
// scan looks for.
TEST(LineMarksCorpus, KilledPidFoundInAnotherwiseUnmarkedBlock) {
  test::TempDir tmp;
  const std::string dir = tmp.Join("bundle");
  const std::string node = dir + "/nodes/gpu-node-9";
  fs::create_directories(node);
  std::string log;
  // Block 1: rank lines without a pid.
  for (size_t i = 1; i <= kMaxBlockLines; ++i)
    log += "[rank5]:step " + std::to_string(i) + " loss 2.25\n";
  // Block 2: the first line with the process's pid.
  log += "[rank5]:gpu-node-9:870777:870777 [1] NCCL INFO cudaDriverVersion 12040\n";
  for (size_t i = 1; i <= 100; ++i) log += "[rank5]:step " + std::to_string(i) + " loss 2.25\n";
  test::WriteFile(node + "/train.log", log);
  const std::string at = "[Mon Nov 30 02:20:35 2026] ";
  test::WriteFile(
      node + "/dmesg.txt",
      at +
          "pt_main_thread invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), "
          "order=0, oom_score_adj=0\n" +
          at +
          "oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0-1,"
          "global_oom,task_memcg=/user.slice,task=pt_main_thread,pid=870777,uid=1000\n" +
          at +
          "Out of memory: Killed process 870777 (pt_main_thread) total-vm:284630064kB, "
          "anon-rss:247830064kB, file-rss:116445kB, shmem-rss:3313kB, UID:1000 "
          "pgtables:1304368kB oom_score_adj:0\n");

  const BothWays r = AnalyzeBothWays({dir}, tmp);
  // dmesg.txt's block, then train.log's two: the pid's holds only that mark.
  ASSERT_EQ(r.blocks.size(), 3u);
  EXPECT_EQ(r.blocks[2], std::to_string(kMaxBlockLines + 1) + ":" + std::to_string(kMarkNewPid));
  EXPECT_EQ(r.with_marks, r.without);
  const std::string& with_marks = r.with_marks;
  EXPECT_NE(with_marks.find("runtime.oom_killed"), std::string::npos) << with_marks;
  EXPECT_NE(with_marks.find("\"rank\":5"), std::string::npos) << with_marks;
}

// A rule pack's signature alone in a block: found through its rule mark.
TEST(LineMarksCorpus, RuleHitInAnotherwiseUnmarkedBlock) {
  test::TempDir tmp;
  const std::string dir = tmp.Join("bundle");
  fs::create_directories(dir + "/nodes/gpu-node-4");
  std::string log;
  for (size_t i = 1; i <= kMaxBlockLines; ++i)
    log += "[rank2]:step " + std::to_string(i) + " loss 2.25\n";
  log += "[rank2]:OSError: [Errno 28] No space left on device: '/ckpt/step_4000/model.pt'\n";
  for (size_t i = 1; i <= 100; ++i) log += "[rank2]:waiting " + std::to_string(i) + "\n";
  test::WriteFile(dir + "/nodes/gpu-node-4/train.log", log);

  const BothWays r = AnalyzeBothWays({dir}, tmp);
  // The signature's block (the second) holds only that mark.
  ASSERT_EQ(r.blocks.size(), 2u);
  EXPECT_EQ(r.blocks[1], std::to_string(kMaxBlockLines + 1) + ":" + std::to_string(kMarkRuleHit));
  EXPECT_EQ(r.with_marks, r.without);
  const std::string& with_marks = r.with_marks;
  EXPECT_NE(with_marks.find("runtime.disk_full"), std::string::npos) << with_marks;
}

// With a rule pack added, the rule marks (made with the built-in packs
// alone) are not trusted: a line only the added pack matches, alone in a
// block with no mark, is still found.
TEST(LineMarksCorpus, AnAddedRulePackReadsTheBlocksItsMarksWouldSkip) {
  rules::AddRulePack(
      "{\"casefile_rules\": 1, \"name\": \"site-marks-test\", \"rules\": [{\"code\": "
      "\"site.marks_test\", \"severity\": \"warning\", \"title\": \"T\", \"recommendation\": "
      "\"R\", \"match\": {\"literal\": \"quarantine beacon lit\"}}]}",
      "site-marks-test.json");
  struct Remove {
    ~Remove() { rules::RemoveRulePack("site-marks-test"); }
  } remove;
  test::TempDir tmp;
  const std::string dir = tmp.Join("bundle");
  fs::create_directories(dir + "/nodes/gpu-node-6");
  std::string log;
  for (size_t i = 1; i <= kMaxBlockLines; ++i)
    log += "[rank1]:step " + std::to_string(i) + " loss 2.25\n";
  log += "[rank1]:quarantine beacon lit on the storage mount\n";
  for (size_t i = 1; i <= 100; ++i) log += "[rank1]:waiting " + std::to_string(i) + "\n";
  test::WriteFile(dir + "/nodes/gpu-node-6/train.log", log);
  const BothWays r = AnalyzeBothWays({dir}, tmp);
  ASSERT_EQ(r.blocks.size(), 2u);
  EXPECT_EQ(r.blocks[1], std::to_string(kMaxBlockLines + 1) + ":0");
  EXPECT_EQ(r.with_marks, r.without);
  EXPECT_NE(r.with_marks.find("site.marks_test"), std::string::npos) << r.with_marks;
}

void SetMeta(const std::string& path, const std::string& key, const std::string& value) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "UPDATE meta SET value = ?2 WHERE key = ?1", -1, &st, nullptr),
            SQLITE_OK);
  sqlite3_bind_text(st, 1, key.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st, 2, value.c_str(), -1, SQLITE_TRANSIENT);
  EXPECT_EQ(sqlite3_step(st), SQLITE_DONE);
  sqlite3_finalize(st);
  EXPECT_EQ(sqlite3_changes(db), 1) << key;
  sqlite3_close(db);
}

// Which marks an analysis trusts: all of them from the same casefile and
// the same tests; no rule hits with other rule packs; none from another
// casefile version or another version of the tests.
TEST(LineMarksCorpus, TrustedOnlyFromTheSameTestsAndVersion) {
  test::TempDir tmp;
  const std::string dir = tmp.Join("bundle");
  fs::create_directories(dir + "/nodes/n1");
  test::WriteFile(dir + "/nodes/n1/train.log", "[rank0]:step 1 loss 2.5\n");
  const std::string path = tmp.Join("index.casefile.db");
  {
    SessionOptions opts;
    opts.index_path = path;
    Session session({dir}, opts);
    session.Index(nullptr);
  }
  const std::string builtin = rules::RulesVersion(rules::BuiltinRulePacks());
  auto trusted = [&](const std::string& p, const std::string& rules_version) {
    return TrustedMarks(*IndexReader::Open(p), rules_version);
  };
  EXPECT_EQ(trusted(path, builtin), kAllMarks);
  EXPECT_EQ(trusted(path, builtin + "-and-an-added-pack"), kAllMarks & ~kMarkRuleHit);
  EXPECT_EQ(trusted(path, ""), kAllMarks & ~kMarkRuleHit);

  const std::string other_version = tmp.Join("other_version.casefile.db");
  fs::copy_file(path, other_version);
  SetMeta(other_version, "casefile_version", "0.0.1");
  EXPECT_EQ(trusted(other_version, builtin), 0u);

  const std::string other_tests = tmp.Join("other_tests.casefile.db");
  fs::copy_file(path, other_tests);
  SetMeta(other_tests, "line_marks", std::to_string(kLineMarksVersion + 1) + " " + builtin);
  EXPECT_EQ(trusted(other_tests, builtin), 0u);

  const std::string none = tmp.Join("none.casefile.db");
  fs::copy_file(path, none);
  DropMarksMeta(none);
  EXPECT_EQ(trusted(none, builtin), 0u);
}

}  // namespace
}  // namespace casefile
