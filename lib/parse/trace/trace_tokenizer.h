// Cuts the event objects out of a Chrome/Perfetto trace JSON fed in chunks
// cut anywhere, without holding the document: only the current event is
// buffered. Understands the object form ({"traceEvents": [...], ...} with
// other top-level keys of any size before or after the array, as Kineto
// writes "deviceProperties" before and "distributedInfo" after) and the bare
// array form ([{...}, {...}]). Bracket- and string-aware; does not validate
// the JSON inside an event (the parser does that per event).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace casefile {

class TraceTokenizer {
 public:
  struct Callbacks {
    // One complete object of the events array, from '{' to '}', and the
    // stream offset of its '{'. The view is valid during the call only.
    std::function<void(std::string_view object, uint64_t offset)> on_object;
    // Kinds: "trace_event_too_large", "trace_event_invalid" (an array item
    // that is not an object), "trace_syntax" (the document structure is
    // broken; reading stops), "trace_truncated" (the input ended inside the
    // document), "trace_no_events" (no traceEvents array), "trace_empty",
    // "trace_trailing_data" (bytes after the document).
    std::function<void(uint64_t offset, std::string kind, std::string message)> on_issue;
  };

  TraceTokenizer(uint32_t max_object_bytes, Callbacks cb);

  void Feed(std::string_view chunk);
  // Reports a document that did not end (or had no events) as an issue.
  void Finish();

  uint64_t objects() const { return objects_; }
  uint64_t bytes() const { return offset_; }

 private:
  enum class State {
    kStart,          // before the first value
    kTopKey,         // in a top-level object, expecting a key, ',' or '}'
    kTopKeyString,   // inside a top-level key
    kTopColon,       // after a top-level key
    kTopValue,       // expecting a top-level value
    kTopAfterValue,  // after a top-level value: ',' or '}'
    kSkip,           // skipping one value of any kind
    kArrayItem,      // in the events array: an item, ',' or ']'
    kObject,         // inside an event object
    kDone,           // the document ended
    kFailed,         // structure broken; the rest is ignored
  };

  size_t ScanObject(std::string_view chunk, size_t i);
  size_t ScanSkip(std::string_view chunk, size_t i);
  void StartSkip(State return_to);
  void EndObject();
  void Fail(uint64_t offset, const std::string& message);

  uint32_t max_object_bytes_;
  Callbacks cb_;
  State state_ = State::kStart;
  uint64_t offset_ = 0;  // stream offset of the current chunk's first byte
  bool bare_array_ = false;
  bool found_events_ = false;
  bool in_events_ = false;
  uint64_t objects_ = 0;

  // Top-level key being read; only compared with "traceEvents", so capped.
  std::string key_;
  bool key_escape_ = false;

  // Shared by object capture and skipping.
  int64_t depth_ = 0;
  bool in_string_ = false;
  bool escape_ = false;

  // Skipping.
  State skip_return_ = State::kTopAfterValue;
  bool skip_started_ = false;
  bool skip_scalar_ = false;

  // Current event object.
  std::string object_;
  uint64_t object_offset_ = 0;
  uint64_t object_size_ = 0;
  bool object_too_large_ = false;
};

}  // namespace casefile
