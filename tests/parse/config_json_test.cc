// JSON configs: DeepSpeed (hjson-ish, formats.md 7.1) and HF trainer_state
// (formats.md 7.2), flattened to dotted keys with their lines.
#include <gtest/gtest.h>

#include "common/error.h"
#include "config_test_util.h"

namespace casefile {
namespace {

using test::ConfigEntry;
using test::Flatten;

std::string ErrorOf(std::string_view text, ErrorCode* code = nullptr) {
  try {
    Flatten(ConfigFormat::kJson, text);
  } catch (const Error& e) {
    if (code) *code = e.code();
    return e.what();
  }
  return "";
}

TEST(ConfigJsonTest, DeepSpeedConfigWithAutoValuesAndComments) {
  constexpr std::string_view kConfig = R"({
  // mixed precision
  "fp16": {
    "enabled": "auto",
    "loss_scale": 0,
    "initial_scale_power": 16,   # hjson-style comment
  },
  "optimizer": {
    "type": "AdamW",
    "params": { "lr": "auto", "betas": [0.9, 0.999], "eps": 1e-8, "weight_decay": "auto" }
  },
  /* ZeRO
     stage 3 */
  "zero_optimization": {"stage": 3, "offload_optimizer": {}, "overlap_comm": true},
  "gradient_clipping": 1.0,
  "train_micro_batch_size_per_gpu": "auto",
  "wall_clock_breakdown": false,
  "comms_logger": null,
}
)";
  std::vector<ConfigEntry> expected = {
      {"fp16.enabled", "auto", 4},
      {"fp16.loss_scale", "0", 5},
      {"fp16.initial_scale_power", "16", 6},
      {"optimizer.type", "AdamW", 9},
      {"optimizer.params.lr", "auto", 10},
      {"optimizer.params.betas[0]", "0.9", 10},
      {"optimizer.params.betas[1]", "0.999", 10},
      {"optimizer.params.eps", "1e-8", 10},
      {"optimizer.params.weight_decay", "auto", 10},
      {"zero_optimization.stage", "3", 14},
      {"zero_optimization.offload_optimizer", "{}", 14},
      {"zero_optimization.overlap_comm", "true", 14},
      {"gradient_clipping", "1.0", 15},
      {"train_micro_batch_size_per_gpu", "auto", 16},
      {"wall_clock_breakdown", "false", 17},
      {"comms_logger", "null", 18},
  };
  EXPECT_EQ(Flatten(ConfigFormat::kJson, kConfig), expected);
}

TEST(ConfigJsonTest, TrainerStateWithNonFiniteFloats) {
  constexpr std::string_view kState = R"({
  "best_metric": null,
  "epoch": 5.0,
  "global_step": 42360,
  "log_history": [
    {
      "epoch": 4.13,
      "grad_norm": NaN,
      "learning_rate": 3.649e-06,
      "loss": 0.0604,
      "step": 35000
    },
    {
      "epoch": 5.0,
      "step": 42360,
      "total_flos": 1.2384993739427283e+19,
      "train_loss": -Infinity
    }
  ],
  "trial_params": null
}
)";
  std::vector<ConfigEntry> expected = {
      {"best_metric", "null", 2},
      {"epoch", "5.0", 3},
      {"global_step", "42360", 4},
      {"log_history[0].epoch", "4.13", 7},
      {"log_history[0].grad_norm", "NaN", 8},
      {"log_history[0].learning_rate", "3.649e-06", 9},
      {"log_history[0].loss", "0.0604", 10},
      {"log_history[0].step", "35000", 11},
      {"log_history[1].epoch", "5.0", 14},
      {"log_history[1].step", "42360", 15},
      {"log_history[1].total_flos", "1.2384993739427283e+19", 16},
      {"log_history[1].train_loss", "-Infinity", 17},
      {"trial_params", "null", 20},
  };
  EXPECT_EQ(Flatten(ConfigFormat::kJson, kState), expected);
}

TEST(ConfigJsonTest, RootArraysNestedArraysAndEmptyContainers) {
  std::vector<ConfigEntry> expected = {
      {"[0].name", "attn", 1},
      {"[0].dims[0][0]", "1", 1},
      {"[0].dims[0][1]", "2", 1},
      {"[0].dims[1]", "[]", 1},
      {"[1]", "x", 2},
      {"[2]", "{}", 2},
  };
  EXPECT_EQ(Flatten(ConfigFormat::kJson,
                    "[{\"name\": \"attn\", \"dims\": [[1, 2], []]},\n"
                    "\"x\", {}]"),
            expected);
  EXPECT_EQ(Flatten(ConfigFormat::kJson, "{}"), (std::vector<ConfigEntry>{{"", "{}", 1}}));
  EXPECT_EQ(Flatten(ConfigFormat::kJson, "42"), (std::vector<ConfigEntry>{{"", "42", 1}}));
  EXPECT_TRUE(Flatten(ConfigFormat::kJson, "").empty());
  EXPECT_TRUE(Flatten(ConfigFormat::kJson, " \n // only a comment\n").empty());
}

