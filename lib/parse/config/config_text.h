// Helpers shared by the config readers (internal to parse/config).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "parse/config/config_parser.h"

namespace casefile::config_internal {

struct TextLine {
  std::string_view text;  // without "\n" and a trailing "\r"
  int64_t line_no = 0;    // 1-based
};

std::vector<TextLine> SplitLines(std::string_view text);

inline bool IsBlank(char c) { return c == ' ' || c == '\t'; }
std::string_view TrimLeft(std::string_view s);
std::string_view TrimRight(std::string_view s);
std::string_view Trim(std::string_view s);

// Appends the UTF-8 encoding of `cp` (U+FFFD for a lone surrogate or a value
// beyond U+10FFFF).
void AppendUtf8(std::string& out, uint32_t cp);

// Decodes the body of a double-quoted string: the JSON, TOML and YAML
// escapes (quote, backslash, slash, b f n r t, uXXXX with surrogate pairs,
// UXXXXXXXX, e, 0, $). An unknown escape is kept as written.
std::string UnescapeDoubleQuoted(std::string_view body);

// Finds the closing quote of a string whose opening quote is at s[open]:
// double quotes honour backslash escapes; single quotes end at the next
// quote unless `doubled_quote_escape` (YAML's '') applies. npos when the
// string does not close on this text.
size_t FindClosingQuote(std::string_view s, size_t open, bool doubled_quote_escape);

// `prefix` + "." + `key`, or `key` when the prefix is empty.
std::string JoinKey(std::string_view prefix, std::string_view key);

// Net bracket depth change of `s` ([ { opening, ] } closing), skipping the
// insides of quoted strings. Used to gather flow values and arrays spanning
// lines.
int BracketBalance(std::string_view s);

// Readers for one format each, behind ParseConfig.
void ParseJsonConfig(std::string_view text, const ConfigEmit& emit);
void ParseYamlConfig(std::string_view text, const ConfigEmit& emit);
void ParseIniConfig(std::string_view text, const ConfigEmit& emit);
void ParseEnvConfig(std::string_view text, const ConfigEmit& emit);
void ParseTomlConfig(std::string_view text, const ConfigEmit& emit);

// A value spanning lines is gathered up to this many lines, then cut.
inline constexpr size_t kMaxValueLines = 10000;

}  // namespace casefile::config_internal
