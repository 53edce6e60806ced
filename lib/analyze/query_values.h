// Typed reads of IndexReader::Query values, which arrive as text (nullopt
// for SQL NULL). Shared by the analyzers that load index tables with SQL.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace casefile {

using QueryValue = std::optional<std::string>;

// The integer a value spells exactly; nullopt for NULL or any other text.
std::optional<int64_t> IntOf(const QueryValue& v);
// The finite number a value spells exactly; nullopt for NULL, non-numbers,
// and the infinities and NaN.
std::optional<double> RealOf(const QueryValue& v);
// The text, "" for NULL.
inline std::string TextOf(const QueryValue& v) { return v.value_or(""); }

}  // namespace casefile
