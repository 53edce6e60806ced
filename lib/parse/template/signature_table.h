// The signatures of one ingest: every mined line is looked up here by the
// hash of its masked message and level (template_mask.h) and gets the id of
// its signature, 1, 2, 3... in order of first occurrence. The lookup is one
// hash pass over the message and one probe of a flat open-addressing table;
// the pattern text is built only for a new hash, so the per-line cost does
// not depend on how many signatures exist and nothing is allocated per line.
//
// The number of signatures is capped (memory stays bounded: each holds a
// pattern and an example cut to kTemplatePatternBytes). Past the cap, a line
// of a new shape gets the overflow signature of its level (pattern
// "<overflow>"), and the caller is told once so it can record an ingest issue.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/line_fields.h"

namespace casefile::templates {

// 65,536 distinct line shapes is far beyond what one program prints (a
// training job's logs have hundreds to a few thousand); more means that
// something the masks do not know varies per line.
inline constexpr size_t kMaxSignatures = 65536;
inline constexpr std::string_view kOverflowPattern = "<overflow>";

struct Signature {
  Level level = Level::kUnknown;
  std::string pattern;  // masked message, cut to kTemplatePatternBytes
  std::string example;  // the first line's message, cut likewise
  int64_t count = 0;
  int64_t first_file_id = 0;
  int64_t first_line_no = 0;
  bool overflow = false;  // the "<overflow>" signature of its level
};

class SignatureTable {
 public:
  explicit SignatureTable(size_t max_signatures = kMaxSignatures);

  // The signature id of a line. `first_overflow` is set to true for the
  // first line that found the table full (false otherwise).
  uint32_t Observe(Level level, std::string_view message, int64_t file_id, int64_t line_no,
                   bool& first_overflow);

  // Signatures by id - 1. Counts are complete once every line was observed.
  const std::vector<Signature>& signatures() const { return signatures_; }
  bool overflowed() const { return overflowed_; }

 private:
  struct Slot {
    uint64_t hash = 0;  // 0 = empty
    uint32_t id = 0;
  };
  uint32_t Add(uint64_t hash, Level level, std::string_view message, int64_t file_id,
               int64_t line_no, bool& first_overflow);
  uint32_t NewSignature(Level level, std::string pattern, std::string_view message, int64_t file_id,
                        int64_t line_no, bool overflow);
  void Grow();
  // A Bloom filter of the hashes in the table. Once the table is full every
  // new shape is an overflow line, and on a log of ever-new shapes (the
  // 1 GiB benchmark's word-salad lines) probing the multi-MiB table for each
  // one cost a cache miss per line; the 64 KiB filter answers "not there"
  // from the cache instead.
  static constexpr size_t kBloomWords = 8192;  // 2^19 bits
  void BloomAdd(uint64_t hash) {
    bloom_[(hash >> 20) & (kBloomWords - 1)] |= uint64_t{1} << ((hash >> 33) & 63);
    bloom_[(hash >> 39) & (kBloomWords - 1)] |= uint64_t{1} << ((hash >> 52) & 63);
  }
  bool BloomHas(uint64_t hash) const {
    return (bloom_[(hash >> 20) & (kBloomWords - 1)] >> ((hash >> 33) & 63) & 1) &&
           (bloom_[(hash >> 39) & (kBloomWords - 1)] >> ((hash >> 52) & 63) & 1);
  }

  size_t max_signatures_;
  std::vector<Slot> slots_;
  size_t mask_ = 0;
  size_t used_ = 0;  // regular signatures in slots_
  std::vector<Signature> signatures_;
  std::vector<uint64_t> bloom_;
  uint32_t overflow_ids_[8] = {};  // per level
  bool overflowed_ = false;
};

}  // namespace casefile::templates
