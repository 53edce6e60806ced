// Collections end to end through collect::Collect: what is packed where,
// that no planted secret reaches any byte of the bundle, that a redaction
// keeps every line, that unreadable inputs, missing and hanging commands
// are recorded, and what a dry run lists. Every secret here is made up.
#include "collect/collect.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "collect/verify.h"
#include "collect_fixture.h"
#include "common/error.h"
#include "parse/classify/classify.h"
#include "test_util.h"

namespace casefile::collect {
namespace {

using casefile::test::Gzip;
using casefile::test::ReadFile;
using casefile::test::TempDir;
using casefile::test::WriteFile;
using test::BundleEntry;
using test::Count;
using test::Find;
using test::IsolatedOptions;
using test::ManifestFile;
using test::ReadBundle;

namespace fs = std::filesystem;

// One secret of a known kind per line (the private key block: one per body
// line), so the counts below are written from the lines.
const char kHfToken[] = "hf_Zq8XbT4mWn2RkP6yVd0LcJ9sHa3GfE1uQo";
const char kGithubToken[] = "ghp_4Tq9WzK2bN7xR1cV8mL3pY6dH0sJ5aF2gE9kQ";
const char kGithubPat[] = "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGH";
const char kAwsKeyId[] = "AKIAZ7Q2W3E4R5T6Y7U8";
const char kAwsSecret[] = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzz9Rq4Tm2X";
const char kGoogleKey[] = "AIzaSyB7x9Q2mK4vL8nR3pT6wZ1cF5hJ0dG8sA2";
const char kBearer[] = "eyJhbGciOiJIUzI1NiJ9.c2VjcmV0LXBheWxvYWQ.Zm9vYmFyYmF6";
const char kUrlPassword[] = "Pl4netHunt3rQ";
const char kKeyBody1[] = "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ";
const char kKeyBody2[] = "QyNTUxOQAAACDx7Kq3mZ9vXw2RtY5bN8cL1pH4sJ6dF0g";
const char kWandbKey[] = "3f9a1c7e5b2d8f4a6c0e1b3d5f7a9c2e4b6d8f0a";
const char kDbPassword[] = "Tr0ub4dor&3xyz";
const char kClientSecret[] = "s3cr3t-v4lue-9921";

std::string TrainLog() {
  return std::string("step 1 loss 2.31\n") +                                                // 1
         "login with token " + kHfToken + " ok\n" +                                         // 2
         "pushing with " + kGithubToken + " now\n" +                                        // 3
         "fine-grained " + kGithubPat + "\n" +                                              // 4
         "aws key " + kAwsKeyId + " in use\n" +                                             // 5
         "aws_secret_access_key = " + kAwsSecret + "\n" +                                   // 6
         "maps key " + kGoogleKey + " loaded\n" +                                           // 7
         "curl -H 'Authorization: Bearer " + kBearer + "' https://api.example.net\n" +      // 8
         "pip index https://trainer:" + kUrlPassword + "@artifacts.example.net/simple\n" +  // 9
         "-----BEGIN OPENSSH PRIVATE KEY-----\n" +                                          // 10
         kKeyBody1 + "\n" +                                                                 // 11
         kKeyBody2 + "\n" +                                                                 // 12
         "-----END OPENSSH PRIVATE KEY-----\n" +                                            // 13
         "WANDB_API_KEY=" + kWandbKey + "\n" +                                              // 14
         "db_password: " + kDbPassword + "\n" +                                             // 15
         "{\"client_secret\": \"" + kClientSecret + "\"}\n" +                               // 16
         "step 2 loss 2.30\n";                                                              // 17
}

size_t Lines(const std::string& s) {
  return static_cast<size_t>(std::count(s.begin(), s.end(), '\n'));
}

uint64_t Num(const JsonValue* v) {
  return v != nullptr ? v->AsUint64().value_or(UINT64_MAX) : UINT64_MAX;
}

std::map<std::string, uint64_t> Redactions(const JsonValue& file) {
  std::map<std::string, uint64_t> out;
  if (const JsonValue* r = file.Find("redactions")) {
    for (size_t i = 0; i < r->keys.size(); ++i)
      out[r->keys[i]] = r->values[i].AsUint64().value_or(0);
  }
  return out;
}

class CollectTest : public ::testing::Test {
 protected:
  std::string Out(const std::string& name = "out.tar.zst") { return dir_.Join(name); }
  TempDir dir_;
};

TEST_F(CollectTest, NoPlantedSecretReachesAnyByteOfTheBundle) {
  const std::string src = dir_.Join("src");
  WriteFile(src + "/logs/train.log", TrainLog());
  WriteFile(src + "/logs/old.log.gz",
            Gzip(std::string("rotated line\nAuthorization: Bearer ") + kBearer + "\n"));
  // A secret in a file name is replaced in the bundle path too.
  WriteFile(src + "/logs/run-" + kHfToken + ".log", "named after a token\n");
  WriteFile(src + "/configs/ds.yaml",
            std::string("optimizer: adam\nhub_token: ") + kHfToken + "\n");
  // Binary bytes holding a secret cannot be redacted in place: left out.
  WriteFile(src + "/logs/weights.bin",
            std::string("\x00\x01\x02\x03", 4) + kGithubToken + std::string(64, '\0'));

  CollectOptions o = IsolatedOptions(Out());
  o.logs = {src + "/logs"};
  o.configs = {src + "/configs/ds.yaml"};
  o.environment = std::vector<std::string>{
      "PATH=/usr/bin", std::string("HF_TOKEN=") + kHfToken, "CUDA_VISIBLE_DEVICES=0,1",
      std::string("HF_ENDPOINT=https://bob:") + kUrlPassword + "@hub.internal",
      "UNRELATED_SECRET=not-packed-at-all"};
  o.labels = {{"job", "pretrain"}, {"api_token", kWandbKey}};
  o.command_line = {"casefile", "collect", std::string("--hf-token=") + kHfToken};
  CollectResult r = Collect(o);

  const std::string tar = test::DecompressedBytes(Out());
  const std::string compressed = ReadFile(Out());
  ASSERT_GT(tar.size(), 1000u);
  for (const char* secret :
       {kHfToken, kGithubToken, kGithubPat, kAwsKeyId, kAwsSecret, kGoogleKey, kBearer,
        kUrlPassword, kKeyBody1, kKeyBody2, kWandbKey, kDbPassword, kClientSecret}) {
    EXPECT_EQ(Count(tar, secret), 0u) << secret;
    EXPECT_EQ(Count(compressed, secret), 0u) << secret;
  }
  // The variable outside the analyzers' prefixes is not packed at all.
  EXPECT_EQ(Count(tar, "UNRELATED_SECRET"), 0u);

  std::vector<BundleEntry> entries = ReadBundle(Out());
  ASSERT_FALSE(entries.empty());
  EXPECT_EQ(entries[0].path, "casefile.json");
  const BundleEntry* log = Find(entries, "hosts/testhost/logs/logs/train.log");
  ASSERT_NE(log, nullptr);
  EXPECT_EQ(Lines(log->content), 17u);
  EXPECT_NE(log->content.find("step 2 loss 2.30\n"), std::string::npos);
  EXPECT_NE(log->content.find("-----BEGIN OPENSSH PRIVATE KEY-----\n"), std::string::npos);

  const BundleEntry* gz = Find(entries, "hosts/testhost/logs/logs/old.log");
  ASSERT_NE(gz, nullptr) << "a .gz log is packed decompressed, its suffix dropped";
  EXPECT_EQ(gz->content.substr(0, 13), "rotated line\n");
  EXPECT_EQ(Find(entries, "hosts/testhost/logs/logs/weights.bin"), nullptr);

  JsonValue manifest = test::Manifest(entries);
  const JsonValue* file = ManifestFile(manifest, "hosts/testhost/logs/logs/train.log");
  ASSERT_NE(file, nullptr);
  std::map<std::string, uint64_t> expected = {
      {"hf_token", 1},          {"github_token", 2},
      {"aws_access_key_id", 1}, {"aws_secret_access_key", 1},
      {"google_api_key", 1},    {"bearer_token", 1},
      {"url_password", 1},      {"private_key", 2},
      {"named_secret", 3}};
  EXPECT_EQ(Redactions(*file), expected);
  EXPECT_EQ(file->Find("kind")->text, "log");
  EXPECT_EQ(Num(file->Find("size")), log->content.size());
  EXPECT_EQ(file->Find("source")->text, src + "/logs/train.log");

  // The file named after a token: its path and source hold a pseudonym.
  bool renamed = false;
  for (const auto& e : entries) {
    if (e.path.rfind("hosts/testhost/logs/logs/run-<redacted:hf_token:", 0) == 0) renamed = true;
  }
  EXPECT_TRUE(renamed);

  const BundleEntry* env = Find(entries, "hosts/testhost/env/env.txt");
  ASSERT_NE(env, nullptr);
  // Sorted by name: CUDA_..., HF_ENDPOINT, HF_TOKEN, PATH.
  EXPECT_EQ(env->content.find("CUDA_VISIBLE_DEVICES=0,1\n"), 0u);
  EXPECT_NE(env->content.find("HF_TOKEN=<redacted:"), std::string::npos);
  EXPECT_NE(env->content.find("HF_ENDPOINT=https://bob:<redacted:url_password:"),
            std::string::npos);
  EXPECT_EQ(env->content.substr(env->content.size() - 14), "PATH=/usr/bin\n");
  EXPECT_EQ(std::count(env->content.begin(), env->content.end(), '\n'), 4);

  // Labels and the command line are redacted in the manifest.
  EXPECT_EQ(manifest.Find("labels")->Find("job")->text, "pretrain");
  EXPECT_EQ(manifest.Find("labels")->Find("api_token")->text.rfind("<redacted:", 0), 0u);
  EXPECT_NE(manifest.Find("command_line")->text.find("--hf-token=<redacted:"), std::string::npos);

  // The binary file is an error, named.
  bool binary_error = false;
  for (const auto& e : r.errors) {
    if (e.source == src + "/logs/weights.bin" && e.message.find("binary") != std::string::npos) {
      binary_error = true;
    }
  }
  EXPECT_TRUE(binary_error);
  EXPECT_TRUE(r.partial());
  EXPECT_GE(r.redactions["hf_token"], 4u);  // log, path, config, env (at least)

  VerifyResult v = VerifyBundle(Out());
  EXPECT_TRUE(v.ok()) << (v.problems.empty() ? "" : v.problems[0].message);
  EXPECT_EQ(v.files_checked, r.files);
}

TEST_F(CollectTest, NoRedactPacksEverythingAsItIs) {
  const std::string src = dir_.Join("src");
  const std::string gz = Gzip("step 1\nstep 2\n");
  WriteFile(src + "/old.log.gz", gz);
  WriteFile(src + "/train.log", std::string("token ") + kHfToken + "\n");
  CollectOptions o = IsolatedOptions(Out());
  o.logs = {src};
  o.redact = false;
  CollectResult r = Collect(o);
  std::vector<BundleEntry> entries = ReadBundle(Out());
  // The gzip file keeps its bytes and name; its kind is that of its content,
  // as ingest (which gunzips it) will see it.
  const BundleEntry* packed = Find(entries, "hosts/testhost/logs/src/old.log.gz");
  ASSERT_NE(packed, nullptr);
  EXPECT_EQ(packed->content, gz);
  JsonValue m = test::Manifest(entries);
  EXPECT_EQ(ManifestFile(m, "hosts/testhost/logs/src/old.log.gz")->Find("kind")->text, "log");
  EXPECT_NE(Find(entries, "hosts/testhost/logs/src/train.log")->content.find(kHfToken),
            std::string::npos);
  EXPECT_FALSE(m.Find("redaction")->Find("enabled")->boolean);
  EXPECT_EQ(m.Find("redaction")->Find("key")->text, "none");
  EXPECT_TRUE(r.redactions.empty());
  EXPECT_TRUE(VerifyBundle(Out()).ok());
}

TEST_F(CollectTest, ManifestIsFirstAndReadableByIngest) {
  WriteFile(dir_.Join("src/rank3.log"), "hello\n");
  CollectOptions o = IsolatedOptions(Out());
  o.logs = {dir_.Join("src")};
  o.labels = {{"job", "pretrain-7b"}};
  Collect(o);
  std::vector<BundleEntry> entries = ReadBundle(Out());
  ASSERT_GE(entries.size(), 3u);
  EXPECT_EQ(entries[0].path, "casefile.json");
  for (size_t i = 2; i < entries.size(); ++i) EXPECT_LT(entries[i - 1].path, entries[i].path);
  casefile::Manifest m = ParseManifest(entries[0].content);
  EXPECT_EQ(m.format_version, 1);
  EXPECT_EQ(m.host, "testhost");
  EXPECT_EQ(m.labels["job"], "pretrain-7b");
  ASSERT_EQ(m.files.count("hosts/testhost/logs/src/rank3.log"), 1u);
  EXPECT_EQ(m.files["hosts/testhost/logs/src/rank3.log"].kind, FileKind::kLog);
  EXPECT_EQ(m.files["hosts/testhost/env/env.txt"].kind, FileKind::kConfig);
}

TEST_F(CollectTest, DeterministicCollectionsAreByteIdentical) {
  const std::string src = dir_.Join("src");
  WriteFile(src + "/a.log", TrainLog());
  WriteFile(src + "/b/c.log", "one\ntwo\n");
  CollectOptions o = IsolatedOptions(Out("one.tar.zst"));
  o.logs = {src};
  o.deterministic = true;
  o.redact_key = "a key shared by every host";
  Collect(o);
  // Another second, another mtime on the sources: still the same bundle.
  ::sleep(1);
  WriteFile(src + "/b/c.log", "one\ntwo\n");
  o.output = Out("two.tar.zst");
  o.threads = 1;  // zstd's output does not depend on its worker count
  Collect(o);
  EXPECT_EQ(ReadFile(Out("one.tar.zst")), ReadFile(Out("two.tar.zst")));
  for (const BundleEntry& e : ReadBundle(Out("one.tar.zst"))) {
    EXPECT_EQ(e.mtime, 0) << e.path;
    EXPECT_EQ(e.uid, 0) << e.path;
    EXPECT_EQ(e.gid, 0) << e.path;
    EXPECT_EQ(e.mode, 0644u) << e.path;
  }
  EXPECT_EQ(test::Manifest(ReadBundle(Out("one.tar.zst"))).Find("created_at")->text,
            "1970-01-01T00:00:00Z");

  // Without the shared key, pseudonyms come from a random key: the bundles
  // differ exactly where secrets were.
  o.redact_key.reset();
  o.output = Out("three.tar.zst");
  Collect(o);
  EXPECT_NE(ReadFile(Out("one.tar.zst")), ReadFile(Out("three.tar.zst")));
}

TEST_F(CollectTest, MaxBytesTailsTheLargestLogFromALineStart) {
  // 100,000 lines of 16 bytes ("L00000000000001\n" ...): line n starts at
  // byte 16 * (n - 1).
  std::string big;
  for (int i = 1; i <= 100000; ++i) {
    char line[32];
    std::snprintf(line, sizeof line, "L%014d\n", i);
    big += line;
  }
  ASSERT_EQ(big.size(), 1600000u);
  const std::string src = dir_.Join("src");
  WriteFile(src + "/big.log", big);
  WriteFile(src + "/small.log", "small log\n");                // 10 bytes
  WriteFile(src + "/ds.json", "{\"train_batch_size\": 8}\n");  // 24 bytes, a config: never cut
  CollectOptions o = IsolatedOptions(Out());
  o.logs = {src + "/big.log", src + "/small.log"};
  o.configs = {src + "/ds.json"};
  o.environment = std::vector<std::string>{};  // env.txt is empty: 0 bytes
  o.max_bytes = 1000034;
  CollectResult r = Collect(o);

  // Budget 1,000,034 - 24 (config) = 1,000,010 for the logs: small.log keeps
  // its 10 bytes, big.log 1,000,000. The cut is at 1,600,000 - 1,000,000 =
  // 600,000, a multiple of 16 = the start of line 37,501.
  std::vector<BundleEntry> entries = ReadBundle(Out());
  const BundleEntry* tail = Find(entries, "hosts/testhost/logs/big.log");
  ASSERT_NE(tail, nullptr);
  EXPECT_EQ(tail->content.size(), 1000000u);
  EXPECT_EQ(tail->content.substr(0, 16), "L00000000037501\n");
  EXPECT_EQ(tail->content.substr(tail->content.size() - 16), "L00000000100000\n");
  EXPECT_EQ(Find(entries, "hosts/testhost/logs/small.log")->content, "small log\n");
  EXPECT_NE(Find(entries, "hosts/testhost/configs/ds.json"), nullptr);

  JsonValue m = test::Manifest(entries);
  const JsonValue* f = ManifestFile(m, "hosts/testhost/logs/big.log");
  ASSERT_NE(f, nullptr);
  const JsonValue* t = f->Find("truncated");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(Num(t->Find("original_size")), 1600000u);
  EXPECT_EQ(Num(t->Find("kept_from")), 600000u);
  EXPECT_EQ(Num(t->Find("first_line")), 37501u);
  EXPECT_EQ(ManifestFile(m, "hosts/testhost/logs/small.log")->Find("truncated")->type,
            JsonValue::Type::kNull);
  EXPECT_FALSE(r.partial()) << "a cut asked for is not an error";
  EXPECT_TRUE(VerifyBundle(Out()).ok());

  // A budget that is not a line boundary: 1,000,000 + 5 for big.log cuts at
  // 599,995, and the next line start is 600,000 again.
  o.max_bytes = 1000039;
  o.output = Out("b.tar.zst");
  Collect(o);
  EXPECT_EQ(Find(ReadBundle(Out("b.tar.zst")), "hosts/testhost/logs/big.log")->content.size(),
            1000000u);
}

TEST_F(CollectTest, MaxBytesLeavesOutWholeFilesWhenTailsCannotFit) {
  const std::string src = dir_.Join("src");
  WriteFile(src + "/trace.json", "{\"traceEvents\": [" + std::string(3000, ' ') + "]}\n");
  WriteFile(src + "/w.log", std::string(100, 'x') + "\n");
  CollectOptions o = IsolatedOptions(Out());
  o.traces = {src + "/trace.json"};
  o.logs = {src + "/w.log"};
  o.environment = std::vector<std::string>{};
  o.max_bytes = 500;
  CollectResult r = Collect(o);
  std::vector<BundleEntry> entries = ReadBundle(Out());
  EXPECT_EQ(Find(entries, "hosts/testhost/traces/trace.json"), nullptr);
  ASSERT_NE(Find(entries, "hosts/testhost/logs/w.log"), nullptr);
  ASSERT_TRUE(r.partial());
  bool named = false;
  for (const auto& e : r.errors) {
    named = named || (e.source == src + "/trace.json" &&
                      e.message.find("--max-bytes 500") != std::string::npos);
  }
  EXPECT_TRUE(named);
  // The manifest lists the same error.
  JsonValue m = test::Manifest(entries);
  ASSERT_EQ(m.Find("errors")->items.size(), 1u);
  EXPECT_EQ(m.Find("errors")->items[0].Find("source")->text, src + "/trace.json");
}

TEST_F(CollectTest, HangingAndMissingCommandsAreRecordedNotFatal) {
  CollectOptions o = IsolatedOptions(Out());
  o.versions = true;
  o.command_timeout_ms = 400;
  o.commands = std::vector<CommandSpec>{
      {"hang", {"sleep", "100"}, "versions", "hang.txt", "version", {}},
      {"missing", {"casefile-no-such-command-xyz"}, "versions", "missing.txt", "version", {}},
      {"hello",
       {"sh", "-c", "echo hello; echo oops >&2; exit 3"},
       "sysinfo",
       "hello.txt",
       "sysinfo",
       {}},
      {"fallback",
       {"casefile-no-such-command-xyz"},
       "sysinfo",
       "fb.txt",
       "sysinfo",
       {"sh", "-c", "echo from the fallback"}},
  };
  auto start = std::chrono::steady_clock::now();
  CollectResult r = Collect(o);
  auto seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 10.0) << "the hanging command was not stopped at its timeout";

