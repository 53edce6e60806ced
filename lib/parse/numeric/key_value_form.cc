#include "parse/numeric/key_value_form.h"

#include <algorithm>
#include <cstring>
#include <string>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "common/error.h"
#include "parse/line/scan.h"
#include "parse/numeric/form_text.h"

namespace casefile::numeric {
namespace {

using form::AllDigits;
using form::EqualsLower;
using form::HasCurveValue;
using form::kNpos;
using form::ReadValueAt;
using form::SkipBlanks;

enum class WordRole {
  kNone,
  kLoss,
  kEvalLoss,
  kGradNorm,
  kNormAfterGrad,
  kScale,
  kBareScale,
  kStep,
  kRank
};

struct WordAlias {
  std::string_view word;  // lower case
  WordRole role;
};

const WordAlias kWords[] = {
    {"loss", WordRole::kLoss},
    {"train_loss", WordRole::kLoss},
    {"training_loss", WordRole::kLoss},
    {"train/loss", WordRole::kLoss},
    {"loss/train", WordRole::kLoss},
    {"lm_loss", WordRole::kLoss},
    // Lightning suffixes a metric logged with on_step and on_epoch; the
    // epoch mean ("train_loss_epoch") is not a step's value.
    {"train_loss_step", WordRole::kLoss},
    {"loss_step", WordRole::kLoss},
    // NeMo's progress bar: the loss averaged over the data-parallel ranks.
    {"reduced_train_loss", WordRole::kLoss},
    {"eval_loss", WordRole::kEvalLoss},
    {"val_loss", WordRole::kEvalLoss},
    {"valid_loss", WordRole::kEvalLoss},
    {"validation_loss", WordRole::kEvalLoss},
    {"eval/loss", WordRole::kEvalLoss},
    {"val/loss", WordRole::kEvalLoss},
    {"loss/val", WordRole::kEvalLoss},
    {"grad_norm", WordRole::kGradNorm},
    {"gradnorm", WordRole::kGradNorm},
    {"gnorm", WordRole::kGradNorm},
    {"train/grad_norm", WordRole::kGradNorm},
    {"loss_scale", WordRole::kScale},
    {"grad_scale", WordRole::kScale},
    {"scale", WordRole::kBareScale},  // "loss scale", "scale=0.0"
    {"step", WordRole::kStep},
    {"steps", WordRole::kStep},
    {"global_step", WordRole::kStep},
    {"iteration", WordRole::kStep},
    {"iter", WordRole::kStep},
    {"rank", WordRole::kRank},
    {"norm", WordRole::kNormAfterGrad},  // "grad norm"
};

constexpr size_t kMaxWord = 18;

// The letters key words begin with (folded to lower case); WordTable
// checks at start-up that every alias begins with one of them.
constexpr std::string_view kKeyInitials = "egilnrstv";

// kWords by a hash of first letter, last letter and length, so that a word
// is turned down (or found) with one table load and a predictable branch:
// this runs on every word of every line that mentions a loss. A slot holds
// the index + 1 of the one alias that hashes there, 0 for none, kShared
// when several do (then the aliases are searched).
struct WordTable {
  static constexpr uint32_t kSlots = 1024;
  static constexpr uint8_t kShared = 255;
  uint8_t slot[kSlots] = {};

