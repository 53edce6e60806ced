#include "output.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "exit_codes.h"

namespace casefile_cli {
namespace {

// Rows held before the table's column widths are fixed.
constexpr size_t kTableSampleRows = 1000;
// A column is padded to at most this many characters; longer cells (log
// lines) run on instead of widening every row.
constexpr size_t kMaxPadWidth = 60;

// Characters on screen, counting UTF-8 continuation bytes as nothing.
size_t DisplayWidth(std::string_view s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

bool IsInteger(std::string_view s) {
  size_t i = (!s.empty() && s[0] == '-') ? 1 : 0;
  if (i >= s.size() || s.size() - i > 18) return false;
  if (s[i] == '0' && s.size() - i > 1) return false;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
  }
  return true;
}

std::string CsvField(std::string_view s) {
  bool quote = s.find_first_of(",\"\r\n") != std::string_view::npos ||
               (!s.empty() && (s.front() == ' ' || s.back() == ' '));
  if (!quote) return std::string(s);
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

// Length of the valid UTF-8 sequence at s[i], or 0 when invalid.
size_t Utf8Length(std::string_view s, size_t i) {
  unsigned char c = s[i];
  size_t len;
  uint32_t cp;
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2;
    cp = c & 0x1F;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    cp = c & 0x0F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    cp = c & 0x07;
  } else {
    return 0;
  }
  if (i + len > s.size()) return 0;
  for (size_t k = 1; k < len; ++k) {
    unsigned char cc = s[i + k];
    if ((cc & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (cc & 0x3F);
  }
  if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF))) return 0;
  if (cp >= 0xD800 && cp <= 0xDFFF) return 0;
  return len;
}

// The code point of the valid sequence of `len` bytes at s[i].
uint32_t CodePointAt(std::string_view s, size_t i, size_t len) {
  static constexpr unsigned char kLeadMask[] = {0, 0x7F, 0x1F, 0x0F, 0x07};
  uint32_t cp = static_cast<unsigned char>(s[i]) & kLeadMask[len];
  for (size_t k = 1; k < len; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
  return cp;
}

// C1 controls (U+0080-U+009F: U+009B is a CSI to a terminal that honours
// them) and the code points that reorder or break what a terminal shows
// without being controls: bidirectional overrides, isolates and marks, and
// the Unicode line and paragraph separators.
bool IsInvisibleControl(uint32_t cp) {
  return (cp >= 0x80 && cp <= 0x9F) || cp == 0x061C || cp == 0x200E || cp == 0x200F ||
         (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069) || cp == 0x2028 ||
         cp == 0x2029;
}

}  // namespace

RowFormat ParseRowFormat(const std::string& name) {
  if (name == "csv") return RowFormat::kCsv;
  if (name == "json") return RowFormat::kJson;
  return RowFormat::kTable;
}

std::string TerminalSafe(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  char buf[16];
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      if (c == '\t' || (c >= 0x20 && c != 0x7F)) {
        out += static_cast<char>(c);
      } else {
        out += '^';
        out += c == 0x7F ? '?' : static_cast<char>(c + 0x40);
      }
      ++i;
      continue;
    }
    const size_t len = Utf8Length(text, i);
    if (len == 0) {
      // Not UTF-8: a raw 0x9B is a CSI to an 8-bit terminal.
      std::snprintf(buf, sizeof buf, "<0x%02X>", c);
      out += buf;
      ++i;
      continue;
    }
    const uint32_t cp = CodePointAt(text, i, len);
    if (IsInvisibleControl(cp)) {
      std::snprintf(buf, sizeof buf, "<U+%04X>", static_cast<unsigned>(cp));
      out += buf;
    } else {
      out.append(text.substr(i, len));
    }
    i += len;
  }
  return out;
}

