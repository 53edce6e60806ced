"""Build-environment scenarios of issue #7, build half (imported by generate.py).

GPU jobs whose software stack is wrong before any step runs: DeepSpeed refuses to JIT-build
an op because the system CUDA toolkit is older than the one torch was built with; a host with
two toolkits whose PATH, LD_LIBRARY_PATH and CUDA_HOME point at different ones; nvcc 11.8
meeting gcc 12 (host_config.h's #error); a prebuilt extension without a kernel for the H100's
sm_90; a long ninja build of a C++/CUDA extension that fails at one nvcc error among hundreds
of commands and warnings; one host of four on older torch and NCCL; and a healthy run full of
look-alikes. Formats: formats.md 3.1 (prefixes), 4 (NCCL_DEBUG), 5 (torchrun, DeepSpeed
launcher), 6 (collect_env, ds_report, nvidia-smi, nvcc/gcc --version, pip freeze).

Bundles: nodes/<host>/train.log (the tee'd launcher output of that host),
nodes/<host>/versions/<report>.txt (one file per version report, as a collector writes
them: collect_env, nvcc_version, nvidia_smi, nvidia_smi_query, gcc_version, pip_freeze,
ds_report, which_nvcc, cuda_dirs) and nodes/<host>/env/env.txt (`env` output). The healthy
run is launched by the deepspeed launcher over pdsh from a CPU-only login node: one log,
logs/deepspeed_launcher.log, every remote line prefixed `<host>: `. Host names, pids,
addresses, paths and dates are made up. Each scenario draws from its own seeded
random.Random.
"""

import math

from generate import (SEC, BUS_IDS, DS_ANSI_WARNINGS, HF_ARGS_COMMON, NumJob, ds_line, dt_of, evd, expected,
                      hf_args_dump, hf_time, num_rank_start, pylog_time, tqdm_frame, us_of, write)
from gen_runtime import peers_abort, step_loop, step_text
from gen_torch_hang import TorchJob, check_lines, launch, rank_start, torchrun_failed

# --------------------------------------------------------------------------------------------
# Version reports of one host

# nvcc --version of each toolkit release: (copyright year, "Built on", full version, build tag).
NVCC = {
    "11.8": ("2022", "Wed_Sep_21_10:33:58_PDT_2022", "11.8.89", "cuda_11.8.r11.8/compiler.31833905_0"),
    "12.1": ("2023", "Mon_Apr__3_17:16:06_PDT_2023", "12.1.105", "cuda_12.1.r12.1/compiler.32688072_0"),
}

# gcc --version first line and copyright year, by version.
GCC = {
    "11.3.0": ("gcc (Ubuntu 11.3.0-1ubuntu1~22.04.1) 11.3.0", "2021"),
    "11.4.0": ("gcc (Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0", "2021"),
    "11.4.1": ("gcc (GCC) 11.4.1 20231218 (Red Hat 11.4.1-3)", "2021"),
    "12.3.0": ("gcc (Ubuntu 12.3.0-1ubuntu1~22.04) 12.3.0", "2022"),
}

# The CUDA wheels torch pulls in, by torch release (cu121 / cu118 builds).
TORCH_WHEELS = {
    "2.1.2+cu121": {"nccl": "2.18.1", "triton": "2.1.0", "cudnn": "8.9.2.26", "cublas": "12.1.3.1",
                    "rt": "12.1.105", "cu": "cu12"},
    "2.2.2+cu118": {"nccl": "2.19.3", "triton": "2.2.0", "cudnn": "8.7.0.84", "cublas": "11.11.3.6",
                    "rt": "11.8.89", "cu": "cu11"},
    "2.2.2+cu121": {"nccl": "2.19.3", "triton": "2.2.0", "cudnn": "8.9.2.26", "cublas": "12.1.3.1",
                    "rt": "12.1.105", "cu": "cu12"},
    "2.3.1+cu121": {"nccl": "2.20.5", "triton": "2.3.1", "cudnn": "8.9.2.26", "cublas": "12.1.3.1",
                    "rt": "12.1.105", "cu": "cu12"},
}

GPUS = {
    "NVIDIA A100-SXM4-80GB": ("8.0", 81920, 400, "A100-SXM4-80GB"),
    "NVIDIA H100 80GB HBM3": ("9.0", 81559, 700, "H100 80GB HBM3"),
}

OS_UBUNTU = ("Ubuntu 22.04.4 LTS (x86_64)", "2.35", "5.15.0-112-generic")
OS_ROCKY = ("Rocky Linux 9.3 (Blue Onyx) (x86_64)", "2.34", "5.14.0-362.24.1.el9_3.x86_64")


class Host:
    """What one host has installed and how its environment points at it."""

    def __init__(self, name, ip, **kw):
        self.name = name
        self.ip = ip
        self.torch = kw.pop("torch")
        self.torch_cuda = self.torch.split("+cu")[1][:-1] + "." + self.torch.split("+cu")[1][-1]
        self.wheels = dict(TORCH_WHEELS[self.torch])
        self.nccl = kw.pop("nccl", self.wheels["nccl"])
        self.toolkits = kw.pop("toolkits", [])  # releases under /usr/local/cuda-<r>
        self.cuda_link = kw.pop("cuda_link", None)  # /usr/local/cuda -> ... ("alt" = apt alternatives)
        self.nvcc_path = kw.pop("nvcc_path", [])  # `which -a nvcc`, in PATH order
        # The release a bare `nvcc` runs (PATH's first): collect_env and nvcc --version.
        self.nvcc = kw.pop("nvcc", None)
        self.cuda_home = kw.pop("cuda_home", None)
        self.path_cuda = kw.pop("path_cuda", [])  # CUDA bin dirs at the front of PATH
        self.ld_cuda = kw.pop("ld_cuda", [])  # CUDA lib dirs at the front of LD_LIBRARY_PATH
        self.arch_list = kw.pop("arch_list", None)
        self.gcc = kw.pop("gcc", "11.4.0")
        self.os = kw.pop("os", OS_UBUNTU)
        self.gpu = kw.pop("gpu", "NVIDIA A100-SXM4-80GB")
        self.ngpu = kw.pop("ngpu", 4)
        self.driver = kw.pop("driver", "535.161.08")
        self.driver_cuda = kw.pop("driver_cuda", "12.2")
        self.ds = kw.pop("ds", "0.14.4")
        self.ds_build = kw.pop("ds_build", None)
        self.python = kw.pop("python", "3.10.12 (main, Nov 20 2023, 15:14:05) [GCC 11.4.0]")
        self.site = kw.pop("site", "/usr/local/lib/python3.10/dist-packages")
        self.pip = kw.pop("pip", {})
        self.user = kw.pop("user", "ubuntu")
        self.workdir = kw.pop("workdir", "/workspace")
        self.extra_env = kw.pop("env", [])
        self.modules = kw.pop("modules", [])  # environment modules loaded (lmod)
        self.t_report = kw.pop("t_report")  # when the collector ran (us)
        self.tk_date = kw.pop("tk_date", "Nov 14  2023")
        self.cpu = kw.pop("cpu", "AMD EPYC 7V13 64-Core Processor")
        self.ds_nvcc = kw.pop("ds_nvcc", self.nvcc)  # ds_report asks CUDA_HOME's nvcc
        self.cuda_ok = kw.pop("cuda_ok", True)  # False: torch cannot initialise CUDA (driver too old)
        assert not kw, kw

    def nvcc_full(self):
        return NVCC[self.nvcc][2] if self.nvcc else None


def smi_date(t):
    """nvidia-smi's first line: Wed Mar 11 09:14:52 2026 (ctime: the day padded with a blank)."""
    d = dt_of(t)
    return f"{d.strftime('%a %b')} {d.day:2d} {d.hour:02d}:{d.minute:02d}:{d.second:02d} {d.year}"


def collect_env_text(h):
    """python -m torch.utils.collect_env of torch 2.1-2.3; returns (text, {fact: line})."""
    osname, glibc, kernel = h.os
    lines, marks = [], {}

    def add(text, mark=None):
        lines.append(text)
        if mark:
            marks[mark] = len(lines)

    add("Collecting environment information...")
    add(f"PyTorch version: {h.torch}", "torch")
    add("Is debug build: False")
    add(f"CUDA used to build PyTorch: {h.torch_cuda}", "torch_cuda")
    add("ROCM used to build PyTorch: N/A")
    add("")
    add(f"OS: {osname}")
    add(f"GCC version: ({GCC[h.gcc][0].split('(', 1)[1]}", "gcc")
    add("Clang version: Could not collect")
    add("CMake version: version 3.27.9")
    add(f"Libc version: glibc-{glibc}")
    add("")
    add(f"Python version: {h.python} (64-bit runtime)")
    add(f"Python platform: Linux-{kernel}-x86_64-with-glibc{glibc}")
    gpu = h.gpu is not None and h.driver is not None
    add(f"Is CUDA available: {gpu and h.cuda_ok}")
    add(f"CUDA runtime version: {h.nvcc_full() or 'Could not collect'}", "nvcc")
    add("CUDA_MODULE_LOADING set to: " + ("LAZY" if gpu else "N/A"))
    if gpu:
        add("GPU models and configuration: ")
        for i in range(h.ngpu):
            add(f"GPU {i}: {h.gpu}")
        add("")
        add(f"Nvidia driver version: {h.driver}", "driver")
    else:
        add("GPU models and configuration: Could not collect")
        add("Nvidia driver version: Could not collect")
    if h.nvcc:
        add("cuDNN version: Probably one of the following:")
        cu = "8.9.7" if h.nvcc.startswith("12") else "8.9.2"
        for lib in ("libcudnn.so", "libcudnn_adv_infer.so", "libcudnn_cnn_infer.so", "libcudnn_ops_infer.so"):
            add(f"/usr/lib/x86_64-linux-gnu/{lib}.{cu}")
    else:
        add("cuDNN version: Could not collect")
    add("HIP runtime version: N/A")
    add("MIOpen runtime version: N/A")
    add("Is XNNPACK available: True")
    add("")
    add("CPU:")
    add("Architecture:                       x86_64")
    add("CPU op-mode(s):                     32-bit, 64-bit")
    add("Address sizes:                      48 bits physical, 48 bits virtual")
    add("Byte Order:                         Little Endian")
    add("CPU(s):                             256" if gpu else "CPU(s):                             32")
    add(f"Model name:                         {h.cpu}")
    add("Thread(s) per core:                 2")
    add("Socket(s):                          2" if gpu else "Socket(s):                          1")
    add("NUMA node(s):                       2" if gpu else "NUMA node(s):                       1")
    add("Vulnerability Spec store bypass:    Mitigation; Speculative Store Bypass disabled via prctl")
    add("")
    add("Versions of relevant libraries:")
    w = h.wheels
    add(f"[pip3] numpy=={h.pip.get('numpy', '1.26.4')}")
    add(f"[pip3] nvidia-nccl-{w['cu']}=={h.nccl}", "nccl")
    add(f"[pip3] torch=={h.torch}")
    add(f"[pip3] triton=={w['triton']}")
    add("[conda] Could not collect")
    add("")
    return "\n".join(lines), marks


def nvcc_version_text(h):
    if not h.nvcc:
        return "/bin/sh: 1: nvcc: not found\n", {}
    year, built, full, build = NVCC[h.nvcc]
    return "\n".join(["nvcc: NVIDIA (R) Cuda compiler driver",
                      f"Copyright (c) 2005-{year} NVIDIA Corporation",
                      f"Built on {built}",
                      f"Cuda compilation tools, release {h.nvcc}, V{full}",
                      f"Build {build}", ""]), {"nvcc": 4}


def gcc_version_text(h):
    first, year = GCC[h.gcc]
    return "\n".join([first, f"Copyright (C) {year} Free Software Foundation, Inc.",
                      "This is free software; see the source for copying conditions.  There is NO",
                      "warranty; not even for MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.", ""]), {"gcc": 1}


BUS = ["00000000:18:00.0", "00000000:2A:00.0", "00000000:3A:00.0", "00000000:5D:00.0",
       "00000000:9A:00.0", "00000000:AB:00.0", "00000000:BA:00.0", "00000000:DB:00.0"]


def smi_row(text):
    """One row of nvidia-smi's 91-column frame."""
    return "|" + text.ljust(89) + "|"


def nvidia_smi_text(h, rng):
    """The default nvidia-smi table (550-era frame), idle GPUs."""
    if h.driver is None:
        return "/bin/sh: 1: nvidia-smi: not found\n", {}
    _, mem, cap, short = GPUS[h.gpu]
    frame = "+" + "-" * 89 + "+"
    sep = "+-----------------------------------------+------------------------+----------------------+"
    lines = [smi_date(h.t_report), frame,
             smi_row(f" NVIDIA-SMI {h.driver:<22} Driver Version: {h.driver:<14} CUDA Version: {h.driver_cuda}"),
             "|-----------------------------------------+------------------------+----------------------+",
             "| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |",
             "| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |",
             "|                                         |                        |               MIG M. |",
             "|=========================================+========================+======================|"]
    for i in range(h.ngpu):
        lines.append(f"|   {i}  {'NVIDIA ' + short:<31}On  |   {BUS[i]} Off |                    0 |")
        lines.append(f"| N/A   {29 + rng.randint(0, 7)}C    P0{62 + rng.randint(0, 12):>15}W / {cap:4d}W |"
                     f"{1:>8}MiB / {mem:6d}MiB |      0%      Default |")
        lines.append("|                                         |                        |             Disabled |")
        lines.append(sep)
    lines += ["", frame, smi_row(" Processes:"),
              smi_row("  GPU   GI   CI        PID   Type   Process name                              GPU Memory "),
              smi_row("        ID   ID                                                               Usage      "),
              "|" + "=" * 89 + "|", smi_row("  No running processes found"), frame, ""]
    for line in lines[1:]:
        assert len(line) in (0, 91), line
    return "\n".join(lines), {"driver": 3}


def nvidia_smi_query_text(h):
    """nvidia-smi --query-gpu=index,name,compute_cap,driver_version,memory.total --format=csv"""
    if h.driver is None:
        return "/bin/sh: 1: nvidia-smi: not found\n", {}
    cc, mem, _, _ = GPUS[h.gpu]
    lines = ["index, name, compute_cap, driver_version, memory.total [MiB]"]
    lines += [f"{i}, {h.gpu}, {cc}, {h.driver}, {mem} MiB" for i in range(h.ngpu)]
    return "\n".join(lines) + "\n", {"gpu0": 2}


