#include "bundle/peeked_entry_data.h"

#include "common/error.h"

namespace casefile::bundle {

PeekedEntryData::PeekedEntryData(EntryData& source, size_t want) : source_(source) {
  try {
    while (copied_.size() + pending_.size() < want) {
      copied_.append(pending_);
      pending_ = {};
      std::string_view chunk = source_.Next();
      if (chunk.empty()) {
        ended_ = true;
        break;
      }
      pending_ = chunk;
    }
  } catch (const Error&) {
    failed_ = true;
  }
  head_ = copied_;
  head_.append(pending_.substr(0, want > head_.size() ? want - head_.size() : 0));
}

std::string_view PeekedEntryData::Next() {
  std::string_view chunk;
  if (!copied_replayed_ && !copied_.empty()) {
    copied_replayed_ = true;
    chunk = copied_;
  } else if (!pending_.empty()) {
    chunk = pending_;
    pending_ = {};
  } else if (ended_) {
    return {};
  } else {
    chunk = source_.Next();
  }
  offset_ += chunk.size();
  return chunk;
}

}  // namespace casefile::bundle
