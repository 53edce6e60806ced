#include "bundle/limited_entry_data.h"

#include <algorithm>

namespace casefile::bundle {

LimitedEntryData::LimitedEntryData(EntryData& source, const Limits& limits, ReadBudget& budget)
    : source_(source), limits_(limits), budget_(budget) {}

std::string_view LimitedEntryData::Next() {
  if (cut_ != Cut::kNone) return {};
  if (pending_cut_ != Cut::kNone) {
    cut_ = pending_cut_;
    return {};
  }
  std::string_view chunk = source_.Next();
  if (chunk.empty()) {
    ended_ = true;
    return chunk;
  }
  if (bomb_ != Cut::kNone) {
    // The layer was found to be a bomb after the last chunk, and it does go
    // on: stop here. (One that had ended there was whole, and no bomb.)
    cut_ = bomb_;
    return {};
  }
  uint64_t entry_room = limits_.max_entry_bytes > offset_ ? limits_.max_entry_bytes - offset_ : 0;
  uint64_t total_room = limits_.max_total_bytes > budget_.total_bytes
                            ? limits_.max_total_bytes - budget_.total_bytes
                            : 0;
  uint64_t room = std::min(entry_room, total_room);
  if (chunk.size() > room) {
    // The total cap wins a tie: it ends the whole read, not just this entry.
    Cut reason = total_room <= entry_room ? Cut::kTotal : Cut::kEntryCap;
    if (room == 0) {
      cut_ = reason;
      return {};
    }
    pending_cut_ = reason;
    chunk = chunk.substr(0, room);
  }
  offset_ += chunk.size();
  budget_.total_bytes += chunk.size();
  if (bomb_check_) bomb_ = bomb_check_();
  return chunk;
}

}  // namespace casefile::bundle