def pip_freeze_text(h):
    w = h.wheels
    cu = w["cu"]
    pk = {
        "accelerate": "0.31.0", "certifi": "2024.2.2", "charset-normalizer": "3.3.2", "datasets": "2.19.2",
        "deepspeed": h.ds, "filelock": "3.14.0", "fsspec": "2024.3.1", "hjson": "3.1.0",
        "huggingface-hub": "0.23.4", "idna": "3.7", "Jinja2": "3.1.4", "MarkupSafe": "2.1.5", "mpmath": "1.3.0",
        "networkx": "3.3", "ninja": "1.11.1.1", "numpy": "1.26.4", "packaging": "24.1", "psutil": "5.9.8",
        "py-cpuinfo": "9.0.0", "pydantic": "2.7.4", "pydantic_core": "2.18.4", "PyYAML": "6.0.1",
        "regex": "2024.5.15", "requests": "2.32.3", "safetensors": "0.4.3", "sentencepiece": "0.2.0",
        "sympy": "1.12.1", "tokenizers": "0.19.1", "torch": h.torch, "tqdm": "4.66.4", "transformers": "4.41.2",
        "triton": w["triton"], "typing_extensions": "4.12.2", "urllib3": "2.2.2",
        f"nvidia-cublas-{cu}": w["cublas"], f"nvidia-cuda-cupti-{cu}": w["rt"], f"nvidia-cuda-nvrtc-{cu}": w["rt"],
        f"nvidia-cuda-runtime-{cu}": w["rt"], f"nvidia-cudnn-{cu}": w["cudnn"], f"nvidia-nccl-{cu}": h.nccl,
        f"nvidia-nvtx-{cu}": w["rt"],
    }
    pk.update(h.pip)
    lines = []
    for name in sorted(pk, key=str.lower):
        v = pk[name]
        if v is None:
            continue
        lines.append(f"{name} @ {v}" if v.startswith("file://") else f"{name}=={v}")
    return "\n".join(lines) + "\n", {}


GREEN, RED, YELLOW, END = "\x1b[92m", "\x1b[91m", "\x1b[93m", "\x1b[0m"
DS_OPS = [
    ("async_io", False, ["async_io requires the dev libaio .so object and headers but these were not found.",
                         "async_io: please install the libaio-dev package with apt",
                         "If libaio is already installed (perhaps from source), try setting the CFLAGS and LDFLAGS "
                         "environment variables to where it can be found."]),
    ("fused_adam", True, []), ("cpu_adam", True, []), ("cpu_adagrad", True, []), ("cpu_lion", True, []),
    ("evoformer_attn", False, ["Please specify the CUTLASS repo directory as environment variable $CUTLASS_PATH"]),
    ("fused_lamb", True, []), ("fused_lion", True, []), ("inference_core_ops", True, []), ("cutlass_ops", True, []),
    ("transformer_inference", True, []), ("quantizer", True, []), ("ragged_device_ops", True, []),
    ("ragged_ops", True, []), ("random_ltd", True, []),
    ("sparse_attn", False, ["sparse_attn requires a torch version >= 1.5 and < 2.0 but detected {tv}",
                            "using untested triton version ({triton}), only 1.0.0 is known to be compatible"]),
    ("spatial_inference", True, []), ("transformer", True, []), ("stochastic_transformer", True, []),
]


# Ops that DeepSpeed 0.9 did not have yet.
DS_OPS_NEWER = {"evoformer_attn", "inference_core_ops", "cutlass_ops", "ragged_device_ops", "ragged_ops", "cpu_lion",
                "fused_lion"}


def ds_report_text(h):
    """ds_report: the op table (ANSI colours) and the general environment info (dotted keys)."""
    lines, marks = [], {}
    tv = ".".join(h.torch.split(".")[:2])
    prebuilt = set(h.ds_build[1]) if h.ds_build else set()
    lines.append(ds_line(h.t_report + 9_417_000, "INFO", "real_accelerator.py:203:get_accelerator",
                         "Setting ds_accelerator to cuda (auto detect)"))
    dash = "-" * 50
    lines += [dash, "DeepSpeed C++/CUDA extension op report", dash,
              "NOTE: Ops not installed will be just-in-time (JIT) compiled at",
              "      runtime if needed. Op compatibility means that your system",
              "      meet the required dependencies to JIT install the op.", dash,
              "JIT compiled ops requires ninja", f"ninja .................. {GREEN}[OKAY]{END}", dash,
              "op name ................ installed .. compatible", dash]
    old = h.ds.startswith("0.9.")
    for name, ok, warns in DS_OPS:
        if old and name in DS_OPS_NEWER:
            continue
        for w in warns:
            lines.append(f" {YELLOW} [WARNING] {END} " + w.format(tv=tv, triton=h.wheels["triton"]))
        inst = f"{GREEN}[YES]{END} ......" if name in prebuilt else f"{YELLOW}[NO]{END} ......."
        comp = f"{GREEN}[OKAY]{END}" if ok else f"{RED}[NO]{END}"
        lines.append(f"{name} {'.' * (23 - len(name))} {inst} {comp}")
    lines.append(dash)
    lines.append("DeepSpeed general environment info:")

    def key(k, v, mark=None):
        lines.append(f"{k} {'.' * (33 - len(k))} {v}")
        if mark:
            marks[mark] = len(lines)

    key("torch install path", f"['{h.site}/torch']")
    key("torch version", h.torch, "torch")
    key("deepspeed install path", f"['{h.site}/deepspeed']")
    key("deepspeed info", f"{h.ds}, unknown, unknown", "deepspeed")
    key("torch cuda version", h.torch_cuda, "torch_cuda")
    key("torch hip version", "None")
    # Without CUDA_HOME DeepSpeed prints a red failure where the version would be.
    key("nvcc version", h.ds_nvcc if h.ds_nvcc else
        f"{RED} [FAIL] cannot find CUDA_HOME via torch.utils.cpp_extension.CUDA_HOME=None {END}", "nvcc")
    key("deepspeed wheel compiled w.", h.ds_build[0] if h.ds_build else f"torch {tv}, cuda {h.torch_cuda}")
    if not old:
        key("shared memory (/dev/shm) size", "503.79 GB")
    return "\n".join(lines) + "\n", marks


def which_nvcc_text(h):
    return "".join(p + "\n" for p in h.nvcc_path), {}


def cuda_dirs_text(h):
    """ls -ld /usr/local/cuda* (alphabetical; symlinks with their targets)."""
    if not h.toolkits:
        return "ls: cannot access '/usr/local/cuda*': No such file or directory\n", {}
    rows = []
    if h.cuda_link == "alt":
        rows.append(("lrwxrwxrwx", 1, 22, "/usr/local/cuda -> /etc/alternatives/cuda"))
        major = h.toolkits[-1].split(".")[0]
        rows.append(("lrwxrwxrwx", 1, 25, f"/usr/local/cuda-{major} -> /etc/alternatives/cuda-{major}"))
    elif h.cuda_link:
        target = f"/usr/local/cuda-{h.cuda_link}/"
        rows.append(("lrwxrwxrwx", 1, len(target), f"/usr/local/cuda -> {target}"))
    for r in h.toolkits:
        rows.append(("drwxr-xr-x", 17 if r.startswith("12") else 16, 4096, f"/usr/local/cuda-{r}"))
    rows.sort(key=lambda r: r[3].split(" ->")[0])
    return "".join(f"{p} {n:2d} root root {s:4d} {h.tk_date} {name}\n" for p, n, s, name in rows), {}


def env_text(h, rng):
    """`env` as the job script ran it: KEY=VALUE lines in environ order, one exported shell
    function over several lines (environment modules), unrelated variables around."""
    lines, marks = [], {}

    def add(k, v):
        lines.append(f"{k}={v}")
        marks[k] = len(lines)

    path = ":".join(h.path_cuda + [f"/home/{h.user}/.local/bin", "/usr/local/sbin", "/usr/local/bin",
                                   "/usr/sbin", "/usr/bin", "/sbin", "/bin", "/usr/games", "/usr/local/games",
                                   "/snap/bin"])
    ld = ":".join(h.ld_cuda + ["/usr/local/nvidia/lib", "/usr/local/nvidia/lib64"])
    add("SHELL", "/bin/bash")
    if h.modules:
        add("LMOD_DIR", "/usr/share/lmod/lmod/libexec")
        add("MODULEPATH", "/etc/lmod/modules:/usr/share/lmod/lmod/modulefiles")
        add("LOADEDMODULES", ":".join(h.modules))
        add("_LMFILES_", ":".join(f"/etc/lmod/modules/{m}.lua" for m in h.modules))
    add("HOSTNAME", h.name)
    add("LANGUAGE", "en_US:en")
    add("NCCL_SOCKET_IFNAME", "ib0")
    if h.cuda_home:
        add("CUDA_HOME", h.cuda_home)
    add("PWD", h.workdir)
    add("LOGNAME", h.user)
    add("HOME", f"/home/{h.user}")
    add("LANG", "en_US.UTF-8")
    add("LS_COLORS", "rs=0:di=01;34:ln=01;36:mh=00:pi=40;33:so=01;35:do=01;35:bd=40;33;01:cd=40;33;01:or=40;31;01:"
                     "mi=00:su=37;41:sg=30;43:ca=00:tw=30;42:ow=34;42:st=37;44:ex=01;32:*.tar=01;31:*.tgz=01;31:"
                     "*.zip=01;31:*.gz=01;31:*.zst=01;31")
    add("HF_HOME", "/mnt/cache/huggingface")
    add("SSH_CONNECTION", f"10.0.0.5 {rng.randint(40000, 60000)} {h.ip} 22")
    add("LESSCLOSE", "/usr/bin/lesspipe %s %s")
    if h.arch_list is not None:
        add("TORCH_CUDA_ARCH_LIST", h.arch_list)
    add("TERM", "xterm-256color")
    add("LESSOPEN", "| /usr/bin/lesspipe %s")
    add("USER", h.user)
    add("NCCL_DEBUG", "INFO")
    add("SHLVL", "2")
    add("NVIDIA_VISIBLE_DEVICES", "all")
    add("LD_LIBRARY_PATH", ld)
    add("XDG_SESSION_ID", str(rng.randint(3, 90)))
    add("PYTHONPATH", f"{h.workdir}/src")
    add("WANDB_MODE", "offline")
    for k, v in h.extra_env:
        add(k, v)
    add("XDG_RUNTIME_DIR", "/run/user/1000")
    add("PATH", path)
    add("OMP_NUM_THREADS", "8")
    if h.modules:
        lines.append('BASH_FUNC_module%%=() {  eval $($LMOD_CMD bash "$@") && eval $(${LMOD_SETTARG_CMD:-:} -s sh)')
        lines.append("}")
    add("_", "/usr/bin/env")
    return "\n".join(lines) + "\n", marks


REPORTS = [("collect_env", collect_env_text), ("nvcc_version", nvcc_version_text),
           ("gcc_version", gcc_version_text), ("pip_freeze", pip_freeze_text), ("ds_report", ds_report_text),
           ("which_nvcc", which_nvcc_text), ("cuda_dirs", cuda_dirs_text)]


def write_versions(bundle, h, rng, skip=()):
    """Writes every report of host h (but those in skip); returns {report: {fact: line}}
    (the environment under "env")."""
    base = bundle / "nodes" / h.name
    marks = {}
    for name, fn in REPORTS:
        if name in skip:
            continue
        text, m = fn(h)
        write(base / "versions" / f"{name}.txt", text)
        marks[name] = m
    for name, fn in (("nvidia_smi", lambda x: nvidia_smi_text(x, rng)), ("nvidia_smi_query", nvidia_smi_query_text)):
        text, m = fn(h)
        write(base / "versions" / f"{name}.txt", text)
        marks[name] = m
    text, m = env_text(h, rng)
    write(base / "env" / "env.txt", text)
    marks["env"] = m
    return marks


def vpath(h, report):
    return f"nodes/{h.name}/versions/{report}.txt"


def epath(h):
    return f"nodes/{h.name}/env/env.txt"


# --------------------------------------------------------------------------------------------
# Shared log pieces


def ds_first_lines(g, extra=()):
    """What DeepSpeed prints on every rank before NCCL starts (accelerator, ANSI op warnings)."""
    out = [lambda t: ds_line(t, "INFO", "real_accelerator.py:203:get_accelerator",
                             "Setting ds_accelerator to cuda (auto detect)")]
    out += [f"\x1b[93m [WARNING] \x1b[0m {w}" for w in DS_ANSI_WARNINGS]
    out += list(extra)
    out.append(lambda t: ds_line(t, "INFO", "comm.py:637:init_distributed", "cdb=None"))
    if g == 0:
        out.append(lambda t: ds_line(t, "INFO", "comm.py:668:init_distributed",
                                     "Initializing TorchBackend in DeepSpeed with backend nccl"))
    return out


def start_ranks(job, t0, cmd_of, first_of):
    """Launch on every node, then every rank's first lines and NCCL start-up; returns the end."""
    rng = job.rng
    ends = []
    for n in job.nodes:
        tn = launch(job, n, t0 + rng.randint(0, 2 * SEC), cmd_of(n))
        for l in range(job.nproc):
            g = n.node_rank * job.nproc + l
            ends.append(rank_start(job, g, tn + rng.randint(0, 900_000), first_of(g)))
    return max(ends)


def say_seq(job, g, t, lines, marks=None, gap=(800, 6000)):
    """Lines of one rank one after another (a traceback), so other ranks can interleave.
    marks: {index in lines: name}. Returns the time after the last line."""
    rng = job.rng
    marks = marks or {}
    for i, line in enumerate(lines):
        job.say(g, t, line, {0: marks[i]} if i in marks else None)
        t += rng.randint(*gap)
    return t


def ds_engine_lines(job, t, version, world, opt):
    """DeepSpeed's engine start-up on rank 0 up to the optimizer."""
    rng = job.rng
    for where, msg in [
        ("logging.py:96:log_dist", f"[Rank 0] DeepSpeed info: version={version}, git-hash=unknown, "
                                   "git-branch=unknown"),
        ("comm.py:662:init_distributed", "Distributed backend already initialized"),
        ("config.py:733:__init__", f"Config mesh_device None world_size = {world}"),
        ("engine.py:1139:_configure_distributed_model", "Broadcasting model parameters from rank 0"),
        ("logging.py:96:log_dist", "[Rank 0] DeepSpeed Flops Profiler Enabled: False"),
        ("logging.py:96:log_dist", f"[Rank 0] Using DeepSpeed Optimizer param name {opt} as basic optimizer"),
    ]:
        t += rng.randint(300, 40_000)
        job.say(0, t, ds_line(t, "INFO", where, msg))
    return t


def data_prep_lines(job, t, n_examples):
    """Rank 0 tokenizes the dataset: a datasets 'Map' bar (tqdm \\r frames on one line)."""
    rng = job.rng
    frames = []
    done, el = 0, 0.0
    while done < n_examples:
        step = min(n_examples - done, rng.randint(4000, 9000))
        done += step
        el += step / 15000.0
        frames.append(f"Map: {done * 100 // n_examples:3d}%|{'█' * (done * 10 // n_examples):<10}| "
                      f"{done}/{n_examples} [00:{int(el):02d}<00:{int((n_examples - done) / 15000):02d}, "
                      f"{14000 + rng.randint(0, 3000)}.{rng.randint(10, 99)} examples/s]")
    job.say(0, t, "\r" + "\r".join(frames))
    return t + int(el * SEC)


def bar(job, t, s0, s1, total, sec):
    """Rank 0's tqdm bar, frames s0+1..s1 on one physical line."""
    frames = [tqdm_frame(s, total, s * sec, sec) for s in range(s0 + 1, s1 + 1)]
    job.say(0, t, "\r" + "\r".join(frames))


