// Which communication family a trace event belongs to, by its name, thread
// and args (the families of comm_trace.h). Pure functions of one event, no
// state: the aggregator (comm_trace.cc) calls them for every event, so they
// use only string_view searches (no regex, no allocation).
#pragma once

#include <optional>
#include <string_view>

namespace casefile::trace_comm {

// An XLA async op name split into its pairing key and role:
// "all-reduce-start.3" -> {op "all-reduce", suffix ".3", start};
// "recv-done.6" -> {op "recv", suffix ".6", done}; "send.5" -> {op "send",
// suffix ".5", start}. Only communication ops pair (all-reduce, all-gather,
// reduce-scatter, all-to-all, ragged-all-to-all, collective-permute,
// collective-broadcast, send, recv, async); "copy-start" and other local
// async ops are not collectives.
struct AsyncOpName {
  std::string_view op;
  std::string_view suffix;  // ".3", ".3.1" or empty
  bool start = false;       // false: the done
};
std::optional<AsyncOpName> ParseAsyncOp(std::string_view name);

struct EventFamilies {
  bool map_dma = false;      // "MapDmaBuffer" in the name
  bool memory_copy = false;  // "Memory Copy" in the name
  bool receive = false;      // recv/recv-done ops, HostToDevice, "Recv"/"Receive"
  bool recv_done = false;    // the XLA recv-done op
  bool rpc = false;          // "Rpc"/"RPC"/"grpc" in the name
  bool nccl_kernel = false;  // ncclDevKernel_* / ncclKernel_*
  bool step = false;         // on a "Steps" thread, or ProfilerStep#N
  std::optional<AsyncOpName> async;
};
EventFamilies ClassifyEvent(std::string_view name, std::string_view thread_name);

// The endpoints and size a transfer event's args name (comm_trace.h lists
// the keys). Views point into the args text; quoted values are returned
// without their quotes (escapes kept as written).
struct TransferArgs {
  std::string_view src;
  std::string_view dst;
  std::optional<double> bytes;
  bool has_endpoints() const { return !src.empty() && !dst.empty(); }
};
// Reads only the top-level members of the args object in one pass.
TransferArgs ScanTransferArgs(std::string_view args_json);

}  // namespace casefile::trace_comm
