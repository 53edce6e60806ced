// The casefile CLI, run as a user runs it: the built binary in a child
// process, checking stdout, stderr and the exit code. Bundles are written at
// test time; expected outputs are written by hand from the lines written here.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cli_spawn.h"
#include "test_util.h"

extern char** environ;

namespace {

namespace fs = std::filesystem;
using casefile::test::CliRun;
using casefile::test::CliSpawn;
using casefile::test::ReadFile;
using casefile::test::SpawnCli;
using casefile::test::TempDir;
using casefile::test::WriteFile;

const std::string kBinary = CASEFILE_BINARY_DIR "/bin/casefile";

// ---------------------------------------------------------------------------
// A minimal strict JSON reader, enough to check that output parses and to
// look values up. Any syntax error makes Parse return false.

struct Json {
  enum class Type { kNull, kBool, kNumber, kString, kArray, kObject } type = Type::kNull;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<Json> array;
  // An object's members as two parallel lists: a std::pair of the type
  // being defined is ill-formed (clang rejects it; libstdc++ lets it pass).
  std::vector<std::string> keys;
  std::vector<Json> values;

  const Json* Get(const std::string& key) const {
    for (size_t i = 0; i < keys.size(); ++i) {
      if (keys[i] == key) return &values[i];
    }
    return nullptr;
  }
};

class JsonReader {
 public:
  explicit JsonReader(std::string_view text) : s_(text) {}

  bool Parse(Json& out) {
    if (!Value(out, 0)) return false;
    Space();
    return i_ == s_.size();
  }

 private:
  void Space() {
    while (i_ < s_.size() &&
           (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\r' || s_[i_] == '\t')) {
      ++i_;
    }
  }
  bool Literal(std::string_view word) {
    if (s_.substr(i_, word.size()) != word) return false;
    i_ += word.size();
    return true;
  }
  bool Value(Json& v, int depth) {
    if (depth > 64) return false;
    Space();
    if (i_ >= s_.size()) return false;
    char c = s_[i_];
    if (c == '{') return Object(v, depth);
    if (c == '[') return Array(v, depth);
    if (c == '"') {
      v.type = Json::Type::kString;
      return String(v.string);
    }
    if (c == 't' || c == 'f') {
      v.type = Json::Type::kBool;
      v.boolean = c == 't';
      return Literal(c == 't' ? "true" : "false");
    }
    if (c == 'n') {
      v.type = Json::Type::kNull;
      return Literal("null");
    }
    return Number(v);
  }
  bool Number(Json& v) {
    size_t start = i_;
    if (i_ < s_.size() && s_[i_] == '-') ++i_;
    if (i_ >= s_.size() || s_[i_] < '0' || s_[i_] > '9') return false;
    if (s_[i_] == '0') {
      ++i_;
    } else {
      while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') ++i_;
    }
    if (i_ < s_.size() && s_[i_] == '.') {
      ++i_;
      size_t digits = i_;
      while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') ++i_;
      if (i_ == digits) return false;
    }
    if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
      ++i_;
      if (i_ < s_.size() && (s_[i_] == '+' || s_[i_] == '-')) ++i_;
      size_t digits = i_;
      while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') ++i_;
      if (i_ == digits) return false;
    }
    v.type = Json::Type::kNumber;
    v.number = std::strtod(std::string(s_.substr(start, i_ - start)).c_str(), nullptr);
    return true;
  }
  bool Hex4(uint32_t& out) {
    if (i_ + 4 > s_.size()) return false;
    out = 0;
    for (int k = 0; k < 4; ++k) {
      char c = s_[i_++];
      out <<= 4;
      if (c >= '0' && c <= '9')
        out |= c - '0';
      else if (c >= 'a' && c <= 'f')
        out |= c - 'a' + 10;
      else if (c >= 'A' && c <= 'F')
        out |= c - 'A' + 10;
      else
        return false;
    }
    return true;
  }
  static void AppendUtf8(std::string& out, uint32_t cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }
  bool String(std::string& out) {
    ++i_;  // opening quote
    while (i_ < s_.size()) {
      unsigned char c = s_[i_++];
      if (c == '"') return true;
      if (c < 0x20) return false;
      if (c != '\\') {
        out += static_cast<char>(c);
        continue;
      }
      if (i_ >= s_.size()) return false;
      char e = s_[i_++];
      switch (e) {
        case '"':
          out += '"';
          break;
        case '\\':
          out += '\\';
          break;
        case '/':
          out += '/';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          uint32_t cp;
          if (!Hex4(cp)) return false;
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            uint32_t low;
            if (!Literal("\\u") || !Hex4(low) || low < 0xDC00 || low > 0xDFFF) return false;
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            return false;
          }
          AppendUtf8(out, cp);
          break;
        }
        default:
          return false;
      }
    }
    return false;
  }
  bool Array(Json& v, int depth) {
    v.type = Json::Type::kArray;
    ++i_;
    Space();
    if (i_ < s_.size() && s_[i_] == ']') {
      ++i_;
      return true;
    }
    while (true) {
      Json item;
      if (!Value(item, depth + 1)) return false;
      v.array.push_back(std::move(item));
      Space();
      if (i_ >= s_.size()) return false;
      if (s_[i_] == ']') {
        ++i_;
        return true;
      }
      if (s_[i_++] != ',') return false;
    }
  }
  bool Object(Json& v, int depth) {
    v.type = Json::Type::kObject;
    ++i_;
    Space();
    if (i_ < s_.size() && s_[i_] == '}') {
      ++i_;
      return true;
    }
    while (true) {
      Space();
      if (i_ >= s_.size() || s_[i_] != '"') return false;
      std::string key;
      if (!String(key)) return false;
      Space();
      if (i_ >= s_.size() || s_[i_++] != ':') return false;
      Json value;
      if (!Value(value, depth + 1)) return false;
      v.keys.push_back(std::move(key));
      v.values.push_back(std::move(value));
      Space();
      if (i_ >= s_.size()) return false;
      if (s_[i_] == '}') {
        ++i_;
        return true;
      }
      if (s_[i_++] != ',') return false;
    }
  }

  std::string_view s_;
  size_t i_ = 0;
};

TEST(JsonReaderTest, AcceptsValidAndRejectsInvalid) {
  Json v;
  EXPECT_TRUE(JsonReader(R"({"a": [1, -2.5e3, "x\u00e9\n"], "b": null, "c": true})").Parse(v));
  ASSERT_NE(v.Get("a"), nullptr);
  EXPECT_EQ(v.Get("a")->array.at(2).string, "x\xC3\xA9\n");
  EXPECT_FALSE(JsonReader(R"({"a": 1,})").Parse(v));
  EXPECT_FALSE(JsonReader(R"([1 2])").Parse(v));
  EXPECT_FALSE(JsonReader("{\"a\": \"raw\ttab\"}").Parse(v));
  EXPECT_FALSE(JsonReader(R"({"a": 1} x)").Parse(v));
}

// ---------------------------------------------------------------------------
// Running the binary.

using EnvChanges = std::map<std::string, std::optional<std::string>>;  // nullopt: unset