# torch.utils.cpp_extension / DeepSpeed op builder frames (line numbers of torch 2.1-2.3).
def cpp_ext_frames(site, jit_line, deepspeed=True):
    """From DeepSpeed's op builder (or a user's load() call) down to torch's _jit_compile,
    at jit_line (1710: the build; 1735: a waiting process's import)."""
    ds = [f'  File "{site}/deepspeed/ops/op_builder/builder.py", line 480, in load',
          "    return self.jit_load(verbose)",
          f'  File "{site}/deepspeed/ops/op_builder/builder.py", line 524, in jit_load',
          "    op_module = load(name=self.name,"] if deepspeed else []
    return ds + [f'  File "{site}/torch/utils/cpp_extension.py", line 1306, in load',
                 "    return _jit_compile(",
                 f'  File "{site}/torch/utils/cpp_extension.py", line {jit_line}, in _jit_compile']


def ninja_failure_tb(site, head, name):
    """The chained traceback of a failed JIT build (head: the frames from the script down to
    torch's load())."""
    return (["Traceback (most recent call last):",
             f'  File "{site}/torch/utils/cpp_extension.py", line 2100, in _run_ninja_build',
             "    subprocess.run(",
             '  File "/usr/lib/python3.10/subprocess.py", line 526, in run',
             "    raise CalledProcessError(retcode, process.args,",
             "subprocess.CalledProcessError: Command '['ninja', '-v']' returned non-zero exit status 1.",
             "",
             "The above exception was the direct cause of the following exception:",
             "",
             "Traceback (most recent call last):"] + head +
            ["    _write_ninja_file_and_build_library(",
             f'  File "{site}/torch/utils/cpp_extension.py", line 1823, in _write_ninja_file_and_build_library',
             "    _run_ninja_build(",
             f'  File "{site}/torch/utils/cpp_extension.py", line 2116, in _run_ninja_build',
             "    raise RuntimeError(message) from e",
             f"RuntimeError: Error building extension '{name}'"])


def import_failure_tb(site, head, so_path, name):
    """A rank that waited for another process's build and finds no library."""
    return (["Traceback (most recent call last):"] + head +
            [f"    return _import_module_from_library(name, build_directory, is_python_module)",
             f'  File "{site}/torch/utils/cpp_extension.py", line 2138, in _import_module_from_library',
             "    module = importlib.util.module_from_spec(spec)",
             '  File "<frozen importlib._bootstrap>", line 571, in module_from_spec',
             '  File "<frozen importlib._bootstrap_external>", line 1176, in create_module',
             '  File "<frozen importlib._bootstrap>", line 241, in _call_with_frames_removed',
             f"ImportError: {so_path}: cannot open shared object file: No such file or directory"])


def rank_times(job, t, lo, hi):
    """Each rank reaches the same point of the script at its own time."""
    return {g: t + job.rng.randint(lo, hi) for g in range(job.world)}


def first_failure(job, marks, t_fail, roots, contains, mark="exc{g}"):
    """runtime.first_failure of a run whose ranks all raise their own error: the rank whose
    error came first (its error line, and its torchrun root cause's exit code line)."""
    g = min(t_fail, key=lambda r: t_fail[r])
    n = job.node(g)
    assert roots.get(n.name, g) == g, (roots, g)
    p = f"nodes/{n.name}/train.log"
    return {"code": "runtime.first_failure",
            "culprits": [{"host": n.name, "rank": g}],
            "evidence": [evd(p, marks[n.name][mark.format(g=g)], contains),
                         evd(p, marks[n.name]["rc"], f"exitcode  : 1 (pid: {n.pids[job.local(g)]})")]}


def fail_all(job, t_exit, script):
    """Every rank exited 1 on its own: each node's torchrun reports all of them (the first to
    exit is its root cause). Returns {node name: the root cause's rank}."""
    rng = job.rng
    first = {}
    for n in job.nodes:
        mine = sorted(((g, 1, t_exit[g]) for g in range(job.world) if job.node(g) is n), key=lambda x: x[2])
        first[n.name] = mine[0][0]
        torchrun_failed(job, n, mine[-1][2] + rng.randint(100_000, 900_000), script, mine, [], mark="rc")
    return first


def bad_node_failed_others_cancelled(job, bad, t_exit, t_hang, script, minutes):
    """One node's ranks failed at start-up (t_exit: when each exited): its torchrun reports
    them; the other nodes' ranks wait (in NCCL's bootstrap) until the job is cancelled
    `minutes` after the last of them started waiting. Returns the failed ranks' (rank, code,
    time), first to exit first."""
    rng = job.rng
    nb = next(n for n in job.nodes if n.name == bad)
    mine = sorted(((g, 1, t_exit[g]) for g in t_exit), key=lambda x: x[2])
    torchrun_failed(job, nb, mine[-1][2] + rng.randint(100_000, 900_000), script, mine, [], mark="rc")
    t_cancel = max(t_hang) + minutes * 60 * SEC + rng.randint(0, 60 * SEC)
    for n in job.nodes:
        if n is not nb:
            agent_cancelled(job, n, t_cancel + rng.randint(0, 400_000))
    return mine


# --------------------------------------------------------------------------------------------
# 1. torch built for CUDA 12.1, system toolkit 11.8: DeepSpeed refuses to JIT-build fused_adam


def scenario_build_cuda_mismatch(d):
    hosts = [("a100-r1", "10.20.1.11"), ("a100-r2", "10.20.1.12")]
    job = TorchJob(7101, hosts, 8, "v21", "NVIDIA A100-SXM4-80GB", 1_800_000, nch=16, iface="ib0")
    job.prefix = "default"  # torchrun --tee 3: [defaultL]: with the local rank
    rng = job.rng
    bundle = d / "bundle"
    site = job.v["site"]
    script = "train.py"
    t0 = us_of(2026, 2, 17, 8, 41, 3)
    common = dict(torch="2.1.2+cu121", ds="0.9.5", gpu="NVIDIA A100-SXM4-80GB", ngpu=8, driver="535.129.03",
                  driver_cuda="12.2", toolkits=["11.8"], cuda_link="11.8", nvcc="11.8",
                  workdir="/workspace/llm-sft", t_report=t0 - 160 * SEC)
    specs = [Host("a100-r1", "10.20.1.11", nvcc_path=["/usr/local/cuda-11.8/bin/nvcc"],
                  cuda_home="/usr/local/cuda-11.8", path_cuda=["/usr/local/cuda-11.8/bin"],
                  ld_cuda=["/usr/local/cuda-11.8/lib64"], **common),
             Host("a100-r2", "10.20.1.12", nvcc_path=["/usr/local/cuda/bin/nvcc"], cuda_home="/usr/local/cuda",
                  path_cuda=["/usr/local/cuda/bin"], ld_cuda=["/usr/local/cuda/lib64"], **common)]

    def cmd(n):
        return ["+ export NCCL_DEBUG=INFO NCCL_SOCKET_IFNAME=ib0 NCCL_IB_HCA=mlx5",
                "+ export TRANSFORMERS_VERBOSITY=info",
                f"+ torchrun --nnodes 2 --nproc_per_node 8 --node_rank {n.node_rank} --rdzv_backend c10d "
                f"--rdzv_endpoint a100-r1:29500 --tee 3 {script} --deepspeed configs/ds_zero2.json "
                "--model_name_or_path /mnt/models/llama-2-7b --data /mnt/data/alpaca_52k.json --bf16 "
                "--per_device_train_batch_size 4 --learning_rate 2e-5"]

    def first(g):
        return ds_first_lines(g, [lambda t, g=g: f"{hf_time(t)} - WARNING - __main__ - Process rank: {g}, device: "
                                                 f"cuda:{job.local(g)}, n_gpu: 1, distributed training: True, "
                                                 "16-bits training: False"])

    t = start_ranks(job, t0, cmd, first) + rng.randint(SEC, 2 * SEC)
    t = hf_args_dump(job, t, "TrainingArguments", sorted(dict(
        HF_ARGS_COMMON, bf16=True, deepspeed="configs/ds_zero2.json", learning_rate=2e-05, num_train_epochs=3,
        output_dir="/mnt/ckpt/llama2-7b-sft", per_device_train_batch_size=4, logging_steps=10,
        save_strategy="steps", save_steps=500).items()))
    job.say(0, t, f"{hf_time(t)} - INFO - __main__ - loading /mnt/data/alpaca_52k.json (52002 examples)")
    t = data_prep_lines(job, t + rng.randint(SEC, 2 * SEC), 52002)
    t += rng.randint(SEC, 3 * SEC)
    job.say(0, t, "\r" + "\r".join(
        f"Loading checkpoint shards: {p:3d}%|{'█' * (p // 10):<10}| {p // 50}/2 [00:{int(p // 50 * 7.2):02d}<"
        f"00:{int((2 - p // 50) * 7.2):02d}, {7.1 + rng.random():.2f}s/it]" for p in (0, 50, 100)))
    t = ds_engine_lines(job, t + rng.randint(14 * SEC, 18 * SEC), "0.9.5", job.world, "adamw")
    tb = ["Traceback (most recent call last):",
          '  File "/workspace/llm-sft/train.py", line 214, in <module>',
          "    main()",
          '  File "/workspace/llm-sft/train.py", line 176, in main',
          "    model_engine, optimizer, _, lr_scheduler = deepspeed.initialize(",
          f'  File "{site}/deepspeed/__init__.py", line 165, in initialize',
          "    engine = DeepSpeedEngine(args=args,",
          f'  File "{site}/deepspeed/runtime/engine.py", line 309, in __init__',
          "    self._configure_optimizer(optimizer, model_parameters)",
          f'  File "{site}/deepspeed/runtime/engine.py", line 1174, in _configure_optimizer',
          "    basic_optimizer = self._configure_basic_optimizer(model_parameters)",
          f'  File "{site}/deepspeed/runtime/engine.py", line 1236, in _configure_basic_optimizer',
          "    optimizer = FusedAdam(",
          f'  File "{site}/deepspeed/ops/adam/fused_adam.py", line 71, in __init__',
          "    fused_adam_cuda = FusedAdamBuilder().load()",
          f'  File "{site}/deepspeed/ops/op_builder/builder.py", line 454, in load',
          "    return self.jit_load(verbose)",
          f'  File "{site}/deepspeed/ops/op_builder/builder.py", line 480, in jit_load',
          "    assert_no_cuda_mismatch(self.name)",
          f'  File "{site}/deepspeed/ops/op_builder/builder.py", line 99, in assert_no_cuda_mismatch',
          '    raise Exception(f"Installed CUDA version {sys_cuda_version} does not match the "',
          "Exception: Installed CUDA version 11.8 does not match the version torch was compiled with 12.1, unable "
          "to compile cuda/cpp extensions without a matching cuda version."]
    t_fail = rank_times(job, t + rng.randint(300_000, 900_000), 0, 700_000)
    t_exit = {}
    for g in range(job.world):
        say_seq(job, g, t_fail[g], tb, {len(tb) - 1: f"exc{g}"}, gap=(200, 3000))
        t_exit[g] = t_fail[g] + 400_000 + rng.randint(0, 20_000)
    roots = fail_all(job, t_exit, script)
    marks = job.render(bundle, lambda n: f"nodes/{n.name}/train.log")
    vm = {h.name: write_versions(bundle, h, rng) for h in specs}
    h1 = specs[0]
    ce = vm[h1.name]["collect_env"]
    f = [{"code": "build.cuda_mismatch",
          "culprits": [{"host": h.name} for h in specs],
          "evidence": [evd(vpath(h1, "collect_env"), ce["torch_cuda"], "CUDA used to build PyTorch: 12.1"),
                       evd(vpath(h1, "collect_env"), ce["nvcc"], "CUDA runtime version: 11.8.89")]},
         first_failure(job, marks, t_fail, roots, "Exception: Installed CUDA version 11.8 does not match")]
    expected(d, "torch 2.1.2+cu121 with DeepSpeed 0.9.5 on 2 nodes x 8 A100, whose only CUDA toolkit is 11.8 "
                "(nvcc --version, collect_env, ds_report, /usr/local/cuda -> cuda-11.8): every rank's "
                "deepspeed.initialize raises 'Exception: Installed CUDA version 11.8 does not match the version "
                "torch was compiled with 12.1' when it JIT-loads fused_adam; torchrun --tee 3 ([defaultN]:) "
                "reports all 16 ranks failed.", f)
    check_lines(bundle, f)
    return None, f


# --------------------------------------------------------------------------------------------
# 2. Two toolkits on one host: PATH runs nvcc 11.8, LD_LIBRARY_PATH and CUDA_HOME name 12.1


