// Flattens a configuration file into (dotted key, scalar text, line) rows:
// DeepSpeed/HF JSON, YAML, INI, .env and TOML. Analyzers compare these rows
// across hosts and check values ("fp16.enabled", "zero_optimization.stage").
//
// Keys: nested maps join with '.', list items add "[i]" ("layers[0].name";
// a root list gives "[0].name"); a key that is itself dotted is kept as is.
// Values: scalars as text: strings unquoted and unescaped, numbers exactly as
// written, true/false/null as written. An empty JSON object or array is
// emitted as "{}" / "[]" so that its presence is visible. Rows come in
// document order; duplicate keys are all emitted.
//
// The whole text is in memory: configs are small, and ParseConfig rejects
// anything above kMaxConfigBytes with Error(kLimit) before reading it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>

namespace casefile {

enum class ConfigFormat { kJson, kYaml, kIni, kEnv, kToml };

inline constexpr size_t kMaxConfigBytes = 64ull << 20;

// key, value and line number (1-based; 0 when unknown). The views are valid
// only during the call.
using ConfigEmit =
    std::function<void(std::string_view key, std::string_view value, int64_t line_no)>;

// The format a file name says (case-insensitive, a trailing ".gz" ignored):
// .json -> kJson; .yaml/.yml -> kYaml; .toml -> kToml; .ini/.cfg/.conf ->
// kIni; .env, a file named ".env", and environment dumps (`env > env.txt`)
// whose stem is env, environ, environment or printenv and whose extension is
// none of the above -> kEnv. nullopt for any other name.
std::optional<ConfigFormat> ConfigFormatForName(std::string_view path);

// ConfigFormatForName, defaulting to kIni (the most forgiving line format)
// for names it does not know.
ConfigFormat ConfigFormatForPath(std::string_view path);

// Parses `text` and calls `emit` once per scalar.
//  kJson: strict JSON plus what DeepSpeed's hjson reader and Python's json
//    module accept: // # and /* */ comments, trailing commas, a missing comma
//    at a line break, unquoted keys, single-quoted strings, bare words
//    (NaN, Infinity, -Infinity, True, None, auto) kept as written. Line
//    numbers are exact. Text that is still not JSON throws Error(kCorrupt)
//    with "line L, column C"; rows emitted before the error stand.
//  kYaml: the block subset configs use: nested maps, "- " lists (also at the
//    parent key's indentation), quoted and plain scalars, comments, "---"
//    documents, anchors and tags stripped. Flow collections ([..], {..}) and
//    block scalars (| >) are emitted as one raw text value. Lines it does not
//    understand are skipped; never throws for content.
//  kIni: "[section]", "key = value" or "key: value" -> "section.key";
//    indented continuation lines append with '\n'; ';' and '#' comments.
//  kEnv: "KEY=value", "export KEY=value"; quotes stripped (double-quoted
//    escapes \n \t \" \\ \$ decoded), unquoted values lose a " #" comment.
//  kToml: [table], [[array.of.tables]] (-> "name[i]"), dotted and quoted
//    keys, basic/literal/multi-line strings decoded; arrays and inline
//    tables kept as raw text.
// Thread-safe (no shared state).
void ParseConfig(ConfigFormat fmt, std::string_view text, const ConfigEmit& emit);

}  // namespace casefile