std::vector<std::string> MakeEnv(const EnvChanges& changes) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string entry = *e;
    std::string name = entry.substr(0, entry.find('='));
    if (changes.count(name) == 0) env.push_back(entry);
  }
  for (const auto& [name, value] : changes) {
    if (value) env.push_back(name + "=" + *value);
  }
  return env;
}

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cache_ = dir_.Join("cache");
    bundle_ = dir_.Join("run42");
    WriteFile(bundle_ + "/logs/coordinator.log", Joined(kCoordinatorLines));
    WriteFile(bundle_ + "/logs/worker-1.log", Joined(kWorkerLines));
  }

  static std::string Joined(const std::vector<std::string>& lines) {
    std::string out;
    for (const auto& l : lines) out += l + "\n";
    return out;
  }

  // Runs casefile with `args`; stdout and stderr go to files (never a
  // terminal), stdin is /dev/null. The cache dir is the test's own.
  CliRun Cli(const std::vector<std::string>& args, EnvChanges env = {}) {
    return Spawn(args, std::move(env), false);
  }

  // The same with stdout on a pseudo-terminal (stderr still a file).
  CliRun CliOnTerminal(const std::vector<std::string>& args, EnvChanges env = {}) {
    return Spawn(args, std::move(env), true);
  }

  CliRun Spawn(const std::vector<std::string>& args, EnvChanges env, bool terminal) {
    if (env.count("CASEFILE_CACHE_DIR") == 0) env["CASEFILE_CACHE_DIR"] = cache_;
    if (env.count("NO_COLOR") == 0) env["NO_COLOR"] = std::nullopt;
    CliSpawn spawn;
    spawn.binary = kBinary;
    spawn.args = args;
    spawn.env = MakeEnv(env);
    spawn.out_path = dir_.Join("stdout.txt");
    spawn.err_path = dir_.Join("stderr.txt");
    spawn.stdout_on_terminal = terminal;
    return SpawnCli(spawn);
  }

  const std::vector<std::string> kCoordinatorLines = {
      "I0105 10:00:00.000000    1234 coordinator.cc:41] Megascale coordinator started for 2 "
      "workers",
      "E0105 10:05:00.100000    1234 coordinator.cc:212] Megascale detects a hang that is likely "
      "caused by bad TPU chips on the following hosts. Please remove the hosts from the fleet and "
      "restart the workload. If problem persists please contact Megascale XLA team.",
      "  The host that have bad TPUs are: host-b",
      "  Full error digest:",
      "    Potential cause: Bad TPU chips",
      "    Potential culprit workers: jax_worker/1:host-b",
      "I0105 10:05:01.000000    1234 coordinator.cc:250] Shutting down",
  };
  const std::vector<std::string> kWorkerLines = {
      "I0105 10:00:02.000000    5678 train.py:88] step 99 loss 2.31",
      "I0105 10:00:03.000000    5678 train.py:88] step 100 loss 2.30",
      "E0105 10:04:59.000000    5678 megascale.cc:77] Megascale hang detected: Timed out waiting "
      "for 4 graphs to complete at launch_id 13650. Already completed: 100. "
      "StepGloballyInProgress: true. Timeout: 1m",
  };

  TempDir dir_;
  std::string cache_;
  std::string bundle_;
};

bool StartsWith(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

bool Contains(const std::string& s, const std::string& needle) {
  return s.find(needle) != std::string::npos;
}

// ---------------------------------------------------------------------------
// Version and help.

TEST_F(CliTest, VersionPrintsMajorMinorPatch) {
  CliRun r = Cli({"--version"});
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.err, "");
  ASSERT_TRUE(StartsWith(r.out, "casefile ")) << r.out;
  std::string version = r.out.substr(9);
  ASSERT_FALSE(version.empty());
  EXPECT_EQ(version.back(), '\n');
  version.pop_back();
  int dots = 0;
  for (char c : version) {
    if (c == '.')
      ++dots;
    else
      EXPECT_TRUE(c >= '0' && c <= '9') << version;
  }
  EXPECT_EQ(dots, 2) << version;
}

TEST_F(CliTest, MainHelpListsEveryCommandAndExitCodes) {
  CliRun r = Cli({"--help"});
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.err, "");
  for (const char* cmd : {"analyze", "index", "query", "files", "show", "analyzers"}) {
    EXPECT_TRUE(Contains(r.out, std::string("\n  ") + cmd + " ")) << cmd;
  }
  for (const char* code : {"  0  ", "  1  ", "  2  ", "  3  ", "  4  "}) {
    EXPECT_TRUE(Contains(r.out, code)) << code;
  }
  EXPECT_TRUE(Contains(r.out, "NO_COLOR"));
  EXPECT_EQ(Cli({"help"}).out, r.out);
}

TEST_F(CliTest, EveryCommandHelpIsCompleteAndMatchesHelpCommand) {
  const std::map<std::string, std::vector<std::string>> flags = {
      {"analyze",
       {"--analyzers", "--format", "--fail-on", "--index", "--reindex", "--no-store", "--no-color",
        "--help"}},
      {"index", {"--index", "--reindex", "--help"}},
      {"query", {"--format", "--index", "--reindex", "--help"}},
      {"files", {"--format", "--index", "--reindex", "--help"}},
      {"show", {"--context", "--index", "--reindex", "--no-color", "--help"}},
      {"analyzers", {"--help"}},
      {"diff",
       {"--good", "--bad", "--format", "--index-dir", "--good-index", "--bad-index", "--reindex",
        "--no-store", "--fail-on-headline", "--no-color", "--help"}},
  };
  // Every command that indexes takes the limits, and says their defaults.
  const std::vector<std::string> limits = {
      "--max-entry-bytes", "--max-total-bytes", "--max-entries",   "--max-line-bytes",
      "default 8GiB",      "default 256GiB",    "default 1000000", "default 65536"};
  for (const auto& [cmd, cmd_flags] : flags) {
    CliRun r = Cli({cmd, "--help"});
    EXPECT_EQ(r.code, 0) << cmd;
    EXPECT_EQ(r.err, "") << cmd;
    EXPECT_TRUE(StartsWith(r.out, "Usage: casefile " + cmd)) << r.out;
    EXPECT_TRUE(Contains(r.out, "Exit codes:")) << cmd;
    EXPECT_TRUE(Contains(r.out, "  0  ")) << cmd;
    EXPECT_TRUE(Contains(r.out, "  2  ")) << cmd;
    for (const auto& flag : cmd_flags) EXPECT_TRUE(Contains(r.out, flag)) << cmd << " " << flag;
    EXPECT_EQ(Cli({"help", cmd}).out, r.out) << cmd;
    EXPECT_EQ(Cli({cmd, "-h"}).out, r.out) << cmd;
    for (const auto& limit : limits) {
      EXPECT_EQ(Contains(r.out, limit), cmd != "analyzers") << cmd << " " << limit;
    }
  }
  // The file kinds of files.kind, binary included.
  CliRun files = Cli({"files", "--help"});
  for (const char* kind :
       {"log", "hlo", "trace", "config", "version", "sysinfo", "manifest", "binary", "other"}) {
    EXPECT_TRUE(Contains(files.out, kind)) << kind;
  }
  CliRun show = Cli({"show", "--help"});
  EXPECT_TRUE(StartsWith(show.out, "Usage: casefile show BUNDLE... PATH[:LINE]")) << show.out;
  // Commands that index say where the index lives by default.
  CliRun analyze = Cli({"analyze", "--help"});
  EXPECT_TRUE(Contains(analyze.out, "CASEFILE_CACHE_DIR"));
  EXPECT_TRUE(Contains(analyze.out, ".cache/casefile"));
}

// ---------------------------------------------------------------------------
// Usage errors: exit 2, "casefile: " on stderr, nothing on stdout.

