// Feeds a log text to MegascaleParser the way the analyzer does: split into
// lines, each line's wrappers (glog header, ...) parsed by the real
// line-prefix parser, so message/pid/host are what the index would store.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "analyze/analyzers/hang/megascale_parser.h"
#include "parse/line/line_prefix.h"

namespace casefile::hang::test {

struct ParsedFile {
  std::vector<HangReport> reports;
  std::vector<HangDigest> digests;
  int64_t report_count = 0;
  int64_t last_ts_us = kNoTimestamp;  // as the analyzer tracks it
  SourceLine last_ts_line;
};

inline ParsedFile ParseLog(const std::string& log) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < log.size()) {
    size_t nl = log.find('\n', start);
    if (nl == std::string::npos) nl = log.size();
    lines.push_back(log.substr(start, nl - start));
    start = nl + 1;
  }
  MegascaleParser parser;
  int64_t last_ts = kNoTimestamp;
  SourceLine last_line;
  TimeContext tc;
  tc.default_year = 2025;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& text = lines[i];
    LinePrefix p = ParseLinePrefix(text, tc);
    ParserLine line;
    line.line_no = static_cast<int64_t>(i) + 1;
    line.text = text;
    line.message = std::string_view(text).substr(std::min<size_t>(p.msg_start, text.size()));
    line.host = p.host;
    line.pid = p.pid;
    line.ts_us = p.ts_us;
    line.no_newline = i + 1 == lines.size() && !log.ends_with('\n');
    parser.Feed(line);
    if (p.ts_us != kNoTimestamp) {
      last_ts = p.ts_us;
      last_line = {line.line_no, text};
    }
  }
  parser.Finish();
  return {parser.reports(), parser.digests(), parser.report_count(), last_ts, last_line};
}

// The lines of `body` each behind a glog header of thread `tid`, as absl
// logging writes a message logged one line at a time.
inline std::string Glog(char level, const std::string& clock, int tid, const std::string& file,
                        const std::vector<std::string>& body) {
  std::string out;
  for (const auto& l : body) {
    out += std::string(1, level) + "1129 " + clock + "  " + std::to_string(tid) + " " + file +
           "] " + l + "\n";
  }
  return out;
}

}  // namespace casefile::hang::test
