// Small text helpers for the Megascale hang messages: case-insensitive search,
// trimming, worker names ("job/task:host", "host", "host:port"), host lists
// and absl-style durations ("1m", "1m30s", "500ms"). Pure functions over
// string views; nothing here allocates for a line that does not match.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace casefile::hang {

// Longest worker token and longest host list kept; longer input is untrusted
// noise, not a worker name.
inline constexpr size_t kMaxWorkerTokenBytes = 256;
inline constexpr size_t kMaxWorkersPerList = 1024;

std::string_view Trim(std::string_view s);

// Position of `needle` in `hay` ignoring ASCII case, or npos. `needle` must be
// lower case.
size_t FindNoCase(std::string_view hay, std::string_view needle, size_t from = 0);
inline bool ContainsNoCase(std::string_view hay, std::string_view needle) {
  return FindNoCase(hay, needle) != std::string_view::npos;
}
bool StartsWithNoCase(std::string_view s, std::string_view prefix);
std::string ToLower(std::string_view s);

// When `s` (after leading blanks) starts with a glog header such as
// "E0101 12:00:00.123456  4242 coordinator.cc:88] " or its bracketed form
// "[E0101 12:00:00.123 coordinator.cc:88] ", the text after it; else `s`.
// A fallback for lines whose wrappers the line-prefix parser did not strip.
std::string_view StripGlogHeader(std::string_view s);

// A worker as a digest names it. Either part may be empty.
struct WorkerRef {
  std::string host;  // "t1v-n-1a2b-w-3"
  std::string task;  // "jax_worker/3" when written as "jax_worker/3:t1v-n-1a2b-w-3"
  bool operator==(const WorkerRef& o) const = default;
};

// "job/task:host", "host", "host:port", "/job:worker/replica:0/task:3".
// nullopt for anything that is not one token of name characters.
std::optional<WorkerRef> ParseWorkerRef(std::string_view token);

// "h1, h2", "h1,h2", "h1 h2", with an optional trailing period. Tokens that
// are not worker names ("...", "<none>") are skipped; at most `max` kept.
std::vector<WorkerRef> ParseWorkerList(std::string_view list, size_t max = kMaxWorkersPerList);

// True when `list` is one worker name or several separated by commas; used
// where only the shape of a line tells a host row from prose.
bool IsWorkerList(std::string_view list);

// Leading decimal integer (optional '-'), or nullopt. `consumed` gets the
// number of bytes read.
std::optional<int64_t> ParseInt(std::string_view s, size_t* consumed = nullptr);

// "1m", "5m0s", "1h2m", "90s", "2.5s", "500ms", "300us" -> microseconds.
std::optional<int64_t> ParseDurationUs(std::string_view s);

}  // namespace casefile::hang
