// `casefile rules list|check` and `--rules FILE`, run as a user runs them:
// the built binary in a child process; stdout, stderr and the exit code are
// checked against what the packs written here must give.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli_spawn.h"
#include "test_util.h"

namespace {

using casefile::test::CliRun;
using casefile::test::ReadFile;
using casefile::test::RunCliInFixedEnv;
using casefile::test::TempDir;
using casefile::test::WriteFile;

const std::string kBinary = CASEFILE_BINARY_DIR "/bin/casefile";

bool Contains(const std::string& s, const std::string& needle) {
  return s.find(needle) != std::string::npos;
}

// A valid site pack; line 5 holds the rule's code.
const char kSitePack[] =
    "{\n"
    "  \"casefile_rules\": 1,\n"
    "  \"name\": \"site\",\n"
    "  \"rules\": [{\n"
    "    \"code\": \"site.shard_unreadable\", \"severity\": \"warning\",\n"
    "    \"title\": \"A dataset shard could not be read\", \"recommendation\": \"Re-upload it.\",\n"
    "    \"match\": {\"regex\": \"shard (?<shard>[0-9]+) unreadable\"},\n"
    "    \"summary\": \"shard {shard} unreadable ({count} lines)\"\n"
    "  }]\n"
    "}\n";

// Three errors: an unknown key on line 5 (column 5), a severity on line 6
// (column 17), a regex without a 3-byte literal on line 7 (column 24).
const char kBadPack[] =
    "{\n"
    "  \"casefile_rules\": 1,\n"
    "  \"name\": \"bad\",\n"
    "  \"rules\": [{\"code\": \"bad.one\", \"title\": \"T\", \"recommendation\": \"R\",\n"
    "    \"sevrity\": \"error\",\n"
    "    \"severity\": \"fatal\",\n"
    "    \"match\": {\"regex\": \"[0-9]+\"}\n"
    "  }]\n"
    "}\n";

class RulesCliTest : public ::testing::Test {
 protected:
  CliRun Cli(const std::vector<std::string>& args) { return RunCliInFixedEnv(kBinary, args, dir_); }

