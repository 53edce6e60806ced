// `casefile index` killed with SIGKILL at many points of its run (startup,
// reading, the final commit, after the rename), and several processes
// indexing the same inputs into the same index at once. After every kill the
// index path holds nothing or a complete index of the inputs, never a part
// of one; the next run succeeds; the temporaries of killed runs do not pile
// up. The CLI is run as a child process (the binary of the casefile target).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "common/error.h"
#include "engine/session.h"
#include "index/index_reader.h"
#include "test_util.h"

namespace casefile {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

const std::string kBinary = CASEFILE_BINARY_DIR "/bin/casefile";

// A bundle of glog-style training logs, big enough that indexing takes
// about a second: `files` logs of `lines_per_file` lines each. The text
// varies line by line (step, loss, rank) so that it neither compresses to
// nothing nor parses faster than real logs.
struct BigBundle {
  std::string root;
  int64_t lines = 0;
  int64_t files = 0;
};

BigBundle MakeBigBundle(const test::TempDir& dir, int files, int lines_per_file) {
  BigBundle b;
  b.root = dir.Join("bundle");
  for (int f = 0; f < files; ++f) {
    std::string text;
    text.reserve(static_cast<size_t>(lines_per_file) * 110);
    char line[256];
    for (int i = 0; i < lines_per_file; ++i) {
      const int sec = i / 1000 % 60;
      std::snprintf(line, sizeof line,
                    "I1129 09:%02d:%02d.%06d  %d train.py:%d] [rank%d]: step %d loss %.5f "
                    "grad_norm %.3f tokens/s %d\n",
                    20 + i / 60000 % 40, sec, i % 1000000, 4000 + f, 100 + i % 7, f, i,
                    2.0 + (i % 977) / 1000.0, 0.5 + (i % 313) / 100.0, 90000 + i % 5003);
      text += line;
    }
    test::WriteFile(b.root + "/logs/host-" + std::to_string(f) + "/worker.log", text);
    b.lines += lines_per_file;
    ++b.files;
  }
  return b;
}

std::vector<std::string> ChildEnv(const test::TempDir& dir) {
  return {"PATH=/usr/bin:/bin", "HOME=" + dir.path(), "CASEFILE_CACHE_DIR=" + dir.Join("cache")};
}

// Starts `casefile ARGS...` with stdout and stderr in files of `dir`;
// returns its pid (the test fails and -1 comes back when it cannot start).
pid_t Start(const test::TempDir& dir, const std::vector<std::string>& args, int n) {
  std::vector<std::string> argv_s = {kBinary};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_s = ChildEnv(dir);
  std::vector<char*> envp;
  for (auto& e : env_s) envp.push_back(e.data());
  envp.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  const std::string out = dir.Join("out-" + std::to_string(n) + ".txt");
  const std::string err = dir.Join("err-" + std::to_string(n) + ".txt");
  posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = -1;
  int rc = posix_spawn(&pid, kBinary.c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    ADD_FAILURE() << "cannot start " << kBinary << ": " << std::strerror(rc);
    return -1;
  }
  return pid;
}

// The exit code, or 128 + the signal that ended it.
int Wait(pid_t pid) {
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

std::string Stderr(const test::TempDir& dir, int n) {
  return test::ReadFile(dir.Join("err-" + std::to_string(n) + ".txt"));
}

std::vector<std::string> Temporaries(const std::string& index_path) {
  std::vector<std::string> out;
  const std::string prefix = fs::path(index_path).filename().string() + ".tmp-";
  for (const auto& e : fs::directory_iterator(fs::path(index_path).parent_path())) {
    const std::string name = e.path().filename().string();
    if (name.rfind(prefix, 0) == 0) out.push_back(e.path().string());
  }
  return out;
}

// PRAGMA user_version as stored in the file's header (bytes 60-63, big
// endian): set by the writer just before its final COMMIT, so a temporary
// whose header has it was killed between that commit and the rename.
int64_t HeaderUserVersion(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string head(100, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  if (in.gcount() < 64) return -1;
  int64_t v = 0;
  for (int i = 60; i < 64; ++i) v = (v << 8) | static_cast<unsigned char>(head[i]);
  return v;
}

// The file's inode, 0 when it does not exist: a new inode at the index path
// means a rename happened.
ino_t Inode(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 ? st.st_ino : 0;
}

int64_t QueryInt(const IndexReader& r, const std::string& sql) {
  int64_t v = -1;
  r.Query(sql, [&](const QueryRow& row) {
    v = row.values.at(0) ? std::stoll(*row.values.at(0)) : -1;
    return false;
  });
  return v;
}

// Opens the index at `path` and checks it is whole: this schema, every
// line of every file (decoded from its blocks), the writer's meta, and a
// clean quick_check. Returns a failure message, or "" when complete.
std::string CheckComplete(const std::string& path, const BigBundle& b) {
  std::unique_ptr<IndexReader> r;
  try {
    r = IndexReader::Open(path);
  } catch (const Error& e) {
    return std::string("the index does not open: ") + e.what();
  }
  std::string quick;
  r->Query("PRAGMA quick_check", [&](const QueryRow& row) {
    quick = row.values.at(0).value_or("NULL");
    return false;
  });
  if (quick != "ok") return "quick_check: " + quick;
  if (r->Meta("input_lines") != std::to_string(b.lines)) {
    return "meta input_lines is '" + r->Meta("input_lines") + "'";
  }
  if (r->Meta("inputs_identity").empty()) return "no inputs_identity";
  if (QueryInt(*r, "SELECT count(*) FROM files WHERE entry_type = 'file'") != b.files) {
    return "files table incomplete";
  }
  if (QueryInt(*r, "SELECT sum(line_count) FROM files") != b.lines) return "line counts differ";
  const int64_t stored = QueryInt(*r, "SELECT count(*) FROM lines");
  if (stored != b.lines) return "the lines table holds " + std::to_string(stored) + " lines";
  return "";
}

// An index the library itself judges complete and current: a session over
// the same inputs reuses it instead of building.
bool ReusedBySession(const std::string& path, const BigBundle& b) {
  SessionOptions opts;
  opts.index_path = path;
  Session s({b.root}, opts);
  return s.Index(nullptr).reused;
}

// Lines per log of the test bundle (6 logs).
constexpr int kLinesPerLog = 25000;

class IndexKillTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(fs::exists(kBinary))
        << kBinary << " is not built (cmake --build ... --target casefile)";
    // About 16 MB of logs: indexing takes about 0.7 s here, time enough for
    // kills to land in every phase (the test measures a run first).
    bundle_ = MakeBigBundle(dir_, 6, kLinesPerLog);
    fs::create_directories(dir_.Join("idx"));
  }

  test::TempDir dir_;
  BigBundle bundle_;
  std::string index_ = dir_.Join("idx/run.db");
};

TEST_F(IndexKillTest, KilledAnywhereNeverLeavesAPartialIndex) {
  // One full run first: it must succeed. Then two warm `--reindex` runs
  // measure how long a run takes, so that the kills can be spread over the
  // whole of one. The fastest of the three is the measure: the first run is
  // slower (cold page cache, binary loading) and a kill timed by it lands
  // after a warm run has already finished.
  pid_t first = Start(dir_, {"index", "--index", index_, bundle_.root}, 0);
  ASSERT_EQ(Wait(first), 0) << Stderr(dir_, 0);
  ASSERT_EQ(CheckComplete(index_, bundle_), "");
  double full_ms = 1e9;
  for (int i = 0; i < 2; ++i) {
    const auto t0 = Clock::now();
    pid_t warm = Start(dir_, {"index", "--reindex", "--index", index_, bundle_.root}, 0);
    ASSERT_EQ(Wait(warm), 0) << Stderr(dir_, 0);
    full_ms =
        std::min(full_ms, std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  ASSERT_EQ(CheckComplete(index_, bundle_), "");
  fs::remove(index_);

  std::map<std::string, int> phases;
  int completed_runs = 0;
  // Kills the k-th run `at_ms` after its start, checks what it left, and
  // every fourth kill checks that the next run succeeds.
  auto kill_at = [&](int k, double at_ms) {
    const bool had_index = fs::exists(index_);
    const ino_t old_inode = Inode(index_);
    pid_t pid = Start(dir_, {"index", "--reindex", "--index", index_, bundle_.root}, 1);
    ASSERT_GT(pid, 0);
    std::this_thread::sleep_for(std::chrono::microseconds(static_cast<int64_t>(at_ms * 1000)));
    kill(pid, SIGKILL);
    const int code = Wait(pid);

    // Where the kill landed, read from what it left (frozen now).
    const std::vector<std::string> temps = Temporaries(index_);
    std::string phase;
    if (code == 0) {
      phase = "finished before the kill";
    } else if (!temps.empty() && HeaderUserVersion(temps.back()) == kIndexSchemaVersion) {
      phase = "committed, before the rename";
    } else if (!temps.empty()) {
      phase = "reading or committing";
    } else if (fs::exists(index_) && Inode(index_) != old_inode) {
      phase = "after the rename";
    } else {
      phase = "startup, before the build file";
    }
    ++phases[phase];
    SCOPED_TRACE("kill " + std::to_string(k) + " at " + std::to_string(static_cast<int>(at_ms)) +
                 " ms: " + phase);

    // The index path holds nothing or a whole index: never a part of one.
    if (fs::exists(index_)) {
      EXPECT_EQ(CheckComplete(index_, bundle_), "");
    } else {
      EXPECT_FALSE(had_index) << "the kill removed the earlier index";
    }
    // Each run removes the temporaries of dead runs before it makes its
    // own: at most the one of the run just killed is left.
    EXPECT_LE(temps.size(), 1u);

    if (k % 4 == 3) {
      // The next run after a kill succeeds, building or reusing a whole
      // index, and leaves no temporary behind.
      pid_t next = Start(dir_, {"index", "--index", index_, bundle_.root}, 2);
      EXPECT_EQ(Wait(next), 0) << Stderr(dir_, 2);
      EXPECT_EQ(CheckComplete(index_, bundle_), "");
      EXPECT_TRUE(Temporaries(index_).empty());
      ++completed_runs;
    }
  };

  std::mt19937 rng(20240611);  // fixed: the same kill points on every run
  std::uniform_real_distribution<double> anywhere(0.0, 1.05);
  std::uniform_real_distribution<double> near_end(0.80, 1.02);
  std::uniform_real_distribution<double> mid_run(0.10, 0.70);
  constexpr int kKills = 24;
  for (int k = 0; k < kKills; ++k) {
    // The first three land in startup (before the temporary file exists,
    // or just as it is made), the rest anywhere in a run (even k) or in
    // its last fifth (odd k), where the commit, the fsync and the rename are.
    kill_at(k, k < 3 ? 2.0 * k : (k % 2 == 0 ? anywhere(rng) : near_end(rng)) * full_ms);
  }
  // Timing is the machine's: where fewer than four kills landed mid-run
  // (a loaded or a much faster machine), more are made inside the run's
  // middle until four have, at most 24 more.
  int extra = 0;
  for (; phases["reading or committing"] < 4 && extra < 24; ++extra) {
    kill_at(kKills + extra, mid_run(rng) * full_ms);
  }
  // The library judges what is left complete and current.
  EXPECT_TRUE(ReusedBySession(index_, bundle_));
  EXPECT_TRUE(Temporaries(index_).empty());
  EXPECT_EQ(completed_runs, (kKills + extra) / 4);

  std::string summary;
  for (const auto& [phase, n] : phases) summary += "  " + phase + ": " + std::to_string(n) + "\n";
  std::printf("warm run %.0f ms; %d kills:\n%s", full_ms, kKills + extra, summary.c_str());
  // The kills reached the reading and the end of a run, not only startup.
  EXPECT_GE(phases["reading or committing"], 4) << summary;
}

// Runs `n` processes indexing the same inputs into the same index at once.
void RunAtOnce(const test::TempDir& dir, const BigBundle& b, const std::string& index, int n,
               bool reindex) {
  std::vector<pid_t> pids;
  for (int i = 0; i < n; ++i) {
    std::vector<std::string> args = {"index", "--index", index, b.root};
    if (reindex) args.insert(args.begin() + 1, "--reindex");
    pids.push_back(Start(dir, args, 10 + i));
  }
  for (int i = 0; i < n; ++i) {
    ASSERT_GT(pids[i], 0);
    EXPECT_EQ(Wait(pids[i]), 0) << "process " << i << ": " << Stderr(dir, 10 + i);
  }
}

TEST_F(IndexKillTest, ConcurrentWritersEndWithOneIndex) {
  for (int n : {2, 4}) {
    for (bool reindex : {false, true}) {
      SCOPED_TRACE(std::to_string(n) + " processes" + (reindex ? " with --reindex" : ""));
      if (!reindex) fs::remove(index_);
      RunAtOnce(dir_, bundle_, index_, n, reindex);
      EXPECT_EQ(CheckComplete(index_, bundle_), "");
      EXPECT_TRUE(Temporaries(index_).empty());
      std::vector<std::string> entries;
      for (const auto& e : fs::directory_iterator(dir_.Join("idx"))) {
        entries.push_back(e.path().filename().string());
      }
      EXPECT_EQ(entries, std::vector<std::string>{"run.db"});
    }
  }
  EXPECT_TRUE(ReusedBySession(index_, bundle_));
}

TEST_F(IndexKillTest, ReaderKeepsTheIndexItOpenedAcrossARename) {
  pid_t first = Start(dir_, {"index", "--index", index_, bundle_.root}, 0);
  ASSERT_EQ(Wait(first), 0) << Stderr(dir_, 0);
  struct stat before {};
  ASSERT_EQ(stat(index_.c_str(), &before), 0);
  auto reader = IndexReader::Open(index_);
  // Both of the reader's connections (its own and the query one) open now.
  ASSERT_EQ(QueryInt(*reader, "SELECT count(*) FROM files WHERE entry_type = 'file'"),
            bundle_.files);
  const int64_t first_file =
      QueryInt(*reader, "SELECT min(id) FROM files WHERE entry_type = 'file'");
  const int64_t last_file =
      QueryInt(*reader, "SELECT max(id) FROM files WHERE entry_type = 'file'");
  const std::optional<std::string> first_line = reader->LineText(first_file, 1);
  ASSERT_TRUE(first_line.has_value());

  // Two writers replace the file while the reader holds it.
  RunAtOnce(dir_, bundle_, index_, 2, true);
  struct stat after {};
  ASSERT_EQ(stat(index_.c_str(), &after), 0);
  EXPECT_NE(before.st_ino, after.st_ino) << "the index was not replaced";

  // The reader still reads its file, every line of it.
  EXPECT_EQ(QueryInt(*reader, "SELECT count(*) FROM lines"), bundle_.lines);
  EXPECT_EQ(reader->LineText(first_file, 1), first_line);
  EXPECT_TRUE(reader->LineText(last_file, kLinesPerLog).has_value());
  EXPECT_FALSE(reader->LineText(last_file, 70001).has_value());
  EXPECT_EQ(CheckComplete(index_, bundle_), "");
}

}  // namespace
}  // namespace casefile
