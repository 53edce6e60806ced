// Leak paths and self-inclusion found in review: text that reached the
// bundle without passing the redactor, and the output collected into
// itself when reached by another name. Every secret here is made up.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "collect/collect.h"
#include "collect/nested_archive.h"
#include "collect_fixture.h"
#include "test_util.h"

namespace casefile::collect {
namespace {

using casefile::test::Gzip;
using casefile::test::ReadFile;
using casefile::test::TempDir;
using casefile::test::WriteFile;
using test::BundleEntry;
using test::DecompressedBytes;
using test::IsolatedOptions;
using test::ReadBundle;

namespace fs = std::filesystem;

const char kGithubToken[] = "ghp_R7vK2mQ9xT4nB8cW1zL5pY3dH6sJ0aF8gE2kU";

bool AnyPathContains(const std::vector<BundleEntry>& entries, const std::string& needle) {
  for (const auto& e : entries) {
    if (e.path.find(needle) != std::string::npos) return true;
  }
  return false;
}

// env.txt is not scanned after it is made: a secret in a variable's name
// (any bytes but '=') must be redacted when it is written.
TEST(CollectReviewTest, SecretInAnEnvironmentNameIsRedacted) {
  TempDir dir;
  CollectOptions o = IsolatedOptions(dir.Join("out.tar.zst"));
  o.environment =
      std::vector<std::string>{std::string("NCCL_NOTE ") + kGithubToken + "=1", "NCCL_DEBUG=INFO"};
  Collect(o);
  std::string bytes = DecompressedBytes(dir.Join("out.tar.zst"));
  EXPECT_EQ(bytes.find(kGithubToken), std::string::npos);
  std::vector<BundleEntry> entries = ReadBundle(dir.Join("out.tar.zst"));
  const BundleEntry* env = test::Find(entries, "hosts/testhost/env/env.txt");
  ASSERT_NE(env, nullptr);
  EXPECT_NE(env->content.find("NCCL_DEBUG=INFO\n"), std::string::npos);
  EXPECT_NE(env->content.find("NCCL_NOTE <redacted:github_token:"), std::string::npos);
}

// A line break in a name would split the variable over two lines.
TEST(CollectReviewTest, LineBreakInAnEnvironmentNameStaysOnOneLine) {
  TempDir dir;
  CollectOptions o = IsolatedOptions(dir.Join("out.tar.zst"));
  o.environment = std::vector<std::string>{"NCCL_A\nB=1"};
  Collect(o);
  std::vector<BundleEntry> entries = ReadBundle(dir.Join("out.tar.zst"));
  const BundleEntry* env = test::Find(entries, "hosts/testhost/env/env.txt");
  ASSERT_NE(env, nullptr);
  EXPECT_EQ(env->content, "NCCL_A\\nB=1\n");
}

// --logs names the directory the output is written to through a symbolic
// link: neither the bundle being written (its temporary name) nor the old
// bundle the rename replaces may be packed.
TEST(CollectReviewTest, OutputReachedThroughALinkIsNotCollected) {
  TempDir dir;
  WriteFile(dir.Join("real/train.log"), "step 1\n");
  WriteFile(dir.Join("real/out.tar.zst"), "an old bundle\n");
  fs::create_directory_symlink(dir.Join("real"), dir.Join("link"));
  CollectOptions o = IsolatedOptions(dir.Join("real/out.tar.zst"));
  o.logs = {dir.Join("link")};
  CollectResult r = Collect(o);
  std::vector<BundleEntry> entries = ReadBundle(dir.Join("real/out.tar.zst"));
  EXPECT_NE(test::Find(entries, "hosts/testhost/logs/link/train.log"), nullptr);
  EXPECT_FALSE(AnyPathContains(entries, "out.tar"));
  EXPECT_EQ(r.files, 2u);  // train.log and env.txt
}

// A hard link to the output, in a collected directory, is the output.
TEST(CollectReviewTest, HardLinkToTheOldOutputIsNotCollected) {
  TempDir dir;
  WriteFile(dir.Join("logs/train.log"), "step 1\n");
  WriteFile(dir.Join("out.tar.zst"), "an old bundle\n");
  ASSERT_EQ(::link(dir.Join("out.tar.zst").c_str(), dir.Join("logs/copy.bin").c_str()), 0);
  CollectOptions o = IsolatedOptions(dir.Join("out.tar.zst"));
  o.logs = {dir.Join("logs")};
  Collect(o);
  std::vector<BundleEntry> entries = ReadBundle(dir.Join("out.tar.zst"));
  EXPECT_NE(test::Find(entries, "hosts/testhost/logs/logs/train.log"), nullptr);
  EXPECT_EQ(test::Find(entries, "hosts/testhost/logs/logs/copy.bin"), nullptr);
}

// Shell quoting put around a whole word hides where its value ends from a
// line redactor: "db_password=two words" became 'db_password=two words'
// (" words" left), and an apostrophe ends a quoted value early.
TEST(CollectReviewTest, QuotedWordsOfTheCommandLinesAreRedactedWhole) {
  TempDir dir;
  // NUL-separated, as /proc/PID/cmdline.
  const char kCmdline[] =
      "python\0train.py\0--api_key\0ab'cdTailOne\0--db_password=ef gh TailTwo\0"
      "--max_tokens=4096\0--tokenizer\0gpt2\0";
  WriteFile(dir.Join("cmdline"), std::string(kCmdline, sizeof kCmdline - 1));
  CollectOptions o = IsolatedOptions(dir.Join("out.tar.zst"));
  o.job_cmdline_file = dir.Join("cmdline");
  o.labels = {{"db_password", "two words TailThree"}, {"hf_token", "it's TailFour"}};
  o.command_line = {"casefile", "collect",
                    "--label",  "db_password=two words TailThree",
                    "--label",  "hf_token=it's TailFour",
                    "--label",  "job=pre train"};
  Collect(o);
  std::string bytes = DecompressedBytes(dir.Join("out.tar.zst"));
  for (const char* tail : {"TailOne", "TailTwo", "TailThree", "TailFour"}) {
    EXPECT_EQ(bytes.find(tail), std::string::npos) << tail;
  }
  std::vector<BundleEntry> entries = ReadBundle(dir.Join("out.tar.zst"));
  const BundleEntry* job = test::Find(entries, "hosts/testhost/job/job_cmdline.txt");
  ASSERT_NE(job, nullptr);
  // What names no secret is kept as it was.
  EXPECT_NE(job->content.find("python train.py --api_key '<redacted:named_secret:"),
            std::string::npos);
  EXPECT_NE(job->content.find(" --max_tokens=4096 --tokenizer gpt2\n"), std::string::npos);
  EXPECT_NE(job->content.find("'--db_password=<redacted:named_secret:"), std::string::npos);
  JsonValue manifest = test::Manifest(entries);
  const JsonValue* line = manifest.Find("command_line");
  ASSERT_NE(line, nullptr);
  EXPECT_NE(line->text.find("--label 'job=pre train'"), std::string::npos);
  const JsonValue* file = test::ManifestFile(manifest, "hosts/testhost/job/job_cmdline.txt");
  ASSERT_NE(file, nullptr);
  const JsonValue* redactions = file->Find("redactions");
  ASSERT_NE(redactions, nullptr);
  const JsonValue* named = redactions->Find("named_secret");
  ASSERT_NE(named, nullptr);
  EXPECT_EQ(named->text, "2");
}

// The last line ("hello\n", 6 bytes) is longer than the cap (2): its last
// 2 bytes are kept mid-line, not an empty tail that left the file out.
TEST(CollectReviewTest, ALastLineLongerThanTheCapIsKeptMidLine) {
  TempDir dir;
  WriteFile(dir.Join("logs/a.log"), "hello\n");
  CollectOptions o = IsolatedOptions(dir.Join("out.tar.zst"));
  o.logs = {dir.Join("logs")};
  o.max_bytes = 2;  // env.txt (a config, 19 bytes) cannot be cut and is left out
  CollectResult r = Collect(o);
  std::vector<BundleEntry> entries = ReadBundle(dir.Join("out.tar.zst"));
  const BundleEntry* log = test::Find(entries, "hosts/testhost/logs/logs/a.log");
  ASSERT_NE(log, nullptr);
  EXPECT_EQ(log->content, "o\n");
  JsonValue manifest = test::Manifest(entries);
  const JsonValue* file = test::ManifestFile(manifest, "hosts/testhost/logs/logs/a.log");
  ASSERT_NE(file, nullptr);
  const JsonValue* truncated = file->Find("truncated");
  ASSERT_NE(truncated, nullptr);
  ASSERT_NE(truncated->Find("kept_from"), nullptr);
  EXPECT_EQ(truncated->Find("original_size")->text, "6");
  EXPECT_EQ(truncated->Find("kept_from")->text, "4");
  EXPECT_EQ(truncated->Find("first_line")->text, "1");
  EXPECT_EQ(r.files, 1u);
}

// "ab\ncdef\n" cut to 3: no line starts in the last 3 bytes but the end,
// so they are kept from the middle of line 2.
TEST(CollectReviewTest, AMidLineTailCountsTheLinesBeforeIt) {
  TempDir dir;
  WriteFile(dir.Join("logs/a.log"), "ab\ncdef\n");
  CollectOptions o = IsolatedOptions(dir.Join("out.tar.zst"));
  o.logs = {dir.Join("logs")};
  o.max_bytes = 3;
  Collect(o);
  std::vector<BundleEntry> entries = ReadBundle(dir.Join("out.tar.zst"));
  const BundleEntry* log = test::Find(entries, "hosts/testhost/logs/logs/a.log");
  ASSERT_NE(log, nullptr);
  EXPECT_EQ(log->content, "ef\n");
  JsonValue manifest = test::Manifest(entries);
  const JsonValue* file = test::ManifestFile(manifest, "hosts/testhost/logs/logs/a.log");
  ASSERT_NE(file, nullptr);
  const JsonValue* truncated = file->Find("truncated");
  ASSERT_NE(truncated, nullptr);
  ASSERT_NE(truncated->Find("kept_from"), nullptr);
  EXPECT_EQ(truncated->Find("kept_from")->text, "5");  // the offset of "e"
  EXPECT_EQ(truncated->Find("first_line")->text, "2");
}

// A host name is written as the manifest's "host" and in every path: a
// secret in it is redacted in both, to the same folder name.
TEST(CollectReviewTest, SecretInTheHostNameIsRedactedEverywhere) {
  TempDir dir;
  CollectOptions o = IsolatedOptions(dir.Join("out.tar.zst"));
  o.host = std::string("node-") + kGithubToken;
  Collect(o);
  std::string bytes = DecompressedBytes(dir.Join("out.tar.zst"));
  EXPECT_EQ(bytes.find(kGithubToken), std::string::npos);
  std::vector<BundleEntry> entries = ReadBundle(dir.Join("out.tar.zst"));
  JsonValue manifest = test::Manifest(entries);
  const JsonValue* host = manifest.Find("host");
  ASSERT_NE(host, nullptr);
  EXPECT_EQ(host->text.rfind("node-<redacted:github_token:", 0), 0u);
  EXPECT_NE(test::Find(entries, "hosts/" + host->text + "/env/env.txt"), nullptr);
}

// An uncompressed tar is packed as it is: a gzip member inside it would
// carry its text past the redactor. A tar of plain members is still packed
// (its text is seen), and a .tgz is checked after its decompression.
TEST(CollectReviewTest, TarWithACompressedMemberIsLeftOut) {
  TempDir dir;
  fs::create_directories(dir.Join("logs"));
  fs::create_directories(dir.Join("src"));
  const std::string secret_log = std::string("token ") + kGithubToken + " here\n";
  casefile::test::WriteArchive(dir.Join("logs/inner.tar"), "tar",
                               {{"old.log.gz", Gzip(secret_log)}});
  casefile::test::WriteArchive(dir.Join("logs/inner2.tgz"), "tar.gz",
                               {{"old.log.gz", Gzip(secret_log)}});
  casefile::test::WriteArchive(dir.Join("logs/plain.tar"), "tar", {{"a.log", "step 1\n"}});
  // A zip is left out; gzipped, it is only seen as one once decompressed.
  casefile::test::WriteArchive(dir.Join("src/x.zip"), "zip", {{"a.log", secret_log}});
  WriteFile(dir.Join("logs/x.zip.gz"), Gzip(ReadFile(dir.Join("src/x.zip"))));
  CollectOptions o = IsolatedOptions(dir.Join("out.tar.zst"));
  o.logs = {dir.Join("logs")};
  CollectResult r = Collect(o);
  std::vector<BundleEntry> entries = ReadBundle(dir.Join("out.tar.zst"));
  EXPECT_EQ(test::Find(entries, "hosts/testhost/logs/logs/inner.tar"), nullptr);
  EXPECT_EQ(test::Find(entries, "hosts/testhost/logs/logs/inner2.tar"), nullptr);
  EXPECT_EQ(test::Find(entries, "hosts/testhost/logs/logs/x.zip"), nullptr);
  EXPECT_NE(test::Find(entries, "hosts/testhost/logs/logs/plain.tar"), nullptr);
  ASSERT_EQ(r.errors.size(), 3u);
  for (const auto& e : r.errors) {
    EXPECT_NE(e.message.find("holds archived or compressed data"), std::string::npos) << e.source;
  }
  EXPECT_EQ(r.errors[2].source, dir.Join("logs/x.zip.gz"));
}

// A control character in a name becomes '_' in the bundle path; were the
// path redacted only after that, "b\rghp_..." would become "b_ghp_...",
// where the token follows a word character and no pattern finds it.
TEST(CollectReviewTest, ATokenAfterAControlCharacterInANameIsRedacted) {
  TempDir dir;
  WriteFile(dir.Join(std::string("logs/b\r") + kGithubToken + ".log"), "step 1\n");
  WriteFile(dir.Join(std::string("logs/c\x01") + kGithubToken + "/d.log"), "step 2\n");
  CollectOptions o = IsolatedOptions(dir.Join("out.tar.zst"));
  o.logs = {dir.Join("logs")};
  CollectResult r = Collect(o);
  EXPECT_EQ(r.files, 3u);
  std::string bytes = DecompressedBytes(dir.Join("out.tar.zst"));
  EXPECT_EQ(bytes.find(kGithubToken), std::string::npos);
  std::vector<BundleEntry> entries = ReadBundle(dir.Join("out.tar.zst"));
  bool found_b = false;
  bool found_c = false;
  for (const auto& e : entries) {
    found_b |= e.path.rfind("hosts/testhost/logs/logs/b_<redacted:github_token:", 0) == 0;
    found_c |= e.path.rfind("hosts/testhost/logs/logs/c_<redacted:github_token:", 0) == 0;
  }
  EXPECT_TRUE(found_b);
  EXPECT_TRUE(found_c);
}

// The tar's headers are followed whatever the chunks: fed one byte at a
// time, and whole, the same answer.
TEST(CollectReviewTest, NestedArchiveSnifferFollowsHeadersAcrossChunks) {
  TempDir dir;
  casefile::test::WriteArchive(dir.Join("gz.tar"), "tar",
                               {{"a.log", std::string(700, 'x')}, {"b.gz", Gzip("text\n")}});
  casefile::test::WriteArchive(dir.Join("plain.tar"), "tar",
                               {{"a.log", std::string(700, 'x')}, {"b.log", "text\n"}});
  casefile::test::WriteArchive(dir.Join("tar.tar"), "tar",
                               {{"inner.tar", ReadFile(dir.Join("plain.tar"))}});
  for (const auto& [name, want] : std::vector<std::pair<std::string, bool>>{
           {"gz.tar", true}, {"plain.tar", false}, {"tar.tar", true}}) {
    const std::string bytes = ReadFile(dir.Join(name));
    NestedArchiveSniffer whole;
    whole.Feed(bytes);
    EXPECT_EQ(whole.found(), want) << name;
    NestedArchiveSniffer bytewise;
    for (char c : bytes) bytewise.Feed(std::string_view(&c, 1));
    EXPECT_EQ(bytewise.found(), want) << name;
  }
  NestedArchiveSniffer text;
  text.Feed("not a tar at all\n");
  EXPECT_FALSE(text.found());
}

}  // namespace
}  // namespace casefile::collect
