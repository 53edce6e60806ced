// Mutated configs: the line formats never throw; JSON throws only
// casefile::Error(kCorrupt). A fixed seed keeps the run deterministic.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "common/error.h"
#include "parse/config/config_parser.h"

namespace casefile {
namespace {

void Mutate(std::string& text, std::mt19937& rng) {
  static constexpr char kChars[] = "{}[]\"',:#=-|>&*! \n\t\\/0aZ\x00\xff";
  static const std::string kBytes(kChars, sizeof(kChars) - 1);
  int edits = 1 + static_cast<int>(rng() % 5);
  for (int e = 0; e < edits && !text.empty(); ++e) {
    size_t pos = rng() % text.size();
    switch (rng() % 3) {
      case 0:
        text[pos] = kBytes[rng() % kBytes.size()];
        break;
      case 1:
        text.erase(pos, 1 + rng() % 6);
        break;
      default:
        text.insert(pos, 1, kBytes[rng() % kBytes.size()]);
        break;
    }
  }
}

TEST(ConfigMutationTest, MutatedConfigsKeepTheContract) {
  const std::string seeds[] = {
      "{\n // c\n \"fp16\": {\"enabled\": \"auto\", \"loss_scale\": 0,},\n \"l\": [1, {\"a\": "
      "NaN}], 'q': 'x'\n}\n",
      "a:\n  b: 1\n  c:\n  - d: \"x # y\"\n    e: [1, 2,\n      3]\n  - |\n    text\n---\nf: "
      "'it''s'\n",
      "[s]\nk = v\n  cont\n[t]\nx: y\n",
      "export A=1\nB=\"two\nlines\"\nC='x' # c\n",
      "[a]\nb = \"\"\"\nx\"\"\"\n[[c]]\nd = [1,\n2]\ne = {f = 1}\n",
  };
  const ConfigFormat formats[] = {ConfigFormat::kJson, ConfigFormat::kYaml, ConfigFormat::kIni,
                                  ConfigFormat::kEnv, ConfigFormat::kToml};
  std::mt19937 rng(7);
  auto sink = [](std::string_view, std::string_view, int64_t) {};
  for (int round = 0; round < 2000; ++round) {
    for (size_t f = 0; f < std::size(formats); ++f) {
      std::string text = seeds[f];
      Mutate(text, rng);
      for (ConfigFormat fmt : formats) {
        if (fmt == ConfigFormat::kJson) {
          try {
            ParseConfig(fmt, text, sink);
          } catch (const Error& e) {
            ASSERT_EQ(e.code(), ErrorCode::kCorrupt) << text;
          }
        } else {
          ASSERT_NO_THROW(ParseConfig(fmt, text, sink)) << text;
        }
      }
    }
  }
}

}  // namespace
}  // namespace casefile
