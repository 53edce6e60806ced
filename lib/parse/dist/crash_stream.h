// Which output stream a log line belongs to, for messages that span lines
// (a Python traceback, "terminate called ..." then "  what(): ..."): lines
// of several ranks interleave in one file, and only the line's wrappers tell
// them apart.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "index/index_types.h"

namespace casefile::dist::crash {

// A view of a line's stream: the host, rank and pid its wrappers named, and
// the tag of a wrapper that names a stream without a global rank (torchrun's
// "[default3]:", whose 3 is a local rank: LineRecord keeps no local rank).
struct StreamView {
  std::string_view host;
  int32_t rank = -1;
  int64_t pid = -1;
  std::string_view tag;
};

StreamView StreamOf(const LineRecord& line);

// The same, owned, to remember a stream across lines.
struct StreamKey {
  std::string host;
  int32_t rank = -1;
  int64_t pid = -1;
  std::string tag;

  StreamKey() = default;
  explicit StreamKey(const StreamView& v) : host(v.host), rank(v.rank), pid(v.pid), tag(v.tag) {}
  bool Is(const StreamView& v) const {
    return rank == v.rank && pid == v.pid && host == v.host && tag == v.tag;
  }
};

}  // namespace casefile::dist::crash
