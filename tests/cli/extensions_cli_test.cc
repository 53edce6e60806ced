// --plugin, --rules and CASEFILE_PLUGIN_PATH, run as a user runs them: the
// built casefile binary in a child process with the example plugin of
// tests/plugins (its analyzer "example-disk" reports "No space left on
// device" lines as example.disk_full) and a plugin built against the next
// ABI major, which must be refused.
//
// The bundle is the corpus scenario comm_rendezvous_failed: node-0's
// container fails with "No space left on device" at line 8 of
// nodes/node-0/train.log (corpus/README.md), so the plugin has one host to
// name there and nothing on node-1 or node-2.
#include <gtest/gtest.h>

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
const std::string kPluginDir = CASEFILE_BINARY_DIR "/tests/plugins/good";
const std::string kExamplePlugin = kPluginDir + "/example_plugin.so";
const std::string kNewerAbiPlugin =
    CASEFILE_BINARY_DIR "/tests/plugins/refused/refused_newer_abi.so";
const std::string kBundle = CASEFILE_SOURCE_DIR "/corpus/comm_rendezvous_failed/bundle";

// The line the plugin must cite, as corpus/comm_rendezvous_failed holds it.
const std::string kEvidencePath = "nodes/node-0/train.log";
const std::string kEvidenceText = "slurmstepd: error: pyxis:     [ERROR] No space left on device";

bool Contains(const std::string& s, const std::string& needle) {
  return s.find(needle) != std::string::npos;
}

size_t CountOf(const std::string& s, const std::string& needle) {
  size_t n = 0;
  for (size_t at = s.find(needle); at != std::string::npos; at = s.find(needle, at + 1)) ++n;
  return n;
}

// The line of `text` that starts with `prefix`, or "".
std::string LineStartingWith(const std::string& text, const std::string& prefix) {
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    if (text.compare(at, prefix.size(), prefix) == 0) return text.substr(at, end - at);
    at = end + 1;
  }
  return "";
}

class ExtensionsCliTest : public ::testing::Test {
 protected:
  // Runs casefile with `args` in a fixed environment (plus `extra_env`),
  // stdin /dev/null, stdout and stderr captured through files.
  CliRun Cli(const std::vector<std::string>& args, const std::vector<std::string>& extra_env = {}) {
    return RunCliInFixedEnv(kBinary, args, dir_, extra_env);
  }

  TempDir dir_;
};

// The finding in the text report: its header, culprit, and the cited line.
void ExpectTextFinding(const CliRun& r) {
  EXPECT_TRUE(Contains(r.out, "[error] example.disk_full  Disk full on node-0\n")) << r.out;
  EXPECT_TRUE(Contains(r.out, "  1 log line(s) on node-0 say \"No space left on device\".\n"))
      << r.out;
  EXPECT_TRUE(Contains(r.out, "    - host node-0\n")) << r.out;
  EXPECT_TRUE(Contains(r.out, "    " + kEvidencePath + ":8\n      " + kEvidenceText + "\n"))
      << r.out;
  EXPECT_TRUE(Contains(r.out, "  example-disk: ran (1 findings)\n")) << r.out;
}

TEST_F(ExtensionsCliTest, PluginFindingInTextReport) {
  // The flag after the bundle, in its two-word form.
  CliRun r = Cli({"analyze", kBundle, "--plugin", kExamplePlugin});
  EXPECT_EQ(r.code, 1) << r.err;  // an error finding fails the default --fail-on error
  EXPECT_EQ(r.err, "");
  ExpectTextFinding(r);
  // The corpus scenario's own finding is still there.
  EXPECT_TRUE(Contains(r.out, "comm.rendezvous_failed")) << r.out;
}

TEST_F(ExtensionsCliTest, PluginFindingInJsonReport) {
  // The flag before the bundle, in its "=" form.
  CliRun r = Cli({"analyze", "--plugin=" + kExamplePlugin, "--format", "json", kBundle});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_TRUE(Contains(r.out, "\"code\": \"example.disk_full\"")) << r.out;
  EXPECT_TRUE(Contains(r.out, "\"analyzer\": \"example-disk\"")) << r.out;
  EXPECT_TRUE(Contains(r.out, "\"title\": \"Disk full on node-0\"")) << r.out;
  EXPECT_TRUE(Contains(r.out, "\"path\": \"" + kEvidencePath + "\"")) << r.out;
  EXPECT_TRUE(Contains(r.out, "\"text\": \"" + kEvidenceText + "\"")) << r.out;
  EXPECT_TRUE(Contains(r.out, "\"name\": \"example-disk\"")) << r.out;
}

