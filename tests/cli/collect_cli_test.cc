// `casefile collect` and `casefile verify` run as a user runs them: the built
// binary in a child process, with stdout, stderr and the exit code checked.
// The collections skip the version commands and discovery (--no-versions,
// --no-discover) so they depend only on the files written here; one test
// runs a real command table to see the commands recorded.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "cli_spawn.h"
#include "test_util.h"

namespace {

namespace fs = std::filesystem;
using casefile::test::CliRun;
using casefile::test::ReadFile;
using casefile::test::RunCliInFixedEnv;
using casefile::test::TempDir;
using casefile::test::WriteFile;

const std::string kBinary = CASEFILE_BINARY_DIR "/bin/casefile";
const char kToken[] = "hf_Zq8XbT4mWn2RkP6yVd0LcJ9sHa3GfE1uQo";

bool Contains(const std::string& s, const std::string& needle) {
  return s.find(needle) != std::string::npos;
}

class CollectCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    src_ = dir_.Join("src");
    WriteFile(src_ + "/train.log",
              std::string("step 1 loss 2.31\nexport HF_TOKEN=") + kToken + "\nstep 2 loss 2.30\n");
    WriteFile(src_ + "/ds.json", "{\"train_batch_size\": 8}\n");
  }

  // Runs casefile with `args`; stdout and stderr go to files, stdin is
  // /dev/null. The environment is a fixed one, not the test's, so no
  // XLA_FLAGS or token of the machine running the tests leaks in; HF_TOKEN
  // is set to kToken, which the bundle must not hold.
  CliRun Cli(const std::vector<std::string>& args) {
    return RunCliInFixedEnv(kBinary, args, dir_, {std::string("HF_TOKEN=") + kToken}, "stdout.bin");
  }

  std::vector<std::string> Base(const std::string& out) {
    return {
        "collect",         "-o",     out,       "--logs",        src_ + "/train.log", "--config",
        src_ + "/ds.json", "--host", "clihost", "--no-versions", "--no-discover"};
  }

  TempDir dir_;
  std::string src_;
};

TEST_F(CollectCliTest, CollectThenVerify) {
  const std::string out = dir_.Join("b.tar.zst");
  std::vector<std::string> args = Base(out);
  args.insert(args.end(), {"--label", "job=cli", "--label=cluster=a3"});
  CliRun c = Cli(args);
  EXPECT_EQ(c.code, 0) << c.err;
  EXPECT_EQ(c.out, "");
  // 3 files: train.log, ds.json, env.txt; the HF_TOKEN in the log and in
  // the environment.
  EXPECT_TRUE(Contains(c.err, "casefile: wrote " + out + ": 3 files, ")) << c.err;
  EXPECT_TRUE(Contains(c.err, "2 redactions (hf_token 2)")) << c.err;
  EXPECT_FALSE(Contains(ReadFile(out), kToken));

  CliRun v = Cli({"verify", out});
  EXPECT_EQ(v.code, 0) << v.out << v.err;
  EXPECT_EQ(v.out, out + ": ok, 3 files\n");
  EXPECT_EQ(v.err, "");

  // The bundle is what analyze and files read.
  CliRun files = Cli({"files", out, "--format", "csv"});
  EXPECT_EQ(files.code, 0) << files.err;
  EXPECT_TRUE(Contains(files.out, "b.tar.zst,hosts/clihost/logs/train.log,log,clihost,,"))
      << files.out;
  EXPECT_TRUE(Contains(files.out, "b.tar.zst,hosts/clihost/configs/ds.json,config,clihost,,"))
      << files.out;
}

TEST_F(CollectCliTest, VerifyFailsWithExitThreeAndNamesTheProblem) {
  const std::string out = dir_.Join("b.tar.zst");
  ASSERT_EQ(Cli(Base(out)).code, 0);
  std::string bytes = ReadFile(out);
  WriteFile(dir_.Join("cut.tar.zst"), bytes.substr(0, bytes.size() / 2));
  CliRun v = Cli({"verify", out, dir_.Join("cut.tar.zst")});
  EXPECT_EQ(v.code, 3);
  EXPECT_TRUE(Contains(v.out, out + ": ok, 3 files\n")) << v.out;
  EXPECT_TRUE(Contains(v.out, dir_.Join("cut.tar.zst") + ": -: archive: ")) << v.out;
  EXPECT_TRUE(Contains(v.out, dir_.Join("cut.tar.zst") + ": FAILED, ")) << v.out;

  CliRun missing = Cli({"verify", dir_.Join("nope.tar.zst")});
  EXPECT_EQ(missing.code, 3);
  EXPECT_TRUE(Contains(missing.err, "casefile: ")) << missing.err;
  EXPECT_TRUE(Contains(missing.err, "nope.tar.zst")) << missing.err;
  CliRun usage = Cli({"verify"});
  EXPECT_EQ(usage.code, 2);
}