  std::vector<BundleEntry> entries = ReadBundle(Out());
  JsonValue m = test::Manifest(entries);
  const JsonValue* commands = m.Find("commands");
  ASSERT_NE(commands, nullptr);
  ASSERT_EQ(commands->items.size(), 5u);  // the fallback's first try is a record too
  const JsonValue& hang = commands->items[0];
  EXPECT_EQ(hang.Find("name")->text, "hang");
  EXPECT_TRUE(hang.Find("timed_out")->boolean);
  EXPECT_EQ(hang.Find("exit_status")->type, JsonValue::Type::kNull);
  EXPECT_EQ(Num(hang.Find("signal")), 15u);  // SIGTERM
  EXPECT_GE(Num(hang.Find("duration_ms")), 400u);
  const JsonValue& missing = commands->items[1];
  EXPECT_EQ(missing.Find("error")->text, "command not found");
  EXPECT_EQ(missing.Find("stdout_path")->type, JsonValue::Type::kNull);
  const JsonValue& hello = commands->items[2];
  EXPECT_EQ(Num(hello.Find("exit_status")), 3u);
  EXPECT_EQ(hello.Find("stdout_path")->text, "hosts/testhost/sysinfo/hello.txt");
  EXPECT_EQ(hello.Find("stderr_path")->text, "hosts/testhost/sysinfo/hello.stderr.txt");
  EXPECT_EQ(Find(entries, "hosts/testhost/sysinfo/hello.txt")->content, "hello\n");
  EXPECT_EQ(Find(entries, "hosts/testhost/sysinfo/hello.stderr.txt")->content, "oops\n");
  EXPECT_EQ(commands->items[3].Find("error")->text, "command not found");
  EXPECT_EQ(commands->items[4].Find("stdout_path")->text, "hosts/testhost/sysinfo/fb.txt");
  EXPECT_EQ(Find(entries, "hosts/testhost/sysinfo/fb.txt")->content, "from the fallback\n");
  EXPECT_EQ(ManifestFile(m, "hosts/testhost/sysinfo/hello.stderr.txt")->Find("kind")->text, "log");

