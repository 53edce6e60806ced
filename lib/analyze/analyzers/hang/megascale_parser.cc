#include "analyze/analyzers/hang/megascale_parser.h"

#include <cstring>
#include <utility>

#include "parse/line/byte_search.h"

namespace casefile::hang {
namespace {

// Header prose wrapped over more lines ("... caused by data input stall on
// the\nfollowing hosts.") is read from at most this many following lines.
constexpr int kMaxProseLines = 2;
// A "{error}" of a halted worker may span lines; it is read up to its "}"
// within this many lines.
constexpr int kMaxErrorLines = 20;
constexpr size_t kMaxCauseBytes = 512;
constexpr size_t kMaxTimeoutBytes = 32;

bool Contains(std::string_view hay, std::string_view needle) {
  return memmem(hay.data(), hay.size(), needle.data(), needle.size()) != nullptr;
}

// The cheap tests run on every line of every log before anything else: one
// vector pass for the byte pairs "ga" (of "Megascale", "MegaScale"), "GA"
// (of "MEGASCALE") and "nr" (of "unrecoverable error"), then a compare at
// each hit. Four memmem() calls per line were half of a 2,048-rank
// analysis; single bytes ('g', 'v') then still hit a few times in every line
// of English words.
enum Mention { kNoMention = 0, kMegascale = 1, kUnrecoverable = 2 };

int Mentions(std::string_view text) {
  int found = kNoMention;
  scan::AnyOfFourPairs(text, {'g', 'a'}, {'G', 'A'}, {'n', 'r'}, {'n', 'r'}, [&](size_t i) {
    if (text[i] == 'n') {
      if (scan::HasAt(text, i, "nrecoverable error")) found |= kUnrecoverable;
    } else if (i >= 1 &&
               (scan::HasAt(text, i - 1, "egascale") || scan::HasAt(text, i - 1, "egaScale") ||
                scan::HasAt(text, i - 1, "EGASCALE"))) {
      found |= kMegascale;
      return true;  // a Megascale line needs no further test
    }
    return false;
  });
  return found;
}

// A line as a parser with no digest open reads it: the digest header it
// opens (and the text that holds it), and whether it mentions Megascale.
struct Opening {
  DigestHeader header = DigestHeader::kNone;
  std::string_view message;
  bool megascale = false;
};

Opening ReadOpening(const ParserLine& line) {
  Opening o;
  const int mentions = Mentions(line.text);
  o.megascale = (mentions & kMegascale) != 0;
  const bool unrecoverable = !o.megascale && (mentions & kUnrecoverable) != 0;
  if (o.megascale || unrecoverable) {
    o.message = line.message;
    o.header = DetectDigestHeader(o.message);
    if (o.header == DigestHeader::kNone && o.message.size() != line.text.size()) {
      o.message = line.text;
      o.header = DetectDigestHeader(o.message);
    }
  }
  return o;
}

std::string Capped(std::string_view s, size_t max) { return std::string(s.substr(0, max)); }

// Skips blanks and one ':' or '=' after a key.
std::string_view SkipSeparator(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  if (i < s.size() && (s[i] == ':' || s[i] == '=')) ++i;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  return s.substr(i);
}

std::optional<int64_t> IntAfterKey(std::string_view s, std::string_view key) {
  size_t p = FindNoCase(s, key);
  if (p == std::string_view::npos) return std::nullopt;
  return ParseInt(SkipSeparator(s.substr(p + key.size())));
}

// Splits a message on the two-character sequence backslash-n, which log
// exports write in place of the newlines of a multi-line message.
std::vector<std::string_view> SplitEscapedNewlines(std::string_view s) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (size_t p = s.find("\\n"); p != std::string_view::npos; p = s.find("\\n", start)) {
    parts.push_back(s.substr(start, p - start));
    start = p + 2;
  }
  parts.push_back(s.substr(start));
  return parts;
}

void AppendWorkers(std::vector<WorkerRef>& to, std::vector<WorkerRef> from) {
  for (auto& w : from) {
    if (to.size() >= kMaxWorkersPerList) return;
    to.push_back(std::move(w));
  }
}

}  // namespace

