// The rules analyzer over small indexes: a bundle written here goes through
// ingest, a pack written here runs in one pass, and each case pins the
// findings the semantics of docs/RULES.md give: counts, hosts, culprits from
// captures or from the line's attribution, evidence caps, conditions.
#include "analyze/rules/rules_analyzer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "analyze/analyzer_test_util.h"

namespace casefile::rules {
namespace {

std::shared_ptr<const RulePack> Pack(const std::string& rules_json, const std::string& name = "t") {
  auto pack = std::make_shared<RulePack>();
  const std::string text =
      "{\"casefile_rules\": 1, \"name\": \"" + name + "\", \"rules\": [" + rules_json + "]}";
  PackContext ctx;
  const auto errors = ParseRulePack(text, "t.json", ctx, *pack);
  EXPECT_TRUE(errors.empty()) << FormatRuleErrors("t.json", errors);
  return pack;
}

std::string Rule(const std::string& code, const std::string& match, const std::string& extra = "") {
  return "{\"code\": \"" + code + "\", \"severity\": \"error\", \"title\": \"T " + code +
         "\", \"recommendation\": \"R\", \"match\": " + match +
         (extra.empty() ? "" : ", " + extra) + "}";
}

AnalysisResult RunRules(const IndexReader& index,
                        std::vector<std::shared_ptr<const RulePack>> packs) {
  return test::RunOne(index, std::make_unique<RulesAnalyzer>(std::move(packs)));
}

std::string Codes(const AnalysisResult& r) {
  std::string s;
  for (const Finding& f : r.findings) s += f.code + ": " + f.summary + "\n";
  for (const auto& a : r.analyzers) s += a.name + " " + a.status + " " + a.reason + "\n";
  return s;
}

std::vector<int64_t> Lines(const Finding& f) {
  std::vector<int64_t> out;
  for (const Evidence& e : f.evidence) out.push_back(e.line);
  return out;
}

// Two hosts' logs with prefixes the line layer strips; node-0 fills its disk
// on rank 1, node-1 holds look-alikes only.
void WriteTwoHosts(const std::string& root) {
  test::WriteFile(root + "/logs/node-0/train.log",
                  "[rank0]:step 10 loss=2.1\n"                                               // 1
                  "[rank1]:Traceback (most recent call last):\n"                             // 2
                  "[rank1]:OSError: [Errno 28] No space left on device\n"                    // 3
                  "\x1b[31m[rank1]:write error: No space left on device\x1b[0m\n"            // 4
                  "[rank0]:saving checkpoint to /ckpt/step_10 (no space issues expected)\n"  // 5
                  "[rank0]:OSError: [Errno 28] No space left on device\n");                  // 6
  test::WriteFile(root + "/logs/node-1/train.log",
                  "[rank2]:config: {'disk_full_action': 'abort'}\n"  // 1
                  "[rank3]:saved checkpoint /ckpt/step_10\n");       // 2
}

TEST(RulesAnalyzer, LiteralRuleCountsLinesHostsAndCulprits) {
  test::TempDir tmp;
  const std::string root = tmp.Join("b");
  WriteTwoHosts(root);
  auto index = test::IndexOf(tmp, root);
  const auto r =
      RunRules(*index, {Pack(Rule("site.disk_full", "{\"literal\": \"No space left on device\"}",
                                  "\"summary\": \"{count} on {hosts}, first {host} rank "
                                  "{rank} at {first}\""))});
  ASSERT_EQ(r.findings.size(), 1u) << Codes(r);
  const Finding& f = r.findings[0];
  EXPECT_EQ(f.code, "site.disk_full");
  EXPECT_EQ(f.analyzer, "rules");
  EXPECT_EQ(f.severity, Severity::kError);
  EXPECT_EQ(f.title, "T site.disk_full");
  EXPECT_EQ(f.summary, "3 on node-0, first node-0 rank 1 at logs/node-0/train.log:3");
  EXPECT_EQ(Lines(f), (std::vector<int64_t>{3, 4, 6}));
  // Evidence carries the stored line (ANSI removed, wrappers kept).
  EXPECT_EQ(f.evidence[1].text, "[rank1]:write error: No space left on device");
  ASSERT_EQ(f.culprits.size(), 2u);
  EXPECT_EQ(f.culprits[0].host, "node-0");
  EXPECT_EQ(f.culprits[0].rank, 0);
  EXPECT_EQ(f.culprits[1].rank, 1);
}

TEST(RulesAnalyzer, OnePassForManyRulesAndOverlappingLiterals) {
  test::TempDir tmp;
  const std::string root = tmp.Join("b");
  WriteTwoHosts(root);
  auto index = test::IndexOf(tmp, root);
  const auto r = RunRules(
      *index, {Pack(Rule("a.errno", "{\"literal\": \"[Errno 28]\"}") + "," +
                    Rule("a.space", "{\"any\": [\"space left\", \"No space\"]}") + "," +
                    Rule("a.saved", "{\"literal\": \"SAVED CHECKPOINT\", \"ignore_case\": true}") +
                    "," + Rule("a.never", "{\"literal\": \"no such text anywhere\"}"))});
  ASSERT_EQ(r.findings.size(), 3u) << Codes(r);
  const Finding* errno_f = test::FindCode(r, "a.errno");
  const Finding* space_f = test::FindCode(r, "a.space");
  const Finding* saved_f = test::FindCode(r, "a.saved");
  ASSERT_TRUE(errno_f && space_f && saved_f) << Codes(r);
  EXPECT_EQ(Lines(*errno_f), (std::vector<int64_t>{3, 6}));
  // A line holding both literals of an "any" rule counts once.
  EXPECT_EQ(Lines(*space_f), (std::vector<int64_t>{3, 4, 6}));
  EXPECT_EQ(saved_f->evidence[0].path, "logs/node-1/train.log");
  EXPECT_EQ(Lines(*saved_f), (std::vector<int64_t>{2}));
}

TEST(RulesAnalyzer, RegexCapturesFillCulpritsAndSummary) {
  test::TempDir tmp;
  const std::string root = tmp.Join("b");
  test::WriteFile(root + "/logs/launcher/launch.log",
                  "agent: worker gpu-07 rank 12 lost heartbeat after 30s\n"  // 1
                  "agent: worker gpu-07 rank 12 lost heartbeat after 60s\n"  // 2
                  "agent: worker gpu-11 rank 40 lost heartbeat after 30s\n"  // 3
                  "agent: worker gpu-11 rank x lost heartbeat after 30s\n"   // 4: no match
                  "agent: heartbeat after restart is fine\n");               // 5: no anchor
  auto index = test::IndexOf(tmp, root);
  const auto r = RunRules(
      *index, {Pack(Rule("site.heartbeat",
                         "{\"regex\": \"worker (?<node>gpu-[0-9]+) rank ([0-9]+) lost heartbeat "
                         "after ([0-9]+)s\"}",
                         "\"captures\": {\"host\": \"node\", \"rank\": 2}, \"summary\": \"{node} "
                         "rank {2} silent {3}s; {count} lines on {hosts}\""))});
  ASSERT_EQ(r.findings.size(), 1u) << Codes(r);
  const Finding& f = r.findings[0];
  EXPECT_EQ(f.summary, "gpu-07 rank 12 silent 30s; 3 lines on gpu-07, gpu-11");
  ASSERT_EQ(f.culprits.size(), 2u);
  EXPECT_EQ(f.culprits[0].host, "gpu-07");
  EXPECT_EQ(f.culprits[0].rank, 12);
  EXPECT_EQ(f.culprits[1].host, "gpu-11");
  EXPECT_EQ(f.culprits[1].rank, 40);
  EXPECT_EQ(Lines(f), (std::vector<int64_t>{1, 2, 3}));
}

TEST(RulesAnalyzer, RegexAnchorsAtTheMessageAfterWrappers) {
  test::TempDir tmp;
  const std::string root = tmp.Join("b");
  test::WriteFile(root + "/logs/node-0/train.log",
                  "[rank3]:dataset shard 7 unreadable\n"              // 1: ^ after the prefix
                  "[rank3]:retrying: dataset shard 8 unreadable\n");  // 2: not at the start
  auto index = test::IndexOf(tmp, root);
  const auto r = RunRules(
      *index, {Pack(Rule("site.shard", "{\"regex\": \"^dataset shard ([0-9]+) unreadable\"}",
                         "\"summary\": \"shard {1}\""))});
  ASSERT_EQ(r.findings.size(), 1u) << Codes(r);
  EXPECT_EQ(r.findings[0].summary, "shard 7");
  EXPECT_EQ(Lines(r.findings[0]), (std::vector<int64_t>{1}));
  EXPECT_EQ(r.findings[0].culprits[0].rank, 3);
}

TEST(RulesAnalyzer, MinCountMinHostsAndEvidenceCap) {
  test::TempDir tmp;
  const std::string root = tmp.Join("b");
  WriteTwoHosts(root);
  auto index = test::IndexOf(tmp, root);
  const std::string lit = "{\"literal\": \"No space left on device\"}";
  const auto r =
      RunRules(*index, {Pack(Rule("a.three", lit, "\"min_count\": 3, \"max_evidence\": 2") + "," +
                             Rule("a.four", lit, "\"min_count\": 4") + "," +
                             Rule("a.two_hosts", lit, "\"min_hosts\": 2") + "," +
                             Rule("a.rank", "{\"literal\": \"[rank\"}", "\"min_hosts\": 2"))});
  // a.three: 3 lines, capped at 2 evidence; a.four: too few; a.two_hosts:
  // one host only. "[rank" is a wrapper the message does not hold.
  ASSERT_EQ(r.findings.size(), 1u) << Codes(r);
  EXPECT_EQ(r.findings[0].code, "a.three");
  EXPECT_EQ(Lines(r.findings[0]), (std::vector<int64_t>{3, 4}));
}

TEST(RulesAnalyzer, AbsentIfSuppressesWhenTheOtherRuleFired) {
  test::TempDir tmp;
  const std::string root = tmp.Join("b");
  WriteTwoHosts(root);
  auto index = test::IndexOf(tmp, root);
  const auto r = RunRules(
      *index,
      {Pack(Rule("a.generic", "{\"literal\": \"Traceback\"}", "\"absent_if\": [\"a.specific\"]") +
            "," + Rule("a.specific", "{\"literal\": \"[Errno 28]\"}") + "," +
            Rule("a.kept", "{\"literal\": \"Traceback\"}", "\"absent_if\": [\"a.unmet\"]") + "," +
            Rule("a.unmet", "{\"literal\": \"[Errno 28]\"}", "\"min_count\": 9"))});
  std::vector<std::string> codes;
  for (const Finding& f : r.findings) codes.push_back(f.code);
  std::sort(codes.begin(), codes.end());
  EXPECT_EQ(codes, (std::vector<std::string>{"a.kept", "a.specific"})) << Codes(r);
}

TEST(RulesAnalyzer, KindsSelectTheFiles) {
  test::TempDir tmp;
  const std::string root = tmp.Join("b");
  test::WriteFile(root + "/logs/node-0/train.log", "worker said: marker-xyz\n");
  test::WriteFile(root + "/logs/node-0/config.yaml", "marker: marker-xyz\n");
  auto index = test::IndexOf(tmp, root);
  auto r = RunRules(*index, {Pack(Rule("a.logs", "{\"literal\": \"marker-xyz\"}"))});
  ASSERT_EQ(r.findings.size(), 1u) << Codes(r);
  EXPECT_EQ(r.findings[0].evidence[0].path, "logs/node-0/train.log");
  ASSERT_EQ(r.analyzers.size(), 1u);
  EXPECT_EQ(r.analyzers[0].status, "ran");
  // A rule for kinds the index lacks makes the analyzer not applicable.
  r = RunRules(*index,
               {Pack(Rule("a.hlo", "{\"literal\": \"marker-xyz\"}", "\"kinds\": [\"hlo\"]"))});
  EXPECT_TRUE(r.findings.empty());
  EXPECT_EQ(r.analyzers[0].status, "not_applicable") << Codes(r);
}

TEST(RulesAnalyzer, InfoListsCodesKindsAndAVersionOfTheContents) {
  RulesAnalyzer a({Pack(Rule("b.two", "{\"literal\": \"xyz\"}", "\"kinds\": [\"sysinfo\"]") + "," +
                        Rule("a.one", "{\"literal\": \"xyz\"}"))});
  EXPECT_EQ(a.info().name, "rules");
  EXPECT_EQ(a.info().codes, (std::vector<std::string>{"a.one", "b.two"}));
  EXPECT_EQ(a.info().needed_kinds, (std::vector<std::string>{"log", "sysinfo"}));
  RulesAnalyzer same({Pack(Rule("b.two", "{\"literal\": \"xyz\"}", "\"kinds\": [\"sysinfo\"]") +
                           "," + Rule("a.one", "{\"literal\": \"xyz\"}"))});
  RulesAnalyzer other({Pack(Rule("b.two", "{\"literal\": \"xyw\"}", "\"kinds\": [\"sysinfo\"]") +
                            "," + Rule("a.one", "{\"literal\": \"xyz\"}"))});
  EXPECT_EQ(a.info().version, same.info().version);
  EXPECT_NE(a.info().version, other.info().version);
}

TEST(RulesAnalyzer, LongLinesGiveTheRegexAWindowAroundTheAnchor) {
  test::TempDir tmp;
  const std::string root = tmp.Join("b");
  // The match sits 30 kB into one line (under the 64 KiB line limit); the
  // regex sees 4 KiB around it.
  std::string line = std::string(30'000, 'x') + " disk quota exceeded for uid 1042 " +
                     std::string(30'000, 'y') + "\n";
  test::WriteFile(root + "/logs/node-0/train.log", line);
  auto index = test::IndexOf(tmp, root);
  const auto r =
      RunRules(*index, {Pack(Rule("a.quota", "{\"regex\": \"quota exceeded for uid ([0-9]+)\"}",
                                  "\"summary\": \"uid {1}\""))});
  ASSERT_EQ(r.findings.size(), 1u) << Codes(r);
  EXPECT_EQ(r.findings[0].summary, "uid 1042");
}

TEST(RulesAnalyzer, AnAnchorNearTheEndOfALongLineStillGetsAFullWindow) {
  test::TempDir tmp;
  const std::string root = tmp.Join("b");
  // The regex needs 3000 bytes before its anchor "END": a window centred on
  // the anchor and cut at the line's end held only 2048 of them.
  std::string line = std::string(20'000, 'x') + "BEGIN" + std::string(3000, 'z') + "END\n";
  test::WriteFile(root + "/logs/node-0/train.log", line);
  auto index = test::IndexOf(tmp, root);
  const auto r = RunRules(*index, {Pack(Rule("a.tail",
                                             "{\"regex\": \"BEGINz{0,900}z*END$\", "
                                             "\"anchor\": \"END\"}"))});
  ASSERT_EQ(r.findings.size(), 1u) << Codes(r);
}

}  // namespace
}  // namespace casefile::rules