  // The timeout is a collection error; the missing command is not (a tool
  // absent from a host is a fact, listed in commands).
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].source, "command:hang");
  EXPECT_EQ(m.Find("errors")->items.size(), 1u);
  EXPECT_TRUE(VerifyBundle(Out()).ok());
}

TEST_F(CollectTest, UnreadableInputsAreRecorded) {
  const std::string src = dir_.Join("src");
  WriteFile(src + "/good.log", "fine\n");
  ASSERT_EQ(::mkfifo((src + "/pipe.log").c_str(), 0644), 0);
  WriteFile(src + "/locked.log", "secret\n");
  ASSERT_EQ(::chmod((src + "/locked.log").c_str(), 0), 0);
  CollectOptions o = IsolatedOptions(Out());
  // The FIFO named directly, and met again inside the directory.
  o.logs = {src + "/pipe.log", src, dir_.Join("missing-dir"), src + "/nothing-*.log"};
  CollectResult r = Collect(o);

  std::map<std::string, std::string> errors;
  for (const auto& e : r.errors) errors[e.source] = e.message;
  EXPECT_EQ(errors[src + "/pipe.log"], "a FIFO, not read");
  EXPECT_EQ(errors[dir_.Join("missing-dir")], "not found");
  EXPECT_EQ(errors[src + "/nothing-*.log"], "no file matches the pattern");
  std::vector<BundleEntry> entries = ReadBundle(Out());
  EXPECT_NE(Find(entries, "hosts/testhost/logs/src/good.log"), nullptr);
  EXPECT_EQ(Find(entries, "hosts/testhost/logs/src/pipe.log"), nullptr);
  // Inside the walk the FIFO is skipped, and listed as such.
  bool skipped = false;
  for (const auto& e : r.entries) {
    skipped = skipped ||
              (e.action == "skip" && e.source == src + "/pipe.log" && e.note == "a FIFO, not read");
  }
  EXPECT_TRUE(skipped);
  if (::geteuid() != 0) {
    // Root reads a mode-000 file; anyone else cannot.
    EXPECT_EQ(errors[src + "/locked.log"], "not read: cannot open: Permission denied");
    EXPECT_EQ(Find(entries, "hosts/testhost/logs/src/locked.log"), nullptr);
  } else {
    EXPECT_EQ(errors.count(src + "/locked.log"), 0u);
  }
  JsonValue m = test::Manifest(entries);
  bool in_manifest = false;
  for (const auto& e : m.Find("errors")->items) {
    in_manifest = in_manifest || e.Find("source")->text == src + "/pipe.log";
  }
  EXPECT_TRUE(in_manifest);
  EXPECT_TRUE(VerifyBundle(Out()).ok());
}

