// c10d store and rendezvous waits that timed out (kStoreTimeout). A rank
// that never reaches the store (crashed, slow to start, wrong address) shows
// on its peers this way. Forms, oldest first:
//   "Socket Timeout" (TCPStore before 2.4, often as "DistStoreError: Socket
//   Timeout" or inside "store->get('0') got error: Socket Timeout");
//   "Timeout waiting for key: default_pg/0/0 after 1800000 ms" (FileStore);
//   "connect() timed out. Original timeout was 60000 ms." and "The client
//   socket has timed out after 1800s while trying to connect to (h, p)."
//   (TCPStore client connect);
//   "Timed out initializing process group in store based barrier on rank 3,
//   for key: store_based_barrier_key:1 (world_size=8, worker_count=7,
//   timeout=0:30:00)" (distributed_c10d.py);
//   "Timed out after 901 seconds waiting for clients. 1/2 clients joined."
//   ("workers" in its first version; TCPStore server);
//   "wait timeout after 300000ms, keys: /a, /b" (TCPStore since 2.4);
//   any other "Timed out waiting ... store" message, and elastic's
//   RendezvousTimeoutError.
#include <string>

#include "parse/dist/torch_watchdog_fields.h"
#include "parse/dist/torch_watchdog_kinds.h"

namespace casefile::dist::torch {
namespace {

constexpr size_t npos = std::string_view::npos;
// Store keys can be many ("keys: /a, /b, ..."); the first ones say enough.
constexpr size_t kMaxKeysBytes = 256;

// Past this (about 31 years) a number is not a timeout: the values are
// refused, which also keeps the unit arithmetic below from overflowing.
constexpr int64_t kMaxDurationMs = int64_t{1} << 40;

bool Within(std::optional<int64_t> v, int64_t limit) { return v && *v >= -limit && *v <= limit; }

// A duration "N ms", "Nms", "Ns", "N s", "N seconds" at s[i] in ms.
std::optional<int64_t> DurationAt(std::string_view s, size_t i) {
  auto v = IntAt(s, i);
  if (!Within(v, kMaxDurationMs / 1000 * 1000)) return std::nullopt;
  while (i < s.size() && s[i] == ' ') ++i;
  const std::string_view unit = s.substr(i);
  if (unit.substr(0, 2) == "ms") return *v;
  if (unit.substr(0, 1) == "s") {
    if (!Within(v, kMaxDurationMs / 1000)) return std::nullopt;
    return *v * 1000;
  }
  return std::nullopt;
}

// A Python timedelta as str() prints it: "0:30:00", "1 day, 2:00:00.5".
std::optional<int64_t> TimedeltaMsAt(std::string_view s, size_t i) {
  int64_t days = 0;
  size_t j = i;
  auto first = IntAt(s, j);
  if (!first) return std::nullopt;
  if (s.substr(j, 4) == " day") {
    days = *first;
    const size_t comma = s.find(", ", j);
    if (comma == npos || comma - j > 6) return std::nullopt;
    j = comma + 2;
    first = IntAt(s, j);
    if (!first) return std::nullopt;
  }
  if (j >= s.size() || s[j] != ':') return std::nullopt;
  ++j;
  auto minutes = IntAt(s, j);
  if (!minutes || j >= s.size() || s[j] != ':') return std::nullopt;
  ++j;
  auto seconds = IntAt(s, j);
  if (!seconds) return std::nullopt;
  // Each part bounded first, so the sum cannot overflow.
  const int64_t day_limit = kMaxDurationMs / 86400000;
  if (days < -day_limit || days > day_limit || !Within(first, kMaxDurationMs / 3600000) ||
      !Within(minutes, kMaxDurationMs / 60000) || !Within(seconds, kMaxDurationMs / 1000)) {
    return std::nullopt;
  }
  return ((days * 24 + *first) * 60 + *minutes) * 60000 + *seconds * 1000;
}

bool ReadStoreBarrier(std::string_view msg, DistEventRow& row) {
  // Only the failure: the same barrier logs "Waiting in store based barrier
  // ... timeout=0:30:00" every few seconds while it waits.
  const size_t at = msg.find("Timed out initializing process group in store based barrier");
  if (at == npos) return false;
  ApplyGroupRank(msg.substr(0, at), row);
  if (!row.rank) {
    if (auto r = IntAfter(msg, " on rank ", at); r && *r >= 0) row.rank = *r;
  }
  std::string detail = "store based barrier";
  if (const size_t key = msg.find("for key: ", at); key != npos) {
    std::string_view k = msg.substr(key + 9);
    k = Clip(k.substr(0, k.find(" (")), kMaxKeysBytes);
    if (!k.empty()) detail.append(": ").append(k);
  }
  const auto world = IntAfter(msg, "world_size=", at);
  auto joined = IntAfter(msg, "num_workers_joined=", at);
  if (!joined) joined = IntAfter(msg, "worker_count=", at);
  if (world && joined) {
    detail.append(", ")
        .append(std::to_string(*joined))
        .append("/")
        .append(std::to_string(*world))
        .append(" joined");
  }
  row.detail = std::move(detail);
  if (const size_t t = msg.find("timeout=", at); t != npos) {
    if (auto ms = TimedeltaMsAt(msg, t + 8)) row.timeout_ms = *ms;
  }
  return true;
}

bool ReadClientsJoined(std::string_view msg, DistEventRow& row) {
  const size_t at = msg.find("Timed out after ");
  if (at == npos) return false;
  const size_t waiting = msg.find(" waiting for ", at);
  if (waiting == npos) return false;
  const std::string_view who = msg.substr(waiting + 13, 7);
  if (who.substr(0, 6) != "client" && who.substr(0, 6) != "worker") return false;
  ApplyGroupRank(msg.substr(0, at), row);
  if (auto ms = DurationAt(msg, at + 16)) row.timeout_ms = *ms;
  // "clients. 1/2 clients joined." -> "1/2 clients joined"
  std::string_view joined;
  if (const size_t dot = msg.find(". ", waiting); dot != npos) joined = msg.substr(dot + 2);
  while (!joined.empty() && (joined.back() == '.' || joined.back() == ' ')) joined.remove_suffix(1);
  joined = Clip(joined, kMaxKeysBytes);
  row.detail = std::string(joined.empty() ? who.substr(0, 6) : joined);
  return true;
}

bool ReadWaitTimeout(std::string_view msg, DistEventRow& row) {
  const size_t at = msg.find("wait timeout after ");
  if (at == npos) return false;
  ApplyGroupRank(msg.substr(0, at), row);
  if (auto ms = DurationAt(msg, at + 19)) row.timeout_ms = *ms;
  if (const size_t keys = msg.find("keys: ", at); keys != npos) {
    row.detail = std::string(Clip(msg.substr(keys + 6), kMaxKeysBytes));
  }
  return true;
}

bool ReadKeyTimeout(std::string_view msg, DistEventRow& row) {
  const size_t at = msg.find("Timeout waiting for key: ");
  if (at == npos) return false;
  ApplyGroupRank(msg.substr(0, at), row);
  std::string_view key = msg.substr(at + 25);
  const size_t after = key.find(" after ");
  if (after != npos) {
    if (auto ms = DurationAt(key, after + 7)) row.timeout_ms = *ms;
    key = key.substr(0, after);
  }
  row.detail = std::string(Clip(key, kMaxKeysBytes));
  return true;
}

bool ReadConnectTimeout(std::string_view msg, DistEventRow& row) {
  if (const size_t at = msg.find("client socket has timed out after "); at != npos) {
    ApplyGroupRank(msg.substr(0, at), row);
    if (auto ms = DurationAt(msg, at + 34)) row.timeout_ms = *ms;
    std::string detail = "connect";
    if (const size_t to = msg.find("connect to ", at); to != npos) {
      std::string_view peer = msg.substr(to + 11);
      if (const size_t close = peer.find(')'); close != npos) peer = peer.substr(0, close + 1);
      peer = Clip(peer, 128);
      if (!peer.empty()) detail.append(" to ").append(peer);
    }
    row.detail = std::move(detail);
    return true;
  }
  if (const size_t at = msg.find("connect() timed out."); at != npos) {
    ApplyGroupRank(msg.substr(0, at), row);
    if (const size_t orig = msg.find("timeout was ", at); orig != npos) {
      if (auto ms = DurationAt(msg, orig + 12)) row.timeout_ms = *ms;
    }
    row.detail = "connect";
    return true;
  }
  return false;
}

bool ReadOtherStoreTimeout(std::string_view msg, DistEventRow& row) {
  if (const size_t at = msg.find("Socket Timeout"); at != npos) {
    ApplyGroupRank(msg.substr(0, at), row);
    row.detail = "Socket Timeout";
    return true;
  }
  if (const size_t at = msg.find("RendezvousTimeoutError"); at != npos) {
    ApplyGroupRank(msg.substr(0, at), row);
    row.detail = "rendezvous";
    return true;
  }
  size_t at = msg.find("Timed out waiting");
  if (at == npos) at = msg.find("timed out waiting");
  if (at == npos) return false;
  const std::string_view rest = msg.substr(at);
  if (rest.find("store") == npos && rest.find("Store") == npos) return false;
  ApplyGroupRank(msg.substr(0, at), row);
  // The first duration in the message is the timeout ("... waiting 600000ms
  // for the store ...").
  for (size_t i = 17; i < rest.size(); ++i) {
    if (rest[i] >= '0' && rest[i] <= '9' && rest[i - 1] == ' ') {
      if (auto ms = DurationAt(rest, i)) {
        row.timeout_ms = *ms;
        break;
      }
    }
  }
  row.detail = std::string(Clip(rest, kMaxKeysBytes));
  return true;
}

}  // namespace

bool ReadStoreTimeout(std::string_view msg, DistEventRow& row) {
  return ReadWaitTimeout(msg, row) || ReadClientsJoined(msg, row) || ReadStoreBarrier(msg, row) ||
         ReadKeyTimeout(msg, row) || ReadConnectTimeout(msg, row) ||
         ReadOtherStoreTimeout(msg, row);
}

}  // namespace casefile::dist::torch
