// Inputs found without a flag naming them (docs/BUNDLE_FORMAT.md,
// "Discovery"):
//  - the XLA dump directory: the last --xla_dump_to=DIR in XLA_FLAGS, when
//    --hlo-dump is not given ("-" and "sponge" are not directories);
//  - PyTorch flight-recorder dumps: files starting with the prefix in
//    TORCH_NCCL_DEBUG_INFO_TEMP_FILE (or the newer TORCH_FR_DUMP_TEMP_FILE),
//    else the default prefix /tmp/nccl_trace_rank_ (one file per rank);
//  - DeepSpeed / Hugging Face configs named on the failed job's command line
//    (--job-cmdline FILE): the value of --deepspeed (when it ends in .json),
//    --deepspeed_config, --config_file and --config (also in --flag=VALUE
//    form), and every argument ending in .json, .yaml or .yml that is an
//    existing file. Relative paths are resolved against the job's working
//    directory when FILE is /proc/PID/cmdline (/proc/PID/cwd), else the
//    collector's.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collect/path_glob.h"

namespace casefile::collect {

inline constexpr std::string_view kDefaultFlightRecorderPrefix = "/tmp/nccl_trace_rank_";
inline constexpr size_t kMaxJobCmdlineBytes = 1u << 20;

struct DiscoveredInput {
  std::string folder;  // bundle folder: "hlo", "flight_recorder", "configs"
  std::string path;    // a path or a glob pattern
  std::string origin;  // why: "XLA_FLAGS --xla_dump_to"
  bool named = false;  // a file named exactly (no --since filter)
};

struct Discovery {
  std::vector<DiscoveredInput> inputs;
  std::vector<Skip> notes;  // looked for and not there
};

// The last --xla_dump_to= value of an XLA_FLAGS string, unquoted; nullopt
// when absent.
std::optional<std::string> XlaDumpDirectory(std::string_view xla_flags);

// The arguments of a job command line: NUL-separated (/proc/PID/cmdline),
// else split like a shell does words (quotes and backslashes; no
// expansion).
std::vector<std::string> SplitCommandLine(std::string_view text);

// Config paths named by a job's arguments (see above), relative ones joined
// to `cwd`. Only existing regular files are returned for the extension
// rule; a path given to a config flag is returned whether or not it exists.
std::vector<std::string> JobConfigPaths(const std::vector<std::string>& args,
                                        const std::string& cwd);

// Everything above. The XLA dump and flight-recorder lookups run only when
// `from_environment` (off with --no-discover); the job's configs whenever
// `job_args` (from --job-cmdline) are given. `job_cwd` is the job's
// working directory.
Discovery Discover(const std::vector<std::string>& env, bool from_environment, bool have_hlo_flag,
                   const std::vector<std::string>& job_args, const std::string& job_cwd);

}  // namespace casefile::collect