TEST_F(CollectTest, SinceLeavesOutOldFilesFoundInDirectoriesOnly) {
  const std::string src = dir_.Join("src");
  WriteFile(src + "/old.log", "old\n");
  WriteFile(src + "/new.log", "new\n");
  WriteFile(dir_.Join("named-old.log"), "named\n");
  struct timespec old_times[2] = {{1000000000, 0}, {1000000000, 0}};
  ASSERT_EQ(::utimensat(AT_FDCWD, (src + "/old.log").c_str(), old_times, 0), 0);
  ASSERT_EQ(::utimensat(AT_FDCWD, dir_.Join("named-old.log").c_str(), old_times, 0), 0);
  CollectOptions o = IsolatedOptions(Out());
  o.logs = {src, dir_.Join("named-old.log")};
  o.since_seconds = 3600;
  CollectResult r = Collect(o);
  std::vector<BundleEntry> entries = ReadBundle(Out());
  EXPECT_NE(Find(entries, "hosts/testhost/logs/src/new.log"), nullptr);
  EXPECT_EQ(Find(entries, "hosts/testhost/logs/src/old.log"), nullptr);
  EXPECT_NE(Find(entries, "hosts/testhost/logs/named-old.log"), nullptr);
  JsonValue m = test::Manifest(entries);
  ASSERT_EQ(m.Find("skipped")->items.size(), 1u);
  EXPECT_EQ(m.Find("skipped")->items[0].Find("source")->text, src + "/old.log");
  EXPECT_FALSE(r.partial());
}

