#include "parse/config/config_text.h"

namespace casefile::config_internal {

std::vector<TextLine> SplitLines(std::string_view text) {
  std::vector<TextLine> lines;
  size_t pos = 0;
  int64_t line_no = 1;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back({line, line_no++});
    pos = end + 1;
  }
  return lines;
}

std::string_view TrimLeft(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && IsBlank(s[i])) ++i;
  return s.substr(i);
}

std::string_view TrimRight(std::string_view s) {
  while (!s.empty() && (IsBlank(s.back()) || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

std::string_view Trim(std::string_view s) { return TrimRight(TrimLeft(s)); }

void AppendUtf8(std::string& out, uint32_t cp) {
  if ((cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) cp = 0xFFFD;
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

namespace {

bool ReadHex(std::string_view s, size_t pos, size_t digits, uint32_t& value) {
  if (pos + digits > s.size()) return false;
  uint32_t v = 0;
  for (size_t i = pos; i < pos + digits; ++i) {
    char c = s[i];
    uint32_t d;
    if (c >= '0' && c <= '9') {
      d = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      d = c - 'a' + 10;
    } else if (c >= 'A' && c <= 'F') {
      d = c - 'A' + 10;
    } else {
      return false;
    }
    v = v * 16 + d;
  }
  value = v;
  return true;
}

}  // namespace

std::string UnescapeDoubleQuoted(std::string_view body) {
  std::string out;
  out.reserve(body.size());
  for (size_t i = 0; i < body.size(); ++i) {
    char c = body[i];
    if (c != '\\' || i + 1 >= body.size()) {
      out.push_back(c);
      continue;
    }
    char e = body[++i];
    switch (e) {
      case '"':
        out.push_back('"');
        break;
      case '\\':
        out.push_back('\\');
        break;
      case '/':
        out.push_back('/');
        break;
      case '$':
        out.push_back('$');
        break;
      case '\'':
        out.push_back('\'');
        break;
      case 'b':
        out.push_back('\b');
        break;
      case 'f':
        out.push_back('\f');
        break;
      case 'n':
        out.push_back('\n');
        break;
      case 'r':
        out.push_back('\r');
        break;
      case 't':
        out.push_back('\t');
        break;
      case 'e':
        out.push_back('\x1b');
        break;
      case '0':
        out.push_back('\0');
        break;
      case 'u': {
        uint32_t cp = 0;
        if (!ReadHex(body, i + 1, 4, cp)) {
          out.append("\\u");
          break;
        }
        i += 4;
        uint32_t low = 0;
        if (cp >= 0xD800 && cp <= 0xDBFF && i + 2 < body.size() && body[i + 1] == '\\' &&
            body[i + 2] == 'u' && ReadHex(body, i + 3, 4, low) && low >= 0xDC00 && low <= 0xDFFF) {
          cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          i += 6;
        }
        AppendUtf8(out, cp);
        break;
      }
      case 'U': {
        uint32_t cp = 0;
        if (!ReadHex(body, i + 1, 8, cp)) {
          out.append("\\U");
          break;
        }
        i += 8;
        AppendUtf8(out, cp);
        break;
      }
      default:
        out.push_back('\\');
        out.push_back(e);
    }
  }
  return out;
}

size_t FindClosingQuote(std::string_view s, size_t open, bool doubled_quote_escape) {
  char q = s[open];
  for (size_t i = open + 1; i < s.size(); ++i) {
    if (q == '"' && s[i] == '\\') {
      ++i;
      continue;
    }
    if (s[i] == q) {
      if (doubled_quote_escape && q == '\'' && i + 1 < s.size() && s[i + 1] == '\'') {
        ++i;
        continue;
      }
      return i;
    }
  }
  return std::string_view::npos;
}

std::string JoinKey(std::string_view prefix, std::string_view key) {
  std::string out;
  out.reserve(prefix.size() + key.size() + 1);
  out.append(prefix);
  if (!prefix.empty()) out.push_back('.');
  out.append(key);
  return out;
}

int BracketBalance(std::string_view s) {
  int depth = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '"' || c == '\'') {
      size_t close = FindClosingQuote(s, i, c == '\'');
      if (close == std::string_view::npos) break;
      i = close;
    } else if (c == '[' || c == '{') {
      ++depth;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return depth;
}

}  // namespace casefile::config_internal
