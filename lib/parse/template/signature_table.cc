#include "parse/template/signature_table.h"

#include "index/index_types.h"
#include "parse/template/template_mask.h"

namespace casefile::templates {
namespace {

constexpr size_t kInitialSlots = 1024;  // a power of two

std::string Cut(std::string_view s) {
  return std::string(s.substr(0, std::min(s.size(), kTemplatePatternBytes)));
}

}  // namespace

SignatureTable::SignatureTable(size_t max_signatures)
    : max_signatures_(max_signatures),
      slots_(kInitialSlots),
      mask_(kInitialSlots - 1),
      bloom_(kBloomWords, 0) {}

uint32_t SignatureTable::Observe(Level level, std::string_view message, int64_t file_id,
                                 int64_t line_no, bool& first_overflow) {
  first_overflow = false;
  uint64_t hash = MaskedHash(message, static_cast<uint64_t>(level) + 1);
  if (hash == 0) hash = 1;
  if (used_ >= max_signatures_ && !BloomHas(hash)) {
    return Add(hash, level, message, file_id, line_no, first_overflow);
  }
  for (size_t at = hash & mask_;; at = (at + 1) & mask_) {
    Slot& slot = slots_[at];
    if (slot.hash == hash) {
      ++signatures_[slot.id - 1].count;
      return slot.id;
    }
    if (slot.hash == 0) return Add(hash, level, message, file_id, line_no, first_overflow);
  }
}

uint32_t SignatureTable::Add(uint64_t hash, Level level, std::string_view message, int64_t file_id,
                             int64_t line_no, bool& first_overflow) {
  if (used_ >= max_signatures_) {
    if (!overflowed_) first_overflow = true;
    overflowed_ = true;
    uint32_t& id = overflow_ids_[static_cast<uint8_t>(level) & 7];
    if (id == 0) {
      id = NewSignature(level, std::string(kOverflowPattern), message, file_id, line_no, true);
    } else {
      ++signatures_[id - 1].count;
    }
    return id;
  }
  uint32_t id = NewSignature(level, MaskedPattern(message, kTemplatePatternBytes), message, file_id,
                             line_no, false);
  ++used_;
  // Load at most one half: probes stay short.
  if (2 * (used_ + 1) > slots_.size()) Grow();
  for (size_t at = hash & mask_;; at = (at + 1) & mask_) {
    if (slots_[at].hash == 0) {
      slots_[at] = {hash, id};
      break;
    }
  }
  BloomAdd(hash);
  return id;
}

uint32_t SignatureTable::NewSignature(Level level, std::string pattern, std::string_view message,
                                      int64_t file_id, int64_t line_no, bool overflow) {
  Signature& s = signatures_.emplace_back();
  s.level = level;
  s.pattern = std::move(pattern);
  s.example = Cut(message);
  s.count = 1;
  s.first_file_id = file_id;
  s.first_line_no = line_no;
  s.overflow = overflow;
  return static_cast<uint32_t>(signatures_.size());
}

void SignatureTable::Grow() {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(old.size() * 2, Slot{});
  mask_ = slots_.size() - 1;
  for (const Slot& s : old) {
    if (s.hash == 0) continue;
    size_t at = s.hash & mask_;
    while (slots_[at].hash != 0) at = (at + 1) & mask_;
    slots_[at] = s;
  }
}

}  // namespace casefile::templates