std::optional<HangReport> ParseHangReport(std::string_view message) {
  constexpr std::string_view kPhrase = "megascale hang detected";
  size_t p = FindNoCase(message, kPhrase);
  if (p == std::string_view::npos) return std::nullopt;
  std::string_view rest = message.substr(p + kPhrase.size());
  // The details follow the phrase at once; a mere mention of the phrase
  // (a grep pattern, a doc string) has none.
  constexpr std::string_view kWaiting = "timed out waiting for";
  size_t q = FindNoCase(rest, kWaiting);
  if (q == std::string_view::npos || q > 8) return std::nullopt;
  std::string_view after = Trim(rest.substr(q + kWaiting.size()));
  size_t n = 0;
  std::optional<int64_t> graphs = ParseInt(after, &n);
  if (!graphs || *graphs < 0) return std::nullopt;
  if (!StartsWithNoCase(Trim(after.substr(n)), "graph")) return std::nullopt;

  HangReport r;
  r.graphs = graphs;
  r.launch_id = IntAfterKey(rest, "launch_id");
  if (!r.launch_id) r.launch_id = IntAfterKey(rest, "launch id");
  r.completed = IntAfterKey(rest, "already completed");
  if (size_t s = FindNoCase(rest, "stepgloballyinprogress"); s != std::string_view::npos) {
    std::string_view v = SkipSeparator(rest.substr(s + 22));
    if (StartsWithNoCase(v, "true")) r.step_in_progress = true;
    if (StartsWithNoCase(v, "false")) r.step_in_progress = false;
  }
  if (size_t t = FindNoCase(rest, "timeout:"); t != std::string_view::npos) {
    std::string_view v = Trim(rest.substr(t + 8));
    size_t end = 0;
    while (end < v.size() && v[end] != ' ' && v[end] != '\t') ++end;
    v = v.substr(0, end);
    while (!v.empty() && (v.back() == '.' || v.back() == ',' || v.back() == ';' ||
                          v.back() == ')' || v.back() == '"' || v.back() == '\'')) {
      v.remove_suffix(1);
    }
    r.timeout = Capped(v, kMaxTimeoutBytes);
  }
  return r;
}

// A worker's report in the message, else in the whole line.
std::optional<HangReport> ReadReport(const ParserLine& line) {
  std::optional<HangReport> r = ParseHangReport(line.message);
  if (!r && line.message.size() != line.text.size()) r = ParseHangReport(line.text);
  return r;
}

bool MegascaleParser::Opens(const ParserLine& line) {
  const Opening o = ReadOpening(line);
  return o.header != DigestHeader::kNone || (o.megascale && ReadReport(line));
}

// State of the digest being read.
struct MegascaleParser::Open {
  HangDigest digest;
  int64_t pid = -1;
  DigestSection section = DigestSection::kNone;
  std::optional<DigestCause> header_cause;
  std::optional<DigestCause> hint;  // from a host-list line's wording
  std::string prose;                // header text for classification
  int prose_lines_left = 0;
  int group = -1;  // index of the current module group
  // A halted worker whose "{error}" has not closed yet.
  int open_error = -1;
  int error_lines_left = 0;

  void AddKeyLine(const ParserLine& line) {
    auto& keys = digest.key_lines;
    if (!keys.empty() && keys.back().line_no == line.line_no) return;
    if (keys.size() < kMaxKeyLinesPerDigest) keys.push_back({line.line_no, std::string(line.text)});
  }
  ModuleGroup* CurrentGroup(bool create) {
    if (group < 0 && create && digest.modules.size() < kMaxModuleGroups) {
      digest.modules.emplace_back();
      group = static_cast<int>(digest.modules.size()) - 1;
    }
    return group < 0 ? nullptr : &digest.modules[group];
  }
  ModuleGroup* NewGroup() {
    group = -1;
    return CurrentGroup(true);
  }
};

MegascaleParser::MegascaleParser() = default;
MegascaleParser::~MegascaleParser() = default;

