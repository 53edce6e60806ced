// The stream a visitor sees: the entry's (decompressed) bytes cut at
// max_entry_bytes and at what is left of max_total_bytes. A cut is only made,
// and reported, when there really are bytes beyond the cap.
#pragma once

#include <cstdint>
#include <string_view>

#include "bundle/bundle_reader.h"
#include "bundle/entry.h"
#include "common/limits.h"

namespace casefile::bundle {

enum class Cut { kNone, kEntryCap, kTotal };

class LimitedEntryData final : public EntryData {
 public:
  // All references must outlive this object; every delivered byte is added to
  // budget.total_bytes.
  LimitedEntryData(EntryData& source, const Limits& limits, ReadBudget& budget);

  std::string_view Next() override;
  uint64_t offset() const override { return offset_; }

  Cut cut() const { return cut_; }

 private:
  EntryData& source_;
  const Limits& limits_;
  ReadBudget& budget_;
  uint64_t offset_ = 0;
  Cut cut_ = Cut::kNone;
  // Set when a chunk was delivered only in part: the cut is then known
  // without asking the source again.
  Cut pending_cut_ = Cut::kNone;
};

}  // namespace casefile::bundle
