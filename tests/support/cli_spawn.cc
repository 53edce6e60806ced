#include "cli_spawn.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace casefile::test {
namespace {

// argv/envp as posix_spawn wants them: pointers into `strings`, then null.
std::vector<char*> Pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

int WaitFor(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + WTERMSIG(status);
}

// Reads the terminal's master side until the child has closed its side
// (reads then fail with EIO). Draining while the child writes matters: a full
// terminal buffer would block it.
std::string DrainTerminal(int master) {
  std::string out;
  char buf[4096];
  while (true) {
    ssize_t n = read(master, buf, sizeof buf);
    if (n > 0) {
      out.append(buf, static_cast<size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      break;
    }
  }
  return out;
}

}  // namespace

CliRun SpawnCli(const CliSpawn& spawn) {
  std::vector<std::string> argv = {spawn.binary};
  argv.insert(argv.end(), spawn.args.begin(), spawn.args.end());
  std::vector<std::string> envp = spawn.env;
  std::vector<char*> argv_ptrs = Pointers(argv);
  std::vector<char*> env_ptrs = Pointers(envp);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, spawn.err_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  int master = -1;
  int slave = -1;
  if (spawn.stdout_on_terminal) {
    master = posix_openpt(O_RDWR | O_NOCTTY);
    EXPECT_GE(master, 0);
    EXPECT_EQ(grantpt(master), 0);
    EXPECT_EQ(unlockpt(master), 0);
    slave = open(ptsname(master), O_RDWR | O_NOCTTY);
    EXPECT_GE(slave, 0);
    posix_spawn_file_actions_adddup2(&actions, slave, 1);
    posix_spawn_file_actions_addclose(&actions, master);
    posix_spawn_file_actions_addclose(&actions, slave);
  } else {
    posix_spawn_file_actions_addopen(&actions, 1, spawn.out_path.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
  }
  pid_t pid = -1;
  const int rc =
      posix_spawn(&pid, spawn.binary.c_str(), &actions, nullptr, argv_ptrs.data(), env_ptrs.data());
  posix_spawn_file_actions_destroy(&actions);
  CliRun run;
  if (rc != 0) {
    ADD_FAILURE() << "cannot run " << spawn.binary << ": " << std::strerror(rc);
    if (slave >= 0) close(slave);
    if (master >= 0) close(master);
    return run;
  }
  if (spawn.stdout_on_terminal) {
    close(slave);
    run.out = DrainTerminal(master);
    close(master);
  }
  run.code = WaitFor(pid);
  if (!spawn.stdout_on_terminal) run.out = ReadFile(spawn.out_path);
  run.err = ReadFile(spawn.err_path);
  return run;
}

CliRun RunCliInFixedEnv(const std::string& binary, const std::vector<std::string>& args,
                        const TempDir& dir, const std::vector<std::string>& extra_env,
                        const std::string& stdout_name) {
  CliSpawn spawn;
  spawn.binary = binary;
  spawn.args = args;
  spawn.env = {"PATH=/usr/bin:/bin", "HOME=" + dir.path(),
               "CASEFILE_CACHE_DIR=" + dir.Join("cache")};
  spawn.env.insert(spawn.env.end(), extra_env.begin(), extra_env.end());
  spawn.out_path = dir.Join(stdout_name);
  spawn.err_path = dir.Join("stderr.txt");
  return SpawnCli(spawn);
}

}  // namespace casefile::test
