// Internal to the line layer: the recognisers that ParseLinePrefix tries, one
// wrapper family each. Each looks at line[pos] only (never searches for a
// wrapper further on) and either fills a Wrapper and returns true, or returns
// false; on false the Wrapper may hold partial values and is discarded. All
// share one signature so that the driver can keep them in tables.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/line_fields.h"
#include "parse/line/line_prefix.h"

namespace casefile::prefix {

// What one wrapper said. Fields left at their initial value were not said.
struct Wrapper {
  size_t end = 0;     // offset after the wrapper and its separator (> pos on success)
  uint32_t kind = 0;  // WrapperKind bits
  int64_t ts_us = kNoTimestamp;
  double monotonic_s = -1;
  Level level = Level::kUnknown;
  int32_t rank = -1;
  int32_t local_rank = -1;
  std::string_view host;
  int64_t pid = -1;
  int32_t device = -1;
};

// Shared pieces.
// Length of an upper-case level word at s[i] (TRACE DEBUG INFO WARN WARNING
// ERROR CRITICAL FATAL) that ends at a word boundary, or 0; sets *level.
size_t LevelWordAt(std::string_view s, size_t i, Level* level);
// "file.cc:12]" or "launch.py:319:sigkill_handler]" at s[i]: a token without
// blanks, holding ":<digits>", closed by ']'. Returns the offset after ']', or 0.
size_t SourceLocEnd(std::string_view s, size_t i);

using Recogniser = bool (*)(std::string_view line, size_t pos, const TimeContext& ctx, Wrapper& w);

// Launchers and collectors (prefix_launchers.cc).
bool MatchViewerLineNo(std::string_view line, size_t pos, const TimeContext& ctx, Wrapper& w);
bool MatchSrunLabel(std::string_view line, size_t pos, const TimeContext& ctx, Wrapper& w);
bool MatchMpirun(std::string_view line, size_t pos, const TimeContext& ctx, Wrapper& w);
bool MatchTorchRank(std::string_view line, size_t pos, const TimeContext& ctx, Wrapper& w);
// kubectl logs --prefix: "[pod/NAME/CONTAINER] " (host: the pod's name).
bool MatchKubectlPod(std::string_view line, size_t pos, const TimeContext& ctx, Wrapper& w);
bool MatchRay(std::string_view line, size_t pos, const TimeContext& ctx, Wrapper& w);
bool MatchHostPrefix(std::string_view line, size_t pos, const TimeContext& ctx,
                     Wrapper& w);  // NCCL or pdsh
bool MatchCloudExportBar(std::string_view line, size_t pos, const TimeContext& ctx, Wrapper& w);
bool MatchCloudExportLevel(std::string_view line, size_t pos, const TimeContext& ctx, Wrapper& w);
bool MatchProgressBar(std::string_view line, size_t pos, const TimeContext& ctx, Wrapper& w);

// Logging headers (prefix_headers.cc).
bool MatchGlog(std::string_view line, size_t pos, const TimeContext& ctx, Wrapper& w);
bool MatchGlogBracketed(std::string_view line, size_t pos, const TimeContext& ctx, Wrapper& w);
bool MatchIsoTime(std::string_view line, size_t pos, const TimeContext& ctx, Wrapper& w);
bool MatchBracketedIsoTime(std::string_view line, size_t pos, const TimeContext& ctx, Wrapper& w);
bool MatchBracketedLevel(std::string_view line, size_t pos, const TimeContext& ctx, Wrapper& w);
bool MatchPythonLevel(std::string_view line, size_t pos, const TimeContext& ctx, Wrapper& w);
bool MatchVllmHeader(std::string_view line, size_t pos, const TimeContext& ctx, Wrapper& w);
bool MatchSyslog(std::string_view line, size_t pos, const TimeContext& ctx, Wrapper& w);
bool MatchDmesgRaw(std::string_view line, size_t pos, const TimeContext& ctx, Wrapper& w);
bool MatchDmesgCtime(std::string_view line, size_t pos, const TimeContext& ctx, Wrapper& w);
bool MatchPriority(std::string_view line, size_t pos, const TimeContext& ctx, Wrapper& w);

}  // namespace casefile::prefix