void AppendJsonString(std::string& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  for (size_t i = 0; i < text.size();) {
    unsigned char c = text[i];
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
      ++i;
    } else if (c == '\n') {
      out += "\\n";
      ++i;
    } else if (c == '\r') {
      out += "\\r";
      ++i;
    } else if (c == '\t') {
      out += "\\t";
      ++i;
    } else if (c < 0x20 || c == 0x7F) {
      out += "\\u00";
      out += kHex[c >> 4];
      out += kHex[c & 0xF];
      ++i;
    } else {
      size_t len = Utf8Length(text, i);
      if (len == 0) {
        out += "\xEF\xBF\xBD";
        ++i;
      } else if (const uint32_t cp = CodePointAt(text, i, len); IsInvisibleControl(cp)) {
        // Valid JSON as they are, but escaped so that JSON printed to a
        // terminal (or pasted into a script) carries them inert.
        out += "\\u";
        for (int shift = 12; shift >= 0; shift -= 4) out += kHex[(cp >> shift) & 0xF];
        i += len;
      } else {
        out.append(text.substr(i, len));
        i += len;
      }
    }
  }
  out += '"';
}

std::string HumanBytes(uint64_t bytes) {
  static const char* const kUnits[] = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};
  if (bytes < 1000) return std::to_string(bytes) + " B";
  double v = static_cast<double>(bytes);
  size_t unit = 0;
  while (v >= 1000.0 && unit + 1 < std::size(kUnits)) {
    v /= 1000.0;
    ++unit;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %s", v, kUnits[unit]);
  return buf;
}

bool UseColor(bool no_color_flag) {
  if (no_color_flag) return false;
  const char* no_color = std::getenv("NO_COLOR");
  if (no_color != nullptr && no_color[0] != '\0') return false;
  return isatty(STDOUT_FILENO) == 1;
}

