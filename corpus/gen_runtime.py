"""Runtime-failure scenarios of issue #7 (imported by generate.py).

GPU jobs whose processes die: the kernel's OOM killer takes a rank (dmesg -T in the
bundle), ranks run out of GPU memory under the DeepSpeed launcher (whose "Killing
subprocess" lines are no host OOM), a rank hits an illegal memory access (and the NVIDIA
driver logs Xid 31 in dmesg --time-format iso), a data bug kills one rank first and a
later error on another host must not be taken for the first; and a healthy run full of
look-alikes (a handled CUDA OOM with its traceback, "oom" config keys, benign kernel lines,
an informational Xid 63). Formats: formats.md 3.1 (prefixes), 4 (NCCL_DEBUG), 5 (torchrun,
DeepSpeed launcher), 8 (OOM-killer lines).

Bundles: one folder per host under nodes/ (nodes/<host>/train.log, nodes/<host>/dmesg.txt,
nodes/<host>/env/...), the layout path attribution reads; the DeepSpeed/pdsh run keeps its
one launcher log under logs/. Host names, pids, addresses and sizes are made up. Each
scenario draws from its own seeded random.Random.
"""

import json
import math

from generate import (SEC, NumJob, agent_finish_ok, dt_of, ds_line, evd, expected, num_rank_start, pylog_time,
                      us_of, write, write_host_env)
from gen_torch_hang import TorchJob, check_lines, hf_rank_lines, launch, rank_start, torchrun_failed

# --------------------------------------------------------------------------------------------
# Shared pieces


def step_loop(job, t, first, last, sec_of, text_of, every=1, skip=None):
    """One line per rank every `every` steps from `first` to `last` (ranks interleaved by
    time). skip(g, s) -> True leaves a rank's line out. Returns ({step: start time}, end)."""
    rng = job.rng
    times = {}
    for s in range(first, last + 1):
        times[s] = t
        slowest = 0.0
        for g in range(job.world):
            dt = sec_of(g, s)
            slowest = max(slowest, dt)
            if s % every or (skip and skip(g, s)):
                continue
            tg = t + int(dt * SEC) + rng.randint(500, 4000)
            job.say(g, tg, text_of(g, s, tg, dt))
        t += int(slowest * SEC) + rng.randint(5_000, 20_000)
    return times, t


def step_text(script):
    def text(g, s, tg, dt, loss, total):
        return f"{pylog_time(tg)} - {script} - INFO - rank {g}: step {s}/{total} loss={loss:.4f} step_time={dt:.3f}s"
    return text


def c10d_trace(job, line):
    """The C++ frames torch prints under what() for a watchdog exception that is not a timeout."""
    lib = f"{job.v['site']}/torch/lib"
    a = job.addr
    return [f"Exception raised from checkForNCCLErrors at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:{line} "
            "(most recent call first):",
            f"frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96 ({a()} in {lib}/libc10.so)",
            f"frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkAndSetException() + 0x52 ({a()} in "
            f"{lib}/libtorch_cuda.so)",
            f"frame #2: c10d::ProcessGroupNCCL::watchdogHandler() + 0x233 ({a()} in {lib}/libtorch_cuda.so)",
            f"frame #3: c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d ({a()} in {lib}/libtorch_cuda.so)",
            f"frame #4: <unknown function> + 0xdc253 ({a()} in /lib/x86_64-linux-gnu/libstdc++.so.6)",
            f"frame #5: <unknown function> + 0x94ac3 ({a()} in /lib/x86_64-linux-gnu/libc.so.6)",
            f"frame #6: clone + 0x44 ({a()} in /lib/x86_64-linux-gnu/libc.so.6)",
            ""]


WATCHDOG_SRC = {"v23": (1414, 1418), "v25": (1895, 1901)}


def remote_abort(job, g, t, peer, port):
    """Rank g's watchdog finds its communicator broken because a peer process died (NCCL's
    ncclRemoteError), and takes the process down. A consequence, never a first failure."""
    rng = job.rng
    pgp = job.pgp(g)
    err = f"NCCL error: remote process exited or there was a network error, NCCL version {job.v['nccl']}"
    src, trace_line = WATCHDOG_SRC[job.era]
    msg = f"{pgp}Process group watchdog thread terminated with exception: {err}"
    job.say(g, t, [job.cxx(t, "E", f"ProcessGroupNCCL.cpp:{src}", msg),
                   "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting "
                   "prematurely.",
                   "Last error:",
                   f"socketProgress: Connection closed by remote peer {peer}<{port}>"])
    t += rng.randint(200, 3000)
    job.say(g, t, ["terminate called after throwing an instance of 'c10::DistBackendError'", f"  what():  {msg}"]
            + c10d_trace(job, trace_line))
    return t + rng.randint(50_000, 400_000)


def peers_abort(job, node, t, peer, script):
    """Every rank of `node` loses its peer and aborts; the node's torchrun reports them (-6)."""
    rng = job.rng
    exits = []
    for l in range(job.nproc):
        g = node.node_rank * job.nproc + l
        te = remote_abort(job, g, t + rng.randint(400_000, 3 * SEC), peer, rng.randint(30_000, 60_000))
        exits.append((g, -6, te))
    exits.sort(key=lambda x: x[2])
    return torchrun_failed(job, node, exits[-1][2] + rng.randint(100_000, SEC), script, exits, [])


def dmesg_t(t):
    """dmesg -T: [Thu May 14 03:12:44 2026]."""
    d = dt_of(t)
    return f"[{d.strftime('%a %b')} {d.day:2d} {d.hour:02d}:{d.minute:02d}:{d.second:02d} {d.year}]"


def dmesg_iso(t):
    """dmesg --time-format iso: 2026-10-02T09:41:17,512044+00:00."""
    d = dt_of(t)
    return (f"{d.year:04d}-{d.month:02d}-{d.day:02d}T{d.hour:02d}:{d.minute:02d}:{d.second:02d},"
            f"{d.microsecond:06d}+00:00")


def dmesg_raw(sec):
    return f"[{sec:12.6f}]"