TEST_F(CollectCliTest, BundleToStdout) {
  std::vector<std::string> args = Base("-");
  CliRun c = Cli(args);
  EXPECT_EQ(c.code, 0) << c.err;
  EXPECT_TRUE(Contains(c.err, "casefile: wrote stdout: 3 files")) << c.err;
  WriteFile(dir_.Join("piped.tar.zst"), c.out);
  EXPECT_EQ(c.out.substr(0, 4), "\x28\xb5\x2f\xfd");
  CliRun v = Cli({"verify", dir_.Join("piped.tar.zst")});
  EXPECT_EQ(v.code, 0) << v.out;
}

TEST_F(CollectCliTest, DryRunListsAndWritesNothing) {
  const std::string out = dir_.Join("never.tar.zst");
  std::vector<std::string> args = Base(out);
  args.push_back("--dry-run");
  CliRun c = Cli(args);
  EXPECT_EQ(c.code, 0) << c.err;
  EXPECT_FALSE(fs::exists(out));
  EXPECT_TRUE(Contains(c.out, "action")) << c.out;
  // One row per file: action, size, redactions, kind, path, source.
  bool log_row = false;
  size_t start = 0;
  while (start < c.out.size()) {
    size_t nl = c.out.find('\n', start);
    std::string line = c.out.substr(start, nl - start);
    if (Contains(line, "hosts/clihost/logs/train.log")) {
      log_row = line.rfind("pack", 0) == 0 && Contains(line, " log ") &&
                Contains(line, src_ + "/train.log");
    }
    start = nl + 1;
  }
  EXPECT_TRUE(log_row) << c.out;
  EXPECT_TRUE(Contains(c.err, "casefile: dry run: would pack 3 files")) << c.err;
  EXPECT_FALSE(Contains(c.out, kToken));
}

TEST_F(CollectCliTest, SomethingNotCollectedIsAWarningAndExitThree) {
  const std::string out = dir_.Join("b.tar.zst");
  std::vector<std::string> args = Base(out);
  args.insert(args.end(), {"--logs", dir_.Join("missing.log")});
  CliRun c = Cli(args);
  EXPECT_EQ(c.code, 3);
  EXPECT_TRUE(Contains(c.err, "casefile: warning: " + dir_.Join("missing.log") + ": not found\n"))
      << c.err;
  EXPECT_TRUE(fs::exists(out)) << "the bundle is still written";
  EXPECT_EQ(Cli({"verify", out}).code, 0);
}

TEST_F(CollectCliTest, UsageErrors) {
  const std::string out = dir_.Join("b.tar.zst");
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  std::vector<Case> cases = {
      {{"collect", "--logs", src_}, "no output given"},
      {{"collect", "-o", out, "--since", "5 days"}, "--since '5 days' is not a duration"},
      {{"collect", "-o", out, "--timeout", "0"}, "--timeout must be more than 0"},
      {{"collect", "-o", out, "--no-redact", "--redact-hosts"}, "--no-redact cannot be combined"},
      {{"collect", "-o", out, "--label", "novalue"}, "--label 'novalue' is not KEY=VALUE"},
      {{"collect", "-o", out, "--zstd-level", "40"}, "--zstd-level must be 1..22"},
      {{"collect", "-o", out, "stray"}, "unexpected argument 'stray'"},
      {{"collect", "-o", out, "--logs"}, "option '--logs' needs a value"},
      {{"collect", "-o", out, "--max-bytes", "1.5G"}, "--max-bytes '1.5G' is not a whole number"},
  };
  for (const auto& c : cases) {
    CliRun r = Cli(c.args);
    EXPECT_EQ(r.code, 2) << c.message;
    EXPECT_TRUE(Contains(r.err, c.message)) << r.err;
    EXPECT_TRUE(Contains(r.err, "casefile collect --help")) << r.err;
  }
  WriteFile(dir_.Join("short.key"), "tiny\n");
  CliRun key = Cli({"collect", "-o", out, "--redact-key-file", dir_.Join("short.key")});
  EXPECT_EQ(key.code, 2);
  EXPECT_TRUE(Contains(key.err, "fewer than 16 bytes")) << key.err;
  EXPECT_FALSE(fs::exists(out));
}

