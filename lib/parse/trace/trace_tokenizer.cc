#include "parse/trace/trace_tokenizer.h"

#include <utility>

namespace casefile {
namespace {

bool IsWs(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// Advances over string content to the next '"' or '\\' (the only bytes that
// matter inside a string); returns the end when there is none.
size_t SkipStringBody(std::string_view chunk, size_t i) {
  const char* p = chunk.data() + i;
  const char* end = chunk.data() + chunk.size();
  while (p < end && *p != '"' && *p != '\\') ++p;
  return static_cast<size_t>(p - chunk.data());
}

std::string Describe(char c) {
  unsigned char u = static_cast<unsigned char>(c);
  if (u >= 0x20 && u < 0x7f) return std::string("'") + c + "'";
  static constexpr char kHex[] = "0123456789abcdef";
  return std::string("byte 0x") + kHex[u >> 4] + kHex[u & 0xf];
}

}  // namespace

TraceTokenizer::TraceTokenizer(uint32_t max_object_bytes, Callbacks cb)
    : max_object_bytes_(max_object_bytes), cb_(std::move(cb)) {}

void TraceTokenizer::Fail(uint64_t offset, const std::string& message) {
  state_ = State::kFailed;
  if (cb_.on_issue) cb_.on_issue(offset, "trace_syntax", message + "; the rest is not read");
}

void TraceTokenizer::StartSkip(State return_to) {
  skip_return_ = return_to;
  skip_started_ = false;
  state_ = State::kSkip;
}

void TraceTokenizer::Feed(std::string_view chunk) {
  const size_t n = chunk.size();
  size_t i = 0;
  while (i < n) {
    const char c = chunk[i];
    const uint64_t at = offset_ + i;
    switch (state_) {
      case State::kStart:
        if (IsWs(c) || (at < 3 && static_cast<unsigned char>(c) >= 0xBB)) {  // UTF-8 BOM
          ++i;
        } else if (c == '{') {
          state_ = State::kTopKey;
          ++i;
        } else if (c == '[') {
          bare_array_ = found_events_ = in_events_ = true;
          state_ = State::kArrayItem;
          ++i;
        } else {
          Fail(at, "not a JSON trace: it starts with " + Describe(c));
        }
        break;
      case State::kTopKey:
        if (IsWs(c) || c == ',') {
          ++i;
        } else if (c == '"') {
          key_.clear();
          key_escape_ = false;
          state_ = State::kTopKeyString;
          ++i;
        } else if (c == '}') {
          state_ = State::kDone;
          ++i;
        } else {
          Fail(at, "expected a top-level key, found " + Describe(c));
        }
        break;
      case State::kTopKeyString:
        if (key_escape_) {
          key_escape_ = false;
        } else if (c == '\\') {
          key_escape_ = true;
        } else if (c == '"') {
          state_ = State::kTopColon;
          ++i;
          break;
        }
        // An escaped key never equals "traceEvents" literally; kept raw.
        if (key_.size() < 64) key_.push_back(c);
        ++i;
        break;
      case State::kTopColon:
        if (IsWs(c)) {
          ++i;
        } else if (c == ':') {
          state_ = State::kTopValue;
          ++i;
        } else {
          Fail(at, "expected ':' after top-level key \"" + key_ + "\", found " + Describe(c));
        }
        break;
      case State::kTopValue:
        if (IsWs(c)) {
          ++i;
        } else if (c == '}' || c == ']' || c == ',' || c == ':') {
          Fail(at, "expected the value of top-level key \"" + key_ + "\", found " + Describe(c));
        } else if (c == '[' && key_ == "traceEvents") {
          found_events_ = in_events_ = true;
          state_ = State::kArrayItem;
          ++i;
        } else {
          StartSkip(State::kTopAfterValue);
        }
        break;
      case State::kTopAfterValue:
        if (IsWs(c)) {
          ++i;
        } else if (c == ',') {
          state_ = State::kTopKey;
          ++i;
        } else if (c == '}') {
          state_ = State::kDone;
          ++i;
        } else {
          Fail(at, "expected ',' or '}' after a top-level value, found " + Describe(c));
        }
        break;
      case State::kSkip:
        i = ScanSkip(chunk, i);
        break;
      case State::kArrayItem:
        if (IsWs(c) || c == ',') {
          ++i;
        } else if (c == ']') {
          in_events_ = false;
          state_ = bare_array_ ? State::kDone : State::kTopAfterValue;
          ++i;
        } else if (c == '{') {
          object_.clear();
          object_offset_ = at;
          object_size_ = 0;
          object_too_large_ = false;
          depth_ = 0;
          in_string_ = escape_ = false;
          state_ = State::kObject;
        } else if (c == '}' || c == ':') {
          if (cb_.on_issue) {
            cb_.on_issue(at, "trace_event_invalid",
                         "stray " + Describe(c) + " in traceEvents; skipped");
          }
          ++i;
        } else {
          if (cb_.on_issue) {
            cb_.on_issue(at, "trace_event_invalid",
                         "an item of traceEvents is not an object (starts with " + Describe(c) +
                             "); skipped");
          }
          StartSkip(State::kArrayItem);
        }
        break;
      case State::kObject:
        i = ScanObject(chunk, i);
        break;
      case State::kDone:
        if (IsWs(c)) {
          ++i;
        } else {
          if (cb_.on_issue) {
            cb_.on_issue(
                at, "trace_trailing_data",
                "data after the end of the trace document (" + Describe(c) + "); not read");
          }
          state_ = State::kFailed;
        }
        break;
      case State::kFailed:
        i = n;
        break;
    }
  }
  offset_ += n;
}

size_t TraceTokenizer::ScanObject(std::string_view chunk, size_t i) {
  const size_t n = chunk.size();
  const size_t start = i;
  bool complete = false;
  while (i < n) {
    if (in_string_) {
      if (escape_) {
        escape_ = false;
        ++i;
        continue;
      }
      i = SkipStringBody(chunk, i);
      if (i == n) break;
      if (chunk[i] == '\\') {
        escape_ = true;
      } else {
        in_string_ = false;
      }
      ++i;
      continue;
    }
    const char c = chunk[i++];
    if (c == '"') {
      in_string_ = true;
    } else if (c == '{' || c == '[') {
      ++depth_;
    } else if ((c == '}' || c == ']') && --depth_ == 0) {
      complete = true;
      break;
    }
  }
  const size_t len = i - start;
  object_size_ += len;
  if (!object_too_large_) {
    if (object_size_ > max_object_bytes_) {
      object_too_large_ = true;
      std::string().swap(object_);
    } else {
      object_.append(chunk.data() + start, len);
    }
  }
  if (complete) EndObject();
  return i;
}

void TraceTokenizer::EndObject() {
  ++objects_;
  state_ = State::kArrayItem;
  if (object_too_large_) {
    if (cb_.on_issue) {
      cb_.on_issue(object_offset_, "trace_event_too_large",
                   "trace event of " + std::to_string(object_size_) +
                       " bytes exceeds the limit of " + std::to_string(max_object_bytes_) +
                       " bytes; skipped");
    }
    return;
  }
  if (cb_.on_object) cb_.on_object(object_, object_offset_);
}

size_t TraceTokenizer::ScanSkip(std::string_view chunk, size_t i) {
  const size_t n = chunk.size();
  if (!skip_started_) {
    skip_started_ = true;
    depth_ = 0;
    in_string_ = escape_ = skip_scalar_ = false;
    const char c = chunk[i];
    if (c == '{' || c == '[') {
      depth_ = 1;
      ++i;
    } else if (c == '"') {
      in_string_ = true;
      ++i;
    } else {
      skip_scalar_ = true;  // never a terminator: callers handle those
    }
  }
  if (skip_scalar_) {
    while (i < n) {
      const char c = chunk[i];
      if (c == ',' || c == '}' || c == ']' || IsWs(c)) {
        state_ = skip_return_;
        return i;
      }
      ++i;
    }
    return i;
  }
  while (i < n) {
    if (in_string_) {
      if (escape_) {
        escape_ = false;
        ++i;
        continue;
      }
      i = SkipStringBody(chunk, i);
      if (i == n) break;
      if (chunk[i] == '\\') {
        escape_ = true;
        ++i;
        continue;
      }
      in_string_ = false;
      ++i;
      if (depth_ == 0) {  // a string value
        state_ = skip_return_;
        return i;
      }
      continue;
    }
    const char c = chunk[i++];
    if (c == '"') {
      in_string_ = true;
    } else if (c == '{' || c == '[') {
      ++depth_;
    } else if ((c == '}' || c == ']') && --depth_ == 0) {
      state_ = skip_return_;
      return i;
    }
  }
  return i;
}

void TraceTokenizer::Finish() {
  if (!cb_.on_issue) return;
  switch (state_) {
    case State::kDone:
      if (!found_events_) {
        cb_.on_issue(offset_, "trace_no_events", "the trace document has no traceEvents array");
      }
      break;
    case State::kFailed:
      break;
    case State::kStart:
      cb_.on_issue(offset_, "trace_empty", "the trace holds no JSON value");
      break;
    case State::kObject:
      cb_.on_issue(object_offset_, "trace_truncated",
                   "the trace ends inside an event (" + std::to_string(object_size_) +
                       " bytes of it read, after " + std::to_string(objects_) +
                       " complete events); that event is lost");
      break;
    default:
      if (in_events_) {
        cb_.on_issue(offset_, "trace_truncated",
                     "the trace ends inside the traceEvents array after " +
                         std::to_string(objects_) + " events");
      } else if (found_events_) {
        cb_.on_issue(offset_, "trace_truncated",
                     "the trace ends after its traceEvents array, before the document closes");
      } else {
        cb_.on_issue(offset_, "trace_truncated",
                     "the trace ends before any traceEvents array was seen");
      }
      break;
  }
}

}  // namespace casefile
