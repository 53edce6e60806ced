#include "collect/redactor.h"

#include <string.h>
#include <sys/random.h>

#include <algorithm>
#include <cerrno>
#include <iterator>

#include "collect/host_patterns.h"
#include "collect/named_secrets.h"
#include "collect/secret_patterns.h"
#include "common/error.h"

namespace casefile::collect {
namespace {

// How far before the end of a full window a long line is cut, at the
// least: every detector's evidence and every bounded-length secret fit in
// it, so a match that starts before the cut also ends before the window's
// end and is replaced whole. (A match that would still run past the window
// — an unbounded value, a key body — moves the cut to the window's end and
// is continued in the next window.)
constexpr size_t kCutOverlapBytes = 64 * 1024;
static_assert(kCutOverlapBytes * 4 < kMaxRedactLineBytes);

// When two detectors claim the same bytes, the more specific kind names
// them: HF_TOKEN=hf_... is an hf_token, not a named_secret.
constexpr const char* kKindPriority[] = {
    kRedactPrivateKey,  kRedactHfToken,      kRedactGithubToken, kRedactAwsKeyId,
    kRedactAwsSecret,   kRedactGoogleApiKey, kRedactBearer,      kRedactUrlPassword,
    kRedactVendorToken, kRedactNamedSecret,  kRedactHostname,    kRedactIp,
};

// Kinds are compared by text: an inline constexpr pointer to a literal
// need not have one address across translation units.
bool IsKind(const char* kind, const char* expected) {
  return std::string_view(kind) == std::string_view(expected);
}

int Priority(const char* kind) {
  for (size_t i = 0; i < std::size(kKindPriority); ++i) {
    if (IsKind(kind, kKindPriority[i])) return static_cast<int>(i);
  }
  return static_cast<int>(std::size(kKindPriority));
}

struct Replacement {
  size_t context;
  size_t begin;
  size_t end;
  const char* kind;
  bool counted;  // false for the rest of a secret counted in an earlier window
};

struct ScanInput {
  bool starts_line = true;
  bool in_private_key = false;
  const char* continuation_kind = nullptr;
};

// What a scan of one text (a line, or a window of a long line) found. Kept
// per thread and reused, so scanning allocates only while its buffers grow.
struct LineScan {
  SecretMatches matches;
  SecretMatches resolved;    // matches less what pseudonyms take away
  SecretMatches pseudonyms;  // already redacted: kept as they are
  SecretMatches kept;        // private key markers: kept, not to be cut
  std::vector<KeyBlockEvent> events;
  std::vector<Replacement> replacements;
};

LineScan& ThreadLineScan() {
  thread_local LineScan scan;
  return scan;
}

bool EndsContinuation(char c) { return c == '\0' || strchr(" \t\"',;&)]}<>@\\", c) != nullptr; }

// The first span ending at or after `pos` (spans disjoint and in order).
SecretMatches::const_iterator FirstSpanFrom(const SecretMatches& spans, size_t pos) {
  return std::lower_bound(spans.begin(), spans.end(), pos,
                          [](const SecretMatch& p, size_t at) { return p.end < at; });
}

// Whether text[begin, end) is only blanks and "\n", "\r", "\t" escapes.
bool IsOnlyBlankEscapes(std::string_view text, size_t begin, size_t end) {
  for (size_t i = begin; i < end; ++i) {
    if (IsBlank(text[i])) continue;
    if (text[i] == '\\' && i + 1 < end &&
        (text[i + 1] == 'n' || text[i + 1] == 'r' || text[i + 1] == 't')) {
      ++i;
      continue;
    }
    return false;
  }
  return true;
}

// Appends `m` less the bytes of `spans`, piece by piece. With `text`, a
// piece of only blanks and escapes is no secret and is left out (the "\n"
// after the END marker of a key inside a JSON string).
void SplitAround(const SecretMatches& spans, const SecretMatch& m, SecretMatches& out,
                 std::string_view text = {}) {
  auto add = [&](size_t begin, size_t end) {
    if (begin >= end || (!text.empty() && IsOnlyBlankEscapes(text, begin, end))) return;
    out.push_back({m.context, begin, end, m.kind});
  };
  size_t pos = m.begin;
  for (auto it = FirstSpanFrom(spans, m.begin + 1); it != spans.end() && it->begin < m.end; ++it) {
    add(pos, it->begin);
    pos = std::max(pos, it->end);
  }
  add(pos, m.end);
}

// Pseudonyms already in the text stay as they are, and redacting twice
// changes nothing more. A second pass sees a pseudonym where the first saw
// the secret it replaced, so a match that involves one is judged by what
// the first pass must have done:
//  - Private key content is replaced around the pseudonyms it holds, piece
//    by piece (a second pass then finds only pseudonyms there).
//  - Any other match that holds or reads a pseudonym is dropped: a value
//    the first pass took is a pseudonym as a whole by now, so one that
//    merely holds one was judged no secret ("$" + a token once, now "$<...>"),
//    and a match that reads a pseudonym's edge as its boundary (the '>'
//    now before "--token" where a key id's last letter stood) was not seen
//    by the first pass at all. (A value that held a pseudonym-shaped text
//    from the start is left as it is.)
void ResolvePseudonyms(const SecretMatches& pseudonyms, const SecretMatch& m, SecretMatches& out) {
  // Address checks look two bytes past an edge ("1.2.3.4-1", "==1.2.3.4").
  const size_t reach = IsKind(m.kind, kRedactIp) ? 2 : 0;
  auto touching = FirstSpanFrom(pseudonyms, m.context > reach ? m.context - reach : 0);
  if (touching == pseudonyms.end() || touching->begin > m.end + reach) {
    out.push_back(m);
  } else if (IsKind(m.kind, kRedactPrivateKey)) {
    SplitAround(pseudonyms, m, out);
  }
}

void ScanText(std::string_view text, const ScanInput& in, const RedactorOptions& options,
              LineScan& scan) {
  scan.matches.clear();
  scan.resolved.clear();
  scan.pseudonyms.clear();
  scan.kept.clear();
  scan.events.clear();
  scan.replacements.clear();

  size_t continuation_end = 0;
  if (in.continuation_kind != nullptr) {
    while (continuation_end < text.size() && !EndsContinuation(text[continuation_end])) {
      ++continuation_end;
    }
    if (continuation_end > 0) {
      scan.matches.push_back({0, 0, continuation_end, in.continuation_kind});
    }
  }
  FindPseudonyms(text, scan.pseudonyms);
  FindPrivateKeys(text, in.in_private_key, scan.matches, scan.events);
  // A line inside a key block is replaced whole; nothing else is looked for.
  const bool all_key_body = in.in_private_key && scan.events.empty();
  if (!all_key_body) {
    FindSecrets(text, in.starts_line, scan.matches);
    if (options.hosts) {
      FindIpv4Addresses(text, scan.matches);
      FindIpv6Addresses(text, scan.matches);
      FindHostNames(text, options.host_names, scan.matches);
    }
  }

  // Resolve: keep pseudonyms out, order by start (the specific kind first,
  // then the longer), and merge overlaps into their union so that no byte a
  // detector claimed stays in the output.
  for (const SecretMatch& match : scan.matches) {
    if (match.kind == nullptr) scan.kept.push_back(match);
  }
  for (const SecretMatch& match : scan.matches) {
    if (match.kind != nullptr) ResolvePseudonyms(scan.pseudonyms, match, scan.resolved);
  }
  // Key block markers are structure: a value that runs into one ("TOKEN =
  // -----END ...") is replaced up to it, so the next pass sees the same
  // blocks.
  SecretMatches& m = scan.matches;
  m.clear();
  for (const SecretMatch& match : scan.resolved) SplitAround(scan.kept, match, m, text);
  std::sort(m.begin(), m.end(), [](const SecretMatch& a, const SecretMatch& b) {
    if (a.begin != b.begin) return a.begin < b.begin;
    int pa = Priority(a.kind), pb = Priority(b.kind);
    if (pa != pb) return pa < pb;
    return a.end > b.end;
  });
  for (const SecretMatch& match : m) {
    if (!scan.replacements.empty() && match.begin < scan.replacements.back().end) {
      Replacement& last = scan.replacements.back();
      last.end = std::max(last.end, match.end);
      last.context = std::min(last.context, match.context);
      continue;
    }
    scan.replacements.push_back({match.context, match.begin, match.end, match.kind, true});
  }
  if (continuation_end > 0 && !scan.replacements.empty() && scan.replacements[0].begin == 0) {
    scan.replacements[0].counted = false;
  }
}

// Where a full window may be cut: no replacement, marker or pseudonym may
// have its evidence before the cut and its end after it.
size_t ChooseCut(const LineScan& scan, size_t size) {
  size_t cut = size - kCutOverlapBytes;
  bool moved = true;
  auto push = [&cut, &moved](size_t context, size_t end) {
    if (context < cut && end > cut) {
      cut = end;
      moved = true;
    }
  };
  while (moved) {
    moved = false;
    for (const Replacement& r : scan.replacements) push(r.context, r.end);
    for (const SecretMatch& k : scan.kept) push(k.context, k.end);
    for (const SecretMatch& p : scan.pseudonyms) push(p.begin, p.end);
  }
  return cut;
}

void BeginLine(RedactLineState& state) {
  if (!state.in_private_key) return;
  if (state.private_key_lines >= kMaxPrivateKeyLines) {
    state.in_private_key = false;
    state.private_key_lines = 0;
  } else {
    ++state.private_key_lines;
  }
}

void CommitEvents(const LineScan& scan, size_t cut, RedactLineState& state) {
  for (const KeyBlockEvent& event : scan.events) {
    if (event.pos >= cut) break;
    state.in_private_key = event.in_block;
    state.private_key_lines = 0;
  }
}

std::string_view SecretText(std::string_view text, const Replacement& r, std::string& lowered) {
  std::string_view secret = text.substr(r.begin, r.end - r.begin);
  // Host names and IPv6 hex are case-insensitive: one pseudonym per host.
  if (IsKind(r.kind, kRedactHostname) || IsKind(r.kind, kRedactIp)) {
    lowered.assign(secret);
    std::transform(lowered.begin(), lowered.end(), lowered.begin(), AsciiLower);
    return lowered;
  }
  return secret;
}

}  // namespace

RedactionKey RandomRedactionKey() {
  RedactionKey key;
  size_t filled = 0;
  while (filled < key.size()) {
    ssize_t got = getrandom(key.data() + filled, key.size() - filled, 0);
    if (got < 0) {
      if (errno == EINTR) continue;
      throw Error(ErrorCode::kIo,
                  std::string("redaction key: getrandom failed: ") + strerror(errno));
    }
    filled += static_cast<size_t>(got);
  }
  return key;
}

Redactor::Redactor(const RedactionKey& key, RedactorOptions options)
    : options_(std::move(options)),
      mac_(std::string_view(reinterpret_cast<const char*>(key.data()), key.size())) {
  std::vector<std::string>& names = options_.host_names;
  for (std::string& name : names) {
    std::transform(name.begin(), name.end(), name.begin(), AsciiLower);
  }
  names.erase(std::remove_if(names.begin(), names.end(),
                             [](const std::string& n) { return n.size() < 3 || n.size() > 253; }),
              names.end());
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
}

std::string Redactor::Pseudonym(std::string_view kind, std::string_view secret) const {
  HmacSha256 mac = mac_;
  mac.Update(secret);
  Sha256Digest tag = mac.Final();
  std::string out;
  out.reserve(20 + kind.size());
  out.append("<redacted:").append(kind).append(":").append(HexEncode(tag.data(), 4)).append(">");
  return out;
}

namespace {

// Appends text[0, cut) with the replacements whose evidence starts before
// the cut; returns how many were counted.
size_t AppendRedacted(const Redactor& redactor, std::string_view text, const LineScan& scan,
                      size_t cut, std::string& out, RedactionCounts& counts) {
  size_t pos = 0;
  size_t made = 0;
  std::string lowered;
  for (const Replacement& r : scan.replacements) {
    if (r.context >= cut) continue;
    out.append(text.substr(pos, r.begin - pos));
    out.append(redactor.Pseudonym(r.kind, SecretText(text, r, lowered)));
    pos = r.end;
    if (r.counted) {
      ++counts[r.kind];
      ++made;
    }
  }
  out.append(text.substr(pos, cut - pos));
  return made;
}

}  // namespace

size_t Redactor::RedactLine(std::string_view line, std::string& out, RedactLineState& state,
                            RedactionCounts& counts) const {
  LineScan& scan = ThreadLineScan();
  BeginLine(state);
  ScanText(line, {true, state.in_private_key, nullptr}, options_, scan);
  out.clear();
  size_t made = AppendRedacted(*this, line, scan, line.size(), out, counts);
  CommitEvents(scan, line.size(), state);
  return made;
}

std::string Redactor::RedactEnvValue(std::string_view name, std::string_view value,
                                     RedactionCounts& counts) const {
  SecretKeyClass key_class = ClassifySecretKey(name);
  if (key_class != SecretKeyClass::kNone && !IsNonSecretValue(value, key_class)) {
    // The whole value; named after what it is when a detector knows it
    // (HF_TOKEN=hf_... is an hf_token).
    const char* kind = NamedSecretKind(name, value);
    LineScan& scan = ThreadLineScan();
    ScanText(value, {true, false, nullptr}, options_, scan);
    if (scan.replacements.size() == 1 && scan.replacements[0].begin == 0 &&
        scan.replacements[0].end == value.size()) {
      kind = scan.replacements[0].kind;
    }
    ++counts[kind];
    return Pseudonym(kind, value);
  }
  std::string out;
  StreamRedactor stream(*this, counts);
  stream.Feed(value, out);
  stream.Finish(out);
  return out;
}

StreamRedactor::StreamRedactor(const Redactor& redactor, RedactionCounts& counts)
    : redactor_(redactor), counts_(counts) {}

void StreamRedactor::Feed(std::string_view chunk, std::string& out) {
  size_t pos = 0;
  if (after_cr_ && !chunk.empty()) {
    after_cr_ = false;
    if (chunk[0] == '\n') {
      out.push_back('\n');
      pos = 1;
    }
  }
  // The next LF and CR at or after `pos`, found once each: a long run of CR
  // frames (tqdm) must not rescan the chunk for an LF per frame.
  size_t next_lf = std::string_view::npos, next_cr = std::string_view::npos;
  auto find_from = [&chunk](char c, size_t from) {
    if (from >= chunk.size()) return std::string_view::npos;
    const void* p = memchr(chunk.data() + from, c, chunk.size() - from);
    return p == nullptr ? std::string_view::npos
                        : static_cast<size_t>(static_cast<const char*>(p) - chunk.data());
  };
  bool lf_known = false, cr_known = false;
  while (pos < chunk.size()) {
    if (!lf_known || (next_lf != std::string_view::npos && next_lf < pos)) {
      next_lf = find_from('\n', pos);
      lf_known = true;
    }
    if (!cr_known || (next_cr != std::string_view::npos && next_cr < pos)) {
      next_cr = find_from('\r', pos);
      cr_known = true;
    }
    const size_t term = std::min(next_lf, next_cr);
    if (term == std::string_view::npos) {
      // No terminator in the rest of the chunk: the line goes on.
      std::string_view rest = chunk.substr(pos);
      while (!rest.empty()) {
        if (pending_.size() >= kMaxRedactLineBytes) FlushWindow(out);
        size_t take = std::min(rest.size(), kMaxRedactLineBytes - pending_.size());
        pending_.append(rest.substr(0, take));
        rest.remove_prefix(take);
      }
      return;
    }
    std::string_view body = chunk.substr(pos, term - pos);
    if (pending_.empty() && pending_starts_line_ && continuation_kind_ == nullptr &&
        body.size() <= kMaxRedactLineBytes) {
      // The common case: a whole line inside the chunk, redacted in place.
      BeginLine(state_);
      LineScan& scan = ThreadLineScan();
      ScanText(body, {true, state_.in_private_key, nullptr}, redactor_.options(), scan);
      AppendRedacted(redactor_, body, scan, body.size(), out, counts_);
      CommitEvents(scan, body.size(), state_);
    } else {
      while (!body.empty()) {
        if (pending_.size() >= kMaxRedactLineBytes) FlushWindow(out);
        size_t take = std::min(body.size(), kMaxRedactLineBytes - pending_.size());
        pending_.append(body.substr(0, take));
        body.remove_prefix(take);
      }
      FinishLine(out);
    }
    // The terminator, byte for byte.
    pos = term + 1;
    if (chunk[term] == '\n') {
      out.push_back('\n');
    } else {
      out.push_back('\r');
      if (pos == chunk.size()) {
        after_cr_ = true;
      } else if (chunk[pos] == '\n') {
        out.push_back('\n');
        ++pos;
      }
    }
  }
}

void StreamRedactor::RedactCutToken(std::string& out, size_t from) {
  struct Prefix {
    std::string_view text;
    const char* kind;
  };
  static constexpr Prefix kPrefixes[] = {
      {"github_pat_", kRedactGithubToken},
      {"ghp_", kRedactGithubToken},
      {"gho_", kRedactGithubToken},
      {"ghu_", kRedactGithubToken},
      {"ghs_", kRedactGithubToken},
      {"ghr_", kRedactGithubToken},
      {"hf_", kRedactHfToken},
      {"api_org_", kRedactHfToken},
      {"AKIA", kRedactAwsKeyId},
      {"ASIA", kRedactAwsKeyId},
      {"AIza", kRedactGoogleApiKey},
  };
  // Fewer characters than this after the prefix give away little and are
  // more likely a word ("hf_model") than a cut token.
  constexpr size_t kMinCutChars = 6;
  size_t start = out.size();
  auto token_char = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
  };
  while (start > from && token_char(out[start - 1])) --start;
  const std::string_view word(out.data() + start, out.size() - start);
  if (start > from && token_char(out[start - 1])) return;
  for (const Prefix& p : kPrefixes) {
    if (!word.starts_with(p.text) || word.size() < p.text.size() + kMinCutChars) continue;
    const std::string pseudonym = redactor_.Pseudonym(p.kind, word);
    ++counts_[p.kind];
    out.replace(start, word.size(), pseudonym);
    return;
  }
}