def benign_kernel(rng, node, n):
    """Kernel lines a GPU host logs while nothing is wrong."""
    out = [
        "Linux version 5.15.0-119-generic (buildd@lcy02-amd64-075) (gcc (Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0, "
        "GNU ld (GNU Binutils for Ubuntu) 2.38) #129-Ubuntu SMP",
        "Command line: BOOT_IMAGE=/vmlinuz-5.15.0-119-generic root=UUID=3c1e8a7f-2b7d-4c55-9a0e-51d2f0a7c6e4 ro "
        "iommu=pt pci=realloc=off",
        "Memory: 1056338416K/1073217024K available (16393K kernel code, 4395K rwdata, 11300K rodata, 3284K init, "
        "6696K bss, 16878352K reserved, 0K cma-reserved)",
        "nvidia: loading out-of-tree module taints kernel.",
        "nvidia-nvlink: Nvlink Core is being initialized, major device number 508",
        "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.90.07  Fri May 31 09:35:42 UTC 2024",
        "nvidia-modeset: Loading NVIDIA Kernel Mode Setting Driver for UNIX platforms  550.90.07",
        "nvidia_peermem: module verification failed: signature and/or required key missing - tainting kernel",
        "mlx5_core 0000:0c:00.0: Port module event: module 0, Cable plugged",
        f"IPv4: martian source {node.ip} from 10.0.0.1, on dev ib0",
        "EXT4-fs (nvme0n1p2): mounted filesystem with ordered data mode. Opts: (null). Quota mode: none.",
        "NFS: Registering the id_resolver key type",
        "perf: interrupt took too long (2504 > 2500), lowering kernel.perf_event_max_sample_rate to 79750",
        "audit: type=1400 audit(1715650000.412:88): apparmor=\"STATUS\" operation=\"profile_load\" "
        "profile=\"unconfined\" name=\"nvidia_modprobe\" pid=2411 comm=\"apparmor_parser\"",
        "docker0: port 1(veth3c2a91e) entered forwarding state",
    ]
    return [out[i % len(out)] for i in range(n)] if n > len(out) else out[:n]


def write_env(job, bundle, node):
    write_host_env(job, bundle, f"nodes/{node.name}")


# --------------------------------------------------------------------------------------------
# 1. The kernel's OOM killer takes a rank (ZeRO-3 offload fills the host's RAM)


