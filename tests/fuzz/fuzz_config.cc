// Fuzz target: the config readers (lib/parse/config) through ParseConfig, the
// call ingest's LineSink makes at the end of a config file: each of the five
// formats runs on every input (ingest picks one from the file name, and any
// name can hold any bytes). Checked for each:
//  - only casefile::Error escapes (ingest catches that one and records
//    config_invalid; anything else would end the whole ingest), and only
//    kCorrupt from JSON, the one reader documented to throw for content;
//  - rows come in document order: line numbers within the text and never
//    decreasing (0, "unknown", allowed anywhere);
//  - no key or value is empty of meaning or grows beyond what the text can
//    make: a value is at most the text; a key at most three bytes per text
//    byte ("[0]" per '[' of nested lists) plus joins.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "common/error.h"
#include "fuzz_abort.h"
#include "parse/config/config_parser.h"

namespace {

void Run(casefile::ConfigFormat fmt, std::string_view text, int64_t lines) {
  int64_t last = 0;
  size_t rows = 0;
  try {
    casefile::ParseConfig(fmt, text, [&](std::string_view key, std::string_view value, int64_t ln) {
      ++rows;
      if (ln < 0 || ln > lines) FUZZ_ABORT();
      if (ln != 0) {
        if (ln < last) FUZZ_ABORT();
        last = ln;
      }
      if (value.size() > text.size() + 2) FUZZ_ABORT();  // "{}" / "[]" of an empty text
      if (key.size() > 4 * text.size() + 16) FUZZ_ABORT();
    });
  } catch (const casefile::Error& e) {
    if (fmt != casefile::ConfigFormat::kJson) FUZZ_ABORT();
    if (e.code() != casefile::ErrorCode::kCorrupt) FUZZ_ABORT();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  int64_t lines = 1;
  for (char c : text) lines += c == '\n';
  using F = casefile::ConfigFormat;
  for (F fmt : {F::kJson, F::kYaml, F::kIni, F::kEnv, F::kToml}) Run(fmt, text, lines);
  return 0;
}