  static uint32_t Hash(std::string_view w) {
    const uint32_t f = static_cast<unsigned char>(w.front()) | 0x20;
    const uint32_t l = static_cast<unsigned char>(w.back()) | 0x20;
    return (f * 97 + l * 31 + static_cast<uint32_t>(w.size()) * 7) % kSlots;
  }
  WordTable() {
    static_assert(std::size(kWords) < kShared);
    for (size_t i = 0; i < std::size(kWords); ++i) {
      if (kKeyInitials.find(kWords[i].word[0]) == std::string_view::npos) {
        throw Error(ErrorCode::kInternal,
                    "numeric key word without a key initial: " + std::string(kWords[i].word));
      }
      uint8_t& s = slot[Hash(kWords[i].word)];
      s = s == 0 ? static_cast<uint8_t>(i + 1) : kShared;
    }
  }
  WordRole Find(std::string_view w) const {
    const uint8_t s = slot[Hash(w)];
    if (s == 0) return WordRole::kNone;
    if (s != kShared)
      return EqualsLower(w, kWords[s - 1].word) ? kWords[s - 1].role : WordRole::kNone;
    for (const WordAlias& a : kWords) {
      if (EqualsLower(w, a.word)) return a.role;
    }
    return WordRole::kNone;
  }
};

const WordTable kWordTable;

WordRole RoleOfWord(std::string_view word) {
  return word.size() > kMaxWord ? WordRole::kNone : kWordTable.Find(word);
}

// A "loss" or "norm" role given the word before it.
WordRole InContext(WordRole role, std::string_view prev) {
  if (role == WordRole::kLoss) {
    // Two-word names: "val loss", "validation loss"; "best loss" is a
    // summary, not a point of the curve.
    if (EqualsLower(prev, "val") || EqualsLower(prev, "validation") || EqualsLower(prev, "eval") ||
        EqualsLower(prev, "valid") || EqualsLower(prev, "test")) {
      return WordRole::kEvalLoss;
    }
    if (EqualsLower(prev, "best") || EqualsLower(prev, "min") || EqualsLower(prev, "lowest")) {
      return WordRole::kNone;
    }
  }
  if (role == WordRole::kNormAfterGrad) {
    return EqualsLower(prev, "grad") ? WordRole::kGradNorm : WordRole::kNone;
  }
  return role;
}

// A bare "scale" is the loss scale after "loss" or "grad", or as a key of
// its own ("loss=2.3 scale=0.0", "| scale: 128"); behind another word and
// blanks only ("noise scale 0.1", "rope scale: 8") it names something else.
WordRole BareScaleInContext(std::string_view s, size_t start, std::string_view prev) {
  if (prev.empty() || EqualsLower(prev, "loss") || EqualsLower(prev, "grad")) {
    return WordRole::kScale;
  }
  const size_t prev_end = static_cast<size_t>(prev.data() - s.data()) + prev.size();
  for (size_t i = prev_end; i < start; ++i) {
    if (!scan::IsBlank(s[i])) return WordRole::kScale;  // "2.31, scale=", "| scale:"
  }
  for (char c : prev) {
    if (scan::IsDigit(c)) return WordRole::kScale;  // "loss=2.31 scale=0.0"
  }
  return WordRole::kNone;
}

struct WordBytes {
  bool is[256] = {};
  constexpr WordBytes() {
    for (int c = 0; c < 256; ++c) {
      is[c] = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              c == '_' || c == '/';
    }
  }
};

constexpr WordBytes kWordBytes;

bool IsWordByte(char c) { return kWordBytes.is[static_cast<unsigned char>(c)]; }

// 64 bytes of text as two bit masks, `n` <= 64 bytes read: bit i of `word`
// says p[i] is a word byte, bit i of `initial` that it is one of
// kKeyInitials. Key/value lines are read word by word, and a byte loop pays
// a mispredicted branch at every word boundary; with masks only the words
// that may be keys are visited, with a few bit operations each.
struct WordMasks {
  uint64_t word = 0;
  uint64_t initial = 0;
};

WordMasks ClassifyBlock(const char* p, size_t n) {
  WordMasks m;
#if defined(__SSE2__)
  char tail[64];
  if (n < 64) {
    std::memset(tail, 0, sizeof tail);
    std::memcpy(tail, p, n);
    p = tail;
  }
  const __m128i fold = _mm_set1_epi8(0x20);
  for (int k = 0; k < 4; ++k) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
    const __m128i lower = _mm_or_si128(v, fold);
    const __m128i letter = _mm_and_si128(_mm_cmpgt_epi8(lower, _mm_set1_epi8('a' - 1)),
                                         _mm_cmplt_epi8(lower, _mm_set1_epi8('z' + 1)));
    const __m128i digit = _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8('0' - 1)),
                                        _mm_cmplt_epi8(v, _mm_set1_epi8('9' + 1)));
    const __m128i other =
        _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('_')), _mm_cmpeq_epi8(v, _mm_set1_epi8('/')));
    // kKeyInitials, spelled out so the compares are constants.
    auto is = [&lower](char c) { return _mm_cmpeq_epi8(lower, _mm_set1_epi8(c)); };
    const __m128i initial =
        _mm_or_si128(_mm_or_si128(_mm_or_si128(is('e'), is('g')), _mm_or_si128(is('i'), is('l'))),
                     _mm_or_si128(_mm_or_si128(is('n'), is('r')),
                                  _mm_or_si128(_mm_or_si128(is('s'), is('t')), is('v'))));
    const uint32_t w =
        static_cast<uint32_t>(_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(letter, digit), other)));
    const uint32_t i = static_cast<uint32_t>(_mm_movemask_epi8(initial));
    m.word |= static_cast<uint64_t>(w) << (16 * k);
    m.initial |= static_cast<uint64_t>(i) << (16 * k);
  }
#else
  for (size_t i = 0; i < n; ++i) {
    m.word |= static_cast<uint64_t>(IsWordByte(p[i])) << i;
    m.initial |= static_cast<uint64_t>(kKeyInitials.find(static_cast<char>(p[i] | 0x20)) !=
                                       std::string_view::npos)
                 << i;
  }