def scenario_runtime_oom_killed(d):
    hosts = [("gpu-node-1", "10.40.0.11"), ("gpu-node-2", "10.40.0.12")]
    job = TorchJob(6101, hosts, 4, "v23", "NVIDIA H100 80GB HBM3", 1_800_000, nch=8, iface="ib0")
    rng = job.rng
    bundle = d / "bundle"
    n1, n2 = job.nodes
    bad = 5  # gpu-node-2, local rank 1
    k_last = 640
    total = 2000
    t0 = us_of(2026, 5, 14, 2, 40, 7)
    script = "sft.py"

    def cmd(n):
        return ["+ export TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE='[rank${rank}]:'",
                "+ export NCCL_DEBUG=INFO NCCL_SOCKET_IFNAME=ib0 NCCL_IB_HCA=mlx5",
                f"+ torchrun --nnodes 2 --nproc_per_node 4 --node_rank {n.node_rank} --rdzv_backend c10d "
                f"--rdzv_endpoint gpu-node-1:29500 {script} --model /models/llama-2-13b --deepspeed "
                "configs/zero3_offload.json --per_device_train_batch_size 8 --max_steps 2000 --bf16"]

    ends = []
    for n in job.nodes:
        tn = launch(job, n, t0 + rng.randint(0, 2 * SEC), cmd(n))
        for l in range(job.nproc):
            g = n.node_rank * job.nproc + l
            ends.append(rank_start(job, g, tn + rng.randint(0, 900_000), hf_rank_lines(job, g, False)))
    t = max(ends) + rng.randint(SEC, 2 * SEC)
    ds_cfg = {"bf16": {"enabled": True}, "train_micro_batch_size_per_gpu": 8, "gradient_accumulation_steps": 2,
              "zero_optimization": {"stage": 3, "offload_optimizer": {"device": "cpu", "pin_memory": True},
                                    "offload_param": {"device": "cpu", "pin_memory": True},
                                    "stage3_prefetch_bucket_size": 5e8, "stage3_param_persistence_threshold": 1e6}}
    for where, msg in [
        ("config.py:1000:print", "DeepSpeedEngine configuration:"),
        ("config.py:1004:print", "  bfloat16_enabled ............. True"),
        ("config.py:1004:print", "  zero_allow_untested_optimizer  False"),
        ("config.py:1004:print", "  zero_config .................. stage=3 contiguous_gradients=True "
                                 "reduce_scatter=True offload_param=DeepSpeedZeroOffloadParamConfig(device='cpu', "
                                 "nvme_path=None, buffer_count=5, buffer_size=100000000, max_in_cpu=1000000000, "
                                 "pin_memory=True) offload_optimizer=DeepSpeedZeroOffloadOptimizerConfig("
                                 "device='cpu', nvme_path=None, buffer_count=4, pin_memory=True, pipeline_read=False, "
                                 "pipeline_write=False, fast_init=False, ratio=1.0)"),
        ("config.py:1004:print", "  zero_enabled ................. True"),
        ("config.py:1004:print", "  zero_optimization_stage ...... 3"),
    ]:
        t += rng.randint(200, 3000)
        job.say(0, t, ds_line(t, "INFO", where, msg))
    t += rng.randint(SEC, 3 * SEC)
    for g in range(job.world):
        tg = t + rng.randint(0, SEC)
        job.say(g, tg, ds_line(tg, "INFO", "stage3.py:525:_setup_for_real_optimizer",
                               "optimizer state initialized"))
    t += 4 * SEC
    base = {g: 2.21 * (0.99 + 0.02 * rng.random()) for g in range(job.world)}

    def sec_of(g, s):
        return base[g] * (0.97 + 0.06 * rng.random())

    def loss(s):
        return 1.12 + 0.9 * math.exp(-s / 240.0) + (rng.random() - 0.5) * 0.05

    text = step_text("sft")
    times, t_end = step_loop(job, t, 1, k_last, sec_of, lambda g, s, tg, dt: text(g, s, tg, dt, loss(s), total))
    # DeepSpeed's see_memory_usage every 40 steps: gpu-node-2's RAM fills up, gpu-node-1's does not.
    for s in range(40, k_last + 1, 40):
        for n in job.nodes:
            g = n.node_rank * job.nproc
            tg = times[s] + rng.randint(50_000, 400_000)
            used = 604.1 + rng.random() * 3 if n is n1 else 640.0 + 352.0 * (s / k_last) ** 1.6
            job.say(g, tg, ds_line(tg, "INFO", "utils.py:781:see_memory_usage",
                                   f"CPU Virtual Memory:  used = {used:.2f} GB, percent = {used / 1007.5 * 100:.1f}%"))
    # Rank 5 is killed during step k_last + 1: no rank logs that step.
    t_kill = times[k_last] + int(base[bad] * SEC) + rng.randint(300_000, 900_000)
    pid_bad = n2.pids[job.local(bad)]
    # gpu-node-2's kernel log.
    k2 = []
    boot = t0 - 3 * 86400 * SEC
    for i, line in enumerate(benign_kernel(rng, n2, 15)):
        k2.append(f"{dmesg_t(boot + i * 2 * SEC)} {line}")
    for i in range(6):
        k2.append(f"{dmesg_t(t0 + (i * 170 + rng.randint(0, 60)) * SEC)} perf: interrupt took too long "
                  f"({2500 + rng.randint(3, 400)} > 2500), lowering kernel.perf_event_max_sample_rate to "
                  f"{79750 - i * 8000}")
    tk = t_kill - rng.randint(200_000, 600_000)
    invoker = n2.pids[2]
    kpre = dmesg_t(tk)
    k2 += [f"{kpre} pt_main_thread invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), "
           "order=0, oom_score_adj=0",
           f"{kpre} CPU: 41 PID: {invoker} Comm: pt_main_thread Tainted: P           OE     5.15.0-119-generic "
           "#129-Ubuntu",
           f"{kpre} Hardware name: Supermicro SYS-821GE-TNHR/X13DEG-OAD, BIOS 2.1 04/12/2024",
           f"{kpre} Call Trace:",
           f"{kpre}  <TASK>",
           f"{kpre}  dump_stack_lvl+0x4a/0x63",
           f"{kpre}  dump_header+0x4a/0x1f4",
           f"{kpre}  oom_kill_process.cold+0xb/0x10",
           f"{kpre}  out_of_memory+0x1ed/0x540",
           f"{kpre}  __alloc_pages_slowpath.constprop.0+0xd21/0xe40",
           f"{kpre}  </TASK>",
           f"{kpre} Mem-Info:",
           f"{kpre} active_anon:251302114 inactive_anon:9112883 isolated_anon:0",
           f"{kpre} Node 0 Normal free:61480kB boost:0kB min:62264kB low:585532kB high:1108800kB",
           f"{kpre} Node 1 Normal free:59912kB boost:0kB min:62632kB low:589420kB high:1116208kB",
           f"{kpre} 0 pages in swap cache",
           f"{kpre} Free swap  = 0kB",
           f"{kpre} Tasks state (memory values in pages):",
           f"{kpre} [  pid  ]   uid  tgid total_vm      rss pgtables_bytes swapents oom_score_adj name",
           f"{kpre} [   1012]     0  1012    28107     1488   249856        0          -250 systemd-journal",
           f"{kpre} [   2216]     0  2216     4362     1201    81920        0         -1000 sshd",
           f"{kpre} [   2490]     0  2490   651255    19813  1105920        0          -500 dockerd",
           f"{kpre} [   2911]     0  2911     5571      922    81920        0             0 nvidia-persistenc"]
    rss = {}
    for l, pid in enumerate(n2.pids):
        rss[pid] = (61_800_000 if pid == pid_bad else 52_000_000) + rng.randint(0, 900_000)
        k2.append(f"{kpre} [{pid:7d}]  1000 {pid:5d} {rss[pid] + 9_200_000:8d} {rss[pid]:8d} "
                  f"{rss[pid] // 190:8d}        0             0 pt_main_thread")
    for w in range(2):
        wp = pid_bad + 40 + w
        k2.append(f"{kpre} [{wp:7d}]  1000 {wp:5d}  3201880   918211  8212480        0             0 "
                  "pt_data_worker")
    k2.append(f"{kpre} oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0-1,global_oom,"
              f"task_memcg=/user.slice/user-1000.slice/session-4.scope,task=pt_main_thread,pid={pid_bad},uid=1000")
    i_summary = len(k2)
    anon = rss[pid_bad] * 4
    k2.append(f"{kpre} Out of memory: Killed process {pid_bad} (pt_main_thread) total-vm:{anon + 36_800_000}kB, "
              f"anon-rss:{anon}kB, file-rss:{rng.randint(80_000, 120_000)}kB, shmem-rss:{rng.randint(1000, 9000)}kB, "
              f"UID:1000 pgtables:{rss[pid_bad] // 190 * 4}kB oom_score_adj:0")
    i_victim = len(k2)
    k2.append(f"{dmesg_t(tk + SEC)} oom_reaper: reaped process {pid_bad} (pt_main_thread), now anon-rss:0kB, "
              f"file-rss:{rng.randint(80_000, 120_000)}kB, shmem-rss:0kB")
    write(bundle / "nodes" / n2.name / "dmesg.txt", "\n".join(k2) + "\n")
    k1 = [f"{dmesg_t(boot + i * 2 * SEC)} {line}" for i, line in enumerate(benign_kernel(rng, n1, 15))]
    write(bundle / "nodes" / n1.name / "dmesg.txt", "\n".join(k1) + "\n")

    others = [n2.pids[l] for l in range(job.nproc) if l != job.local(bad)]
    torchrun_failed(job, n2, t_kill + rng.randint(600_000, 1_200_000), script, [(bad, -9, t_kill)], others,
                    mark="rc")
    peers_abort(job, n1, t_kill + rng.randint(SEC, 2 * SEC), f"{n2.name}", script)
    marks = job.render(bundle, lambda n: f"nodes/{n.name}/train.log")
    for n in job.nodes:
        write_env(job, bundle, n)
    write(bundle / "configs" / "zero3_offload.json", json.dumps(ds_cfg, indent=2) + "\n")
    p2 = f"nodes/{n2.name}/train.log"
    dm = f"nodes/{n2.name}/dmesg.txt"
    f = [{"code": "runtime.oom_killed",
          "culprits": [{"host": n2.name, "rank": bad}],
          "evidence": [
              evd(dm, i_victim, f"Out of memory: Killed process {pid_bad} (pt_main_thread) total-vm:"),
              evd(dm, i_summary, f"task=pt_main_thread,pid={pid_bad},uid=1000"),
              evd(p2, marks[n2.name]["rc"], f"exitcode  : -9 (pid: {pid_bad})"),
          ]}]
    expected(d, "torch 2.3 + DeepSpeed ZeRO-3 with optimizer and parameter offload to CPU on 2 nodes x 4 H100: "
                "gpu-node-2's RAM fills up (see_memory_usage climbs to 98%) and the kernel's OOM killer kills rank "
                f"{bad} (dmesg -T: trigger, task table, oom-kill summary, victim, reaper); torchrun reports exitcode "
                "-9 (SIGKILL); gpu-node-1's ranks then lose their peer (ncclRemoteError) and abort (-6).", f)
    check_lines(bundle, f)
    return None, f