TEST_F(CollectTest, DryRunListsAndWritesNothing) {
  const std::string src = dir_.Join("src");
  WriteFile(src + "/train.log", TrainLog());
  WriteFile(src + "/a.pkl", std::string("\x80\x04", 2) + kHfToken);
  CollectOptions o = IsolatedOptions(Out());
  o.logs = {src};
  o.dry_run = true;
  o.versions = true;
  o.commands = std::vector<CommandSpec>{{"marker",
                                         {"sh", "-c", "touch " + dir_.Join("ran")},
                                         "versions",
                                         "marker.txt",
                                         "version",
                                         {}}};
  CollectResult r = Collect(o);
  EXPECT_FALSE(fs::exists(Out()));
  EXPECT_FALSE(fs::exists(dir_.Join("ran"))) << "a dry run runs no command";
  for (const auto& e : fs::directory_iterator(dir_.path())) {
    EXPECT_EQ(e.path().filename().string().find(".tmp-"), std::string::npos);
  }
  std::map<std::string, CollectEntry> by_path;
  for (const auto& e : r.entries) by_path[e.path] = e;
  ASSERT_EQ(by_path.count("hosts/testhost/logs/src/train.log"), 1u);
  const CollectEntry& log = by_path["hosts/testhost/logs/src/train.log"];
  EXPECT_EQ(log.action, "pack");
  EXPECT_EQ(log.kind, "log");
  EXPECT_EQ(log.redactions, 13u);
  EXPECT_EQ(by_path["hosts/testhost/logs/src/a.pkl"].action, "skip");
  EXPECT_EQ(by_path["hosts/testhost/versions/marker.txt"].action, "run");
  EXPECT_EQ(r.archive_bytes, 0u);
}

