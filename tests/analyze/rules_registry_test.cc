// The registry of rule packs: built-in packs validate, added packs join the
// one rules analyzer, replace by name, cannot take codes owned elsewhere,
// and built-in packs cannot be removed.
#include "analyze/rules/rules_registry.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "analyze/registry.h"
#include "analyze/rules/builtin_packs.h"
#include "common/error.h"

namespace casefile::rules {
namespace {

std::string SitePack(const std::string& name, const std::string& code, const std::string& literal,
                     const std::string& extra = "") {
  return "{\"casefile_rules\": 1, \"name\": \"" + name + "\", \"rules\": [{\"code\": \"" + code +
         "\", \"severity\": \"warning\", \"title\": \"T\", \"recommendation\": \"R\", "
         "\"match\": {\"literal\": \"" +
         literal + "\"}" + extra + "}]}";
}

bool HasCode(const std::shared_ptr<const Analyzer>& a, const std::string& code) {
  const auto& codes = a->info().codes;
  return std::find(codes.begin(), codes.end(), code) != codes.end();
}

// Removes what a test added, whatever happened.
struct Cleanup {
  std::vector<std::string> names;
  ~Cleanup() {
    for (const auto& n : names) {
      try {
        RemoveRulePack(n);
      } catch (const Error&) {
      }
    }
  }
};

TEST(RulesRegistry, EveryBuiltinPackValidates) {
  ASSERT_FALSE(BuiltinPackTexts().empty());
  for (const BuiltinPackText& t : BuiltinPackTexts()) {
    RulePack pack;
    PackContext ctx;
    ctx.code_owner = [](const std::string& code) {
      for (const auto& a : BuiltinAnalyzers()) {
        const auto& codes = a->info().codes;
        if (std::find(codes.begin(), codes.end(), code) != codes.end()) return a->info().name;
      }
      return std::string();
    };
    const auto errors = ParseRulePack(t.text, std::string(t.file), ctx, pack);
    EXPECT_TRUE(errors.empty()) << FormatRuleErrors(std::string(t.file), errors);
  }
  EXPECT_NO_THROW(BuiltinRulePacks());
  EXPECT_EQ(BuiltinRulePacks().size(), BuiltinPackTexts().size());
}

TEST(RulesRegistry, BuiltinCodesAreOwnedByRules) {
  const auto& codes = BuiltinRuleCodes();
  for (const char* code :
       {"runtime.disk_full", "runtime.too_many_open_files", "runtime.dataloader_killed"}) {
    EXPECT_NE(std::find(codes.begin(), codes.end(), code), codes.end()) << code;
    EXPECT_EQ(BuiltinCodeOwner(code), "rules") << code;
  }
  auto analyzer = CurrentRulesAnalyzer();
  ASSERT_TRUE(analyzer);
  EXPECT_EQ(analyzer->info().name, "rules");
  EXPECT_TRUE(HasCode(analyzer, "runtime.disk_full"));
}

TEST(RulesRegistry, AddReplaceRemove) {
  Cleanup cleanup{{"site-a"}};
  const auto before = CurrentRulesAnalyzer();
  AddRulePack(SitePack("site-a", "site.one", "marker one"), "a.json");
  const auto with_a = CurrentRulesAnalyzer();
  EXPECT_NE(with_a, before);
  EXPECT_NE(with_a->info().version, before->info().version);
  EXPECT_TRUE(HasCode(with_a, "site.one"));
  EXPECT_EQ(CurrentRulesAnalyzer(), with_a);  // cached until a change
  // The snapshot taken before the change is untouched.
  EXPECT_FALSE(HasCode(before, "site.one"));

  // Same name: replaces, and may reuse its own code.
  AddRulePack(SitePack("site-a", "site.one", "marker two"), "a2.json");
  const auto replaced = CurrentRulesAnalyzer();
  EXPECT_NE(replaced->info().version, with_a->info().version);
  size_t count = 0;
  for (const auto& p : RulePacksInUse()) count += p->name == "site-a";
  EXPECT_EQ(count, 1u);
  EXPECT_EQ(RulePacksInUse().back()->source, "a2.json");

  RemoveRulePack("site-a");
  cleanup.names.clear();
  EXPECT_FALSE(HasCode(CurrentRulesAnalyzer(), "site.one"));
  EXPECT_EQ(CurrentRulesAnalyzer()->info().version, before->info().version);
}

TEST(RulesRegistry, RefusesTakenCodesAndBuiltinNames) {
  Cleanup cleanup{{"site-b", "site-c"}};
  // A built-in analyzer's code, a built-in pack's code.
  try {
    AddRulePack(SitePack("site-b", "comm.nccl_error", "x y z"), "b.json");
    FAIL() << "accepted a comm code";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kRules);
    EXPECT_NE(std::string(e.what()).find("b.json:1:"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("'comm'"), std::string::npos) << e.what();
  }
  try {
    AddRulePack(SitePack("site-b", "runtime.disk_full", "x y z"), "b.json");
    FAIL() << "accepted a built-in rule code";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kRules);
    EXPECT_NE(std::string(e.what()).find("built-in rule pack"), std::string::npos) << e.what();
  }
  // Another added pack's code.
  AddRulePack(SitePack("site-b", "site.shared", "x y z"), "b.json");
  EXPECT_THROW(AddRulePack(SitePack("site-c", "site.shared", "x y z"), "c.json"), Error);
  // absent_if may name another pack's code.
  EXPECT_NO_THROW(AddRulePack(
      SitePack("site-c", "site.other", "x y z", ", \"absent_if\": [\"site.shared\"]"), "c.json"));
  // A built-in pack's name cannot be added, nor removed.
  const std::string builtin = BuiltinRulePacks().front()->name;
  try {
    AddRulePack(SitePack(builtin, "site.z", "x y z"), "z.json");
    FAIL();
  } catch (const Error& e) {
    // A validation error at the name: line 1, column 31 (after {"casefile_rules": 1, "name": ).
    EXPECT_EQ(e.code(), ErrorCode::kRules);
    EXPECT_NE(
        std::string(e.what()).find("z.json:1:31: \"" + builtin + "\" is the name of a built-in"),
        std::string::npos)
        << e.what();
  }
  try {
    RemoveRulePack(builtin);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kArgument);
  }
  try {
    RemoveRulePack("never-added");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kArgument);
  }
}

