// MXLA program state (kind program_progress): seq = launch id.
//
// The format is INFERRED, not known. The MXLA debugging guide
// (shared/seeds/000_*, README.md) names --vmodule=real_program_continuator=1
// for "verbose TPU program state logs" but shows none. What is known: it is
// a --vmodule switch, so the lines are glog/absl VLOG lines whose header
// names the source file ("I1129 12:00:00.123456   1234
// real_program_continuator.cc:123] ..."), and the same guide spells launch
// ids "launch_id 13650" and "Launch ID: 193". So only lines whose glog
// header names real_program_continuator and whose message carries a launch
// id ("launch_id=N", "launch_id: N", "launch id N", "Launch ID: N") are
// read; seq = N and detail = the message (capped), left to the analyzer to
// compare across hosts. Revisit when a real sample is available.
#include <algorithm>
#include <string>
#include <string_view>

#include "parse/dist/dist_family.h"
#include "parse/dist/dist_kinds.h"
#include "parse/line/scan.h"

namespace casefile::dist {
namespace {

constexpr size_t kNpos = std::string_view::npos;
constexpr size_t kMaxDetail = 256;

inline char Lower(char c) { return scan::IsUpper(c) ? static_cast<char>(c | 0x20) : c; }

// The launch id a message names, or -1.
int64_t LaunchId(std::string_view s) {
  size_t at = 0;
  while ((at = s.find("aunch", at)) != kNpos) {
    const size_t start = at;
    at += 5;
    if (start == 0 || Lower(s[start - 1]) != 'l') continue;
    // "launch_id", "launch id", "Launch ID", "launchId".
    size_t i = start + 5;
    if (scan::At(s, i, '_') || scan::At(s, i, ' ')) ++i;
    if (i + 1 >= s.size() || Lower(s[i]) != 'i' || Lower(s[i + 1]) != 'd') continue;
    i += 2;
    if (i < s.size() && (scan::IsAlnum(s[i]) || s[i] == '_')) continue;  // "launch_identity"
    while (i < s.size() && scan::IsBlank(s[i])) ++i;
    if (scan::At(s, i, ':') || scan::At(s, i, '=')) ++i;
    while (i < s.size() && scan::IsBlank(s[i])) ++i;
    uint64_t v = 0;
    const size_t n = scan::ReadUint(s, i, 18, &v);
    if (n == 0 || (i + n < s.size() && scan::IsDigit(s[i + n]))) continue;
    return static_cast<int64_t>(v);
  }
  return -1;
}

class ProgramProgressFamily : public DistFamily {
 public:
  // Only lines whose message names a launch ("aun", dist_prefilter.h).
  ProgramProgressFamily() : DistFamily(kAnchorLaunch) {}

  bool ReadLine(const LineRecord& line, uint32_t /*anchors*/, const DistEmitter& out) override {
    // The source file is in the glog header, which the line layer left in
    // front of msg_start: a short span to search, and nothing at all for
    // lines without a header.
    const size_t head_end = std::min<size_t>(line.msg_start, line.text.size());
    if (head_end == 0) return false;
    if (line.text.substr(0, head_end).find("real_program_continuator") == kNpos) return false;
    std::string_view msg = line.message();
    const int64_t id = LaunchId(msg);
    if (id < 0) return false;
    while (!msg.empty() && scan::IsBlank(msg.front())) msg.remove_prefix(1);
    size_t n = std::min(msg.size(), kMaxDetail);
    while (n < msg.size() && n > 0 && (static_cast<unsigned char>(msg[n]) & 0xC0) == 0x80) --n;
    DistEventRow row = out.Start(line, kProgramProgress);
    row.seq = id;
    row.detail = std::string(msg.substr(0, n));
    out.Emit(row);
    return false;
  }
};

}  // namespace

std::unique_ptr<DistFamily> MakeProgramProgressFamily() {
  return std::make_unique<ProgramProgressFamily>();
}

}  // namespace casefile::dist
