// Recognisers for the headers that logging libraries write: glog/absl and
// torch's c10 variant, Python logging and DeepSpeed, vLLM, syslog, dmesg.
// They say when and how severe, sometimes which thread or process.
#include "parse/line/prefix_wrappers.h"
#include "parse/line/scan.h"
#include "parse/line/timestamp.h"

namespace casefile::prefix {
namespace {

using scan::At;
using scan::IsBlank;
using scan::IsDigit;
using scan::LiteralAt;
using scan::ReadUint;
using scan::SkipSpaces;

constexpr size_t kMaxLoggerName = 256;
constexpr size_t kMaxPid = 10;

size_t SkipOneSpace(std::string_view s, size_t i) { return At(s, i, ' ') ? i + 1 : i; }

Level GlogLevel(char c) {
  switch (c) {
    case 'I':
      return Level::kInfo;
    case 'W':
      return Level::kWarning;
    case 'E':
      return Level::kError;
    case 'F':
      return Level::kFatal;
    default:
      return Level::kUnknown;
  }
}

// Formats without a year are read with ctx.default_year. Feb 29 in a common
// default year is still a real date of the log's own year: keep the header
// (its level and length) and drop only the time.
using YearlessParser = ParsedTime (*)(std::string_view, int);
ParsedTime ParseYearless(YearlessParser parse, std::string_view s, int year) {
  ParsedTime t = parse(s, year);
  if (t.consumed != 0) return t;
  t = parse(s, 2000);  // a leap year
  if (t.consumed != 0) t.us = kNoTimestamp;
  return t;
}

// End of a Python logger name ("root", "torch.distributed.run", "__main__")
// at s[i], or 0 when there is none.
size_t LoggerNameEnd(std::string_view s, size_t i) {
  size_t j = i;
  while (j < s.size() && j - i <= kMaxLoggerName &&
         (scan::IsAlnum(s[j]) || s[j] == '_' || s[j] == '.' || s[j] == '-' || s[j] == '<' ||
          s[j] == '>')) {
    ++j;
  }
  return (j == i || j - i > kMaxLoggerName) ? 0 : j;
}

// The level forms that follow a time, at s[i] (just after the time): " - L - ",
// " - logger - L - ", " [L] ", " | L | ", " L ", " L: ", " L:logger:",
// " logger: [L] ". Returns the offset where the message starts: after the
// level form, or after the one blank that ends the time when there is none.
size_t PostTimeLevel(std::string_view s, size_t i, Wrapper& w) {
  if (i >= s.size() || !IsBlank(s[i])) return i;
  const size_t j = i + 1;
  Level level;
  size_t n;
  auto found = [&w, &level](size_t end) {
    w.level = level;
    w.kind |= kWrapLevelWord;
    return end;
  };
  if (LiteralAt(s, j, "- ")) {
    size_t k = j + 2;
    if ((n = LevelWordAt(s, k, &level)) && LiteralAt(s, k + n, " - ")) return found(k + n + 3);
    const size_t name_end = LoggerNameEnd(s, k);
    if (name_end && LiteralAt(s, name_end, " - ")) {
      k = name_end + 3;
      if ((n = LevelWordAt(s, k, &level)) && LiteralAt(s, k + n, " - ")) return found(k + n + 3);
    }
    return j;
  }
  if (At(s, j, '[')) {
    if ((n = LevelWordAt(s, j + 1, &level)) && At(s, j + 1 + n, ']')) {
      return found(SkipOneSpace(s, j + 2 + n));
    }
    return j;
  }
  if (At(s, j, '|')) {
    const size_t k = SkipSpaces(s, j + 1);
    if ((n = LevelWordAt(s, k, &level))) {
      const size_t e = SkipSpaces(s, k + n);
      if (At(s, e, '|')) return found(SkipOneSpace(s, e + 1));
    }
    return j;
  }
  if ((n = LevelWordAt(s, j, &level))) {
    size_t e = j + n;
    if (e == s.size()) return found(e);
    if (IsBlank(s[e])) {
      while (e < s.size() && IsBlank(s[e])) ++e;  // "%(levelname)-8s" padding
      return found(e);
    }
    if (s[e] == ':') {
      if (At(s, e + 1, ' ')) return found(e + 2);
      const size_t k = LoggerNameEnd(s, e + 1);
      if (k && At(s, k, ':')) return found(k + 1);
    }
    return j;
  }
  const size_t k = LoggerNameEnd(s, j);
  if (k && LiteralAt(s, k, ": [") && (n = LevelWordAt(s, k + 3, &level)) && At(s, k + 3 + n, ']')) {
    return found(SkipOneSpace(s, k + 4 + n));
  }
  return j;
}

// After a glog time: blanks, an optional thread id, the source location.
// Returns the offset after "file.cc:12] " or 0. C++ glog prints the kernel's
// thread id (the pid for the main thread); absl-py (JAX, orbax, MaxText)
// prints Python's threading.get_ident(), a 15-digit address, which names
// no process and is not kept.
size_t GlogTail(std::string_view s, size_t i, Wrapper& w) {
  if (!At(s, i, ' ')) return 0;
  i = SkipSpaces(s, i);
  constexpr size_t kMaxThreadIdent = 18;
  uint64_t tid;
  const size_t n = ReadUint(s, i, kMaxThreadIdent, &tid);
  if (n && At(s, i + n, ' ')) {
    if (n <= kMaxPid) w.pid = static_cast<int64_t>(tid);
    i = SkipSpaces(s, i + n);
  }
  const size_t e = SourceLocEnd(s, i);
  return e ? SkipOneSpace(s, e) : 0;
}

// After a syslog time: "host tag: ", "host tag[pid]: " (RFC 3164 and the
// RFC 3339 form of rsyslog and journalctl -o short-iso). Sets host and pid;
// returns the offset of the message, or 0. `strict` (after an ISO time,
// which many programs print before their own "word word: " messages)
// accepts only the kernel's tag or a tag with a pid.
size_t SyslogTail(std::string_view line, size_t i, bool strict, Wrapper& w) {
  const size_t host = i;
  while (i < line.size() && i - host <= 255 && line[i] != ' ') ++i;
  if (i == host || i - host > 255 || !At(line, i, ' ')) return 0;
  const size_t host_end = i;
  const size_t tag = ++i;
  while (i < line.size() && i - tag <= 128 && line[i] != ' ' && line[i] != ':' && line[i] != '[') {
    ++i;
  }
  if (i == tag || i - tag > 128) return 0;
  const bool kernel = line.substr(tag, i - tag) == "kernel";
  int64_t pid = -1;
  if (At(line, i, '[')) {
    uint64_t v;
    const size_t n = ReadUint(line, i + 1, kMaxPid, &v);
    if (n == 0 || !At(line, i + 1 + n, ']')) return 0;
    pid = static_cast<int64_t>(v);
    i += n + 2;
  }
  if (!At(line, i, ':') || (i + 1 < line.size() && line[i + 1] != ' ')) return 0;
  if (strict && !kernel && pid < 0) return 0;
  w.host = line.substr(host, host_end - host);
  w.pid = pid;
  return SkipOneSpace(line, i + 1);
}

// An RFC 3339 time as syslog writes it: date 'T' time and a zone.
bool IsRfc3339(std::string_view stamp) {
  if (stamp.size() < 20 || stamp[10] != 'T') return false;
  return stamp.back() == 'Z' || stamp.find_first_of("+-", 19) != std::string_view::npos;
}

}  // namespace

size_t LevelWordAt(std::string_view s, size_t i, Level* level) {
  struct Word {
    std::string_view text;
    Level level;
  };
  // WARNING before WARN: the longer word wins.
  static constexpr Word kWords[] = {
      {"WARNING", Level::kWarning}, {"WARN", Level::kWarning}, {"ERROR", Level::kError},
      {"INFO", Level::kInfo},       {"DEBUG", Level::kDebug},  {"TRACE", Level::kTrace},
      {"CRITICAL", Level::kFatal},  {"FATAL", Level::kFatal},
  };
  if (i >= s.size() || !scan::IsUpper(s[i])) return 0;
  for (const Word& word : kWords) {
    if (s[i] != word.text[0] || !LiteralAt(s, i, word.text)) continue;
    const size_t e = i + word.text.size();
    if (e < s.size() && (scan::IsAlnum(s[e]) || s[e] == '_')) continue;
    *level = word.level;
    return word.text.size();
  }
  return 0;
}

size_t SourceLocEnd(std::string_view s, size_t i) {
  size_t j = i;
  bool has_line = false;
  while (j < s.size() && j - i <= 512 && s[j] != ']' && !IsBlank(s[j])) {
    if (s[j] == ':' && j + 1 < s.size() && IsDigit(s[j + 1])) {
      size_t k = j + 1;
      while (k < s.size() && IsDigit(s[k])) ++k;
      has_line |= k < s.size() && (s[k] == ']' || s[k] == ':');
    }
    ++j;
  }
  if (j == i || !has_line || !At(s, j, ']')) return 0;
  return j + 1;
}

bool MatchGlog(std::string_view line, size_t pos, const TimeContext& ctx, Wrapper& w) {
  // "I1129 09:21:26.123456  1234 file.cc:12] " (glog, absl, torch elastic).
  const Level level = GlogLevel(line[pos]);
  if (level == Level::kUnknown || pos + 1 >= line.size() || !IsDigit(line[pos + 1])) return false;
  const ParsedTime t = ParseYearless(ParseGlogTime, line.substr(pos + 1), ctx.default_year);
  if (t.consumed == 0) return false;
  const size_t end = GlogTail(line, pos + 1 + t.consumed, w);
  if (!end) return false;
  w.kind = kWrapGlog;
  w.level = level;
  w.ts_us = t.us;
  w.end = end;
  return true;
}

bool MatchGlogBracketed(std::string_view line, size_t pos, const TimeContext& ctx, Wrapper& w) {
  // torch c10: "[E1218 20:27:21.426415540 ProcessGroupNCCL.cpp:629] " and,
  // before torch 2.4 or so, "[E ProcessGroupNCCL.cpp:458] " without a time.
  if (!At(line, pos, '[') || pos + 2 >= line.size()) return false;
  const Level level = GlogLevel(line[pos + 1]);
  if (level == Level::kUnknown) return false;
  size_t end = 0;
  if (line[pos + 2] == ' ') {
    const size_t e = SourceLocEnd(line, pos + 3);
    end = e ? SkipOneSpace(line, e) : 0;
  } else if (IsDigit(line[pos + 2])) {
    const ParsedTime t = ParseYearless(ParseGlogTime, line.substr(pos + 2), ctx.default_year);
    if (t.consumed == 0) return false;
    end = GlogTail(line, pos + 2 + t.consumed, w);
    w.ts_us = t.us;
  }
  if (!end) return false;
  w.kind = kWrapGlog;
  w.level = level;
  w.end = end;
  return true;
}

bool MatchIsoTime(std::string_view line, size_t pos, const TimeContext&, Wrapper& w) {
  const ParsedTime t = ParseIsoTime(line.substr(pos));
  if (t.consumed == 0) return false;
  const size_t e = pos + t.consumed;
  if (e < line.size() && !IsBlank(line[e])) return false;
  // dmesg --time-format iso: 'T', a comma and six digits, then the offset.
  const bool dmesg = t.consumed == 32 && line[pos + 10] == 'T' && line[pos + 19] == ',' &&
                     (line[pos + 26] == '+' || line[pos + 26] == '-');
  w.ts_us = t.us;
  // rsyslog's RFC 3339 file format, journalctl -o short-iso:
  // "2024-05-01T12:00:00.123456+00:00 host-3 kernel: msg".
  if (!dmesg && At(line, e, ' ') && IsRfc3339(line.substr(pos, t.consumed))) {
    const size_t end = SyslogTail(line, e + 1, /*strict=*/true, w);
    if (end) {
      w.kind = kWrapSyslog;
      w.end = end;
      return true;
    }
  }
  w.kind = dmesg ? kWrapDmesg : kWrapIsoTime;
  w.end = PostTimeLevel(line, e, w);
  return true;
}

bool MatchBracketedIsoTime(std::string_view line, size_t pos, const TimeContext&, Wrapper& w) {
  if (!At(line, pos, '[')) return false;
  const ParsedTime t = ParseIsoTime(line.substr(pos + 1));
  if (t.consumed == 0 || !At(line, pos + 1 + t.consumed, ']')) return false;
  const size_t e = pos + 2 + t.consumed;
  w.ts_us = t.us;
  // DeepSpeed: "[time] [LEVEL] [file.py:line:func] ".
  Level level;
  const size_t n = LevelWordAt(line, e + 2, &level);
  if (LiteralAt(line, e, " [") && n && LiteralAt(line, e + 2 + n, "] [")) {
    const size_t loc = SourceLocEnd(line, e + 5 + n);
    if (loc) {
      w.kind = kWrapDeepSpeed;
      w.level = level;
      w.end = SkipOneSpace(line, loc);
      return true;
    }
  }
  w.kind = kWrapIsoTime;
  w.end = PostTimeLevel(line, e, w);
  return true;
}

bool MatchBracketedLevel(std::string_view line, size_t pos, const TimeContext&, Wrapper& w) {
  // "[WARNING] msg", "[INFO] [real_accelerator.py:161:get_accelerator] msg".
  Level level;
  const size_t n = LevelWordAt(line, pos + 1, &level);
  const size_t e = pos + 2 + n;
  if (!At(line, pos, '[') || n == 0 || !At(line, pos + 1 + n, ']') ||
      (e < line.size() && line[e] != ' ')) {
    return false;
  }
  w.kind = kWrapLevelWord;
  w.level = level;
  w.end = SkipOneSpace(line, e);
  if (At(line, w.end, '[')) {
    const size_t loc = SourceLocEnd(line, w.end + 1);
    if (loc) {
      w.kind |= kWrapDeepSpeed;
      w.end = SkipOneSpace(line, loc);
    }
  }
  return true;
}

bool MatchPythonLevel(std::string_view line, size_t pos, const TimeContext&, Wrapper& w) {
  // logging.basicConfig: "%(levelname)s:%(name)s:%(message)s".
  Level level;
  const size_t n = LevelWordAt(line, pos, &level);
  if (n == 0 || !At(line, pos + n, ':')) return false;
  const size_t k = LoggerNameEnd(line, pos + n + 1);
  if (!k || !At(line, k, ':')) return false;
  w.kind = kWrapLevelWord;
  w.level = level;
  w.end = k + 1;
  return true;
}

bool MatchVllmHeader(std::string_view line, size_t pos, const TimeContext& ctx, Wrapper& w) {
  // vLLM: "INFO 10-18 09:59:56 gpu_executor.py:122] " and, newer,
  // "INFO 01-24 10:12:13 [core.py:123] ".
  Level level;
  const size_t n = LevelWordAt(line, pos, &level);
  if (n == 0 || !At(line, pos + n, ' ')) return false;
  const size_t i = pos + n + 1;
  if (i + 2 >= line.size() || !IsDigit(line[i]) || line[i + 2] != '-') return false;
  const ParsedTime t = ParseYearless(ParseMonthDayTime, line.substr(i), ctx.default_year);
  if (t.consumed == 0 || !At(line, i + t.consumed, ' ')) return false;
  size_t k = i + t.consumed + 1;
  if (At(line, k, '[')) ++k;
  const size_t loc = SourceLocEnd(line, k);
  if (!loc) return false;
  w.kind = kWrapLevelWord;
  w.level = level;
  w.ts_us = t.us;
  w.end = SkipOneSpace(line, loc);
  return true;
}

bool MatchSyslog(std::string_view line, size_t pos, const TimeContext& ctx, Wrapper& w) {
  // "May 15 23:09:30 host kernel: ", "May 15 23:09:30 host python[1234]: ".
  const ParsedTime t = ParseYearless(ParseSyslogTime, line.substr(pos), ctx.default_year);
  if (t.consumed == 0) return false;
  const size_t i = pos + t.consumed;
  if (!At(line, i, ' ')) return false;
  const size_t end = SyslogTail(line, i + 1, /*strict=*/false, w);
  if (!end) return false;
  w.kind = kWrapSyslog;
  w.ts_us = t.us;
  w.end = end;
  return true;
}

bool MatchDmesgRaw(std::string_view line, size_t pos, const TimeContext&, Wrapper& w) {
  // "[  518.050606] ": seconds since boot, right-aligned. The printk caller
  // id that some kernels add ("[ T1234]") is skipped with it.
  if (!At(line, pos, '[')) return false;
  size_t i = SkipSpaces(line, pos + 1);
  uint64_t secs, frac;
  size_t n = ReadUint(line, i, 12, &secs);
  if (n == 0 || !At(line, i + n, '.')) return false;
  i += n + 1;
  n = ReadUint(line, i, 9, &frac);
  if (n == 0 || !At(line, i + n, ']')) return false;
  double scale = 1;
  for (size_t k = 0; k < n; ++k) scale *= 10;
  w.monotonic_s = static_cast<double>(secs) + static_cast<double>(frac) / scale;
  i += n + 1;
  const size_t caller = SkipOneSpace(line, i);
  if (At(line, caller, '[')) {
    size_t k = SkipSpaces(line, caller + 1);
    uint64_t id;
    if ((At(line, k, 'T') || At(line, k, 'C')) && (n = ReadUint(line, k + 1, kMaxPid, &id)) &&
        At(line, k + 1 + n, ']')) {
      i = k + 2 + n;
    }
  }
  w.kind = kWrapDmesg;
  w.end = SkipOneSpace(line, i);
  return true;
}

bool MatchDmesgCtime(std::string_view line, size_t pos, const TimeContext&, Wrapper& w) {
  // dmesg -T: "[Sun Mar 30 08:24:00 2025] ".
  if (!At(line, pos, '[')) return false;
  const ParsedTime t = ParseCtime(line.substr(pos + 1));
  if (t.consumed == 0 || !At(line, pos + 1 + t.consumed, ']')) return false;
  w.kind = kWrapDmesg;
  w.ts_us = t.us;
  w.end = SkipOneSpace(line, pos + 2 + t.consumed);
  return true;
}

bool MatchPriority(std::string_view line, size_t pos, const TimeContext&, Wrapper& w) {
  // "<3>[ 1234.567890] msg" (dmesg -r, /proc/kmsg) and "<3>msg" (programs
  // under systemd tag stderr lines this way). The value is facility * 8 +
  // severity (RFC 5424 6.2.1), facility at most 23.
  uint64_t prio;
  const size_t n = ReadUint(line, pos + 1, 3, &prio);
  if (!At(line, pos, '<') || n == 0 || prio > 191 || !At(line, pos + 1 + n, '>')) return false;
  const size_t end = pos + 2 + n;
  if (end >= line.size() || IsBlank(line[end])) return false;
  switch (prio & 7) {
    case 0:  // emerg
    case 1:  // alert
    case 2:  // crit
      w.level = Level::kFatal;
      break;
    case 3:  // err
      w.level = Level::kError;
      break;
    case 4:  // warning
      w.level = Level::kWarning;
      break;
    case 5:  // notice
    case 6:  // info
      w.level = Level::kInfo;
      break;
    default:  // debug
      w.level = Level::kDebug;
      break;
  }
  w.kind = kWrapPriority;
  w.end = end;
  return true;
}

}  // namespace casefile::prefix
