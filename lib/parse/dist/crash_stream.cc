#include "parse/dist/crash_stream.h"

namespace casefile::dist::crash {
namespace {

// A stream tag is a short bracketed word: "[default3]", "[trainer12]".
constexpr size_t kMaxTagBytes = 32;

}  // namespace

StreamView StreamOf(const LineRecord& line) {
  StreamView v;
  v.host = line.host;
  v.rank = line.rank;
  v.pid = line.pid;
  // The wrappers are the text before the message; a "[<role>N]:" tag among
  // them ends in "]:" (glog and logging brackets end in "] ").
  const std::string_view wrappers =
      line.text.substr(0, line.msg_start <= line.text.size() ? line.msg_start : line.text.size());
  const size_t close = wrappers.find("]:");
  if (close != std::string_view::npos) {
    const size_t open = wrappers.rfind('[', close);
    if (open != std::string_view::npos && close - open <= kMaxTagBytes) {
      v.tag = wrappers.substr(open, close + 1 - open);
    }
  }
  return v;
}

}  // namespace casefile::dist::crash