void StreamRedactor::Finish(std::string& out) {
  const size_t from = out.size();
  const bool unterminated = !pending_.empty();
  if (!pending_.empty() || !pending_starts_line_) FinishLine(out);
  if (unterminated) RedactCutToken(out, from);
  pending_.clear();
  pending_starts_line_ = true;
  continuation_kind_ = nullptr;
  state_ = RedactLineState{};
  after_cr_ = false;
}

void StreamRedactor::FinishLine(std::string& out) {
  if (pending_starts_line_) BeginLine(state_);
  LineScan& scan = ThreadLineScan();
  ScanText(pending_, {pending_starts_line_, state_.in_private_key, continuation_kind_},
           redactor_.options(), scan);
  AppendRedacted(redactor_, pending_, scan, pending_.size(), out, counts_);
  CommitEvents(scan, pending_.size(), state_);
  pending_.clear();
  pending_starts_line_ = true;
  continuation_kind_ = nullptr;
}

void StreamRedactor::FlushWindow(std::string& out) {
  if (pending_starts_line_) BeginLine(state_);
  LineScan& scan = ThreadLineScan();
  ScanText(pending_, {pending_starts_line_, state_.in_private_key, continuation_kind_},
           redactor_.options(), scan);
  const size_t size = pending_.size();
  const size_t cut = ChooseCut(scan, size);
  AppendRedacted(redactor_, pending_, scan, cut, out, counts_);
  CommitEvents(scan, cut, state_);
  continuation_kind_ = nullptr;
  if (cut == size) {
    // A secret ran to the window's end: its rest opens the next window. A
    // key block needs no such note; the block state carries it.
    for (const Replacement& r : scan.replacements) {
      if (r.end == size && r.context < cut && !IsKind(r.kind, kRedactPrivateKey)) {
        continuation_kind_ = r.kind;
      }
    }
  }
  pending_.erase(0, cut);
  pending_starts_line_ = false;
}

}  // namespace casefile::collect
