// ParseManifest: the casefile.json format in manifest.h.
#include <gtest/gtest.h>

#include "common/error.h"
#include "parse/classify/classify.h"

namespace casefile {
namespace {

ErrorCode CodeOf(std::string_view json, std::string* message = nullptr) {
  try {
    ParseManifest(json);
  } catch (const Error& e) {
    if (message) *message = e.what();
    return e.code();
  }
  return ErrorCode::kInternal;  // no error: the tests expect one
}

TEST(ClassifyManifestTest, FullManifest) {
  Manifest m = ParseManifest(R"({
    "format_version": 1,
    "host": "node03",
    "labels": {"job": "pretrain-7b", "attempt": 2, "tags": ["a", "b"]},
    "files": [
      {"path": "logs/rank3.log", "kind": "log", "host": "node03", "task": "worker_3", "rank": 3},
      {"path": "./dump/module_0001.jit_f.before_optimizations.txt", "kind": "hlo"},
      {"path": "/etc/env.txt", "kind": "config", "rank": "12"},
      {"path": "collector.bin", "kind": "something-new", "host": null}
    ],
    "collector": {"version": "9.9"}
  })");
  EXPECT_EQ(m.format_version, 1);
  EXPECT_EQ(m.host, "node03");
  ASSERT_EQ(m.labels.size(), 3u);
  EXPECT_EQ(m.labels["job"], "pretrain-7b");
  EXPECT_EQ(m.labels["attempt"], "2");
  EXPECT_EQ(m.labels["tags"], "[\"a\",\"b\"]");
  ASSERT_EQ(m.files.size(), 4u);
  const ManifestFile& log = m.files.at("logs/rank3.log");
  EXPECT_EQ(log.kind, FileKind::kLog);
  EXPECT_EQ(log.host, "node03");
  EXPECT_EQ(log.task, "worker_3");
  EXPECT_EQ(log.rank, 3);
  const ManifestFile& hlo = m.files.at("dump/module_0001.jit_f.before_optimizations.txt");
  EXPECT_EQ(hlo.kind, FileKind::kHlo);
  EXPECT_FALSE(hlo.host || hlo.task || hlo.rank);
  EXPECT_EQ(m.files.at("etc/env.txt").rank, 12);
  const ManifestFile& unknown = m.files.at("collector.bin");
  EXPECT_FALSE(unknown.kind.has_value());
  EXPECT_FALSE(unknown.host.has_value());
}

TEST(ClassifyManifestTest, MinimalManifest) {
  Manifest m = ParseManifest("{}");
  EXPECT_EQ(m.format_version, 0);
  EXPECT_FALSE(m.host.has_value());
  EXPECT_TRUE(m.labels.empty());
  EXPECT_TRUE(m.files.empty());
}

TEST(ClassifyManifestTest, InvalidManifestsThrowCorrupt) {
  std::string message;
  EXPECT_EQ(CodeOf("{\"host\": ", &message), ErrorCode::kCorrupt);
  EXPECT_NE(message.find("not valid JSON"), std::string::npos) << message;
  EXPECT_EQ(CodeOf("[1, 2]", &message), ErrorCode::kCorrupt);
  EXPECT_NE(message.find("root must be an object"), std::string::npos) << message;
  EXPECT_EQ(CodeOf("{\"files\": {}}", &message), ErrorCode::kCorrupt);
  EXPECT_NE(message.find("files must be an array"), std::string::npos) << message;
  EXPECT_EQ(CodeOf("{\"files\": [{\"kind\": \"log\"}]}", &message), ErrorCode::kCorrupt);
  EXPECT_NE(message.find("files[0].path is required"), std::string::npos) << message;
  EXPECT_EQ(
      CodeOf("{\"files\": [{\"path\": \"a\"}, {\"path\": \"b\", \"rank\": \"x3\"}]}", &message),
      ErrorCode::kCorrupt);
  EXPECT_NE(message.find("files[1].rank must be an integer"), std::string::npos) << message;
  EXPECT_EQ(CodeOf("{\"files\": [{\"path\": \"a\", \"rank\": -1}]}", &message),
            ErrorCode::kCorrupt);
  EXPECT_EQ(CodeOf("{\"host\": 3}", &message), ErrorCode::kCorrupt);
  EXPECT_NE(message.find("host must be a string"), std::string::npos) << message;
  EXPECT_EQ(CodeOf("{\"format_version\": \"1\"}"), ErrorCode::kCorrupt);
  EXPECT_EQ(CodeOf("{\"labels\": []}"), ErrorCode::kCorrupt);
  EXPECT_EQ(CodeOf("{\"files\": [3]}"), ErrorCode::kCorrupt);
  EXPECT_EQ(CodeOf(""), ErrorCode::kCorrupt);
}

}  // namespace
}  // namespace casefile
