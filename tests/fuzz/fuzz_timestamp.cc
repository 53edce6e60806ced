// Fuzz target: the timestamp recognisers of lib/parse/line/timestamp.h. Each
// must stay inside its input, consume no more than it was given, and give a
// time that converts back to a sane calendar range.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "parse/line/timestamp.h"

namespace {

void Check(const casefile::ParsedTime& t, std::string_view s) {
  if (t.consumed > s.size()) std::abort();
  // A match is at most a date, a time, nine fraction digits and a zone.
  if (t.consumed > 64) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view s(reinterpret_cast<const char*>(data), size);
  Check(casefile::ParseIsoTime(s), s);
  Check(casefile::ParseGlogTime(s, 2026), s);
  Check(casefile::ParseMonthDayTime(s, 2026), s);
  Check(casefile::ParseSyslogTime(s, 2026), s);
  Check(casefile::ParseCtime(s), s);
  return 0;
}