TEST_F(CliTest, UsageErrorsExitTwo) {
  const std::vector<std::vector<std::string>> cases = {
      {"frobnicate"},
      {"--bogus"},
      {"help", "frobnicate"},
      {"analyze"},
      {"analyze", bundle_, "--bogus"},
      {"analyze", bundle_, "--format", "xml"},
      {"analyze", bundle_, "--fail-on", "fatal"},
      {"analyze", bundle_, "--analyzers", "no_such_analyzer"},
      {"analyze", bundle_, "--analyzers", "hang,,"},
      {"analyze", bundle_, "--index"},
      {"analyze", bundle_, "--reindex=yes"},
      {"index"},
      {"query", bundle_},
      {"query", bundle_, "SELECT 1", "--format", "yaml"},
      {"files"},
      {"show", bundle_},
      {"show", bundle_, "logs/worker-1.log", "--context", "-1"},
      {"show", bundle_, "logs/worker-1.log", "--context", "many"},
      {"analyzers", "extra"},
      {"diff"},
      {"diff", bundle_},
      {"diff", bundle_, "--"},
      {"diff", "--good", bundle_},
      {"diff", bundle_, "--", bundle_, "--index", "x.db"},
      {"diff", bundle_, "--", bundle_, "--format", "pdf"},
      {"diff", bundle_, "--", bundle_, "--bad"},
      // Limits: positive integers with an optional binary unit, in range.
      {"index", bundle_, "--max-line-bytes", "abc"},
      {"index", bundle_, "--max-line-bytes", "0"},
      {"index", bundle_, "--max-line-bytes", "-5"},
      {"index", bundle_, "--max-line-bytes", "+5"},
      {"index", bundle_, "--max-line-bytes", " 5"},
      {"index", bundle_, "--max-line-bytes", "1.5K"},
      {"index", bundle_, "--max-line-bytes", "10X"},
      {"index", bundle_, "--max-line-bytes", "10KB"},
      {"index", bundle_, "--max-line-bytes", ""},
      {"index", bundle_, "--max-line-bytes", "4G"},  // 4294967296: one past uint32
      {"index", bundle_, "--max-line-bytes"},
      {"analyze", bundle_, "--max-entry-bytes", "lots"},
      {"analyze", bundle_, "--max-total-bytes", "18446744073709551616"},  // 2^64
      {"query", bundle_, "SELECT 1", "--max-entries", "1e6"},
      {"files", bundle_, "--max-total-bytes", "16777216T"},  // 2^64 once scaled
      {"show", bundle_, "worker-1.log", "--max-entries", "0"},
  };
  for (const auto& args : cases) {
    CliRun r = Cli(args);
    std::string shown;
    for (const auto& a : args) shown += a + " ";
    EXPECT_EQ(r.code, 2) << shown << "\n" << r.err;
    EXPECT_TRUE(StartsWith(r.err, "casefile: ")) << shown << "\n" << r.err;
    EXPECT_EQ(r.out, "") << shown;
  }
  CliRun none = Cli({});
  EXPECT_EQ(none.code, 2);
  EXPECT_TRUE(StartsWith(none.err, "casefile: no command given\n")) << none.err;
  EXPECT_TRUE(Contains(none.err, "Usage: casefile"));

  CliRun unknown = Cli({"analyze", bundle_, "--analyzers", "no_such_analyzer"});
  EXPECT_TRUE(Contains(unknown.err, "no_such_analyzer")) << unknown.err;
}

// ---------------------------------------------------------------------------
// Bad inputs: exit 3.

TEST_F(CliTest, MissingInputExitsThree) {
  const std::string missing = dir_.Join("no_such_bundle");
  for (const char* cmd : {"analyze", "index", "files"}) {
    CliRun r = Cli({cmd, missing});
    EXPECT_EQ(r.code, 3) << cmd << "\n" << r.err;
    EXPECT_TRUE(StartsWith(r.err, "casefile: ")) << r.err;
    EXPECT_TRUE(Contains(r.err, "no_such_bundle")) << r.err;
    EXPECT_EQ(r.out, "") << cmd;
  }
  CliRun q = Cli({"query", missing, "SELECT 1"});
  EXPECT_EQ(q.code, 3);
}

TEST_F(CliTest, GarbageArchiveExitsThree) {
  std::string garbage;
  for (int i = 0; i < 4096; ++i) garbage += static_cast<char>((i * 131 + 7) & 0xff);
  const std::string path = dir_.Join("garbage.tar.zst");
  WriteFile(path, garbage);
  CliRun r = Cli({"analyze", path});
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_TRUE(StartsWith(r.err, "casefile: ")) << r.err;
  EXPECT_TRUE(Contains(r.err, "garbage.tar.zst")) << r.err;
}

TEST_F(CliTest, TruncatedArchiveIsPartialReportPrintedThenExitThree) {
  // A plain tar cut in the middle of its second member: the first member is
  // whole, so the bundle is read in part rather than not at all.
  std::string filler;
  while (filler.size() < 200000) filler += "I0105 10:00:00.000000 1 filler.py:1] padding line\n";
  const std::string tar = dir_.Join("cut.tar");
  casefile::test::ArchiveMember first;
  first.path = "logs/coordinator.log";
  first.content = Joined(kCoordinatorLines);
  casefile::test::ArchiveMember second;
  second.path = "logs/filler.log";
  second.content = filler;
  casefile::test::WriteArchive(tar, "tar", {first, second});
  std::string bytes = ReadFile(tar);
  WriteFile(tar, bytes.substr(0, bytes.size() / 2));

  CliRun r = Cli({"analyze", tar, "--fail-on", "never"});
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_TRUE(Contains(r.err, "casefile: warning: ")) << r.err;
  EXPECT_TRUE(Contains(r.err, " was read only in part: ")) << r.err;
  EXPECT_FALSE(r.out.empty());

  CliRun json = Cli({"analyze", tar, "--format", "json"});
  EXPECT_EQ(json.code, 3);
  Json report;
  ASSERT_TRUE(JsonReader(json.out).Parse(report)) << json.out;
  ASSERT_NE(report.Get("bundles"), nullptr);
  ASSERT_EQ(report.Get("bundles")->array.size(), 1u);
  EXPECT_EQ(report.Get("bundles")->array[0].Get("status")->string, "partial");

  CliRun index = Cli({"index", tar});
  EXPECT_EQ(index.code, 3);
  EXPECT_TRUE(StartsWith(index.out, "reused index ")) << index.out;
}

// ---------------------------------------------------------------------------
// analyze

TEST_F(CliTest, AnalyzeExitCodeFollowsFailOn) {
  CliRun plain = Cli({"analyze", bundle_});
  EXPECT_EQ(plain.code, 1) << plain.err;
  EXPECT_TRUE(Contains(plain.out, "hang.bad_chip")) << plain.out;
  EXPECT_TRUE(Contains(plain.out, "host-b")) << plain.out;
  EXPECT_EQ(plain.out.find('\x1b'), std::string::npos);

  EXPECT_EQ(Cli({"analyze", bundle_, "--fail-on", "error"}).code, 1);
  EXPECT_EQ(Cli({"analyze", bundle_, "--fail-on", "warning"}).code, 1);
  EXPECT_EQ(Cli({"analyze", bundle_, "--fail-on=info"}).code, 1);
  CliRun never = Cli({"analyze", bundle_, "--fail-on", "never"});
  EXPECT_EQ(never.code, 0);
  EXPECT_EQ(never.out, plain.out);
}

