// INI, .env and TOML configs (config_parser.h).
#include <gtest/gtest.h>

#include "config_test_util.h"

namespace casefile {
namespace {

using test::ConfigEntry;
using test::Flatten;

TEST(ConfigIniTest, SectionsSeparatorsContinuationsComments) {
  constexpr std::string_view kIni =
      "top = x\n"                                  // 1
      "; pip config\n"                             // 2
      "[global]\n"                                 // 3
      "index-url = https://pypi.example/simple\n"  // 4
      "timeout: 60\n"                              // 5
      "# comment\n"                                // 6
      "[install]\n"                                // 7
      "trusted-host =\n"                           // 8
      "    pypi.example\n"                         // 9
      "    mirror.example\n"                       // 10
      "no-value-key\n"                             // 11
      "\n"                                         // 12
      "[ spaced ]\n"                               // 13
      "k=v=w\n";                                   // 14
  std::vector<ConfigEntry> expected = {
      {"top", "x", 1},
      {"global.index-url", "https://pypi.example/simple", 4},
      {"global.timeout", "60", 5},
      {"install.trusted-host", "\npypi.example\nmirror.example", 8},
      {"install.no-value-key", "", 11},
      {"spaced.k", "v=w", 14},
  };
  EXPECT_EQ(Flatten(ConfigFormat::kIni, kIni), expected);
}

TEST(ConfigIniTest, EnvFiles) {
  constexpr std::string_view kEnv =
      "# NCCL settings\n"                                             // 1
      "export NCCL_DEBUG=INFO\n"                                      // 2
      "NCCL_SOCKET_IFNAME=\"bond0\"\n"                                // 3
      "XLA_FLAGS='--xla_dump_to=/tmp/dump --xla_dump_hlo_as_text'\n"  // 4
      "CUDA_VISIBLE_DEVICES=0,1,2,3  # four GPUs\n"                   // 5
      "MSG=\"line one\\nquote \\\" end\"\n"                           // 6
      "EMPTY=\n"                                                      // 7
      "not a valid line\n"                                            // 8
      "PEM=\"-----BEGIN\n"                                            // 9
      "abc\n"                                                         // 10
      "-----END\"\n"                                                  // 11
      "URL=http://x#frag\n"                                           // 12
      "BAD KEY=1\n";                                                  // 13
  std::vector<ConfigEntry> expected = {
      {"NCCL_DEBUG", "INFO", 2},
      {"NCCL_SOCKET_IFNAME", "bond0", 3},
      {"XLA_FLAGS", "--xla_dump_to=/tmp/dump --xla_dump_hlo_as_text", 4},
      {"CUDA_VISIBLE_DEVICES", "0,1,2,3", 5},
      {"MSG", "line one\nquote \" end", 6},
      {"EMPTY", "", 7},
      {"PEM", "-----BEGIN\nabc\n-----END", 9},
      {"URL", "http://x#frag", 12},
  };
  EXPECT_EQ(Flatten(ConfigFormat::kEnv, kEnv), expected);
}

TEST(ConfigIniTest, ShellExportListings) {
  // bash's `export -p`, zsh's `typeset -x`, and a bare `export`.
  constexpr std::string_view kEnv =
      "declare -x CUDA_HOME=\"/usr/local/cuda-12.1\"\n"               // 1
      "declare -rx LD_LIBRARY_PATH=\"/usr/local/cuda-12.1/lib64\"\n"  // 2
      "declare -x OLDPWD\n"                                           // 3: no value
      "typeset -x PATH=/usr/local/cuda-12.1/bin:/usr/bin\n"           // 4
      "export\tTORCH_CUDA_ARCH_LIST=\"8.0;9.0\"\n";                   // 5
  std::vector<ConfigEntry> expected = {
      {"CUDA_HOME", "/usr/local/cuda-12.1", 1},
      {"LD_LIBRARY_PATH", "/usr/local/cuda-12.1/lib64", 2},
      {"PATH", "/usr/local/cuda-12.1/bin:/usr/bin", 4},
      {"TORCH_CUDA_ARCH_LIST", "8.0;9.0", 5},
  };
  EXPECT_EQ(Flatten(ConfigFormat::kEnv, kEnv), expected);
}

TEST(ConfigIniTest, ProcEnvironIsNulSeparated) {
  using namespace std::string_view_literals;
  constexpr std::string_view kEnviron =
      "HOME=/root\0CUDA_HOME=/usr/local/cuda\0LD_LIBRARY_PATH=/usr/local/cuda/lib64\0"sv;
  std::vector<ConfigEntry> expected = {
      {"HOME", "/root", 1},
      {"CUDA_HOME", "/usr/local/cuda", 1},
      {"LD_LIBRARY_PATH", "/usr/local/cuda/lib64", 1},
  };
  EXPECT_EQ(Flatten(ConfigFormat::kEnv, kEnviron), expected);
}

TEST(ConfigIniTest, Toml) {
  constexpr std::string_view kToml =
      "# launcher\n"                     // 1
      "title = \"run 7\"\n"              // 2
      "[model]\n"                        // 3
      "name = 'llama'\n"                 // 4
      "dims = [4096,\n"                  // 5
      "  4096]\n"                        // 6
      "\"quoted.key\" = 1\n"             // 7
      "a.b = true\n"                     // 8
      "[[stages]]\n"                     // 9
      "name = \"warmup\"\n"              // 10
      "[[stages]]\n"                     // 11
      "name = \"main\"  # comment\n"     // 12
      "steps = 1_000  # comment\n"       // 13
      "[stages.opts]\n"                  // 14
      "lr = 3e-4\n"                      // 15
      "desc = \"\"\"\n"                  // 16
      "multi\n"                          // 17
      "line\"\"\"\n"                     // 18
      "inline = { x = 1, y = \"}\" }\n"  // 19
      "path = 'C:\\dir'\n"               // 20
      "esc = \"tab\\there\"\n"           // 21
      "not toml at all\n";               // 22
  std::vector<ConfigEntry> expected = {
      {"title", "run 7", 2},
      {"model.name", "llama", 4},
      {"model.dims", "[4096, 4096]", 5},
      {"model.quoted.key", "1", 7},
      {"model.a.b", "true", 8},
      {"stages[0].name", "warmup", 10},
      {"stages[1].name", "main", 12},
      {"stages[1].steps", "1_000", 13},
      {"stages[1].opts.lr", "3e-4", 15},
      {"stages[1].opts.desc", "multi\nline", 16},
      {"stages[1].opts.inline", "{ x = 1, y = \"}\" }", 19},
      {"stages[1].opts.path", "C:\\dir", 20},
      {"stages[1].opts.esc", "tab\there", 21},
  };
  EXPECT_EQ(Flatten(ConfigFormat::kToml, kToml), expected);
}

TEST(ConfigIniTest, LineFormatsNeverThrowOnJunk) {
  const std::string junk[] = {
      "",       "[",    "]", "=", "[[", "a = \"\"\"", "a = [", "a = '", std::string("\0\xff=\n", 4),
      "export", "x = {"};
  for (const std::string& text : junk) {
    EXPECT_NO_THROW(Flatten(ConfigFormat::kIni, text)) << text;
    EXPECT_NO_THROW(Flatten(ConfigFormat::kEnv, text)) << text;
    EXPECT_NO_THROW(Flatten(ConfigFormat::kToml, text)) << text;
  }
}

}  // namespace
}  // namespace casefile