def scenario_build_multiple_toolkits(d):
    hosts = [("sxm-n01", "10.30.2.21"), ("sxm-n02", "10.30.2.22")]
    job = TorchJob(7102, hosts, 8, "v23", "NVIDIA A100-SXM4-80GB", 1_800_000, nch=16, iface="ib0")
    rng = job.rng
    bundle = d / "bundle"
    n1, n2 = job.nodes
    script = "train.py"
    t0 = us_of(2026, 4, 2, 14, 7, 51)
    common = dict(torch="2.3.1+cu121", gpu="NVIDIA A100-SXM4-80GB", ngpu=8, driver="550.54.15", driver_cuda="12.4",
                  toolkits=["11.8", "12.1"], cuda_link="12.1", cuda_home="/usr/local/cuda-12.1",
                  ld_cuda=["/usr/local/cuda-12.1/lib64"], workdir="/workspace/router", t_report=t0 - 160 * SEC,
                  tk_date="Jan 22  2024")
    specs = [Host("sxm-n01", "10.30.2.21", nvcc="12.1", nvcc_path=["/usr/local/cuda-12.1/bin/nvcc"],
                  path_cuda=["/usr/local/cuda-12.1/bin"], **common),
             # The site's cuda/11.8 module, loaded at login, puts its bin/ in front of the user's 12.1.
             Host("sxm-n02", "10.30.2.22", nvcc="11.8", ds_nvcc="12.1", modules=["cuda/11.8"],
                  nvcc_path=["/usr/local/cuda-11.8/bin/nvcc", "/usr/local/cuda-12.1/bin/nvcc"],
                  path_cuda=["/usr/local/cuda-11.8/bin", "/usr/local/cuda-12.1/bin"], **common)]

    def cmd(n):
        return ["+ cd /workspace/router",
                "+ make -C csrc/topk_ext",
                "make: Entering directory '/workspace/router/csrc/topk_ext'",
                "nvcc -O3 -std=c++17 -gencode arch=compute_80,code=sm_80 -Xcompiler -fPIC -shared topk.cu -o "
                "libtopk.so -lcublas",
                "make: Leaving directory '/workspace/router/csrc/topk_ext'",
                "+ export TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE='[rank${rank}]:'",
                "+ export NCCL_DEBUG=INFO NCCL_SOCKET_IFNAME=ib0 NCCL_IB_HCA=mlx5",
                f"+ torchrun --nnodes 2 --nproc_per_node 8 --node_rank {n.node_rank} --rdzv_backend c10d "
                f"--rdzv_endpoint sxm-n01:29500 {script} --config configs/router_moe.yaml"]

    def first(g):
        return [lambda t, g=g: f"{pylog_time(t)} - train - INFO - rank {g}: config configs/router_moe.yaml "
                               "(experts=64, top_k=2, capacity_factor=1.25, log_level=info)",
                lambda t, g=g: f"{pylog_time(t)} - train - INFO - rank {g}: init_process_group(backend=nccl), "
                               "then barrier"]

    t = start_ranks(job, t0, cmd, first) + rng.randint(SEC, 2 * SEC)
    for i, line in enumerate(["model: RouterMoE(", "  (embed): Embedding(50304, 2048)",
                              "  (layers): ModuleList(", "    (0-23): 24 x MoEBlock(",
                              "      (attn): Attention(heads=16, kv_heads=16, rotary=True)",
                              "      (router): TopKRouter(experts=64, k=2, kernel=topk_ext)",
                              "      (experts): GroupedExperts(64 x SwiGLU(2048 -> 1408 -> 2048))",
                              "    )", "  )", "  (norm): RMSNorm(2048)", "  (head): Linear(2048 -> 50304)", ")"]):
        job.say(0, t + i * 20, f"{pylog_time(t)} - train - INFO - {line}" if i == 0 else line)
    t += rng.randint(SEC, 2 * SEC)
    tb = ["Traceback (most recent call last):",
          '  File "/workspace/router/train.py", line 188, in <module>',
          "    main()",
          '  File "/workspace/router/train.py", line 131, in main',
          "    model = build_model(cfg).cuda(local_rank)",
          '  File "/workspace/router/router/model.py", line 64, in build_model',
          "    from router.ops import topk_route",
          '  File "/workspace/router/router/ops.py", line 9, in <module>',
          '    _lib = ctypes.CDLL(os.path.join(_HERE, "..", "csrc", "topk_ext", "libtopk.so"))',
          '  File "/usr/lib/python3.10/ctypes/__init__.py", line 374, in __init__',
          "    self._handle = _dlopen(self._name, mode)",
          "OSError: libcublas.so.11: cannot open shared object file: No such file or directory"]
    # sxm-n02's libtopk.so was linked by nvcc 11.8 against libcublas.so.11, which no directory of
    # its LD_LIBRARY_PATH (12.1) holds; sxm-n01's was built by 12.1 and loads.
    t_fail, t_exit = {}, {}
    for g in range(job.world):
        tg = t + rng.randint(100_000, 900_000)
        if job.node(g) is n1:
            job.say(g, tg, f"{pylog_time(tg)} - train - INFO - rank {g}: topk_ext loaded "
                           "(/workspace/router/csrc/topk_ext/libtopk.so), wrapping in DDP")
            continue
        t_fail[g] = tg
        say_seq(job, g, tg, tb, {len(tb) - 1: f"exc{g}"}, gap=(300, 4000))
        t_exit[g] = tg + 350_000 + rng.randint(0, 20_000)
    first_g = min(t_fail, key=lambda r: t_fail[r])
    mine = sorted(((g, 1, t_exit[g]) for g in t_fail), key=lambda x: x[2])
    torchrun_failed(job, n2, mine[-1][2] + rng.randint(100_000, 900_000), script, mine, [], mark="rc")
    peers_abort(job, n1, max(t_exit.values()) + rng.randint(SEC, 2 * SEC), n2.name, script)
    marks = job.render(bundle, lambda n: f"nodes/{n.name}/train.log")
    vm = {h.name: write_versions(bundle, h, rng) for h in specs}
    h2 = specs[1]
    ce, env = vm[h2.name]["collect_env"], vm[h2.name]["env"]
    f = [{"code": "build.multiple_toolkits",
          "culprits": [{"host": h2.name}],
          "evidence": [evd(epath(h2), env["PATH"], "PATH=/usr/local/cuda-11.8/bin:/usr/local/cuda-12.1/bin:"),
                       evd(epath(h2), env["CUDA_HOME"], "CUDA_HOME=/usr/local/cuda-12.1")]},
         {"code": "build.cuda_mismatch",
          "culprits": [{"host": h2.name}],
          "evidence": [evd(vpath(h2, "collect_env"), ce["torch_cuda"], "CUDA used to build PyTorch: 12.1"),
                       evd(vpath(h2, "collect_env"), ce["nvcc"], "CUDA runtime version: 11.8.89")]},
         first_failure(job, marks, t_fail, {n2.name: first_g},
                       "OSError: libcublas.so.11: cannot open shared object file"),
         # The loader's refusal itself: the library was linked for CUDA 11, whose cuBLAS no
         # directory of LD_LIBRARY_PATH holds. The first such line of the host, in file order.
         {"code": "build.load_failed",
          "culprits": [{"host": h2.name}],
          "evidence": [evd(f"nodes/{n2.name}/train.log", min(marks[n2.name][f"exc{g}"] for g in t_fail),
                           "OSError: libcublas.so.11: cannot open shared object file")]}]
    expected(d, "torch 2.3.1+cu121 on 2 nodes x 8 A100, CUDA 11.8 and 12.1 installed on both; sxm-n01 points "
                "PATH, LD_LIBRARY_PATH and CUDA_HOME at 12.1, sxm-n02's cuda/11.8 module puts 11.8's bin/ first on "
                "PATH while LD_LIBRARY_PATH and CUDA_HOME name 12.1 (which -a nvcc lists 11.8 then 12.1; "
                "nvcc --version and collect_env say 11.8, ds_report, which asks CUDA_HOME's nvcc, says 12.1). The "
                "job's make step links a small cuBLAS kernel with whichever nvcc is first on PATH: on sxm-n02 "
                "the library needs libcublas.so.11 and every rank fails to load it (OSError); sxm-n01's ranks "
                "then abort on ncclRemoteError.", f)
    check_lines(bundle, f)
    return None, f


# --------------------------------------------------------------------------------------------
# 3. nvcc 11.8 with gcc 12: host_config.h's #error stops DeepSpeed's fused_adam build


def ds_init_head(site, script_path, line_main, line_init):
    """Frames from the training script down to DeepSpeed's FusedAdam op load."""
    return [f'  File "{script_path}", line {line_main}, in <module>',
            "    main()",
            f'  File "{script_path}", line {line_init}, in main',
            "    engine, optimizer, _, _ = deepspeed.initialize(model=model, model_parameters=params, "
            "config=args.deepspeed)",
            f'  File "{site}/deepspeed/__init__.py", line 181, in initialize',
            "    engine = DeepSpeedEngine(args=args,",
            f'  File "{site}/deepspeed/runtime/engine.py", line 307, in __init__',
            "    self._configure_optimizer(optimizer, model_parameters)",
            f'  File "{site}/deepspeed/runtime/engine.py", line 1231, in _configure_optimizer',
            "    basic_optimizer = self._configure_basic_optimizer(model_parameters)",
            f'  File "{site}/deepspeed/runtime/engine.py", line 1308, in _configure_basic_optimizer',
            "    optimizer = FusedAdam(",
            f'  File "{site}/deepspeed/ops/adam/fused_adam.py", line 94, in __init__',
            "    fused_adam_cuda = FusedAdamBuilder().load()"]


def torch_includes(site, cuda_inc, py="python3.10"):
    return (f"-isystem {site}/torch/include -isystem {site}/torch/include/torch/csrc/api/include "
            f"-isystem {site}/torch/include/TH -isystem {site}/torch/include/THC -isystem {cuda_inc} "
            f"-isystem /usr/include/{py}")


def fused_adam_cmds(site, cuda, arch_flags):
    defs = ('-DTORCH_EXTENSION_NAME=fused_adam -DTORCH_API_INCLUDE_EXTENSION_H -DPYBIND11_COMPILER_TYPE=\\"_gcc\\" '
            '-DPYBIND11_STDLIB=\\"_libstdcpp\\" -DPYBIND11_BUILD_ABI=\\"_cxxabi1011\\"')
    inc = (f"-I{site}/deepspeed/ops/csrc/includes -I{site}/deepspeed/ops/csrc/adam "
           + torch_includes(site, f"{cuda}/include"))
    nvcc = (f"{cuda}/bin/nvcc --generate-dependencies-with-compile --dependency-output multi_tensor_adam.cuda.o.d "
            f"{defs} {inc} -D_GLIBCXX_USE_CXX11_ABI=0 -D__CUDA_NO_HALF_OPERATORS__ -D__CUDA_NO_HALF_CONVERSIONS__ "
            "-D__CUDA_NO_BFLOAT16_CONVERSIONS__ -D__CUDA_NO_HALF2_OPERATORS__ --expt-relaxed-constexpr "
            f"{arch_flags} --compiler-options '-fPIC' -O3 -DVERSION_GE_1_1 -DVERSION_GE_1_3 -DVERSION_GE_1_5 "
            f"-lineinfo --use_fast_math {arch_flags} -DBF16_AVAILABLE -U__CUDA_NO_BFLOAT16_OPERATORS__ "
            "-U__CUDA_NO_BFLOAT162_OPERATORS__ -U__CUDA_NO_BFLOAT16_CONVERSIONS__ -std=c++17 -c "
            f"{site}/deepspeed/ops/csrc/adam/multi_tensor_adam.cu -o multi_tensor_adam.cuda.o ")
    cxx = (f"c++ -MMD -MF fused_adam_frontend.o.d {defs} {inc} -D_GLIBCXX_USE_CXX11_ABI=0 -fPIC -std=c++17 -O3 "
           "-std=c++17 -g -Wno-reorder -DVERSION_GE_1_1 -DVERSION_GE_1_3 -DVERSION_GE_1_5 -DBF16_AVAILABLE -c "
           f"{site}/deepspeed/ops/csrc/adam/fused_adam_frontend.cpp -o fused_adam_frontend.o ")
    link = (f"c++ fused_adam_frontend.o multi_tensor_adam.cuda.o -shared -L{site}/torch/lib -lc10 -lc10_cuda "
            f"-ltorch_cpu -ltorch_cuda -ltorch -ltorch_python -L{cuda}/lib64 -lcudart -o fused_adam.so")
    return nvcc, cxx, link


HOST_CONFIG_ERROR = ("#error -- unsupported GNU version! gcc versions later than 11 are not supported! The nvcc flag "
                     "'-allow-unsupported-compiler' can be used to override this version check; however, using an "
                     "unsupported host compiler may cause compilation failure or incorrect run time execution. Use "
                     "at your own risk.")


def scenario_build_compiler_unsupported(d):
    hosts = [("gpu-c-21", "10.12.0.21"), ("gpu-c-22", "10.12.0.22")]
    job = TorchJob(7103, hosts, 4, "v23", "NVIDIA A100-SXM4-80GB", 1_800_000, nch=16, iface="ib0",
                   torch="2.2.2+cu118", cuda="11.8", cuda_rt="11.8.89", nccl="2.19.3", cuda_drv="12020",
                   driver="535.161.08")
    rng = job.rng
    bundle = d / "bundle"
    site = job.v["site"]
    script = "sft.py"
    t0 = us_of(2026, 5, 20, 19, 22, 8)
    common = dict(torch="2.2.2+cu118", ds="0.14.0", gpu="NVIDIA A100-SXM4-80GB", ngpu=4, driver="535.161.08",
                  driver_cuda="12.2", toolkits=["11.8"], cuda_link="11.8", nvcc="11.8",
                  nvcc_path=["/usr/local/cuda-11.8/bin/nvcc"], cuda_home="/usr/local/cuda-11.8",
                  path_cuda=["/usr/local/cuda-11.8/bin"], ld_cuda=["/usr/local/cuda-11.8/lib64"], gcc="12.3.0",
                  workdir="/workspace/sft", t_report=t0 - 160 * SEC, tk_date="Feb  6  2024")
    specs = [Host(n, ip, **common) for n, ip in hosts]
    cuda = "/usr/local/cuda-11.8"
    ext_root = "/root/.cache/torch_extensions/py310_cu118"
    nvcc_cmd, cxx_cmd, _ = fused_adam_cmds(site, cuda, "-gencode=arch=compute_80,code=sm_80 "
                                                       "-gencode=arch=compute_80,code=compute_80")

    def cmd(n):
        return ["+ export TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE='[rank${rank}]:'",
                "+ export NCCL_DEBUG=INFO NCCL_SOCKET_IFNAME=ib0 NCCL_IB_HCA=mlx5",
                f"+ torchrun --nnodes 2 --nproc_per_node 4 --node_rank {n.node_rank} --rdzv_backend c10d "
                f"--rdzv_endpoint gpu-c-21:29500 {script} --deepspeed configs/ds_zero1.json --model "
                "/mnt/models/mistral-7b --bf16"]

    def first(g):
        return ds_first_lines(g, [lambda t, g=g: f"{hf_time(t)} - WARNING - __main__ - Process rank: {g}, device: "
                                                 f"cuda:{job.local(g)}, n_gpu: 1, distributed training: True, "
                                                 "16-bits training: False"])

    t = start_ranks(job, t0, cmd, first) + rng.randint(SEC, 2 * SEC)
    t = hf_args_dump(job, t, "TrainingArguments", sorted(dict(
        HF_ARGS_COMMON, bf16=True, deepspeed="configs/ds_zero1.json", learning_rate=1e-05, num_train_epochs=2,
        output_dir="/mnt/ckpt/mistral-7b-sft", per_device_train_batch_size=2, logging_steps=5).items()))
    t = data_prep_lines(job, t + rng.randint(SEC, 2 * SEC), 61135)
    t = ds_engine_lines(job, t + rng.randint(12 * SEC, 16 * SEC), "0.14.0", job.world, "adamw")
    head = ds_init_head(site, "/workspace/sft/sft.py", 231, 189)
    t_use = rank_times(job, t + rng.randint(100_000, 300_000), 0, 400_000)
    t_fail, t_exit = {}, {}
    for n in job.nodes:
        ranks = sorted((g for g in range(job.world) if job.node(g) is n), key=lambda g: t_use[g])
        builder = ranks[0]  # the first to take the lock file builds, the others wait for it
        for g in ranks:
            job.say(g, t_use[g], f"Using {ext_root} as PyTorch extensions root...")
        tb = t_use[builder] + rng.randint(2000, 9000)
        # The second node starts its build later (its ranks waited longer on
        # the data), so the logs tell which build failed first.
        if n is not job.nodes[0]:
            tb += 15 * SEC
        build = [f"Creating extension directory {ext_root}/fused_adam...",
                 "Detected CUDA files, patching ldflags",
                 f"Emitting ninja build file {ext_root}/fused_adam/build.ninja...",
                 "Building extension module fused_adam...",
                 "Allowing ninja to set a default number of workers... (overridable by setting the environment "
                 "variable MAX_JOBS=N)",
                 f"[1/3] {nvcc_cmd}",
                 f"FAILED: multi_tensor_adam.cuda.o ",
                 nvcc_cmd,
                 f"In file included from {cuda}/include/cuda_runtime.h:83,",
                 "                 from <command-line>:",
                 f"{cuda}/include/crt/host_config.h:132:2: error: {HOST_CONFIG_ERROR}",
                 f"  132 | {HOST_CONFIG_ERROR}",
                 "      |  ^~~~~",
                 f"[2/3] {cxx_cmd}",
                 f"In file included from {site}/torch/include/ATen/core/TensorBody.h:38,",
                 f"                 from {site}/torch/include/ATen/core/Tensor.h:3,",
                 f"                 from {site}/deepspeed/ops/csrc/adam/fused_adam_frontend.cpp:6:",
                 f"{site}/torch/include/c10/util/Optional.h:212:5: warning: '<anonymous>' may be used "
                 "uninitialized [-Wmaybe-uninitialized]",
                 "  212 |     constexpr_storage_t(trivial_init_t) noexcept : dummy_(){};",
                 "      |     ^~~~~~~~~~~~~~~~~~~",
                 "ninja: build stopped: subcommand failed."]
        tt = tb
        for i, line in enumerate(build):
            job.say(builder, tt, line, {0: f"err_{n.name}"} if "host_config.h:132:2: error" in line else None)
            tt += rng.randint(300, 2000) if i != 5 else rng.randint(2 * SEC, 4 * SEC)
        tb_lines = ninja_failure_tb(site, head + cpp_ext_frames(site, 1710), "fused_adam")
        tt = say_seq(job, builder, tt + rng.randint(20_000, 60_000), tb_lines, {len(tb_lines) - 1: f"exc{builder}"})
        t_fail[builder] = tt
        t_exit[builder] = tt + 300_000
        # The lock is released when the build fails: the others find no library.
        for g in ranks[1:]:
            tw = tt + rng.randint(150_000, 600_000)
            job.say(g, tw, "Loading extension module fused_adam...")
            te = say_seq(job, g, tw + rng.randint(500, 3000),
                         import_failure_tb(site, head + cpp_ext_frames(site, 1735),
                                           f"{ext_root}/fused_adam/fused_adam.so", "fused_adam"))
            t_fail[g] = tw
            t_exit[g] = te + 300_000 + rng.randint(0, 20_000)
    roots = fail_all(job, t_exit, script)
    marks = job.render(bundle, lambda n: f"nodes/{n.name}/train.log")
    for h in specs:
        write_versions(bundle, h, rng)
    n1 = job.nodes[0]
    builders = {n.name: roots[n.name] for n in job.nodes}
    p1 = f"nodes/{n1.name}/train.log"
    err = "host_config.h:132:2: error: #error -- unsupported GNU version! gcc versions later than 11 are not supported!"
    f = [{"code": "build.compiler_unsupported",
          "culprits": [{"host": h.name} for h in specs],
          "evidence": [evd(p1, marks[n1.name][f"err_{n1.name}"], err)]},
         {"code": "build.extension_failed",
          "culprits": [{"host": n.name, "rank": builders[n.name]} for n in job.nodes],
          "evidence": [evd(p1, marks[n1.name][f"err_{n1.name}"], err)]},
         first_failure(job, marks, t_fail, roots, "RuntimeError: Error building extension 'fused_adam'")]
    expected(d, "torch 2.2.2+cu118 + DeepSpeed 0.14.0 on 2 nodes x 4 A100 with CUDA 11.8 and gcc 12.3.0 (Ubuntu's "
                "gcc-12 as the default compiler): on each node the rank that takes the extension's lock file first "
                "(rank 0 on gpu-c-21, rank 7 on gpu-c-22) JIT-builds fused_adam and nvcc's "
                "host_config.h stops it ('#error -- unsupported GNU version! gcc versions later than 11 are not "
                "supported!'), ninja stops, the build raises RuntimeError: Error building extension 'fused_adam' "
                "(chained after CalledProcessError); the other ranks, which waited on the lock, fail to import the "
                "missing fused_adam.so.", f)
    check_lines(bundle, f)
    return None, f


