// What a bundle file is, decided from its path and the first bytes of its
// (decompressed) content, so that ingest hands it to the right reader. Also
// pulls in the path attribution (host/task/rank from directory names) and the
// bundle manifest, which ingest applies on top of the classification.
//
// ClassifyFile applies these rules in order; the first that matches wins.
// Content is sniffed before names are trusted, because collectors rename
// freely (a collect_env output saved as "stdout.log" is still a version file).
//   1. kManifest: the path is exactly "casefile.json" (the bundle root; a
//      casefile.json deeper in the tree is an ordinary config file).
//   1b. kFlightRecorder, a PyTorch flight-recorder dump (formats.md 3.3),
//      before the binary rule because its default form is a pickle:
//      a. a pickle (PROTO 2-5 at byte 0) whose head holds the key strings
//         "pg_config" or "pg_status", or "entries" with "collective_seq_id"
//         or "profiling_name";
//      b. a JSON object (first non-blank byte '{', not a trace by rule 4's
//         test) whose head has the key "pg_config" or "pg_status", or
//         "entries" with "collective_seq_id" or "profiling_name" (the JSON
//         form sorts its keys: "entries" comes first, pg_config last);
//      c. whatever the head's keys, a JSON object under a dump's name:
//         nccl_trace_rank_<N> (the default TORCH_NCCL_DEBUG_INFO_TEMP_FILE
//         prefix), or rank_<N> (torchtitan) under a directory whose name
//         holds flight_recorder / flightrecorder / fr_trace / comm_trace /
//         nccl_trace or is "fr"; with no extension or .json/.pkl/.pickle.
//      A pickle under a dump's name without those keys in its head stays
//      binary, and an empty file is not a dump.
//   2. kBinary, from the first 64 KiB (kClassifyHeadBytes) of content and
//      the name. "Non-text" bytes are NUL and the control bytes other than
//      tab, LF, CR, FF, VT, BS and ESC (DEL counts as control); bytes >= 0x80
//      are text (UTF-8 or not). In order:
//      a. empty content: binary only under a binary name (below);
//      b. a binary magic at byte 0 is binary whatever the name: gzip, zstd,
//         xz, bzip2, 7-Zip, zip, ELF, PNG, JPEG, .npy, SQLite, pickle
//         protocol 2-5;
//      c. a binary name (.pb .pkl .pickle .pt .pth .bin .safetensors .npy
//         .npz .so .o .zst .xz .bz2 .png .jpg .pftrace .perfetto_trace:
//         protobufs and arrays have no magic) is binary as soon as the head
//         holds one non-text byte;
//      d. a log name (.log .txt .out .err .stdout .stderr, a stem "stdout"
//         or "stderr", or no extension under a "logs"/"log" directory) is
//         binary only when more than 30% of its non-NUL bytes are control
//         bytes: NULs do not count, because a crashed or power-cut host
//         leaves zero-filled blocks in its logs, and the lines around them
//         are the evidence;
//      e. any other name is binary when more than 30% of the head is
//         non-text.
//      (".gz" is removed before the name is looked at; a rotation number
//      "kern.log.1" is not an extension.)
//   3. kHlo: the first non-blank line (after a UTF-8 BOM) starts "HloModule ".
//   4. kTrace: the name ends in .json (or .json.gz) and the head is a
//      Chrome/Perfetto/Kineto/TSL trace: an object with a top-level
//      "traceEvents" (or "displayTimeUnit", or Kineto's "schemaVersion" with
//      "deviceProperties") key in the head, or a bare array whose first
//      object has a "ph" key.
//   5. kVersion by content: the first 8 non-blank lines carry the banner of a
//      version report: torch collect_env ("Collecting environment
//      information", or "PyTorch version:" with "Is debug build:"/"CUDA used
//      to build PyTorch:"), nvidia-smi ("| NVIDIA-SMI ", "NVSMI LOG"), nvcc
//      ("nvcc: NVIDIA (R) Cuda compiler driver"), ds_report ("DeepSpeed
//      general environment info", "DeepSpeed C++/CUDA extension op report"),
//      jax ("jax:" and "jaxlib:" lines), transformers env ("Copy-and-paste
//      the text below", "- `transformers` version:"), gcc --version (first
//      line "gcc (" / "g++ (" / "cc (" then "Copyright"), pip list (a
//      "Package … Version" header over dashes) or pip freeze (name==version
//      lines only).
//   6. kSysinfo by content: the first non-blank line is a kernel ring-buffer
//      line (raw "[  518.050606] ", also after a priority "<3>" as dmesg -r
//      writes it, dmesg -T "[Sun Mar 30 08:24:00 2025] ", dmesg --time-format
//      iso, syslog "<Mon> <d> <hh:mm:ss> <host> kernel:" or with an RFC 3339
//      time "2024-05-01T12:00:00.123456+00:00 <host> kernel:"),
//      or the header of meminfo ("MemTotal:"), lscpu ("Architecture:"), df
//      ("Filesystem … Size|1K-blocks"), free ("total … used … free") or
//      ulimit -a ("(blocks, -c)", "(microseconds, -R)").
//   7. kVersion by name: a "versions" or "version" directory, or a base name
//      that starts with collect_env, nvidia_smi, ds_report, pip_list,
//      pip_freeze, conda_list, jax_env, print_environment_info,
//      transformers_env, env_report, which_nvcc, cuda_dirs, cuda_toolkits,
//      ls_cuda, or is nvcc[_version], gcc[_version]
//      ('-' and ' ' count as '_').
//   8. kSysinfo by name: a "sysinfo"/"system_info" directory, or a base name
//      that starts with dmesg, kern.log, syslog, journal(ctl), sysctl,
//      ulimit, free, df, meminfo, cpuinfo, lscpu, lspci, lsblk, numactl,
//      uname, ibstat, ibv_devinfo, ifconfig, ip_addr, sysinfo, or is
//      "messages".
//   9. kConfig: a name ConfigFormatForName (parse/config/config_parser.h)
//      knows: .yaml .yml .toml .ini .cfg .conf .env, a file named ".env",
//      environment dumps named env/environ/environment/printenv; for .json
//      only when the content starts with '{' or '[' (ds_config.json,
//      config.json, trainer_state.json…), else it is read as a log.
//  10. kOther: text that is not worth line-indexing (.html .htm .svg .dot
//      .ll .ptx: graph renderings and generated code in XLA dumps).
//  11. kLog: everything else (.log .txt .out .err, no extension…).
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

