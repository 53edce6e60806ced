// Report rendering: the JSON shape documented in docs/CLI.md (null for unknown
// culprit fields, every section present), valid UTF-8 whatever the log held,
// colour only when asked.
#include <gtest/gtest.h>

#include "common/json_writer.h"
#include "report/report.h"

namespace casefile {
namespace {

Report Sample() {
  Report r;
  BundleRow b;
  b.name = "host-0.tar.zst";
  b.path = "/data/host-0.tar.zst";
  b.format = "tar.zst";
  b.status = "partial";
  b.error = "entry 'logs/x.log': corrupt at byte 1024";
  b.entries = 3;
  b.bytes = 99;
  r.bundles.push_back(b);
  r.analyzers.push_back({"hang", "1", "ran", "", 1});
  r.analyzers.push_back({"numeric", "1", "not_applicable", "no log files in the bundle", 0});
  Finding f;
  f.code = "hang.bad_chip";
  f.analyzer = "hang";
  f.severity = Severity::kError;
  f.title = "Hang caused by a bad TPU chip";
  f.summary = "launch_id 13650";
  f.culprits.push_back({std::string("w-5"), std::nullopt, std::nullopt});
  f.evidence.push_back({"host-0.tar.zst", "logs/w-0.log", 12, "bad \xff byte"});
  f.recommendation = "Remove the host.";
  r.findings.push_back(f);
  r.ingest_issues.push_back(
      {"host-0.tar.zst", {1, "logs/x.log", 1024, "archive_corrupt", "corrupt"}});
  return r;
}

TEST(RenderJson, ShapeAndNulls) {
  const std::string json = RenderJson(Sample());
  EXPECT_NE(json.find("\"casefile_version\": "), std::string::npos);
  EXPECT_NE(json.find("\"host\": \"w-5\",\n          \"task\": null,\n          \"rank\": null"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"status\": \"not_applicable\""), std::string::npos);
  EXPECT_NE(json.find("\"reason\": \"no log files in the bundle\""), std::string::npos);
  EXPECT_NE(json.find("\"kind\": \"archive_corrupt\""), std::string::npos);
  // The invalid byte became U+FFFD, so the document stays valid UTF-8.
  EXPECT_NE(json.find("bad \xef\xbf\xbd byte"), std::string::npos);
  EXPECT_EQ(json.find('\xff'), std::string::npos);
  EXPECT_EQ(RenderJson(Sample()), json);
}

TEST(RenderText, ColourOnlyWhenAsked) {
  const std::string plain = RenderText(Sample(), false);
  EXPECT_EQ(plain.find('\x1b'), std::string::npos);
  EXPECT_NE(plain.find("[error] hang.bad_chip"), std::string::npos);
  EXPECT_NE(plain.find("logs/w-0.log:12"), std::string::npos);
  EXPECT_NE(plain.find("host w-5"), std::string::npos);
  EXPECT_NE(plain.find("numeric: not_applicable"), std::string::npos);
  EXPECT_NE(plain.find("PARTIAL"), std::string::npos);
  EXPECT_NE(plain.find("archive_corrupt"), std::string::npos);
  const std::string colour = RenderText(Sample(), true);
  EXPECT_NE(colour.find("\x1b[1;31m"), std::string::npos);
}

TEST(JsonWriter, EscapesControlAndQuotes) {
  JsonWriter w(0);
  w.BeginObject().Key("k").String("a\"b\\c\n\x01").Key("n").Null().EndObject();
  EXPECT_EQ(w.str(), "{\"k\":\"a\\\"b\\\\c\\n\\u0001\",\"n\":null}");
}

}  // namespace
}  // namespace casefile