# --------------------------------------------------------------------------------------------
# 4. A prebuilt extension without sm_90: no kernel image on the H100s


def scenario_build_arch_mismatch(d):
    hosts = [("h100-p01", "10.50.0.11"), ("h100-p02", "10.50.0.12")]
    job = TorchJob(7104, hosts, 8, "v23", "NVIDIA H100 80GB HBM3", 1_800_000, nch=16, iface="ib0",
                   driver="550.54.15")
    rng = job.rng
    bundle = d / "bundle"
    site = job.v["site"]
    script = "pretrain.py"
    t0 = us_of(2026, 6, 9, 2, 15, 40)
    common = dict(torch="2.3.1+cu121", gpu="NVIDIA H100 80GB HBM3", ngpu=8, driver="550.54.15", driver_cuda="12.4",
                  toolkits=["12.1"], cuda_link="12.1", nvcc="12.1", nvcc_path=["/usr/local/cuda/bin/nvcc"],
                  cuda_home="/usr/local/cuda", path_cuda=["/usr/local/cuda/bin"], ld_cuda=["/usr/local/cuda/lib64"],
                  arch_list="7.0;8.0;8.6", pip={"llm-kernels": "file:///opt/src/llm-kernels"},
                  workdir="/workspace/pretrain", t_report=t0 - 160 * SEC, tk_date="Mar 30  2024",
                  cpu="Intel(R) Xeon(R) Platinum 8480+")
    specs = [Host(n, ip, **common) for n, ip in hosts]

    def cmd(n):
        return ["+ export TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE='[rank${rank}]:'",
                "+ export NCCL_DEBUG=INFO NCCL_SOCKET_IFNAME=ib0 NCCL_IB_HCA=mlx5",
                f"+ torchrun --nnodes 2 --nproc_per_node 8 --node_rank {n.node_rank} --rdzv_backend c10d "
                f"--rdzv_endpoint h100-p01:29500 {script} --config configs/llama_3b.yaml"]

    def first(g):
        return [lambda t, g=g: f"{pylog_time(t)} - pretrain - INFO - rank {g}: llm_kernels 0.2.1 "
                               f"({site}/llm_kernels): fused_rmsnorm, fused_rotary, swiglu",
                lambda t, g=g: f"{pylog_time(t)} - pretrain - INFO - rank {g}: cuda:{job.local(g)} "
                               f"NVIDIA H100 80GB HBM3, capability (9, 0), torch arch list sm_50 sm_60 sm_70 "
                               "sm_75 sm_80 sm_86 sm_90"]

    t = start_ranks(job, t0, cmd, first) + rng.randint(SEC, 2 * SEC)
    cfg = ["model: llama", "  dim: 3072", "  n_layers: 28", "  n_heads: 24", "  vocab_size: 128256",
           "  norm: fused_rmsnorm", "  rope: fused_rotary", "train:", "  seq_len: 4096", "  micro_batch: 4",
           "  lr: 3.0e-4", "  warmup: 2000", "  steps: 60000", "  precision: bf16"]
    job.say(0, t, [f"{pylog_time(t)} - pretrain - INFO - config:"] + [f"  {c}" for c in cfg])
    t += rng.randint(3 * SEC, 6 * SEC)
    for g in range(job.world):
        tg = t + rng.randint(0, SEC)
        job.say(g, tg, f"{pylog_time(tg)} - pretrain - INFO - rank {g}: model built (3.21B parameters), DDP "
                       f"bucket_cap_mb=100, data shard {g:03d}")
    t += 2 * SEC
    job.say(0, t, f"{pylog_time(t)} - pretrain - INFO - starting training at step 1")
    tb = ["Traceback (most recent call last):",
          '  File "/workspace/pretrain/pretrain.py", line 402, in <module>',
          "    main(cfg)",
          '  File "/workspace/pretrain/pretrain.py", line 371, in main',
          "    loss = train_step(model, batch, optimizer)",
          '  File "/workspace/pretrain/pretrain.py", line 233, in train_step',
          "    logits = model(batch[\"input_ids\"])",
          f'  File "{site}/torch/nn/modules/module.py", line 1532, in _wrapped_call_impl',
          "    return self._call_impl(*args, **kwargs)",
          f'  File "{site}/torch/nn/modules/module.py", line 1541, in _call_impl',
          "    return forward_call(*args, **kwargs)",
          f'  File "{site}/torch/nn/parallel/distributed.py", line 1593, in forward',
          "    else self._run_ddp_forward(*inputs, **kwargs)",
          f'  File "{site}/torch/nn/parallel/distributed.py", line 1411, in _run_ddp_forward',
          "    return self.module(*inputs, **kwargs)  # type: ignore[index]",
          f'  File "{site}/torch/nn/modules/module.py", line 1541, in _call_impl',
          "    return forward_call(*args, **kwargs)",
          '  File "/workspace/pretrain/model/llama.py", line 188, in forward',
          "    h = layer(h, freqs)",
          f'  File "{site}/torch/nn/modules/module.py", line 1541, in _call_impl',
          "    return forward_call(*args, **kwargs)",
          '  File "/workspace/pretrain/model/llama.py", line 131, in forward',
          "    h = x + self.attn(self.attn_norm(x), freqs)",
          f'  File "{site}/torch/nn/modules/module.py", line 1541, in _call_impl',
          "    return forward_call(*args, **kwargs)",
          f'  File "{site}/llm_kernels/rmsnorm.py", line 58, in forward',
          "    return FusedRMSNormFunction.apply(x, self.weight, self.eps)",
          f'  File "{site}/torch/autograd/function.py", line 598, in apply',
          "    return super().apply(*args, **kwargs)  # type: ignore[misc]",
          f'  File "{site}/llm_kernels/rmsnorm.py", line 21, in forward',
          "    out, rstd = _C.rms_norm_fwd(x, weight, eps)",
          "RuntimeError: CUDA error: no kernel image is available for execution on the device",
          "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below "
          "might be incorrect.",
          "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
          "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.",
          ""]
    i_err = tb.index("RuntimeError: CUDA error: no kernel image is available for execution on the device")
    # Each rank starts step 1 when its first batch is ready (h100-p02 reads its shards later).
    t_fail = rank_times(job, t + rng.randint(SEC, 3 * SEC), 0, 1_500_000)
    for g in range(job.world):
        if job.node(g).node_rank:
            t_fail[g] += 2_500_000
    t_exit = {}
    for g in range(job.world):
        job.say(g, t_fail[g] - rng.randint(2000, 9000),
                f"{pylog_time(t_fail[g])} - pretrain - INFO - rank {g}: step 1: batch of 4 x 4096 tokens from shard "
                f"{g:03d}-00000")
        say_seq(job, g, t_fail[g], tb, {i_err: f"exc{g}"}, gap=(200, 3000))
        t_exit[g] = t_fail[g] + 500_000 + rng.randint(0, 20_000)
    roots = fail_all(job, t_exit, script)
    marks = job.render(bundle, lambda n: f"nodes/{n.name}/train.log")
    vm = {h.name: write_versions(bundle, h, rng) for h in specs}
    h1 = specs[0]
    first_g = min(t_fail, key=lambda r: t_fail[r])
    pf = f"nodes/{job.node(first_g).name}/train.log"
    f = [{"code": "build.arch_mismatch",
          "culprits": [{"host": n.name} for n in job.nodes],
          "evidence": [evd(epath(h1), vm[h1.name]["env"]["TORCH_CUDA_ARCH_LIST"], "TORCH_CUDA_ARCH_LIST=7.0;8.0;8.6"),
                       evd(vpath(h1, "nvidia_smi_query"), vm[h1.name]["nvidia_smi_query"]["gpu0"],
                           "0, NVIDIA H100 80GB HBM3, 9.0, 550.54.15"),
                       evd(pf, marks[job.node(first_g).name][f"exc{first_g}"],
                           "RuntimeError: CUDA error: no kernel image is available for execution on the device")]},
         first_failure(job, marks, t_fail, roots, "CUDA error: no kernel image is available for execution on the "
                                                  "device")]
    expected(d, "torch 2.3.1+cu121 on 2 nodes x 8 H100 (compute capability 9.0 in nvidia-smi's CSV) with an "
                "extension package (llm-kernels, installed from /opt/src) built under TORCH_CUDA_ARCH_LIST="
                "'7.0;8.0;8.6', still set in the environment: at step 1 every rank's fused RMSNorm kernel fails "
                "with 'CUDA error: no kernel image is available for execution on the device' (torch's asynchronous-"
                "report advice after it) and torchrun reports all 16 ranks failed.", f)
    check_lines(bundle, f)
    return None, f


# --------------------------------------------------------------------------------------------
# 5. A long ninja build of a C++/CUDA extension fails at one nvcc error


def moe_sources():
    """The sources of the moe_kernels extension, in the (sorted) order load() is given them."""
    src = ["csrc/bindings.cpp"]
    tiles = ["64x64", "64x128", "128x64", "128x128", "128x256", "256x128"]
    for dt in ("bf16", "fp16"):
        for tile in tiles:
            for st in (2, 3, 4, 5):
                src.append(f"csrc/gemm/instantiations/dense_gemm_{dt}_{tile}_s{st}.cu")
    for dt in ("bf16", "fp16"):
        for tile in tiles:
            for st in (2, 3, 4, 5):
                for epi in ("gelu", "none", "silu", "swiglu"):
                    src.append(f"csrc/gemm/instantiations/grouped_gemm_{dt}_{tile}_s{st}_{epi}.cu")
    src += ["csrc/ops.cpp"]
    src += [f"csrc/permute/{x}.cu" for x in ("align", "histogram", "permute_bwd", "permute_fwd", "unpermute_bwd",
                                             "unpermute_fwd")]
    src += ["csrc/registration.cpp"]
    src += [f"csrc/topk/{x}.cu" for x in ("topk_backward", "topk_gating", "topk_softmax")]
    return sorted(src)


def moe_object(path):
    base = path.rsplit("/", 1)[1]
    return base[:-3] + ".cuda.o" if base.endswith(".cu") else base[:-4] + ".o"


EPI = {"gelu": "moe::Gelu", "none": "moe::Identity", "silu": "moe::Silu", "swiglu": "moe::SwiGLU"}


def moe_warning(root, path):
    """nvcc's template warning from the grouped GEMM kernel header, once per instantiation file."""
    parts = path.rsplit("/", 1)[1][:-3].split("_")  # grouped gemm bf16 128x128 s3 silu
    dt = "__nv_bfloat16" if parts[2] == "bf16" else "__half"
    tm, tn = parts[3].split("x")
    return [f"{root}/csrc/gemm/grouped_gemm_kernel.cuh(87): warning #177-D: variable \"idx\" was declared but never "
            "referenced",
            "        int idx = blockIdx.x * TileM + threadIdx.x;",
            "            ^",
            "          detected during instantiation of \"void moe::grouped_gemm_kernel<T,TileM,TileN,Stages,Epi>("
            "const T *, const T *, T *, const int64_t *, int, int) [with T=" + dt + f", TileM={tm}, TileN={tn}, "
            f"Stages={parts[4][1:]}, Epi={EPI[parts[5]]}]\" at line 14 of {root}/{path}",
            "",
            "Remark: The warnings can be suppressed with \"-diag-suppress <warning-number>\"",
            ""]


