#include "collect/command_table.h"

namespace casefile::collect {
namespace {

// The sysctls the network and collective analyzers read: socket buffer
// sizes, the congestion control, backlog and MTU probing, slow start after
// idle, and the ephemeral port range (exhausted by large jobs).
constexpr const char* kSysctlKeys[] = {
    "net.ipv4.tcp_rmem",
    "net.ipv4.tcp_wmem",
    "net.core.rmem_max",
    "net.core.wmem_max",
    "net.core.rmem_default",
    "net.core.wmem_default",
    "net.ipv4.tcp_congestion_control",
    "net.core.netdev_max_backlog",
    "net.ipv4.tcp_mtu_probing",
    "net.ipv4.tcp_slow_start_after_idle",
    "net.ipv4.ip_local_port_range",
    "net.ipv4.tcp_keepalive_time",
};

std::vector<std::string> SysctlArgv() {
  std::vector<std::string> argv = {"sysctl"};
  for (const char* key : kSysctlKeys) argv.emplace_back(key);
  return argv;
}

// sysctl lives in /sbin, often outside an unprivileged PATH; the same
// "key = value" lines are read from /proc/sys instead.
std::vector<std::string> SysctlFallbackArgv() {
  std::string script = "for k in";
  for (const char* key : kSysctlKeys) script += std::string(" ") + key;
  script +=
      "; do f=/proc/sys/$(printf %s \"$k\" | tr . /); "
      "if [ -r \"$f\" ]; then printf '%s = %s\\n' \"$k\" \"$(cat \"$f\")\"; fi; done";
  return {"sh", "-c", script};
}

using Argv = std::vector<std::string>;

// A version output: hosts/<host>/versions/<name>.txt, kind "version".
CommandSpec Version(const char* name, Argv argv, Argv fallback = {}) {
  return {name,      std::move(argv),    "versions", std::string(name) + ".txt",
          "version", std::move(fallback)};
}

// A system output: hosts/<host>/sysinfo/<name>.txt, kind "sysinfo".
CommandSpec Sysinfo(const char* name, Argv argv, Argv fallback = {}) {
  return {name,      std::move(argv),    "sysinfo", std::string(name) + ".txt",
          "sysinfo", std::move(fallback)};
}

// One line per command: its name (and file name), argv, and the fallback run
// when argv cannot start or fails.
std::vector<CommandSpec> BuildTable() {
  // clang-format off
  return {
      Version("collect_env", {"python3", "-m", "torch.utils.collect_env"}),
      Version("nvidia_smi", {"nvidia-smi"}),
      Version("nvidia_smi_query", {"nvidia-smi", "--query-gpu=index,name,compute_cap,driver_version,memory.total", "--format=csv"}),
      Version("nvcc_version", {"nvcc", "--version"}, {"/usr/local/cuda/bin/nvcc", "--version"}),
      Version("which_nvcc", {"which", "-a", "nvcc"}),
      Version("cuda_dirs", {"sh", "-c", "ls -ld /usr/local/cuda*"}),
      Version("gcc_version", {"gcc", "--version"}),
      Version("pip_freeze", {"python3", "-m", "pip", "list", "--format=freeze"}),
      Version("ds_report", {"ds_report"}),
      Version("jax_env", {"python3", "-c", "import jax; jax.print_environment_info()"}),
      Version("transformers_env", {"transformers", "env"}, {"transformers-cli", "env"}),
      Sysinfo("uname", {"uname", "-a"}),
      Sysinfo("sysctl_net", SysctlArgv(), SysctlFallbackArgv()),
      Sysinfo("dmesg", {"dmesg"}, {"journalctl", "-k", "-b", "--no-pager", "-n", "200000"}),
      Sysinfo("ulimit", {"sh", "-c", "ulimit -a"}),
      Sysinfo("free", {"free", "-b"}),
      Sysinfo("df", {"df", "-P"}),
      Sysinfo("ibstat", {"ibstat"}),
      Sysinfo("ibv_devinfo", {"ibv_devinfo"}),
  };
  // clang-format on
}

// Exact names, then prefixes (ending in '_'). Secret-looking values among
// them (HF_TOKEN, ...) are redacted like every other value.
constexpr std::string_view kEnvNames[] = {
    "PATH",         "LD_LIBRARY_PATH",  "LD_PRELOAD",  "CUDA_HOME",   "CUDA_PATH",  "PYTHONPATH",
    "CONDA_PREFIX", "VIRTUAL_ENV",      "MASTER_ADDR", "MASTER_PORT", "WORLD_SIZE", "RANK",
    "LOCAL_RANK",   "LOCAL_WORLD_SIZE", "NODE_RANK",   "GROUP_RANK",  "ROLE_RANK",  "CUDNN_PATH",
};
constexpr std::string_view kEnvPrefixes[] = {
    "CUDA_",  "NCCL_",      "TORCH_",      "TORCHELASTIC_", "PYTORCH_", "XLA_",
    "JAX_",   "TPU_",       "LIBTPU_",     "MEGASCALE_",    "HF_",      "TRANSFORMERS_",
    "DS_",    "DEEPSPEED_", "ACCELERATE_", "OMP_",          "MKL_",     "NVIDIA_",
    "CUDNN_", "GLOO_",      "UCX_",        "FI_",           "SLURM_",   "OMPI_",
    "PMI_",   "PMIX_",      "TF_",         "GRPC_",         "NVTE_",    "NEURON_",
};

}  // namespace

const std::vector<CommandSpec>& DefaultCommands() {
  static const std::vector<CommandSpec> kTable = BuildTable();
  return kTable;
}

bool KeepEnvironmentVariable(std::string_view name) {
  for (std::string_view n : kEnvNames) {
    if (name == n) return true;
  }
  for (std::string_view p : kEnvPrefixes) {
    if (name.size() > p.size() && name.substr(0, p.size()) == p) return true;
  }
  return false;
}

}  // namespace casefile::collect
