// Content tests behind ClassifyFile (classify.h documents the rules). Each
// looks at a bounded prefix of the head only, so classification stays cheap
// however large the head is.
#pragma once

#include <cstddef>
#include <string_view>

namespace casefile::classify_internal {

// What a file's name says about its bytes, for LooksBinary.
enum class NameHint {
  kNeutral,     // nothing either way
  kTextLike,    // a log name: .log .txt .out .err .stdout .stderr, stdout/stderr, or no
                // extension under a log(s)/ directory
  kBinaryLike,  // .pb .pkl .pt .npy .so… (serialized data, compiled code, images)
};

// classify.h rule 2. Looks at the first kBinarySniffBytes of `head` only.
inline constexpr size_t kBinarySniffBytes = 64 * 1024;
bool LooksBinary(std::string_view head, NameHint hint);
bool LooksLikeHlo(std::string_view head);
bool LooksLikeTrace(std::string_view head);
// classify.h rule 1b; `dump_name`: the path is a flight-recorder dump's name.
bool LooksLikeFlightRecorder(std::string_view head, bool dump_name);
bool LooksLikeJsonDocument(std::string_view head);
bool LooksLikeVersionReport(std::string_view head);
bool LooksLikeSysinfo(std::string_view head);

}  // namespace casefile::classify_internal