def scenario_build_extension_failed(d):
    hosts = [("gpu-e-01", "10.60.0.11"), ("gpu-e-02", "10.60.0.12")]
    job = TorchJob(7105, hosts, 4, "v23", "NVIDIA A100-SXM4-80GB", 1_800_000, nch=16, iface="ib0")
    rng = job.rng
    bundle = d / "bundle"
    site = job.v["site"]
    script = "train_moe.py"
    root = "/workspace/moe"
    t0 = us_of(2026, 7, 14, 11, 2, 26)
    common = dict(torch="2.3.1+cu121", gpu="NVIDIA A100-SXM4-80GB", ngpu=4, driver="550.54.15", driver_cuda="12.4",
                  toolkits=["12.1"], cuda_link="12.1", nvcc="12.1", nvcc_path=["/usr/local/cuda/bin/nvcc"],
                  cuda_home="/usr/local/cuda", path_cuda=["/usr/local/cuda/bin"], ld_cuda=["/usr/local/cuda/lib64"],
                  arch_list="8.0", workdir=root, t_report=t0 - 160 * SEC, tk_date="Mar 30  2024",
                  env=[("TORCH_EXTENSIONS_DIR", "/mnt/shared/torch_extensions"), ("MAX_JOBS", "16")])
    specs = [Host(n, ip, **common) for n, ip in hosts]
    n2 = job.nodes[1]
    builder = 5  # gpu-e-02, local rank 1: the first to take the lock on the shared extensions dir
    ext_root = "/mnt/shared/torch_extensions/py310_cu121"

    def cmd(n):
        return ["+ export TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE='[rank${rank}]:'",
                "+ export NCCL_DEBUG=INFO NCCL_SOCKET_IFNAME=ib0 NCCL_IB_HCA=mlx5",
                f"+ torchrun --nnodes 2 --nproc_per_node 4 --node_rank {n.node_rank} --rdzv_backend c10d "
                f"--rdzv_endpoint gpu-e-01:29500 {script} --config configs/moe_16x1b.yaml"]

    def first(g):
        return [lambda t, g=g: f"{pylog_time(t)} - train_moe - INFO - rank {g}: config configs/moe_16x1b.yaml "
                               "(experts=16, top_k=2, grouped_gemm=moe_kernels)"]

    t = start_ranks(job, t0, cmd, first) + rng.randint(SEC, 2 * SEC)
    srcs = moe_sources()
    total = len(srcs) + 1
    t_use = rank_times(job, t, 0, 600_000)
    for g in range(job.world):
        job.say(g, t_use[g], [f"{pylog_time(t_use[g])} - train_moe - INFO - rank {g}: loading moe_kernels "
                              f"({len(srcs)} sources, JIT on first use)",
                              f"Using {ext_root} as PyTorch extensions root..."])
    tb = t_use[builder] + rng.randint(3000, 20_000)
    defs = ('-DTORCH_EXTENSION_NAME=moe_kernels -DTORCH_API_INCLUDE_EXTENSION_H -DPYBIND11_COMPILER_TYPE=\\"_gcc\\" '
            '-DPYBIND11_STDLIB=\\"_libstdcpp\\" -DPYBIND11_BUILD_ABI=\\"_cxxabi1011\\"')
    inc = f"-I{root}/csrc -I{root}/third_party/cutlass/include " + torch_includes(site, "/usr/local/cuda/include")

    def command(path):
        obj = moe_object(path)
        if path.endswith(".cpp"):
            return (f"c++ -MMD -MF {obj}.d {defs} {inc} -D_GLIBCXX_USE_CXX11_ABI=0 -fPIC -std=c++17 -O3 -c "
                    f"{root}/{path} -o {obj} ")
        return (f"/usr/local/cuda/bin/nvcc --generate-dependencies-with-compile --dependency-output {obj}.d {defs} "
                f"{inc} -D_GLIBCXX_USE_CXX11_ABI=0 -D__CUDA_NO_HALF_OPERATORS__ -D__CUDA_NO_HALF_CONVERSIONS__ "
                "-D__CUDA_NO_BFLOAT16_CONVERSIONS__ -D__CUDA_NO_HALF2_OPERATORS__ --expt-relaxed-constexpr "
                "-gencode=arch=compute_80,code=sm_80 --compiler-options '-fPIC' -O3 --use_fast_math "
                f"--expt-extended-lambda -lineinfo -std=c++17 -c {root}/{path} -o {obj} ")

    bad = "csrc/topk/topk_gating.cu"
    # ninja prints an edge when it finishes: the order of the sources, give or take the 16 jobs.
    order = sorted(range(len(srcs)), key=lambda i: i + rng.random() * 14)
    k_bad = order.index(srcs.index(bad))
    # After the failure ninja starts nothing new; the edges still running finish and print.
    shown = order[:k_bad + 1] + [i for i in order[k_bad + 1:] if i < srcs.index(bad) + 16][:9]
    out = [f"Creating extension directory {ext_root}/moe_kernels...",
           "Detected CUDA files, patching ldflags",
           f"Emitting ninja build file {ext_root}/moe_kernels/build.ninja...",
           "Building extension module moe_kernels...",
           "Using envvar MAX_JOBS (16) as the number of workers..."]
    tt = tb
    for line in out:
        job.say(builder, tt, line)
        tt += rng.randint(500, 4000)
    for k, i in enumerate(shown, 1):
        path = srcs[i]
        tt += rng.randint(1 * SEC, 5 * SEC)
        lines = [f"[{k}/{total}] {command(path)}"]
        marks = None
        if i == srcs.index(bad):
            lines += [f"FAILED: {moe_object(path)} ", command(path),
                      f"{root}/{path}(131): warning #550-D: variable \"err\" was set but never used",
                      "      cudaError_t err = cudaGetLastError();",
                      "                  ^",
                      "",
                      "Remark: The warnings can be suppressed with \"-diag-suppress <warning-number>\"",
                      "",
                      f"{root}/{path}(212): error: identifier \"kMaxExpertsPerToken\" is undefined",
                      "      if (k > kMaxExpertsPerToken) {",
                      "              ^",
                      "",
                      f"{root}/{path}(248): error: no instance of function template \"moe::topk_gating_kernel\" "
                      "matches the argument list",
                      "            argument types are: (const float *, float *, int32_t *, int, int, int)",
                      "      moe::topk_gating_kernel<kWarpsPerBlock><<<grid, block, 0, stream>>>(",
                      "      ^",
                      "",
                      f"2 errors detected in the compilation of \"{root}/{path}\"."]
            marks = {next(j for j, x in enumerate(lines) if "): error: " in x): "first_error"}
        elif "grouped_gemm" in path:
            lines += moe_warning(root, path)
        elif path == "csrc/bindings.cpp":
            lines += [f"{root}/csrc/bindings.cpp: In function 'at::Tensor moe::grouped_gemm(const at::Tensor&, "
                      "const at::Tensor&, const at::Tensor&, bool)':",
                      f"{root}/csrc/bindings.cpp:41:17: warning: unused variable 'num_tokens' [-Wunused-variable]",
                      "   41 |     const int64_t num_tokens = input.size(0);",
                      "      |                 ^~~~~~~~~~"]
        job.say(builder, tt, lines, marks)
    tt += rng.randint(1000, 9000)
    job.say(builder, tt, "ninja: build stopped: subcommand failed.")
    head = [f'  File "{root}/{script}", line 266, in <module>',
            "    main()",
            f'  File "{root}/{script}", line 149, in main',
            "    model = build_model(cfg)",
            f'  File "{root}/moe/model.py", line 37, in build_model',
            "    from moe.kernels import ops",
            f'  File "{root}/moe/kernels/__init__.py", line 18, in <module>',
            "    ops = load("]
    tbl = ninja_failure_tb(site, head + cpp_ext_frames(site, 1710, deepspeed=False), "moe_kernels")
    tt = say_seq(job, builder, tt + rng.randint(30_000, 90_000), tbl, {len(tbl) - 1: f"exc{builder}"})
    t_fail = {builder: tt}
    t_exit = {builder: tt + 300_000}
    # The lock file on the shared directory is released: every other rank finds no library.
    for g in range(job.world):
        if g == builder:
            continue
        tw = tt + rng.randint(200_000, 900_000) + (0 if job.node(g) is n2 else 1_200_000)
        job.say(g, tw, "Loading extension module moe_kernels...")
        te = say_seq(job, g, tw + rng.randint(500, 3000),
                     import_failure_tb(site, head + cpp_ext_frames(site, 1735, deepspeed=False),
                                       f"{ext_root}/moe_kernels/moe_kernels.so", "moe_kernels"))
        t_fail[g] = tw
        t_exit[g] = te + 300_000 + rng.randint(0, 20_000)
    roots = fail_all(job, t_exit, script)
    marks = job.render(bundle, lambda n: f"nodes/{n.name}/train.log")
    for h in specs:
        write_versions(bundle, h, rng)
    p2 = f"nodes/{n2.name}/train.log"
    f = [{"code": "build.extension_failed",
          "culprits": [{"host": n2.name, "rank": builder}],
          "evidence": [evd(p2, marks[n2.name]["first_error"],
                           f"{root}/{bad}(212): error: identifier \"kMaxExpertsPerToken\" is undefined")]},
         first_failure(job, marks, t_fail, roots, "RuntimeError: Error building extension 'moe_kernels'")]
    expected(d, f"torch 2.3.1+cu121 on 2 nodes x 4 A100, CUDA 12.1, gcc 11.4: every rank JIT-loads the moe_kernels "
                f"extension ({len(srcs)} sources) from a shared TORCH_EXTENSIONS_DIR; rank {builder} (gpu-e-02) "
                "takes the lock and builds it with ninja -v: hundreds of nvcc command lines and '#177-D' "
                "template warnings, then topk_gating.cu fails ('identifier \"kMaxExpertsPerToken\" is undefined', "
                "a second error, '2 errors detected'), FAILED, 'ninja: build stopped', CalledProcessError, "
                "RuntimeError: Error building extension 'moe_kernels'; the 7 other ranks fail to import the "
                "missing library.", f)
    check_lines(bundle, f)
    return None, f


# --------------------------------------------------------------------------------------------
# 6. One host of four on older torch and NCCL: its ranks die at import, the others wait


def nccl_until_bootstrap(job, g, nccl, cuda):
    """NCCL_DEBUG=INFO start-up of rank g until it waits in the bootstrap for all ranks."""
    rng = job.rng
    node = job.node(g)
    l = job.local(g)
    pid = node.pids[l]

    def info(msg):
        return f"{node.name}:{pid}:{pid} [{l}] NCCL INFO {msg}"

    out = [f"NCCL version {nccl}+cuda{cuda}"] if g == 0 else []
    comm = f"0x{rng.randint(0x55a000000000, 0x55afffffffff):x}"
    out += [info("cudaDriverVersion 12040"), info("NCCL_SOCKET_IFNAME set by environment to ib0"),
            info("NCCL_IB_HCA set by environment to mlx5"), info(f"Bootstrap : Using ib0:{node.ip}<0>"),
            info("NET/Plugin : No plugin found (libnccl-net.so), using internal implementation"),
            info("NET/IB : Using " + " ".join(f"[{i}]mlx5_{i}:1/IB" for i in range(job.nproc)) +
                 f" [RO]; OOB ib0:{node.ip}<0>"),
            info("Using network IB"),
            info(f"ncclCommInitRank comm {comm} rank {g} nranks {job.world} cudaDev {l} nvmlDev {l} busId "
                 f"{BUS_IDS[l]} commId 0x{job.comm_id} - Init START")]
    return out


def agent_cancelled(job, node, t):
    """torchrun told to stop by the scheduler (scancel): SIGTERM to its workers, then the
    SignalException it raises itself."""
    rng = job.rng
    site = job.v["site"]
    job.agent(node, t, job.agent_line(node, t, "WARNING", "torch.distributed.elastic.agent.server.api",
                                      "api.py:704", "Received Signals.SIGTERM death signal, shutting down workers"))
    for pid in node.pids:
        t += rng.randint(200, 900)
        job.agent(node, t, job.agent_line(node, t, "WARNING", "torch.distributed.elastic.multiprocessing.api",
                                          "api.py:858", f"Sending process {pid} closing signal SIGTERM"))
    t += rng.randint(300_000, 900_000)
    job.agent(node, t, ["Traceback (most recent call last):",
                        f'  File "{job.v["bin"].rsplit("/", 1)[0]}/torchrun", line 8, in <module>',
                        "    sys.exit(main())",
                        f'  File "{site}/torch/distributed/elastic/multiprocessing/errors/__init__.py", line 347, '
                        "in wrapper",
                        "    return f(*args, **kwargs)",
                        f'  File "{site}/torch/distributed/run.py", line 879, in main',
                        "    run(args)",
                        f'  File "{site}/torch/distributed/run.py", line 870, in run',
                        "    elastic_launch(",
                        f'  File "{site}/torch/distributed/launcher/api.py", line 132, in __call__',
                        "    return launch_agent(self._config, self._entrypoint, list(args))",
                        f'  File "{site}/torch/distributed/launcher/api.py", line 254, in launch_agent',
                        "    result = agent.run()",
                        f'  File "{site}/torch/distributed/elastic/metrics/api.py", line 123, in wrapper',
                        "    result = f(*args, **kwargs)",
                        f'  File "{site}/torch/distributed/elastic/agent/server/api.py", line 733, in run',
                        "    result = self._invoke_run(role)",
                        f'  File "{site}/torch/distributed/elastic/agent/server/api.py", line 876, in _invoke_run',
                        "    time.sleep(monitor_interval)",
                        f'  File "{site}/torch/distributed/elastic/multiprocessing/api.py", line 76, in '
                        "_terminate_process_handler",
                        '    raise SignalException(f"Process {os.getpid()} got signal: {sigval}", sigval=sigval)',
                        "torch.distributed.elastic.multiprocessing.api.SignalException: Process "
                        f"{node.agent_pid} got signal: 15"])


GPT_CFG = ["model:", "  n_layer: 24", "  n_head: 16", "  d_model: 2048", "  vocab_size: 50304", "  block_size: 2048",
           "  attention: sdpa (flash, mem_efficient)", "  dropout: 0.0", "optim:", "  name: adamw", "  lr: 2.0e-4",
           "  betas: [0.9, 0.95]", "  weight_decay: 0.1", "  grad_clip: 1.0", "schedule:", "  warmup_steps: 2000",
           "  max_steps: 100000", "  decay: cosine", "data:", "  path: /mnt/data/tokens/pile_dedup",
           "  micro_batch: 8", "  grad_accum: 2", "  num_workers: 6", "checkpoint:", "  dir: /mnt/ckpt/gpt-1b3",
           "  every: 1000", "  keep_last: 5", "dist:", "  backend: nccl", "  timeout_min: 30",
           "  bucket_cap_mb: 100", "log:", "  every: 10", "  level: info"]