#include "parse/classify/manifest.h"
#include "parse/classify/path_attribution.h"

namespace casefile {

enum class FileKind {
  kLog,
  kHlo,
  kTrace,
  kConfig,
  kVersion,
  kSysinfo,
  kManifest,
  kBinary,
  kOther,
  kFlightRecorder,
};

// "log", "hlo", "trace", "config", "version", "sysinfo", "manifest",
// "binary", "other", "flight_recorder" (the values of files.kind in the
// index).
const char* FileKindName(FileKind kind);

// The inverse of FileKindName; nullopt for any other string.
std::optional<FileKind> FileKindFromName(std::string_view name);

// How much of the content ClassifyFile looks at; a longer head is fine.
inline constexpr size_t kClassifyHeadBytes = 64 * 1024;

// `path` is the normalised bundle path (keeping a ".gz" suffix); `head` is
// the first <= kClassifyHeadBytes of the decompressed content ("" when the
// file is empty). Pure function, thread-safe, never throws.
FileKind ClassifyFile(std::string_view path, std::string_view head);

// The job's command line as a file: the collector's job/job_cmdline.txt
// (--job-cmdline), or one a person saved from /proc ("cmdline",
// "proc_cmdline", with or without ".txt"; any case). Its arguments may be
// separated by NUL bytes, as /proc/<pid>/cmdline writes them.
bool IsCommandLineFile(std::string_view path);

}  // namespace casefile