TEST(ConfigJsonTest, StringEscapesAreDecoded) {
  auto rows =
      Flatten(ConfigFormat::kJson, R"({"s": "a\"b\\c\/d\n\u00e9\ud83d\ude00", "k\u0031": 1})");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].value, "a\"b\\c/d\n\xC3\xA9\xF0\x9F\x98\x80");
  EXPECT_EQ(rows[1].key, "k1");
  // A lone surrogate becomes U+FFFD rather than invalid UTF-8.
  EXPECT_EQ(Flatten(ConfigFormat::kJson, R"({"s": "\ud83d"})")[0].value, "\xEF\xBF\xBD");
}

TEST(ConfigJsonTest, HjsonLeniency) {
  // Unquoted keys, single quotes, a missing comma at a line break, a value
  // on the line after its key (reported on the key's line), a BOM.
  std::vector<ConfigEntry> expected = {
      {"stage", "2", 2},
      {"name", "zero", 3},
      {"offload.device", "cpu", 4},
      {"python", "True", 6},
  };
  EXPECT_EQ(Flatten(ConfigFormat::kJson,
                    "\xEF\xBB\xBF{\n"
                    "  stage: 2\n"
                    "  'name': 'zero',\n"
                    "  offload: {device:\n \"cpu\"},\n"
                    "  python: True\n"
                    "}"),
            expected);
}

TEST(ConfigJsonTest, HopelessJsonThrowsCorruptWithThePosition) {
  ErrorCode code = ErrorCode::kInternal;
  std::string message = ErrorOf("{\"a\": 1 \"b\": 2}", &code);
  EXPECT_EQ(code, ErrorCode::kCorrupt);
  EXPECT_NE(message.find("expected ',' or '}' at line 1, column 9"), std::string::npos) << message;

  message = ErrorOf("{\n  \"a\": [1, 2}\n}", &code);
  EXPECT_EQ(code, ErrorCode::kCorrupt);
  EXPECT_NE(message.find("line 2, column 13"), std::string::npos) << message;

  message = ErrorOf("{\"a\": \"never closed}", &code);
  EXPECT_NE(message.find("unterminated string"), std::string::npos) << message;

  message = ErrorOf("{\"a\": 1}\n{\"b\": 2}", &code);
  EXPECT_NE(message.find("unexpected data after the JSON value at line 2, column 1"),
            std::string::npos)
      << message;

  message = ErrorOf("{\"a\" 1}", &code);
  EXPECT_NE(message.find("expected ':' after key \"a\""), std::string::npos) << message;

  message = ErrorOf("{\"a\": 1 /* open", &code);
  EXPECT_NE(message.find("unterminated /* comment"), std::string::npos) << message;

  message = ErrorOf(std::string(600, '[') + std::string(600, ']'), &code);
  EXPECT_EQ(code, ErrorCode::kCorrupt);
  EXPECT_NE(message.find("nesting deeper than 512"), std::string::npos) << message;
}

TEST(ConfigJsonTest, RowsBeforeTheErrorStand) {
  std::vector<ConfigEntry> rows;
  EXPECT_THROW(ParseConfig(ConfigFormat::kJson, "{\"a\": 1, \"b\": }",
                           [&](std::string_view k, std::string_view v, int64_t l) {
                             rows.push_back({std::string(k), std::string(v), l});
                           }),
               Error);
  EXPECT_EQ(rows, (std::vector<ConfigEntry>{{"a", "1", 1}}));
}

TEST(ConfigJsonTest, OversizedTextIsALimitError) {
  std::string big(kMaxConfigBytes + 1, ' ');
  try {
    Flatten(ConfigFormat::kJson, big);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kLimit);
  }
}

TEST(ConfigJsonTest, FormatForPath) {
  EXPECT_EQ(ConfigFormatForPath("ds_config.json"), ConfigFormat::kJson);
  EXPECT_EQ(ConfigFormatForPath("a/B.JSON.gz"), ConfigFormat::kJson);
  EXPECT_EQ(ConfigFormatForPath("accelerate.yaml"), ConfigFormat::kYaml);
  EXPECT_EQ(ConfigFormatForPath("x.yml"), ConfigFormat::kYaml);
  EXPECT_EQ(ConfigFormatForPath("pyproject.toml"), ConfigFormat::kToml);
  EXPECT_EQ(ConfigFormatForPath("setup.cfg"), ConfigFormat::kIni);
  EXPECT_EQ(ConfigFormatForPath("pip.conf"), ConfigFormat::kIni);
  EXPECT_EQ(ConfigFormatForPath("tox.ini"), ConfigFormat::kIni);
  EXPECT_EQ(ConfigFormatForPath(".env"), ConfigFormat::kEnv);
  EXPECT_EQ(ConfigFormatForPath("prod.env"), ConfigFormat::kEnv);
  EXPECT_EQ(ConfigFormatForPath("host-1/env.txt"), ConfigFormat::kEnv);
  EXPECT_EQ(ConfigFormatForPath("printenv"), ConfigFormat::kEnv);
  EXPECT_EQ(ConfigFormatForPath("environment.yml"), ConfigFormat::kYaml);
  EXPECT_FALSE(ConfigFormatForName("train.log").has_value());
  EXPECT_FALSE(ConfigFormatForName("environment_setup.log").has_value());
  EXPECT_EQ(ConfigFormatForPath("train.log"), ConfigFormat::kIni);
}

}  // namespace
}  // namespace casefile
