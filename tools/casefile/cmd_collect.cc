// casefile collect: pack this host's logs, dumps, traces, configs, version
// and system outputs into one redacted, verifiable .tar.zst.
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "args.h"
#include "commands.h"
#include "exit_codes.h"
#include "output.h"

namespace casefile_cli {

const char kCollectHelp[] =
    R"(Usage: casefile collect -o OUT.tar.zst [options]

Gathers what a failure analysis needs from this host into one bundle (tar +
zstd), with the manifest casefile.json first: the logs, HLO dumps, traces and
configs named by the options, what the environment points at, the outputs of
version and system commands (collect_env, nvidia-smi, nvcc, pip, dmesg, ...),
and the environment variables the analyzers read. Secrets are replaced by
stable pseudonyms unless --no-redact is given; no redaction changes the
number of lines. Run it on every host (srun, mpirun, gcloud ... --worker=all)
and give all the bundles to 'casefile analyze'. docs/BUNDLE_FORMAT.md
describes the bundle, the redaction rules and what is looked for.

Inputs (each may be given several times; a PATH is a file, a directory,
walked recursively, or a glob pattern):
  --logs PATH           log files
  --hlo-dump PATH       XLA dump directory (default: --xla_dump_to= in
                        XLA_FLAGS)
  --traces PATH         profiler traces
  --config PATH         configs (DeepSpeed, HF, YAML, ...)
  --tensorboard-dir DIR pack DIR/plugins/profile/ as traces
  --job-cmdline FILE    the failed job's command line (a text file, or
                        /proc/PID/cmdline): the configs it names are packed
  PyTorch flight-recorder dumps are found from TORCH_NCCL_DEBUG_INFO_TEMP_FILE
  (default prefix /tmp/nccl_trace_rank_).

Options:
  -o, --output FILE     the bundle to write; '-' writes it to stdout (not
                        a terminal)
  --label KEY=VALUE     a label for the manifest (repeatable)
  --host NAME           the host name to record (default: this host's)
  --since DURATION      leave out files found in directories, by globs or by
                        discovery that were not modified in the last
                        DURATION (30m, 6h, 2d; a number alone is seconds)
  --max-bytes N         cap the packed bytes (uncompressed): the largest logs
                        keep their last part, then files are left out; the
                        manifest says what was cut
  --timeout DURATION    per command (default 20s; 500ms, 1m, ...)
  --no-versions         run no version or system command
  --no-discover         do not look at XLA_FLAGS and the flight-recorder
                        prefix
  --no-redact           pack everything as it is
  --redact-hosts        also replace host names and IP addresses
  --redact-key-file F   share pseudonyms across hosts: every host given the
                        same key file (at least 16 bytes) gives a secret the
                        same pseudonym; the key is never packed
  --deterministic       fixed mtimes, ownership and created_at: the same
                        inputs give a byte-identical bundle (with
                        --no-versions, since command outputs change, and
                        --redact-key-file when secrets are redacted)
  --dry-run             list what would be packed, skipped and redacted on
                        stdout; write nothing, run no command
  --zstd-level N        1..22 (default 3)
  --threads N           zstd worker threads (default: CPUs, at most 4)
  -h, --help            show this help

Exit codes:
  0  the bundle was written (or listed) and everything was collected
  2  usage error
  3  the bundle was written, but something could not be collected whole
     (each is printed as a warning and listed in the manifest's errors);
     or the output could not be written
  4  internal error
  130  interrupted (no bundle is left behind)
)";

namespace {

const char* const kRepeated[] = {"logs", "hlo-dump", "traces", "config", "label"};

// Args keeps one value per flag, so the repeatable flags are taken out
// first; the rest goes through Args for validation.
CommandArgs TakeRepeated(const CommandArgs& argv,
                         std::map<std::string, std::vector<std::string>>& out) {
  CommandArgs rest;
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& arg = argv[i];
    if (arg == "--") {
      rest.insert(rest.end(), argv.begin() + static_cast<long>(i), argv.end());
      break;
    }
    if (arg == "-o") {
      rest.push_back("--output");
      continue;
    }
    bool taken = false;
    for (const char* name : kRepeated) {
      const std::string flag = std::string("--") + name;
      if (arg == flag) {
        if (i + 1 >= argv.size())
          throw UsageError("collect", "option '" + flag + "' needs a value");
        out[name].push_back(argv[++i]);
        taken = true;
      } else if (arg.compare(0, flag.size() + 1, flag + "=") == 0) {
        out[name].push_back(arg.substr(flag.size() + 1));
        taken = true;
      }
      if (taken) break;
    }
    if (!taken) rest.push_back(arg);
  }
  return rest;
}

std::string ReadKeyFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw CliError(kExitInput, "cannot read the redaction key file " + path);
  std::string key(4096, '\0');
  in.read(key.data(), static_cast<std::streamsize>(key.size()));
  key.resize(static_cast<size_t>(in.gcount()));
  if (key.size() < 16) {
    throw UsageError("collect", "the redaction key file " + path +
                                    " holds fewer than 16 bytes (e.g. openssl rand -hex 32 > " +
                                    path + ")");
  }
  return key;
}