TEST_F(CliTest, AnalyzeJsonParsesAndNamesTheFinding) {
  CliRun r = Cli({"analyze", bundle_, "--format", "json", "--analyzers", "hang"});
  EXPECT_EQ(r.code, 1) << r.err;
  Json report;
  ASSERT_TRUE(JsonReader(r.out).Parse(report)) << r.out;
  ASSERT_EQ(report.type, Json::Type::kObject);

  const Json* bundles = report.Get("bundles");
  ASSERT_NE(bundles, nullptr);
  ASSERT_EQ(bundles->array.size(), 1u);
  EXPECT_EQ(bundles->array[0].Get("name")->string, "run42");
  EXPECT_EQ(bundles->array[0].Get("status")->string, "complete");

  const Json* analyzers = report.Get("analyzers");
  ASSERT_NE(analyzers, nullptr);
  ASSERT_EQ(analyzers->array.size(), 1u);
  EXPECT_EQ(analyzers->array[0].Get("name")->string, "hang");
  EXPECT_EQ(analyzers->array[0].Get("status")->string, "ran");

  const Json* findings = report.Get("findings");
  ASSERT_NE(findings, nullptr);
  const Json* bad_chip = nullptr;
  for (const auto& f : findings->array) {
    if (f.Get("code") && f.Get("code")->string == "hang.bad_chip") bad_chip = &f;
  }
  ASSERT_NE(bad_chip, nullptr) << r.out;
  EXPECT_EQ(bad_chip->Get("severity")->string, "error");
  bool host_b = false;
  for (const auto& c : bad_chip->Get("culprits")->array) {
    if (c.Get("host")->type == Json::Type::kString && c.Get("host")->string == "host-b") {
      host_b = true;
    }
  }
  EXPECT_TRUE(host_b);
  // Evidence points at lines written above, with their text.
  ASSERT_FALSE(bad_chip->Get("evidence")->array.empty());
  for (const auto& e : bad_chip->Get("evidence")->array) {
    EXPECT_EQ(e.Get("bundle")->string, "run42");
    const std::string path = e.Get("path")->string;
    const auto line = static_cast<size_t>(e.Get("line")->number);
    const std::vector<std::string>& lines =
        path == "logs/coordinator.log" ? kCoordinatorLines : kWorkerLines;
    ASSERT_TRUE(path == "logs/coordinator.log" || path == "logs/worker-1.log") << path;
    ASSERT_GE(line, 1u);
    ASSERT_LE(line, lines.size());
    EXPECT_EQ(e.Get("text")->string, lines[line - 1]);
  }
  ASSERT_NE(report.Get("ingest_issues"), nullptr);
  EXPECT_TRUE(report.Get("ingest_issues")->array.empty());

  // Byte-identical when run again (the index is reused).
  EXPECT_EQ(Cli({"analyze", bundle_, "--format", "json", "--analyzers", "hang"}).out, r.out);
}

// ---------------------------------------------------------------------------
// diff: a healthy run (the worker's step lines only) against the hung one.

TEST_F(CliTest, DiffPutsTheNewHangInTheHeadline) {
  const std::string good = dir_.Join("run41");
  WriteFile(good + "/logs/worker-1.log", Joined({kWorkerLines[0], kWorkerLines[1]}));
  const std::string indexes = dir_.Join("indexes");
  CliRun r = Cli({"diff", good, "--", bundle_, "--format", "json", "--index-dir", indexes});
  EXPECT_EQ(r.code, 0) << r.err;
  Json d;
  ASSERT_TRUE(JsonReader(r.out).Parse(d)) << r.out;
  ASSERT_NE(d.Get("good"), nullptr);
  EXPECT_EQ(d.Get("good")->array.at(0).Get("name")->string, "run41");
  EXPECT_EQ(d.Get("bad")->array.at(0).Get("name")->string, "run42");
  const Json* headline = d.Get("headline");
  ASSERT_NE(headline, nullptr);
  ASSERT_FALSE(headline->array.empty()) << r.out;
  const Json& top = headline->array[0];
  EXPECT_EQ(top.Get("section")->string, "findings");
  EXPECT_EQ(top.Get("kind")->string, "new");
  EXPECT_EQ(top.Get("key")->string, "hang.bad_chip");
  // Its evidence is a line of the bad run, with that line's text.
  const Json& ev = top.Get("bad_evidence")->array.at(0);
  EXPECT_EQ(ev.Get("bundle")->string, "run42");
  const auto line = static_cast<size_t>(ev.Get("line")->number);
  const std::vector<std::string>& lines =
      ev.Get("path")->string == "logs/coordinator.log" ? kCoordinatorLines : kWorkerLines;
  ASSERT_GE(line, 1u);
  ASSERT_LE(line, lines.size());
  EXPECT_EQ(ev.Get("text")->string, lines[line - 1]);
  for (const char* key : {"versions", "configs", "metrics", "hlo", "traces", "warnings"}) {
    ASSERT_NE(d.Get(key), nullptr) << key;
    EXPECT_EQ(d.Get(key)->type, Json::Type::kArray) << key;
  }
  ASSERT_NE(d.Get("templates"), nullptr);
  EXPECT_NE(d.Get("templates")->Get("new"), nullptr);
  ASSERT_NE(d.Get("findings"), nullptr);
  EXPECT_NE(d.Get("findings")->Get("persisting"), nullptr);
  // Both indexes went into --index-dir, none into the cache.
  size_t in_dir = 0;
  for (const auto& e : fs::directory_iterator(indexes)) in_dir += e.path().extension() == ".db";
  EXPECT_EQ(in_dir, 2u);
  EXPECT_FALSE(fs::exists(cache_));

  // The same with --good/--bad, flags before the sides: the same bytes.
  CliRun flags =
      Cli({"diff", "--format=json", "--index-dir", indexes, "--good", good, "--bad", bundle_});
  EXPECT_EQ(flags.code, 0) << flags.err;
  EXPECT_EQ(flags.out, r.out);

  // Text: the headline first; --fail-on-headline turns it into exit 1.
  CliRun text = Cli({"diff", good, "--", bundle_, "--index-dir", indexes, "--fail-on-headline"});
  EXPECT_EQ(text.code, 1) << text.err;
  EXPECT_TRUE(Contains(text.out, "Headline\n  1. New in bad: hang.bad_chip")) << text.out;
  EXPECT_EQ(text.out.find('\x1b'), std::string::npos);
  // Flags on both sides of "--" are all read: the limit before it, --reindex
  // after it (the limit cuts both sides: exit 3, the diff still printed).
  CliRun cut = Cli({"diff", good, "--max-entries", "1", "--", bundle_, "--reindex", "--index-dir",
                    indexes, "--format", "json"});
  EXPECT_EQ(cut.code, 3) << cut.err;
  EXPECT_TRUE(Contains(cut.err, "was read only in part")) << cut.err;
  Json partial;
  EXPECT_TRUE(JsonReader(cut.out).Parse(partial)) << cut.out;
  // Two runs cannot share one index file.
  CliRun shared = Cli({"diff", good, "--good-index", dir_.Join("x.db"), "--", bundle_,
                       "--bad-index", dir_.Join("x.db"), "--reindex"});
  EXPECT_EQ(shared.code, 2) << shared.err;
  EXPECT_TRUE(Contains(shared.err, "same index file")) << shared.err;
  // A run against itself has nothing to say.
  CliRun same = Cli({"diff", good, "--", good, "--good-index", dir_.Join("g.db"), "--bad-index",
                     dir_.Join("b.db"), "--fail-on-headline"});
  EXPECT_EQ(same.code, 0) << same.out << same.err;
  EXPECT_TRUE(Contains(same.out, "Nothing suspicious")) << same.out;
}

// ---------------------------------------------------------------------------
// Reports for bug reports: HTML and markdown, to stdout or to a file.

