// The stream a visitor sees: the entry's (decompressed) bytes cut at
// max_entry_bytes and at what is left of max_total_bytes, and stopped when
// the dispatcher's bomb check says a layer is a decompression bomb. A cap cut
// is only made, and reported, when there really are bytes beyond the cap.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>
#include <utility>

#include "bundle/bundle_reader.h"
#include "bundle/entry.h"
#include "common/limits.h"

namespace casefile::bundle {

enum class Cut {
  kNone,
  kEntryCap,
  kTotal,
  kEntryBomb,  // the gzip of this *.gz member is a bomb: this entry stops
  kInputBomb,  // the archive's own compression is a bomb: the input stops
};

class LimitedEntryData final : public EntryData {
 public:
  // All references must outlive this object; every delivered byte is added to
  // budget.total_bytes.
  LimitedEntryData(EntryData& source, const Limits& limits, ReadBudget& budget);

  // Asked after each chunk taken from the source: kNone to go on, or
  // kEntryBomb / kInputBomb when a layer has become a bomb. The stream then
  // ends at the next chunk: a bomb costs at most two chunks past the floor,
  // and a stream that ends right there is whole and not cut.
  void SetBombCheck(std::function<Cut()> check) { bomb_check_ = std::move(check); }

  std::string_view Next() override;
  uint64_t offset() const override { return offset_; }

  Cut cut() const { return cut_; }
  // True when the source itself ended (not a cut, not a failure).
  bool ended() const { return ended_; }

 private:
  EntryData& source_;
  const Limits& limits_;
  ReadBudget& budget_;
  uint64_t offset_ = 0;
  Cut cut_ = Cut::kNone;
  // Set when a chunk was delivered only in part: the cut is then known
  // without asking the source again.
  Cut pending_cut_ = Cut::kNone;
  bool ended_ = false;
  std::function<Cut()> bomb_check_;
  Cut bomb_ = Cut::kNone;  // what bomb_check_ last found
};

}  // namespace casefile::bundle
