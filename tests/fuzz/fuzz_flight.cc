// Fuzz target: a PyTorch flight-recorder dump (pickle or JSON) through
// ParseFlightDump, as ingest's FlightSink calls it once the dump is read.
// The last input byte picks the file name and the rank attributed from the
// path, so every source of the rank is reached. Rows must carry the dump's
// rank and a line inside the dump, the summary must count what was written,
// issue offsets stay inside the dump, and the dump's bytes are unchanged.
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "parse/flight/flight_dump.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  static constexpr std::string_view kNames[] = {
      "fr/nccl_trace_rank_3", "flight_recorder/rank_12.json", "dumps/trace.pkl", "fr/dump"};
  const uint8_t pick = size == 0 ? 0 : data[size - 1];
  const std::string_view path = kNames[pick % 4];
  const std::optional<int64_t> attributed =
      (pick & 4) ? std::optional<int64_t>(pick >> 3) : std::nullopt;

  int64_t lines = 1;
  for (char c : input) lines += c == '\n';

  std::string dump(input);
  size_t entries = 0;
  size_t groups = 0;
  int64_t rank = -2;  // every row must carry the same rank
  auto same_rank = [&](int64_t r) {
    if (rank == -2) rank = r;
    if (r != rank) std::abort();
  };
  const casefile::flight::FlightSinks sinks{
      [&](const casefile::FrEntryRow& row) {
        ++entries;
        same_rank(row.rank);
        if (row.file_id != 7 || row.line_no < 1 || row.line_no > lines) std::abort();
      },
      [&](const casefile::FrGroupRow& row) {
        ++groups;
        same_rank(row.rank);
        if (row.file_id != 7) std::abort();
      },
      [&](const std::string& kind, int64_t offset, const std::string& message) {
        if (kind.empty() || message.empty()) std::abort();
        if (offset < 0 || static_cast<uint64_t>(offset) > input.size()) std::abort();
      }};
  const casefile::flight::FlightDumpSummary summary =
      casefile::flight::ParseFlightDump(dump, path, 7, attributed, sinks);

  if (dump != input) std::abort();
  if (summary.entries != entries || summary.groups != groups) std::abort();
  if (entries > casefile::flight::kMaxEntries) std::abort();
  if (rank != -2 && rank != summary.rank) std::abort();
  if (summary.format != "json" && summary.format != "pickle" && !summary.format.empty()) {
    std::abort();
  }
  (void)casefile::flight::RankFromDumpName(path);
  return 0;
}
