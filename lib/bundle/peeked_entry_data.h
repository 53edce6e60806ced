// An entry's stream with its first few bytes read ahead, so that the reader
// can decide how to read the entry (is a *.gz member really gzip?) before the
// visitor sees it. Next() then replays those bytes and goes on with the
// source: the stream is the source's, unchanged, failures included.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "bundle/entry.h"

namespace casefile::bundle {

class PeekedEntryData final : public EntryData {
 public:
  // Reads from `source` (which must outlive this object) until `want` bytes
  // are seen, the stream ends, or it throws Error. Such an Error is not
  // propagated here: the source throws it again on the next call (the
  // EntryData contract), so Next() raises it after the bytes read before it.
  // Reads whole chunks, so at most one chunk of the source is held (as a
  // view) plus fewer than `want` copied bytes.
  PeekedEntryData(EntryData& source, size_t want);

  // The first min(want, bytes before the end or the failure) bytes.
  std::string_view head() const { return head_; }
  // True when the stream ended cleanly before `want` bytes.
  bool ended() const { return ended_; }
  // True when the source threw before `want` bytes.
  bool failed() const { return failed_; }

  std::string_view Next() override;
  uint64_t offset() const override { return offset_; }

 private:
  EntryData& source_;
  std::string head_;
  // Chunks read ahead: `copied_` holds those before the last one (each was
  // shorter than `want`), `pending_` the last one, still in the source's
  // buffer because the source has not been called since.
  std::string copied_;
  bool copied_replayed_ = false;
  std::string_view pending_;
  bool ended_ = false;
  bool failed_ = false;
  uint64_t offset_ = 0;
};

}  // namespace casefile::bundle
