// PyTorch flight-recorder dumps (formats.md 3.3): one file per rank, written
// by ProcessGroupNCCL when TORCH_NCCL_TRACE_BUFFER_SIZE is set, as a pickle
// (the default: torch's own pickler, protocol 2) or as JSON
// (_dump_nccl_trace_json, or a pickle converted with json.dumps). Either
// form becomes the same rows: one FrEntryRow per recorded collective or p2p
// op, one FrGroupRow per process group (pg_config joined with pg_status).
//
// The dump is parsed whole, from memory, after it was read: the caller caps
// it (kMaxDumpBytes). Damage never loses what was read before it: a
// truncated or corrupt dump keeps the entries that are complete, and every
// skip is reported through FlightSinks::issue with its byte offset.
//
// Issue kinds (ingest_issues.kind):
//   flight_recorder_invalid            not a dump we can read (neither JSON
//                                      object nor pickle, a syntax error, a
//                                      refused pickle opcode, wrong types at
//                                      the top level)
//   flight_recorder_truncated          the dump ends before its end
//   flight_recorder_entry_invalid      entries skipped (not an object,
//                                      unreadable); one issue per dump with
//                                      the count and the first offset
//   flight_recorder_too_many_entries   more than kMaxEntries: the last
//                                      kMaxEntries are kept (a hang is at the
//                                      end of the ring buffer)
//   flight_recorder_no_rank            no rank in the content, the name or
//                                      the file's attribution: rank -1
//   flight_recorder_too_large          (the ingest sink) cut at kMaxDumpBytes
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "index/index_types.h"

namespace casefile::flight {

// Largest dump read; the ingest sink stops buffering there.
inline constexpr size_t kMaxDumpBytes = 64u << 20;
// Entries kept per dump (the default ring buffer holds 2000).
inline constexpr size_t kMaxEntries = 100000;

struct FlightSinks {
  std::function<void(const FrEntryRow&)> entry;
  std::function<void(const FrGroupRow&)> group;
  // kind (above), byte offset in the dump (0 when none), message for people
  // (it does not repeat the path).
  std::function<void(const std::string& kind, int64_t offset, const std::string& message)> issue;
};

struct FlightDumpSummary {
  std::string format;  // "json", "pickle", or "" when neither
  std::optional<std::string> version;
  int64_t rank = -1;
  size_t entries = 0;  // rows written
  size_t groups = 0;
};

// Parses one whole dump. `path` is the bundle path (for the rank from the
// name); `file_id` and the rank are set on every row. The dump's rank is, in
// order: a top-level "rank" key, the trailing digits of the file name
// (RankFromDumpName), `attributed_rank` (the file's rank from its path or
// the manifest), else -1 with an issue. Entries' line_no is the 1-based line
// of the dump where the entry starts (a dump written on one line: 1).
// `dump` gains capacity for simdjson's padding (its bytes are unchanged).
// Never throws for bad input.
FlightDumpSummary ParseFlightDump(std::string& dump, std::string_view path, int64_t file_id,
                                  std::optional<int64_t> attributed_rank, const FlightSinks& sinks);

// The rank in a dump's file name: the trailing digits of the base name once
// .gz and a .json/.pkl/.pickle extension are removed ("nccl_trace_rank_12"
// -> 12, "dumps/rank_3.json" -> 3); nullopt when it ends in no digits.
std::optional<int64_t> RankFromDumpName(std::string_view path);

}  // namespace casefile::flight
