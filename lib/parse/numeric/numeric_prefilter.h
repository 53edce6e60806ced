// The literal prefilter of the numeric extractors. It runs on every log line
// during ingest, so it is one vectorised pass over the message that reports
// which families of literals occur; the (much slower) form parsers run only
// on lines it lets through. False positives ("cross" has "oss") only cost a
// parse; a false negative would lose a metric, so every form the extractors
// read is covered by one of these families (numeric_forms.h says which).
#pragma once

#include <cstdint>
#include <string_view>

namespace casefile::numeric {

enum LiteralHit : uint32_t {
  kHitLoss = 1u << 0,      // "oss" in any case: loss, Loss, LOSS (and cross, gloss…)
  kHitNan = 1u << 1,       // "nan" in any case: nan, NaN, NAN, nans
  kHitOverflow = 1u << 2,  // "rfl" in any case: overflow, Overflow, OVERFLOW
  kHitInf = 1u << 3,       // "inf" in any case: inf, Inf, Infinity (and info, INFO…)
};

// The LiteralHit bits of the literals found in `text`. Thread-safe, never
// reads outside `text`.
uint32_t ScanLiterals(std::string_view text);

// The same with a plain byte loop, for platforms without SSE2 and for tests
// (both must agree on every input).
uint32_t ScanLiteralsScalar(std::string_view text);

}  // namespace casefile::numeric
