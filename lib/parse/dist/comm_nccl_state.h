// The state NcclProcesses (comm_nccl.h) keeps per process and communicator,
// and the readers of the lines that fill it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parse/dist/comm_nccl.h"

namespace casefile::dist {

// The channel connections seen for a communicator: how many channel, ring
// and tree lines, and the set of transports (the frequent ones as bits, so
// that a channel line costs a few compares and no allocation).
struct ConnFacts {
  int64_t channel_lines = 0;
  uint32_t transport_bits = 0;
  std::vector<std::string> other_transports;  // plugins and unknown words

  void AddTransport(std::string_view name);
  void Merge(const ConnFacts& o);
  bool empty() const { return channel_lines == 0 && transport_bits == 0; }
  std::string Render() const;  // sorted, comma-separated
};

struct CommState {
  std::string comm;  // the pointer as printed
  int64_t first_line = 0;
  std::optional<int64_t> rank, nranks, cuda_dev, nnodes;
  std::string comm_id, parent, bus_id;
  std::optional<int64_t> init_line, complete_line;
  // Named by an "Init START" or "nRanks ... nNodes" line: its channel lines
  // follow it, also after Init COMPLETE (connections made at run time).
  bool started = false;
  bool started_by_start = false;  // init_line is its Init START line
  ConnFacts conn;
};

struct NcclProcesses::Process {
  std::string host;
  int64_t pid = -1;
  int32_t wrapper_rank = -1;  // the torch/torchrun wrapper of its first line
  int32_t wrapper_local_rank = -1;
  int64_t first_line = 0;
  int64_t last_line = 0;

  std::string version, cuda_runtime;
  std::optional<int64_t> version_line;
  bool version_own = false;  // from its own INFO banner
  std::string cuda_driver, net;
  std::string net_devices;       // "IB:mlx5_0,mlx5_1", several joined by ';'
  std::vector<std::string> env;  // "NAME=value", deduplicated
  int64_t warn_count = 0;
  std::optional<int64_t> first_warn_line;
  // Its previous NCCL line reported an error: the unwind frames that
  // follow are the same error.
  bool after_error = false;
  // A WARN whose text names no result class ("Error: failed to extend
  // /dev/shm/...", "Proxy Call to rank 2 failed (Connect)"), held until the
  // process's next NCCL line: when that is an unwind frame ("shm.h:41 ->
  // 2") the WARN takes the frame's class, else it is emitted as "warn".
  std::optional<DistEventRow> pending_warn;
  // Its rank in its largest non-split communicator: the global rank of its
  // error rows when no wrapper names one.
  int64_t world_rank = -1;
  int64_t world_nranks = -1;

  std::vector<CommState> comms;
  int current = -1;  // index in comms; -1 none, kOverflow past kMaxComms
  ConnFacts parked;  // channel lines that no open communicator takes yet
  // The transport text of its last channel line ("NET/IB") and its bit: a
  // process's channel lines repeat a few transports, so most lines match
  // it with one compare. Empty when the last one had no bit.
  char last_via[16] = {};
  uint8_t last_via_len = 0;
  uint32_t last_via_bit = 0;
  int64_t dropped_comms = 0;

  static constexpr int kOverflow = -2;

  void SetVersion(std::string_view v, std::string_view cuda, int64_t line_no, bool own);
  // The text after "Channel " / "Ring " ("00/0 : 0[0] -> 1[1] via P2P/IPC"),
  // or empty for a tree line.
  void AddChannel(std::string_view rest);
  // The text after "via " into `target`'s transports.
  void AddVia(ConnFacts& target, std::string_view via);
  // The text after "NET/" ("IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB ...").
  void AddNetDevices(std::string_view rest);
  // "NCCL_X set by environment to V".
  void AddEnv(std::string_view info);
  // "comm 0x... rank R nranks N ..." (the function name removed).
  void AddCommLine(std::string_view text, int64_t line_no);
  void EmitRows(const DistEmitter& out);
};

}  // namespace casefile::dist