TEST_F(CliTest, HtmlAndMarkdownReportsGoToStdoutOrToAFile) {
  CliRun html = Cli({"analyze", bundle_, "--format", "html", "--analyzers", "hang"});
  EXPECT_EQ(html.code, 1) << html.err;  // the finding is an error
  EXPECT_TRUE(StartsWith(html.out, "<!DOCTYPE html>")) << html.out.substr(0, 200);
  EXPECT_TRUE(Contains(html.out, "data-code=\"hang.bad_chip\""));

  // -o and --output write the same bytes to the file and nothing to stdout;
  // no temporary file is left beside it.
  const std::string out_dir = dir_.Join("reports");
  fs::create_directories(out_dir);
  CliRun to_file = Cli(
      {"analyze", bundle_, "--format", "html", "--analyzers", "hang", "-o", out_dir + "/r.html"});
  EXPECT_EQ(to_file.code, 1) << to_file.err;
  EXPECT_EQ(to_file.out, "");
  EXPECT_EQ(ReadFile(out_dir + "/r.html"), html.out);
  CliRun long_flag = Cli({"analyze", bundle_, "--output=" + out_dir + "/r.html", "--format", "html",
                          "--analyzers", "hang"});
  EXPECT_EQ(long_flag.code, 1) << long_flag.err;
  EXPECT_EQ(ReadFile(out_dir + "/r.html"), html.out);  // replaced whole
  size_t entries = 0;
  for (const auto& e : fs::directory_iterator(out_dir)) entries += e.is_regular_file();
  EXPECT_EQ(entries, 1u);

  CliRun md = Cli({"analyze", bundle_, "--format", "markdown", "--analyzers", "hang"});
  EXPECT_EQ(md.code, 1) << md.err;
  EXPECT_TRUE(Contains(md.out, "hang.bad_chip"));
  EXPECT_TRUE(Contains(md.out, "host-b"));

  // Text written to a file has no colour, even from a terminal.
  CliRun text = CliOnTerminal({"analyze", bundle_, "-o", out_dir + "/r.txt"});
  EXPECT_EQ(text.code, 1) << text.err;
  const std::string written = ReadFile(out_dir + "/r.txt");
  EXPECT_TRUE(Contains(written, "hang.bad_chip"));
  EXPECT_FALSE(Contains(written, "\x1b["));

  // A file that cannot be written: exit 3 naming it, nothing left behind.
  CliRun bad = Cli({"analyze", bundle_, "--format", "html", "-o", dir_.Join("no/such/dir/r.html")});
  EXPECT_EQ(bad.code, 3);
  EXPECT_TRUE(Contains(bad.err, "no/such/dir/r.html")) << bad.err;
  // -o belongs to the commands that write a report.
  CliRun query = Cli({"query", bundle_, "-o", out_dir + "/q", "SELECT 1"});
  EXPECT_EQ(query.code, 2);
  EXPECT_TRUE(Contains(query.err, "unknown option '-o'")) << query.err;
  CliRun format = Cli({"analyze", bundle_, "--format", "pdf"});
  EXPECT_EQ(format.code, 2);
  EXPECT_TRUE(Contains(format.err, "html")) << format.err;
}

TEST_F(CliTest, OutputFollowsLinksAndNeverReplacesWhatIsNotAFile) {
  const std::string md =
      Cli({"analyze", bundle_, "--format", "markdown", "--analyzers", "hang"}).out;
  ASSERT_TRUE(Contains(md, "hang.bad_chip"));
  // "-o -" is stdout.
  EXPECT_EQ(Cli({"analyze", bundle_, "--format", "markdown", "--analyzers", "hang", "-o", "-"}).out,
            md);
  // A link: the report replaces its target; the link stays a link.
  const std::string dir = dir_.Join("out");
  fs::create_directories(dir);
  WriteFile(dir + "/target.md", "old");
  fs::create_symlink("target.md", dir + "/link.md");
  CliRun linked = Cli(
      {"analyze", bundle_, "--format", "markdown", "--analyzers", "hang", "-o", dir + "/link.md"});
  EXPECT_EQ(linked.code, 1) << linked.err;
  EXPECT_TRUE(fs::is_symlink(dir + "/link.md"));
  EXPECT_EQ(ReadFile(dir + "/target.md"), md);
  // A FIFO (as a device or /dev/stdout would be): written in place, still a
  // FIFO afterwards. The read end is held open so the write does not block.
  const std::string fifo = dir + "/pipe";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const int rd = open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(rd, 0);
  CliRun piped =
      Cli({"analyze", bundle_, "--format", "markdown", "--analyzers", "hang", "-o", fifo});
  EXPECT_EQ(piped.code, 1) << piped.err;
  std::string got;
  char buf[4096];
  for (ssize_t n; (n = read(rd, buf, sizeof buf)) > 0;) got.append(buf, static_cast<size_t>(n));
  close(rd);
  EXPECT_EQ(got, md);
  EXPECT_TRUE(fs::is_fifo(fifo));
  // Nothing else was left in the folder (no temporary file).
  size_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++entries;
  EXPECT_EQ(entries, 3u);
}

TEST_F(CliTest, DiffWritesHtmlAndMarkdown) {
  const std::string good = dir_.Join("run41");
  WriteFile(good + "/logs/worker-1.log", Joined({kWorkerLines[0], kWorkerLines[1]}));
  const std::string indexes = dir_.Join("indexes");
  const std::string page = dir_.Join("diff.html");
  CliRun r =
      Cli({"diff", good, "-o", page, "--", bundle_, "--format", "html", "--index-dir", indexes});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  const std::string html = ReadFile(page);
  EXPECT_TRUE(StartsWith(html, "<!DOCTYPE html>"));
  EXPECT_TRUE(Contains(html, "headline-item"));
  EXPECT_TRUE(Contains(html, "hang.bad_chip"));
  CliRun md = Cli({"diff", good, "--", bundle_, "--format", "markdown", "--index-dir", indexes});
  EXPECT_EQ(md.code, 0) << md.err;
  EXPECT_TRUE(Contains(md.out, "hang.bad_chip"));
}

TEST_F(CliTest, AnalyzersListsHang) {
  CliRun r = Cli({"analyzers"});
  EXPECT_EQ(r.code, 0);
  EXPECT_TRUE(StartsWith(r.out, "hang ") || Contains(r.out, "\nhang ")) << r.out;
}

// ---------------------------------------------------------------------------
// index

TEST_F(CliTest, IndexBuildsThenReusesInTheCacheDir) {
  CliRun first = Cli({"index", bundle_});
  EXPECT_EQ(first.code, 0) << first.err;
  EXPECT_TRUE(StartsWith(first.out, "built index " + cache_ + "/")) << first.out;
  EXPECT_TRUE(Contains(first.out, ".casefile.db: 1 bundle, 2 files, 10 lines, ")) << first.out;
  EXPECT_EQ(first.err, "");  // stderr is no terminal: no progress line
  int databases = 0;
  for (const auto& e : fs::directory_iterator(cache_)) {
    if (e.path().string().size() > 12 &&
        e.path().string().compare(e.path().string().size() - 12, 12, ".casefile.db") == 0) {
      ++databases;
    }
  }
  EXPECT_EQ(databases, 1);

  CliRun second = Cli({"index", bundle_});
  EXPECT_EQ(second.code, 0);
  EXPECT_TRUE(StartsWith(second.out, "reused index " + cache_ + "/")) << second.out;

  CliRun again = Cli({"index", bundle_, "--reindex"});
  EXPECT_TRUE(StartsWith(again.out, "built index ")) << again.out;

  const std::string explicit_index = dir_.Join("explicit.db");
  CliRun chosen = Cli({"index", bundle_, "--index", explicit_index});
  EXPECT_EQ(chosen.code, 0);
  EXPECT_TRUE(StartsWith(chosen.out, "built index " + explicit_index + ": 1 bundle, "))
      << chosen.out;
  EXPECT_TRUE(fs::exists(explicit_index));
}

