// Aho-Corasick over many literals at once: every rule's literals and every
// regex's required literal are found in one pass over a line, whatever the
// number of rules. The automaton is a full DFA over byte classes (bytes that
// occur in no pattern share one class), so the inner loop is one table
// lookup per byte. Matching is case-folded (A-Z map to a-z in the class map);
// patterns that must match case exactly are verified on a hit.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace casefile::rules {

// The automaton's table has states x byte classes entries of 4 bytes, and
// building it holds a trie of the same shape: at most this many entries
// (2 x 32 MiB while building), so that the rules of all packs in use never
// cost more than about 64 MB however their literals are written.
inline constexpr uint64_t kMaxAutomatonEntries = uint64_t{8} << 20;

// An upper bound of the table entries for a set of patterns, known before
// any allocation: (total bytes + 1) states at most, times the byte classes
// (distinct case-folded bytes + 1).
class AutomatonSize {
 public:
  void Add(std::string_view pattern);
  uint64_t entries_bound() const { return (bytes_ + 1) * classes_; }

 private:
  uint64_t bytes_ = 0;
  uint64_t classes_ = 1;
  bool seen_[256] = {};
};

class LiteralAutomaton {
 public:
  // Adds a pattern (non-empty) and returns its id (0, 1, ...). Only before
  // Build().
  uint32_t Add(std::string_view pattern, bool ignore_case);
  // Throws Error(kLimit) when the patterns would need more than
  // kMaxAutomatonEntries table entries (checked before allocating).
  void Build();

  // Calls on_hit(pattern_id, end) for every occurrence of every pattern in
  // `text` (end = offset just past it), overlapping ones included, in order
  // of end position. Case-sensitive patterns are reported only when the
  // bytes match exactly.
  template <class OnHit>
  void Scan(std::string_view text, OnHit&& on_hit) const {
    if (!MayMatch(text)) return;
    // Table entries are the next state's row offset (state * classes), with
    // kOutputBit set when that state ends a pattern: one load, one add and
    // one well-predicted branch per byte.
    const uint32_t* delta = delta_.data();
    const uint8_t* cls = class_of_;
    const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
    uint32_t row = 0;
    for (size_t i = 0; i < text.size(); ++i) {
      const uint32_t next = delta[row + cls[bytes[i]]];
      row = next & ~kOutputBit;
      if (next & kOutputBit) Report(row / class_count_, text, i + 1, on_hit);
    }
  }

  // False only when no pattern occurs in `text`: no 4-byte window of it
  // hashes (folded) like one at the start of a pattern. The filter holds the
  // windows at offsets 0..stride-1 of every pattern, stride being up to 4
  // when every pattern has at least stride + 3 bytes, so windows every
  // stride bytes of the text meet one of them in any occurrence. Most log lines
  // hold none, and this test has no chain of dependent loads, so it runs at
  // several times the automaton's speed. Always true when some pattern is
  // shorter than four bytes or there are too many to filter.
  bool MayMatch(std::string_view text) const {
    if (!prefilter_) return true;
    const auto* p = reinterpret_cast<const unsigned char*>(text.data());
    for (size_t i = 0; i + 4 <= text.size(); i += stride_) {
      if (TestGram(Gram(p + i))) return true;
    }
    return false;
  }

  size_t pattern_count() const { return patterns_.size(); }
  size_t state_count() const { return has_output_.size(); }
  size_t class_count() const { return class_count_; }
  const std::string& pattern(uint32_t id) const { return patterns_[id].text; }

 private:
  struct Pattern {
    std::string text;  // as given
    bool ignore_case = false;
  };

  template <class OnHit>
  void Report(uint32_t state, std::string_view text, size_t end, OnHit& on_hit) const {
    // Outputs of this state and of every state down its output chain.
    for (uint32_t s = state; s != kNone; s = output_link_[s]) {
      for (uint32_t k = output_begin_[s]; k < output_begin_[s + 1]; ++k) {
        const uint32_t id = outputs_[k];
        const Pattern& p = patterns_[id];
        if (!p.ignore_case && text.substr(end - p.text.size(), p.text.size()) != p.text) continue;
        on_hit(id, end);
      }
    }
  }

  // A window's bytes with bit 5 set, so that A-Z meet a-z (other bytes that
  // fold together only cost a false positive), hashed to kGramBits bits.
  static uint32_t Gram(const unsigned char* at) {
    const uint32_t w =
        (uint32_t{at[0]} | uint32_t{at[1]} << 8 | uint32_t{at[2]} << 16 | uint32_t{at[3]} << 24) |
        0x20202020u;
    return (w * 0x9E3779B1u) >> (32 - kGramBits);
  }
  bool TestGram(uint32_t h) const { return (grams_[h >> 6] >> (h & 63)) & 1; }

  static constexpr uint32_t kGramBits = 16;
  // Above this many patterns the filter's bits fill and it stops paying.
  static constexpr size_t kMaxFilteredPatterns = 2048;
  static constexpr uint32_t kNone = 0xFFFFFFFFu;
  static constexpr uint32_t kOutputBit = 0x80000000u;

  std::vector<Pattern> patterns_;
  uint8_t class_of_[256] = {};
  uint32_t class_count_ = 1;
  std::vector<uint32_t> delta_;         // state * class_count_ + class -> state
  std::vector<uint8_t> has_output_;     // per state: it or its output chain ends a pattern
  std::vector<uint32_t> output_link_;   // nearest proper suffix state with outputs, or kNone
  std::vector<uint32_t> output_begin_;  // per state, into outputs_ (size states + 1)
  std::vector<uint32_t> outputs_;       // pattern ids ending exactly at a state
  bool built_ = false;
  bool prefilter_ = false;
  size_t stride_ = 1;
  std::vector<uint64_t> grams_;  // kGramBits-bit set of the patterns' first grams
};

}  // namespace casefile::rules
