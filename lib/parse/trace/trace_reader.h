// Streams a Chrome/Perfetto JSON trace (TSL/jax.profiler, torch.profiler/
// Kineto, generic Trace Event Format) into trace_events rows without holding
// the trace in memory: TraceTokenizer cuts each event object out of the
// chunks, simdjson parses it, and this class pairs and names the events.
//
// Phases: X rows carry their dur. B/E pairs on the same (pid, tid) close
// LIFO into one row with phase "X" and dur = E.ts - B.ts (E's args merged
// into B's); a B still open at Finish is emitted as phase "B" with no dur
// (a region that never ended, which matters in a hang); an E with no open B
// is an issue and no row. M events fill the process/thread name maps and are
// not emitted (sort indexes and other metadata are ignored). Every other
// phase (i/I, C, s/t/f, b/e/n, P, O…) is emitted with its phase as written.
// Every row carries the byte offset and 1-based line where its object (the
// B of a pair) starts, and, during the callback only, the object's text in
// `raw` (empty for a B/E pair, whose B text is gone by its E).
// The empty {} that TSL writes at the end of the array is skipped silently.
//
// Issues (each with the byte offset of the event or of the cut):
//   trace_event_invalid    an event that is not valid JSON, has no "ph", or
//                          a non-numeric ts/dur; skipped, reading goes on
//   trace_event_too_large  an event above max_event_bytes; skipped
//   trace_unmatched_end    an E with no open B on its pid/tid
//   trace_nesting_too_deep more than kMaxOpenPerThread open B on one pid/tid
//                          or kMaxOpenTotal overall; that B is emitted at
//                          once without dur and its E is consumed later
//   trace_truncated, trace_syntax, trace_no_events, trace_empty,
//   trace_trailing_data    from the tokenizer (trace_tokenizer.h)
// At most kMaxIssuesPerKind issues of one kind are reported; Finish adds one
// more per kind saying how many were left out.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "index/index_types.h"
#include "parse/trace/trace_tokenizer.h"

namespace casefile {

namespace trace_internal {
class TraceEventParser;
struct TraceEventFields;
}  // namespace trace_internal

class TraceReader {
 public:
  struct Callbacks {
    std::function<void(TraceEventRow&&)> on_event;
    std::function<void(uint64_t offset, std::string kind, std::string message)> on_issue;
  };

  static constexpr size_t kMaxOpenPerThread = 1024;
  static constexpr size_t kMaxOpenTotal = 1 << 16;
  static constexpr uint64_t kMaxIssuesPerKind = 100;
  // Name maps stop growing here (each M event is small, but a hostile trace
  // could hold millions).
  static constexpr size_t kMaxNames = 1 << 16;

  TraceReader(uint32_t max_event_bytes, Callbacks cb);
  ~TraceReader();
  TraceReader(const TraceReader&) = delete;
  TraceReader& operator=(const TraceReader&) = delete;

  // Chunks may be cut anywhere. Throws Error(kMisuse) after Finish.
  void Feed(std::string_view chunk);
  // Reports truncation, emits still-open B events, then the issue counts
  // that were left out. Idempotent.
  void Finish();

  // Names from "M" events, to apply to rows at the end (rows emitted after
  // the M event already carry them). pid -> name; (pid, tid) -> name.
  const std::map<std::string, std::string>& process_names() const { return process_names_; }
  const std::map<std::pair<std::string, std::string>, std::string>& thread_names() const {
    return thread_names_;
  }

  uint64_t events_emitted() const { return emitted_; }

 private:
  struct OpenStack {
    std::vector<TraceEventRow> rows;
    // B events emitted early because the stack was full; their E events
    // are consumed without a row.
    uint64_t overflow = 0;
  };

  void OnObject(std::string_view object, uint64_t offset);
  // Line numbers: newlines are counted in the chunk being fed, once.
  void CountLinesTo(uint64_t end);
  int64_t LineOf(std::string_view object, uint64_t offset);
  void Issue(uint64_t offset, std::string kind, std::string message);
  TraceEventRow MakeRow(trace_internal::TraceEventFields& fields) const;
  void Emit(TraceEventRow&& row);
  void Metadata(const trace_internal::TraceEventFields& fields);
  void Begin(TraceEventRow&& row, uint64_t offset);
  void End(trace_internal::TraceEventFields& fields, uint64_t offset);

  Callbacks cb_;
  TraceTokenizer tokenizer_;
  std::unique_ptr<trace_internal::TraceEventParser> parser_;
  std::unique_ptr<trace_internal::TraceEventFields> fields_;
  std::map<std::pair<std::string, std::string>, OpenStack> open_;
  size_t open_total_ = 0;
  std::map<std::string, std::string> process_names_;
  std::map<std::pair<std::string, std::string>, std::string> thread_names_;
  std::map<std::string, uint64_t> issue_counts_;
  uint64_t emitted_ = 0;
  std::string_view chunk_;    // the chunk being fed
  uint64_t chunk_start_ = 0;  // its offset in the file
  uint64_t fed_ = 0;          // bytes fed before it
  uint64_t counted_ = 0;      // newlines are counted up to this offset
  uint64_t lines_ = 0;        // newlines before counted_
  bool finished_ = false;
};

}  // namespace casefile