TEST_F(CollectTest, DiscoveredDumpsAndJobConfigsArePacked) {
  const std::string xla = dir_.Join("xla_dump");
  WriteFile(xla + "/module_0001.jit_step.before_optimizations.txt", "HloModule jit_step\n");
  WriteFile(dir_.Join("fr/trace_rank_0"), "{\"entries\": [], \"pg_config\": {}}\n");
  WriteFile(dir_.Join("fr/trace_rank_1"), "{\"entries\": [], \"pg_config\": {}}\n");
  WriteFile(dir_.Join("job/ds_config.json"), "{\"zero_optimization\": {\"stage\": 2}}\n");
  WriteFile(dir_.Join("job/accelerate.yaml"), "distributed_type: DEEPSPEED\n");
  WriteFile(dir_.Join("cmdline"), "deepspeed train.py --deepspeed " +
                                      dir_.Join("job/ds_config.json") + " --config_file " +
                                      dir_.Join("job/accelerate.yaml") + " --hf_token " + kHfToken +
                                      "\n");
  CollectOptions o = IsolatedOptions(Out());
  o.discover = true;
  o.environment =
      std::vector<std::string>{"XLA_FLAGS=--xla_dump_hlo_as_text --xla_dump_to=" + xla,
                               "TORCH_NCCL_DEBUG_INFO_TEMP_FILE=" + dir_.Join("fr/trace_rank_")};
  o.job_cmdline_file = dir_.Join("cmdline");
  CollectResult r = Collect(o);
  std::vector<BundleEntry> entries = ReadBundle(Out());
  EXPECT_NE(
      Find(entries, "hosts/testhost/hlo/xla_dump/module_0001.jit_step.before_optimizations.txt"),
      nullptr);
  EXPECT_NE(Find(entries, "hosts/testhost/flight_recorder/trace_rank_0"), nullptr);
  EXPECT_NE(Find(entries, "hosts/testhost/flight_recorder/trace_rank_1"), nullptr);
  EXPECT_NE(Find(entries, "hosts/testhost/configs/ds_config.json"), nullptr);
  EXPECT_NE(Find(entries, "hosts/testhost/configs/accelerate.yaml"), nullptr);
  const BundleEntry* job = Find(entries, "hosts/testhost/job/job_cmdline.txt");
  ASSERT_NE(job, nullptr);
  EXPECT_EQ(job->content.find(kHfToken), std::string::npos);
  EXPECT_NE(job->content.find("--deepspeed "), std::string::npos);
  JsonValue m = test::Manifest(entries);
  EXPECT_EQ(
      ManifestFile(m, "hosts/testhost/hlo/xla_dump/module_0001.jit_step.before_optimizations.txt")
          ->Find("kind")
          ->text,
      "hlo");
  EXPECT_EQ(ManifestFile(m, "hosts/testhost/configs/ds_config.json")->Find("kind")->text, "config");
  EXPECT_FALSE(r.partial());
}