struct CollectResultFree {
  void operator()(casefile_collect_result* r) const { casefile_collect_result_free(r); }
};

// The progress line on stderr, redrawn while a terminal watches.
class CollectProgress {
 public:
  CollectProgress() : enabled_(isatty(STDERR_FILENO) == 1) {}
  ~CollectProgress() { Clear(); }

  static int Callback(casefile_collect_phase phase, uint64_t done, uint64_t total,
                      const char* current, void* payload) {
    if (Interrupted()) return 1;
    auto* self = static_cast<CollectProgress*>(payload);
    if (self == nullptr || !self->enabled_) return 0;
    try {
      self->Draw(phase, done, total, current != nullptr ? current : "");
    } catch (...) {
    }
    return 0;
  }

  void Clear() {
    if (!drawn_) return;
    std::fputs("\r\x1b[K", stderr);
    std::fflush(stderr);
    drawn_ = false;
  }

 private:
  void Draw(casefile_collect_phase phase, uint64_t done, uint64_t total,
            const std::string& current) {
    std::string head;
    if (phase == CASEFILE_COLLECT_PHASE_COMMANDS) {
      head = "commands " + std::to_string(done) + "/" + std::to_string(total);
    } else {
      head = std::string(phase == CASEFILE_COLLECT_PHASE_SCAN ? "scanned " : "written ") +
             HumanBytes(done) + " of " + HumanBytes(total);
    }
    std::string path = TerminalSafe(current);
    if (path.size() > 50) path = "..." + path.substr(path.size() - 47);
    std::string line = "\r" + head + ", " + path + "\x1b[K";
    std::fwrite(line.data(), 1, line.size(), stderr);
    std::fflush(stderr);
    drawn_ = true;
  }

  bool enabled_;
  bool drawn_ = false;
};

void PrintListing(const casefile_collect_result* result) {
  RowWriter::Options options;
  options.format = RowFormat::kTable;
  options.null_text = "-";
  RowWriter writer(stdout, options);
  static const char* const kNames[] = {"action", "size",   "redactions", "kind",
                                       "path",   "source", "note"};
  for (size_t i = 0; i < casefile_collect_result_entry_count(result); ++i) {
    const char *action, *path, *source, *kind, *note;
    uint64_t size, redactions;
    casefile_collect_result_entry(result, i, &action, &path, &source, &kind, &size, &redactions,
                                  &note);
    std::string size_text = std::to_string(size);
    std::string redaction_text = std::to_string(redactions);
    const char* values[] = {action,
                            size_text.c_str(),
                            redaction_text.c_str(),
                            kind[0] != '\0' ? kind : nullptr,
                            path[0] != '\0' ? path : nullptr,
                            source,
                            note[0] != '\0' ? note : nullptr};
    writer.Row(7, kNames, values);
  }
  writer.Finish();
}

