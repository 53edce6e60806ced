// Rows of the index, as the writer takes them and the reader returns them.
// docs/SCHEMA.md documents every table and column; keep the two in step.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/line_fields.h"

namespace casefile {

struct BundleRow {
  int64_t id = 0;
  std::string name;      // display name (base name of the input)
  std::string path;      // the input path as given
  std::string identity;  // BundleIdentity() at index time
  std::string format;    // "directory", "tar", "tar.zst", "zip"… as libarchive named it
  std::string status;    // "complete" or "partial"
  std::string error;     // why partial; empty when complete
  std::optional<std::string> host;  // from the manifest, when present
  int64_t entries = 0;
  int64_t bytes = 0;  // decompressed bytes read
};

struct FileRow {
  int64_t id = 0;
  int64_t bundle_id = 0;
  std::string path;        // normalised path inside the bundle
  std::string kind;        // log, hlo, trace, config, version, sysinfo, manifest,
                           // flight_recorder, binary, other
  std::string entry_type;  // file, directory, symlink, hardlink, device, other
  std::string link_target;
  int64_t size = -1;  // decompressed bytes read
  int64_t mtime = 0;
  std::optional<std::string> host;
  std::optional<std::string> task;  // e.g. "worker_3", "slice_0/task_1"
  std::optional<int64_t> rank;
  int64_t line_count = 0;
  bool gunzipped = false;
  bool truncated = false;  // a limit cut this file short
};

// One stored line. The reader hands out views valid only during a callback.
struct LineRecord {
  int64_t file_id = 0;
  int64_t line_no = 0;  // 1-based, in the file as read (after gunzip)
  uint64_t offset = 0;  // byte offset of the line in the file
  int64_t ts_us = kNoTimestamp;
  Level level = Level::kUnknown;
  int32_t rank = -1;      // -1 = unknown
  std::string_view host;  // empty = unknown
  // Rank within the host (torchrun's "[default3]:"), -1 = unknown. Given to
  // the extractors; line blocks do not store it.
  int32_t local_rank = -1;
  int64_t pid = -1;
  uint32_t msg_start = 0;  // where the message starts in `text` after wrappers
  uint32_t flags = 0;      // LineFlag bits
  // The line's template signature (template_signatures.id): set by ingest
  // (parse/template) before the writer stores the line, filled by
  // IndexReader::ScanLines; 0 = none (a line stored without mining).
  uint32_t signature = 0;
  std::string_view text;  // the line, ANSI removed, \r frames reduced
  std::string_view message() const {
    return text.substr(msg_start <= text.size() ? msg_start : text.size());
  }
};

// One line block without its lines: where it lies in its file and what its
// columns in line_blocks say about them.
struct BlockInfo {
  int64_t first_line = 0;
  int64_t line_count = 0;
  int64_t min_ts = kNoTimestamp;  // kNoTimestamp: no line has a time
  int64_t max_ts = kNoTimestamp;
  uint32_t scan_marks = 0;
  int64_t last_line() const { return first_line + line_count - 1; }
};

struct TraceEventRow {
  int64_t file_id = 0;
  std::string pid;  // as in the trace (ints and strings both occur)
  std::string tid;
  std::optional<std::string> process_name;
  std::optional<std::string> thread_name;
  std::string name;
  std::string category;
  std::string phase;  // X, B, E, i, I, C, ...
  double ts_us = 0;
  std::optional<double> dur_us;
  std::string args_json;  // "{}" when absent
  // Where the event object starts in the trace file: byte offset and 1-based
  // line (traces written on one line give line 1 for every event).
  uint64_t offset = 0;
  int64_t line_no = 0;
  // The event object as written, for evidence; valid only inside the
  // TraceReader callback that delivers the row (not stored; empty after).
  std::string_view raw;
};

struct HloModuleRow {
  int64_t file_id = 0;
  std::string module_name;
  std::string stage;  // before_optimizations, after_optimizations, sm_9.0_gpu_after_optimizations…
  std::optional<std::string> host;
  std::string fingerprint;                     // stable hash of the module text (hex)
  std::optional<std::string> xla_fingerprint;  // fingerprint_before_lhs when present
  int64_t instruction_count = 0;
  int64_t computation_count = 0;
};

struct ConfigRow {
  int64_t file_id = 0;
  std::string key;      // dotted path: "fp16.enabled", "optimizer.params.lr", "[0].name"
  std::string value;    // scalar rendered as text; JSON null -> "null"
  int64_t line_no = 0;  // 0 when unknown
};

// One row of a DebugUnderflowOverflow table (report or trace mode), or one
// detect_overflow line ("<label> has infs"). Text values keep what was
// printed, since SQLite cannot store NaN.
struct NumericFrameRow {
  int64_t file_id = 0;
  int64_t line_no = 0;                    // the row's own line
  int64_t report_line_no = 0;             // "Detected inf/nan ..." / "*** Starting batch ..." line
  std::string report_kind;                // "overflow", "trace" or "detect"
  std::optional<int64_t> batch;           // batch number the table is about
  std::optional<int64_t> frame_index;     // 0-based frame within its table
  std::optional<int64_t> module_line_no;  // line of the frame's module header row
  std::string module_path;                // "encoder.block.2.layer.1.dropout"; "" for the model
  std::string module_class;               // "Dropout"
  std::string role;                       // "weight", "input[0]", "output[1]"…; detect: the label
  std::optional<double> abs_min;          // NULL for nan, None and "not a tensor"
  std::optional<double> abs_max;
  std::string min_text;  // as printed: "1.01e-06", "inf", "nan"; "" when none
  std::string max_text;  // as printed, or "None" / "not a tensor"
  std::optional<std::string> host;
  std::optional<int64_t> rank;
};

// Consecutive values of one metric series (one file, host, rank, metric
// name and log form), points encoded as JSON text (see docs/SCHEMA.md),
// stored compressed (index/metric_points_codec.h).
struct MetricChunkRow {
  int64_t file_id = 0;
  std::string name;  // "loss", "grad_norm", "loss_scale.attempted"…
  std::string form;  // the log form that produced the points: "hf_dict", "megatron_iteration"…
  std::optional<std::string> host;
  std::optional<int64_t> rank;
  int64_t first_line = 0;
  int64_t last_line = 0;
  int64_t point_count = 0;
  int64_t nonfinite_count = 0;
  std::optional<double> min_value;  // smallest finite value; NULL when none
  std::optional<double> max_value;
  std::string points;  // [[line - first_line, step or null, "value text"], ...]
};

// One structured event of a distributed run read from a log line (see
// lib/parse/dist and docs/SCHEMA.md, table dist_events): a collective
// timeout, a process group's progress, a launcher's failure summary, a JAX
// coordination-service error, a step time... `kind` says which columns are
// set; unset optionals are NULL.
struct DistEventRow {
  int64_t file_id = 0;
  int64_t line_no = 0;              // the line that carries the event
  int64_t ts_us = kNoTimestamp;     // the line's time, when it has one
  std::optional<std::string> host;  // named by the line or the message
  std::optional<int64_t> rank;      // global rank, when the line or message names it
  std::string kind;                 // parse/dist/dist_kinds.h
  std::optional<std::string> pg;    // process group ("0", "1(default_pg)")
  std::optional<int64_t> pg_rank;   // rank inside `pg` as the message prints it
  std::optional<int64_t> seq;       // collective sequence number / step / launch id
  std::optional<std::string> op;    // ALLREDUCE, BROADCAST, nccl:all_reduce...
  std::optional<int64_t> numel_in;
  std::optional<int64_t> numel_out;
  std::optional<int64_t> timeout_ms;
  std::optional<int64_t> elapsed_ms;
  std::optional<int64_t> last_enqueued;   // last enqueued work seq of the group
  std::optional<int64_t> last_completed;  // last completed work seq of the group
  std::optional<double> value;            // exit code, step seconds... (per kind)
  std::optional<std::string> detail;      // text that fits no column (error, signal, peer)
  // Rank within the host, when the line's wrapper names it (torchrun's
  // "[default3]:"): set whether or not the global rank is known.
  std::optional<int64_t> local_rank;
};

// One entry of a PyTorch flight-recorder dump (one file per rank): a
// collective or p2p op as the rank recorded it.
struct FrEntryRow {
  int64_t file_id = 0;
  int64_t line_no = 0;                 // line of the dump where the entry starts (evidence)
  int64_t rank = -1;                   // the dump's rank (from its content or file name)
  std::string pg_id;                   // process group id as the dump names it
  std::optional<std::string> pg_desc;  // "default_pg"
  int64_t record_id = 0;
  std::optional<int64_t> collective_seq_id;
  std::optional<int64_t> p2p_seq_id;
  std::string op;           // profiling_name: "nccl:all_reduce"
  std::string state;        // scheduled, started, completed
  std::string input_sizes;  // JSON text: [[3, 4]]
  std::string output_sizes;
  std::string input_dtypes;  // JSON text: ["Float"]
  std::string output_dtypes;
  std::optional<int64_t> timeout_ms;
  std::optional<int64_t> time_created_ns;
  bool is_p2p = false;
  bool retired = false;
  std::optional<std::string> frame;  // top stack frame "all_reduce at x.py:123"
};

// A process group as one flight-recorder dump describes it.
struct FrGroupRow {
  int64_t file_id = 0;
  int64_t rank = -1;
  std::string pg_id;
  std::optional<std::string> name;
  std::optional<std::string> desc;
  std::string ranks;  // JSON text of the member ranks: [0, 1, 2]
  std::optional<int64_t> last_enqueued;
  std::optional<int64_t> last_started;
  std::optional<int64_t> last_completed;
};

// One version fact from a version report or an environment dump
// (parse/version/version_facts.h names the components).
struct VersionRow {
  int64_t file_id = 0;
  int64_t line_no = 0;
  std::string component;
  std::string version;
  std::string detail;
  std::string source;
};

// One process's NCCL communicator as its NCCL_DEBUG=INFO output shows it
// (lib/parse/dist/comm_lines.cc): one row per (file, host, pid, comm). A
// process with NCCL output but no communicator line yet has one row with
// comm unset. Facts of the process (version, driver, network, environment)
// are repeated on each of its communicator rows.
struct NcclRankRow {
  int64_t file_id = 0;
  int64_t line_no = 0;  // first NCCL line of this process and communicator
  std::optional<std::string> host;
  int64_t pid = -1;
  std::optional<int64_t> rank;         // rank in this communicator
  std::optional<int64_t> nranks;       // ranks in this communicator
  std::optional<int64_t> cuda_dev;     // cudaDev of the init line
  std::optional<int64_t> nnodes;       // "nNodes N" (NCCL >= 2.12 or so)
  std::optional<std::string> comm;     // "0x55d3c0a0b000": the communicator pointer
  std::optional<std::string> comm_id;  // "commId 0x49bbd7790311d5eb": shared by all its ranks
  std::optional<std::string> parent;   // split communicators: the parent pointer
  std::optional<std::string> bus_id;
  std::optional<std::string> nccl_version;  // "2.19.3"
  std::optional<int64_t> version_line;      // the "NCCL version ..." line it was read from
  std::optional<std::string> cuda_runtime;  // the "+cuda12.3" of the version line
  std::optional<std::string> cuda_driver;   // "cudaDriverVersion 12040" -> "12040"
  std::optional<std::string> net;           // "Using network IB|Socket|IBext|<plugin>"
  std::string net_devices;  // "IB:mlx5_0,mlx5_1" / "Socket:eth0" ("NET/<x> : Using ...")
  std::string transports;   // sorted, comma-separated: NET/IB, NET/Socket, P2P/IPC, SHM...
  std::string env;  // sorted "NAME=value" of "NAME set by environment to value", comma-separated
  int64_t channel_lines = 0;             // "Channel NN..." connection and ring lines
  std::optional<int64_t> init_line;      // "Init START" (or the first comm line)
  std::optional<int64_t> complete_line;  // "Init COMPLETE"
  int64_t warn_count = 0;
  std::optional<int64_t> first_warn_line;
  int64_t last_line = 0;  // last NCCL line of this process
};

// A communication statistic of one trace file (lib/parse/trace/comm_*):
// key/value rows, the keys listed in lib/parse/trace/comm_trace_keys.h.
struct TraceStatRow {
  int64_t file_id = 0;
  std::string key;
  double value = 0;
  std::string detail;
};

// Transfers between two endpoints seen in one trace file.
struct NetLinkRow {
  int64_t file_id = 0;
  std::string src;
  std::string dst;
  int64_t transfers = 0;
  double bytes = 0;
  double lat_p50_us = 0;
  double lat_p90_us = 0;
  double lat_max_us = 0;
  double lat_mean_us = 0;
};

// Transfer-size histogram bucket of one trace file: [lo, hi) bytes.
struct NetSizeRow {
  int64_t file_id = 0;
  double lo_bytes = 0;
  double hi_bytes = 0;
  int64_t transfers = 0;
  double bytes = 0;
};

// One time bucket of one trace file's network activity.
struct NetTimelineRow {
  int64_t file_id = 0;
  double t0_us = 0;
  double t1_us = 0;
  double bytes = 0;
  int64_t transfers = 0;              // transfers that started in the bucket
  int64_t collectives_in_flight = 0;  // most collectives open at once in the bucket
  double busy_us = 0;                 // time in the bucket with a transfer or recv-done open
  double rpc_max_us = 0;              // longest RPC that started in the bucket
};

// A trace event kept as evidence for a communication finding.
struct TraceMarkRow {
  int64_t file_id = 0;
  std::string kind;  // lib/parse/trace/comm_trace_keys.h
  int64_t line_no = 0;
  int64_t offset = 0;
  double ts_us = 0;
  std::optional<double> dur_us;
  std::string pid;
  std::string text;    // the event object as written, cut to kTraceMarkTextBytes
  std::string detail;  // per kind: the link, the slack, the copy's receive...
};
inline constexpr size_t kTraceMarkTextBytes = 512;

// Log templates (docs/SCHEMA.md, parse/template). A signature is the line's
// message with its variables masked (a pure function of the text, so the same
// line shape has the same signature pattern in every bundle); a template
// groups signatures that differ only in a few constant tokens (Drain-style,
// merged once at the end of ingest), its pattern holding <*> there.
struct TemplateSignatureRow {
  int64_t id = 0;           // 1, 2, 3... in order of first occurrence
  int64_t template_id = 0;  // templates.id
  std::string level;        // LevelName of the lines ("" when unknown)
  std::string pattern;      // masked message, cut to kTemplatePatternBytes
  int64_t count = 0;        // lines with this signature
  int64_t first_file_id = 0;
  int64_t first_line_no = 0;
};

struct TemplateRow {
  int64_t id = 0;             // 1, 2, 3... in order of first occurrence
  std::string level;          // as its signatures'
  std::string pattern;        // merged pattern, cut to kTemplatePatternBytes
  int64_t count = 0;          // lines of all its signatures
  int64_t signatures = 0;     // how many signatures it groups
  int64_t first_file_id = 0;  // the first line of the template (any signature)
  int64_t first_line_no = 0;
  std::string example;  // that line's message, cut to kTemplatePatternBytes
};
inline constexpr size_t kTemplatePatternBytes = 512;

struct IngestIssueRow {
  int64_t bundle_id = 0;
  std::string path;
  int64_t offset = 0;
  std::string kind;
  std::string message;
};

}  // namespace casefile
