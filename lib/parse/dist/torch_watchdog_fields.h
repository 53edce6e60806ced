// Field readers shared by the ProcessGroupNCCL / c10d parsers
// (torch_watchdog*.cc). They search, never anchor: wrappers the line layer
// could not strip, a tqdm bar the message was glued to, or an exception that
// wraps the message may stand before the fields. Every reader copes with a
// line cut anywhere: it keeps what it could read and leaves the rest unset.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "index/index_types.h"

namespace casefile::dist::torch {

// Whether `needle` occurs in `s`, found by memchr on needle[anchor]: a find
// led by a byte that is rare in logs ('q' of "enqueued") rather than by a
// common first byte ('e'), which string_view::find would stop at again and
// again. `anchor` < needle.size().
bool ContainsAt(std::string_view s, std::string_view needle, size_t anchor);

// The optionally signed decimal at s[i] (after blanks), at most 18 digits;
// nullopt when none. `i` moves past what was read.
std::optional<int64_t> IntAt(std::string_view s, size_t& i);

// The number right after the first `key` in `s` at or after `from`.
std::optional<int64_t> IntAfter(std::string_view s, std::string_view key, size_t from = 0);

// The number after a short label that names a work item and ends in ':' at
// s[from]: " NCCL work: 1582", " work: 547". The label is letters and blanks
// holding the word "work", so "enqueued" elsewhere in a line is not taken.
std::optional<int64_t> WorkNumberAt(std::string_view s, size_t from);

// At most `max` bytes of `s`, cut back to a UTF-8 character boundary, with
// blanks trimmed at both ends.
std::string_view Clip(std::string_view s, size_t max);

// Sets pg, pg_rank and rank from the group prefix found in `before` (the
// text in front of the message's key phrase):
//  - "[PG 1 Rank 0]" (≈2.3), "[PG ID 0 PG GUID 0(default_pg) Rank 1]" and
//    "[PG ID 1 PG GUID 1 Rank 1]" (≥2.4): pg is the group's name or GUID, with
//    its description when printed ("1", "0(default_pg)"), since the GUID is
//    the one that is the same on every rank (the local ID is a per-process
//    counter). pg_rank is the Rank of that bracket: a rank inside the group,
//    not the global rank, so rank is left to the line's wrapper ([rankN]:),
//    except for the default group ("(default_pg)", or the group named "0":
//    "[PG 0 Rank 5]", "[PG ID 0 PG GUID 0 Rank 5]"), whose ranks are the
//    global ranks.
//  - no group prefix: the "[Rank N]" nearest the phrase (WorkNCCL's own
//    prefix, the rank in an unnamed group, in practice the default one) sets
//    rank when no wrapper did; pg and pg_rank stay unset.
void ApplyGroupRank(std::string_view before, DistEventRow& row);

// Reads "WorkNCCL(SeqNum=S, OpType=OP, NumelIn=I, NumelOut=O, Timeout(ms)=T)"
// and the older "WorkNCCL(OpType=OP, TensorShape=[...], Timeout(ms)=T)" from
// the first WorkNCCL in `s`: each field that is printed (and not cut) sets
// seq, op, numel_in, numel_out, timeout_ms. Returns the offset after the
// fields read (npos when there is no WorkNCCL).
size_t ReadWorkNccl(std::string_view s, DistEventRow& row);

}  // namespace casefile::dist::torch
