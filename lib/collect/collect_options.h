// What `casefile collect` is asked to gather and what it reports back: the
// C++ side of casefile_collect_options / casefile_collect_result
// (include/casefile.h). docs/BUNDLE_FORMAT.md describes the bundle written.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace casefile::collect {

// One command of the version and system outputs (command_table.cc holds the
// default set). Its stdout becomes hosts/<host>/<folder>/<file>; a non-empty
// stderr becomes hosts/<host>/<folder>/<stem>.stderr.txt, kind "log".
struct CommandSpec {
  std::string name;               // stable id: "nvidia_smi_query"
  std::vector<std::string> argv;  // argv[0] looked up in PATH; {"sh", "-c", TEXT} for shell
  std::string folder;             // "versions", "sysinfo"
  std::string file;               // "nvidia_smi_query.txt"
  std::string kind;               // a FileKindName value for the manifest: "version"
  // Run instead when argv fails to start or exits non-zero (dmesg denied to
  // an unprivileged user -> journalctl -k). Its output replaces argv's.
  std::vector<std::string> fallback_argv;
  uint32_t timeout_ms = 0;  // 0: CollectOptions::command_timeout_ms
};

struct CollectOptions {
  // The .tar.zst to write; "-" writes to standard output. Ignored by a dry
  // run; required otherwise.
  std::string output;

  // Inputs: files, directories (walked recursively) or glob(3) patterns.
  std::vector<std::string> logs;
  std::vector<std::string> hlo_dumps;
  std::vector<std::string> traces;
  std::vector<std::string> configs;
  std::string tensorboard_dir;   // its plugins/profile/ is packed as traces
  std::string job_cmdline_file;  // the failed job's command line (text or /proc/PID/cmdline)

  std::vector<std::pair<std::string, std::string>> labels;
  std::string host;  // empty: gethostname()

  uint64_t since_seconds = 0;  // 0: no age filter
  uint64_t max_bytes = 0;      // 0: no cap on the packed (uncompressed) bytes
  uint32_t command_timeout_ms = 20000;

  bool versions = true;  // run the command table
  bool discover = true;  // look at XLA_FLAGS, TORCH_NCCL_DEBUG_INFO_TEMP_FILE, ...
  bool redact = true;
  bool redact_hosts = false;
  bool deterministic = false;
  bool dry_run = false;
  // Secret bytes shared by the hosts of one collection so that their
  // pseudonyms agree; the HMAC key is their SHA-256. Unset: a random key.
  std::optional<std::string> redact_key;

  // casefile's own command line, recorded (redacted) in the manifest.
  std::vector<std::string> command_line;
  // "KEY=VALUE" entries read instead of the process environment (tests,
  // bindings); unset: the process environment.
  std::optional<std::vector<std::string>> environment;
  // Replaces the default command table (tests); unset: DefaultCommands().
  std::optional<std::vector<CommandSpec>> commands;

  int zstd_level = 3;
  unsigned threads = 0;  // scan and zstd threads; 0: the number of CPUs, at most 4
};

enum class CollectPhase { kCommands = 0, kScan = 1, kWrite = 2 };

// Returns false to abort. `current` is the file or command at hand.
using CollectProgressFn = std::function<bool(CollectPhase phase, uint64_t done, uint64_t total,
                                             std::string_view current)>;

// One line of the listing: what happened (or, in a dry run, would happen) to
// one file or command.
struct CollectEntry {
  std::string action;  // "pack", "tail" (packed, cut), "skip", "run" (dry run: a command)
  std::string path;    // bundle path ("" for a skipped source that has none)
  std::string source;  // source path, "command:NAME" or "environment"
  std::string kind;    // FileKindName value ("" when not read)
  uint64_t size = 0;   // bytes packed (after redaction and cutting)
  uint64_t redactions = 0;
  std::string note;  // why skipped or cut; "" otherwise
};

// A collection error: something asked for or found that is not in the
// bundle, or not whole. Also written to the manifest's "errors".
struct CollectError {
  std::string source;
  std::string message;
};

struct CollectResult {
  std::vector<CollectEntry> entries;  // sorted by path, then source
  std::vector<CollectError> errors;
  std::map<std::string, uint64_t> redactions;  // per kind, over the bundle
  uint64_t files = 0;                          // files packed (the manifest not counted)
  uint64_t bytes = 0;                          // their bytes, uncompressed
  uint64_t archive_bytes = 0;                  // bytes written to the output (0 for a dry run)
  bool partial() const { return !errors.empty(); }
};

}  // namespace casefile::collect
