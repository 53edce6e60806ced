// Small text helpers shared by the launcher parsers (launcher_*.cc): numbers,
// signal names, capped details. Internal to lib/parse/dist; nothing here
// allocates except the functions that build a detail string, which run only
// on lines that already matched a launcher message.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "index/index_types.h"

namespace casefile::dist::launcher {

inline constexpr size_t kNpos = std::string_view::npos;
// Longest detail text stored for one event.
inline constexpr size_t kMaxDetail = 512;
// Longest host name taken from a message (DNS names are at most 253 bytes).
inline constexpr size_t kMaxHost = 253;

std::string_view TrimBlanks(std::string_view s);

// An optionally signed decimal integer at s[i] (at most 18 digits, which
// keeps it in range). Returns the bytes read, 0 when there is none or when
// a 19th digit follows.
size_t ReadInt(std::string_view s, size_t i, int64_t* v);

// The integer right after `key` (and any blanks) in `s`, searched from
// `from`; false when `key` is absent or no integer follows it.
bool IntAfter(std::string_view s, std::string_view key, int64_t* v, size_t from = 0);

// A host name at s[i]: letters, digits, '-', '.', '_' (at most kMaxHost).
std::string_view HostAt(std::string_view s, size_t i);

// "SIGKILL" for 9 and the other Linux signal numbers; nullptr when unknown.
const char* SignalName(int64_t signo);

// The signal number of a strsignal() text as srun and mpirun print it
// ("Killed" -> 9, "Segmentation fault" -> 11); 0 when unknown. A trailing
// " (core dumped)" is allowed.
int SignalFromDescription(std::string_view text);

// "<word> <code>" plus the signal a code stands for: "exitcode -9
// (SIGKILL)", "exit code 137 (128+SIGKILL)", "exit code 1".
std::string CodeText(std::string_view word, int64_t code);

// Appends `s` to `out` while `out` stays within `cap` bytes, never cutting a
// UTF-8 sequence in two.
void AppendCapped(std::string& out, std::string_view s, size_t cap = kMaxDetail);

// The row fields a launcher message names: host and rank override what the
// line's wrappers said.
void SetHost(DistEventRow& row, std::string_view host);

}  // namespace casefile::dist::launcher