def scenario_build_version_skew(d):
    hosts = [(f"trn-node-{i}", f"10.70.0.{10 + i}") for i in range(1, 5)]
    site = "/opt/conda/envs/train/lib/python3.10/site-packages"
    job = TorchJob(7106, hosts, 8, "v23", "NVIDIA A100-SXM4-80GB", 1_800_000, nch=16, iface="ib0", site=site,
                   bin="/opt/conda/envs/train/bin/python")
    rng = job.rng
    bundle = d / "bundle"
    script = "train.py"
    t0 = us_of(2026, 9, 23, 16, 48, 9)
    bad = "trn-node-3"
    py = "3.10.14 | packaged by conda-forge | (main, Mar 20 2024, 12:45:18) [GCC 12.3.0]"
    common = dict(gpu="NVIDIA A100-SXM4-80GB", ngpu=8, driver="550.54.15", driver_cuda="12.4", python=py, site=site,
                  workdir="/workspace/pretrain", t_report=t0 - 160 * SEC, tk_date="Apr 18  2024")
    tk = dict(toolkits=["12.1"], cuda_link="12.1", nvcc="12.1", nvcc_path=["/usr/local/cuda/bin/nvcc"],
              cuda_home="/usr/local/cuda", path_cuda=["/usr/local/cuda/bin"], ld_cuda=["/usr/local/cuda/lib64"])
    specs = [Host("trn-node-1", "10.70.0.11", torch="2.3.1+cu121", **tk, **common),
             # reinstalled from another OS image: gcc 11.4.1 (a patch release), glibc 2.34
             Host("trn-node-2", "10.70.0.12", torch="2.3.1+cu121", gcc="11.4.1", os=OS_ROCKY, **tk, **common),
             # pip wheels only (no toolkit), and an older environment: torch 2.2.2, NCCL 2.19.3
             Host("trn-node-3", "10.70.0.13", torch="2.2.2+cu121", **common),
             Host("trn-node-4", "10.70.0.14", torch="2.3.1+cu121", pip={"requests": "2.31.0"}, **common)]
    by_name = {h.name: h for h in specs}

    def cmd(n):
        return ["+ source /opt/conda/etc/profile.d/conda.sh",
                "+ conda activate train",
                "+ export TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE='[rank${rank}]:'",
                "+ export NCCL_DEBUG=INFO NCCL_SOCKET_IFNAME=ib0 NCCL_IB_HCA=mlx5",
                f"+ torchrun --nnodes 4 --nproc_per_node 8 --node_rank {n.node_rank} --rdzv_backend c10d "
                f"--rdzv_endpoint trn-node-1:29500 {script} --config configs/gpt_1b3.yaml --resume latest"]

    # torch.nn.attention (sdpa_kernel) is new in torch 2.3: the model module fails to import on
    # trn-node-3 before any process group exists. The other ranks reach DDP's first collective
    # and wait in NCCL's bootstrap for 16 ranks, until the job is cancelled.
    tb = ["Traceback (most recent call last):",
          '  File "/workspace/pretrain/train.py", line 18, in <module>',
          "    from model.gpt import GPT, GPTConfig",
          '  File "/workspace/pretrain/model/gpt.py", line 9, in <module>',
          "    from torch.nn.attention import SDPBackend, sdpa_kernel",
          "ModuleNotFoundError: No module named 'torch.nn.attention'"]
    t_fail, t_exit = {}, {}
    t_hang = []
    for n in job.nodes:
        tn = launch(job, n, t0 + rng.randint(0, 3 * SEC), cmd(n))
        h = by_name[n.name]
        for l in range(job.nproc):
            g = n.node_rank * job.nproc + l
            tg = tn + rng.randint(2 * SEC, 4 * SEC)
            if n.name == bad:
                say_seq(job, g, tg, tb, {len(tb) - 1: f"exc{g}"})
                t_fail[g] = tg
                t_exit[g] = tg + 400_000 + rng.randint(0, 20_000)
                continue
            job.say(g, tg, [f"{pylog_time(tg)} - train - INFO - rank {g}: torch {h.torch}, cuda:{l}, world_size=32",
                            f"{pylog_time(tg + 2100)} - train - INFO - rank {g}: resuming from "
                            "/mnt/ckpt/gpt-1b3/step_41000 (model, optimizer, rng states)"])
            if g == 0:
                job.say(g, tg + 5000, [f"{pylog_time(tg + 5000)} - train - INFO - config:"] +
                        [f"  {c}" for c in GPT_CFG])
            tg += rng.randint(6 * SEC, 9 * SEC)
            job.say(g, tg, f"{pylog_time(tg)} - train - INFO - rank {g}: building GPT (24 layers, d=2048), "
                           "wrapping in DDP (bucket_cap_mb=100)")
            for line in nccl_until_bootstrap(job, g, h.nccl, "12.4"):
                tg += rng.randint(40, 2500)
                job.say(g, tg, line)
            t_hang.append(tg)
    mine = bad_node_failed_others_cancelled(job, bad, t_exit, t_hang, script, 27)
    marks = job.render(bundle, lambda n: f"nodes/{n.name}/train.log")
    vm = {h.name: write_versions(bundle, h, rng) for h in specs}
    ce3, ce1 = vm[bad]["collect_env"], vm["trn-node-1"]["collect_env"]
    f = [{"code": "build.version_skew",
          "culprits": [{"host": bad}],
          "evidence": [evd(vpath(by_name[bad], "collect_env"), ce3["torch"], "PyTorch version: 2.2.2+cu121"),
                       evd(vpath(specs[0], "collect_env"), ce1["torch"], "PyTorch version: 2.3.1+cu121")]},
         first_failure(job, marks, t_fail, {bad: mine[0][0]}, "ModuleNotFoundError: No module named "
                                                              "'torch.nn.attention'")]
    expected(d, "DDP job on 4 nodes x 8 A100 in a conda env: trn-node-3 has torch 2.2.2+cu121 with "
                "nvidia-nccl-cu12 2.19.3 (and triton 2.2.0), the three others torch 2.3.1+cu121 with NCCL 2.20.5; "
                "gcc differs too (trn-node-2 was reinstalled: Rocky Linux, gcc 11.4.1), requests is 2.31.0 on "
                "trn-node-4, and trn-node-3/-4 have no CUDA toolkit (pip wheels only), none of which is skew. "
                "trn-node-3's ranks fail to import torch.nn.attention (new in torch 2.3: ModuleNotFoundError); "
                "the 24 other ranks wait in NCCL's bootstrap (Init START, nothing after) until the job is "
                "cancelled 27 minutes later (SIGTERM, torchrun's SignalException).", f)
    check_lines(bundle, f)
    return None, f


# --------------------------------------------------------------------------------------------
# 6b. One host re-imaged with an R470 driver (CUDA 11.4) under a torch cu121 wheel


DRIVER_TOO_OLD = ("The NVIDIA driver on your system is too old (found version 11040). Please update your GPU "
                  "driver by downloading and installing a new version from the URL: "
                  "http://www.nvidia.com/Download/index.aspx Alternatively, go to: https://pytorch.org to install "
                  "a PyTorch version that has been compiled with your version of the CUDA driver.")


def scenario_build_driver_too_old(d):
    hosts = [(f"a100-d{i}", f"10.72.0.{20 + i}") for i in range(1, 4)]
    job = TorchJob(7108, hosts, 8, "v23", "NVIDIA A100-SXM4-80GB", 1_800_000, nch=16, iface="ib0")
    rng = job.rng
    bundle = d / "bundle"
    site = job.v["site"]
    script = "pretrain.py"
    t0 = us_of(2026, 11, 4, 21, 12, 40)
    bad = "a100-d2"
    common = dict(torch="2.3.1+cu121", gpu="NVIDIA A100-SXM4-80GB", ngpu=8, workdir="/workspace/pretrain",
                  t_report=t0 - 160 * SEC, tk_date="Apr 18  2024")
    # pip wheels only (no system toolkit): the CUDA runtime comes with torch, the driver is the host's.
    specs = [Host("a100-d1", "10.72.0.21", driver="535.161.08", driver_cuda="12.2", **common),
             # re-imaged from last year's image: the R470 branch, CUDA 11.4 at most
             Host(bad, "10.72.0.22", driver="470.223.02", driver_cuda="11.4", cuda_ok=False, **common),
             Host("a100-d3", "10.72.0.23", driver="535.161.08", driver_cuda="12.2", **common)]
    by_name = {h.name: h for h in specs}

    def cmd(n):
        return ["+ export NCCL_DEBUG=INFO NCCL_SOCKET_IFNAME=ib0 NCCL_IB_HCA=mlx5",
                "+ export TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE='[rank${rank}]:'",
                f"+ torchrun --nnodes 3 --nproc_per_node 8 --node_rank {n.node_rank} --rdzv_backend c10d "
                f"--rdzv_endpoint a100-d1:29500 {script} --config configs/gpt_1b3.yaml"]

    # torch warns when it first asks for the device count (the data loader's pin_memory
    # check), then torch.cuda.set_device raises: a100-d2's ranks never reach the process
    # group; the others wait in NCCL's bootstrap until the job is cancelled.
    warn = [f"{site}/torch/cuda/__init__.py:141: UserWarning: CUDA initialization: {DRIVER_TOO_OLD[:-1]}. "
            "(Triggered internally at ../c10/cuda/CUDAFunctions.cpp:108.)",
            "  return torch._C._cuda_getDeviceCount() > 0"]
    tb = ["Traceback (most recent call last):",
          '  File "/workspace/pretrain/pretrain.py", line 212, in <module>',
          "    main()",
          '  File "/workspace/pretrain/pretrain.py", line 57, in main',
          "    torch.cuda.set_device(local_rank)",
          f'  File "{site}/torch/cuda/__init__.py", line 399, in set_device',
          "    torch._C._cuda_setDevice(device)",
          f"RuntimeError: {DRIVER_TOO_OLD}"]
    t_fail, t_exit = {}, {}
    t_hang = []
    for n in job.nodes:
        tn = launch(job, n, t0 + rng.randint(0, 3 * SEC), cmd(n))
        h = by_name[n.name]
        for l in range(job.nproc):
            g = n.node_rank * job.nproc + l
            tg = tn + rng.randint(2 * SEC, 4 * SEC)
            job.say(g, tg, f"{pylog_time(tg)} - pretrain - INFO - rank {g}: torch {h.torch}, local rank {l}, "
                           "world_size=24")
            if g == 0:
                job.say(g, tg + 5000, [f"{pylog_time(tg + 5000)} - pretrain - INFO - config:"] +
                        [f"  {c}" for c in GPT_CFG])
            tg += rng.randint(3 * SEC, 5 * SEC)
            job.say(g, tg, f"{pylog_time(tg)} - pretrain - INFO - rank {g}: tokenized shards "
                           f"/mnt/data/pile/shard_{g:03d}.bin (8 workers, pin_memory=True)")
            if n.name == bad:
                tg = say_seq(job, g, tg + rng.randint(20_000, 90_000), warn, {0: f"warn{g}"})
                job.say(g, tg, f"{pylog_time(tg)} - pretrain - WARNING - rank {g}: CUDA not available, "
                               "pin_memory disabled")
                say_seq(job, g, tg + rng.randint(2000, 9000), tb, {len(tb) - 1: f"exc{g}"})
                t_fail[g] = tg
                t_exit[g] = tg + 400_000 + rng.randint(0, 20_000)
                continue
            tg += rng.randint(SEC, 2 * SEC)
            job.say(g, tg, f"{pylog_time(tg)} - pretrain - INFO - rank {g}: building GPT (24 layers, d=2048) on "
                           f"cuda:{l}, wrapping in DDP (bucket_cap_mb=100)")
            for line in nccl_until_bootstrap(job, g, h.nccl, "12.2"):
                tg += rng.randint(40, 2500)
                job.say(g, tg, line)
            t_hang.append(tg)
    mine = bad_node_failed_others_cancelled(job, bad, t_exit, t_hang, script, 28)
    marks = job.render(bundle, lambda n: f"nodes/{n.name}/train.log")
    vm = {h.name: write_versions(bundle, h, rng) for h in specs}
    hb, h1 = by_name[bad], specs[0]
    smi_b, smi_1 = vm[bad]["nvidia_smi"], vm[h1.name]["nvidia_smi"]
    g0 = mine[0][0]
    log_b = f"nodes/{bad}/train.log"
    f = [{"code": "build.driver_too_old",
          "culprits": [{"host": bad}],
          "evidence": [evd(log_b, min(marks[bad][f"warn{g}"] for g in t_fail), "UserWarning: CUDA initialization: The NVIDIA driver on "
                                                       "your system is too old (found version 11040)"),
                       evd(vpath(hb, "nvidia_smi"), smi_b["driver"], "CUDA Version: 11.4"),
                       evd(vpath(hb, "collect_env"), vm[bad]["collect_env"]["torch_cuda"],
                           "CUDA used to build PyTorch: 12.1")]},
         {"code": "build.version_skew",
          "culprits": [{"host": bad}],
          "evidence": [evd(vpath(hb, "collect_env"), vm[bad]["collect_env"]["driver"],
                           "Nvidia driver version: 470.223.02"),
                       evd(vpath(h1, "collect_env"), vm[h1.name]["collect_env"]["driver"],
                           "Nvidia driver version: 535.161.08")]},
         first_failure(job, marks, t_fail, {bad: g0}, "RuntimeError: The NVIDIA driver on your system is too "
                                                      "old")]
    assert smi_1["driver"] == 3
    expected(d, "DDP job (torchrun, pip wheels only: torch 2.3.1+cu121, no system toolkit) on 3 nodes x 8 A100: "
                "a100-d2 was re-imaged with the R470 driver 470.223.02 (nvidia-smi: CUDA Version 11.4), the "
                "two others run 535.161.08 (12.2). Every rank of a100-d2 warns 'CUDA initialization: The NVIDIA "
                "driver on your system is too old (found version 11040)' and then raises it from "
                "torch.cuda.set_device; the 16 other ranks wait in NCCL's bootstrap until the job is cancelled "
                "28 minutes later (SIGTERM).", f)
    check_lines(bundle, f)
    return None, f


# --------------------------------------------------------------------------------------------
# 6b. flash-attn built against another torch: its extension does not load on one node


def scenario_build_load_failed(d):
    hosts = [(f"h100-e{i}", f"10.74.0.{30 + i}") for i in range(1, 4)]
    job = TorchJob(7109, hosts, 8, "v23", "NVIDIA H100 80GB HBM3", 1_800_000, nch=16, iface="ib0")
    rng = job.rng
    bundle = d / "bundle"
    site = job.v["site"]
    script = "train_sft.py"
    t0 = us_of(2026, 11, 9, 6, 41, 3)
    bad = "h100-e3"
    common = dict(torch="2.3.1+cu121", gpu="NVIDIA H100 80GB HBM3", ngpu=8, driver="550.54.15", driver_cuda="12.4",
                  workdir="/workspace/sft", t_report=t0 - 200 * SEC, pip={"flash-attn": "2.5.8"})
    specs = [Host(name, ip, **common) for name, ip in hosts]
    by_name = {h.name: h for h in specs}

    def cmd(n):
        return ["+ export NCCL_DEBUG=INFO NCCL_SOCKET_IFNAME=ib0 NCCL_IB_HCA=mlx5",
                "+ export TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE='[rank${rank}]:'",
                f"+ torchrun --nnodes 3 --nproc_per_node 8 --node_rank {n.node_rank} --rdzv_backend c10d "
                f"--rdzv_endpoint h100-e1:29500 {script} --model llama-7b --attn flash_attention_2"]

    # h100-e3's flash-attn wheel came from a cache built against torch 2.2 (same version number):
    # every rank's import fails on a symbol of c10 that torch 2.3 no longer exports; the other
    # nodes' ranks build the model and wait in NCCL's bootstrap until the job is cancelled.
    so = f"{site}/flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so"
    tb = ["Traceback (most recent call last):",
          '  File "/workspace/sft/train_sft.py", line 21, in <module>',
          "    from flash_attn import flash_attn_varlen_func",
          f'  File "{site}/flash_attn/__init__.py", line 3, in <module>',
          "    from flash_attn.flash_attn_interface import (",
          f'  File "{site}/flash_attn/flash_attn_interface.py", line 10, in <module>',
          "    import flash_attn_2_cuda as flash_attn_cuda",
          f"ImportError: {so}: undefined symbol: _ZN3c104cuda9SetDeviceEi"]
    t_fail, t_exit = {}, {}
    t_hang = []
    for n in job.nodes:
        tn = launch(job, n, t0 + rng.randint(0, 3 * SEC), cmd(n))
        h = by_name[n.name]
        for l in range(job.nproc):
            g = n.node_rank * job.nproc + l
            tg = tn + rng.randint(2 * SEC, 4 * SEC)
            job.say(g, tg, f"{pylog_time(tg)} - train_sft - INFO - rank {g}: torch {h.torch}, local rank {l}, "
                           "world_size=24")
            if n.name == bad:
                say_seq(job, g, tg + rng.randint(900_000, 2_400_000), tb, {len(tb) - 1: f"exc{g}"})
                t_fail[g] = tg
                t_exit[g] = tg + 2_600_000 + rng.randint(0, 20_000)
                continue
            tg += rng.randint(3 * SEC, 5 * SEC)
            job.say(g, tg, f"{pylog_time(tg)} - train_sft - INFO - rank {g}: flash-attn 2.5.8 loaded, "
                           "attention implementation flash_attention_2")
            tg += rng.randint(SEC, 2 * SEC)
            job.say(g, tg, f"{pylog_time(tg)} - train_sft - INFO - rank {g}: loading llama-7b shards on "
                           f"cuda:{l}, wrapping in FSDP (FULL_SHARD, bf16)")
            for line in nccl_until_bootstrap(job, g, h.nccl, "12.4"):
                tg += rng.randint(40, 2500)
                job.say(g, tg, line)
            t_hang.append(tg)
    mine = bad_node_failed_others_cancelled(job, bad, t_exit, t_hang, script, 31)
    marks = job.render(bundle, lambda n: f"nodes/{n.name}/train.log")
    for h in specs:
        write_versions(bundle, h, rng)
    g0 = mine[0][0]
    log_b = f"nodes/{bad}/train.log"
    first_exc = min(t_fail, key=lambda g: marks[bad][f"exc{g}"])
    f = [{"code": "build.load_failed",
          "culprits": [{"host": bad}],
          "evidence": [evd(log_b, marks[bad][f"exc{first_exc}"],
                           "flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: undefined symbol: "
                           "_ZN3c104cuda9SetDeviceEi")]},
         first_failure(job, marks, t_fail, {bad: g0}, "undefined symbol: _ZN3c104cuda9SetDeviceEi")]
    expected(d, "SFT job (torchrun, FSDP, flash-attn 2.5.8 on torch 2.3.1+cu121) on 3 nodes x 8 H100: "
                "h100-e3's flash-attn wheel came from a cache built against torch 2.2, so every rank's "
                "'import flash_attn_2_cuda' fails with 'undefined symbol: _ZN3c104cuda9SetDeviceEi' (a c10 "
                "symbol torch 2.3 no longer exports); the 16 other ranks wait in NCCL's bootstrap until the "
                "job is cancelled 31 minutes later (SIGTERM).", f)
    check_lines(bundle, f)
    return None, f


