// INI (configparser, setup.cfg, pip.conf, .conf) and .env / environment
// dumps. Both are line formats; lines that fit neither shape are skipped.
#include <string>

#include "parse/config/config_text.h"

namespace casefile::config_internal {
namespace {

bool IsEnvKeyChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == '-';
}

}  // namespace

void ParseIniConfig(std::string_view text, const ConfigEmit& emit) {
  std::string section;
  // A key's value may continue on indented lines (configparser), so each
  // row is emitted when the next key, section or blank line starts.
  bool have_key = false;
  std::string key, value;
  int64_t key_line = 0;
  size_t continuation_lines = 0;
  auto flush = [&] {
    if (have_key) emit(key, value, key_line);
    have_key = false;
  };
  for (const TextLine& line : SplitLines(text)) {
    std::string_view t = Trim(line.text);
    if (t.empty()) {
      flush();
      continue;
    }
    if (t[0] == '#' || t[0] == ';') continue;
    if (have_key && IsBlank(line.text[0])) {
      if (continuation_lines++ < kMaxValueLines) {
        value.push_back('\n');
        value.append(t);
      }
      continue;
    }
    if (t[0] == '[' && t.back() == ']') {
      flush();
      section = std::string(Trim(t.substr(1, t.size() - 2)));
      continue;
    }
    flush();
    size_t sep = t.find_first_of("=:");
    std::string_view k = sep == std::string_view::npos ? t : TrimRight(t.substr(0, sep));
    if (k.empty()) continue;
    key = JoinKey(section, k);
    value = sep == std::string_view::npos ? std::string() : std::string(Trim(t.substr(sep + 1)));
    key_line = line.line_no;
    continuation_lines = 0;
    have_key = true;
  }
  flush();
}

namespace {

// /proc/PID/environ separates its variables with NUL bytes: each becomes a
// line of its own, keeping the line number of the text line it is in.
std::vector<TextLine> SplitEnvLines(std::string_view text) {
  std::vector<TextLine> lines = SplitLines(text);
  if (text.find('\0') == std::string_view::npos) return lines;
  std::vector<TextLine> out;
  for (const TextLine& l : lines) {
    size_t start = 0;
    while (start <= l.text.size()) {
      size_t nul = l.text.find('\0', start);
      if (nul == std::string_view::npos) nul = l.text.size();
      out.push_back({l.text.substr(start, nul - start), l.line_no});
      start = nul + 1;
    }
  }
  return out;
}

// The shells' export listings: "export K=V", "declare -x K=\"V\"" (bash's
// export -p), "declare -rx", "typeset -x" (ksh, zsh).
std::string_view StripExportWord(std::string_view t) {
  for (std::string_view w : {"export", "declare", "typeset"}) {
    if (t.size() > w.size() && t.substr(0, w.size()) == w && IsBlank(t[w.size()])) {
      t = TrimLeft(t.substr(w.size()));
      while (!t.empty() && t[0] == '-') {  // flags: -x, -rx, -gx
        size_t end = 0;
        while (end < t.size() && !IsBlank(t[end])) ++end;
        t = TrimLeft(t.substr(end));
      }
      return t;
    }
  }
  return t;
}

}  // namespace

void ParseEnvConfig(std::string_view text, const ConfigEmit& emit) {
  std::vector<TextLine> lines = SplitEnvLines(text);
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view t = Trim(lines[i].text);
    if (t.empty() || t[0] == '#') continue;
    t = StripExportWord(t);
    size_t eq = t.find('=');
    if (eq == std::string_view::npos || eq == 0) continue;
    std::string_view key = TrimRight(t.substr(0, eq));
    bool valid = !key.empty();
    for (char c : key) valid = valid && IsEnvKeyChar(c);
    if (!valid) continue;
    std::string_view v = TrimLeft(t.substr(eq + 1));
    const int64_t line_no = lines[i].line_no;
    if (!v.empty() && (v[0] == '"' || v[0] == '\'')) {
      // A quoted value may span lines (PEM keys, JSON blobs in .env files).
      const char q = v[0];
      std::string joined(v);
      size_t close = FindClosingQuote(joined, 0, false);
      size_t taken = 0;
      while (close == std::string::npos && i + 1 < lines.size() && taken++ < kMaxValueLines) {
        joined.push_back('\n');
        joined.append(lines[++i].text);
        close = FindClosingQuote(joined, 0, false);
      }
      std::string_view inner = std::string_view(joined).substr(1);
      if (close != std::string::npos) inner = inner.substr(0, close - 1);
      if (q == '"') {
        emit(key, UnescapeDoubleQuoted(inner), line_no);
      } else {
        emit(key, inner, line_no);
      }
      continue;
    }
    for (size_t j = 1; j < v.size(); ++j) {
      if (v[j] == '#' && IsBlank(v[j - 1])) {
        v = v.substr(0, j);
        break;
      }
    }
    emit(key, TrimRight(v), line_no);
  }
}

}  // namespace casefile::config_internal
