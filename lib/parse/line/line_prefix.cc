#include "parse/line/line_prefix.h"

#include <span>

#include "parse/line/ansi.h"
#include "parse/line/prefix_wrappers.h"
#include "parse/line/scan.h"

namespace casefile {
namespace {

using prefix::Recogniser;
using prefix::Wrapper;

// More stacked wrappers than this is not a real prefix; it also bounds the
// work on a hostile line.
constexpr int kMaxWrappers = 10;

// Recognisers by the first byte of the wrapper, tried in order; the first
// that matches wins. The order matters only where two families share a first
// byte: the more specific shape comes first ("[rank3]:" before "[80746] ",
// "INFO 10-18 …" before "INFO:root:").
constexpr Recogniser kOnBracket[] = {
    prefix::MatchKubectlPod,       prefix::MatchTorchRank,  prefix::MatchMpirun,
    prefix::MatchViewerLineNo,     prefix::MatchDmesgRaw,   prefix::MatchGlogBracketed,
    prefix::MatchBracketedIsoTime, prefix::MatchDmesgCtime, prefix::MatchBracketedLevel,
};
constexpr Recogniser kOnDigit[] = {prefix::MatchIsoTime, prefix::MatchSrunLabel,
                                   prefix::MatchHostPrefix};
constexpr Recogniser kOnUpper[] = {
    prefix::MatchGlog,       prefix::MatchSyslog,      prefix::MatchCloudExportLevel,
    prefix::MatchVllmHeader, prefix::MatchPythonLevel, prefix::MatchHostPrefix,
};
constexpr Recogniser kOnLower[] = {prefix::MatchHostPrefix};
constexpr Recogniser kOnBlank[] = {prefix::MatchCloudExportBar, prefix::MatchSrunLabel};
constexpr Recogniser kOnParen[] = {prefix::MatchRay};
constexpr Recogniser kOnAngle[] = {prefix::MatchPriority};

std::span<const Recogniser> RecognisersFor(char c) {
  if (c == '[') return kOnBracket;
  if (scan::IsDigit(c)) return kOnDigit;
  if (scan::IsUpper(c)) return kOnUpper;
  if (scan::IsLower(c)) return kOnLower;
  if (c == ' ' || c == '|') return kOnBlank;
  if (c == '(') return kOnParen;
  if (c == '<') return kOnAngle;
  return {};
}

bool MatchAt(std::string_view line, size_t pos, const TimeContext& ctx, Wrapper& w) {
  for (Recogniser match : RecognisersFor(line[pos])) {
    w = Wrapper{};
    if (match(line, pos, ctx, w)) return true;
  }
  // A progress bar can start with anything (its description), so it is tried
  // last, whatever the first byte.
  w = Wrapper{};
  return prefix::MatchProgressBar(line, pos, ctx, w);
}

// Colour codes in front of a wrapper ("[36m(RayWorkerWrapper pid=1)…").
size_t SkipColours(std::string_view line, size_t pos) {
  for (int k = 0; k < 4 && pos < line.size(); ++k) {
    const char c = line[pos];
    if (c != '\x1b' && c != '[') break;
    const size_t len = AnsiSequenceAt(line, pos);
    if (len == 0) break;
    pos += len;
  }
  return pos;
}

// Inner wrappers override outer ones (see ParseLinePrefix).
void Merge(const Wrapper& w, LinePrefix& out) {
  out.wrappers |= w.kind;
  if (w.ts_us != kNoTimestamp) out.ts_us = w.ts_us;
  if (w.monotonic_s >= 0) out.monotonic_s = w.monotonic_s;
  if (w.level != Level::kUnknown) out.level = w.level;
  if (w.rank >= 0) out.rank = w.rank;
  if (w.local_rank >= 0) out.local_rank = w.local_rank;
  if (!w.host.empty()) out.host = w.host;
  if (w.pid >= 0) out.pid = w.pid;
  if (w.device >= 0) out.device = w.device;
}

}  // namespace

LinePrefix ParseLinePrefix(std::string_view line, const TimeContext& ctx) {
  LinePrefix out;
  size_t pos = 0;
  for (int k = 0; k < kMaxWrappers && pos < line.size(); ++k) {
    // A colour code counts only when a wrapper follows it: a line that is
    // just coloured text keeps msg_start 0.
    const size_t at = SkipColours(line, pos);
    if (at >= line.size()) break;
    Wrapper w;
    if (!MatchAt(line, at, ctx, w) || w.end <= pos) break;
    Merge(w, out);
    pos = w.end;
  }
  out.msg_start = static_cast<uint32_t>(pos);
  return out;
}

}  // namespace casefile