namespace {

[[noreturn]] void WriteFailed(const char* what, const std::string& path, int e) {
  throw CliError(kExitInput,
                 "cannot write " + std::string(what) + " to '" + path + "': " + std::strerror(e));
}

// Writes all of `text` to `fd`; false with errno set on failure.
bool WriteAll(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    text.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

}  // namespace

void WriteReport(const std::optional<std::string>& path, std::string_view text, const char* what) {
  if (!path || *path == "-") {  // "-o -": stdout, as collect reads it
    if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() ||
        std::fflush(stdout) != 0) {
      throw CliError(kExitInput, std::string("cannot write ") + what + " to stdout");
    }
    return;
  }
  // A link is followed: the report replaces what it points at, never the
  // link itself.
  std::string target = *path;
  if (char* real = ::realpath(path->c_str(), nullptr)) {
    target = real;
    std::free(real);
  }
  struct stat st {};
  if (::stat(target.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    // A device, a pipe, a terminal (/dev/stdout, /dev/null): written in
    // place; a rename would replace the device node with a file.
    const int fd = ::open(target.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0) WriteFailed(what, *path, errno);
    const bool ok = WriteAll(fd, text);
    const int e = errno;
    ::close(fd);
    if (!ok) WriteFailed(what, *path, e);
    return;
  }
  // A regular file (or none yet): a temporary file beside it, created
  // exclusively under an unpredictable name (mkstemp: O_CREAT | O_EXCL, so a
  // planted link is never followed), renamed over it once complete.
  std::string tmp = target + ".tmp-XXXXXX";
  const int fd = ::mkstemp(tmp.data());
  if (fd < 0) WriteFailed(what, *path, errno);
  // mkstemp makes the file 0600; a report is as readable as any new file.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd, 0666 & ~mask);
  const bool written = WriteAll(fd, text);
  int e = errno;
  const bool closed = ::close(fd) == 0;
  if (written && !closed) e = errno;
  if (!written || !closed || std::rename(tmp.c_str(), target.c_str()) != 0) {
    if (written && closed) e = errno;
    ::unlink(tmp.c_str());
    WriteFailed(what, *path, e);
  }
}

RowWriter::RowWriter(std::FILE* out, Options options) : out_(out), options_(std::move(options)) {}

void RowWriter::Write(const std::string& s) {
  if (std::fwrite(s.data(), 1, s.size(), out_) != s.size()) {
    throw CliError(kExitInput, "cannot write the output");
  }
}

void RowWriter::Row(size_t count, const char* const* names, const char* const* values) {
  if (rows_ == 0) names_.assign(names, names + count);
  ++rows_;
  switch (options_.format) {
    case RowFormat::kCsv: {
      std::string line;
      if (rows_ == 1) {
        for (size_t i = 0; i < count; ++i) line += (i ? "," : "") + CsvField(names[i]);
        line += '\n';
      }
      for (size_t i = 0; i < count; ++i) {
        if (i) line += ',';
        if (values[i] != nullptr) line += CsvField(values[i]);
      }
      line += '\n';
      Write(line);
      break;
    }
    case RowFormat::kJson: {
      std::string line = rows_ == 1 ? "[\n  {" : ",\n  {";
      for (size_t i = 0; i < count; ++i) {
        if (i) line += ", ";
        AppendJsonString(line, names[i]);
        line += ": ";
        bool number = i < options_.json_numbers.size() && options_.json_numbers[i];
        if (values[i] == nullptr) {
          line += "null";
        } else if (number && IsInteger(values[i])) {
          line += values[i];
        } else {
          AppendJsonString(line, values[i]);
        }
      }
      line += '}';
      Write(line);
      break;
    }
    case RowFormat::kTable: {
      Cells cells;
      std::vector<bool> is_null;
      for (size_t i = 0; i < count; ++i) {
        is_null.push_back(values[i] == nullptr);
        cells.push_back(values[i] ? TerminalSafe(values[i]) : options_.null_text);
      }
      if (table_started_) {
        WriteTableRow(cells);
      } else {
        held_.push_back(std::move(cells));
        held_null_.push_back(std::move(is_null));
        if (held_.size() >= kTableSampleRows) FlushTable();
      }
      break;
    }
  }
}

void RowWriter::FlushTable() {
  if (table_started_ || names_.empty()) return;
  table_started_ = true;
  size_t columns = names_.size();
  widths_.assign(columns, 0);
  right_align_.assign(columns, true);
  std::vector<bool> any_value(columns, false);
  for (size_t c = 0; c < columns; ++c) widths_[c] = DisplayWidth(TerminalSafe(names_[c]));
  for (size_t r = 0; r < held_.size(); ++r) {
    for (size_t c = 0; c < columns && c < held_[r].size(); ++c) {
      widths_[c] = std::max(widths_[c], std::min(DisplayWidth(held_[r][c]), kMaxPadWidth));
      if (!held_null_[r][c]) {
        any_value[c] = true;
        if (!IsInteger(held_[r][c])) right_align_[c] = false;
      }
    }
  }
  for (size_t c = 0; c < columns; ++c) right_align_[c] = right_align_[c] && any_value[c];
  Cells header;
  Cells rule;
  for (size_t c = 0; c < columns; ++c) {
    header.push_back(TerminalSafe(names_[c]));
    rule.push_back(std::string(widths_[c], '-'));
  }
  WriteTableRow(header);
  WriteTableRow(rule);
  for (const auto& row : held_) WriteTableRow(row);
  held_.clear();
  held_null_.clear();
}

void RowWriter::WriteTableRow(const Cells& cells) {
  std::string line;
  for (size_t c = 0; c < cells.size(); ++c) {
    const std::string& cell = cells[c];
    size_t width = c < widths_.size() ? widths_[c] : 0;
    size_t shown = DisplayWidth(cell);
    size_t pad = shown < width ? width - shown : 0;
    bool last = c + 1 == cells.size();
    if (c) line += "  ";
    if (c < right_align_.size() && right_align_[c]) {
      line.append(pad, ' ');
      line += cell;
    } else {
      line += cell;
      if (!last) line.append(pad, ' ');
    }
  }
  line += '\n';
  Write(line);
}

void RowWriter::Finish() {
  switch (options_.format) {
    case RowFormat::kCsv:
      break;
    case RowFormat::kJson:
      Write(rows_ == 0 ? "[]\n" : "\n]\n");
      break;
    case RowFormat::kTable:
      if (rows_ == 0) {
        Write("(no rows)\n");
      } else {
        FlushTable();
      }
      break;
  }
  std::fflush(out_);
}

}  // namespace casefile_cli
