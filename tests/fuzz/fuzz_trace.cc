// Fuzz target: a trace-event JSON file through TraceReader (tokenizer, event
// parser, B/E pairing) and CommTraceAggregator, exactly as ingest's
// TraceSink drives them, the bytes fed in chunks whose size the last input
// byte picks (the whole input is the trace), so chunk boundaries fall everywhere. Every row must
// point at the '{' of its object, with the line number of that offset; a row's raw text and a
// mark's text must be the bytes at its offset; issue offsets stay inside the stream.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "common/limits.h"
#include "parse/trace/comm_trace.h"
#include "parse/trace/trace_reader.h"

namespace {

// The trace of one input, with the 1-based line of every byte offset.
struct Input {
  std::string_view text;
  std::vector<uint32_t> line_at;  // line_at[i]: line of byte i (size + 1 entries)

  explicit Input(std::string_view t) : text(t), line_at(t.size() + 1) {
    uint32_t line = 1;
    for (size_t i = 0; i < t.size(); ++i) {
      line_at[i] = line;
      if (t[i] == '\n') ++line;
    }
    line_at[t.size()] = line;
  }

  // `part` must be the bytes at `offset`.
  bool Holds(uint64_t offset, std::string_view part) const {
    return offset <= text.size() && part.size() <= text.size() - offset &&
           text.compare(offset, part.size(), part) == 0;
  }
};

void CheckRow(const Input& in, const casefile::TraceEventRow& row) {
  if (row.offset >= in.text.size() || in.text[row.offset] != '{') std::abort();
  if (row.line_no != static_cast<int64_t>(in.line_at[row.offset])) std::abort();
  if (!row.raw.empty() && !in.Holds(row.offset, row.raw)) std::abort();
  if (row.phase.empty()) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  // 1 .. 65026 bytes per chunk: the small sizes cut inside every token.
  const size_t chunk = 1 + static_cast<size_t>(data[size - 1]) * data[size - 1];
  const Input in(std::string_view(reinterpret_cast<const char*>(data), size));

  const casefile::Limits limits;
  casefile::trace_comm::CommTraceAggregator comm(1);
  casefile::TraceReader reader(limits.max_trace_event_bytes,
                               casefile::TraceReader::Callbacks{
                                   [&](casefile::TraceEventRow&& row) {
                                     CheckRow(in, row);
                                     comm.Add(row);
                                   },
                                   [&](uint64_t offset, std::string kind, std::string message) {
                                     if (offset > in.text.size() || kind.empty() || message.empty())
                                       std::abort();
                                   }});
  for (size_t at = 0; at < in.text.size(); at += chunk) reader.Feed(in.text.substr(at, chunk));
  reader.Finish();
  const uint64_t emitted = reader.events_emitted();
  reader.Finish();  // idempotent
  if (reader.events_emitted() != emitted) std::abort();

  comm.Finish({[](const casefile::TraceStatRow& r) {
                 if (r.key.empty()) std::abort();
               },
               [](const casefile::NetLinkRow& r) {
                 if (r.transfers <= 0) std::abort();
                 if (r.lat_p50_us > r.lat_p90_us || r.lat_p90_us > r.lat_max_us) std::abort();
               },
               [](const casefile::NetSizeRow& r) {
                 if (r.transfers <= 0 || !(r.lo_bytes < r.hi_bytes)) std::abort();
               },
               [](const casefile::NetTimelineRow&) {},
               [&](const casefile::TraceMarkRow& r) {
                 if (r.offset < 0 || static_cast<uint64_t>(r.offset) >= in.text.size())
                   std::abort();
                 if (r.line_no != static_cast<int64_t>(in.line_at[r.offset])) std::abort();
                 if (r.text.size() > casefile::kTraceMarkTextBytes) std::abort();
                 // The bytes at the offset, or for a B/E pair (whose text is
                 // gone by its E) the object MarkText composes.
                 if (!r.text.empty() && !in.Holds(r.offset, r.text) &&
                     r.text.rfind("{\"name\":", 0) != 0) {
                   std::abort();
                 }
               }});
  return 0;
}