// ---------------------------------------------------------------------------
// query

TEST_F(CliTest, QueryFormats) {
  const std::string sql =
      "SELECT path, line_count FROM files WHERE entry_type = 'file' ORDER BY path";
  CliRun table = Cli({"query", bundle_, sql});
  EXPECT_EQ(table.code, 0) << table.err;
  EXPECT_EQ(table.out,
            "path                  line_count\n"
            "--------------------  ----------\n"
            "logs/coordinator.log           7\n"
            "logs/worker-1.log              3\n");

  CliRun csv = Cli({"query", bundle_, sql, "--format", "csv"});
  EXPECT_EQ(csv.code, 0);
  EXPECT_EQ(csv.out, "path,line_count\nlogs/coordinator.log,7\nlogs/worker-1.log,3\n");

  CliRun json = Cli({"query", bundle_, sql, "--format=json"});
  EXPECT_EQ(json.code, 0);
  Json rows;
  ASSERT_TRUE(JsonReader(json.out).Parse(rows)) << json.out;
  ASSERT_EQ(rows.array.size(), 2u);
  EXPECT_EQ(rows.array[0].Get("path")->string, "logs/coordinator.log");
  EXPECT_EQ(rows.array[0].Get("line_count")->string, "7");
  EXPECT_EQ(rows.array[1].Get("path")->string, "logs/worker-1.log");

  CliRun null_csv = Cli({"query", bundle_, "SELECT NULL AS a, 'x,\"y\"' AS b", "--format", "csv"});
  EXPECT_EQ(null_csv.out, "a,b\n,\"x,\"\"y\"\"\"\n");
  CliRun null_json = Cli({"query", bundle_, "SELECT NULL AS a", "--format", "json"});
  EXPECT_EQ(null_json.out, "[\n  {\"a\": null}\n]\n");
  CliRun empty_json = Cli({"query", bundle_, "SELECT 1 WHERE 0", "--format", "json"});
  EXPECT_EQ(empty_json.out, "[]\n");
}

