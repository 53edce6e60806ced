// Feeds a version file's text to VersionExtractor one line at a time, as
// ingest does (lines split on '\n', numbered from 1, terminators removed;
// a CRLF's '\r' is left for the extractor to trim), and renders each fact as
// "line|component|version|detail|source" so expectations read as a table.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "parse/version/version_facts.h"

namespace casefile::version::test {

inline std::string Show(const VersionFact& f) {
  return std::to_string(f.line_no) + "|" + f.component + "|" + f.version + "|" + f.detail + "|" +
         f.source;
}

inline std::vector<std::string> Extract(std::string_view path, std::string_view text) {
  std::vector<std::string> facts;
  VersionExtractor x(path, [&facts](const VersionFact& f) { facts.push_back(Show(f)); });
  int64_t line_no = 0;
  size_t i = 0;
  while (i < text.size()) {
    size_t end = text.find('\n', i);
    if (end == std::string_view::npos) end = text.size();
    x.AddLine(++line_no, text.substr(i, end - i));
    i = end + 1;
  }
  x.Finish();
  return facts;
}

inline std::vector<std::string> Env(std::string_view key, std::string_view value,
                                    int64_t line_no = 1) {
  std::vector<std::string> facts;
  EnvVersionFacts(key, value, line_no,
                  [&facts](const VersionFact& f) { facts.push_back(Show(f)); });
  return facts;
}

using Facts = std::vector<std::string>;

}  // namespace casefile::version::test
