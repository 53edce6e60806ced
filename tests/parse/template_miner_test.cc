// The signature table (ids, counts, the cap and its overflow signatures) and
// the Drain-style merge of signatures into templates
// (parse/template/signature_table.h, template_miner.h).
#include "parse/template/template_miner.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "parse/template/signature_table.h"

namespace casefile::templates {
namespace {

Signature Sig(Level level, std::string pattern, int64_t count, int64_t line) {
  Signature s;
  s.level = level;
  s.pattern = std::move(pattern);
  s.example = "example of line " + std::to_string(line);
  s.count = count;
  s.first_file_id = 1;
  s.first_line_no = line;
  return s;
}

TEST(TemplateMiner, MergesSignaturesThatDifferInOneConstantToken) {
  MinedTemplates m = MineTemplates({Sig(Level::kInfo, "Loading shard <NUM> of model alpha", 3, 5),
                                    Sig(Level::kInfo, "Loading shard <NUM> of model beta", 4, 9)});
  ASSERT_EQ(m.templates.size(), 1u);
  const TemplateRow& t = m.templates[0];
  EXPECT_EQ(t.id, 1);
  EXPECT_EQ(t.level, "info");
  EXPECT_EQ(t.pattern, "Loading shard <NUM> of model <*>");
  EXPECT_EQ(t.count, 7);
  EXPECT_EQ(t.signatures, 2);
  EXPECT_EQ(t.first_line_no, 5);
  EXPECT_EQ(t.example, "example of line 5");
  ASSERT_EQ(m.signatures.size(), 2u);
  EXPECT_EQ(m.signatures[0].id, 1);
  EXPECT_EQ(m.signatures[1].id, 2);
  EXPECT_EQ(m.signatures[0].template_id, 1);
  EXPECT_EQ(m.signatures[1].template_id, 1);
  EXPECT_EQ(m.signatures[1].pattern, "Loading shard <NUM> of model beta");
  EXPECT_EQ(m.signatures[1].count, 4);
  EXPECT_EQ(m.signatures[1].level, "info");
}

TEST(TemplateMiner, LevelTokenCountAndFirstTokenSeparate) {
  MinedTemplates m = MineTemplates({
      Sig(Level::kInfo, "connect to peer <IP> failed", 1, 1),
      Sig(Level::kError, "connect to peer <IP> failed", 1, 2),       // another level
      Sig(Level::kInfo, "connect to peer <IP> failed twice", 1, 3),  // another length
      Sig(Level::kInfo, "reconnect to peer <IP> failed", 1, 4),      // another first token
      Sig(Level::kUnknown, "connect to peer <IP> failed", 1, 5),     // no level is a level
  });
  ASSERT_EQ(m.templates.size(), 5u);
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(m.signatures[i].template_id, static_cast<int64_t>(i + 1));
    EXPECT_EQ(m.templates[i].signatures, 1);
  }
  EXPECT_EQ(m.templates[1].level, "error");
  EXPECT_EQ(m.templates[4].level, "");
  EXPECT_EQ(m.templates[2].pattern, "connect to peer <IP> failed twice");
}

TEST(TemplateMiner, ThresholdIsTheShareOfEqualPositions) {
  // 3 of 5 equal (0.6) merges; 2 of 5 (0.4) does not.
  MinedTemplates m =
      MineTemplates({Sig(Level::kInfo, "a b c d e", 1, 1), Sig(Level::kInfo, "a x y d e", 1, 2),
                     Sig(Level::kInfo, "a p q r e", 1, 3)});
  ASSERT_EQ(m.templates.size(), 2u);
  EXPECT_EQ(m.templates[0].pattern, "a <*> <*> d e");
  EXPECT_EQ(m.templates[1].pattern, "a p q r e");
  EXPECT_EQ(m.signatures[2].template_id, 2);
  // A stricter threshold keeps the first two apart.
  MergeOptions strict;
  strict.threshold = 0.8;
  EXPECT_EQ(
      MineTemplates({Sig(Level::kInfo, "a b c d e", 1, 1), Sig(Level::kInfo, "a x y d e", 1, 2)},
                    strict)
          .templates.size(),
      2u);
}

TEST(TemplateMiner, WildcardsDoNotCountAsEqual) {
  // After "a b <*> d e", a signature differing in d and in the <*> position
  // shares a, b, e only: 3 of 5, still enough; one more difference is not.
  MinedTemplates m =
      MineTemplates({Sig(Level::kInfo, "a b c d e", 1, 1), Sig(Level::kInfo, "a b x d e", 1, 2),
                     Sig(Level::kInfo, "a b y z e", 1, 3), Sig(Level::kInfo, "a q y z w", 1, 4)});
  ASSERT_EQ(m.templates.size(), 2u);
  EXPECT_EQ(m.templates[0].pattern, "a b <*> <*> e");
  EXPECT_EQ(m.templates[0].signatures, 3);
  EXPECT_EQ(m.templates[1].pattern, "a q y z w");
}

TEST(TemplateMiner, MasksOfDifferentTypesNeverMerge) {
  MinedTemplates m = MineTemplates({Sig(Level::kWarning, "cannot open <PATH> now", 1, 1),
                                    Sig(Level::kWarning, "cannot open <NUM> now", 1, 2),
                                    Sig(Level::kWarning, "cannot open socket now", 1, 3)});
  ASSERT_EQ(m.templates.size(), 2u);
  EXPECT_EQ(m.signatures[1].template_id, 2);
  // A mask against a word may merge.
  EXPECT_EQ(m.signatures[2].template_id, 1);
  EXPECT_EQ(m.templates[0].pattern, "cannot open <*> now");
  Similarity s = CompareTokens(SplitTokens("x <IP> y"), SplitTokens("x <HEX> y"));
  EXPECT_FALSE(s.compatible);
  EXPECT_NEAR(s.share, 2.0 / 3.0, 1e-9);
}

TEST(TemplateMiner, MaskedFirstTokensGroupTogether) {
  MinedTemplates m = MineTemplates({Sig(Level::kInfo, "<NUM>ms elapsed in step", 2, 1),
                                    Sig(Level::kInfo, "<NUM>s elapsed in step", 3, 2)});
  ASSERT_EQ(m.templates.size(), 1u);
  EXPECT_EQ(m.templates[0].pattern, "<*> elapsed in step");
  EXPECT_EQ(m.templates[0].count, 5);
}

TEST(TemplateMiner, ComparesAtMostMaxComparedTemplatesPerGroup) {
  std::vector<Signature> sigs = {Sig(Level::kInfo, "k one two three four", 1, 1),
                                 Sig(Level::kInfo, "k uno dos tres cuatro", 1, 2),
                                 Sig(Level::kInfo, "k uno dos tres four", 1, 3)};
  MergeOptions one;
  one.max_compared = 1;
  // Only the first template of the group is tried: the third signature
  // (like the second) starts its own.
  EXPECT_EQ(MineTemplates(sigs, one).templates.size(), 3u);
  MinedTemplates all = MineTemplates(sigs);
  ASSERT_EQ(all.templates.size(), 2u);
  EXPECT_EQ(all.signatures[2].template_id, 2);
  EXPECT_EQ(all.templates[1].pattern, "k uno dos tres <*>");
}

TEST(TemplateMiner, EmptyAndOverflowSignaturesStayAlone) {
  Signature overflow = Sig(Level::kInfo, std::string(kOverflowPattern), 10, 7);
  overflow.overflow = true;
  Signature lookalike = Sig(Level::kInfo, std::string(kOverflowPattern), 1, 8);
  MinedTemplates m = MineTemplates(
      {Sig(Level::kInfo, "", 2, 1), Sig(Level::kInfo, "", 1, 2), overflow, lookalike});
  // Two empty signatures cannot both exist for one level in a real table;
  // here they show that empty patterns never merge.
  ASSERT_EQ(m.templates.size(), 4u);
  EXPECT_EQ(m.templates[0].pattern, "");
  EXPECT_EQ(m.templates[2].pattern, "<overflow>");
  EXPECT_EQ(m.templates[2].count, 10);
}

TEST(TemplateMiner, DeterministicAndCut) {
  std::vector<Signature> sigs;
  std::string long_tail(600, 'z');
  for (int i = 0; i < 50; ++i) {
    sigs.push_back(Sig(i % 2 ? Level::kInfo : Level::kError,
                       "w" + std::to_string(i % 7) + " x <NUM> y" + std::to_string(i % 3), 1, i));
  }
  sigs.push_back(Sig(Level::kInfo, "long " + long_tail.substr(0, 507), 1, 60));
  sigs.push_back(Sig(Level::kInfo, "long " + long_tail.substr(0, 506) + "q", 1, 61));
  MinedTemplates a = MineTemplates(sigs);
  MinedTemplates b = MineTemplates(sigs);
  ASSERT_EQ(a.templates.size(), b.templates.size());
  for (size_t i = 0; i < a.templates.size(); ++i) {
    EXPECT_EQ(a.templates[i].pattern, b.templates[i].pattern);
    EXPECT_EQ(a.templates[i].count, b.templates[i].count);
    EXPECT_LE(a.templates[i].pattern.size(), kTemplatePatternBytes);
  }
  for (size_t i = 0; i < a.signatures.size(); ++i) {
    EXPECT_EQ(a.signatures[i].template_id, b.signatures[i].template_id);
  }
  // The two long ones (2 tokens, second differs) do not merge: 1 of 2.
  EXPECT_NE(a.signatures[50].template_id, a.signatures[51].template_id);
}

TEST(SignatureTable, IdsInOrderOfFirstOccurrenceWithCounts) {
  SignatureTable table;
  bool overflow = true;
  EXPECT_EQ(table.Observe(Level::kInfo, "step 1 loss=2.5", 4, 10, overflow), 1u);
  EXPECT_FALSE(overflow);
  EXPECT_EQ(table.Observe(Level::kInfo, "epoch 1 done", 4, 11, overflow), 2u);
  EXPECT_EQ(table.Observe(Level::kInfo, "step 2 loss=2.4", 4, 12, overflow), 1u);
  EXPECT_EQ(table.Observe(Level::kInfo, "step   3 loss=2.3", 5, 1, overflow), 1u);
  ASSERT_EQ(table.signatures().size(), 2u);
  const Signature& s = table.signatures()[0];
  EXPECT_EQ(s.pattern, "step <NUM> loss=<NUM>");
  EXPECT_EQ(s.example, "step 1 loss=2.5");
  EXPECT_EQ(s.count, 3);
  EXPECT_EQ(s.first_file_id, 4);
  EXPECT_EQ(s.first_line_no, 10);
  EXPECT_EQ(table.signatures()[1].count, 1);
}

TEST(SignatureTable, CapSendsNewShapesToOneOverflowSignaturePerLevel) {
  SignatureTable table(2);
  bool first = false;
  EXPECT_EQ(table.Observe(Level::kInfo, "alpha 1", 1, 1, first), 1u);
  EXPECT_EQ(table.Observe(Level::kInfo, "beta 1", 1, 2, first), 2u);
  EXPECT_FALSE(first);
  EXPECT_FALSE(table.overflowed());
  EXPECT_EQ(table.Observe(Level::kInfo, "gamma 1", 1, 3, first), 3u);
  EXPECT_TRUE(first);
  EXPECT_TRUE(table.overflowed());
  EXPECT_EQ(table.Observe(Level::kInfo, "delta 1", 1, 4, first), 3u);
  EXPECT_FALSE(first);  // said once
  EXPECT_EQ(table.Observe(Level::kError, "epsilon 1", 1, 5, first), 4u);
  EXPECT_FALSE(first);
  // Known shapes keep their signatures.
  EXPECT_EQ(table.Observe(Level::kInfo, "alpha 22", 1, 6, first), 1u);
  ASSERT_EQ(table.signatures().size(), 4u);
  EXPECT_EQ(table.signatures()[2].pattern, "<overflow>");
  EXPECT_EQ(table.signatures()[2].count, 2);
  EXPECT_EQ(table.signatures()[2].example, "gamma 1");
  EXPECT_EQ(table.signatures()[2].first_line_no, 3);
  EXPECT_TRUE(table.signatures()[2].overflow);
  EXPECT_EQ(table.signatures()[3].level, Level::kError);
  EXPECT_EQ(table.signatures()[0].count, 2);
  MinedTemplates m = MineTemplates(table.signatures());
  ASSERT_EQ(m.templates.size(), 4u);
  EXPECT_EQ(m.templates[2].pattern, "<overflow>");
  EXPECT_EQ(m.templates[3].pattern, "<overflow>");
}

TEST(SignatureTable, ManySignaturesGrowTheTable) {
  SignatureTable table;
  bool first = false;
  // 5,000 distinct words (no digits, so no masks) then each again.
  auto word = [](int i) {
    std::string w;
    for (int k = 0; k < 4; ++k, i /= 26) w.push_back(static_cast<char>('a' + i % 26));
    return w;
  };
  for (int i = 0; i < 5000; ++i) {
    ASSERT_EQ(table.Observe(Level::kDebug, "w " + word(i), 1, i + 1, first), uint32_t(i + 1));
  }
  for (int i = 0; i < 5000; ++i) {
    ASSERT_EQ(table.Observe(Level::kDebug, "w " + word(i), 1, 5001 + i, first), uint32_t(i + 1));
  }
  EXPECT_EQ(table.signatures().size(), 5000u);
  EXPECT_EQ(table.signatures()[4999].count, 2);
}

}  // namespace
}  // namespace casefile::templates