TEST_F(CollectCliTest, MaxBytesAndSinceFromTheCommandLine) {
  std::string big;
  for (int i = 0; i < 4096; ++i)
    big += "line of a big log, number " + std::to_string(100000 + i) + "\n";
  WriteFile(src_ + "/big/big.log", big);
  const std::string out = dir_.Join("b.tar.zst");
  CliRun c = Cli({"collect", "-o", out, "--logs", src_ + "/big", "--host", "h", "--no-versions",
                  "--no-discover", "--max-bytes", "64K", "--since", "1h"});
  EXPECT_EQ(c.code, 0) << c.err;
  CliRun v = Cli({"verify", out});
  EXPECT_EQ(v.code, 0) << v.out;
  CliRun files = Cli({"files", out, "--format", "csv"});
  // 64 KiB = 65,536 in all. env.txt keeps HF_TOKEN (redacted: 9 + 28 + 1
  // bytes) and PATH (19 bytes): 57. big.log, 4,096 lines of 33 bytes =
  // 135,168, keeps at most 65,479: the cut at 69,689 moves to the next line
  // start, 2,112 * 33 = 69,696, leaving 65,472 bytes in 1,984 lines.
  EXPECT_TRUE(Contains(files.out, "b.tar.zst,hosts/h/logs/big/big.log,log,h,,65472,1984\n"))
      << files.out;
  EXPECT_TRUE(Contains(files.out, "b.tar.zst,hosts/h/env/env.txt,config,h,,57,2\n")) << files.out;
}

TEST_F(CollectCliTest, HelpDescribesBothCommands) {
  CliRun c = Cli({"collect", "--help"});
  EXPECT_EQ(c.code, 0);
  for (const char* flag :
       {"--logs", "--hlo-dump", "--traces", "--config", "--label", "--since", "--max-bytes",
        "--no-versions", "--no-redact", "--dry-run", "--redact-hosts", "--redact-key-file",
        "--deterministic", "--job-cmdline", "--tensorboard-dir", "--timeout"}) {
    EXPECT_TRUE(Contains(c.out, flag)) << flag;
  }
  CliRun v = Cli({"verify", "--help"});
  EXPECT_EQ(v.code, 0);
  EXPECT_TRUE(Contains(v.out, "Usage: casefile verify BUNDLE..."));
  CliRun main = Cli({"--help"});
  EXPECT_TRUE(Contains(main.out, "\n  collect ")) << main.out;
  EXPECT_TRUE(Contains(main.out, "\n  verify ")) << main.out;
}

TEST_F(CollectCliTest, TheVersionCommandsAreRunAndRecorded) {
  const std::string out = dir_.Join("b.tar.zst");
  CliRun c = Cli({"collect", "-o", out, "--host", "h", "--no-discover", "--timeout", "15s"});
  // A command may time out on a loaded machine: 0 or 3, never a failure.
  EXPECT_TRUE(c.code == 0 || c.code == 3) << c.err;
  CliRun files = Cli({"files", out, "--format", "csv"});
  EXPECT_TRUE(Contains(files.out, "hosts/h/sysinfo/uname.txt,sysinfo,h,,")) << files.out;
  EXPECT_TRUE(Contains(files.out, "hosts/h/sysinfo/df.txt,sysinfo,h,,")) << files.out;
  CliRun q =
      Cli({"query", out, "--format", "csv",
           "SELECT count(*) FROM lines l JOIN files f ON f.id = l.file_id "
           "WHERE f.path = 'casefile.json' AND l.text LIKE '%\"name\":\"nvidia_smi_query\"%'"});
  EXPECT_EQ(q.code, 0) << q.err;
  EXPECT_TRUE(Contains(q.out, "\n1\n")) << q.out;
}

}  // namespace