TEST_F(ExtensionsCliTest, PluginPathVariableLoadsTheDirectory) {
  const std::vector<std::string> env = {"CASEFILE_PLUGIN_PATH=" + kPluginDir};
  CliRun r = Cli({"analyze", kBundle}, env);
  EXPECT_EQ(r.code, 1) << r.err;
  ExpectTextFinding(r);
  // Also named by the variable and by --plugin: loaded once, one finding.
  r = Cli({"analyze", "--format", "json", kBundle, "--plugin", kExamplePlugin}, env);
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_EQ(CountOf(r.out, "\"code\": \"example.disk_full\""), 1u) << r.out;
}

TEST_F(ExtensionsCliTest, WithoutPluginNoFinding) {
  CliRun r = Cli({"analyze", "--format", "json", kBundle});
  EXPECT_FALSE(Contains(r.out, "example.disk_full")) << r.out;
  EXPECT_FALSE(Contains(r.out, "example-disk")) << r.out;
}

TEST_F(ExtensionsCliTest, AnalyzersSaysWhereEachComesFrom) {
  CliRun plain = Cli({"analyzers"});
  ASSERT_EQ(plain.code, 0) << plain.err;
  CliRun r = Cli({"analyzers", "--plugin", kExamplePlugin});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string line = LineStartingWith(r.out, "example-disk ");
  EXPECT_TRUE(Contains(line, "hosts whose disk filled up")) << r.out;
  EXPECT_TRUE(Contains(line, "(from plugin " + kExamplePlugin + ")")) << r.out;
  // The plugin's line is the last; the library's own lines keep their
  // shape (only padded to the longer name) and name no origin.
  EXPECT_TRUE(r.out.size() > line.size() &&
              r.out.compare(r.out.size() - line.size() - 1, line.size(), line) == 0)
      << r.out;
  EXPECT_EQ(CountOf(r.out, "(from "), 1u) << r.out;
  EXPECT_EQ(CountOf(r.out, "\n"), CountOf(plain.out, "\n") + 1);
  EXPECT_TRUE(Contains(LineStartingWith(r.out, "hang "), "Hangs")) << r.out;

  r = Cli({"analyzers"}, {"CASEFILE_PLUGIN_PATH=" + kPluginDir});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(Contains(LineStartingWith(r.out, "example-disk "), "(from CASEFILE_PLUGIN_PATH)"))
      << r.out;
}

TEST_F(ExtensionsCliTest, RefusedPluginIsAUsageErrorWithTheReason) {
  CliRun r = Cli({"analyze", kBundle, "--plugin", kNewerAbiPlugin});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "casefile: plugin " + kNewerAbiPlugin +
                       " was built against casefile ABI 1 (casefile.h 1.x); this library is ABI "
                       "0: rebuild the plugin\n");
  // The same through the variable, for a command that reads no bundle.
  r = Cli({"analyzers"}, {"CASEFILE_PLUGIN_PATH=" + kNewerAbiPlugin});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(Contains(r.err, "casefile ABI 1")) << r.err;
}

TEST_F(ExtensionsCliTest, MissingPluginOrValue) {
  const std::string missing = dir_.Join("nowhere/disk.so");
  CliRun r = Cli({"analyze", kBundle, "--plugin", missing});
  EXPECT_EQ(r.code, 3);
  EXPECT_TRUE(Contains(r.err, missing)) << r.err;
  r = Cli({"analyzers"}, {"CASEFILE_PLUGIN_PATH=" + dir_.Join("nowhere")});
  EXPECT_EQ(r.code, 3);
  EXPECT_TRUE(Contains(r.err, dir_.Join("nowhere"))) << r.err;

  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"analyze", kBundle, "--plugin"},
        std::vector<std::string>{"analyze", "--plugin=", kBundle},
        std::vector<std::string>{"analyze", "--plugin", "--format", "json", kBundle},
        std::vector<std::string>{"analyzers", "--rules"}}) {
    r = Cli(args);
    EXPECT_EQ(r.code, 2) << args.back();
    EXPECT_EQ(r.out, "");
    EXPECT_TRUE(Contains(r.err, "needs a file path")) << r.err;
  }
  // A lookalike flag is the command's to judge, not a plugin.
  r = Cli({"analyzers", "--plugins", kExamplePlugin});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(Contains(r.err, "--plugins")) << r.err;
}