# --------------------------------------------------------------------------------------------
# 2. CUDA out of memory under the DeepSpeed launcher (pdsh): "Killing subprocess" is no host OOM


V_TORCH20 = {"torch": "2.0.1+cu118", "cuda": "11.8", "cuda_drv": "12020", "cuda_rt": "11.8.89", "nccl": "2.14.3",
             "ds": "0.10.0", "tf": "4.31.0", "accelerate": "0.21.0", "datasets": "2.14.0", "tokenizers": "0.13.3",
             "triton": "2.0.0", "driver": "535.54.03", "agent": "pylog",
             "python": "3.10.12 (main, Jun 11 2023, 05:26:28) [GCC 11.4.0]"}


def scenario_runtime_cuda_oom(d):
    job = NumJob(6202, [("gpu-node-21", "10.2.0.21"), ("gpu-node-22", "10.2.0.22")], 8, "pdsh",
                 "NVIDIA A100-SXM4-40GB", dict(V_TORCH20, iface="ib0", micro=8, mem=31.4))
    rng = job.rng
    bundle = d / "bundle"
    n0, n1 = job.nodes
    t = us_of(2026, 3, 9, 21, 14, 2)
    total = 3000
    k_last = 517
    world = {n.name: list(range(job.nproc)) for n in job.nodes}
    job.shared.emit(t, ds_line(t, "INFO", "runner.py:555:main",
                               f"cmd = pdsh -S -f 1024 -w {n0.name},{n1.name} export NCCL_DEBUG=INFO; export "
                               "NCCL_SOCKET_IFNAME=ib0; cd /workspace; /usr/bin/python -u -m "
                               "deepspeed.launcher.launch --world_info=eyJncHUtbm9kZS0yMSI6IFswLCAxXX0= "
                               f"--node_rank=%n --master_addr={n0.ip} --master_port=29500 train_sft.py --deepspeed "
                               "ds_zero2.json --per_device_train_batch_size 8 --max_seq_len 4096"))
    ends = []
    for n in job.nodes:
        tn = t + rng.randint(SEC, 3 * SEC)
        for src, msg in [
            ("launch.py:145:main", f"WORLD INFO DICT: {world}"),
            ("launch.py:151:main", f"nnodes=2, num_local_procs={job.nproc}, node_rank={n.node_rank}"),
            ("launch.py:163:main", f"dist_world_size={job.world}"),
            ("launch.py:165:main", f"Setting CUDA_VISIBLE_DEVICES={','.join(str(i) for i in range(job.nproc))}"),
        ]:
            tn += rng.randint(100, 3000)
            job.agent(n, tn, ds_line(tn, "INFO", src, msg))
        for local in range(job.nproc):
            g = n.node_rank * job.nproc + local
            ends.append(num_rank_start(job, g, tn + rng.randint(SEC, 2 * SEC), ds=True, hf_fp16=False))
    t = max(ends) + rng.randint(3 * SEC, 6 * SEC)
    base = 3.04

    def sec_of(g, s):
        return base * (0.97 + 0.06 * rng.random())

    def loss(s):
        return 1.31 + 0.8 * math.exp(-s / 180.0) + (rng.random() - 0.5) * 0.06

    def text(g, s, tg, dt):
        alloc = 31.2 + rng.random() * 0.8 + (2.1 if s > 480 else 0.0)
        return (f"{pylog_time(tg)} - train_sft - INFO - rank {g}: step {s}/{total} loss={loss(s):.4f} "
                f"step_time={dt:.3f}s max_allocated={alloc:.2f}GiB")

    times, _ = step_loop(job, t, 1, k_last, sec_of, text, every=5)
    for s in range(50, k_last + 1, 50):
        ts = times[s] + rng.randint(100_000, 900_000)
        job.say(0, ts, ds_line(ts, "INFO", "logging.py:96:log_dist",
                               f"[Rank 0] step={s}, skipped=0, lr=[{2e-5 * min(1.0, s / 100):.6e}], "
                               "mom=[(0.9, 0.999)]"))
    # Step 518 packs the longest sequences: two ranks run out of memory in the backward pass.
    site = "/usr/local/lib/python3.10/dist-packages"

    def oom_tb(local, req, alloc, free, reserved):
        return ["Traceback (most recent call last):",
                '  File "/workspace/train_sft.py", line 402, in <module>',
                "    main()",
                '  File "/workspace/train_sft.py", line 381, in main',
                "    model_engine.backward(loss)",
                f'  File "{site}/deepspeed/utils/nvtx.py", line 15, in wrapped_fn',
                "    ret_val = func(*args, **kwargs)",
                f'  File "{site}/deepspeed/runtime/engine.py", line 1890, in backward',
                "    self.optimizer.backward(loss, retain_graph=retain_graph)",
                f'  File "{site}/deepspeed/runtime/zero/stage_1_and_2.py", line 1953, in backward',
                "    self.loss_scaler.backward(loss.float(), retain_graph=retain_graph)",
                f'  File "{site}/torch/_tensor.py", line 487, in backward',
                "    torch.autograd.backward(",
                f'  File "{site}/torch/autograd/__init__.py", line 200, in backward',
                "    Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass",
                f"torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate {req} (GPU {local}; 39.39 GiB "
                f"total capacity; {alloc} already allocated; {free} free; {reserved} reserved in total by PyTorch) "
                "If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.  "
                "See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF"]

    t_a = times[k_last] + int(base * SEC) + rng.randint(400_000, 900_000)
    first_g, second_g = 11, 3  # gpu-node-22 local 3, then gpu-node-21 local 3
    tb1 = oom_tb(3, "1.95 GiB", "35.12 GiB", "1.21 GiB", "36.88 GiB")
    tt = t_a
    for i, line in enumerate(tb1):
        job.say(first_g, tt, line, {0: "oom1"} if i == len(tb1) - 1 else None)
        tt += rng.randint(2000, 9000)
    t_b = t_a + rng.randint(900_000, 1_600_000)
    tb2 = oom_tb(3, "1.95 GiB", "35.40 GiB", "988.00 MiB", "37.02 GiB")
    tt = t_b
    for i, line in enumerate(tb2):
        job.say(second_g, tt, line, {0: "oom2"} if i == len(tb2) - 1 else None)
        tt += rng.randint(2000, 9000)
    # DeepSpeed's sigkill_handler on each host: it kills every local process, then names the one
    # that failed. Not a host OOM.
    for n, g_fail, tf in ((n1, first_g, t_a), (n0, second_g, t_b)):
        tn = tf + rng.randint(400_000, 900_000)
        for pid in n.pids:
            tn += rng.randint(1000, 40_000)
            job.agent(n, tn, ds_line(tn, "INFO", "launch.py:315:sigkill_handler", f"Killing subprocess {pid}"))
        tn += rng.randint(200_000, 800_000)
        job.agent(n, tn, ds_line(tn, "ERROR", "launch.py:321:sigkill_handler",
                                 f"['/usr/bin/python', '-u', 'train_sft.py', '--local_rank={job.local(g_fail)}', "
                                 "'--deepspeed', 'ds_zero2.json', '--per_device_train_batch_size', '8', "
                                 "'--max_seq_len', '4096'] exits with return code = 1"))
    tn = t_b + rng.randint(3 * SEC, 5 * SEC)
    job.shared.emit(tn, f"pdsh@{n0.name}: {n1.name}: ssh exited with exit code 1")
    job.shared.emit(tn + rng.randint(1000, 9000), f"pdsh@{n0.name}: {n0.name}: ssh exited with exit code 1")
    marks = job.render(bundle, lambda n: "logs/deepspeed_launcher.log")[None]
    for n in job.nodes:
        write_env(job, bundle, n)
    write(bundle / "config" / "ds_zero2.json", json.dumps(
        {"train_micro_batch_size_per_gpu": 8, "gradient_accumulation_steps": 4, "bf16": {"enabled": True},
         "zero_optimization": {"stage": 2, "overlap_comm": True, "contiguous_gradients": True}}, indent=4) + "\n")
    p = "logs/deepspeed_launcher.log"
    f = [{"code": "runtime.cuda_oom",
          "culprits": [{"host": n1.name}, {"host": n0.name}],
          "evidence": [evd(p, marks["oom1"], "CUDA out of memory. Tried to allocate 1.95 GiB (GPU 3; 39.39 GiB total "
                                             "capacity; 35.12 GiB already allocated"),
                       evd(p, marks["oom2"], "CUDA out of memory. Tried to allocate 1.95 GiB (GPU 3; 39.39 GiB total "
                                             "capacity; 35.40 GiB already allocated")]},
         {"code": "runtime.first_failure",
          "culprits": [{"host": n1.name}],
          "evidence": [evd(p, marks["oom1"], "torch.cuda.OutOfMemoryError: CUDA out of memory.")]}]
    expected(d, "torch 2.0 + DeepSpeed ZeRO-2 launched by the deepspeed launcher over pdsh (one log, 'host: ' "
                "prefixes, no rank prefix) on 2 hosts x 8 A100-40GB: at step 518 local rank 3 of gpu-node-22, then "
                "of gpu-node-21, run out of GPU memory (the older 'GPU 3; ... total capacity' message); each "
                "host's launcher prints 'Killing subprocess' for every process and 'exits with return code = 1' - "
                "no host OOM.", f)
    check_lines(bundle, f)
    return None, f