TEST(RulesRegistry, CheckAddsNothing) {
  const size_t before = RulePacksInUse().size();
  EXPECT_TRUE(CheckRulePack(SitePack("site-d", "site.d", "x y z"), "d.json").empty());
  EXPECT_EQ(RulePacksInUse().size(), before);
  const auto errors = CheckRulePack("{\"casefile_rules\": 1,", "d.json");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].line, 1u);
}

TEST(RulesRegistry, DescribeListsBuiltinThenAdded) {
  Cleanup cleanup{{"site-e"}};
  AddRulePack(SitePack("site-e", "site.e", "x y z"), "e.json");
  const std::string json = DescribeRulePacks();
  const size_t builtin = json.find("\"runtime.disk_full\"");
  const size_t added = json.find("\"site.e\"");
  ASSERT_NE(builtin, std::string::npos) << json;
  ASSERT_NE(added, std::string::npos) << json;
  EXPECT_LT(builtin, added);
  EXPECT_NE(json.find("\"source\": \"e.json\""), std::string::npos) << json;
}

TEST(RulesRegistry, SnapshotsIncludeTheRulesAnalyzer) {
  const AnalyzerList all = AllAnalyzers();
  size_t rules = 0;
  for (const auto& a : all) rules += a->info().name == "rules";
  EXPECT_EQ(rules, 1u);
  EXPECT_TRUE(IsReservedAnalyzerName("rules"));
}