  TempDir dir_;
};

TEST_F(RulesCliTest, ListShowsTheBuiltinPack) {
  const CliRun r = Cli({"rules", "list"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(Contains(r.out, "builtin-runtime (built-in, 3 rules)")) << r.out;
  EXPECT_TRUE(Contains(r.out, "runtime.disk_full")) << r.out;
  EXPECT_TRUE(Contains(r.out, "runtime.too_many_open_files")) << r.out;
  EXPECT_TRUE(Contains(r.out, "runtime.dataloader_killed")) << r.out;
  const CliRun j = Cli({"rules", "list", "--format", "json"});
  EXPECT_EQ(j.code, 0) << j.err;
  EXPECT_TRUE(Contains(j.out, "\"name\": \"builtin-runtime\"")) << j.out;
  EXPECT_TRUE(Contains(j.out, "\"builtin\": true")) << j.out;
}

TEST_F(RulesCliTest, CheckValidAndInvalidPacks) {
  const std::string good = dir_.Join("site.json");
  const std::string bad = dir_.Join("bad.json");
  WriteFile(good, kSitePack);
  WriteFile(bad, kBadPack);
  CliRun r = Cli({"rules", "check", good});
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_EQ(r.out, good + ": valid\n");
  r = Cli({"rules", "check", bad, good});
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_EQ(r.out, bad +
                       ":5:5: unknown key \"sevrity\" in a rule (known: code, severity, title, "
                       "summary, recommendation, kinds, match, captures, min_count, min_hosts, "
                       "absent_if, max_evidence)\n" +
                       bad + ":6:17: \"severity\" is \"error\", \"warning\" or \"info\"\n" + bad +
                       ":7:24: regex has no literal of at least 3 bytes that every match "
                       "contains, so it would run on every line; add \"anchor\": \"<text every "
                       "matching line holds>\" to the match\n" +
                       good + ": valid\n");
}

// A built-in pack's own file checks clean on its own merits: its name is
// the built-in pack's (a note, since adding it would be refused) and its
// codes conflict with no other pack.
TEST_F(RulesCliTest, CheckTheBuiltinPackFile) {
  const std::string builtin = CASEFILE_SOURCE_DIR "/lib/analyze/rules/packs/runtime.json";
  CliRun r = Cli({"rules", "check", builtin});
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out, builtin + ": valid\n" + builtin +
                       ": note: \"builtin-runtime\" is the name of a built-in rule pack: "
                       "--rules and casefile_rules_add_file refuse a pack of that name\n");
  // Adding it is what is refused.
  r = Cli({"--rules", builtin, "rules", "list"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(Contains(r.err, "\"builtin-runtime\" is the name of a built-in rule pack")) << r.err;

  // Under another name its codes are the built-in pack's: a conflict.
  std::string copy = ReadFile(builtin);
  const std::string name = "\"name\": \"builtin-runtime\"";
  ASSERT_NE(copy.find(name), std::string::npos);
  copy.replace(copy.find(name), name.size(), "\"name\": \"site-runtime\"");
  const std::string renamed = dir_.Join("site-runtime.json");
  WriteFile(renamed, copy);
  r = Cli({"rules", "check", renamed});
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(Contains(r.out, renamed + ":")) << r.out;
  EXPECT_TRUE(Contains(r.out, "runtime.disk_full")) << r.out;
  EXPECT_TRUE(Contains(r.out, "the built-in rule pack 'builtin-runtime'")) << r.out;
  EXPECT_FALSE(Contains(r.out, "note:")) << r.out;

  // A pack of another name gets no note.
  const std::string site = dir_.Join("site.json");
  WriteFile(site, kSitePack);
  r = Cli({"rules", "check", site});
  EXPECT_EQ(r.out, site + ": valid\n");
}

TEST_F(RulesCliTest, CheckSyntaxErrorAndMissingFile) {
  const std::string broken = dir_.Join("broken.json");
  WriteFile(broken, "{\n  \"casefile_rules\": 1\n  \"name\": \"x\"\n}\n");
  CliRun r = Cli({"rules", "check", broken});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(Contains(r.out, broken + ":3:3: invalid JSON: expected ',' or '}'")) << r.out;
  r = Cli({"rules", "check", dir_.Join("absent.json")});
  EXPECT_EQ(r.code, 3) << r.out << r.err;
  EXPECT_TRUE(Contains(r.err, "absent.json")) << r.err;
}

TEST_F(RulesCliTest, UsageErrors) {
  EXPECT_EQ(Cli({"rules"}).code, 2);
  EXPECT_EQ(Cli({"rules", "lint"}).code, 2);
  EXPECT_EQ(Cli({"rules", "check"}).code, 2);
  EXPECT_EQ(Cli({"rules", "list", "--format", "yaml"}).code, 2);
}

// --rules is read by the CLI's extension loading (extensions.cc) before the
// command runs; the pack then shows in the listing and runs in analyze.
TEST_F(RulesCliTest, RulesFlagAddsThePackToListAndAnalyze) {
  const std::string pack = dir_.Join("site.json");
  WriteFile(pack, kSitePack);
  CliRun r = Cli({"--rules", pack, "rules", "list"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(Contains(r.out, "site (" + pack + ", 1 rule)")) << r.out;
  EXPECT_TRUE(Contains(r.out, "site.shard_unreadable")) << r.out;

  const std::string bundle = dir_.Join("b");
  WriteFile(bundle + "/logs/node-0/train.log",
            "[rank0]:step 1 loss=2.0\n"
            "[rank0]:dataset shard 17 unreadable: checksum mismatch\n"
            "[rank0]:OSError: [Errno 28] No space left on device\n");
  r = Cli({"analyze", bundle, "--rules", pack, "--analyzers", "rules", "--format", "json"});
  EXPECT_TRUE(Contains(r.out, "\"code\": \"site.shard_unreadable\"")) << r.out << r.err;
  EXPECT_TRUE(Contains(r.out, "shard 17 unreadable (1 lines)")) << r.out;
  EXPECT_TRUE(Contains(r.out, "\"code\": \"runtime.disk_full\"")) << r.out;
}

}  // namespace
