#include "analyze/rules/literal_automaton.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <deque>

#include "common/error.h"

namespace casefile::rules {
namespace {

unsigned char Fold(unsigned char c) { return (c >= 'A' && c <= 'Z') ? c + ('a' - 'A') : c; }

}  // namespace

void AutomatonSize::Add(std::string_view pattern) {
  bytes_ += pattern.size();
  for (unsigned char c : pattern) {
    const unsigned char f = Fold(c);
    if (!seen_[f]) {
      seen_[f] = true;
      ++classes_;
    }
  }
}

uint32_t LiteralAutomaton::Add(std::string_view pattern, bool ignore_case) {
  if (built_) throw Error(ErrorCode::kInternal, "LiteralAutomaton::Add after Build");
  if (pattern.empty()) throw Error(ErrorCode::kInternal, "LiteralAutomaton: empty pattern");
  patterns_.push_back({std::string(pattern), ignore_case});
  return static_cast<uint32_t>(patterns_.size() - 1);
}

void LiteralAutomaton::Build() {
  built_ = true;
  AutomatonSize size;
  for (const Pattern& p : patterns_) size.Add(p.text);
  if (size.entries_bound() > kMaxAutomatonEntries) {
    throw Error(ErrorCode::kLimit, "the literals of the rules in use need a table of up to " +
                                       std::to_string(size.entries_bound()) + " entries (at most " +
                                       std::to_string(kMaxAutomatonEntries) +
                                       "): use fewer or shorter literals");
  }
  prefilter_ = patterns_.size() <= kMaxFilteredPatterns &&
               std::all_of(patterns_.begin(), patterns_.end(),
                           [](const Pattern& p) { return p.text.size() >= 4; });
  if (prefilter_) {
    size_t shortest = SIZE_MAX;
    for (const Pattern& p : patterns_) shortest = std::min(shortest, p.text.size());
    stride_ = std::clamp<size_t>(shortest - 3, 1, 4);
    grams_.assign((size_t{1} << kGramBits) / 64, 0);
    for (const Pattern& p : patterns_) {
      for (size_t at = 0; at < stride_; ++at) {
        const uint32_t h = Gram(reinterpret_cast<const unsigned char*>(p.text.data()) + at);
        grams_[h >> 6] |= uint64_t{1} << (h & 63);
      }
    }
  }
  // Byte classes: one per folded byte that occurs in some pattern; 0 for the
  // rest. Upper-case letters share their lower-case letter's class.
  uint8_t folded_class[256] = {};
  uint32_t classes = 1;
  for (const Pattern& p : patterns_) {
    for (unsigned char c : p.text) {
      const unsigned char f = Fold(c);
      if (folded_class[f] == 0) folded_class[f] = static_cast<uint8_t>(classes++);
    }
  }
  // At most 256 - 26 folded bytes, so the classes fit a byte.
  class_count_ = classes;
  for (int b = 0; b < 256; ++b) class_of_[b] = folded_class[Fold(static_cast<unsigned char>(b))];

  // The trie, with kNone for a missing edge.
  std::vector<uint32_t> next(class_count_, kNone);
  std::vector<std::vector<uint32_t>> own_outputs(1);
  for (uint32_t id = 0; id < patterns_.size(); ++id) {
    uint32_t s = 0;
    for (unsigned char c : patterns_[id].text) {
      const uint32_t k = class_of_[c];
      uint32_t& edge = next[s * class_count_ + k];
      if (edge == kNone) {
        edge = static_cast<uint32_t>(own_outputs.size());
        own_outputs.emplace_back();
        next.resize(next.size() + class_count_, kNone);
      }
      s = next[s * class_count_ + k];
    }
    own_outputs[s].push_back(id);
  }
  const size_t states = own_outputs.size();

  // Breadth-first: failure links, then every missing edge resolved through
  // the failure link, so that scanning never follows a failure link.
  std::vector<uint32_t> fail(states, 0);
  output_link_.assign(states, kNone);
  delta_.assign(states * class_count_, 0);
  std::deque<uint32_t> queue;
  for (uint32_t k = 0; k < class_count_; ++k) {
    const uint32_t child = next[k];
    if (child != kNone) {
      delta_[k] = child;
      fail[child] = 0;
      queue.push_back(child);
    }
  }
  while (!queue.empty()) {
    const uint32_t s = queue.front();
    queue.pop_front();
    const uint32_t f = fail[s];
    output_link_[s] = !own_outputs[f].empty() ? f : output_link_[f];
    for (uint32_t k = 0; k < class_count_; ++k) {
      const uint32_t child = next[s * class_count_ + k];
      if (child != kNone) {
        delta_[s * class_count_ + k] = child;
        fail[child] = delta_[f * class_count_ + k];
        queue.push_back(child);
      } else {
        delta_[s * class_count_ + k] = delta_[f * class_count_ + k];
      }
    }
  }
  // The root's own outputs are empty (no empty pattern), so its link is none.
  output_link_[0] = kNone;

  output_begin_.assign(states + 1, 0);
  outputs_.clear();
  has_output_.assign(states, 0);
  for (size_t s = 0; s < states; ++s) {
    output_begin_[s] = static_cast<uint32_t>(outputs_.size());
    outputs_.insert(outputs_.end(), own_outputs[s].begin(), own_outputs[s].end());
    has_output_[s] = !own_outputs[s].empty() || output_link_[s] != kNone;
  }
  output_begin_[states] = static_cast<uint32_t>(outputs_.size());
  // Scanning form: each entry the next state's row offset, flagged when that
  // state has outputs.
  if (static_cast<uint64_t>(states) * class_count_ >= kOutputBit) {
    throw Error(ErrorCode::kLimit, "rule patterns too large for the automaton");
  }
  for (uint32_t& next : delta_) {
    const uint32_t s = next;
    next = s * class_count_ | (has_output_[s] ? kOutputBit : 0u);
  }
}

}  // namespace casefile::rules