TEST(RulesRegistry, ReplaceOrRemoveMayNotOrphanAnotherPacksAbsentIf) {
  Cleanup cleanup;
  cleanup.names = {"orph-a", "orph-b"};
  AddRulePack(SitePack("orph-b", "orphb.x", "world"), "b.json");
  AddRulePack(SitePack("orph-a", "orpha.y", "hello", ", \"absent_if\": [\"orphb.x\"]"), "a.json");
  // Replacing b by a pack without orphb.x would leave a's absent_if naming
  // nothing: refused, naming the pack and the code.
  try {
    AddRulePack(SitePack("orph-b", "orphb.other", "nomatch-zzz"), "b2.json");
    FAIL() << "the replacement was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kRules);
    const std::string what = e.what();
    EXPECT_NE(what.find("replacing rule pack 'orph-b'"), std::string::npos) << what;
    EXPECT_NE(what.find("rule orpha.y of rule pack 'orph-a'"), std::string::npos) << what;
    EXPECT_NE(what.find("\"orphb.x\""), std::string::npos) << what;
  }
  // The old b is still in use, so is a's rule.
  bool has_old_b = false;
  for (const auto& p : RulePacksInUse()) {
    if (p->name == "orph-b") has_old_b = p->rules[0].code == "orphb.x";
  }
  EXPECT_TRUE(has_old_b);
  try {
    RemoveRulePack("orph-b");
    FAIL() << "the removal was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kArgument);
    const std::string what = e.what();
    EXPECT_NE(what.find("removing rule pack 'orph-b'"), std::string::npos) << what;
    EXPECT_NE(what.find("'orph-a'"), std::string::npos) << what;
  }
  // A replacement that keeps the code is fine; removing a first frees b.
  AddRulePack(SitePack("orph-b", "orphb.x", "world again"), "b3.json");
  RemoveRulePack("orph-a");
  RemoveRulePack("orph-b");
}

TEST(RulesRegistry, PacksInUseTogetherAreBoundedByTheAutomaton) {
  Cleanup cleanup;
  // Each pack alone is under 32 KiB of literals, over ~230 distinct bytes;
  // together their table would pass the 8M-entry bound.
  // Literals of ASCII letters and digits and 2-byte UTF-8 characters
  // (U+0080..U+07FF): 36 + 30 lead + 64 continuation bytes, ~131 classes;
  // 32 literals of ~1019 bytes a pack: one pack ~4.3M entries, two ~8.6M.
  auto big = [](const std::string& name, char salt) {
    std::string any;
    unsigned cp = 0x80;
    for (int i = 0; i < 32; ++i) {
      std::string lit = std::string(1, salt) + std::to_string(i);
      for (int k = 0; lit.size() < 1018; ++k) {
        if (k % 3 == 0) {
          lit += static_cast<char>(k % 2 ? 'a' + k % 26 : '0' + k % 10);
        } else {
          lit += static_cast<char>(0xC0 | (cp >> 6));
          lit += static_cast<char>(0x80 | (cp & 0x3F));
          cp = cp == 0x7FF ? 0x80 : cp + 1;
        }
      }
      any += (i ? ", \"" : "\"") + lit + "\"";
    }
    return "{\"casefile_rules\": 1, \"name\": \"" + name + "\", \"rules\": [{\"code\": \"" + name +
           ".x\", \"severity\": \"info\", \"title\": \"T\", \"recommendation\": \"R\", "
           "\"match\": {\"any\": [" +
           any + "]}}]}";
  };
  cleanup.names = {"biga", "bigb"};
  AddRulePack(big("biga", 'a'), "a.json");
  try {
    AddRulePack(big("bigb", 'b'), "b.json");
    FAIL() << "two big packs were accepted together";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kRules);
    EXPECT_NE(std::string(e.what()).find("adding rule pack 'bigb' would make the literals"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace casefile::rules