TEST_F(CollectTest, AFileChangedBetweenThePassesIsReportedAndFailsVerify) {
  const std::string src = dir_.Join("src");
  WriteFile(src + "/a.log", "first file\n");
  WriteFile(src + "/z.log", "original content\n");
  CollectOptions o = IsolatedOptions(Out());
  o.logs = {src};
  bool changed = false;
  // The write phase begins with the manifest and a.log; z.log is read again
  // after this rewrite of the same size.
  CollectResult r = Collect(o, [&](CollectPhase phase, uint64_t, uint64_t, std::string_view) {
    if (phase == CollectPhase::kWrite && !changed) {
      WriteFile(src + "/z.log", "ORIGINAL CONTENT\n");
      changed = true;
    }
    return true;
  });
  ASSERT_TRUE(changed);
  ASSERT_TRUE(r.partial());
  EXPECT_EQ(r.errors.back().source, src + "/z.log");
  EXPECT_NE(r.errors.back().message.find("changed while being collected"), std::string::npos);
  VerifyResult v = VerifyBundle(Out());
  ASSERT_EQ(v.problems.size(), 1u);
  EXPECT_EQ(v.problems[0].path, "hosts/testhost/logs/src/z.log");
  EXPECT_EQ(v.problems[0].kind, "sha256");
}

TEST_F(CollectTest, ASecretWrittenIntoAFileBetweenThePassesNeverReachesTheBundle) {
  // 3 MiB of clean 100-byte lines: pass 1 finds nothing to redact, so pass 2
  // copies the file after checking each 1 MiB segment against pass 1. Line
  // 10,486 starts at byte 1,048,500 and runs over the first segment's end.
  std::string clean;
  for (int i = 0; clean.size() < (3u << 20); ++i) {
    char line[128];
    std::snprintf(line, sizeof line, "I1129 09:21:00.000000 1 train.py:1] step %055d ok\n", i);
    clean += line;
  }
  ASSERT_EQ(clean.size() % 100, 0u);
  const std::string src = dir_.Join("src");
  WriteFile(src + "/a.log", "first file\n");
  WriteFile(src + "/z.log", clean);
  CollectOptions o = IsolatedOptions(Out());
  o.logs = {src};
  bool rewritten = false;
  CollectResult r = Collect(o, [&](CollectPhase phase, uint64_t, uint64_t, std::string_view) {
    if (phase == CollectPhase::kWrite && !rewritten) {
      // The same size; a token just after the first segment, in the line
      // that began before it, and one more later on.
      std::string changed = clean;
      const std::string secret = std::string(" ") + kHfToken;
      changed.replace((1u << 20) + 5, secret.size(), secret);
      changed.replace((5u << 20) / 2, secret.size(), secret);
      WriteFile(src + "/z.log", changed);
      rewritten = true;
    }
    return true;
  });
  ASSERT_TRUE(rewritten);
  const std::string tar = test::DecompressedBytes(Out());
  EXPECT_EQ(Count(tar, kHfToken), 0u);
  EXPECT_EQ(Count(tar, "hf_Zq8"), 0u) << "not even a part of it";
  std::vector<BundleEntry> entries = ReadBundle(Out());
  const BundleEntry* z = Find(entries, "hosts/testhost/logs/src/z.log");
  ASSERT_NE(z, nullptr);
  ASSERT_EQ(z->content.size(), clean.size());
  // The first segment verified, but its last, partial line waited for the
  // second, which changed: the bundle holds the lines before it, then NUL.
  const size_t kept = 1048500;
  EXPECT_TRUE(z->content.compare(0, kept, clean, 0, kept) == 0);
  EXPECT_TRUE(z->content.find_first_not_of('\0', kept) == std::string::npos);
  ASSERT_TRUE(r.partial());
  EXPECT_NE(r.errors.back().message.find("changed while being collected"), std::string::npos);
  VerifyResult v = VerifyBundle(Out());
  ASSERT_EQ(v.problems.size(), 1u);
  EXPECT_EQ(v.problems[0].kind, "sha256");
}