TEST_F(CliTest, QueryOverSeveralBundlesTakesTheLastArgumentAsSql) {
  const std::string other = dir_.Join("run43");
  WriteFile(other + "/logs/worker-1.log", Joined(kWorkerLines));
  CliRun r =
      Cli({"query", bundle_, other, "SELECT name FROM bundles ORDER BY name", "--format", "csv"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "name\nrun42\nrun43\n");
}

size_t Occurrences(const std::string& s, const std::string& needle) {
  size_t n = 0;
  for (size_t at = s.find(needle); at != std::string::npos; at = s.find(needle, at + 1)) ++n;
  return n;
}

TEST_F(CliTest, QueryRefusesWritesAndReportsBadSql) {
  // The message says once that the query was refused, names the statement's
  // action and its object, and why.
  const std::vector<std::pair<std::string, std::vector<std::string>>> refused = {
      {"DELETE FROM files", {"DELETE", "files"}},
      {"DROP TABLE files", {"DROP TABLE", "files"}},
      {"PRAGMA user_version = 3", {"PRAGMA", "user_version"}},
  };
  for (const auto& [sql, names] : refused) {
    CliRun r = Cli({"query", bundle_, sql});
    EXPECT_EQ(r.code, 2) << sql << "\n" << r.err;
    EXPECT_TRUE(StartsWith(r.err, "casefile: query refused: ")) << r.err;
    EXPECT_EQ(Occurrences(r.err, "refused"), 1u) << r.err;
    EXPECT_EQ(Occurrences(r.err, "read-only"), 1u) << r.err;
    for (const auto& name : names) EXPECT_TRUE(Contains(r.err, name)) << sql << "\n" << r.err;
    EXPECT_EQ(r.out, "");
  }
  CliRun attach = Cli({"query", bundle_, "ATTACH DATABASE '" + dir_.Join("x.db") + "' AS x"});
  EXPECT_EQ(attach.code, 2);
  EXPECT_TRUE(StartsWith(attach.err, "casefile: query refused: ")) << attach.err;
  EXPECT_TRUE(Contains(attach.err, "ATTACH")) << attach.err;
  EXPECT_EQ(Occurrences(attach.err, "refused"), 1u) << attach.err;
  EXPECT_FALSE(fs::exists(dir_.Join("x.db")));

  CliRun bad = Cli({"query", bundle_, "SELEC path FROM files"});
  EXPECT_EQ(bad.code, 2);
  EXPECT_TRUE(StartsWith(bad.err, "casefile: ")) << bad.err;
  EXPECT_TRUE(Contains(bad.err, "syntax error")) << bad.err;

  // The refused DELETE changed nothing.
  CliRun count = Cli({"query", bundle_, "SELECT count(*) AS n FROM files WHERE entry_type = 'file'",
                      "--format", "csv"});
  EXPECT_EQ(count.out, "n\n2\n");
}

// ---------------------------------------------------------------------------
// Limits

TEST_F(CliTest, MaxLineBytesTruncatesAndIsReported) {
  const std::string bundle = dir_.Join("long");
  const std::string long_line(300, 'x');
  WriteFile(bundle + "/logs/long.log", "short\n" + long_line + "\nend\n");

  CliRun r =
      Cli({"analyze", bundle, "--max-line-bytes", "100", "--format", "json", "--fail-on", "never"});
  EXPECT_EQ(r.code, 0) << r.err;
  Json report;
  ASSERT_TRUE(JsonReader(r.out).Parse(report)) << r.out;
  const Json* issues = report.Get("ingest_issues");
  ASSERT_NE(issues, nullptr);
  ASSERT_EQ(issues->array.size(), 1u) << r.out;
  EXPECT_EQ(issues->array[0].Get("bundle")->string, "long");
  EXPECT_EQ(issues->array[0].Get("path")->string, "logs/long.log");
  EXPECT_EQ(issues->array[0].Get("kind")->string, "line_truncated");

  // Line 2 keeps its first 100 bytes; the others are whole.
  const std::string sql =
      "SELECT l.line_no, length(CAST(l.text AS BLOB)) AS n FROM lines l JOIN files f ON f.id = "
      "l.file_id WHERE f.path = 'logs/long.log' ORDER BY l.line_no";
  CliRun cut = Cli({"query", bundle, sql, "--format", "csv", "--max-line-bytes=100"});
  EXPECT_EQ(cut.code, 0) << cut.err;
  EXPECT_EQ(cut.out, "line_no,n\n1,5\n2,100\n3,3\n");
  CliRun text = Cli({"show", bundle, "long.log:2", "--context", "0", "--max-line-bytes", "100"});
  EXPECT_EQ(text.out, "> 2: " + long_line.substr(0, 100) + "\n");

  // Without the option the default (65536) keeps the line whole, and the
  // index of other limits is not reused.
  CliRun whole = Cli({"query", bundle, sql, "--format", "csv"});
  EXPECT_EQ(whole.out, "line_no,n\n1,5\n2,300\n3,3\n");
  CliRun plain = Cli({"analyze", bundle, "--format", "json", "--fail-on", "never"});
  Json plain_report;
  ASSERT_TRUE(JsonReader(plain.out).Parse(plain_report)) << plain.out;
  EXPECT_TRUE(plain_report.Get("ingest_issues")->array.empty()) << plain.out;
}

TEST_F(CliTest, LimitValuesTakeBinaryUnits) {
  const std::string bundle = dir_.Join("units");
  WriteFile(bundle + "/app.log", std::string(1500, 'y') + "\n");
  const std::string sql = "SELECT length(CAST(text AS BLOB)) AS n FROM lines";
  const std::string index = dir_.Join("units.db");
  for (const char* value : {"1K", "1k", "1KiB", "1kib", "1024"}) {
    CliRun r = Cli({"query", bundle, sql, "--format", "csv", "--max-line-bytes", value});
    EXPECT_EQ(r.code, 0) << value << "\n" << r.err;
    EXPECT_EQ(r.out, "n\n1024\n") << value;
  }
  // The same limit written differently is the same index.
  EXPECT_TRUE(StartsWith(Cli({"index", bundle, "--index", index, "--max-line-bytes", "1K"}).out,
                         "built index "));
  EXPECT_TRUE(StartsWith(Cli({"index", bundle, "--index", index, "--max-line-bytes", "1024"}).out,
                         "reused index "));
  EXPECT_TRUE(StartsWith(Cli({"index", bundle, "--index", index, "--max-line-bytes", "2K"}).out,
                         "built index "));
  CliRun mega = Cli({"query", bundle, sql, "--format", "csv", "--max-line-bytes", "1M"});
  EXPECT_EQ(mega.out, "n\n1500\n");
  // The largest accepted values.
  EXPECT_EQ(Cli({"index", bundle, "--max-line-bytes", "4294967295", "--max-total-bytes", "16GiB",
                 "--max-entry-bytes", "1T", "--max-entries", "2M"})
                .code,
            0);
}

TEST_F(CliTest, EntryAndTotalLimitsCutTheInput) {
  // logs/coordinator.log and logs/worker-1.log are both over 100 bytes.
  CliRun entry = Cli(
      {"analyze", bundle_, "--max-entry-bytes", "100", "--format", "json", "--fail-on", "never"});
  Json report;
  ASSERT_TRUE(JsonReader(entry.out).Parse(report)) << entry.out << entry.err;
  std::vector<std::string> cut;
  for (const auto& issue : report.Get("ingest_issues")->array) {
    if (issue.Get("kind")->string == "entry_truncated") cut.push_back(issue.Get("path")->string);
  }
  EXPECT_EQ(cut, (std::vector<std::string>{"logs/coordinator.log", "logs/worker-1.log"}))
      << entry.out;

  // Reading stops at a total or entry-count limit: the bundle is partial.
  for (const std::vector<std::string>& flag : std::vector<std::vector<std::string>>{
           {"--max-total-bytes", "100"}, {"--max-entries", "1"}}) {
    std::vector<std::string> args = {"index", bundle_};
    args.insert(args.end(), flag.begin(), flag.end());
    CliRun r = Cli(args);
    EXPECT_EQ(r.code, 3) << flag[0] << "\n" << r.err;
    EXPECT_TRUE(Contains(r.err, "casefile: warning: run42 was read only in part: ")) << r.err;
    EXPECT_TRUE(StartsWith(r.out, "built index ")) << r.out;
  }
}

// ---------------------------------------------------------------------------
// files

TEST_F(CliTest, FilesListsPathKindSizeLines) {
  CliRun csv = Cli({"files", bundle_, "--format", "csv"});
  EXPECT_EQ(csv.code, 0) << csv.err;
  const std::string coordinator_size = std::to_string(Joined(kCoordinatorLines).size());
  const std::string worker_size = std::to_string(Joined(kWorkerLines).size());
  ASSERT_TRUE(StartsWith(csv.out, "bundle,path,kind,host,rank,size,lines\n")) << csv.out;
  // host and rank come from the classifier; the rest is fixed by the input.
  std::vector<std::string> rows;
  size_t start = 0;
  while (start < csv.out.size()) {
    size_t nl = csv.out.find('\n', start);
    rows.push_back(csv.out.substr(start, nl - start));
    start = nl + 1;
  }
  ASSERT_EQ(rows.size(), 3u) << csv.out;
  EXPECT_TRUE(StartsWith(rows[1], "run42,logs/coordinator.log,log,")) << rows[1];
  EXPECT_TRUE(rows[1].size() > coordinator_size.size() &&
              rows[1].substr(rows[1].size() - coordinator_size.size() - 2) ==
                  coordinator_size + ",7")
      << rows[1];
  EXPECT_TRUE(StartsWith(rows[2], "run42,logs/worker-1.log,log,")) << rows[2];
  EXPECT_TRUE(rows[2].substr(rows[2].size() - worker_size.size() - 2) == worker_size + ",3")
      << rows[2];

  CliRun json = Cli({"files", bundle_, "--format", "json"});
  Json files;
  ASSERT_TRUE(JsonReader(json.out).Parse(files)) << json.out;
  ASSERT_EQ(files.array.size(), 2u);
  EXPECT_EQ(files.array[0].Get("path")->string, "logs/coordinator.log");
  EXPECT_EQ(files.array[0].Get("size")->type, Json::Type::kNumber);
  EXPECT_EQ(files.array[0].Get("size")->number,
            static_cast<double>(Joined(kCoordinatorLines).size()));
  EXPECT_EQ(files.array[0].Get("lines")->number, 7.0);

  CliRun table = Cli({"files", bundle_});
  EXPECT_EQ(table.code, 0);
  EXPECT_TRUE(StartsWith(table.out, "bundle  path ")) << table.out;
  EXPECT_TRUE(Contains(table.out, "logs/worker-1.log")) << table.out;
}

// ---------------------------------------------------------------------------
// show

TEST_F(CliTest, ShowLineWithContextMarksTheLine) {
  CliRun r = Cli({"show", bundle_, "logs/coordinator.log:5", "--context", "1"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out,
            "  4:   Full error digest:\n"
            "> 5:     Potential cause: Bad TPU chips\n"
            "  6:     Potential culprit workers: jax_worker/1:host-b\n");
}

TEST_F(CliTest, ShowWholeFileBySuffixAndContextAtTheEdges) {
  CliRun whole = Cli({"show", bundle_, "worker-1.log"});
  EXPECT_EQ(whole.code, 0) << whole.err;
  EXPECT_EQ(whole.out,
            "1: " + kWorkerLines[0] + "\n2: " + kWorkerLines[1] + "\n3: " + kWorkerLines[2] + "\n");

  CliRun first = Cli({"show", bundle_, "./logs/worker-1.log:1"});
  EXPECT_EQ(first.code, 0);
  EXPECT_EQ(first.out, "> 1: " + kWorkerLines[0] + "\n  2: " + kWorkerLines[1] +
                           "\n  3: " + kWorkerLines[2] + "\n");

  CliRun wide = Cli({"show", bundle_, "logs/coordinator.log:7", "--context", "0"});
  EXPECT_EQ(wide.out, "> 7: " + kCoordinatorLines[6] + "\n");
}

TEST_F(CliTest, ShowErrors) {
  CliRun missing = Cli({"show", bundle_, "logs/nope.log"});
  EXPECT_EQ(missing.code, 2);
  EXPECT_TRUE(StartsWith(missing.err, "casefile: no file 'logs/nope.log'")) << missing.err;

  CliRun past = Cli({"show", bundle_, "logs/worker-1.log:4"});
  EXPECT_EQ(past.code, 2);
  EXPECT_TRUE(Contains(past.err, "has 3 lines")) << past.err;

  CliRun zero = Cli({"show", bundle_, "logs/worker-1.log:0"});
  EXPECT_EQ(zero.code, 2);

  const std::string twins = dir_.Join("twins");
  WriteFile(twins + "/host-a/train.log", "a\n");
  WriteFile(twins + "/host-b/train.log", "b\n");
  CliRun ambiguous = Cli({"show", twins, "train.log"});
  EXPECT_EQ(ambiguous.code, 2);
  EXPECT_TRUE(Contains(ambiguous.err, "host-a/train.log")) << ambiguous.err;
  EXPECT_TRUE(Contains(ambiguous.err, "host-b/train.log")) << ambiguous.err;
  EXPECT_EQ(Cli({"show", twins, "host-b/train.log"}).out, "1: b\n");
}

TEST_F(CliTest, ShowOverSeveralBundles) {
  const std::string other = dir_.Join("run43");
  WriteFile(other + "/logs/worker-1.log", "alpha\nbeta\ngamma\n");

  // bundle:path:line chooses the bundle.
  CliRun b43 = Cli({"show", bundle_, other, "run43:logs/worker-1.log:2", "--context", "0"});
  EXPECT_EQ(b43.code, 0) << b43.err;
  EXPECT_EQ(b43.out, "> 2: beta\n");
  CliRun b42 = Cli({"show", bundle_, other, "run42:worker-1.log:1", "--context", "0"});
  EXPECT_EQ(b42.code, 0) << b42.err;
  EXPECT_EQ(b42.out, "> 1: " + kWorkerLines[0] + "\n");
  CliRun whole = Cli({"show", bundle_, other, "run43:logs/worker-1.log"});
  EXPECT_EQ(whole.out, "1: alpha\n2: beta\n3: gamma\n");

  // Without a bundle name, a path found in one bundle only is enough ...
  CliRun unique = Cli({"show", bundle_, other, "coordinator.log:5", "--context", "0"});
  EXPECT_EQ(unique.code, 0) << unique.err;
  EXPECT_EQ(unique.out, "> 5:     Potential cause: Bad TPU chips\n");
  // ... and one in several is ambiguous, the candidates named with their bundle.
  CliRun both = Cli({"show", bundle_, other, "logs/worker-1.log:1"});
  EXPECT_EQ(both.code, 2);
  EXPECT_EQ(both.out, "");
  EXPECT_TRUE(Contains(both.err, "\n  run42:logs/worker-1.log")) << both.err;
  EXPECT_TRUE(Contains(both.err, "\n  run43:logs/worker-1.log")) << both.err;

  CliRun absent = Cli({"show", bundle_, other, "run43:logs/coordinator.log"});
  EXPECT_EQ(absent.code, 2);
  EXPECT_TRUE(StartsWith(absent.err, "casefile: no file 'run43:logs/coordinator.log'"))
      << absent.err;
  CliRun past = Cli({"show", bundle_, other, "run43:logs/worker-1.log:4"});
  EXPECT_EQ(past.code, 2);
  EXPECT_TRUE(Contains(past.err, "run43:logs/worker-1.log has 3 lines")) << past.err;

  // A missing bundle among several is an input error.
  EXPECT_EQ(Cli({"show", bundle_, dir_.Join("nope"), "worker-1.log"}).code, 3);
  // The bundle: form is accepted with one bundle too.
  EXPECT_EQ(Cli({"show", other, "run43:worker-1.log:3", "--context", "0"}).out, "> 3: gamma\n");
}

TEST_F(CliTest, EvidenceOfASeveralBundleReportOpensWithShow) {
  const std::string other = dir_.Join("run43");
  WriteFile(other + "/logs/worker-1.log", "alpha\nbeta\ngamma\n");
  CliRun r = Cli({"analyze", bundle_, other, "--format", "json", "--fail-on", "never"});
  EXPECT_EQ(r.code, 0) << r.err;
  Json report;
  ASSERT_TRUE(JsonReader(r.out).Parse(report)) << r.out;
  size_t opened = 0;
  for (const auto& finding : report.Get("findings")->array) {
    for (const auto& e : finding.Get("evidence")->array) {
      const std::string where = e.Get("bundle")->string + ":" + e.Get("path")->string + ":" +
                                std::to_string(static_cast<long long>(e.Get("line")->number));
      CliRun shown = Cli({"show", bundle_, other, where, "--context", "0"});
      EXPECT_EQ(shown.code, 0) << where << "\n" << shown.err;
      const std::string prefix =
          "> " + std::to_string(static_cast<long long>(e.Get("line")->number)) + ": ";
      EXPECT_EQ(shown.out, prefix + e.Get("text")->string + "\n") << where;
      ++opened;
    }
  }
  EXPECT_GT(opened, 0u) << r.out;
  // The text report prints evidence in the same form.
  CliRun text = Cli({"analyze", bundle_, other, "--fail-on", "never"});
  EXPECT_TRUE(Contains(text.out, "run42:logs/coordinator.log:")) << text.out;
}

// ---------------------------------------------------------------------------
// Colour: only on a terminal, and never with NO_COLOR or --no-color.

TEST_F(CliTest, ColourOnlyOnTerminalWithoutNoColor) {
  const std::vector<std::string> args = {"analyze", bundle_, "--fail-on", "never"};
  CliRun tty = CliOnTerminal(args);
  EXPECT_EQ(tty.code, 0) << tty.err;
  EXPECT_NE(tty.out.find('\x1b'), std::string::npos) << "no colour on a terminal";
  EXPECT_TRUE(Contains(tty.out, "hang.bad_chip"));

  CliRun no_color = CliOnTerminal(args, {{"NO_COLOR", "1"}});
  EXPECT_EQ(no_color.code, 0);
  EXPECT_TRUE(Contains(no_color.out, "hang.bad_chip"));
  EXPECT_EQ(no_color.out.find('\x1b'), std::string::npos);

  // An empty NO_COLOR does not count (no-color.org).
  CliRun empty = CliOnTerminal(args, {{"NO_COLOR", ""}});
  EXPECT_NE(empty.out.find('\x1b'), std::string::npos);

  std::vector<std::string> flagged = args;
  flagged.push_back("--no-color");
  EXPECT_EQ(CliOnTerminal(flagged).out.find('\x1b'), std::string::npos);

  CliRun piped = Cli(args);
  EXPECT_EQ(piped.out.find('\x1b'), std::string::npos);
  EXPECT_EQ(piped.err.find('\x1b'), std::string::npos);

  CliRun show_tty = CliOnTerminal({"show", bundle_, "logs/coordinator.log:5"});
  EXPECT_NE(show_tty.out.find('\x1b'), std::string::npos);
  CliRun show_no_color =
      CliOnTerminal({"show", bundle_, "logs/coordinator.log:5"}, {{"NO_COLOR", "x"}});
  EXPECT_EQ(show_no_color.out.find('\x1b'), std::string::npos);
}

TEST_F(CliTest, ControlBytesInLinesAreShownNotSent) {
  // A stray ESC and BEL inside a log line must not reach the terminal raw.
  const std::string bundle = dir_.Join("ctl");
  WriteFile(bundle + "/app.log", "before\nbell\x07 and esc\x1b here\nafter\n");
  CliRun r = Cli({"show", bundle, "app.log:2", "--context", "0"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find('\x07'), std::string::npos) << r.out;
  EXPECT_TRUE(StartsWith(r.out, "> 2: bell^G and esc")) << r.out;
}

}  // namespace
