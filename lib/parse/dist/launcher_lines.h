// One-line launcher reports of a failed worker: DeepSpeed's launch.py
// sigkill_handler (formats.md 5.2) and srun's task exits. Internal to
// lib/parse/dist (launcher_summary.cc drives them).
#pragma once

#include <string_view>

#include "parse/dist/dist_family.h"

namespace casefile::dist::launcher {

// "[...] [ERROR] [launch.py:325:sigkill_handler] ['/x/python', '-u', 'a.py',
// '--local_rank=1', ...] exits with return code = -6". Emits one event (the
// local rank from --local_rank=N, --local-rank=N or "--local_rank', 'N" in
// the command) and returns true when `msg` is one.
bool ParseDeepSpeedExit(const LineRecord& line, std::string_view msg, const DistEmitter& out);

// "srun: error: node-7: task 12: Exited with exit code 1", "srun: error:
// node-7: tasks 0-3,5: Killed", "...: Segmentation fault (core dumped)",
// "...: Out Of Memory". One event per task (rank = task id, host = the
// node); returns true when `msg` is one.
bool ParseSrunTaskExit(const LineRecord& line, std::string_view msg, const DistEmitter& out);

}  // namespace casefile::dist::launcher