TEST_F(CollectTest, AGrowingLogPacksTheBytesItHadWhenScanned) {
  const std::string src = dir_.Join("src");
  WriteFile(src + "/a.log", "first file\n");
  WriteFile(src + "/z.log", "line one\n");
  CollectOptions o = IsolatedOptions(Out());
  o.logs = {src};
  bool appended = false;
  CollectResult r = Collect(o, [&](CollectPhase phase, uint64_t, uint64_t, std::string_view) {
    if (phase == CollectPhase::kWrite && !appended) {
      std::FILE* f = std::fopen((src + "/z.log").c_str(), "a");
      std::fputs("line two, written during the collection\n", f);
      std::fclose(f);
      appended = true;
    }
    return true;
  });
  ASSERT_TRUE(appended);
  EXPECT_FALSE(r.partial());
  EXPECT_EQ(Find(ReadBundle(Out()), "hosts/testhost/logs/src/z.log")->content, "line one\n");
  EXPECT_TRUE(VerifyBundle(Out()).ok());
}

TEST_F(CollectTest, AbortRemovesTheOutput) {
  WriteFile(dir_.Join("src/a.log"), "a\n");
  CollectOptions o = IsolatedOptions(Out());
  o.logs = {dir_.Join("src")};
  try {
    Collect(o, [](CollectPhase phase, uint64_t, uint64_t, std::string_view) {
      return phase != CollectPhase::kWrite;
    });
    ADD_FAILURE() << "no abort";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kAborted);
  }
  EXPECT_FALSE(fs::exists(Out()));
  for (const auto& e : fs::directory_iterator(dir_.path())) {
    EXPECT_EQ(e.path().filename().string().find(".tmp-"), std::string::npos) << e.path();
  }
}

TEST_F(CollectTest, RedactHostsReplacesTheHostEverywhere) {
  WriteFile(dir_.Join("src/a.log"), "connected to testhost at 10.1.2.3 port 29500\n");
  CollectOptions o = IsolatedOptions(Out());
  o.logs = {dir_.Join("src")};
  o.redact_hosts = true;
  Collect(o);
  const std::string tar = test::DecompressedBytes(Out());
  EXPECT_EQ(Count(tar, "testhost"), 0u);
  EXPECT_EQ(Count(tar, "10.1.2.3"), 0u);
  std::vector<BundleEntry> entries = ReadBundle(Out());
  JsonValue m = test::Manifest(entries);
  const std::string host = m.Find("host")->text;
  EXPECT_EQ(host.rfind("<redacted:hostname:", 0), 0u);
  const BundleEntry* log = Find(entries, "hosts/" + host + "/logs/src/a.log");
  ASSERT_NE(log, nullptr);
  // The host in the line and the host folder are the same pseudonym.
  EXPECT_EQ(log->content.rfind("connected to " + host + " at <redacted:ip_address:", 0), 0u);
}

TEST_F(CollectTest, InvalidOptionsAreRefused) {
  CollectOptions o = IsolatedOptions("");
  EXPECT_THROW(Collect(o), Error);
  o = IsolatedOptions(Out());
  o.zstd_level = 30;
  EXPECT_THROW(Collect(o), Error);
  o = IsolatedOptions(Out());
  o.redact_key = "short";
  EXPECT_THROW(Collect(o), Error);
  o = IsolatedOptions(dir_.Join("no/such/dir/out.tar.zst"));
  try {
    Collect(o);
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kIo);
  }
}

TEST_F(CollectTest, TheOutputIsNeverCollectedIntoItself) {
  WriteFile(dir_.Join("a.log"), "a\n");
  WriteFile(Out(), "an older bundle\n");
  CollectOptions o = IsolatedOptions(Out());
  o.logs = {dir_.path()};
  Collect(o);
  for (const BundleEntry& e : ReadBundle(Out())) {
    EXPECT_EQ(e.path.find("out.tar.zst"), std::string::npos) << e.path;
  }
}

}  // namespace
}  // namespace casefile::collect
