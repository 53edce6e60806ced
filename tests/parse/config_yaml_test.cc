// YAML configs: the block subset of config_parser.h, on an HF accelerate
// config and a hand-written file with every construct the reader knows.
#include <gtest/gtest.h>

#include "config_test_util.h"

namespace casefile {
namespace {

using test::ConfigEntry;
using test::Flatten;

TEST(ConfigYamlTest, AccelerateConfig) {
  constexpr std::string_view kConfig =
      "compute_environment: LOCAL_MACHINE\n"
      "debug: false\n"
      "deepspeed_config:\n"
      "  gradient_accumulation_steps: 4\n"
      "  offload_optimizer_device: none\n"
      "  zero_stage: 3\n"
      "distributed_type: DEEPSPEED\n"
      "downcast_bf16: 'no'\n"
      "mixed_precision: bf16\n"
      "num_machines: 2\n"
      "tpu_env: []\n";
  std::vector<ConfigEntry> expected = {
      {"compute_environment", "LOCAL_MACHINE", 1},
      {"debug", "false", 2},
      {"deepspeed_config.gradient_accumulation_steps", "4", 4},
      {"deepspeed_config.offload_optimizer_device", "none", 5},
      {"deepspeed_config.zero_stage", "3", 6},
      {"distributed_type", "DEEPSPEED", 7},
      {"downcast_bf16", "no", 8},
      {"mixed_precision", "bf16", 9},
      {"num_machines", "2", 10},
      {"tpu_env", "[]", 11},
  };
  EXPECT_EQ(Flatten(ConfigFormat::kYaml, kConfig), expected);
}

TEST(ConfigYamlTest, EveryConstruct) {
  constexpr std::string_view kConfig =
      "# training run\n"                                     // 1
      "model:\n"                                             // 2
      "  name: \"llama-7b\"   # quoted, then comment\n"      // 3
      "  layers:\n"                                          // 4
      "    - name: attn\n"                                   // 5
      "      heads: 32\n"                                    // 6
      "    - name: mlp\n"                                    // 7
      "      hidden: 11008\n"                                // 8
      "optimizer: {type: adamw, lr: 3e-4}\n"                 // 9
      "devices:\n"                                           // 10
      "- 0\n"                                                // 11
      "- 1\n"                                                // 12
      "tags: [a, b,\n"                                       // 13
      "  c]\n"                                               // 14
      "notes: |\n"                                           // 15
      "  first line\n"                                       // 16
      "    indented\n"                                       // 17
      "\n"                                                   // 18
      "  last line\n"                                        // 19
      "empty:\n"                                             // 20
      "url: http://example.com:8080/x # trailing comment\n"  // 21
      "hash: \"a # not a comment\"\n"                        // 22
      "single: 'it''s'\n"                                    // 23
      "defaults: &defaults\n"                                // 24
      "  seed: 42\n"                                         // 25
      "typed: !!str 123\n"                                   // 26
      "matrix:\n"                                            // 27
      "  - - 1\n"                                            // 28
      "    - 2\n"                                            // 29
      "  -\n"                                                // 30
      "    k: v\n"                                           // 31
      "---\n"                                                // 32
      "second: doc\n";                                       // 33
  std::vector<ConfigEntry> expected = {
      {"model.name", "llama-7b", 3},
      {"model.layers[0].name", "attn", 5},
      {"model.layers[0].heads", "32", 6},
      {"model.layers[1].name", "mlp", 7},
      {"model.layers[1].hidden", "11008", 8},
      {"optimizer", "{type: adamw, lr: 3e-4}", 9},
      {"devices[0]", "0", 11},
      {"devices[1]", "1", 12},
      {"tags", "[a, b, c]", 13},
      {"notes", "first line\n  indented\n\nlast line", 15},
      {"empty", "", 20},
      {"url", "http://example.com:8080/x", 21},
      {"hash", "a # not a comment", 22},
      {"single", "it's", 23},
      {"defaults.seed", "42", 25},
      {"typed", "123", 26},
      {"matrix[0][0]", "1", 28},
      {"matrix[0][1]", "2", 29},
      {"matrix[1].k", "v", 31},
      {"second", "doc", 33},
  };
  EXPECT_EQ(Flatten(ConfigFormat::kYaml, kConfig), expected);
}

TEST(ConfigYamlTest, RootListAndQuotedKeys) {
  std::vector<ConfigEntry> expected = {
      {"[0].name", "a", 1},
      {"[0].value", "1", 2},
      {"[1]", "plain", 3},
      {"[2].key with: colon", "x", 4},
  };
  EXPECT_EQ(Flatten(ConfigFormat::kYaml,
                    "- name: a\n"
                    "  value: 1\n"
                    "- plain\n"
                    "- \"key with: colon\": x\n"),
            expected);
}

TEST(ConfigYamlTest, MultiLineQuotedScalarIsFolded) {
  EXPECT_EQ(Flatten(ConfigFormat::kYaml, "msg: \"first\n  second\"\nnext: 1\n"),
            (std::vector<ConfigEntry>{{"msg", "first second", 1}, {"next", "1", 3}}));
}

TEST(ConfigYamlTest, WhatItDoesNotUnderstandIsSkipped) {
  // A deeper line with no key above it, a complex key, a stray plain line:
  // each is skipped, and the keys around them are still read.
  std::vector<ConfigEntry> expected = {
      {"a", "1", 1},
      {"b", "2", 4},
  };
  EXPECT_EQ(Flatten(ConfigFormat::kYaml,
                    "a: 1\n"
                    "    orphan: 9\n"
                    "? complex key\n"
                    "b: 2\n"
                    "just some words\n"),
            expected);
}

TEST(ConfigYamlTest, NeverCrashesOnJunk) {
  const std::string junk[] = {
      "",
      "---\n---\n...\n",
      "a:\n\t- b\n\t\tc: d\n",
      "- - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - x\n",
      "key: [unclosed, flow\n",
      "key: \"unclosed quote\n",
      "key: 'unclosed\n",
      "key: |\n",
      ": no key\n",
      "\"unclosed key: 1\n",
      std::string("a: \0\xff\xfe\n", 7),
      std::string(10000, '-') + "\n",
      std::string(3000, ' ') + "deep: 1\n",
  };
  for (const std::string& text : junk) {
    EXPECT_NO_THROW(Flatten(ConfigFormat::kYaml, text)) << text;
  }
  std::string deep;
  for (int i = 0; i < 2000; ++i) deep += std::string(i, ' ') + "k:\n";
  EXPECT_NO_THROW(Flatten(ConfigFormat::kYaml, deep));
  std::string dashes;
  for (int i = 0; i < 5000; ++i) dashes += "- ";
  EXPECT_NO_THROW(Flatten(ConfigFormat::kYaml, dashes + "x\n"));
}

}  // namespace
}  // namespace casefile
