// NCCL_DEBUG output of one log file, line by line (comm_lines.cc hands it
// every line whose message starts with "NCCL "): the per-process facts and
// communicators that become nccl_ranks rows at the end of the file, and the
// nccl_warn rows of NCCL's WARN and error lines, emitted as they are read.
//
// State is per (host, pid) of the NCCL prefix (LineRecord.host/pid). A
// process may hold several communicators (one row each, keyed by the comm
// pointer); the facts of the process (version, driver, network, devices,
// environment, warnings) repeat on each of its rows.
//
// Channel lines go to the process's most recent communicator. NCCL before
// 2.12 or so printed the communicator only at the end of its init ("comm
// 0x... rank R nranks N ... - Init COMPLETE", no START and no "nRanks ...
// nNodes" line): while the most recent communicator of a process is such a
// completed one, channel lines are parked and the next communicator line
// claims them (at the end of the file they go to the most recent
// communicator, or to the comm-less row of a process that never named one).
//
// The "NCCL version X+cudaY" banner has no prefix. It is given to the
// process whose lines carry the same torchrun/torch wrapper ([rankN],
// [defaultN]) when the banner has one; else to the next process of the file
// that has no version yet; and, when every banner of the file agrees, to
// every process still without one at the end (NCCL prints the banner once,
// on rank 0, so the other processes of a host's log share it). A process's
// own INFO banner (NCCL_DEBUG_FILE, <= 2.22) always wins.
//
// Memory is bounded: kMaxProcesses per file (lines of further processes are
// counted in dropped_processes() and not read), kMaxComms per process
// (lines of a further communicator are dropped, its channel lines too, and
// counted in the process's dropped communicators), a few environment
// entries, devices and transports per process.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "parse/dist/dist_family.h"

namespace casefile::dist {

class NcclProcesses {
 public:
  static constexpr size_t kMaxProcesses = 4096;
  static constexpr size_t kMaxComms = 64;
  static constexpr size_t kMaxEnv = 64;
  static constexpr size_t kMaxOtherTransports = 8;
  static constexpr size_t kMaxDetailBytes = 300;

  NcclProcesses();
  ~NcclProcesses();

  // One line whose message starts with "NCCL ".
  void AddLine(const LineRecord& line, const DistEmitter& out);
  // The nccl_ranks rows, processes in the order of their first line.
  void Finish(const DistEmitter& out);

  size_t dropped_processes() const { return dropped_processes_; }

  struct Process;

 private:
  struct Banner {
    std::string version;
    std::string cuda;
    int64_t line_no = 0;
    int32_t rank = -1;
    int32_t local_rank = -1;
  };

  Process* Lookup(const LineRecord& line);
  void ReadBanner(const LineRecord& line, std::string_view msg);
  void ReadInfo(Process& p, const LineRecord& line, std::string_view info, const DistEmitter& out);
  void ReadWarn(Process& p, const LineRecord& line, std::string_view text, const DistEmitter& out);
  void EmitError(Process& p, const LineRecord& line, std::string_view text, const char* op,
                 const DistEmitter& out);
  // Emits the process's held class-less WARN, with the class of `body` when
  // that is an unwind frame.
  void FlushPendingWarn(Process& p, std::string_view body, const DistEmitter& out);

  struct KeyHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  struct KeyEq {
    using is_transparent = void;
    bool operator()(std::string_view a, std::string_view b) const { return a == b; }
  };

  std::vector<std::unique_ptr<Process>> procs_;
  std::unordered_map<std::string, size_t, KeyHash, KeyEq> index_;
  std::string key_;  // reused lookup key: host, '\x1f', pid
  // The last process looked up: consecutive lines of one process (the
  // common case) skip the hash.
  Process* last_ = nullptr;
  std::string last_host_;
  int64_t last_pid_ = -2;
  size_t dropped_processes_ = 0;

  std::vector<Banner> keyed_banners_;  // waiting for the process with their wrapper
  Banner unkeyed_banner_;              // waiting for the next process without a version
  bool unkeyed_pending_ = false;
  Banner first_banner_;
  size_t banners_ = 0;
  bool banners_agree_ = true;
};

}  // namespace casefile::dist