# --------------------------------------------------------------------------------------------
# 3. An illegal memory access, with the driver's Xid 31 in the kernel log


def scenario_runtime_cuda_error(d):
    hosts = [("h100-a01", "10.8.1.1"), ("h100-a02", "10.8.1.2")]
    job = TorchJob(6303, hosts, 8, "v25", "NVIDIA H100 80GB HBM3", 600_000, nch=16, iface="ib0")
    rng = job.rng
    bundle = d / "bundle"
    n1, n2 = job.nodes
    bad = 13  # h100-a02, local rank 5
    k_last = 287
    total = 20000
    t0 = us_of(2026, 10, 2, 9, 3, 51)
    script = "pretrain.py"
    pgp = job.pgp(bad)

    def cmd(n):
        return ["+ export TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE='[rank${rank}]:'",
                "+ export NCCL_DEBUG=INFO NCCL_IB_HCA=mlx5 TORCH_NCCL_TRACE_BUFFER_SIZE=0",
                f"+ torchrun --nnodes 2 --nproc_per_node 8 --node_rank {n.node_rank} --rdzv_backend c10d "
                f"--rdzv_endpoint h100-a01:29500 {script} --config configs/moe_8x1b.yaml --attn fused_window"]

    ends = []
    for n in job.nodes:
        tn = launch(job, n, t0 + rng.randint(0, 2 * SEC), cmd(n))
        for l in range(job.nproc):
            g = n.node_rank * job.nproc + l
            first = [lambda t, g=g: f"{pylog_time(t)} - pretrain - INFO - rank {g}: building fused_window attention "
                                    "kernels (triton 3.1.0)"]
            ends.append(rank_start(job, g, tn + rng.randint(0, 900_000), first))
    t = max(ends) + rng.randint(SEC, 2 * SEC)
    base = {g: 0.93 * (0.99 + 0.02 * rng.random()) for g in range(job.world)}

    def sec_of(g, s):
        return base[g] * (0.97 + 0.06 * rng.random())

    def loss(s):
        return 2.9 + 7.8 * math.exp(-s / 70.0) + (rng.random() - 0.5) * 0.05

    text = step_text("pretrain")
    times, _ = step_loop(job, t, 1, k_last, sec_of, lambda g, s, tg, dt: text(g, s, tg, dt, loss(s), total))
    # Rank 13's fused attention kernel reads out of bounds in step k_last + 1.
    t_fault = times[k_last] + int(base[bad] * SEC) + rng.randint(100_000, 300_000)
    site = job.v["site"]
    tb = ["Traceback (most recent call last):",
          '  File "/workspace/pretrain.py", line 512, in <module>',
          "    main(cfg)",
          '  File "/workspace/pretrain.py", line 466, in main',
          "    loss = train_step(model, batch, optimizer)",
          '  File "/workspace/pretrain.py", line 301, in train_step',
          "    loss.backward()",
          f'  File "{site}/torch/_tensor.py", line 581, in backward',
          "    torch.autograd.backward(",
          f'  File "{site}/torch/autograd/__init__.py", line 347, in backward',
          "    _engine_run_backward(",
          f'  File "{site}/torch/autograd/graph.py", line 825, in _engine_run_backward',
          "    return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass",
          "RuntimeError: CUDA error: an illegal memory access was encountered",
          "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below "
          "might be incorrect.",
          "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
          "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.",
          ""]
    tt = t_fault
    for i, line in enumerate(tb):
        job.say(bad, tt, line, {0: "ima"} if line.startswith("RuntimeError: CUDA error") else None)
        tt += rng.randint(1000, 6000)
    # Its watchdog meets the same sticky error and takes the process down.
    tw = tt + rng.randint(100_000, 400_000)
    wmsg = f"{pgp}Process group watchdog thread terminated with exception: CUDA error: an illegal memory access " \
           "was encountered"
    job.say(bad, tw, [job.cxx(tw, "E", "ProcessGroupNCCL.cpp:1895", wmsg),
                      "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace "
                      "below might be incorrect.",
                      "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
                      "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.",
                      "",
                      "terminate called after throwing an instance of 'c10::DistBackendError'",
                      f"  what():  {wmsg}"] + c10d_trace(job, 1901))
    t_exit = tw + rng.randint(300_000, 600_000)
    pid_bad = n2.pids[job.local(bad)]
    # The driver's view, in h100-a02's kernel log (dmesg --time-format iso).
    bus = "0000:ab:00"
    boot = t0 - 11 * 86400 * SEC
    k2 = [f"{dmesg_iso(boot + i * 1_700_000)} {line}" for i, line in enumerate(benign_kernel(rng, n2, 15))]
    tx = t_fault - rng.randint(20_000, 80_000)
    k2.append(f"{dmesg_iso(tx)} NVRM: Xid (PCI:{bus}): 31, pid={pid_bad}, name=pt_main_thread, Ch 0000000c, intr "
              "00000000. MMU Fault: ENGINE GRAPHICS GPC3 GPCCLIENT_T1_7 faulted @ 0x7f3a_1c000000. Fault is of type "
              "FAULT_PDE ACCESS_TYPE_VIRT_READ")
    i_xid = len(k2)
    k2.append(f"{dmesg_iso(t_exit + 50_000)} NVRM: Xid (PCI:{bus}): 45, pid={pid_bad}, name=pt_main_thread, Ch "
              "0000000c")
    k2.append(f"{dmesg_iso(t_exit + 4 * SEC)} docker0: port 1(veth8d01b7e) entered disabled state")
    write(bundle / "nodes" / n2.name / "dmesg.txt", "\n".join(k2) + "\n")
    k1 = [f"{dmesg_iso(boot + i * 1_300_000)} {line}" for i, line in enumerate(benign_kernel(rng, n1, 15))]
    write(bundle / "nodes" / n1.name / "dmesg.txt", "\n".join(k1) + "\n")
    others = [n2.pids[l] for l in range(job.nproc) if l != job.local(bad)]
    torchrun_failed(job, n2, t_exit + rng.randint(100_000, 900_000), script, [(bad, -6, t_exit)], others, mark="rc")
    peers_abort(job, n1, t_exit + rng.randint(SEC, 2 * SEC), n2.name, script)
    marks = job.render(bundle, lambda n: f"nodes/{n.name}/train.log")
    for n in job.nodes:
        write_env(job, bundle, n)
    p2 = f"nodes/{n2.name}/train.log"
    ima = marks[n2.name]["ima"]
    f = [{"code": "runtime.cuda_error",
          "culprits": [{"host": n2.name, "rank": bad}],
          "evidence": [evd(p2, ima, "RuntimeError: CUDA error: an illegal memory access was encountered"),
                       evd(f"nodes/{n2.name}/dmesg.txt", i_xid, f"NVRM: Xid (PCI:{bus}): 31, pid={pid_bad}")]},
         {"code": "runtime.first_failure",
          "culprits": [{"host": n2.name, "rank": bad}],
          "evidence": [evd(p2, ima, "RuntimeError: CUDA error: an illegal memory access was encountered"),
                       evd(p2, marks[n2.name]["rc"], f"exitcode  : -6 (pid: {pid_bad})")]}]
    expected(d, "torch 2.5 MoE pretraining on 2 nodes x 8 H100 with a custom fused attention kernel: rank "
                f"{bad} hits 'CUDA error: an illegal memory access was encountered' (traceback, then its watchdog), "
                "the driver logs Xid 31 (MMU fault) for its pid and Xid 45 after it in h100-a02's dmesg (iso "
                "times); torchrun reports -6 and h100-a01's ranks abort on ncclRemoteError.", f)
    check_lines(bundle, f)
    return None, f