#endif
  m.initial &= m.word;
  return m;
}

// Calls f(start, end) for each maximal run of word bytes of `s` that begins
// with one of kKeyInitials, in order.
template <typename F>
void ForEachKeyWord(std::string_view s, F&& f) {
  const size_t n = s.size();
  bool prev_last = false;  // the previous block's last byte is a word byte
  for (size_t base = 0; base < n; base += 64) {
    const size_t len = std::min<size_t>(64, n - base);
    const WordMasks m = ClassifyBlock(s.data() + base, len);
    uint64_t starts = m.word & ~((m.word << 1) | (prev_last ? 1u : 0u)) & m.initial;
    const uint64_t ends = m.word & ~(m.word >> 1);  // last byte of each run in the block
    while (starts) {
      const unsigned b = static_cast<unsigned>(__builtin_ctzll(starts));
      starts &= starts - 1;
      const uint64_t after = ends & (~uint64_t{0} << b);
      size_t end;
      if (after && !(len == 64 && (after & (after - 1)) == 0 && (after >> 63) && base + 64 < n)) {
        end = base + static_cast<size_t>(__builtin_ctzll(after)) + 1;
      } else {
        // The word runs into the next block (rare): find its end by hand.
        end = base + b;
        while (end < n && IsWordByte(s[end])) ++end;
      }
      f(base + b, end);
    }
    prev_last = (m.word >> 63) & 1;
  }
}

// The word that ends before `start` (skipping the bytes between), or "".
std::string_view WordBefore(std::string_view s, size_t start) {
  size_t e = start;
  while (e > 0 && !IsWordByte(s[e - 1])) --e;
  size_t b = e;
  while (b > 0 && IsWordByte(s[b - 1])) --b;
  return s.substr(b, e - b);
}

void TakeKeyValue(WordRole role, const MetricValue& v, LineMetrics* out) {
  const bool integer = v.finite() && AllDigits(v.text);
  switch (role) {
    case WordRole::kLoss:
      out->Add(kLoss, v);
      break;
    case WordRole::kEvalLoss:
      out->Add(kEvalLoss, v);
      break;
    case WordRole::kGradNorm:
      out->Add(kGradNorm, v);
      break;
    case WordRole::kScale:
      out->Add(kLossScale, v);
      break;
    case WordRole::kStep:
      if (integer && !out->step) out->step = static_cast<int64_t>(v.value);
      break;
    case WordRole::kRank:
      if (integer && v.value <= INT32_MAX && out->named_rank < 0) {
        out->named_rank = static_cast<int32_t>(v.value);
      }
      break;
    case WordRole::kNormAfterGrad:
    case WordRole::kBareScale:
    case WordRole::kNone:
      break;
  }
}

}  // namespace

// "step 12 loss=2.345 grad_norm=0.87", "[rank 1] step 1/1200 loss 2.8879",
// "Epoch 0: 45%|... 14.8it/s, loss=2.34, v_num=0]", "loss: tensor(2.3...)",
// "step 60 loss=2.31 loss_scale=65536.0" (the scale is read only beside a
// curve value, like every other key).
// A key word, then blanks, at most one ':' or '=', blanks, and a number.
bool ParseKeyValue(std::string_view s, size_t, uint32_t, LineMetrics* out) {
  ForEachKeyWord(s, [&](size_t b, size_t e) {
    const std::string_view word = s.substr(b, e - b);
    WordRole role = RoleOfWord(word);
    // The word before matters only for "loss", "norm" and "scale" ("val
    // loss", "grad norm", "loss scale"); it is looked up only then.
    if (role == WordRole::kNormAfterGrad || (role == WordRole::kLoss && word.size() == 4)) {
      role = InContext(role, WordBefore(s, b));
    } else if (role == WordRole::kBareScale) {
      role = BareScaleInContext(s, b, WordBefore(s, b));
    }
    if (role == WordRole::kNone) return;
    size_t j = SkipBlanks(s, e);
    // "  train_loss               =     2.6165": HF's aligned end-of-run
    // metrics table holds averages over the run, not points of the curve.
    if (j - e >= 2 && j < s.size() && s[j] == '=') return;
    if (j < s.size() && (s[j] == ':' || s[j] == '=')) ++j;
    j = SkipBlanks(s, j);
    if (j < s.size() && s[j] == '[') ++j;  // "Step [300/1000]"
    MetricValue v;
    if (ReadValueAt(s, j, &v)) TakeKeyValue(role, v, out);
  });
  return HasCurveValue(*out);
}

}  // namespace casefile::numeric
