#include "parse/dist/crash_traceback.h"

#include <algorithm>

namespace casefile::dist::crash {
namespace {

constexpr size_t npos = std::string_view::npos;

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r'; }
bool IsUpper(char c) { return c >= 'A' && c <= 'Z'; }
bool IsIdentChar(char c) {
  return IsUpper(c) || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

std::string_view TrimRight(std::string_view s) {
  while (!s.empty() && IsBlank(s.back())) s.remove_suffix(1);
  return s;
}

// At most `max` bytes, cut back to a UTF-8 character boundary.
std::string_view ClipBytes(std::string_view s, size_t max) {
  if (s.size() <= max) return s;
  size_t n = max;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return s.substr(0, n);
}

// "    ^^^^^^^^" and "    ~~~~^^^^" under a source line (3.11+).
bool IsMarker(std::string_view s) { return !s.empty() && s.find_first_not_of("^~ ") == npos; }

bool IsSeparator(std::string_view s) {
  return s.substr(0, 38) == "During handling of the above exception" ||
         s.substr(0, 37) == "The above exception was the direct ca";
}

bool IsLevelWord(std::string_view s) {
  for (std::string_view w :
       {"INFO", "WARNING", "WARN", "ERROR", "DEBUG", "CRITICAL", "FATAL", "NOTICE", "TRACE"}) {
    if (s == w) return true;
  }
  return false;
}

}  // namespace

bool IsExceptionLine(std::string_view msg) {
  size_t i = 0;
  size_t last_part = 0;  // start of the last dotted component
  while (i < msg.size() && (IsIdentChar(msg[i]) || msg[i] == '.')) {
    if (msg[i] == '.') last_part = i + 1;
    ++i;
  }
  if (i == 0 || msg[0] == '.' || (msg[0] >= '0' && msg[0] <= '9')) return false;
  const std::string_view name = msg.substr(0, i);
  // Exception classes are CamelCase: the class part starts with a capital
  // ("RuntimeError", "torch.OutOfMemoryError", "_queue.Empty").
  size_t cls = last_part;
  while (cls < name.size() && name[cls] == '_') ++cls;
  if (cls >= name.size() || IsLevelWord(name)) return false;
  if (!IsUpper(name[cls])) {
    // socket's gaierror, herror and timeout, os.error: lower case, always
    // with their module.
    const std::string_view part = name.substr(cls);
    if (last_part == 0 || (!part.ends_with("error") && part != "timeout")) return false;
  }
  const std::string_view rest = TrimRight(msg.substr(i));
  return rest.empty() || rest[0] == ':';
}

bool TracebackTracker::AddLine(const LineRecord& line, const StreamView& stream,
                               std::string_view msg,
                               const std::function<DistEventRow(const LineRecord&)>& start,
                               const Sink& emit) {
  if (!open_.empty() && line.line_no >= next_expiry_check_) ExpireOld(line.line_no, emit);
  const size_t tb = msg.find("Traceback (most recent call last)");
  // "  + Exception Group Traceback (most recent call last):" is a part of a
  // traceback already open, not a new one.
  const bool opens = tb != npos && !(tb >= 6 && msg.substr(tb - 6, 6) == "Group ");
  auto it =
      std::find_if(open_.begin(), open_.end(), [&](const Open& t) { return t.key.Is(stream); });
  if (!opens) {
    // "Exception ignored in: <function X.__del__ ...>" (an exception in a
    // finaliser or at interpreter exit) and "Exception in thread NAME:" (a
    // thread died, the process did not): the traceback that follows is not
    // where the process died.
    std::string_view m = msg;
    while (!m.empty() && IsBlank(m.front())) m.remove_prefix(1);
    if (m.starts_with("Exception ignored in") || m.starts_with("Exception in thread ")) {
      if (survivors_.size() >= kMaxSurvivors) survivors_.erase(survivors_.begin());
      survivors_.emplace_back(StreamKey(stream), line.line_no);
      return true;
    }
  }
  if (opens) {
    bool survived = false;
    for (auto s = survivors_.begin(); s != survivors_.end(); ++s) {
      if (s->first.Is(stream)) {
        survived = line.line_no - s->second <= kSurvivorReach;
        survivors_.erase(s);
        break;
      }
    }
    if (it != open_.end() && it->phase == Phase::kSeparator) {
      it->phase = Phase::kBody;
      it->opening = start(line);
      it->stray = 0;
      it->last_line = line.line_no;
      return true;
    }
    if (it != open_.end()) {
      Close(*it, emit);
      open_.erase(it);
    }
    if (open_.size() >= kMaxOpen) {
      Close(open_.front(), emit);
      open_.erase(open_.begin());
    }
    Open t;
    t.key = StreamKey(stream);
    t.indent = tb;
    for (size_t i = 0; i < tb; ++i) {
      if (!IsBlank(msg[i])) t.indent = 0;
    }
    t.opening = start(line);
    t.last_line = line.line_no;
    t.survived = survived;
    open_.push_back(std::move(t));
    return true;
  }
  if (it == open_.end()) return false;
  Open& t = *it;
  t.last_line = line.line_no;
  const std::string_view s = TrimRight(msg);
  if (s.empty()) return true;  // chains print blank lines around their separator
  std::string_view body = s;
  while (!body.empty() && IsBlank(body.front())) body.remove_prefix(1);
  const bool indented = s.size() - body.size() > t.indent;
  switch (t.phase) {
    case Phase::kBody:
      // Wrappers may have eaten the indentation: a frame line still starts
      // with "File \"".
      if (indented || body.substr(0, 6) == "File \"" || IsMarker(body)) return true;
      if (IsSeparator(body)) {
        t.phase = Phase::kSeparator;
        return true;
      }
      if (IsExceptionLine(body)) {
        t.ended = start(line);
        t.exception = std::string(ClipBytes(body, kMaxDetailBytes));
        ++t.exceptions;
        if (t.exceptions == 1) t.first = t.exception;
        t.phase = Phase::kEnded;
        return true;
      }
      if (++t.stray > kMaxStray) {
        Close(t, emit);
        open_.erase(it);
      }
      return false;
    case Phase::kEnded:
      if (IsSeparator(body)) {
        t.phase = Phase::kSeparator;
        return true;
      }
      break;
    case Phase::kSeparator:
      break;
  }
  Close(t, emit);
  open_.erase(it);
  return false;
}

void TracebackTracker::Close(Open& t, const Sink& emit) {
  if (t.survived) return;
  if (t.exceptions == 0) {
    emit(std::move(t.opening));
    return;
  }
  DistEventRow row = std::move(t.ended);
  std::string detail = std::move(t.exception);
  // A chain: the last exception is what ended the process, the first is
  // often its cause ("... Watchdog caught ..." under a later RuntimeError).
  if (t.exceptions > 1 && detail.size() + 16 < kMaxDetailBytes) {
    detail.append(" (after: ");
    detail.append(ClipBytes(t.first, kMaxDetailBytes - detail.size() - 1));
    detail.push_back(')');
  }
  row.detail = std::move(detail);
  emit(std::move(row));
}

void TracebackTracker::ExpireOld(int64_t line_no, const Sink& emit) {
  next_expiry_check_ = line_no + 1024;
  for (auto it = open_.begin(); it != open_.end();) {
    if (it->last_line + kMaxSilentLines < line_no) {
      Close(*it, emit);
      it = open_.erase(it);
    } else {
      ++it;
    }
  }
}

void TracebackTracker::Finish(const Sink& emit) {
  for (Open& t : open_) Close(t, emit);
  open_.clear();
}

}  // namespace casefile::dist::crash