std::string RedactionSummary(const casefile_collect_result* result) {
  uint64_t total = casefile_collect_result_redaction_count(result);
  std::string text = std::to_string(total) + (total == 1 ? " redaction" : " redactions");
  size_t kinds = casefile_collect_result_redaction_kind_count(result);
  if (kinds > 0) {
    text += " (";
    for (size_t i = 0; i < kinds; ++i) {
      const char* kind;
      uint64_t n;
      casefile_collect_result_redaction_kind(result, i, &kind, &n);
      text += (i ? ", " : "") + std::string(kind) + " " + std::to_string(n);
    }
    text += ")";
  }
  return text;
}

}  // namespace

int RunCollect(const CommandArgs& argv) {
  std::map<std::string, std::vector<std::string>> repeated;
  CommandArgs rest = TakeRepeated(argv, repeated);
  Args args("collect", rest,
            {{"output", true},
             {"tensorboard-dir", true},
             {"job-cmdline", true},
             {"host", true},
             {"since", true},
             {"max-bytes", true},
             {"timeout", true},
             {"no-versions", false},
             {"no-discover", false},
             {"no-redact", false},
             {"redact-hosts", false},
             {"redact-key-file", true},
             {"deterministic", false},
             {"dry-run", false},
             {"zstd-level", true},
             {"threads", true}});
  if (args.help()) return PrintHelp(kCollectHelp);
  if (!args.positional().empty()) {
    throw UsageError("collect", "unexpected argument '" + args.positional()[0] +
                                    "' (inputs are given with --logs, --config, ...)");
  }
  const bool dry_run = args.Has("dry-run");
  std::optional<std::string> output = args.Value("output");
  if (!output && !dry_run)
    throw UsageError("collect", "no output given (-o OUT.tar.zst, or -o - for stdout)");
  if (args.Has("no-redact") && (args.Has("redact-hosts") || args.Has("redact-key-file"))) {
    throw UsageError("collect",
                     "--no-redact cannot be combined with --redact-hosts or --redact-key-file");
  }

  auto pointers = [](const std::vector<std::string>& v) {
    std::vector<const char*> p;
    for (const auto& s : v) p.push_back(s.c_str());
    return p;
  };
  std::vector<const char*> logs = pointers(repeated["logs"]);
  std::vector<const char*> hlo = pointers(repeated["hlo-dump"]);
  std::vector<const char*> traces = pointers(repeated["traces"]);
  std::vector<const char*> configs = pointers(repeated["config"]);
  for (const auto& label : repeated["label"]) {
    size_t eq = label.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw UsageError("collect", "--label '" + label + "' is not KEY=VALUE");
    }
  }
  std::vector<const char*> labels = pointers(repeated["label"]);
  std::vector<std::string> command_line = {"casefile", "collect"};
  command_line.insert(command_line.end(), argv.begin(), argv.end());
  std::vector<const char*> command_line_ptrs = pointers(command_line);

  casefile_collect_options opts = CASEFILE_COLLECT_OPTIONS_INIT;
  opts.output = output ? output->c_str() : nullptr;
  opts.logs = logs.data();
  opts.log_count = logs.size();
  opts.hlo_dumps = hlo.data();
  opts.hlo_dump_count = hlo.size();
  opts.traces = traces.data();
  opts.trace_count = traces.size();
  opts.configs = configs.data();
  opts.config_count = configs.size();
  std::optional<std::string> tensorboard = args.Value("tensorboard-dir");
  std::optional<std::string> job = args.Value("job-cmdline");
  std::optional<std::string> host = args.Value("host");
  opts.tensorboard_dir = tensorboard ? tensorboard->c_str() : nullptr;
  opts.job_cmdline_file = job ? job->c_str() : nullptr;
  opts.host = host ? host->c_str() : nullptr;
  opts.labels = labels.data();
  opts.label_count = labels.size();
  if (auto since = args.Value("since"))
    opts.since_seconds = (ParseDuration("collect", "since", *since) + 999) / 1000;
  opts.max_bytes = args.Size("max-bytes", 0, UINT64_MAX);
  if (auto timeout = args.Value("timeout")) {
    uint64_t ms = ParseDuration("collect", "timeout", *timeout);
    if (ms > UINT32_MAX) throw UsageError("collect", "--timeout is too long");
    opts.command_timeout_ms = static_cast<uint32_t>(ms);
  }
  opts.no_versions = args.Has("no-versions") ? 1 : 0;
  opts.no_discover = args.Has("no-discover") ? 1 : 0;
  opts.no_redact = args.Has("no-redact") ? 1 : 0;
  opts.redact_hosts = args.Has("redact-hosts") ? 1 : 0;
  opts.deterministic = args.Has("deterministic") ? 1 : 0;
  opts.dry_run = dry_run ? 1 : 0;
  std::string key;
  if (auto key_file = args.Value("redact-key-file")) {
    key = ReadKeyFile(*key_file);
    opts.redact_key = reinterpret_cast<const unsigned char*>(key.data());
    opts.redact_key_size = key.size();
  }
  opts.command_line = command_line_ptrs.data();
  opts.command_line_count = command_line_ptrs.size();
  long long level = args.NonNegative("zstd-level", 0);
  if (args.Has("zstd-level") && (level < 1 || level > 22)) {
    throw UsageError("collect", "--zstd-level must be 1..22");
  }
  opts.zstd_level = static_cast<int>(level);
  long long threads = args.NonNegative("threads", 0);
  if (threads > 256) throw UsageError("collect", "--threads must be at most 256");
  opts.threads = static_cast<unsigned>(threads);

  if (output && *output == "-" && !dry_run) {
    if (isatty(STDOUT_FILENO) == 1) {
      throw UsageError("collect", "-o - writes a binary bundle to stdout, which is a terminal");
    }
    // The bundle's reader may go away: a write error then ends the
    // collection instead of SIGPIPE killing it silently.
    std::signal(SIGPIPE, SIG_IGN);
  }

  casefile_collect_result* raw = nullptr;
  casefile_error* err = nullptr;
  casefile_status status;
  {
    CollectProgress progress;
    status = casefile_collect(&raw, &opts, CollectProgress::Callback, &progress, &err);
  }
  Check(status, err);
  std::unique_ptr<casefile_collect_result, CollectResultFree> result(raw);

  if (dry_run) PrintListing(result.get());
  for (size_t i = 0; i < casefile_collect_result_error_count(result.get()); ++i) {
    const char *source, *message;
    casefile_collect_result_error(result.get(), i, &source, &message);
    std::fprintf(stderr, "casefile: warning: %s: %s\n", TerminalSafe(source).c_str(),
                 TerminalSafe(message).c_str());
  }
  const uint64_t files = casefile_collect_result_file_count(result.get());
  const std::string what = std::to_string(files) + (files == 1 ? " file, " : " files, ") +
                           HumanBytes(casefile_collect_result_bytes(result.get()));
  if (dry_run) {
    std::fprintf(stderr, "casefile: dry run: would pack %s, %s; nothing written\n", what.c_str(),
                 RedactionSummary(result.get()).c_str());
  } else {
    std::fprintf(stderr, "casefile: wrote %s: %s (%s compressed), %s\n",
                 *output == "-" ? "stdout" : TerminalSafe(*output).c_str(), what.c_str(),
                 HumanBytes(casefile_collect_result_archive_bytes(result.get())).c_str(),
                 RedactionSummary(result.get()).c_str());
  }
  return status == CASEFILE_PARTIAL ? kExitInput : kExitOk;
}

}  // namespace casefile_cli