TEST_F(ExtensionsCliTest, HelpSkipsExtensionFlags) {
  // The flags change no help text: skipped (not loaded, so a missing file
  // is no error), and the topic is the command after them.
  const std::string missing = dir_.Join("nowhere/site.json");
  CliRun r = Cli({"--rules", missing, "help", "analyze"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out.rfind("Usage: casefile analyze BUNDLE...", 0), 0u) << r.out;
  r = Cli({"--plugin=" + kExamplePlugin, "help", "--rules", missing, "query"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("Usage: casefile query BUNDLE...", 0), 0u) << r.out;
  // Without a topic: the main help.
  r = Cli({"--plugin", kExamplePlugin, "help"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("Usage: casefile COMMAND", 0), 0u) << r.out;
  // An unknown topic is still named.
  r = Cli({"--rules", missing, "help", "analyse"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err.rfind("casefile: unknown command 'analyse'", 0), 0u) << r.err;
}

TEST_F(ExtensionsCliTest, FlagBeforeTheCommandWithoutItsValue) {
  // "casefile --plugin analyze DIR": the path was forgotten; "analyze" is
  // not taken for it (which would make DIR the command).
  CliRun r = Cli({"--plugin", "analyze", kBundle});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_TRUE(Contains(r.err, "--plugin needs a file path")) << r.err;
  EXPECT_TRUE(Contains(r.err, "\"analyze\" is a command")) << r.err;
  r = Cli({"--rules", "help"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(Contains(r.err, "--rules needs a file path")) << r.err;
  // A following flag is a missing value too, as after the command.
  r = Cli({"--plugin", "--rules", dir_.Join("site.json"), "analyzers"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(Contains(r.err, "--plugin needs a file path")) << r.err;
  r = Cli({"--rules"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(Contains(r.err, "--rules needs a file path")) << r.err;
  // A path that merely starts like a command is a path.
  r = Cli({"--plugin", dir_.Join("analyze"), "analyzers"});
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_TRUE(Contains(r.err, dir_.Join("analyze"))) << r.err;
  // The flag before the command still works.
  r = Cli({"--plugin", kExamplePlugin, "analyzers"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(Contains(r.out, "example-disk")) << r.out;
}

TEST_F(ExtensionsCliTest, NoFlagsAfterTheEndOfOptions) {
  // After "--" every argument is the command's: SQL may start with a
  // comment that looks like a flag.
  const std::string index = dir_.Join("q.db");
  CliRun r = Cli({"query", "--index", index, "--format", "csv", kBundle, "--",
                  "--rules=site.json\nSELECT 42 AS answer"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out, "answer\n42\n");
  r = Cli({"query", "--index", index, "--format", "csv", "--plugin", kExamplePlugin, kBundle, "--",
           "--plugin\nSELECT 7 AS seven"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "seven\n7\n");
  // A flag before "--" is still taken, and its value is checked.
  r = Cli({"query", "--index", index, kBundle, "--rules", "--", "SELECT 1"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(Contains(r.err, "--rules needs a file path")) << r.err;
}

TEST_F(ExtensionsCliTest, DiffTakesFlagsOnBothSides) {
  // A good run without the disk problem: the finding is new in the bad run.
  const std::string good = dir_.Join("good");
  WriteFile(good + "/nodes/node-0/train.log",
            "[default0]:step 10 loss 2.31\n[default0]:step 11 loss 2.29\n");
  CliRun r = Cli({"diff", good, "--plugin", kExamplePlugin, "--", kBundle,
                  "--plugin=" + kExamplePlugin, "--format", "json"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_TRUE(Contains(r.out, "example.disk_full")) << r.out;
}

}  // namespace
