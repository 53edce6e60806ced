// Rule pack reading: the format of docs/RULES.md, and every validation error
// with the line and column of the value at fault.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "analyze/rules/json_tree.h"
#include "analyze/rules/rule_pack.h"

namespace casefile::rules {
namespace {

std::vector<RuleError> Parse(const std::string& text, RulePack* out = nullptr,
                             const PackContext& context = {}) {
  RulePack pack;
  auto errors = ParseRulePack(text, "t.json", context, pack);
  if (out) *out = std::move(pack);
  return errors;
}

// "LINE:COL: message" of every error, for compact expectations.
std::vector<std::string> Where(const std::vector<RuleError>& errors) {
  std::vector<std::string> out;
  for (const auto& e : errors)
    out.push_back(std::to_string(e.line) + ":" + std::to_string(e.column));
  return out;
}

// A valid pack whose rule body is `rule` (one rule object, starting on line 3
// at column 13 after `"rules": [`).
std::string PackWith(const std::string& rule) {
  return "{\"casefile_rules\": 1, \"name\": \"site\",\n"
         "  \"description\": \"test\",\n"
         "  \"rules\": [" +
         rule + "]}\n";
}

const char kGoodRule[] =
    "{\"code\": \"site.disk\", \"severity\": \"error\", \"title\": \"T\",\n"
    "  \"recommendation\": \"R\", \"match\": {\"literal\": \"No space\"}}";

TEST(RulePack, ReadsAValidPackWithDefaults) {
  RulePack pack;
  ASSERT_TRUE(Parse(PackWith(kGoodRule), &pack).empty());
  EXPECT_EQ(pack.name, "site");
  EXPECT_EQ(pack.description, "test");
  EXPECT_EQ(pack.source, "t.json");
  ASSERT_EQ(pack.rules.size(), 1u);
  const Rule& r = pack.rules[0];
  EXPECT_EQ(r.code, "site.disk");
  EXPECT_EQ(r.severity, Severity::kError);
  EXPECT_EQ(r.kinds, std::vector<std::string>{"log"});
  EXPECT_EQ(r.match.kind, RuleMatch::Kind::kLiteral);
  EXPECT_EQ(r.match.literals, std::vector<std::string>{"No space"});
  EXPECT_FALSE(r.match.ignore_case);
  EXPECT_EQ(r.min_count, 1);
  EXPECT_EQ(r.min_hosts, 1);
  EXPECT_EQ(r.max_evidence, 5);
  EXPECT_TRUE(r.absent_if.empty());
  EXPECT_FALSE(r.summary.empty());  // a default summary
}

TEST(RulePack, ReadsEveryField) {
  const std::string rule =
      "{\"code\": \"site.a\", \"severity\": \"warning\", \"title\": \"T\", \"summary\": "
      "\"{count} on {hosts}: {path} {1}\", \"recommendation\": \"R\", \"kinds\": [\"log\", "
      "\"sysinfo\"], \"match\": {\"regex\": \"open (?<path>/[a-z/]+) failed\", \"ignore_case\": "
      "true}, \"captures\": {\"host\": \"path\"}, \"min_count\": 3, \"min_hosts\": 2, "
      "\"max_evidence\": 9, \"absent_if\": [\"site.b\"]},"
      "{\"code\": \"site.b\", \"severity\": \"info\", \"title\": \"T\", \"recommendation\": \"R\", "
      "\"match\": {\"any\": [\"x1y\", \"z2w\"]}}";
  RulePack pack;
  const auto errors = Parse(PackWith(rule), &pack);
  ASSERT_TRUE(errors.empty()) << errors[0].message;
  ASSERT_EQ(pack.rules.size(), 2u);
  const Rule& a = pack.rules[0];
  EXPECT_EQ(a.severity, Severity::kWarning);
  EXPECT_EQ(a.kinds, (std::vector<std::string>{"log", "sysinfo"}));
  EXPECT_EQ(a.match.kind, RuleMatch::Kind::kRegex);
  EXPECT_EQ(a.match.posix, "open (/[a-z/]+) failed");
  EXPECT_EQ(a.match.anchor, " failed");  // the longest literal every match holds
  EXPECT_TRUE(a.match.ignore_case);
  EXPECT_EQ(a.capture_host.group, 1);
  EXPECT_EQ(a.capture_rank.group, -1);
  EXPECT_EQ(a.min_count, 3);
  EXPECT_EQ(a.min_hosts, 2);
  EXPECT_EQ(a.max_evidence, 9);
  EXPECT_EQ(a.absent_if, std::vector<std::string>{"site.b"});
  EXPECT_EQ(pack.rules[1].match.literals, (std::vector<std::string>{"x1y", "z2w"}));
  EXPECT_EQ(pack.rules[1].severity, Severity::kInfo);
}

TEST(RulePack, SyntaxErrorsGiveWhereReadingStopped) {
  // Missing comma between members: line 2, column 3 is the second key.
  auto e = Parse("{\"casefile_rules\": 1\n  \"name\": \"x\"}");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(Where(e)[0], "2:3");
  EXPECT_NE(e[0].message.find("invalid JSON"), std::string::npos);
  // Trailing comma: reported at the closing bracket.
  e = Parse("{\"rules\": [1,\n]}");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(Where(e)[0], "2:1");
  EXPECT_NE(e[0].message.find("trailing comma"), std::string::npos);
  // Unterminated string: the end of the text (line 1, after 12 bytes).
  e = Parse("{\"name\": \"ab");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(Where(e)[0], "1:13");
  // A regex backslash not doubled: at the backslash (column 16).
  e = Parse("{\"regex\": \"a b \\d\"}");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(Where(e)[0], "1:16");
  EXPECT_NE(e[0].message.find("\\\\"), std::string::npos);
  // Duplicate key: at the second one.
  e = Parse("{\"name\": \"a\", \"name\": \"b\"}");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(Where(e)[0], "1:15");
  // Not an object.
  e = Parse("\n  [1]");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(Where(e)[0], "2:3");
}

TEST(RulePack, ColumnsCountCharactersNotBytes) {
  // "é" is two bytes; the column after it counts one.
  EXPECT_EQ(PositionOf("\"\xC3\xA9\" x", 4).column, 4u);
  EXPECT_EQ(PositionOf("a\nbc", 3).line, 2u);
  EXPECT_EQ(PositionOf("a\nbc", 3).column, 2u);
}

TEST(RulePack, TopLevelErrors) {
  const auto e = Parse(
      "{\"casefile_rules\": 2, \"name\": \"Bad Name\",\n"
      " \"rulez\": [], \"rules\": {}}");
  // version (1:20), name (1:31), unknown key (2:2), rules not an array (2:24).
  EXPECT_EQ(Where(e), (std::vector<std::string>{"1:20", "1:31", "2:2", "2:24"}));
  EXPECT_NE(e[2].message.find("unknown key \"rulez\""), std::string::npos);
}

TEST(RulePack, MissingKeysPointAtTheirObject) {
  auto e = Parse("{\"casefile_rules\": 1, \"rules\": [{\"code\": \"a.b\"}]}");
  // The pack has no name (1:1); the rule (1:33) has no severity, title,
  // recommendation or match.
  EXPECT_EQ(Where(e), (std::vector<std::string>{"1:1", "1:33", "1:33", "1:33", "1:33"}));
  EXPECT_NE(e[0].message.find("no \"name\""), std::string::npos);
}

TEST(RulePack, RuleFieldErrorsWithExactPositions) {
  // Line 3 starts `  "rules": [`, so the rule object opens at column 13.
  const std::string rule =
      "{\"code\": \"Site.Disk\", \"severity\": \"fatal\", \"title\": \"\",\n"
      "   \"recommendation\": \"R\", \"kinds\": [\"log\", \"tracez\"],\n"
      "   \"match\": {\"literal\": \"x\", \"regex\": \"y\"}, \"min_count\": 0,\n"
      "   \"max_evidence\": 1.5, \"mtach\": {}}";
  const auto e = Parse(PackWith(rule));
  EXPECT_EQ(Where(e), (std::vector<std::string>{"3:22",     // code not dotted lower case
                                                "3:47",     // severity
                                                "3:65",     // empty title
                                                "4:44",     // unknown kind
                                                "5:13",     // match holds two kinds
                                                "5:58",     // min_count below 1
                                                "6:20",     // max_evidence not an integer
                                                "6:25"}));  // unknown key (typo)
  EXPECT_NE(e[7].message.find("unknown key \"mtach\""), std::string::npos);
}

TEST(RulePack, DuplicateCodesAndOwnedCodes) {
  PackContext ctx;
  ctx.code_owner = [](const std::string& code) {
    return code == "comm.nccl_error" ? std::string("the built-in analyzer 'comm'") : "";
  };
  const std::string rules =
      "{\"code\": \"a.b\", \"severity\": \"info\", \"title\": \"T\", \"recommendation\": \"R\", "
      "\"match\": {\"literal\": \"xyz\"}},\n"
      "{\"code\": \"a.b\", \"severity\": \"info\", \"title\": \"T\", \"recommendation\": \"R\", "
      "\"match\": {\"literal\": \"xyz\"}},\n"
      "{\"code\": \"comm.nccl_error\", \"severity\": \"info\", \"title\": \"T\", "
      "\"recommendation\": \"R\", \"match\": {\"literal\": \"xyz\"}}";
  const auto e = Parse(PackWith(rules), nullptr, ctx);
  EXPECT_EQ(Where(e), (std::vector<std::string>{"4:10", "5:10"}));
  EXPECT_NE(e[0].message.find("used by another rule"), std::string::npos);
  EXPECT_NE(e[1].message.find("built-in analyzer 'comm'"), std::string::npos);
}

TEST(RulePack, RegexErrors) {
  auto rule = [](const std::string& match) {
    return PackWith(
        "{\"code\": \"a.b\", \"severity\": \"info\", \"title\": \"T\", "
        "\"recommendation\": \"R\", \"match\": " +
        match + "}");
  };
  // The match object starts after the prefix, from column 13 of line 3.
  const size_t match_col = 13 + std::string(
                                    "{\"code\": \"a.b\", \"severity\": \"info\", \"title\": "
                                    "\"T\", \"recommendation\": \"R\", \"match\": ")
                                    .size();
  auto col = [&](size_t inside) { return "3:" + std::to_string(match_col + inside); };
  // No literal of 3 bytes: refused at the regex value ({"regex": is 10 bytes).
  auto e = Parse(rule("{\"regex\": \"[0-9]+ab\"}"));
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(Where(e)[0], col(10));
  EXPECT_NE(e[0].message.find("\"anchor\""), std::string::npos);
  // ... unless it declares an anchor.
  EXPECT_TRUE(Parse(rule("{\"regex\": \"[0-9]+ab\", \"anchor\": \"sab\"}")).empty());
  // An anchor shorter than 3 bytes.
  e = Parse(rule("{\"regex\": \"[0-9]+ab\", \"anchor\": \"ab\"}"));
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(Where(e)[0], col(32));
  // Top-level alternation: no literal is in every match.
  e = Parse(rule("{\"regex\": \"disk full|quota exceeded\"}"));
  ASSERT_EQ(e.size(), 1u);
  // Does not compile: unbalanced parenthesis.
  e = Parse(rule("{\"regex\": \"abcd (x\"}"));
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(Where(e)[0], col(10));
  EXPECT_NE(e[0].message.find("does not compile"), std::string::npos);
  // Perl syntax points inside the string: \d at byte 5 of the pattern.
  e = Parse(rule("{\"regex\": \"abcd \\\\d+\"}"));
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(Where(e)[0], col(10));  // the string has an escape: its quote
  e = Parse(rule("{\"regex\": \"abcd (?:x)\"}"));
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(Where(e)[0], col(16));  // no escape: at the '(' itself
  // An anchor on a literal match.
  e = Parse(rule("{\"literal\": \"abc\", \"anchor\": \"abc\"}"));
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(Where(e)[0], col(29));
}

TEST(RulePack, CaptureAndTemplateErrors) {
  auto rule = [](const std::string& rest) {
    return PackWith(
        "{\"code\": \"a.b\", \"severity\": \"info\", \"title\": \"T\", "
        "\"recommendation\": \"R\",\n   " +
        rest + "}");
  };
  // Line 4 starts with 3 spaces; keys from column 4.
  auto e =
      Parse(rule("\"match\": {\"regex\": \"rank ([0-9]+) died\"}, \"captures\": {\"rank\": 2}"));
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(Where(e)[0], "4:67");
  EXPECT_NE(e[0].message.find("1 capture group"), std::string::npos);
  e = Parse(
      rule("\"match\": {\"regex\": \"rank ([0-9]+) died\"}, \"captures\": {\"host\": \"h\"}"));
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(Where(e)[0], "4:67");
  e = Parse(rule("\"match\": {\"literal\": \"died\"}, \"captures\": {\"rank\": 1}"));
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(Where(e)[0], "4:46");
  EXPECT_NE(e[0].message.find("needs a regex"), std::string::npos);
  // Summary placeholders: unknown name at its '{' (column of the string + 1 + offset).
  e = Parse(rule("\"match\": {\"literal\": \"died\"}, \"summary\": \"on {hosts} {nope}\""));
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(Where(e)[0], "4:57");
  EXPECT_NE(e[0].message.find("{nope}"), std::string::npos);
  e = Parse(rule("\"match\": {\"literal\": \"died\"}, \"summary\": \"group {1}\""));
  ASSERT_EQ(e.size(), 1u);
  EXPECT_NE(e[0].message.find("no capture groups"), std::string::npos);
  e = Parse(rule("\"match\": {\"literal\": \"died\"}, \"summary\": \"a { b\""));
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(Where(e)[0], "4:48");
  e = Parse(rule("\"match\": {\"literal\": \"died\"}, \"summary\": \"{{literal}} {count}\""));
  EXPECT_TRUE(e.empty());
}

TEST(RulePack, AbsentIfMustNameAKnownRuleCode) {
  PackContext ctx;
  ctx.known_code = [](const std::string& code) { return code == "other.pack_code"; };
  auto rule = [](const std::string& absent) {
    return PackWith(
        "{\"code\": \"a.b\", \"severity\": \"info\", \"title\": \"T\", \"recommendation\": \"R\", "
        "\"match\": {\"literal\": \"xyz\"}, \"absent_if\": [" +
        absent + "]}");
  };
  const size_t col = 13 + std::string(
                              "{\"code\": \"a.b\", \"severity\": \"info\", \"title\": "
                              "\"T\", \"recommendation\": \"R\", \"match\": {\"literal\": "
                              "\"xyz\"}, \"absent_if\": [")
                              .size();
  EXPECT_TRUE(Parse(rule("\"other.pack_code\""), nullptr, ctx).empty());
  auto e = Parse(rule("\"hang.bad_chip\""), nullptr, ctx);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(Where(e)[0], "3:" + std::to_string(col));
  e = Parse(rule("\"a.b\""), nullptr, ctx);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_NE(e[0].message.find("its own code"), std::string::npos);
}

TEST(RulePack, FormatsErrorsOnePerLine) {
  EXPECT_EQ(FormatRuleErrors("p.json", {{2, 5, "bad"}, {7, 1, "worse"}}),
            "p.json:2:5: bad\np.json:7:1: worse");
}

}  // namespace
}  // namespace casefile::rules
