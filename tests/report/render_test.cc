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

// Strings from the bundle never reach the terminal raw: a member name with a
// newline and an escape sequence must not forge a report line or recolour it.
TEST(RenderText, EscapesBundleControlledStrings) {
  Report r = Sample();
  r.findings[0].evidence[0].path = "a\n[error] fake\x1b[31m.log";
  r.findings[0].culprits[0].host = "h\x1b]0;title\x07";
  r.ingest_issues[0].row.path = "p\rq";
  const std::string text = RenderText(r, false);
  EXPECT_EQ(text.find('\x1b'), std::string::npos);
  EXPECT_EQ(text.find('\r'), std::string::npos);
  EXPECT_EQ(text.find("\n[error] fake"), std::string::npos);
}

TEST(RenderReport, CountsAndWarnings) {
  Report r = Sample();
  r.ingest_issue_counts["archive_corrupt"] = 1;
  r.ingest_issue_counts["path_rewritten"] = 100000;
  r.warnings.push_back("findings not stored in /x.db: read-only");
  const std::string text = RenderText(r, false);
  EXPECT_NE(text.find("Ingest issues (100001)"), std::string::npos) << text;
  EXPECT_NE(text.find("... and 99980 more path_rewritten"), std::string::npos) << text;
  EXPECT_NE(text.find("findings not stored in /x.db"), std::string::npos);
  const std::string json = RenderJson(r);
  EXPECT_NE(json.find("\"path_rewritten\": 100000"), std::string::npos) << json;
  EXPECT_NE(json.find("\"warnings\": [\n    \"findings not stored"), std::string::npos) << json;
}

TEST(JsonWriter, EscapesControlAndQuotes) {
  JsonWriter w(0);
  w.BeginObject().Key("k").String("a\"b\\c\n\x01").Key("n").Null().EndObject();
  EXPECT_EQ(w.str(), "{\"k\":\"a\\\"b\\\\c\\n\\u0001\",\"n\":null}");
}

}  // namespace
}  // namespace casefile
