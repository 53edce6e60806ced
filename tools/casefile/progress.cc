#include "progress.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "exit_codes.h"
#include "output.h"

namespace casefile_cli {
namespace {

// Redraws at most this often: the library reports every few MiB, which on a
// fast disk is far more often than anyone can read.
constexpr auto kRedrawEvery = std::chrono::milliseconds(100);

size_t TerminalColumns() {
  winsize ws{};
  if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20) return ws.ws_col;
  return 80;
}

}  // namespace

ProgressDisplay::ProgressDisplay() : enabled_(isatty(STDERR_FILENO) == 1) {}

ProgressDisplay::~ProgressDisplay() { Clear(); }

int ProgressDisplay::Callback(uint64_t bytes_done, const char* current_path, void* payload) {
  if (Interrupted()) return 1;
  auto* self = static_cast<ProgressDisplay*>(payload);
  if (self != nullptr && self->enabled_) {
    // Drawing must not throw into the library (its guard would report an
    // internal error); a failed draw is simply skipped.
    try {
      self->Draw(bytes_done, current_path);
    } catch (...) {
    }
  }
  return 0;
}

void ProgressDisplay::Draw(uint64_t bytes_done, const char* current_path) {
  auto now = std::chrono::steady_clock::now();
  if (drawn_ && now - last_draw_ < kRedrawEvery) return;
  last_draw_ = now;
  std::string head = "indexed " + HumanBytes(bytes_done) + ", current: ";
  std::string path = TerminalSafe(current_path != nullptr ? current_path : "");
  // Keep the line on one row: the end of a long path is the informative part.
  size_t room = TerminalColumns() - 1;
  if (head.size() + path.size() > room) {
    size_t keep = room > head.size() + 3 ? room - head.size() - 3 : 0;
    path = "..." + path.substr(path.size() - std::min(keep, path.size()));
  }
  std::string line = "\r" + head + path + "\x1b[K";
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
  drawn_ = true;
}

void ProgressDisplay::Clear() {
  if (!drawn_) return;
  std::fputs("\r\x1b[K", stderr);
  std::fflush(stderr);
  drawn_ = false;
}

}  // namespace casefile_cli
