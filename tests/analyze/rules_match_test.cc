// The one-pass matcher: the literal automaton (overlaps, many patterns, case
// folding), the regex helpers (required literal, named groups, captures)
// and summary templates.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <string>
#include <utility>
#include <vector>

#include "analyze/rules/literal_automaton.h"
#include "analyze/rules/regex_pattern.h"
#include "analyze/rules/rule_template.h"

namespace casefile::rules {
namespace {

using Hits = std::vector<std::pair<uint32_t, size_t>>;  // (pattern, end)

Hits ScanAll(const LiteralAutomaton& a, std::string_view text) {
  Hits hits;
  a.Scan(text, [&](uint32_t id, size_t end) { hits.emplace_back(id, end); });
  std::sort(hits.begin(), hits.end());
  return hits;
}

TEST(LiteralAutomaton, FindsOverlappingAndNestedPatterns) {
  LiteralAutomaton a;
  const uint32_t he = a.Add("he", false);
  const uint32_t she = a.Add("she", false);
  const uint32_t his = a.Add("his", false);
  const uint32_t hers = a.Add("hers", false);
  a.Build();
  // "ushers": she ends at 4, he ends at 4, hers ends at 6.
  EXPECT_EQ(ScanAll(a, "ushers"), (Hits{{he, 4}, {she, 4}, {hers, 6}}));
  EXPECT_EQ(ScanAll(a, "this"), (Hits{{his, 4}}));
  EXPECT_TRUE(ScanAll(a, "nothing here?").size() == 1);  // "he" in "here"
  EXPECT_TRUE(ScanAll(a, "").empty());
}

TEST(LiteralAutomaton, RepeatedAndSelfOverlappingOccurrences) {
  LiteralAutomaton a;
  const uint32_t aa = a.Add("aa", false);
  a.Build();
  EXPECT_EQ(ScanAll(a, "aaaa"), (Hits{{aa, 2}, {aa, 3}, {aa, 4}}));
}

TEST(LiteralAutomaton, SamePatternTwiceReportsBoth) {
  LiteralAutomaton a;
  const uint32_t x = a.Add("Errno 28", false);
  const uint32_t y = a.Add("Errno 28", false);
  a.Build();
  EXPECT_EQ(ScanAll(a, "[Errno 28] No space"), (Hits{{x, 9}, {y, 9}}));
}

TEST(LiteralAutomaton, CaseFoldingOnlyForIgnoreCasePatterns) {
  LiteralAutomaton a;
  const uint32_t folded = a.Add("No Space Left", true);
  const uint32_t exact = a.Add("Killed", false);
  a.Build();
  EXPECT_EQ(ScanAll(a, "write error: no space left on device"), (Hits{{folded, 26}}));
  EXPECT_EQ(ScanAll(a, "NO SPACE LEFT"), (Hits{{folded, 13}}));
  EXPECT_EQ(ScanAll(a, "signal: Killed."), (Hits{{exact, 14}}));
  EXPECT_TRUE(ScanAll(a, "signal: killed.").empty());  // exact case differs
  EXPECT_TRUE(ScanAll(a, "signal: KILLED").empty());
}

TEST(LiteralAutomaton, BytesOutsideEveryPatternAndHighBytes) {
  LiteralAutomaton a;
  const uint32_t p = a.Add("\xC3\xA9t\xC3\xA9", false);  // "été" in UTF-8
  a.Build();
  EXPECT_EQ(ScanAll(a, std::string("l'\xC3\xA9t\xC3\xA9\0x", 9)), (Hits{{p, 7}}));
  EXPECT_LT(a.class_count(), 10u);  // é's two bytes and 't', plus the rest class
}

TEST(LiteralAutomaton, ManyPatternsAgreeWithNaiveSearch) {
  // 300 generated words, each looked for in a text with a naive find; the
  // automaton must report exactly the same (pattern, end) pairs.
  std::vector<std::string> words;
  uint32_t seed = 12345;
  auto next = [&] {
    seed = seed * 1103515245u + 12345u;
    return (seed >> 16) & 0x7fff;
  };
  LiteralAutomaton a;
  for (int i = 0; i < 300; ++i) {
    std::string w;
    const int len = 2 + static_cast<int>(next() % 5);
    for (int k = 0; k < len; ++k) w += static_cast<char>('a' + next() % 4);
    words.push_back(w);
    a.Add(w, false);
  }
  a.Build();
  std::string text;
  for (int i = 0; i < 2000; ++i) text += static_cast<char>('a' + next() % 5);
  Hits expected;
  for (uint32_t id = 0; id < words.size(); ++id) {
    for (size_t pos = text.find(words[id]); pos != std::string::npos;
         pos = text.find(words[id], pos + 1)) {
      expected.emplace_back(id, pos + words[id].size());
    }
  }
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(ScanAll(a, text), expected);
}

// The window prefilter (MayMatch) must never hide an occurrence: lines with
// patterns planted at every offset, in any case for ignore-case patterns,
// at each stride the shortest pattern allows, agree with a naive search.
TEST(LiteralAutomaton, PrefilterHidesNoOccurrenceAtAnyStride) {
  uint32_t seed = 777;
  auto next = [&] {
    seed = seed * 1103515245u + 12345u;
    return (seed >> 16) & 0x7fff;
  };
  auto lower = [](std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  };
  for (size_t shortest : {4u, 5u, 6u, 7u, 12u}) {
    LiteralAutomaton a;
    std::vector<std::pair<std::string, bool>> pats;  // (text, ignore_case)
    for (int i = 0; i < 40; ++i) {
      std::string w;
      const size_t len = shortest + next() % 6;
      for (size_t k = 0; k < len; ++k) w += "abXY[ 2e-_"[next() % 10];
      const bool ignore_case = i % 2 == 0;
      pats.emplace_back(w, ignore_case);
      a.Add(w, ignore_case);
    }
    a.Build();
    size_t lines_with_hits = 0;
    for (int line = 0; line < 3000; ++line) {
      std::string text;
      const size_t len = next() % 40;
      for (size_t k = 0; k < len; ++k) text += "abcxyABXY[ 2e-_"[next() % 15];
      if (line % 3 == 0) {
        // Plant a pattern at a random offset, in a random case when allowed.
        const auto& [w, ignore_case] = pats[next() % pats.size()];
        std::string planted = w;
        if (ignore_case) {
          for (char& c : planted) {
            if (next() % 2) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
          }
        }
        text.insert(next() % (text.size() + 1), planted);
      }
      Hits expected;
      for (uint32_t id = 0; id < pats.size(); ++id) {
        const auto& [w, ignore_case] = pats[id];
        const std::string hay = ignore_case ? lower(text) : text;
        const std::string needle = ignore_case ? lower(w) : w;
        for (size_t pos = hay.find(needle); pos != std::string::npos;
             pos = hay.find(needle, pos + 1)) {
          expected.emplace_back(id, pos + w.size());
        }
      }
      std::sort(expected.begin(), expected.end());
      ASSERT_EQ(ScanAll(a, text), expected) << "shortest " << shortest << ": " << text;
      if (!expected.empty()) {
        ++lines_with_hits;
        EXPECT_TRUE(a.MayMatch(text));
      }
    }
    EXPECT_GE(lines_with_hits, 1000u);
  }
}

TEST(LiteralAutomaton, PrefilterRejectsLinesWithoutPatternsAndIsOffForShortOnes) {
  LiteralAutomaton a;
  a.Add("No space left on device", true);
  a.Add("[Errno 28]", true);
  a.Build();
  EXPECT_FALSE(a.MayMatch("[rank3]: step 120 loss 2.3451 lr 1e-4 took 0.412s"));
  EXPECT_FALSE(a.MayMatch("abc"));
  EXPECT_TRUE(a.MayMatch("OSError: [ERRNO 28] no SPACE left"));
  EXPECT_EQ(ScanAll(a, "OSError: [ERRNO 28] no SPACE left on DEVICE").size(), 2u);

  LiteralAutomaton s;  // a three-byte pattern: no filter
  s.Add("xid", true);
  s.Add("Killed process", false);
  s.Build();
  EXPECT_TRUE(s.MayMatch("step 120 loss 2.3451"));
  EXPECT_EQ(ScanAll(s, "NVRM: XID 79").size(), 1u);
}

TEST(RegexPattern, RequiredLiteralIsTheLongestMandatoryRun) {
  EXPECT_EQ(RequiredLiteral("DataLoader worker \\(pid [0-9]+\\) is killed"),
            "DataLoader worker (pid ");
  EXPECT_EQ(RequiredLiteral("errno=[0-9]+ \\(No space left\\)"), " (No space left)");
  // An optional byte ends the run before it.
  EXPECT_EQ(RequiredLiteral("workers? exited"), " exited");
  EXPECT_EQ(RequiredLiteral("colou?r mismatch"), "r mismatch");
  // '+' keeps one copy of its byte.
  EXPECT_EQ(RequiredLiteral("abcd+efg"), "abcd");
  EXPECT_EQ(RequiredLiteral("x{2,3}abcde"), "abcde");
  // Groups and classes break runs; their content is not required.
  EXPECT_EQ(RequiredLiteral("(foo|bar) baz"), " baz");
  EXPECT_EQ(RequiredLiteral("a.b.c"), "a");
  EXPECT_EQ(RequiredLiteral("^rank\\w+ died$"), " died");
  // A top-level alternation has no required literal.
  EXPECT_EQ(RequiredLiteral("disk full|quota exceeded"), "");
  EXPECT_EQ(RequiredLiteral("[a-z]+"), "");
}

TEST(RegexPattern, NamedGroupsAreStrippedAndNumbered) {
  const PreparedRegex p = PrepareRegex("host (?<host>[a-z0-9-]+) rank (?<rank>[0-9]+) (x)");
  EXPECT_TRUE(p.error.empty());
  EXPECT_EQ(p.posix, "host ([a-z0-9-]+) rank ([0-9]+) (x)");
  EXPECT_EQ(p.group_names, (std::vector<std::string>{"", "host", "rank", ""}));
  // A '(' inside a bracket expression is no group.
  EXPECT_EQ(PrepareRegex("[(](?<a>b)").group_names, (std::vector<std::string>{"", "a"}));
}

TEST(RegexPattern, PerlSyntaxIsRefusedWithItsOffset) {
  EXPECT_EQ(PrepareRegex("pid \\d+").error_at, 4u);
  EXPECT_EQ(PrepareRegex("a(?:b)").error_at, 1u);
  EXPECT_EQ(PrepareRegex("a.*?b").error_at, 3u);
  EXPECT_FALSE(PrepareRegex("(?<1x>a)").error.empty());
  EXPECT_FALSE(PrepareRegex("(?<a>x)(?<a>y)").error.empty());
}

TEST(CompiledRegex, CapturesAndWindows) {
  const CompiledRegex re("worker \\(pid ([0-9]+)\\) is killed by signal: ([A-Za-z ]+)\\.", false);
  ASSERT_TRUE(re.error().empty());
  EXPECT_EQ(re.group_count(), 2u);
  std::vector<std::optional<std::string>> g;
  ASSERT_TRUE(re.Match("RuntimeError: DataLoader worker (pid 4121) is killed by signal: Bus error.",
                       false, false, &g));
  ASSERT_EQ(g.size(), 3u);
  EXPECT_EQ(g[1], "4121");
  EXPECT_EQ(g[2], "Bus error");
  EXPECT_FALSE(re.Match("worker (pid x) is killed by signal: Killed.", false, false, &g));
  // An optional group that took no part is nullopt.
  const CompiledRegex opt("rank ([0-9]+)( failed)?", false);
  ASSERT_TRUE(opt.Match("rank 7", false, false, &g));
  EXPECT_EQ(g[1], "7");
  EXPECT_EQ(g[2], std::nullopt);
  // ^ does not match at the start of a window cut from a longer line.
  const CompiledRegex bol("^abc", false);
  EXPECT_TRUE(bol.Match("abc", false, false, nullptr));
  EXPECT_FALSE(bol.Match("abc", true, false, nullptr));
  // Case folding.
  const CompiledRegex icase("too many open files", true);
  EXPECT_TRUE(icase.Match("OSError: [Errno 24] Too many open files", false, false, nullptr));
}

TEST(CompiledRegex, LongLinesDoNotRecurse) {
  // std::regex overflows the stack on lines like this; regexec does not.
  const CompiledRegex re("a(b|c)*d", false);
  std::string line = "a";
  for (int i = 0; i < 200'000; ++i) line += (i % 2) ? 'b' : 'c';
  line += 'd';
  EXPECT_TRUE(re.Match(line, false, false, nullptr));
}

TEST(RuleTemplate, ExpandsEveryPlaceholder) {
  const std::vector<std::string> names = {"", "path", ""};
  size_t at = 0;
  const std::string t = "{count} on {hosts} ({host}/{rank}) at {first}: {path} {2} {{x}}";
  EXPECT_EQ(CheckTemplate(t, names, &at), "");
  TemplateValues v;
  v.host = "node-1";
  v.rank = "3";
  v.count = "4";
  v.hosts = "node-1, node-2";
  v.first = "logs/a.log:12";
  v.groups = {std::string("all"), std::string("/ckpt"), std::nullopt};
  v.group_names = &names;
  EXPECT_EQ(ExpandTemplate(t, v), "4 on node-1, node-2 (node-1/3) at logs/a.log:12: /ckpt ? {x}");
  v.host.clear();
  EXPECT_EQ(ExpandTemplate("{host}", v), "?");
}

TEST(RuleTemplate, RefusesMalformedTemplates) {
  size_t at = 99;
  EXPECT_NE(CheckTemplate("a } b", {}, &at), "");
  EXPECT_EQ(at, 2u);
  EXPECT_NE(CheckTemplate("{3}", {"", "x", "y"}, &at), "");
  EXPECT_NE(CheckTemplate("{99999999999999999999}", {"", "x"}, &at), "");
  EXPECT_NE(CheckTemplate("{Host}", {}, &at), "");
}

}  // namespace
}  // namespace casefile::rules
