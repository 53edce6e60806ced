// Watchdog and WorkNCCL messages that a hard wrap (a terminal paste, a log
// viewer's export) split over two lines: "... [Rank 0] Watch" then "dog
// caught collective operation timeout: WorkNCCL(...) ran for ...", or
// "... WorkNCCL(SeqNum=1, OpTy" then "pe=BROADCAST, ...". The torch family
// (torch_watchdog.cc) holds a line that ends mid-message and reads it joined
// with the next line when that line continues it. Formats: formats.md 3.2,
// real-logs.md (hard wraps).
#pragma once

#include <string_view>

namespace casefile::dist::torch {

// The most a joined message holds (the held line's message and the
// continuation's, cut there): a watchdog line is a few hundred bytes.
inline constexpr size_t kMaxJoinedBytes = 4096;

// Whether `msg` holds a watchdog or WorkNCCL message that stops before its
// end: "Watchdog caught ..." without its WorkNCCL, a WorkNCCL field list
// that is not closed, a duration that reaches the end of the line ("ran for
// 6000"), "raised the following async exception:" without the error's
// class. A message cut inside its last words ("before timing ou") is whole
// for the readers and is not reported.
bool MessageCut(std::string_view msg);

// Whether `msg` starts a torch message of its own, so that it cannot be the
// rest of a cut one: it holds a group bracket ("[Rank N]", "[PG ...") or,
// when `after_phrase` (the held line has the phrase already), "Watchdog
// caught".
bool StartsOwnMessage(std::string_view msg, bool after_phrase);

}  // namespace casefile::dist::torch
