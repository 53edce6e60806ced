// The indexing progress line on stderr: "\r"-updated while a terminal
// watches, silent otherwise (logs and pipes get only the final summary).
#pragma once

#include <chrono>
#include <cstdint>

namespace casefile_cli {

class ProgressDisplay {
 public:
  ProgressDisplay();  // enabled when stderr is a terminal
  ~ProgressDisplay();
  ProgressDisplay(const ProgressDisplay&) = delete;
  ProgressDisplay& operator=(const ProgressDisplay&) = delete;

  // A casefile_progress_fn; `payload` is the ProgressDisplay. Returns
  // non-zero (abort) once SIGINT was received.
  static int Callback(uint64_t bytes_done, const char* current_path, void* payload);
  // Erases the progress line, if one was drawn.
  void Clear();

 private:
  void Draw(uint64_t bytes_done, const char* current_path);

  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point last_draw_{};
};

}  // namespace casefile_cli
