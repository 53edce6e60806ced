#include "parse/flight/flight_dump.h"

#include <charconv>

#include "parse/flight/dump_assembler.h"
#include "parse/flight/dump_forms.h"

namespace casefile::flight {
namespace {

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// Which form the bytes are: JSON starts with '{' (after a BOM and blanks),
// a pickle with PROTO (0x80).
std::string FormOf(std::string_view dump) {
  if (!dump.empty() && dump[0] == '\x80') return "pickle";
  if (dump.substr(0, 3) == "\xEF\xBB\xBF") dump.remove_prefix(3);
  size_t i = dump.find_first_not_of(" \t\r\n");
  if (i != std::string_view::npos && dump[i] == '{') return "json";
  return "";
}

}  // namespace

std::optional<int64_t> RankFromDumpName(std::string_view path) {
  size_t slash = path.find_last_of('/');
  std::string_view base = slash == std::string_view::npos ? path : path.substr(slash + 1);
  if (EndsWith(base, ".gz")) base.remove_suffix(3);
  for (std::string_view ext : {".json", ".pkl", ".pickle"}) {
    if (EndsWith(base, ext)) {
      base.remove_suffix(ext.size());
      break;
    }
  }
  size_t digits = 0;
  while (digits < base.size() && base[base.size() - 1 - digits] >= '0' &&
         base[base.size() - 1 - digits] <= '9') {
    ++digits;
  }
  // More digits than a rank can have is a stamp or an id, not a rank.
  if (digits == 0 || digits > 9) return std::nullopt;
  int64_t rank = 0;
  std::string_view text = base.substr(base.size() - digits);
  std::from_chars(text.data(), text.data() + text.size(), rank);
  return rank;
}

FlightDumpSummary ParseFlightDump(std::string& dump, std::string_view path, int64_t file_id,
                                  std::optional<int64_t> attributed_rank,
                                  const FlightSinks& sinks) {
  flight_internal::DumpAssembler out(path, file_id, attributed_rank, sinks);
  std::string form = FormOf(dump);
  if (form == "json") {
    flight_internal::ReadJsonDump(dump, out);
  } else if (form == "pickle") {
    flight_internal::ReadPickleDump(dump, out);
  } else {
    out.Issue("flight_recorder_invalid", 0, "neither a JSON object nor a pickle");
    out.Begin({});
  }
  return out.Finish(form);
}

}  // namespace casefile::flight
