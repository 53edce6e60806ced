#include "parse/dist/step_forms.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <initializer_list>

#include "parse/line/byte_search.h"
#include "parse/line/scan.h"

namespace casefile::dist::step {
namespace {

using scan::AnyOfFourBytes;
using scan::HasAt;
using scan::HasBefore;

constexpr size_t kNpos = std::string_view::npos;
// A "step" longer than this (about 11 days) is not a training step.
constexpr double kMaxSeconds = 1e6;
constexpr uint64_t kMaxStep = 1'000'000'000'000;
// Lines are lower-cased into a buffer of this size to look for the words
// that exclude them; a longer line is looked at only up to there.
constexpr size_t kFoldSpan = 4096;
// Longest "[elapsed<remaining, " part of a tqdm bar before its rate.
constexpr size_t kMaxBracket = 64;

using scan::At;
using scan::IsAlnum;
using scan::IsAlpha;
using scan::IsBlank;
using scan::IsDigit;
using scan::LiteralAt;

inline char Lower(char c) { return scan::IsUpper(c) ? static_cast<char>(c | 0x20) : c; }
inline bool IsWordChar(char c) { return IsAlnum(c) || c == '_'; }

bool WordIs(std::string_view w, std::string_view lower) {
  if (w.size() != lower.size()) return false;
  for (size_t k = 0; k < w.size(); ++k) {
    if (Lower(w[k]) != lower[k]) return false;
  }
  return true;
}

size_t SkipBlanks(std::string_view s, size_t i) {
  while (i < s.size() && IsBlank(s[i])) ++i;
  return i;
}

// True when the lower-cased `s` holds one of `words`.
bool HasAnyFolded(std::string_view s, std::initializer_list<std::string_view> words) {
  char buf[kFoldSpan];
  const size_t n = std::min(s.size(), sizeof(buf));
  for (size_t k = 0; k < n; ++k) buf[k] = Lower(s[k]);
  const std::string_view folded(buf, n);
  for (std::string_view w : words) {
    if (folded.find(w) != kNpos) return true;
  }
  return false;
}

// Calls visit(start, end) for each word (a longest run of letters, digits
// and '_') of s that holds one of the bytes a, b, c, d (letters), in order,
// until visit returns true; returns whether one did. The same words, in the
// same order, as a walk over every word that skips those without the bytes,
// at the cost of a vector search for rare letters instead of a look at every
// byte: the walks of every step line were most of the step family's time.
template <typename Visit>
bool ForWordsWith(std::string_view s, char a, char b, char c, char d, Visit&& visit) {
  size_t done = 0;  // the end of the last word visited: s[done] ends a word
  return AnyOfFourBytes(s, a, b, c, d, [&](size_t p) {
    if (p < done) return false;  // in the word just visited
    size_t w = p;
    while (w > done && IsWordChar(s[w - 1])) --w;
    size_t e = p + 1;
    while (e < s.size() && IsWordChar(s[e])) ++e;
    done = e;
    return visit(w, e);
  });
}

// s holds `lower` (lower-case) at offset i, in any case.
bool HasAtFolded(std::string_view s, size_t i, std::string_view lower) {
  if (i > s.size() || s.size() - i < lower.size()) return false;
  for (size_t k = 0; k < lower.size(); ++k) {
    if (Lower(s[i + k]) != lower[k]) return false;
  }
  return true;
}

// s holds `lower` (lower-case) ending just before offset `end`, in any case.
bool HasBeforeFolded(std::string_view s, size_t end, std::string_view lower) {
  return end >= lower.size() && HasAtFolded(s, end - lower.size(), lower);
}

// HasAnyFolded(s, {"checkpoint", "saving", "saved", "evaluat", "validat"})
// in one vector pass: every word holds a 'v' or a 'k', rare letters, and
// only their neighbours are compared. Step lines (one per rank per step)
// all go through this test; the lower-cased copy and five searches for
// words that start with common letters were a tenth of the step family's
// time.
bool MentionsCheckpointOrEvaluation(std::string_view s) {
  s = s.substr(0, std::min(s.size(), kFoldSpan));
  return AnyOfFourBytes(s, 'v', 'V', 'k', 'K', [&](size_t p) {
    if (Lower(s[p]) == 'k') return HasBeforeFolded(s, p, "chec") && HasAtFolded(s, p + 1, "point");
    if (HasBeforeFolded(s, p, "sa") &&
        (HasAtFolded(s, p + 1, "ing") || HasAtFolded(s, p + 1, "ed")))
      return true;
    return (HasBeforeFolded(s, p, "e") && HasAtFolded(s, p + 1, "aluat")) ||
           HasAtFolded(s, p + 1, "alidat");
  });
}

// s holds "time per " (the start of the three phrases FindTime looks for
// first): one pass over the rare 'p' instead of three searches for words
// that start with the common 't'.
bool HasTimePer(std::string_view s) {
  return AnyOfFourBytes(s, 'p', 'p', 'p', 'p',
                        [&](size_t p) { return HasBefore(s, p, "time ") && HasAt(s, p, "per "); });
}

// "0.41", "4567.8", "4.1E-01", ".5" at s[i]; the length read, 0 for none.
// A '.' not followed by a digit ends a sentence, not the number.
size_t ReadNumber(std::string_view s, size_t i, double* v) {
  size_t j = i;
  while (j < s.size() && IsDigit(s[j])) ++j;
  bool digits = j > i;
  if (At(s, j, '.') && j + 1 < s.size() && IsDigit(s[j + 1])) {
    j += 2;
    while (j < s.size() && IsDigit(s[j])) ++j;
    digits = true;
  }
  if (!digits || j - i > 40) return 0;
  if (j < s.size() && (s[j] == 'e' || s[j] == 'E')) {
    size_t k = j + 1;
    if (At(s, k, '+') || At(s, k, '-')) ++k;
    const size_t m = k;
    while (k < s.size() && IsDigit(s[k]) && k - m < 4) ++k;
    if (k > m) j = k;
  }
  const auto r = std::from_chars(s.data() + i, s.data() + j, *v);
  return r.ec == std::errc() && r.ptr == s.data() + j ? j - i : 0;
}

// Seconds per unit of a time unit word; 0 when `u` is not one.
double UnitScale(std::string_view u) {
  struct Unit {
    std::string_view word;
    double scale;
  };
  static constexpr Unit kUnits[] = {
      {"s", 1},     {"sec", 1},     {"secs", 1},     {"second", 1},         {"seconds", 1},
      {"ms", 1e-3}, {"msec", 1e-3}, {"msecs", 1e-3}, {"millisecond", 1e-3}, {"milliseconds", 1e-3},
      {"us", 1e-6}, {"min", 60},    {"mins", 60},    {"minute", 60},        {"minutes", 60},
  };
  for (const Unit& unit : kUnits) {
    if (WordIs(u, unit.word)) return unit.scale;
  }
  return 0;
}

// After a number: a clock ("12:30"), a date ("2024-05"), a fraction or a
// percentage is not a duration.
bool NumberEndsCleanly(std::string_view s, size_t k) {
  if (k >= s.size()) return true;
  const char c = s[k];
  const bool digit_next = k + 1 < s.size() && IsDigit(s[k + 1]);
  if ((c == ':' || c == '-' || c == '/') && digit_next) return false;
  return c != '%';
}

// The unit right after a number ("0.41s", "412 ms"). *scale is 0 when none
// is written; false when letters glued to the number are not a unit.
bool UnitAfter(std::string_view s, size_t k, double* scale) {
  *scale = 0;
  size_t u = k;
  const bool blank = At(s, u, ' ');
  if (blank) ++u;
  size_t e = u;
  while (e < s.size() && IsAlpha(s[e]) && e - u <= 12) ++e;
  if (e == u) return true;
  const double sc = UnitScale(s.substr(u, e - u));
  if (sc > 0 && (e == s.size() || !IsAlnum(s[e]))) {
    *scale = sc;
    return true;
  }
  return blank;  // after a blank the letters are the next word
}

// The value of a time key whose name ends at s[j]: optional closing quote,
// a unit the key spells (" in s", " (ms)"), ':' / '=' or blanks, a number
// and its unit.
bool KeyValue(std::string_view s, size_t j, double key_scale, bool require_unit, double* v) {
  size_t i = j;
  if (At(s, i, '\'') || At(s, i, '"')) ++i;
  struct Suffix {
    std::string_view text;
    double scale;
  };
  static constexpr Suffix kSuffixes[] = {
      {" in ms", 1e-3}, {" in s", 1}, {" (ms)", 1e-3}, {"(ms)", 1e-3}, {" (s)", 1}, {"(s)", 1},
  };
  for (const Suffix& suf : kSuffixes) {
    if (LiteralAt(s, i, suf.text) &&
        !(i + suf.text.size() < s.size() && IsAlpha(s[i + suf.text.size()]))) {
      key_scale = suf.scale;
      i += suf.text.size();
      break;
    }
  }
  const size_t before = i;
  i = SkipBlanks(s, i);
  if (At(s, i, ':') || At(s, i, '=')) {
    i = SkipBlanks(s, i + 1);
  } else if (i == before) {
    return false;  // "time0.4"
  }
  double x = 0;
  const size_t n = ReadNumber(s, i, &x);
  if (n == 0 || !NumberEndsCleanly(s, i + n)) return false;
  double unit = 0;
  if (!UnitAfter(s, i + n, &unit)) return false;
  if (require_unit && unit == 0) return false;
  *v = x * (unit > 0 ? unit : key_scale);
  return *v > 0 && *v <= kMaxSeconds;
}

struct StepAt {
  int64_t step = -1;
  size_t end = 0;  // just past the number (and "/total")
};

// The step number after a step word that ends at s[i].
bool StepNumberAfter(std::string_view s, size_t i, StepAt* at) {
  size_t j = i;
  if (At(s, j, '\'') || At(s, j, '"')) ++j;
  if (LiteralAt(s, j, "(train)")) j += 7;  // mmengine "Iter(train) [120/1000]"
  j = SkipBlanks(s, j);
  if (At(s, j, ':') || At(s, j, '=') || At(s, j, '#')) j = SkipBlanks(s, j + 1);
  if (At(s, j, '[')) j = SkipBlanks(s, j + 1);
  if (At(s, j, '#')) ++j;
  uint64_t v = 0;
  const size_t n = scan::ReadUint(s, j, 13, &v);
  if (n == 0) return false;
  size_t k = j + n;
  if (k < s.size() && IsDigit(s[k])) return false;
  // "global_step=119.0" (a metrics dict): whole; "step: 12.3": not a step.
  if (At(s, k, '.') && k + 1 < s.size() && IsDigit(s[k + 1])) {
    size_t m = k + 1;
    while (At(s, m, '0')) ++m;
    if (m < s.size() && IsDigit(s[m])) return false;
    k = m;
  }
  if (At(s, k, '%')) return false;
  if ((At(s, k, ':') || At(s, k, '-')) && k + 1 < s.size() && IsDigit(s[k + 1])) return false;
  if (At(s, k, '/')) {
    // "10/  500000": the total.
    const size_t t = SkipBlanks(s, k + 1);
    uint64_t total = 0;
    const size_t m = scan::ReadUint(s, t, 13, &total);
    if (m > 0) k = t + m;
  }
  if (v > kMaxStep) return false;
  at->step = static_cast<int64_t>(v);
  at->end = k;
  return true;
}

// The step of the line: "global_step" wins (the monotonic one), else the
// first step word followed by a number.
StepAt FindStep(std::string_view s) {
  StepAt first;
  StepAt global;
  // Every step word holds a 'p' ("step", "global_step") or an 'r' ("iter",
  // "iteration"): only the words around those bytes are looked at.
  ForWordsWith(s, 'p', 'P', 'r', 'R', [&](size_t w, size_t i) {
    const std::string_view word = s.substr(w, i - w);
    if (word.size() > 11 || word.size() < 4) return false;
    const bool is_global = WordIs(word, "global_step");
    if (!is_global && !WordIs(word, "step") && !WordIs(word, "iter") &&
        !WordIs(word, "iteration")) {
      return false;
    }
    StepAt at;
    if (!StepNumberAfter(s, i, &at)) return false;
    if (is_global) {
      global = at;
      return true;
    }
    if (first.step < 0) first = at;
    return false;
  });
  return global.step >= 0 ? global : first;
}

struct TimeKey {
  std::string_view word;
  double scale;
  bool specific;  // names a step time, not just any time
};

constexpr TimeKey kTimeKeys[] = {
    {"step_time", 1, true},
    {"steptime", 1, true},
    {"step_time_s", 1, true},
    {"step_time_sec", 1, true},
    {"step_time_ms", 1e-3, true},
    {"time_per_step", 1, true},
    {"time_per_step_ms", 1e-3, true},
    {"train_step_time", 1, true},
    {"train_step_timing", 1, true},  // NeMo: "train_step_timing in s=0.41"
    {"iter_time", 1, true},
    {"iter_time_ms", 1e-3, true},
    {"iteration_time", 1, true},
    {"time_per_iter", 1, true},
    {"time_per_iteration", 1, true},
    {"sec_per_step", 1, true},
    {"secs_per_step", 1, true},
    {"seconds_per_step", 1, true},
    {"ms_per_step", 1e-3, true},
    {"time", 1, false},
    {"time_s", 1, false},
    {"time_ms", 1e-3, false},
    {"seconds", 1, false},  // MaxText: "completed step: 120, seconds: 0.412"
    {"secs", 1, false},
};

// "(0.41 s/step)", "412ms/step", "1.34s/it": a duration per step.
bool FindRate(std::string_view s, double* v) {
  for (size_t at = s.find('/'); at != kNpos; at = s.find('/', at + 1)) {
    size_t e = at + 1;
    while (e < s.size() && IsAlpha(s[e]) && e - at <= 10) ++e;
    const std::string_view per = s.substr(at + 1, e - at - 1);
    if (!WordIs(per, "step") && !WordIs(per, "it") && !WordIs(per, "iter") &&
        !WordIs(per, "iteration")) {
      continue;
    }
    if (e < s.size() && IsWordChar(s[e])) continue;
    size_t u = at;
    while (u > 0 && IsAlpha(s[u - 1]) && at - u < 12) --u;
    const double scale = UnitScale(s.substr(u, at - u));
    if (scale == 0) continue;
    size_t ne = u;
    if (ne > 0 && s[ne - 1] == ' ') --ne;
    size_t ns = ne;
    while (ns > 0 && (IsDigit(s[ns - 1]) || s[ns - 1] == '.') && ne - ns < 40) --ns;
    if (ns == ne || (ns > 0 && IsWordChar(s[ns - 1]))) continue;
    double x = 0;
    if (ReadNumber(s, ns, &x) != ne - ns) continue;
    *v = x * scale;
    if (*v > 0 && *v <= kMaxSeconds) return true;
  }
  return false;
}

// The time of a line whose step ends at `step.end`, most specific form
// first; sets *form.
bool FindTime(std::string_view s, const StepAt& step, double* v, const char** form) {
  if (HasTimePer(s)) {
    for (std::string_view phrase : {"time per iteration", "time per step", "time per iter"}) {
      const size_t at = s.find(phrase);
      if (at != kNpos && KeyValue(s, at + phrase.size(), 1, false, v)) {
        *form = phrase == "time per iteration" ? "elapsed time per iteration" : "time per step";
        return true;
      }
    }
  }
  double generic = 0;
  const char* generic_form = nullptr;
  // Every key holds an 'm' ("time", "ms_per_step") or a 'c' ("sec",
  // "seconds"): only the words around those bytes are looked at.
  const bool specific = ForWordsWith(s, 'm', 'M', 'c', 'C', [&](size_t w, size_t i) {
    const std::string_view word = s.substr(w, i - w);
    if (word.size() < 4 || word.size() > 18) return false;
    for (const TimeKey& key : kTimeKeys) {
      if (!WordIs(word, key.word)) continue;
      double x = 0;
      if (!KeyValue(s, i, key.scale, false, &x)) return false;
      if (key.specific) {
        *v = x;
        *form = key.word.data();
        return true;
      }
      if (generic_form == nullptr) {
        generic = x;
        generic_form = key.word.data();
      }
      return false;
    }
    return false;
  });
  if (specific) return true;
  if (FindRate(s, v)) {
    *form = "rate";
    return true;
  }
  // "step 120 took 0.41s": "took" right after the step, with a unit.
  size_t j = SkipBlanks(s, step.end);
  if (At(s, j, ':') || At(s, j, ',')) j = SkipBlanks(s, j + 1);
  if (LiteralAt(s, j, "took") && !(j + 4 < s.size() && IsWordChar(s[j + 4])) &&
      KeyValue(s, j + 4, 1, true, v)) {
    *form = "took";
    return true;
  }
  if (generic_form != nullptr) {
    *v = generic;
    *form = generic_form;
    return true;
  }
  return false;
}

// A tqdm bar: "{desc}: {pct}%|{bar}| {n}/{total} [{elapsed}<{remaining},
// {rate}{postfix}]" with rate "1.34s/it" or "2.95it/s".
bool ReadTqdm(std::string_view s, StepTime* out) {
  for (size_t at = s.find('/'); at != kNpos; at = s.find('/', at + 1)) {
    size_t ne;  // end of the rate's number
    bool per_second;
    if (at >= 2 && s[at - 1] == 't' && s[at - 2] == 'i' && At(s, at + 1, 's')) {
      ne = at - 2;  // "2.95it/s"
      per_second = true;
    } else if (at >= 1 && s[at - 1] == 's' && LiteralAt(s, at + 1, "it") &&
               !(at + 3 < s.size() && IsAlnum(s[at + 3]))) {
      ne = at - 1;  // "1.34s/it"
      per_second = false;
    } else {
      continue;
    }
    const size_t after = per_second ? at + 2 : at + 3;
    if (!(after == s.size() || s[after] == ']' || s[after] == ',')) continue;
    size_t ns = ne;
    while (ns > 0 && (IsDigit(s[ns - 1]) || s[ns - 1] == '.') && ne - ns < 20) --ns;
    double rate = 0;
    if (ns == ne || ReadNumber(s, ns, &rate) != ne - ns || rate <= 0) continue;
    const double seconds = per_second ? 1 / rate : rate;
    if (seconds > kMaxSeconds) continue;
    // "[10:01<12:14, " before the rate; "N/M" before the bracket.
    // The bracket holds only "elapsed<remaining, ": a bounded look back keeps
    // a line of many rates linear.
    const size_t from = ns > kMaxBracket ? ns - kMaxBracket : 0;
    const size_t lb = s.substr(from, ns - from).rfind('[');
    if (lb == kNpos || s.substr(from + lb, ns - from - lb).find('<') == kNpos) continue;
    size_t j = from + lb;
    while (j > 0 && s[j - 1] == ' ' && from + lb - j < 8) --j;
    const size_t m_end = j;
    while (j > 0 && IsDigit(s[j - 1]) && m_end - j < 13) --j;
    if (j == m_end || j == 0 || s[j - 1] != '/') continue;
    uint64_t total = 0;
    scan::ReadUint(s, j, 13, &total);
    const size_t n_end = j - 1;
    size_t n_start = n_end;
    while (n_start > 0 && IsDigit(s[n_start - 1]) && n_end - n_start < 13) --n_start;
    if (n_start == n_end) continue;
    uint64_t n = 0;
    scan::ReadUint(s, n_start, 13, &n);
    const std::string_view desc = s.substr(0, n_start);
    // Bars that are not training steps: data, weights, evaluation.
    if (HasAnyFolded(
            desc, {"eval",   "valid",   "test",  "predict", "infer",   "load",    "map", "download",
                   "upload", "shard",   "token", "filter",  "generat", "process", "sav", "fetch",
                   "resolv", "convert", "sampl", "extract", "compil",  "build"})) {
      return false;
    }
    int64_t step = static_cast<int64_t>(n);
    // Lightning counts batches per epoch: "Epoch 3: ... 450/1000".
    const size_t epoch = desc.find("Epoch ");
    uint64_t e = 0;
    if (epoch != kNpos && scan::ReadUint(desc, epoch + 6, 9, &e) > 0 && total > 0) {
      step = static_cast<int64_t>(e * total + n);
    }
    out->step = step;
    out->seconds = seconds;
    out->form = "tqdm";
    out->total = static_cast<int64_t>(total);
    return true;
  }
  return false;
}

}  // namespace

bool MayHoldStep(std::string_view s) {
  // A time word first: "time", "timing", "ms", "min" ('m'), "sec" ('c'),
  // "took" ('k'), or a '/' ("s/step", "it/s", "450/1000").
  const bool time_word = AnyOfFourBytes(s, 'm', 'c', 'k', '/', [&](size_t p) {
    switch (s[p]) {
      case 'm':
        // "time", "timing" (not "optimizer"); "ms", "min" after a digit,
        // a blank or '_' (not "items", "admin").
        if (HasBefore(s, p, "ti")) return HasAt(s, p + 1, "e") || HasAt(s, p + 1, "ing");
        return (p == 0 || !IsAlpha(s[p - 1])) && (HasAt(s, p + 1, "s") || HasAt(s, p + 1, "in"));
      case 'c':
        return HasBefore(s, p, "se");
      case 'k':
        return HasBefore(s, p, "too");
      default:
        return true;
    }
  });
  if (!time_word) return false;
  // Then a step word: "step"/"Step" ('p'), "iter"/"Iter" ('r'), or a tqdm
  // rate ("it/s", "s/it").
  return AnyOfFourBytes(s, 'p', 'r', '/', '/', [&](size_t p) {
    if (s[p] == '/') {
      return (HasBefore(s, p, "it") && HasAt(s, p + 1, "s")) ||
             (HasBefore(s, p, "s") && HasAt(s, p + 1, "it"));
    }
    if (p < 3 || !HasBefore(s, p, "te")) return false;
    return Lower(s[p - 3]) == (s[p] == 'p' ? 's' : 'i');
  });
}

bool ReadStepTime(std::string_view s, StepTime* out) {
  const StepAt step = FindStep(s);
  if (step.step >= 0) {
    double v = 0;
    const char* form = "";
    if (FindTime(s, step, &v, &form)) {
      // Checkpoint and evaluation lines give a step and a time that is not
      // the step's.
      if (MentionsCheckpointOrEvaluation(s)) return false;
      out->step = step.step;
      out->seconds = v;
      out->form = form;
      out->total = -1;
      return true;
    }
  }
  return ReadTqdm(s, out);
}

}  // namespace casefile::dist::step