# --------------------------------------------------------------------------------------------
# 7. Healthy: the build analyzer's look-alikes


V_HEALTHY = {"torch": "2.3.1+cu121", "cuda": "12.1", "cuda_drv": "12040", "cuda_rt": "12.1.105", "nccl": "2.20.5",
             "driver": "550.54.15", "agent": "pylog", "iface": "ib0", "net_plugin_warn": True,
             "python": "3.10.12 (main, Nov 20 2023, 15:14:05) [GCC 11.4.0]"}


def scenario_healthy_build(d):
    gpu_hosts = [("gpu-h-01", "10.80.0.11"), ("gpu-h-02", "10.80.0.12"), ("gpu-h-03", "10.80.0.13")]
    job = NumJob(7107, gpu_hosts, 4, "pdsh", "NVIDIA H100 80GB HBM3", V_HEALTHY)
    rng = job.rng
    bundle = d / "bundle"
    site = "/usr/local/lib/python3.10/dist-packages"
    t0 = us_of(2026, 10, 6, 7, 30, 0)
    t = t0
    steps = 600
    arch = "8.0;9.0+PTX"
    common = dict(torch="2.3.1+cu121", ds="0.14.4", gpu="NVIDIA H100 80GB HBM3", ngpu=4, driver="550.54.15",
                  driver_cuda="12.4", arch_list=arch, workdir="/workspace/llm", t_report=t0 - 160 * SEC,
                  tk_date="Apr 18  2024", cpu="Intel(R) Xeon(R) Platinum 8480+")
    specs = [
        # Login node: CPU only, no driver, no toolkit; torch from the shared environment's wheels.
        Host("login-01", "10.80.0.2", gpu=None, driver=None, **{k: v for k, v in common.items()
                                                                 if k not in ("gpu", "driver")}),
        # Two toolkits, every pointer on 12.1 (the /usr/local/cuda symlink on PATH too).
        Host("gpu-h-01", "10.80.0.11", toolkits=["11.8", "12.1"], cuda_link="12.1", nvcc="12.1",
             nvcc_path=["/usr/local/cuda-12.1/bin/nvcc", "/usr/local/cuda/bin/nvcc"], cuda_home="/usr/local/cuda-12.1",
             path_cuda=["/usr/local/cuda-12.1/bin", "/usr/local/cuda/bin"], ld_cuda=["/usr/local/cuda-12.1/lib64"],
             **common),
        # apt's layout: /usr/local/cuda and /usr/local/cuda-12 through /etc/alternatives.
        Host("gpu-h-02", "10.80.0.12", toolkits=["12.1"], cuda_link="alt", nvcc="12.1",
             nvcc_path=["/usr/local/cuda/bin/nvcc"], cuda_home="/usr/local/cuda", path_cuda=["/usr/local/cuda/bin"],
             ld_cuda=["/usr/local/cuda/lib64"], pip={"requests": "2.31.0"}, **common),
        Host("gpu-h-03", "10.80.0.13", toolkits=["12.1"], cuda_link="12.1", nvcc="12.1", gcc="11.3.0",
             nvcc_path=["/usr/local/cuda-12.1/bin/nvcc"], cuda_home="/usr/local/cuda-12.1",
             path_cuda=["/usr/local/cuda-12.1/bin"], ld_cuda=["/usr/local/cuda-12.1/lib64"], modules=["gcc/11.3.0"],
             **common)]
    n2 = job.nodes[1]
    for line in ["+ source /etc/profile.d/lmod.sh",
                 "+ python tools/pack_dataset.py --src /mnt/data/raw/fineweb-edu --out /mnt/data/packed --log-level "
                 "error",
                 "packed 1204 shards (4096 tokens/sample): 3.1M samples, 0 errors",
                 "+ deepspeed --hostfile configs/hostfile --master_addr 10.80.0.11 train.py --deepspeed "
                 "configs/ds_zero1.json --bf16 --max_steps 600 --log_level_replica error"]:
        job.shared.emit(t, line)
        t += rng.randint(2000, 40_000)
    t += 95 * SEC
    names = ",".join(n.name for n in job.nodes)
    for where, msg in [
        ("runner.py:463:main", "Using IP address of 10.80.0.11 for node gpu-h-01"),
        ("multinode_runner.py:80:get_cmd", f"Running on the following workers: {names}"),
        ("runner.py:568:main", f"cmd = pdsh -S -f 1024 -w {names} export NCCL_DEBUG=INFO; export NCCL_SOCKET_IFNAME="
                               "ib0; export PYTHONPATH=/workspace/llm;  cd /workspace/llm; /usr/bin/python3 -u -m "
                               "deepspeed.launcher.launch --world_info=eyJncHUtaC0wMSI6IFswLCAxLCAyLCAzXX0= "
                               "--node_rank=%n --master_addr=10.80.0.11 --master_port=29500 train.py --deepspeed "
                               "configs/ds_zero1.json --bf16 --max_steps 600 --log_level_replica error"),
    ]:
        t += rng.randint(100, 9000)
        job.shared.emit(t, ds_line(t, "INFO", where, msg))
    world = {n.name: list(range(job.nproc)) for n in job.nodes}
    mapping = ", ".join(f"'{x.name}': {list(range(x.node_rank * job.nproc, (x.node_rank + 1) * job.nproc))}"
                        for x in job.nodes)
    ends = []
    for n in job.nodes:
        tn = t + rng.randint(SEC, 3 * SEC)
        for src, msg in [
            ("launch.py:146:main", f"WORLD INFO DICT: {world}"),
            ("launch.py:152:main", f"nnodes=3, num_local_procs={job.nproc}, node_rank={n.node_rank}"),
            ("launch.py:163:main", f"global_rank_mapping=defaultdict(<class 'list'>, {{{mapping}}})"),
            ("launch.py:164:main", f"dist_world_size={job.world}"),
            ("launch.py:168:main", "Setting CUDA_VISIBLE_DEVICES=0,1,2,3"),
        ]:
            tn += rng.randint(100, 3000)
            job.agent(n, tn, ds_line(tn, "INFO", src, msg))
        for l in range(job.nproc):
            g = n.node_rank * job.nproc + l
            ends.append(num_rank_start(job, g, tn + rng.randint(SEC, 2 * SEC), ds=True, hf_fp16=False))
    t = max(ends) + rng.randint(3 * SEC, 6 * SEC)
    t = ds_engine_lines(job, t, "0.14.4", job.world, "adamw")
    # DeepSpeed JIT-loads fused_adam on every rank: gpu-h-02 builds it (a fresh cache),
    # gpu-h-01 and gpu-h-03 find their cache up to date (ninja: no work to do).
    ext_root = "/root/.cache/torch_extensions/py310_cu121"
    nvcc_cmd, cxx_cmd, link_cmd = fused_adam_cmds(site, "/usr/local/cuda", "-gencode=arch=compute_80,code=sm_80 "
                                                                          "-gencode=arch=compute_90,code=sm_90 "
                                                                          "-gencode=arch=compute_90,code=compute_90")
    t_use = rank_times(job, t + rng.randint(100_000, 300_000), 0, 300_000)
    loaded = {}
    for n in job.nodes:
        ranks = sorted((g for g in range(job.world) if job.node(g) is n), key=lambda g: t_use[g])
        for g in ranks:
            job.say(g, t_use[g], f"Using {ext_root} as PyTorch extensions root...")
        b = ranks[0]
        tt = t_use[b] + rng.randint(2000, 9000)
        if n is n2:
            lines = [f"Creating extension directory {ext_root}/fused_adam...", "Detected CUDA files, patching ldflags",
                     f"Emitting ninja build file {ext_root}/fused_adam/build.ninja...",
                     "Building extension module fused_adam...",
                     "Allowing ninja to set a default number of workers... (overridable by setting the environment "
                     "variable MAX_JOBS=N)",
                     f"[1/3] {cxx_cmd}", f"[2/3] {nvcc_cmd}", f"[3/3] {link_cmd}"]
            dur = 38.0 + rng.random() * 6
        else:
            lines = ["Detected CUDA files, patching ldflags",
                     f"Emitting ninja build file {ext_root}/fused_adam/build.ninja...",
                     "Building extension module fused_adam...",
                     "Allowing ninja to set a default number of workers... (overridable by setting the environment "
                     "variable MAX_JOBS=N)",
                     "ninja: no work to do."]
            dur = 0.05 + rng.random() * 0.1
        for line in lines:
            job.say(b, tt, line)
            tt += rng.randint(300, 3000) if not line.startswith("[") else int(dur / 3 * SEC)
        for g in ranks:
            tg = max(tt, t_use[g]) + rng.randint(1000, 40_000)
            job.say(g, tg, ["Loading extension module fused_adam...",
                            f"Time to load fused_adam op: {(tg - t_use[g]) / SEC + rng.random() * 1e-3!r} seconds"])
            loaded[g] = tg
    t = max(loaded.values()) + rng.randint(SEC, 2 * SEC)
    for where, msg in [("logging.py:96:log_dist", "[Rank 0] Using DeepSpeed Optimizer param name adamw as basic "
                                                  "optimizer"),
                       ("logging.py:96:log_dist", "[Rank 0] DeepSpeed Basic Optimizer = FusedAdam"),
                       ("logging.py:96:log_dist", "[Rank 0] Creating BF16 optimizer"),
                       ("logging.py:96:log_dist", "[Rank 0] DeepSpeed Final Optimizer = FusedAdam"),
                       ("config.py:997:print", "DeepSpeedEngine configuration:"),
                       ("config.py:1001:print", "  bfloat16_enabled ............. True"),
                       ("config.py:1001:print", "  zero_optimization_stage ...... 1")]:
        t += rng.randint(200, 9000)
        job.say(0, t, ds_line(t, "INFO", where, msg))
    t += rng.randint(2 * SEC, 4 * SEC)
    base = {g: 0.84 * (0.99 + 0.02 * rng.random()) for g in range(job.world)}

    def sec_of(g, s):
        return base[g] * (0.97 + 0.06 * rng.random())

    def loss(s):
        return 2.31 + 1.9 * math.exp(-s / 150.0) + (rng.random() - 0.5) * 0.05

    text = step_text("train")
    times, t_end = step_loop(job, t, 1, steps, sec_of, lambda g, s, tg, dt: text(g, s, tg, dt, loss(s), steps),
                             every=10)
    for s in range(20, steps + 1, 20):
        bar(job, times[s] - 5000, s - 20, s, steps, 0.84)
    for s in range(50, steps + 1, 50):
        ts = times[s] + rng.randint(100_000, 600_000)
        job.say(0, ts, ds_line(ts, "INFO", "logging.py:96:log_dist",
                               f"[Rank 0] step={s}, skipped=0, lr=[{3e-4 * min(1.0, s / 100):.6e}], "
                               "mom=[(0.9, 0.95)]"))
    for s in range(100, steps + 1, 100):
        for g in range(job.world):
            tg = times[s] + rng.randint(200_000, 700_000)
            job.say(g, tg, f"{pylog_time(tg)} - train - INFO - rank {g}: data: samples_skipped=0, "
                           "max_error_rate=0.01 (decode errors allowed per shard), shard errors=0")
    for s in range(200, steps + 1, 200):
        ts = times[s] + rng.randint(SEC, 2 * SEC)
        job.say(0, ts, f"{pylog_time(ts)} - train - INFO - eval at step {s}: loss={loss(s) + 0.04:.4f} "
                       f"token_error_rate=0.{rng.randint(3400, 3900)} error_rate=0.01 budget ok")
    t = t_end + rng.randint(SEC, 3 * SEC)
    job.say(0, t, f"{pylog_time(t)} - train - INFO - training done: {steps} steps, checkpoint "
                  "/mnt/ckpt/llm-1b/step_600")
    for n in job.nodes:
        tn = t + rng.randint(2 * SEC, 5 * SEC)
        for pid in n.pids:
            tn += rng.randint(10_000, 300_000)
            job.agent(n, tn, ds_line(tn, "INFO", "launch.py:351:main", f"Process {pid} exits successfully."))
    job.render(bundle, lambda n: "logs/deepspeed_launcher.log")
    for h in specs:
        write_versions(bundle, h, rng, skip=("ds_report",) if h.driver is None else ())
    expected(d, "DeepSpeed launcher over pdsh from login-01 (CPU only: no driver, no nvcc, torch wheels) to 3 nodes "
                "x 4 H100, torch 2.3.1+cu121, CUDA 12.1 (nvcc 12.1.105), gcc 11.3/11.4, TORCH_CUDA_ARCH_LIST="
                "'8.0;9.0+PTX'; gpu-h-01 has CUDA 11.8 and 12.1 installed with PATH, LD_LIBRARY_PATH and CUDA_HOME "
                "all on 12.1, gpu-h-02 uses apt's /etc/alternatives layout and requests 2.31.0. DeepSpeed JIT-loads "
                "fused_adam: gpu-h-02 builds it, the others find 'ninja: no work to do.'; 600 steps, eval lines "
                "with 'error_rate=0.01', a --log-level error option, clean exit; nothing must fire.", [])
    return None, []