# --------------------------------------------------------------------------------------------
# 4. The first failure: a bad sample kills rank 6; a later error on the other host is not first


def scenario_runtime_first_failure(d):
    hosts = [("a100-n1", "10.31.0.11"), ("a100-n2", "10.31.0.12")]
    job = TorchJob(6404, hosts, 4, "v23", "NVIDIA A100-SXM4-80GB", 1_800_000, nch=8, iface="enp12s0")
    rng = job.rng
    bundle = d / "bundle"
    n1, n2 = job.nodes
    bad, later = 6, 1  # a100-n2 local 2 fails first; a100-n1 local 1 fails 4 s later
    k_last = 811
    total = 4000
    t0 = us_of(2026, 7, 21, 10, 12, 40)
    script = "finetune.py"

    def cmd(n):
        return ["+ export TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE='[rank${rank}]:'",
                f"+ torchrun --nnodes 2 --nproc_per_node 4 --node_rank {n.node_rank} --rdzv_backend c10d "
                f"--rdzv_endpoint a100-n1:29500 {script} --data /data/sft/v7 --bf16 --max_steps 4000"]

    ends = []
    for n in job.nodes:
        tn = launch(job, n, t0 + rng.randint(0, 2 * SEC), cmd(n))
        for l in range(job.nproc):
            g = n.node_rank * job.nproc + l
            ends.append(rank_start(job, g, tn + rng.randint(0, 900_000), hf_rank_lines(job, g, False)))
    t = max(ends) + rng.randint(SEC, 2 * SEC)
    base = {g: 1.41 * (0.99 + 0.02 * rng.random()) for g in range(job.world)}

    def sec_of(g, s):
        return base[g] * (0.97 + 0.06 * rng.random())

    def loss(s):
        return 0.88 + 0.7 * math.exp(-s / 200.0) + (rng.random() - 0.5) * 0.05

    text = step_text("finetune")
    times, _ = step_loop(job, t, 1, k_last, sec_of, lambda g, s, tg, dt: text(g, s, tg, dt, loss(s), total))
    for s in range(100, k_last + 1, 100):
        for g in range(job.world):
            tg = times[s] + rng.randint(300_000, 900_000)
            job.say(g, tg, f"{pylog_time(tg)} - finetune - INFO - rank {g}: opening shard /data/sft/v7/shard-"
                           f"{g * 31 + s // 100:05d}.jsonl")
    site = job.v["site"]
    t_bad = times[k_last] + int(base[bad] * SEC * 0.4)
    tb = ["Traceback (most recent call last):",
          '  File "/workspace/finetune.py", line 288, in <module>',
          "    main()",
          '  File "/workspace/finetune.py", line 251, in main',
          "    for step, batch in enumerate(loader, start=start_step):",
          f'  File "{site}/torch/utils/data/dataloader.py", line 631, in __next__',
          "    data = self._next_data()",
          f'  File "{site}/torch/utils/data/dataloader.py", line 1346, in _next_data',
          "    return self._process_data(data)",
          f'  File "{site}/torch/utils/data/dataloader.py", line 1372, in _process_data',
          "    data.reraise()",
          f'  File "{site}/torch/_utils.py", line 705, in reraise',
          "    raise exception",
          "KeyError: Caught KeyError in DataLoader worker process 1.",
          "Original Traceback (most recent call last):",
          f'  File "{site}/torch/utils/data/_utils/worker.py", line 308, in _worker_loop',
          "    data = fetcher.fetch(index)",
          f'  File "{site}/torch/utils/data/_utils/fetch.py", line 54, in fetch',
          "    return self.collate_fn(data)",
          '  File "/workspace/data/collate.py", line 57, in __call__',
          "    ids = [ex[\"input_ids\"] for ex in batch]",
          "KeyError: 'input_ids'",
          ""]
    tt = t_bad
    for i, line in enumerate(tb):
        job.say(bad, tt, line, {0: "first"} if line.startswith("KeyError: Caught") else None)
        tt += rng.randint(1000, 6000)
    t_exit = tt + rng.randint(200_000, 500_000)
    others = [n2.pids[l] for l in range(job.nproc) if l != job.local(bad)]
    torchrun_failed(job, n2, t_exit + rng.randint(100_000, 900_000), script, [(bad, 1, t_exit)], others, mark="rc")
    # a100-n1: rank 1's gloo barrier fails 4 s later (a real error line, but not the first), the
    # others lose their NCCL peer.
    t_later = t_bad + 4 * SEC + rng.randint(0, 500_000)
    tb2 = ["Traceback (most recent call last):",
           '  File "/workspace/finetune.py", line 288, in <module>',
           "    main()",
           '  File "/workspace/finetune.py", line 262, in main',
           "    dist.monitored_barrier(group=cpu_group, wait_all_ranks=True)",
           f'  File "{site}/torch/distributed/c10d_logger.py", line 75, in wrapper',
           "    return func(*args, **kwargs)",
           f'  File "{site}/torch/distributed/distributed_c10d.py", line 4125, in monitored_barrier',
           "    return group_to_use.monitored_barrier(timeout, wait_all_ranks=wait_all_ranks)",
           f"RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:534] Connection closed by peer "
           f"[{n2.ip}]:35077",
           ""]
    tt = t_later
    for i, line in enumerate(tb2):
        job.say(later, tt, line, {0: "later"} if line.startswith("RuntimeError") else None)
        tt += rng.randint(1000, 6000)
    exits = [(later, 1, tt + rng.randint(200_000, 400_000))]
    for l in range(job.nproc):
        g = l
        if g == later:
            continue
        te = remote_abort(job, g, t_later + rng.randint(200_000, 2 * SEC), n2.name, rng.randint(30_000, 60_000))
        exits.append((g, -6, te))
    torchrun_failed(job, n1, max(e[2] for e in exits) + rng.randint(100_000, SEC), script, exits, [])
    marks = job.render(bundle, lambda n: f"nodes/{n.name}/train.log")
    for n in job.nodes:
        write_env(job, bundle, n)
    p2 = f"nodes/{n2.name}/train.log"
    f = [{"code": "runtime.first_failure",
          "culprits": [{"host": n2.name, "rank": bad}],
          "evidence": [evd(p2, marks[n2.name]["first"], "KeyError: Caught KeyError in DataLoader worker process 1."),
                       evd(p2, marks[n2.name]["rc"], f"exitcode  : 1 (pid: {n2.pids[job.local(bad)]})")]}]
    expected(d, "torch 2.3 fine-tuning on 2 nodes x 4 A100: at step 812 rank 6's DataLoader worker meets a sample "
                "without input_ids (KeyError, re-raised in the main process); 4 s later rank 1 on the other node "
                "fails in a gloo barrier (Connection closed by peer) and its node's other ranks abort on "
                "ncclRemoteError. The tracebacks carry no time, the other node's log sorts first: only the times "
                "of the lines around them say which came first.", f)
    check_lines(bundle, f)
    return None, f


