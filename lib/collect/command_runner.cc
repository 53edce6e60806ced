#include "collect/command_runner.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "common/error.h"

extern char** environ;

namespace casefile::collect {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kPollSliceMs = 100;

// Closes a descriptor once, whatever path leaves the scope.
class Fd {
 public:
  Fd() = default;
  ~Fd() { Close(); }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  void Close() { Reset(-1); }
  void Reset(int fd) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

struct Pipe {
  Fd read;
  Fd write;
};

void MakePipe(Pipe& p) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    throw Error(ErrorCode::kIo, std::string("cannot create a pipe: ") + std::strerror(errno));
  }
  p.read.Reset(fds[0]);
  p.write.Reset(fds[1]);
}

// The process environment with `overrides` replacing same-named entries.
std::vector<std::string> ChildEnvironment(const std::vector<std::string>& overrides) {
  std::vector<std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string_view entry(*e);
    std::string_view name = entry.substr(0, entry.find('='));
    bool replaced = false;
    for (const auto& o : overrides) {
      if (std::string_view(o).substr(0, o.find('=')) == name) replaced = true;
    }
    if (!replaced) env.emplace_back(entry);
  }
  env.insert(env.end(), overrides.begin(), overrides.end());
  return env;
}

std::vector<char*> Pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// Reads what is available from `fd` into `sink` (up to `cap`, the rest
// dropped). Returns false at end of file or on an error.
bool Drain(int fd, std::string& sink, size_t cap, bool& truncated) {
  char buf[65536];
  while (true) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      size_t room = sink.size() < cap ? cap - sink.size() : 0;
      size_t take = static_cast<size_t>(n) < room ? static_cast<size_t>(n) : room;
      sink.append(buf, take);
      if (take < static_cast<size_t>(n)) truncated = true;
      continue;
    }
    if (n == 0) return false;
    if (errno == EINTR) continue;
    return errno == EAGAIN || errno == EWOULDBLOCK;
  }
}

void RecordStatus(int status, CommandOutcome& outcome) {
  if (WIFEXITED(status)) outcome.exit_status = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) outcome.signal = WTERMSIG(status);
}

// Waits up to `ms` for `pid`; true when it was reaped.
bool WaitFor(pid_t pid, uint32_t ms, CommandOutcome& outcome) {
  auto until = Clock::now() + std::chrono::milliseconds(ms);
  while (true) {
    int status = 0;
    pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) {
      RecordStatus(status, outcome);
      return true;
    }
    if (r < 0 && errno != EINTR) return true;  // not ours any more: nothing to wait for
    if (Clock::now() >= until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace

CommandOutcome RunCommand(const std::vector<std::string>& argv, const RunOptions& options) {
  CommandOutcome outcome;
  outcome.argv = argv;
  if (argv.empty() || argv[0].empty()) {
    outcome.start_error = "empty command";
    return outcome;
  }
  Pipe out;
  Pipe err;
  MakePipe(out);
  MakePipe(err);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out.write.get(), 1);
  posix_spawn_file_actions_adddup2(&actions, err.write.get(), 2);
  if (!options.cwd.empty()) posix_spawn_file_actions_addchdir_np(&actions, options.cwd.c_str());

  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // Its own process group, so that a timeout reaches the whole tree; default
  // signal dispositions and an empty mask, whatever the caller set (a CLI
  // that ignores SIGPIPE must not pass that on).
  sigset_t defaults;
  sigemptyset(&defaults);
  for (int s : {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD, SIGALRM, SIGUSR1, SIGUSR2}) {
    sigaddset(&defaults, s);
  }
  sigset_t empty;
  sigemptyset(&empty);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setsigmask(&attr, &empty);
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);

  std::vector<std::string> args = argv;
  std::vector<std::string> env = ChildEnvironment(options.env_overrides);
  std::vector<char*> arg_ptrs = Pointers(args);
  std::vector<char*> env_ptrs = Pointers(env);

  const auto start = Clock::now();
  pid_t pid = -1;
  int rc = ::posix_spawnp(&pid, args[0].c_str(), &actions, &attr, arg_ptrs.data(), env_ptrs.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  out.write.Close();
  err.write.Close();
  if (rc != 0) {
    outcome.start_error = rc == ENOENT ? "command not found" : std::strerror(rc);
    outcome.duration_ms = static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count());
    return outcome;
  }
  outcome.started = true;
  ::fcntl(out.read.get(), F_SETFL, O_NONBLOCK);
  ::fcntl(err.read.get(), F_SETFL, O_NONBLOCK);

  const auto deadline = start + std::chrono::milliseconds(options.timeout_ms);
  bool out_open = true;
  bool err_open = true;
  bool reaped = false;
  bool stop = false;
  // Read until both pipes close (the command and anything it left behind
  // are done with them) and the command is reaped, or the deadline passes.
  while ((out_open || err_open || !reaped) && !stop) {
    if (options.cancel != nullptr && options.cancel->load()) {
      outcome.cancelled = true;
      break;
    }
    auto now = Clock::now();
    if (now >= deadline) {
      outcome.timed_out = true;
      break;
    }
    int slice = static_cast<int>(std::min<int64_t>(
        kPollSliceMs,
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count() + 1));
    if (out_open || err_open) {
      pollfd fds[2];
      nfds_t n = 0;
      if (out_open) fds[n++] = {out.read.get(), POLLIN, 0};
      if (err_open) fds[n++] = {err.read.get(), POLLIN, 0};
      int ready = ::poll(fds, n, slice);
      if (ready < 0 && errno != EINTR) stop = true;
      if (out_open) {
        out_open =
            Drain(out.read.get(), outcome.out, options.max_output_bytes, outcome.out_truncated);
      }
      if (err_open) {
        err_open =
            Drain(err.read.get(), outcome.err, options.max_output_bytes, outcome.err_truncated);
      }
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (!reaped) {
      int status = 0;
      pid_t r = ::waitpid(pid, &status, WNOHANG);
      if (r == pid) {
        RecordStatus(status, outcome);
        reaped = true;
      } else if (r < 0 && errno != EINTR) {
        reaped = true;
      }
    }
  }
  if (outcome.timed_out || outcome.cancelled || stop) {
    // The group outlives its leader while a member lives, so this also
    // reaches a background process that kept a pipe open.
    ::kill(-pid, SIGTERM);
    if (!reaped) reaped = WaitFor(pid, options.kill_grace_ms, outcome);
    ::kill(-pid, SIGKILL);
    if (!reaped) {
      int status = 0;
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      RecordStatus(status, outcome);
    }
  }
  outcome.duration_ms = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count());
  return outcome;
}

}  // namespace casefile::collect
