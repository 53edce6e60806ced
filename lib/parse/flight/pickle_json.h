// Writes a pickled value (pickle_reader.h) as compact JSON, so that the
// pickle form of a dump is read by the same field reader as the JSON form.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "parse/flight/pickle_reader.h"

namespace casefile::flight_internal {

// Deeper values are refused: a dump nests five levels; memo references can
// make a value contain itself.
inline constexpr int kMaxPickleJsonDepth = 32;

// Appends node `id` to `out` as JSON: None -> null, bools, ints (a long
// beyond int64 -> null), floats (NaN and infinities -> null), str and bytes
// as strings (bytes that are not UTF-8 become '?'), lists, tuples and sets
// as arrays, dicts as objects (int/float/bool keys written as strings,
// other keys dropped). False when the value nests deeper than
// kMaxPickleJsonDepth or `out` would exceed `max_bytes` (shared memo values
// repeat in the output).
bool AppendPickleJson(const PickleTree& tree, uint32_t id, size_t max_bytes, std::string& out);

}  // namespace casefile::flight_internal
