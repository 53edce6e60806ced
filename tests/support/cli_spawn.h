// Running a built program (the casefile CLI) as a user runs it, for tests
// that check its stdout, stderr and exit code: a child process started with
// posix_spawn, stdin /dev/null, stderr into a file, stdout into a file or a
// pseudo-terminal. One helper so that every CLI test starts the child, waits
// for it and reads it back the same way.
#pragma once

#include <string>
#include <vector>

#include "test_util.h"

namespace casefile::test {

// What one run gave. `code` is the exit status, 128 + the signal number when
// a signal ended the child, and -1 when it could not be started or waited for.
struct CliRun {
  int code = -1;
  std::string out;
  std::string err;
};

struct CliSpawn {
  std::string binary;             // the program's path, also its argv[0]
  std::vector<std::string> args;  // argv[1..]
  std::vector<std::string> env;   // the child's whole environment, NAME=value each
  std::string out_path;           // receives stdout (not used when stdout_on_terminal)
  std::string err_path;           // receives stderr
  // stdout on a pseudo-terminal, read while the child writes (for colour and
  // pager decisions); stderr stays a file.
  bool stdout_on_terminal = false;
};

// Starts the child, waits for it, reads back what it wrote. A child that
// cannot be started is a test failure (ADD_FAILURE) and an empty CliRun.
CliRun SpawnCli(const CliSpawn& spawn);

// Runs `binary` with `args` in a fixed environment, not the test's, so that
// nothing of the machine running the tests (XLA_FLAGS, tokens, plugin paths)
// leaks in: PATH=/usr/bin:/bin, HOME=<dir>, CASEFILE_CACHE_DIR=<dir>/cache,
// then `extra_env` in order. stdout goes to <dir>/<stdout_name>, stderr to
// <dir>/stderr.txt.
CliRun RunCliInFixedEnv(const std::string& binary, const std::vector<std::string>& args,
                        const TempDir& dir, const std::vector<std::string>& extra_env = {},
                        const std::string& stdout_name = "stdout.txt");

}  // namespace casefile::test