void MegascaleParser::Feed(const ParserLine& line) {
  last_line_no_ = line.line_no;
  last_no_newline_ = line.no_newline;
  const Opening opening = ReadOpening(line);
  if (opening.header != DigestHeader::kNone) {
    CloseDigest(false);
    StartDigest(line, opening.message, opening.header == DigestHeader::kUnrecoverable);
    return;
  }

  if (open_) {
    const HangDigest& d = open_->digest;
    const bool past_window = line.line_no - d.header.line_no > kDigestWindowLines ||
                             line.line_no - d.last_line > kDigestGapLines;
    if (past_window) {
      CloseDigest(false);
    } else if (open_->pid < 0 || line.pid < 0 || line.pid == open_->pid) {
      if (Contains(line.message, "\\n")) {
        for (std::string_view part : SplitEscapedNewlines(line.message))
          FeedBody(line, part, false);
      } else {
        FeedBody(line, line.message, true);
      }
    }
  }

  if (opening.megascale) {
    if (std::optional<HangReport> r = ReadReport(line)) {
      ++report_count_;
      if (reports_.size() < kMaxReportsPerFile) {
        r->line = {line.line_no, std::string(line.text)};
        r->host = std::string(line.host);
        r->ts_us = line.ts_us;
        reports_.push_back(std::move(*r));
      }
    }
  }
}

void MegascaleParser::StartDigest(const ParserLine& line, std::string_view message,
                                  bool unrecoverable) {
  open_ = std::make_unique<Open>();
  Open& o = *open_;
  o.pid = line.pid;
  o.digest.header = {line.line_no, std::string(line.text)};
  o.digest.last_line = line.line_no;
  o.AddKeyLine(line);

  std::vector<std::string_view> parts = SplitEscapedNewlines(message);
  std::string_view head = parts.front();
  if (unrecoverable) {
    o.digest.cause = DigestCause::kUnrecoverable;
    o.header_cause = DigestCause::kUnrecoverable;
    o.section = DigestSection::kHalted;
  } else {
    size_t at = 0;
    DetectDigestHeader(head, &at);
    std::string_view verdict = head.substr(at);
    if (size_t p = FindNoCase(verdict, "caused by"); p != std::string_view::npos) {
      o.digest.cause_text = Capped(Trim(verdict.substr(p + 9)), kMaxCauseBytes);
    }
    o.prose = Capped(verdict, kMaxCauseBytes);
    o.header_cause = ClassifyCauseText(o.prose);
    if (!o.header_cause) o.prose_lines_left = kMaxProseLines;
  }
  for (size_t i = 1; i < parts.size(); ++i) FeedBody(line, parts[i], false);
}

