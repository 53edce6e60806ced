// The temporary files an index is built in: "<index>.tmp-<pid>-<random>"
// beside the final path (the same directory, so the final rename is atomic).
// A writer killed before its rename leaves one behind; the next writer of
// the same index removes those whose owner is gone, and never the file of a
// writer still running, in this process or another.
#pragma once

#include <string>

namespace casefile {

// A fresh temporary path for `final_path`, named with this process's id.
// Throws Error(kIo) when no free name is found.
std::string TempIndexPathFor(const std::string& final_path);

// Removes the temporary files of `final_path` left by dead writers: the pid
// in the name is not a live process (kill(pid, 0) says ESRCH) and nobody
// holds an SQLite lock on the file (a writer in another pid namespace, whose
// pid means nothing here, still holds its lock). Returns how many were
// removed; errors are ignored (a file that cannot be removed stays).
int RemoveStaleIndexTemporaries(const std::string& final_path);

}  // namespace casefile
