#include "index/schema.h"

#include <string_view>

#include "index/index_reader.h"
#include "index/line_block.h"

namespace casefile {
namespace {

// Appends `name type constraint` for each column, comma separated.
std::string ColumnList(const std::vector<ColumnSpec>& columns) {
  std::string out;
  for (const ColumnSpec& c : columns) {
    if (!out.empty()) out += ", ";
    out += c.name;
    out += ' ';
    out += c.type;
    if (*c.constraint) {
      out += ' ';
      out += c.constraint;
    }
  }
  return out;
}

std::string ViewStatement(const ViewSpec& v) {
  std::string names;
  for (const ColumnSpec& c : v.columns) {
    if (!names.empty()) names += ", ";
    names += c.name;
  }
  return std::string("CREATE VIEW ") + v.name + " (" + names + ") AS " + v.select;
}

}  // namespace

const std::vector<TableSpec>& IndexTables() {
  static const std::vector<TableSpec> kTables = {
      {"meta",
       "Facts about the index itself, as key/value text.",
       {
           {"key", "TEXT", "PRIMARY KEY",
            "schema_version, casefile_version, created_at (UTC, ISO 8601), inputs_identity, "
            "line_block_format, line_marks (see line_blocks.scan_marks), and any key the "
            "indexer sets"},
           {"value", "TEXT", "NOT NULL", "the value, as text"},
       },
       "",
       {}},
      {"bundles",
       "One row per input (a directory or an archive).",
       {
           {"id", "INTEGER", "PRIMARY KEY", "bundle id, 1-based in the order inputs were given"},
           {"name", "TEXT", "NOT NULL", "display name: base name of the input"},
           {"path", "TEXT", "NOT NULL", "the input path as given"},
           {"identity", "TEXT", "NOT NULL",
            "identity of the input at index time (size, mtime, hash)"},
           {"format", "TEXT", "NOT NULL",
            "\"directory\", or libarchive's format and filter names (\"GNU tar format + zstd\", "
            "\"ZIP 2.0 (deflation)\"); empty when unreadable"},
           {"status", "TEXT", "NOT NULL",
            "complete; partial (read only in part: damage or a limit; see error); unreadable "
            "(not a directory or an archive we read; other inputs were indexed)"},
           {"error", "TEXT", "NOT NULL", "why the input is partial; empty when complete"},
           {"host", "TEXT", "", "host named by the bundle's manifest; NULL when none"},
           {"entries", "INTEGER", "NOT NULL", "entries read (files, directories, links)"},
           {"bytes", "INTEGER", "NOT NULL", "decompressed bytes read"},
       },
       "",
       {}},
      {"files",
       "One row per entry of a bundle (files, directories, links).",
       {
           {"id", "INTEGER", "PRIMARY KEY",
            "file id; lines, trace_events... refer to it as file_id"},
           {"bundle_id", "INTEGER", "NOT NULL", "bundles.id"},
           {"path", "TEXT", "NOT NULL", "normalised path inside the bundle"},
           {"kind", "TEXT", "NOT NULL",
            "log, hlo, trace, config, version, sysinfo, manifest, flight_recorder (a PyTorch "
            "flight-recorder dump, JSON or pickle: its rows are in fr_entries and fr_groups), "
            "binary or other (lib/parse/classify/classify.h gives the rules)"},
           {"entry_type", "TEXT", "NOT NULL",
            "file, directory, symlink, hardlink, device or other"},
           {"link_target", "TEXT", "NOT NULL", "target of a link; empty otherwise"},
           {"size", "INTEGER", "NOT NULL", "decompressed bytes read; -1 when unknown"},
           {"mtime", "INTEGER", "NOT NULL", "modification time, seconds since the Unix epoch"},
           {"host", "TEXT", "", "host the file belongs to; NULL when unknown"},
           {"task", "TEXT", "", "task, e.g. worker_3 or slice_0/task_1; NULL when unknown"},
           {"rank", "INTEGER", "", "global rank the file belongs to; NULL when unknown"},
           {"line_count", "INTEGER", "NOT NULL", "lines stored for the file in `lines`"},
           {"gunzipped", "INTEGER", "NOT NULL",
            "1 when the file was gzip-compressed and read decompressed"},
           {"truncated", "INTEGER", "NOT NULL",
            "1 when a limit cut the file short (see ingest_issues)"},
       },
       "",
       {{"files_by_bundle_path", "bundle_id, path", false, "files of a bundle, by path"},
        {"files_by_kind", "kind", false, "files of one kind"}}},
      {"line_blocks",
       "Storage of log lines: consecutive lines of one file, encoded and compressed together "
       "(see \"Line blocks\" below). Read lines through the `lines` virtual table.",
       {
           {"file_id", "INTEGER", "NOT NULL", "files.id"},
           {"block_no", "INTEGER", "NOT NULL", "0-based number of the block within its file"},
           {"first_line", "INTEGER", "NOT NULL", "line number (1-based) of the block's first line"},
           {"line_count", "INTEGER", "NOT NULL", "lines in the block"},
           {"first_offset", "INTEGER", "NOT NULL", "byte offset of the first line in the file"},
           {"min_ts", "INTEGER", "",
            "smallest line timestamp (us since the epoch); NULL when no line has one"},
           {"max_ts", "INTEGER", "",
            "largest line timestamp (us since the epoch); NULL when no line has one"},
           {"scan_marks", "INTEGER", "NOT NULL",
            "what the analysis will look for in the block's lines, noted at ingest (bits of "
            "lib/analyze/line_marks.h; meta `line_marks` holds the version of those tests and of "
            "the rule packs whose hits are marked): an analysis decodes only the blocks its "
            "tests need"},
           {"raw_bytes", "INTEGER", "NOT NULL", "size of the encoded block before compression"},
           {"data", "BLOB", "NOT NULL", "the encoded block, one zstd frame"},
       },
       "",
       {{"line_blocks_by_line", "file_id, first_line", true,
         "the key of a block; finds the block holding a line number, and orders a scan"}}},
      {"trace_events_raw",
       "Events of profiler traces (Chrome trace event format) as stored; read them through "
       "the `trace_events` view, which adds the process and thread names.",
       {
           {"file_id", "INTEGER", "NOT NULL", "files.id of the trace file"},
           {"pid", "TEXT", "NOT NULL",
            "process id as in the trace (numbers and strings both occur)"},
           {"tid", "TEXT", "NOT NULL", "thread id as in the trace"},
           {"process_name", "TEXT", "",
            "process name the parser gave with the event itself; usually NULL"},
           {"thread_name", "TEXT", "",
            "thread name the parser gave with the event itself; usually NULL"},
           {"name", "TEXT", "NOT NULL", "event name"},
           {"category", "TEXT", "NOT NULL", "event category (cat); empty when absent"},
           {"phase", "TEXT", "NOT NULL", "event phase (ph): X, B, E, i, I, C..."},
           {"ts_us", "REAL", "NOT NULL", "event timestamp in microseconds, as in the trace"},
           {"dur_us", "REAL", "", "duration in microseconds; NULL when the event has none"},
           {"args", "TEXT", "NOT NULL", "the event's args as JSON; {} when absent"},
           {"line_no", "INTEGER", "NOT NULL",
            "1-based line of the file where the event object starts (1 for every event of a "
            "trace written on one line)"},
           {"offset", "INTEGER", "NOT NULL",
            "byte offset of the event object in the (decompressed) file"},
       },
       "",
       {{"trace_events_by_thread", "file_id, pid, tid", false,
         "events of one process or thread of a trace"}}},
      {"trace_processes",
       "Process names of traces, from their process_name metadata events.",
       {
           {"file_id", "INTEGER", "NOT NULL", "files.id of the trace file"},
           {"pid", "TEXT", "NOT NULL", "process id as in the trace"},
           {"name", "TEXT", "NOT NULL", "the process name"},
       },
       "PRIMARY KEY (file_id, pid)",
       {}},
      {"trace_threads",
       "Thread names of traces, from their thread_name metadata events.",
       {
           {"file_id", "INTEGER", "NOT NULL", "files.id of the trace file"},
           {"pid", "TEXT", "NOT NULL", "process id as in the trace"},
           {"tid", "TEXT", "NOT NULL", "thread id as in the trace"},
           {"name", "TEXT", "NOT NULL", "the thread name"},
       },
       "PRIMARY KEY (file_id, pid, tid)",
       {}},
      {"hlo_modules",
       "XLA HLO module dumps.",
       {
           {"file_id", "INTEGER", "NOT NULL", "files.id of the dump"},
           {"module_name", "TEXT", "NOT NULL", "HloModule name"},
           {"stage", "TEXT", "NOT NULL",
            "dump stage, e.g. before_optimizations, after_optimizations"},
           {"host", "TEXT", "", "host of the dump; NULL when unknown"},
           {"fingerprint", "TEXT", "NOT NULL", "stable hash of the module text (hex)"},
           {"xla_fingerprint", "TEXT", "", "fingerprint XLA printed in the dump; NULL when absent"},
           {"instruction_count", "INTEGER", "NOT NULL", "HLO instructions in the module"},
           {"computation_count", "INTEGER", "NOT NULL", "computations in the module"},
       },
       "",
       {{"hlo_modules_by_name", "module_name", false, "the same module across hosts"}}},
      {"configs",
       "Flattened configuration values (JSON, YAML-like and key=value files).",
       {
           {"file_id", "INTEGER", "NOT NULL", "files.id of the config file"},
           {"key", "TEXT", "NOT NULL",
            "dotted path, e.g. fp16.enabled, optimizer.params.lr, [0].name"},
           {"value", "TEXT", "NOT NULL", "scalar as text; JSON null is the text null"},
           {"line_no", "INTEGER", "NOT NULL", "line of the value in the file; 0 when unknown"},
       },
       "",
       {{"configs_by_key", "key", false, "one setting across files"}}},
      {"versions",
       "Versions read from version reports (torch collect_env, nvcc, nvidia-smi, gcc, pip, "
       "ds_report, transformers env, jax.print_environment_info(), which -a nvcc, "
       "ls -ld /usr/local/cuda*) and environment dumps (PATH, LD_LIBRARY_PATH, CUDA_HOME, "
       "TORCH_CUDA_ARCH_LIST): one row per fact. The host is the file's.",
       {
           {"file_id", "INTEGER", "NOT NULL", "files.id of the report"},
           {"line_no", "INTEGER", "NOT NULL", "line that printed the fact"},
           {"component", "TEXT", "NOT NULL",
            "what the version is of: torch, torch_cuda, nvcc, driver, driver_cuda, gpu_name, "
            "gpu_compute_capability, gcc, python, os, glibc, cmake, cudnn, nccl, deepspeed, "
            "deepspeed_build, transformers, accelerate, jax, jaxlib, libtpu, numpy, triton, "
            "pip:<package>, cuda_toolkit, nvcc_path, cuda_home, path_cuda, "
            "ld_library_path_cuda, torch_cuda_arch_list (lib/parse/version/version_facts.h)"},
           {"version", "TEXT", "NOT NULL",
            "as printed, decorations removed (\"2.3.0+cu121\", \"12.1\", \"550.54.15\"); "
            "\"\" when the fact is a path that names no release"},
           {"detail", "TEXT", "NOT NULL",
            "which one of a multi-valued component: \"GPU 0\", a toolkit or nvcc path; "
            "\"\" when none"},
           {"source", "TEXT", "NOT NULL",
            "the report: collect_env, nvcc, nvidia_smi, nvidia_smi_csv, ds_report, jax_env, "
            "transformers_env, gcc, pip, conda, which_nvcc, cuda_dirs, env, nccl_log (the version "
            "a process's NCCL printed at run time: nccl_ranks)"},
       },
       "",
       {{"versions_by_component", "component", false, "one component across hosts"}}},
      {"nccl_ranks",
       "Per-rank communicator facts read from NCCL_DEBUG=INFO/WARN output "
       "(lib/parse/dist/comm_lines.cc): one row per process (host, pid) and communicator of a "
       "log file; a process with NCCL lines but no communicator line yet has one row with comm "
       "NULL. Facts of the process (version, driver, network, environment) repeat on each of "
       "its rows.",
       {
           {"file_id", "INTEGER", "NOT NULL", "files.id of the log"},
           {"line_no", "INTEGER", "NOT NULL", "first NCCL line of this process and communicator"},
           {"host", "TEXT", "", "host of the NCCL prefix (host:pid:tid); NULL when none"},
           {"pid", "INTEGER", "NOT NULL", "process id of the NCCL prefix; -1 when none"},
           {"rank", "INTEGER", "", "rank in this communicator (init line); NULL when unknown"},
           {"nranks", "INTEGER", "", "ranks in this communicator; NULL when unknown"},
           {"cuda_dev", "INTEGER", "", "cudaDev of the init line (the local device)"},
           {"nnodes", "INTEGER", "", "nNodes of the communicator, when NCCL prints it"},
           {"comm", "TEXT", "", "communicator pointer (\"0x55d3c0a0b000\")"},
           {"comm_id", "TEXT", "", "commId: the same on every rank of one communicator"},
           {"parent", "TEXT", "", "parent communicator of a split (ncclCommSplit); else NULL"},
           {"bus_id", "TEXT", "", "busId of the init line"},
           {"nccl_version", "TEXT", "", "\"NCCL version X\" the process printed (\"2.19.3\")"},
           {"cuda_runtime", "TEXT", "", "the CUDA version NCCL was built for (+cudaX.Y)"},
           {"cuda_driver", "TEXT", "", "cudaDriverVersion (\"12040\")"},
           {"net", "TEXT", "", "network NCCL chose: IB, Socket, IBext or a plugin's name"},
           {"net_devices", "TEXT", "NOT NULL",
            "devices of the NET/<net> : Using lines, \"IB:mlx5_0,mlx5_1\" or \"Socket:eth0\"; "
            "several networks joined with ; (\"IB:mlx5_0;Socket:eth0\")"},
           {"transports", "TEXT", "NOT NULL",
            "transports of its channel connections, sorted, comma-separated: NET/IB, "
            "NET/Socket, P2P/IPC, P2P/CUMEM, SHM..."},
           {"env", "TEXT", "NOT NULL",
            "variables NCCL reported as set by environment, sorted \"NAME=value\", "
            "comma-separated (a value may itself hold commas: NCCL_IB_HCA=mlx5_0,mlx5_1; split "
            "on \",NCCL_\")"},
           {"channel_lines", "INTEGER", "NOT NULL", "channel, ring and tree lines seen"},
           {"init_line", "INTEGER", "", "line of Init START (or the first comm line)"},
           {"complete_line", "INTEGER", "", "line of Init COMPLETE; NULL when never reached"},
           {"warn_count", "INTEGER", "NOT NULL",
            "NCCL WARN lines of the process that are not benign, and its NCCL error INFO lines "
            "(init failures, error unwinds)"},
           {"first_warn_line", "INTEGER", "", "line of the first of them"},
           {"last_line", "INTEGER", "NOT NULL", "last NCCL line of the process"},
           {"version_line", "INTEGER", "", "the \"NCCL version\" line nccl_version was read from"},
       },
       "",
       {{"nccl_ranks_by_comm", "comm_id", false, "the ranks of one communicator"}}},
      {"trace_comm_stats",
       "Communication statistics of each profiler trace, computed while it is read "
       "(lib/parse/trace/comm_trace_keys.h lists the keys): steady state, step time, "
       "communication share, MapDmaBuffer calls, memory copies, recv-done waits, collective "
       "slack, RPC latency, NCCL kernel time.",
       {
           {"file_id", "INTEGER", "NOT NULL", "files.id of the trace"},
           {"key", "TEXT", "NOT NULL", "statistic (comm_trace_keys.h)"},
           {"value", "REAL", "NOT NULL", "its value; times in microseconds, shares in 0..1"},
           {"detail", "TEXT", "NOT NULL", "text that goes with it; \"\" when none"},
       },
       "",
       {}},
      {"net_links",
       "Network transfers of each trace by (source, destination): count, bytes and latency "
       "(the network-analysis table of the MXLA workflow).",
       {
           {"file_id", "INTEGER", "NOT NULL", "files.id of the trace"},
           {"src", "TEXT", "NOT NULL", "sending endpoint as the trace names it"},
           {"dst", "TEXT", "NOT NULL", "receiving endpoint"},
           {"transfers", "INTEGER", "NOT NULL", "transfers seen"},
           {"bytes", "REAL", "NOT NULL", "bytes moved (0 when the trace gives no size)"},
           {"lat_p50_us", "REAL", "NOT NULL", "median transfer latency, microseconds"},
           {"lat_p90_us", "REAL", "NOT NULL", "90th percentile latency"},
           {"lat_max_us", "REAL", "NOT NULL", "longest transfer"},
           {"lat_mean_us", "REAL", "NOT NULL", "mean latency"},
       },
       "",
       {}},
      {"net_sizes",
       "Transfer-size histogram of each trace: power-of-four buckets [lo_bytes, hi_bytes).",
       {
           {"file_id", "INTEGER", "NOT NULL", "files.id of the trace"},
           {"lo_bytes", "REAL", "NOT NULL", "bucket start (inclusive)"},
           {"hi_bytes", "REAL", "NOT NULL", "bucket end (exclusive)"},
           {"transfers", "INTEGER", "NOT NULL", "transfers in the bucket"},
           {"bytes", "REAL", "NOT NULL", "their bytes"},
       },
       "",
       {}},
      {"net_timeline",
       "Network activity of each trace over time, in equal buckets (at most a few hundred per "
       "trace): bytes started, collectives in flight, busy time, RPC latency.",
       {
           {"file_id", "INTEGER", "NOT NULL", "files.id of the trace"},
           {"t0_us", "REAL", "NOT NULL", "bucket start, trace microseconds"},
           {"t1_us", "REAL", "NOT NULL", "bucket end"},
           {"bytes", "REAL", "NOT NULL", "bytes of transfers that started in the bucket"},
           {"transfers", "INTEGER", "NOT NULL", "transfers that started in the bucket"},
           {"collectives_in_flight", "INTEGER", "NOT NULL",
            "most collectives open at once in the bucket"},
           {"busy_us", "REAL", "NOT NULL",
            "time of the bucket with a transfer or a recv-done open"},
           {"rpc_max_us", "REAL", "NOT NULL",
            "longest RPC that started in the bucket; 0 when none"},
       },
       "",
       {}},
      {"trace_marks",
       "Trace events kept as evidence for communication findings (a bounded number per kind "
       "and trace): steady-state MapDmaBuffer calls, memory copies during receives, the "
       "longest recv-done waits, low-slack collectives, RPC spikes, transfers of slow links.",
       {
           {"file_id", "INTEGER", "NOT NULL", "files.id of the trace"},
           {"kind", "TEXT", "NOT NULL", "why it was kept (lib/parse/trace/comm_trace_keys.h)"},
           {"line_no", "INTEGER", "NOT NULL", "line of the file where the event starts"},
           {"offset", "INTEGER", "NOT NULL", "byte offset of the event object"},
           {"ts_us", "REAL", "NOT NULL", "event time, trace microseconds"},
           {"dur_us", "REAL", "", "duration; NULL when none"},
           {"pid", "TEXT", "NOT NULL", "the event's pid"},
           {"text", "TEXT", "NOT NULL", "the event object as written, cut to 512 bytes"},
           {"detail", "TEXT", "NOT NULL", "per kind: the link, the slack, the receive..."},
       },
       "",
       {{"trace_marks_by_kind", "kind, file_id", false, "the marks of one kind"}}},
      {"template_signatures",
       "Log-line signatures mined at ingest (lib/parse/template): each line of a log (files of "
       "kind log, version and sysinfo) has the signature of its message with variables masked "
       "(`<NUM>`, `<HEX>`, `<IP>`, `<PATH>`; see \"Template masking\" below) and its level. The "
       "pattern "
       "is a function of the text alone, so the same line shape has the same pattern in every "
       "index. `lines.signature_id` refers here.",
       {
           {"id", "INTEGER", "PRIMARY KEY", "signature id, 1-based in order of first occurrence"},
           {"template_id", "INTEGER", "NOT NULL", "templates.id of the template grouping it"},
           {"level", "TEXT", "NOT NULL",
            "level of its lines (trace, debug, info, warning, error, fatal); empty when unknown"},
           {"pattern", "TEXT", "NOT NULL",
            "the masked message, cut to 512 bytes (the signature is told apart by the whole "
            "message, so two signatures may show the same cut pattern); `<overflow>` for the "
            "signature of each level that holds the new shapes beyond 65,536 signatures"},
           {"count", "INTEGER", "NOT NULL", "lines with this signature"},
           {"first_file_id", "INTEGER", "NOT NULL", "files.id of its first line"},
           {"first_line_no", "INTEGER", "NOT NULL", "line number of its first line"},
       },
       "",
       {{"template_signatures_by_template", "template_id", false, "the signatures of a template"}}},
      {"templates",
       "Log templates: signatures of one level and token count that differ only in a few "
       "constant tokens, merged (Drain-style, at the end of ingest) into one pattern with `<*>` "
       "at the differing positions. `lines.template_id` refers here.",
       {
           {"id", "INTEGER", "PRIMARY KEY", "template id, 1-based in order of first occurrence"},
           {"level", "TEXT", "NOT NULL", "level of its lines; empty when unknown"},
           {"pattern", "TEXT", "NOT NULL",
            "the merged pattern (its signature's pattern when it has one), cut to 512 bytes"},
           {"count", "INTEGER", "NOT NULL", "lines of all its signatures"},
           {"signatures", "INTEGER", "NOT NULL", "how many signatures it groups"},
           {"first_file_id", "INTEGER", "NOT NULL", "files.id of its first line"},
           {"first_line_no", "INTEGER", "NOT NULL", "line number of its first line"},
           {"example", "TEXT", "NOT NULL", "the message of its first line, cut to 512 bytes"},
       },
       "",
       {}},
      {"numeric_frames",
       "Rows of Transformers DebugUnderflowOverflow tables found in logs (the report printed "
       "when an inf/nan is detected, and trace-mode batches), one row per tensor row of a frame, "
       "plus one row per detect_overflow line (\"<label> has infs\" / \"has nans\").",
       {
           {"file_id", "INTEGER", "NOT NULL", "files.id of the log"},
           {"line_no", "INTEGER", "NOT NULL", "line of this row"},
           {"report_line_no", "INTEGER", "NOT NULL",
            "line that opened the table (\"Detected inf/nan during batch_number=N\" or "
            "\"*** Starting batch number=N ***\"); the row's own line for detect rows. With "
            "file_id it identifies one table"},
           {"report_kind", "TEXT", "NOT NULL",
            "overflow (a report), trace (a traced batch) or detect (a detect_overflow line)"},
           {"batch", "INTEGER", "",
            "batch number the table names; NULL for detect rows and when the opening line was "
            "not seen"},
           {"frame_index", "INTEGER", "",
            "0-based position of the frame in its table (frames lost to a \"[...]\" elision "
            "are not counted); NULL for detect rows"},
           {"module_line_no", "INTEGER", "",
            "line of the frame's module header row; NULL for detect rows and rows seen before "
            "any header"},
           {"module_path", "TEXT", "NOT NULL",
            "module name in the model, e.g. encoder.block.2.layer.1.dropout; empty for the model "
            "itself and for detect rows"},
           {"module_class", "TEXT", "NOT NULL", "module class, e.g. Dropout; empty when unknown"},
           {"role", "TEXT", "NOT NULL",
            "weight, bias, input[0], output, output[1]… as printed; for detect rows the label "
            "passed to detect_overflow"},
           {"abs_min", "REAL", "",
            "smallest absolute value; +Inf for inf; NULL for nan, None and non-tensor rows"},
           {"abs_max", "REAL", "", "largest absolute value, with the same conventions"},
           {"min_text", "TEXT", "NOT NULL",
            "abs min as printed (1.01e-06, inf, nan); empty for None and non-tensor rows"},
           {"max_text", "TEXT", "NOT NULL",
            "abs max as printed; None or not a tensor for those rows; inf or nan for detect rows"},
           {"host", "TEXT", "",
            "host named by the line's wrappers; NULL when none (then files.host applies)"},
           {"rank", "INTEGER", "",
            "rank named by the line's wrappers ([rankN]:…); NULL when none (then files.rank "
            "applies)"},
       },
       "",
       {}},
      {"metric_chunks",
       "Training metrics read from log lines (loss, grad norm, loss scale, overflow skips), "
       "stored as chunks of consecutive points of one series; read them one point per row "
       "through the `metrics` view. A series is one file, host, rank, metric name and log "
       "form; a chunk holds up to 1024 points and is identified by (file_id, name, form, "
       "first_line), since a line gives a series at most one point. docs/FINDINGS.md (section "
       "numeric) lists the log forms and the names they give.",
       {
           {"file_id", "INTEGER", "NOT NULL", "files.id of the log"},
           {"name", "TEXT", "NOT NULL",
            "metric name: loss, eval_loss, grad_norm, loss_scale, loss_scale.attempted, "
            "loss_scale.reduced_to, loss_scale.at_minimum, overflow_skip, skipped_iterations, "
            "nan_iterations, rerun_check; and step_time, the seconds of one training step "
            "(read by lib/parse/dist/step_time.cc; one series per host, rank and form; the "
            "`step_times` view lists them)"},
           {"form", "TEXT", "NOT NULL",
            "log form the points were read from, e.g. hf_dict, key_value, megatron_iteration, "
            "deepspeed_overflow; for step_time the form of the step line: the key (step_time, "
            "took, rate, elapsed time per iteration...) or \"tqdm total=M\" (an evaluation "
            "bar is told from the training bar by its total)"},
           {"host", "TEXT", "",
            "host named by the lines' wrappers; NULL when none (then files.host applies)"},
           {"rank", "INTEGER", "",
            "rank the message names (\"OVERFLOW! Rank 3\", \"on rank 3\", \"[rank 3]\"), "
            "else the one its wrappers name; NULL when none (then files.rank applies)"},
           {"first_line", "INTEGER", "NOT NULL", "line of the chunk's first point"},
           {"last_line", "INTEGER", "NOT NULL", "line of the chunk's last point"},
           {"point_count", "INTEGER", "NOT NULL", "points in the chunk"},
           {"nonfinite_count", "INTEGER", "NOT NULL", "points whose value is nan, inf or -inf"},
           {"min_value", "REAL", "", "smallest finite value; NULL when none"},
           {"max_value", "REAL", "", "largest finite value; NULL when none"},
           {"points", "BLOB", "NOT NULL",
            "one zstd frame of a JSON array (read it with casefile_points(points), which "
            "gives the text), one [line delta, step delta, \"value\"] per point in line order: "
            "the line is first_line plus the line deltas so far (the first is 0); the step is "
            "null when the line names none, else the sum of the step deltas so far (the first "
            "is the step itself); the value is the text as logged, non-finite values spelled "
            "nan, inf or -inf"},
       },
       "",
       {{"metric_chunks_by_series", "file_id, host, rank, form, name, first_line", false,
         "the chunks of one series in order"},
        {"metric_chunks_by_name", "name", false, "one metric across files"}}},
      {"dist_events",
       "Structured events of distributed runs read from log lines during ingest "
       "(lib/parse/dist): PyTorch ProcessGroupNCCL watchdog and c10d store messages, launcher "
       "failure summaries (torchrun, DeepSpeed, SLURM, MPI), JAX coordination-service errors, "
       "MXLA program progress, step times, crash markers and the rank/host pairs lines reveal. "
       "`kind` says which columns a row sets; docs/FINDINGS.md (section hang) lists the message "
       "forms behind each kind.",
       {
           {"file_id", "INTEGER", "NOT NULL", "files.id of the log"},
           {"line_no", "INTEGER", "NOT NULL", "line that carries the event"},
           {"ts_us", "INTEGER", "", "the line's time (UTC microseconds); NULL when it has none"},
           {"host", "TEXT", "",
            "host named by the line or the message; NULL when none (then files.host applies)"},
           {"rank", "INTEGER", "",
            "global rank named by the line or the message; NULL when none (then files.rank "
            "applies)"},
           {"local_rank", "INTEGER", "",
            "rank within the host, named by the line's wrapper (torchrun's `[default3]:`); "
            "NULL when none. Analyzers map (host, local_rank) to a global rank when the "
            "rank->host map shows each host holding one block of ranks"},
           {"kind", "TEXT", "NOT NULL",
            "watchdog_timeout, work_progress, nccl_failed, watchdog_stuck, store_timeout, "
            "collective_error, cuda_error, launcher_failure, launcher_success, crash, "
            "jax_coordination, "
            "program_progress, rank_host, build_error, nccl_warn, rendezvous_error, "
            "gpu_test "
            "(lib/parse/dist/dist_kinds.h)"},
           {"pg", "TEXT", "", "process group as the message names it: \"0\", \"1(default_pg)\""},
           {"pg_rank", "INTEGER", "",
            "rank inside the process group as the message prints it (`[PG ... Rank k]`)"},
           {"seq", "INTEGER", "",
            "sequence number: the collective's SeqNum / work id, the launch id of program "
            "progress"},
           {"op", "TEXT", "", "collective type (ALLREDUCE, BROADCAST...) or launcher name"},
           {"numel_in", "INTEGER", "", "NumelIn of the collective"},
           {"numel_out", "INTEGER", "", "NumelOut of the collective"},
           {"timeout_ms", "INTEGER", "", "the collective's or barrier's timeout in ms"},
           {"elapsed_ms", "INTEGER", "", "how long it ran before timing out, in ms"},
           {"last_enqueued", "INTEGER", "", "last enqueued work of the group"},
           {"last_completed", "INTEGER", "", "last completed work of the group"},
           {"value", "REAL", "", "per kind: exit code (launcher_failure), signal number..."},
           {"detail", "TEXT", "",
            "text that fits no column: the error, the signal name, the peer task"},
       },
       "",
       {{"dist_events_by_kind", "kind, file_id, line_no", false, "all events of one kind"}}},
      {"fr_entries",
       "Entries of PyTorch flight-recorder dumps (TORCH_NCCL_TRACE_BUFFER_SIZE; one dump per "
       "rank, JSON or pickle): one row per recorded collective or p2p operation.",
       {
           {"file_id", "INTEGER", "NOT NULL", "files.id of the dump"},
           {"rank", "INTEGER", "NOT NULL",
            "rank that wrote the dump: its \"rank\" key, else the digits that end its file "
            "name (nccl_trace_rank_12), else files.rank; -1 when unknown"},
           {"pg_id", "TEXT", "NOT NULL",
            "process group: its name (process_group[0], the key of pg_config, the same on "
            "every rank); the entry's numeric pg_id when it names none"},
           {"pg_desc", "TEXT", "", "process group description (default_pg)"},
           {"record_id", "INTEGER", "NOT NULL",
            "the entry's record_id (its position in the list when it has none)"},
           {"collective_seq_id", "INTEGER", "", "sequence id of a collective in its group"},
           {"p2p_seq_id", "INTEGER", "", "sequence id of a p2p op in its group"},
           {"op", "TEXT", "NOT NULL", "profiling_name: nccl:all_reduce, nccl:send 1->2"},
           {"state", "TEXT", "NOT NULL", "scheduled, started or completed"},
           {"input_sizes", "TEXT", "NOT NULL",
            "compact JSON list of input tensor shapes: [[3,4]]; [] when absent"},
           {"output_sizes", "TEXT", "NOT NULL", "compact JSON list of output tensor shapes"},
           {"input_dtypes", "TEXT", "NOT NULL",
            "compact JSON list of input dtypes (ATen names): [\"Float\"]"},
           {"output_dtypes", "TEXT", "NOT NULL", "compact JSON list of output dtypes"},
           {"timeout_ms", "INTEGER", "", "the op's timeout"},
           {"time_created_ns", "INTEGER", "", "when the op was enqueued (ns since the epoch)"},
           {"is_p2p", "INTEGER", "NOT NULL",
            "1 for send/recv (is_p2p, else a send/recv op name in older dumps)"},
           {"retired", "INTEGER", "NOT NULL", "1 when the entry was retired"},
           {"frame", "TEXT", "",
            "first stack frame (innermost first) outside torch.distributed and "
            "torch.nn.parallel, as \"name at file:line\", else the first frame; NULL when "
            "the entry has no frames (the JSON form has none)"},
           {"line_no", "INTEGER", "NOT NULL",
            "line of the dump where the entry starts (a JSON dump written on one line: 1)"},
       },
       "",
       {{"fr_entries_by_seq", "pg_id, collective_seq_id", false,
         "the same collective across ranks"}}},
      {"fr_groups",
       "Process groups as each flight-recorder dump describes them (pg_config and pg_status).",
       {
           {"file_id", "INTEGER", "NOT NULL", "files.id of the dump"},
           {"rank", "INTEGER", "NOT NULL", "rank that wrote the dump (as in fr_entries)"},
           {"pg_id", "TEXT", "NOT NULL",
            "process group, as fr_entries.pg_id names it: pg_config's key (the group name); "
            "a group only pg_status lists (keyed by numeric id) is named through its entries, "
            "else by that id"},
           {"name", "TEXT", "", "group name"},
           {"desc", "TEXT", "", "group description"},
           {"ranks", "TEXT", "NOT NULL",
            "compact JSON list of the member ranks: [0,1] (dumps write the string \"[0, 1]\"); "
            "[] when unknown"},
           {"last_enqueued", "INTEGER", "", "pg_status last_enqueued_collective"},
           {"last_started", "INTEGER", "", "pg_status last_started_collective"},
           {"last_completed", "INTEGER", "", "pg_status last_completed_collective"},
       },
       "",
       {}},
      {"findings",
       "Findings of the last analysis stored in this index (replaced as a whole by each run).",
       {
           {"id", "INTEGER", "PRIMARY KEY", "1-based, in the order the analysis reported them"},
           {"code", "TEXT", "NOT NULL", "finding code (docs/FINDINGS.md)"},
           {"analyzer", "TEXT", "NOT NULL", "analyzer that emitted it"},
           {"severity", "TEXT", "NOT NULL", "severity name"},
           {"json", "TEXT", "NOT NULL", "the whole finding as JSON (culprits, evidence...)"},
       },
       "",
       {}},
      {"ingest_issues",
       "Everything that could not be read as it should: limits hit, corrupt entries, skipped "
       "records. Nothing is dropped without a row here.",
       {
           {"bundle_id", "INTEGER", "NOT NULL", "bundles.id"},
           {"path", "TEXT", "NOT NULL", "path inside the bundle; empty for the bundle itself"},
           {"offset", "INTEGER", "NOT NULL",
            "byte offset in the entry where it happened; 0 when none"},
           {"kind", "TEXT", "NOT NULL",
            "short machine-readable kind: bundle_unreadable, archive_corrupt (the archive is "
            "damaged or truncated: reading stops, partial; or one run of damaged headers that "
            "could be stepped over, a tar header with a bad checksum: that run is skipped, "
            "partial, and reading resumes at the next sound header), decompression_bomb (a "
            "layer of decompression gave more than bomb_ratio (500) times the compressed bytes "
            "it read, past bomb_floor_bytes (1 GiB); offset is where it was stopped: for the "
            "archive's own compression reading stops, partial; for the gzip of one .gz member "
            "that entry stops, partial, and reading goes on), entry_size_mismatch (an entry "
            "read to its end held another number of bytes than its header declares: the bytes "
            "held are kept, reading goes on), gzip_corrupt, "
            "gzip_not_gzip, entry_truncated, entry_limit, total_limit, entry_unreadable, "
            "duplicate_entry, path_rewritten, path_invalid, line_truncated, config_invalid, "
            "config_too_large, manifest_invalid, trace_* (see lib/parse/trace), "
            "flight_recorder_* (see lib/parse/flight/flight_dump.h)"},
           {"message", "TEXT", "NOT NULL", "what happened, for people"},
       },
       "",
       {}},
  };
  return kTables;
}

const std::vector<ColumnSpec>& LinesVtabColumns() {
  static const std::vector<ColumnSpec> kColumns = {
      {"file_id", "INTEGER", "", "files.id"},
      {"line_no", "INTEGER", "", "1-based line number in the file as read (after gunzip)"},
      {"offset", "INTEGER", "", "byte offset of the line in the file"},
      {"ts_us", "INTEGER", "",
       "timestamp, us since the Unix epoch (UTC); NULL when the line has none"},
      {"level", "TEXT", "", "trace, debug, info, warning, error or fatal; NULL when unknown"},
      {"host", "TEXT", "", "host named by the line or its file; NULL when unknown"},
      {"rank", "INTEGER", "", "global rank; NULL when unknown"},
      {"pid", "INTEGER", "",
       "process id named by the line prefix (NCCL, Ray, syslog); for glog/absl headers the "
       "thread id they print; NULL when unknown"},
      {"flags", "INTEGER", "",
       "bits: 1 truncated, 2 carriage-return frames reduced, 4 ANSI escapes removed, "
       "8 invalid UTF-8 kept, 16 no final newline"},
      {"text", "TEXT", "", "the line, ANSI escapes removed, carriage-return frames reduced"},
      {"message", "TEXT", "", "the text after the line's prefixes (timestamp, level, rank...)"},
      {"signature_id", "INTEGER", "",
       "template_signatures.id of the line; NULL for lines that are not mined (files other than "
       "log, version and sysinfo)"},
      {"template_id", "INTEGER", "", "templates.id of the line's signature; NULL likewise"},
  };
  return kColumns;
}

const std::vector<ViewSpec>& IndexViews() {
  static const std::vector<ViewSpec> kViews = [] {
    std::vector<ColumnSpec> with_path = {
        {"bundle", "TEXT", "", "bundles.name of the line's bundle"},
        {"bundle_id", "INTEGER", "", "bundles.id"},
        {"path", "TEXT", "", "files.path of the line's file"},
    };
    std::string lines_columns;
    for (const ColumnSpec& c : LinesVtabColumns()) {
      with_path.push_back(c);
      lines_columns += std::string(", l.") + c.name;
    }
    return std::vector<ViewSpec>{
        {"trace_events",
         "Events of profiler traces with the names of their process and thread. Names are "
         "stored once per process and thread (not per event), so naming costs no rewrite of "
         "the events.",
         {
             {"file_id", "INTEGER", "", "files.id of the trace file"},
             {"pid", "TEXT", "", "process id as in the trace (numbers and strings both occur)"},
             {"tid", "TEXT", "", "thread id as in the trace"},
             {"process_name", "TEXT", "",
              "name from the trace's process_name metadata; NULL when none"},
             {"thread_name", "TEXT", "",
              "name from the trace's thread_name metadata; NULL when none"},
             {"name", "TEXT", "", "event name"},
             {"category", "TEXT", "", "event category (cat); empty when absent"},
             {"phase", "TEXT", "", "event phase (ph): X, B, E, i, I, C..."},
             {"ts_us", "REAL", "", "event timestamp in microseconds, as in the trace"},
             {"dur_us", "REAL", "", "duration in microseconds; NULL when the event has none"},
             {"args", "TEXT", "", "the event's args as JSON; {} when absent"},
             {"line_no", "INTEGER", "", "line of the file where the event object starts"},
             {"offset", "INTEGER", "", "byte offset of the event object in the file"},
         },
         "SELECT e.file_id, e.pid, e.tid, coalesce(p.name, e.process_name), "
         "coalesce(t.name, e.thread_name), e.name, e.category, e.phase, e.ts_us, e.dur_us, "
         "e.args, e.line_no, e.offset FROM trace_events_raw AS e "
         "LEFT JOIN trace_processes AS p ON p.file_id = e.file_id AND p.pid = e.pid "
         "LEFT JOIN trace_threads AS t ON t.file_id = e.file_id AND t.pid = e.pid "
         "AND t.tid = e.tid"},
        {"metrics",
         "One row per point of `metric_chunks`, decoded with SQLite's json_each, with the "
         "file's host and rank where the line names none.",
         {
             {"file_id", "INTEGER", "", "files.id of the log"},
             {"line_no", "INTEGER", "", "line the value was read from"},
             {"host", "TEXT", "", "host of the line, else of its file; NULL when unknown"},
             {"rank", "INTEGER", "", "rank the line names, else its file's; NULL when unknown"},
             {"step", "INTEGER", "", "step or iteration the line names; NULL when none"},
             {"name", "TEXT", "", "metric name (see metric_chunks.name)"},
             {"value", "REAL", "",
              "the value; +Inf / -Inf for inf; NULL for nan (SQLite has no NaN)"},
             {"value_text", "TEXT", "",
              "the value as logged, non-finite values spelled nan, inf or -inf"},
             {"form", "TEXT", "", "log form the value was read from"},
         },
         "SELECT c.file_id, c.first_line + sum(json_extract(p.value, '$[0]')) OVER w, "
         "coalesce(c.host, f.host), coalesce(c.rank, f.rank), "
         "CASE WHEN json_extract(p.value, '$[1]') IS NULL THEN NULL "
         "ELSE sum(json_extract(p.value, '$[1]')) OVER w END, c.name, "
         "CASE json_extract(p.value, '$[2]') WHEN 'nan' THEN NULL WHEN 'inf' THEN 9e999 "
         "WHEN '-inf' THEN -9e999 ELSE CAST(json_extract(p.value, '$[2]') AS REAL) END, "
         "json_extract(p.value, '$[2]'), c.form FROM metric_chunks AS c "
         "JOIN files AS f ON f.id = c.file_id, json_each(casefile_points(c.points)) AS p "
         "WINDOW w AS (PARTITION BY c.file_id, c.name, c.form, c.first_line ORDER BY p.key "
         "ROWS UNBOUNDED PRECEDING)"},
        {"step_times",
         "One row per training step time: the `metrics` rows named step_time (stored as "
         "metric_chunks series, not one dist_events row per step, so that a run whose every "
         "rank logs every step costs a few bytes per step).",
         {
             {"file_id", "INTEGER", "", "files.id of the log"},
             {"line_no", "INTEGER", "", "line the step time was read from"},
             {"host", "TEXT", "", "host of the line, else of its file; NULL when unknown"},
             {"rank", "INTEGER", "", "rank the line names, else its file's; NULL when unknown"},
             {"step", "INTEGER", "", "the step the line names; NULL when none"},
             {"seconds", "REAL", "", "the step's time in seconds (six significant digits)"},
             {"form", "TEXT", "", "the form of the step line (see metric_chunks.form)"},
         },
         "SELECT file_id, line_no, host, rank, step, value, form FROM metrics "
         "WHERE name = 'step_time'"},
        {"lines_with_path",
         "`lines` joined to `files` and `bundles`, for citing a line by bundle and path.",
         with_path,
         "SELECT b.name, f.bundle_id, f.path" + lines_columns +
             " FROM lines AS l JOIN files AS f ON f.id = l.file_id "
             "JOIN bundles AS b ON b.id = f.bundle_id"},
    };
  }();
  return kViews;
}

std::vector<std::string> SchemaStatements() {
  std::vector<std::string> out;
  for (const TableSpec& t : IndexTables()) {
    std::string sql = std::string("CREATE TABLE ") + t.name + " (" + ColumnList(t.columns);
    if (*t.table_constraint) sql += std::string(", ") + t.table_constraint;
    sql += ")";
    out.push_back(std::move(sql));
  }
  out.push_back(std::string("CREATE VIRTUAL TABLE lines USING ") + kLinesModuleName);
  for (const ViewSpec& v : IndexViews()) out.push_back(ViewStatement(v));
  return out;
}

std::vector<std::string> IndexStatements() {
  std::vector<std::string> out;
  for (const TableSpec& t : IndexTables()) {
    for (const IndexSpec& ix : t.indexes) {
      out.push_back(std::string(ix.unique ? "CREATE UNIQUE INDEX " : "CREATE INDEX ") + ix.name +
                    " ON " + t.name + " (" + ix.columns + ")");
    }
  }
  return out;
}

std::string LinesVtabDeclaration() {
  return "CREATE TABLE x (" + ColumnList(LinesVtabColumns()) + ")";
}

namespace {

void RenderColumns(std::string& md, const std::vector<ColumnSpec>& columns) {
  md += "| column | type | description |\n|---|---|---|\n";
  for (const ColumnSpec& c : columns) {
    md += std::string("| `") + c.name + "` | " + c.type;
    if (*c.constraint) md += std::string(" ") + c.constraint;
    md += std::string(" | ") + c.doc + " |\n";
  }
}

}  // namespace

std::string RenderSchemaMarkdown() {
  std::string md;
  md +=
      "# casefile index schema\n"
      "\n"
      "<!-- Generated from lib/index/schema.cc by RenderSchemaMarkdown(); do not edit by hand.\n"
      "     tests/index/schema_doc_test.cc fails when this file differs and says how to\n"
      "     regenerate it. -->\n"
      "\n"
      "An index is one SQLite file. `PRAGMA user_version` holds the schema version (currently " +
      std::to_string(kIndexSchemaVersion) +
      "); a casefile that reads another version refuses the file and asks for a rebuild. "
      "The same number is in `meta` under `schema_version`.\n"
      "\n"
      "## Conventions\n"
      "\n"
      "- Unknown values are SQL NULL: a line without a timestamp has `ts_us` NULL, an unknown "
      "rank is NULL (not -1), an unknown host is NULL (not ''). The few NOT NULL columns that "
      "use a sentinel instead say so in their description (`files.size` -1, "
      "`configs.line_no` 0).\n"
      "- Text columns hold bytes as read. Log text is not re-encoded: a line with invalid "
      "UTF-8 keeps its bytes (and has flag 8); NUL bytes are kept.\n"
      "- Times: `lines.ts_us` and `line_blocks.min_ts/max_ts` are integer microseconds since "
      "the Unix epoch, UTC; `trace_events.ts_us/dur_us` are the trace's own microseconds (REAL).\n"
      "- Ids are 1-based. Line numbers are 1-based; byte offsets are 0-based.\n"
      "- The index is written once, to a temporary file renamed into place when complete; "
      "only `findings` is rewritten later (by each analysis run).\n"
      "- `casefile query` runs one read-only statement: writes, ATTACH and pragmas that set a "
      "value are refused.\n"
      "- The file also holds SQLite's `sqlite_stat1` (row counts from `ANALYZE` at the end of "
      "the build), so that the query planner drives joins from the small tables.\n"
      "\n"
      "## Tables\n";
  for (const TableSpec& t : IndexTables()) {
    md += std::string("\n### `") + t.name + "`\n\n" + t.doc + "\n\n";
    RenderColumns(md, t.columns);
    if (*t.table_constraint) md += std::string("\nKey: `") + t.table_constraint + "`.\n";
    if (!t.indexes.empty()) {
      md += "\nIndexes:\n\n";
      for (const IndexSpec& ix : t.indexes) {
        md += std::string("- `") + ix.name + "` on `(" + ix.columns + ")`" +
              (ix.unique ? ", unique" : "") + ": " + ix.doc + ".\n";
      }
    }
  }
  md +=
      "\n### `lines` (virtual table)\n"
      "\n"
      "Every stored log line with its metadata, one row per line, decoded from `line_blocks` on "
      "the fly. Declared in the schema as `CREATE VIRTUAL TABLE lines USING " +
      std::string(kLinesModuleName) +
      "`; the module is registered by casefile on every connection it opens, so other SQLite "
      "clients can read every table except `lines` and `lines_with_path` (they report "
      "`no such module`).\n\n";
  RenderColumns(md, LinesVtabColumns());
  md +=
      "\nConstraints on `file_id` (`=`, `<`, `<=`, `>`, `>=`, `IN`), `line_no` (the same and "
      "`BETWEEN`) and `ts_us` (the same) are used to pick blocks: "
      "`WHERE file_id = 3 AND line_no BETWEEN 10 AND 20` decodes one block, and a time range "
      "skips blocks whose `min_ts..max_ts` lies outside it. Without constraints the table is "
      "scanned one block at a time in `(file_id, line_no)` order, in constant memory; "
      "`ORDER BY file_id, line_no` costs nothing.\n"
      "\n"
      "## Views\n";
  for (const ViewSpec& v : IndexViews()) {
    md += std::string("\n### `") + v.name + "`\n\n" + v.doc + "\n\n";
    RenderColumns(md, v.columns);
    md += "\n```sql\n" + ViewStatement(v) + ";\n```\n";
  }
  md +=
      "\n"
      "Joining `lines` to `files` by hand works as `lines_with_path` does, and lets SQLite "
      "drive the scan from `files`:\n"
      "\n"
      "```sql\n"
      "SELECT f.path, l.line_no, l.text\n"
      "  FROM files AS f JOIN lines AS l ON l.file_id = f.id\n"
      " WHERE f.kind = 'log' AND l.level = 'error'\n"
      " ORDER BY f.path, l.line_no;\n"
      "```\n"
      "\n"
      "## Template masking\n"
      "\n"
      "A line's signature (`template_signatures`) is its message (the text after the wrappers, "
      "level and timestamp the line layer strips) with variables masked, and its level. The "
      "message is split on whitespace and rejoined with single spaces (leading and trailing "
      "whitespace dropped); then, left to right:\n"
      "\n"
      "| mask | what | examples |\n"
      "|---|---|---|\n"
      "| `<PATH>` | a token, or its part after an `=`, that starts with `/` (then a letter, "
      "digit, `.`, `_`, `-` or `~`), `./`, `../` or `~/`, or is a relative path of path "
      "characters whose last component has an extension starting with a letter; quotes and "
      "brackets around it, a trailing `,;:.)]}>` and `:<digits>` line and column suffixes stay "
      "outside; URLs (`://`) are not paths, nor is a token in which a mask came before the "
      "first `/` | `\"/a/b/c.py\",` -> `\"<PATH>\",`; `x/run.py:12:` -> `<PATH>:<NUM>:`; "
      "`--dir=/tmp/r1` -> `--dir=<PATH>`; `NET/IB/0` -> `NET/IB/<NUM>` |\n"
      "| `<IP>` | IPv4 `a.b.c.d` (1-3 digits each, no fifth group) with an optional `:port`; "
      "IPv6 starting with a hex digit, with `::` or 8 groups | `10.0.0.1:29500` -> `<IP>`; "
      "`tcp://10.1.2.3:29500` -> `tcp://<IP>`; `[fe80::1]:29500` -> `[<IP>]:<NUM>` |\n"
      "| `<HEX>` | at a word start: `0x` and hex digits; a UUID; a word of 8 or more hex digits "
      "holding a digit and a letter; a whole word of 2 or more hex digits that starts with a "
      "digit and holds a letter (NCCL's `opCount 1a2f`), unless it is an exponent (`1e6`, "
      "`3e-4`) or a `.` or `_` follows | `0x55d3c0a0b000`, `3f2a1b0c`, "
      "`123e4567-e89b-12d3-a456-426614174000`, `opCount 9ff62` -> `<HEX>`; `bf16` -> `bf<NUM>` |\n"
      "| `<NUM>` | a date `yyyy-mm-dd` or `yyyy/mm/dd` with a time after `T` or `_`, or a "
      "time `h:mm:ss` with a fraction and zone, or a C-library date over several words "
      "(`[Day ]Mon D hh:mm:ss[ yyyy]`, as asctime, date, nvidia-smi and syslog print it), as "
      "one mask; else a digit run with its "
      "`.digits` groups and exponent, and a `+`/`-` sign after a non-word character; digits "
      "inside words too | `2024-05-01T12:00:00.123Z` -> `<NUM>`; `lr=-3e-4` -> `lr=<NUM>`; "
      "`2.19.3` -> `<NUM>`; `rank3` -> `rank<NUM>`; `12.5ms` -> `<NUM>ms` |\n"
      "\n"
      "Everything else is kept byte for byte, so `fp16` and `bf16` stay apart. A pattern is "
      "cut to 512 bytes (never inside a mask); the signature is told apart by the whole masked "
      "message. At most 65,536 signatures are kept; a new shape beyond that gets the "
      "`<overflow>` signature of its level and one `ingest_issues` row of kind "
      "`template_limit` names the first such line.\n"
      "\n"
      "Templates are merged once, at the end of ingest: signatures in id order are grouped by "
      "level, token count and first token (a first token holding a mask groups as `<*>`); a "
      "signature joins the first of at most 16 templates of its group whose tokens equal its "
      "own at 60% of the positions or more (a `<*>` position never counts as equal, and two "
      "whole-token masks of different types forbid the merge), the differing positions "
      "becoming `<*>`; otherwise it starts a template. Empty and `<overflow>` signatures are "
      "templates of their own.\n"
      "\n"
      "## Line blocks\n"
      "\n"
      "Lines are not one SQLite row each: one row per line caps the build at about 80 MB/s and "
      "makes the database larger than the logs. Consecutive lines of one file form a block of "
      "at most " +
      std::to_string(kMaxBlockLines) + " lines or " + std::to_string(kMaxBlockTextBytes / 1024) +
      " KiB of text (counting each line's newline; a block also closes when it would name more "
      "than " +
      std::to_string(kMaxBlockHosts) +
      " hosts). A block is stored as one row of `line_blocks`; `data` is a single zstd frame "
      "(level " +
      std::to_string(kBlockZstdLevel) + ") of `raw_bytes` bytes laid out as follows " +
      "(varint: unsigned LEB128; zigzag: signed value mapped to unsigned as "
      "`(v << 1) ^ (v >> 63)`; `n` is the number of lines):\n"
      "\n"
      "1. format version byte (" +
      std::to_string(kBlockFormatVersion) +
      ");\n"
      "2. flags byte: bit 0 set when the text length column (item 14) is present, which happens "
      "only "
      "when some text of the block holds a newline of its own;\n"
      "3. varint `n`;\n"
      "4. varint host count, then each host as varint length and bytes (a host name is "
      "stored cut to " +
      std::to_string(kMaxHostBytes) +
      " bytes);\n"
      "5. `n` zigzag varints: byte offset minus the offset where the line would begin if the "
      "previous line were stored as read (previous offset + previous text length + 1; 0 for the "
      "first line);\n"
      "6. `n` attribute bytes: level in bits 0-2 (0 unknown, 1 trace, 2 debug, 3 info, 4 warning, "
      "5 error, 6 fatal), bit 3 set when the line has a timestamp;\n"
      "7. one zigzag varint per line that has a timestamp: the difference to the previous "
      "timestamp of the block (to 0 for the first);\n"
      "8. `n` zigzag varints: rank + 1 (0: unknown);\n"
      "9. `n` bytes: host, 1-based index into the host table (0: unknown);\n"
      "10. `n` zigzag varints: pid + 1 (0: unknown);\n"
      "11. `n` varints: message start, the byte position in the text where the message begins;\n"
      "12. `n` varints: flags (as in `lines.flags`);\n"
      "13. `n` varints: signature id (`template_signatures.id`; 0: none);\n"
      "14. only when flag bit 0 is set, `n` varints: text length;\n"
      "15. the texts, each followed by a newline (`\\n`), filling the rest of the block. Without "
      "the length column each text runs to the next newline.\n"
      "\n"
      "Columns are stored one after another (not line by line) because each column on its own "
      "is nearly constant and compresses to almost nothing, which leaves zstd to spend its "
      "effort on the text; the texts keep their newlines because zstd finds more matches "
      "across line starts that way than in texts glued together.\n";
  return md;
}

}  // namespace casefile