# --------------------------------------------------------------------------------------------
# 5. Healthy: look-alikes of every runtime code


def scenario_healthy_runtime_lookalikes(d):
    hosts = [("gpu-node-31", "10.40.0.31"), ("gpu-node-32", "10.40.0.32")]
    job = TorchJob(6505, hosts, 4, "v25", "NVIDIA H100 80GB HBM3", 600_000, nch=8, iface="ib0")
    rng = job.rng
    bundle = d / "bundle"
    n1, n2 = job.nodes
    steps = 900
    t0 = us_of(2026, 8, 3, 16, 30, 12)
    script = "train.py"

    def cmd(n):
        return ["+ export TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE='[rank${rank}]:'",
                "+ export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True",
                f"+ torchrun --nnodes 2 --nproc_per_node 4 --node_rank {n.node_rank} --rdzv_backend c10d "
                f"--rdzv_endpoint gpu-node-31:29500 {script} --config configs/run.yaml"]

    ends = []
    for n in job.nodes:
        tn = launch(job, n, t0 + rng.randint(0, 2 * SEC), cmd(n))
        for l in range(job.nproc):
            g = n.node_rank * job.nproc + l
            ends.append(rank_start(job, g, tn + rng.randint(0, 900_000), []))
    t = max(ends) + rng.randint(SEC, 2 * SEC)
    cfg = ["train:", "  micro_batch: 16", "  auto_find_batch_size: true", "  oom_retry: true",
           "  oom_retry_limit: 3", "  min_micro_batch: 4", "system:", "  oom_kill_disable: false",
           "  oom_score_adj: -500", "  check_host_memory: true"]
    job.say(0, t, [f"{pylog_time(t)} - train - INFO - resolved config:"] + [f"  {x}" for x in cfg])
    write(bundle / "configs" / "run.yaml", "\n".join(cfg) + "\n")
    base = {g: 0.61 * (0.99 + 0.02 * rng.random()) for g in range(job.world)}

    def sec_of(g, s):
        return base[g] * (0.97 + 0.06 * rng.random())

    def loss(s):
        return 2.05 + 6.1 * math.exp(-s / 90.0) + (rng.random() - 0.5) * 0.04

    text = step_text("train")
    retry = 212  # rank 2 runs out of memory at micro-batch 16, frees the cache and goes on at 8
    times, t_end = step_loop(job, t + 10 * SEC, 1, steps, sec_of,
                             lambda g, s, tg, dt: text(g, s, tg, dt, loss(s), steps))
    site = job.v["site"]
    tr = times[retry] + rng.randint(200_000, 400_000)
    job.say(2, tr, f"{pylog_time(tr)} - train - WARNING - rank 2: CUDA out of memory at micro-batch 16 (tried to "
                   "allocate 2.50 GiB); emptying the cache and retrying the step with micro-batch 8")
    tr += rng.randint(1000, 5000)
    job.say(2, tr, ["Traceback (most recent call last):",
                    '  File "/workspace/train.py", line 141, in run_step',
                    "    out = model(**batch)",
                    f'  File "{site}/torch/nn/modules/module.py", line 1736, in _wrapped_call_impl',
                    "    return self._call_impl(*args, **kwargs)",
                    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.50 GiB. GPU 2 has a total "
                    "capacity of 79.10 GiB of which 1.93 GiB is free. Including non-PyTorch memory, this process has "
                    "77.15 GiB memory in use. Of the allocated memory 74.02 GiB is allocated by PyTorch, and 1.61 GiB "
                    "is reserved by PyTorch but unallocated."])
    tr += rng.randint(50_000, 200_000)
    job.say(2, tr, f"{pylog_time(tr)} - train - INFO - rank 2: retry succeeded with micro-batch 8 (gradient "
                   "accumulation 2)")
    for s in range(100, steps + 1, 100):
        for g in range(job.world):
            tg = times[s] + rng.randint(200_000, 600_000)
            job.say(g, tg, f"{pylog_time(tg)} - train - INFO - rank {g}: host memory rss={18.2 + s / 300:.1f} GiB, "
                           f"max_allocated={61.3 + rng.random():.2f} GiB, oom_events=0")
    t = t_end + rng.randint(SEC, 3 * SEC)
    job.say(0, t, f"{pylog_time(t)} - train - INFO - training done: {steps} steps")
    agent_finish_ok(job, t + 3 * SEC)
    job.render(bundle, lambda n: f"nodes/{n.name}/train.log")
    for n in job.nodes:
        write_env(job, bundle, n)
        k = [f"{dmesg_raw(1.2 + i * 0.37)} {line}" for i, line in enumerate(benign_kernel(rng, n, 15))]
        k.append(f"{dmesg_raw(88410.512331)} python3 (41877): drop_caches: 3")
        if n is n2:
            # Informational: a row was remapped, the GPU keeps working.
            k.append(f"{dmesg_raw(91022.004117)} NVRM: Xid (PCI:0000:5d:00): 63, pid='<unknown>', name=<unknown>, "
                     "Row Remapper: New row (0x0000000000a2c4f1) marked for remapping, reset gpu to activate.")
        write(bundle / "nodes" / n.name / "dmesg.txt", "\n".join(k) + "\n")
    expected(d, "torch 2.5 job on 2 nodes x 4 H100 that ends cleanly: rank 2 catches a CUDA out-of-memory error "
                "(logged with its traceback) and retries at a smaller micro-batch, training goes on for 700 steps; "
                "'oom' config keys, PYTORCH_CUDA_ALLOC_CONF, 'oom_events=0' status lines; kernel logs with boot, "
                "NFS, perf and docker lines, a drop_caches line and an informational Xid 63 (row remapping); "
                "nothing must fire.", [])
    return None, []