void MegascaleParser::FeedBody(const ParserLine& line, std::string_view segment, bool whole_line) {
  Open& o = *open_;
  HangDigest& d = o.digest;

  if (o.open_error >= 0) {
    HaltedWorker& h = d.halted[o.open_error];
    std::string_view more = Trim(segment);
    if (h.error.size() + more.size() + 1 <= kMaxErrorBytes) {
      h.error += ' ';
      h.error += more;
    }
    d.last_line = line.line_no;
    if (more.find('}') != std::string_view::npos || --o.error_lines_left <= 0) o.open_error = -1;
    return;
  }

  DigestLine c = ClassifyDigestLine(segment, o.section);
  if (c.kind == DigestLineKind::kNone && whole_line && segment.size() != line.text.size()) {
    // The line-prefix parser may have cut too much or too little; the raw
    // line, less a glog header, is the second opinion.
    c = ClassifyDigestLine(StripGlogHeader(line.text), o.section);
  }
  if (c.kind == DigestLineKind::kNone) {
    if (o.prose_lines_left > 0) {
      --o.prose_lines_left;
      o.prose += ' ';
      o.prose += Capped(Trim(segment), kMaxCauseBytes);
      o.header_cause = ClassifyCauseText(o.prose);
      if (o.header_cause) {
        o.prose_lines_left = 0;
        if (d.cause_text.empty()) {
          if (size_t p = FindNoCase(o.prose, "caused by"); p != std::string::npos) {
            d.cause_text = Capped(Trim(std::string_view(o.prose).substr(p + 9)), kMaxCauseBytes);
          }
        }
      }
    }
    return;
  }
  o.prose_lines_left = 0;
  d.last_line = line.line_no;

  switch (c.kind) {
    case DigestLineKind::kNone:
      break;
    case DigestLineKind::kNamedHosts:
      AppendWorkers(d.named_hosts, ParseWorkerList(c.value));
      if (c.hint && !o.hint) o.hint = c.hint;
      o.section = DigestSection::kNone;
      o.AddKeyLine(line);
      break;
    case DigestLineKind::kFullDigest:
      o.section = DigestSection::kNone;
      break;
    case DigestLineKind::kPotentialCause:
      if (d.potential_cause.empty()) d.potential_cause = Capped(c.value, kMaxCauseBytes);
      o.section = DigestSection::kNone;
      o.AddKeyLine(line);
      break;
    case DigestLineKind::kCulprits:
      if (d.culprit_lists.size() < kMaxWorkersPerList) {
        d.culprit_lists.push_back(ParseWorkerList(c.value));
      }
      o.section = DigestSection::kNone;
      o.AddKeyLine(line);
      break;
    case DigestLineKind::kStatsSection:
      o.section = DigestSection::kStats;
      o.group = -1;
      break;
    case DigestLineKind::kStatesSection:
      o.section = DigestSection::kStates;
      o.group = -1;
      break;
    case DigestLineKind::kFingerprintsSection:
      o.section = DigestSection::kFingerprints;
      o.group = -1;
      break;
    case DigestLineKind::kModule:
      if (o.section != DigestSection::kStats) o.section = DigestSection::kStates;
      if (ModuleGroup* g = o.NewGroup()) g->module = Capped(c.value, kMaxCauseBytes);
      break;
    case DigestLineKind::kFingerprint:
    case DigestLineKind::kLaunchId: {
      if (o.section != DigestSection::kStats) o.section = DigestSection::kStates;
      ModuleGroup* g = o.CurrentGroup(true);
      // A second "Fingerprint:" (or launch id) without a "Module:" starts
      // another group of the same module.
      const bool fp = c.kind == DigestLineKind::kFingerprint;
      if (g && ((fp && !g->fingerprint.empty()) || (!fp && g->launch_id))) {
        std::string module = g->module;
        g = o.NewGroup();
        if (g) g->module = std::move(module);
      }
      if (!g) break;
      if (fp) {
        g->fingerprint = Capped(c.value, kMaxCauseBytes);
      } else {
        g->launch_id = ParseInt(c.value);
      }
      break;
    }
    case DigestLineKind::kStateRow: {
      ModuleGroup* g = o.CurrentGroup(true);
      if (!g) break;
      AppendWorkers(g->workers, ParseWorkerList(c.value));
      if (g->rows.size() < kMaxRowsPerGroup)
        g->rows.push_back({line.line_no, std::string(line.text)});
      break;
    }
    case DigestLineKind::kHostValue: {
      auto& to = o.section == DigestSection::kFingerprints ? d.program_fingerprints : d.tpu_stats;
      std::optional<WorkerRef> w = ParseWorkerRef(c.key);
      if (w && to.size() < kMaxWorkersPerList) {
        to.push_back({std::move(*w),
                      Capped(c.value, kMaxCauseBytes),
                      {line.line_no, std::string(line.text)}});
      }
      break;
    }
    case DigestLineKind::kHaltedRow: {
      std::optional<WorkerRef> w = ParseWorkerRef(c.key);
      if (!w || d.halted.size() >= kMaxWorkersPerList) break;
      d.halted.push_back(
          {std::move(*w), Capped(c.value, kMaxErrorBytes), {line.line_no, std::string(line.text)}});
      if (c.value.starts_with('{') && c.value.find('}') == std::string_view::npos) {
        o.open_error = static_cast<int>(d.halted.size()) - 1;
        o.error_lines_left = kMaxErrorLines;
      }
      o.AddKeyLine(line);
      break;
    }
    case DigestLineKind::kInspectHeader:
      o.section = DigestSection::kInspect;
      o.AddKeyLine(line);
      break;
    case DigestLineKind::kWorkerRow:
      AppendWorkers(d.inspect_workers, ParseWorkerList(c.value));
      o.AddKeyLine(line);
      break;
  }
}

void MegascaleParser::CloseDigest(bool by_eof) {
  if (!open_) return;
  Open& o = *open_;
  HangDigest& d = o.digest;
  if (o.header_cause) {
    d.cause = *o.header_cause;
  } else if (auto c = ClassifyCauseText(d.potential_cause)) {
    d.cause = *c;
  } else if (o.hint) {
    d.cause = *o.hint;
  } else {
    d.cause = DigestCause::kUnknown;
  }
  // Cut short: the file ends on the digest's last line, or on a line the
  // cut broke in two (no final newline) right after it.
  d.cut_by_eof = by_eof && (last_line_no_ == d.last_line ||
                            (last_line_no_ == d.last_line + 1 && last_no_newline_));
  if (digests_.size() < kMaxDigestsPerFile) digests_.push_back(std::move(d));
  open_.reset();
}

void MegascaleParser::Finish() { CloseDigest(true); }

}  // namespace casefile::hang
