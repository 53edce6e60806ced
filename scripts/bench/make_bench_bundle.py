#!/usr/bin/env python3
"""Writes a large, realistic multi-host bundle for the benchmark harness.

    make_bench_bundle.py OUT.tar.zst [--hosts 256] [--ranks-per-host 8]
        [--mb 1024] [--seed 1] [--shapes 400] [--trace-events 100000]
        [--trace-hosts 4] [--hlo-hosts 8] [--plant none|hang|nccl_warn]
        [--level 3]

Deterministic: the same options give the same bytes. The bundle is written
as a tar stream piped into `zstd` (no extracted copy on disk); each file is
generated in memory first because a tar header needs its size.

What each host gets (hosts/<host>/), in the shapes real runs print:
- logs/worker.log, --mb MiB divided over the hosts: the output of all its
  local ranks interleaved, as torchrun writes it. The launcher's banner;
  per rank an NCCL_DEBUG=INFO init block (version, bootstrap, NET/IB,
  channels, rings and trees, Init COMPLETE); then the training loop, by
  share of lines: glog-headed runtime lines, I and W (28%); torch
  `[rankN]:[I... ProcessGroupNCCL.cpp:N]` lines (17%); NCCL INFO lines (20%:
  channel lines, and the COLL subsystem's line per collective with its hex
  opCount); Python-logging step lines of every rank with loss, grad norm,
  lr and step time, in key=value and HF-dict forms (10%); tqdm bars broken
  by carriage returns (8%); loguru lines coloured with ANSI codes (8%);
  Python warnings with their `warnings.warn(` line (4%); DeepSpeed log_dist
  lines (5%); one in 20,000 a retried exception with its traceback. Messages
  are drawn from --shapes fixed statements plus variables, as a program's
  log calls repeat.
- env/pip_freeze.txt, env/nvidia-smi.txt, env/collect_env.txt: version outputs.
- config/ds_config.json.
- profiler/<host>_<pid>.<ts>.pt.trace.json on the first --trace-hosts hosts:
  a torch.profiler Chrome trace, --trace-events events split over them
  (ProfilerStep# annotations, aten ops, cudaLaunchKernel, GEMM and NCCL
  kernels on streams).
- xla_dump/module_*.txt on the first --hlo-hosts hosts: HLO text modules.

--plant hang: every rank's watchdog times out on the same all-reduce at the
end of the run except one rank of one host, which stopped a collective
earlier (the hang analyzer's straggler case). --plant nccl_warn: one host
logs NCCL WARN port errors and steps twice as slow (the diff benchmark's
bad run).
"""
import argparse
import io
import json
import os
import random
import subprocess
import sys
import tarfile

MIB = 1024 * 1024
WORDS = ("forward backward all-reduce optimizer step checkpoint shard tensor gradient bucket "
         "stream device host compile cache hit miss fusion layer attention prefetch batch "
         "sampler worker queue buffer allocator segment kernel launch graph capture").split()
SOURCES = ["runtime.cc", "allocator.cc", "stream_executor.cc", "gpu_driver.cc", "cuda_graph.cc",
           "dataloader.cc", "checkpoint_manager.cc", "rendezvous.cc"]
PG_SOURCES = ["ProcessGroupNCCL.cpp", "NCCLUtils.cpp", "TCPStore.cpp", "reducer.cpp"]
MODULES = ["trainer", "data.loader", "model.fsdp", "optim.adamw", "ckpt.writer"]


def ts_parts(t):
    """Seconds since midnight -> (hh, mm, ss, microseconds)."""
    hh, rem = divmod(int(t), 3600)
    mm, ss = divmod(rem, 60)
    return hh % 24, mm, ss, int((t - int(t)) * 1e6)


class Host:
    def __init__(self, args, h, rnd, shapes):
        self.args = args
        self.h = h
        self.name = f"gpu-node-{h:04d}"
        self.ip = f"10.{(h >> 8) & 255}.{h & 255}.1"
        self.rnd = rnd
        self.shapes = shapes
        self.ranks = [h * args.ranks_per_host + i for i in range(args.ranks_per_host)]
        self.world = args.hosts * args.ranks_per_host
        self.pids = [100000 + h * 64 + i for i in range(args.ranks_per_host)]
        self.t = 9 * 3600 + 20 * 60 + h * 0.0131
        self.out = []
        self.size = 0

    def put(self, line):
        self.out.append(line)
        self.size += len(line) + 1

    def glog(self, level, pid, src, msg):
        hh, mm, ss, us = ts_parts(self.t)
        self.put(f"{level}1129 {hh:02d}:{mm:02d}:{ss:02d}.{us:06d} {pid:7d} {src}:{self.rnd.randint(40, 2400)}] {msg}")

    def pylog(self, rank, module, level, msg):
        hh, mm, ss, us = ts_parts(self.t)
        self.put(f"[rank{rank}]:2026-11-29 {hh:02d}:{mm:02d}:{ss:02d},{us // 1000:03d} - {module} - {level} - {msg}")

    def torch_line(self, rank, level, msg):
        hh, mm, ss, us = ts_parts(self.t)
        pid = self.pids[rank - self.ranks[0]]
        src = self.rnd.choice(PG_SOURCES)
        self.put(f"[rank{rank}]:[{level}1129 {hh:02d}:{mm:02d}:{ss:02d}.{us:06d}{pid % 1000:03d} "
                 f"{src}:{self.rnd.randint(100, 4000)}] {msg}")

    def nccl(self, local, kind, msg):
        self.put(f"{self.name}:{self.pids[local]}:{self.pids[local] + 211} [{local}] NCCL {kind} {msg}")

    def message(self):
        rnd = self.rnd
        if self.shapes:
            return f"{rnd.choice(self.shapes)} {rnd.randint(0, 99999)}"
        return " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(4, 14)))

    def launcher_banner(self):
        hh, mm, ss, us = ts_parts(self.t)
        stamp = f"[2026-11-29 {hh:02d}:{mm:02d}:{ss:02d},{us // 1000:03d}]"
        self.put(f"{stamp} torch.distributed.run: [WARNING] ")
        self.put(f"{stamp} torch.distributed.run: [WARNING] *****************************************")
        self.put(f"{stamp} torch.distributed.run: [WARNING] Setting OMP_NUM_THREADS environment variable "
                 f"for each process to be 1 in default, to avoid your system being overloaded, please "
                 f"further tune the variable for optimal performance in your application as needed. ")
        self.put(f"{stamp} torch.distributed.run: [WARNING] *****************************************")

    def nccl_init(self):
        rnd = self.rnd
        comm = f"0x{0x55d0c0000000 + self.h * 4096:x}"
        for local, rank in enumerate(self.ranks):
            self.t += rnd.random() * 0.01
            if rank == 0:
                self.nccl(local, "INFO", f"Bootstrap : Using eth0:{self.ip}<0>")
                self.put(f"{self.name}:{self.pids[local]}:{self.pids[local]} [{local}] "
                         f"NCCL INFO cudaDriverVersion 12040")
                self.put("NCCL version 2.21.5+cuda12.4")
            self.nccl(local, "INFO", "NCCL_SOCKET_IFNAME set by environment to eth0")
            self.nccl(local, "INFO", "NET/Plugin: Could not find: libnccl-net.so. Using internal network plugin.")
            self.nccl(local, "INFO", "NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [2]mlx5_2:1/IB "
                                     f"[3]mlx5_3:1/IB ; OOB eth0:{self.ip}<0>")
            self.nccl(local, "INFO", "Using non-device net plugin version 0")
            self.nccl(local, "INFO", "Using network IB")
            bus = f"{0x18 + local * 0x10:x}000"
            self.nccl(local, "INFO", f"ncclCommInitRank comm {comm} rank {rank} nranks {self.world} "
                                     f"cudaDev {local} nvmlDev {local} busId {bus} commId 0x7f3a9c2e51d08b44 - Init START")
            self.nccl(local, "INFO", f"Setting affinity for GPU {local} to ffff,ffffffff")
            self.nccl(local, "INFO", f"comm {comm} rank {rank} nRanks {self.world} nNodes {self.args.hosts} "
                                     f"localRanks {self.args.ranks_per_host} localRank {local} MNNVL 0")
            for ch in range(4):
                nxt = (rank + 1) % self.world
                self.nccl(local, "INFO", f"Channel {ch:02d}/0 : {rank}[{local}] -> {nxt}[{nxt % self.args.ranks_per_host}] "
                                         f"via P2P/IPC" if nxt // self.args.ranks_per_host == self.h else
                          f"Channel {ch:02d}/0 : {rank}[{local}] -> {nxt}[{nxt % self.args.ranks_per_host}] "
                          f"[send] via NET/IB/{local % 4}/GDRDMA")
            self.nccl(local, "INFO", f"Trees [0] {rank + 1 if rank + 1 < self.world else -1}/-1/-1->{rank}->"
                                     f"{rank - 1 if rank else -1} [1] -1/-1/-1->{rank}->{rank - 1 if rank else -1}")
            self.nccl(local, "INFO", "Connected all rings")
            self.nccl(local, "INFO", "Connected all trees")
            self.nccl(local, "INFO", "threadThresholds 8/8/64 | 128/8/64 | 512 | 512")
            self.nccl(local, "INFO", "24 coll channels, 24 collnet channels, 0 nvls channels, 32 p2p channels, "
                                     "32 p2p channels per peer")
            self.nccl(local, "INFO", f"comm {comm} rank {rank} nranks {self.world} cudaDev {local} nvmlDev "
                                     f"{local} busId {bus} commId 0x7f3a9c2e51d08b44 - Init COMPLETE")

    def tqdm(self, step, total):
        rnd = self.rnd
        parts = []
        for k in range(rnd.randint(2, 5)):
            done = min(total, step + k)
            pct = 100 * done // total
            filled = pct // 10
            bar = "\u2588" * filled + " " * (10 - filled)
            rate = 2.0 + rnd.random()
            parts.append(f"\rEpoch 0: {pct:3d}%|{bar}| {done}/{total} [{done // 120:02d}:{done % 60:02d}<"
                         f"{(total - done) // 120:02d}:{(total - done) % 60:02d}, {rate:.2f}it/s, loss={2.5 - done * 1e-5:.3f}]")
        self.put("".join(parts))

    def traceback(self, rank):
        self.pylog(rank, "data.loader", "WARNING", "reading shard failed, retrying in 1s")
        self.put(f"[rank{rank}]:Traceback (most recent call last):")
        self.put(f'[rank{rank}]:  File "/workspace/train/data/shards.py", line 212, in read_shard')
        self.put(f"[rank{rank}]:    with fsspec.open(url, 'rb') as f:")
        self.put(f'[rank{rank}]:  File "/opt/conda/lib/python3.10/site-packages/fsspec/core.py", line 105, in __enter__')
        self.put(f"[rank{rank}]:    f = self.fs.open(self.path, mode=mode)")
        self.put(f"[rank{rank}]:TimeoutError: read of shard {self.rnd.randint(0, 4095):05d} timed out after 30s")

    def body(self, budget, plant):
        rnd = self.rnd
        args = self.args
        slow = plant == "nccl_warn" and self.h == min(7, args.hosts - 1)
        step = 0
        total = 100000
        end = self.size + budget
        while self.size < end:
            self.t += rnd.random() * (0.004 if slow else 0.002)
            local = rnd.randrange(args.ranks_per_host)
            rank = self.ranks[local]
            k = rnd.random()
            if slow and k < 0.0002:
                self.nccl(local, "WARN", f"NET/IB : Got async event : port error on mlx5_{rnd.randint(0, 3)}:1")
            if k < 0.28:
                level = "W" if k < 0.01 else "I"
                self.glog(level, self.pids[local], rnd.choice(SOURCES), self.message())
            elif k < 0.38:
                if local == 0:
                    step += 1
                st = rnd.gauss(0.42, 0.01) * (2 if slow else 1)
                if k < 0.36:
                    self.pylog(rank, "trainer", "INFO",
                               f"step {step} loss={2.5 - step * 2e-5 + rnd.random() * 0.05:.4f} "
                               f"grad_norm={0.5 + rnd.random():.3f} lr=3.0e-04 step_time={st:.3f}s "
                               f"tokens/s={int(4096 * 8 / st)}")
                else:
                    self.put(f"[rank{rank}]:{{'loss': {2.5 - step * 2e-5:.4f}, 'grad_norm': {0.5 + rnd.random():.4f}, "
                             f"'learning_rate': 0.0003, 'epoch': {step / total:.4f}}}")
            elif k < 0.55:
                self.torch_line(rank, "I", self.message())
            elif k < 0.75:
                if k < 0.63:
                    ch = rnd.randint(0, 31)
                    self.nccl(local, "INFO", f"Channel {ch:02d}/1 : {rank}[{local}] -> {rnd.randrange(self.world)}"
                                             f"[{rnd.randrange(args.ranks_per_host)}] [receive] via NET/IB/{local % 4}/GDRDMA/Shared")
                else:
                    # NCCL_DEBUG_SUBSYS=COLL: one line per collective, the
                    # counter in hex without 0x.
                    op = rnd.choice(("AllReduce", "AllReduce", "AllGather", "ReduceScatter"))
                    buf = 0x7F3C5A000000 + rnd.randrange(1 << 20) * 4096
                    self.nccl(local, "INFO", f"{op}: opCount {step * 3 + rnd.randint(0, 2):x} sendbuff 0x{buf:x} "
                                             f"recvbuff 0x{buf + (1 << 26):x} count {rnd.choice((262144, 16777216, 4194304))} "
                                             f"datatype 7 op 0 root 0 comm 0x{0x55d0c0000000 + self.h * 4096:x} "
                                             f"[nranks={self.world}] stream 0x{0x55d0c1e4a000 + local * 256:x}")
            elif k < 0.83:
                self.tqdm(step, total)
            elif k < 0.91:
                hh, mm, ss, us = ts_parts(self.t)
                self.put(f"[rank{rank}]:\x1b[32m2026-11-29 {hh:02d}:{mm:02d}:{ss:02d}.{us // 1000:03d}\x1b[0m | "
                         f"\x1b[1mINFO    \x1b[0m | \x1b[36m{rnd.choice(MODULES)}\x1b[0m:\x1b[36m{rnd.randint(20, 400)}"
                         f"\x1b[0m - {self.message()}")
            elif k < 0.95:
                self.put(f"[rank{rank}]:/opt/conda/lib/python3.10/site-packages/torch/utils/checkpoint.py:"
                         f"{rnd.choice((61, 90, 464))}: UserWarning: None of the inputs have requires_grad=True. "
                         f"Gradients will be None")
                self.put(f"[rank{rank}]:  warnings.warn(")
            elif k < 0.99995:
                hh, mm, ss, us = ts_parts(self.t)
                self.put(f"[rank{rank}]:[2026-11-29 {hh:02d}:{mm:02d}:{ss:02d},{us // 1000:03d}] [INFO] "
                         f"[logging.py:96:log_dist] [Rank {rank}] step={step}, skipped=0, lr=[0.0003], "
                         f"mom=[(0.9, 0.95)]")
            else:
                self.traceback(rank)
        return step

    def hang(self, plant, last_step):
        """All ranks but the culprit time out on collective `seq`; the culprit never issued it."""
        args = self.args
        culprit_host = min(3, args.hosts - 1)
        culprit = self.ranks[0] + (args.ranks_per_host - 1) if self.h == culprit_host else -1
        seq = 40000 + 10 * args.mb  # the same collective on every host
        self.t += 600.0
        for local, rank in enumerate(self.ranks):
            if rank == culprit:
                continue
            self.t += self.rnd.random() * 0.01
            work = (f"WorkNCCL(SeqNum={seq}, OpType=ALLREDUCE, NumelIn=67108864, NumelOut=67108864, "
                    f"Timeout(ms)=600000)")
            self.torch_line(rank, "E", f"[Rank {rank}] Watchdog caught collective operation timeout: {work} "
                                       f"ran for {600000 + self.rnd.randint(1, 900)} milliseconds before timing out.")
            self.torch_line(rank, "E", f"[Rank {rank}] Exception (either an error or timeout) detected by watchdog at "
                                       f"work: {seq}, last enqueued NCCL work: {seq}, last completed NCCL work: {seq - 1}.")
            self.torch_line(rank, "E", f"[Rank {rank}] Timeout at NCCL work: {seq}, last enqueued NCCL work: {seq}, "
                                       f"last completed NCCL work: {seq - 1}.")

    def log_text(self, plant):
        self.launcher_banner()
        self.nccl_init()
        budget = max(1, self.args.mb * MIB // self.args.hosts - self.size)
        last = self.body(budget, plant)
        if plant == "hang":
            self.hang(plant, last)
        return "\n".join(self.out) + "\n"


def version_files(host, h):
    pip = "\n".join(["accelerate==0.34.2", "deepspeed==0.15.1", "jax==0.4.33", "numpy==1.26.4",
                     "nvidia-nccl-cu12==2.21.5", "safetensors==0.4.5", "tokenizers==0.20.0",
                     "torch==2.4.1", "transformers==4.45.1", "triton==3.0.0"]) + "\n"
    smi = (f"Fri Nov 29 09:19:55 2026\n"
           "+-----------------------------------------------------------------------------------------+\n"
           "| NVIDIA-SMI 550.90.07              Driver Version: 550.90.07      CUDA Version: 12.4     |\n"
           "|-----------------------------------------+------------------------+----------------------+\n"
           "| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |\n"
           "|=========================================+========================+======================|\n"
           + "".join(f"|   {g}  NVIDIA H100 80GB HBM3          On  |   00000000:{0x18 + g * 16:02X}:00.0 Off |"
                     f"                    0 |\n" for g in range(8))
           + "+-----------------------------------------------------------------------------------------+\n")
    env = ("Collecting environment information...\n"
           "PyTorch version: 2.4.1+cu124\nIs debug build: False\nCUDA used to build PyTorch: 12.4\n"
           "ROCM used to build PyTorch: N/A\n\nOS: Ubuntu 22.04.4 LTS (x86_64)\n"
           "GCC version: (Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0\nPython version: 3.10.14 (main) [GCC 11.4.0] (64-bit runtime)\n"
           "Is CUDA available: True\nCUDA runtime version: 12.4.131\n"
           "Nvidia driver version: 550.90.07\ncuDNN version: Probably one of the following:\n"
           "/usr/lib/x86_64-linux-gnu/libcudnn.so.9.1.0\n\nVersions of relevant libraries:\n"
           "[pip3] numpy==1.26.4\n[pip3] torch==2.4.1\n[pip3] triton==3.0.0\n")
    return {"env/pip_freeze.txt": pip, "env/nvidia-smi.txt": smi, "env/collect_env.txt": env}


def ds_config():
    return json.dumps({"train_micro_batch_size_per_gpu": 4, "gradient_accumulation_steps": 8,
                       "bf16": {"enabled": True}, "zero_optimization": {"stage": 3, "overlap_comm": True,
                                                                        "contiguous_gradients": True},
                       "gradient_clipping": 1.0, "steps_per_print": 100}, indent=2) + "\n"


def trace_text(rnd, host, events):
    """A torch.profiler Chrome trace of about `events` events."""
    out = ['{\n  "schemaVersion": 1,\n  "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3", '
           '"totalGlobalMem": 85024112640, "computeMajor": 9, "computeMinor": 0}],\n  "traceEvents": [']
    t = 1732872000000000.0
    n = 0
    step = 0
    first = True

    def ev(s):
        nonlocal first, n
        out.append(("\n  " if first else ",\n  ") + s)
        first = False
        n += 1

    kernels = ["ampere_bf16_s16816gemm_bf16_256x128_ldg8_f2f_stages_64x3_tn",
               "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>",
               "flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4>>"]
    while n < events:
        step += 1
        ev(f'{{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#{step}", "pid": 4021, "tid": 4021, '
           f'"ts": {t:.3f}, "dur": 41000.0}}')
        for i in range(40):
            d = 20 + rnd.random() * 300
            ev(f'{{"ph": "X", "cat": "cpu_op", "name": "aten::{rnd.choice(("mm", "add_", "copy_", "mul", "bmm"))}", '
               f'"pid": 4021, "tid": 4021, "ts": {t + i * 900:.3f}, "dur": {d:.3f}, "args": {{"External id": {n}}}}}')
            ev(f'{{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 4021, "tid": 4021, '
               f'"ts": {t + i * 900 + 5:.3f}, "dur": 4.2, "args": {{"correlation": {n}}}}}')
            ev(f'{{"ph": "X", "cat": "kernel", "name": "{rnd.choice(kernels)}", "pid": 0, "tid": 7, '
               f'"ts": {t + i * 900 + 30:.3f}, "dur": {d * 2:.3f}, "args": {{"stream": 7, "correlation": {n - 1}, '
               f'"device": 0}}}}')
        ev(f'{{"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm*, '
           f'unsigned long, ncclWork*)", "pid": 0, "tid": 20, "ts": {t + 36000:.3f}, "dur": {3000 + rnd.random() * 900:.3f}, '
           f'"args": {{"stream": 20, "device": 0}}}}')
        t += 42000
    out.append("\n  ],\n  \"traceName\": \"" + host + ".pt.trace.json\"\n}\n")
    return "".join(out)


def hlo_text(module, instrs):
    lines = [f"HloModule {module}, is_scheduled=true, entry_computation_layout="
             "{(f32[1024,1024]{1,0}, f32[1024]{0})->f32[1024,1024]{1,0}}, num_partitions=8", "",
             "%add (x: f32[], y: f32[]) -> f32[] {", "  %x = f32[] parameter(0)", "  %y = f32[] parameter(1)",
             "  ROOT %add.1 = f32[] add(f32[] %x, f32[] %y)", "}", "",
             "ENTRY %main (p0: f32[1024,1024], p1: f32[1024]) -> f32[1024,1024] {",
             "  %p0 = f32[1024,1024]{1,0} parameter(0)", "  %p1 = f32[1024]{0} parameter(1)"]
    prev = "%p0"
    for i in range(instrs):
        name = f"%fusion.{i}"
        lines.append(f"  {name} = f32[1024,1024]{{1,0}} fusion(f32[1024,1024]{{1,0}} {prev}, f32[1024]{{0}} %p1), "
                     f"kind=kLoop, calls=%fused_computation.{i}, metadata={{op_name=\"jit(train_step)/mul\"}}")
        prev = name
    lines.append(f"  ROOT %all-reduce = f32[1024,1024]{{1,0}} all-reduce(f32[1024,1024]{{1,0}} {prev}), "
                 "channel_id=1, replica_groups={{0,1,2,3,4,5,6,7}}, use_global_device_ids=true, to_apply=%add")
    lines.append("}")
    return "\n".join(lines) + "\n"


def add(tar, path, text):
    data = text.encode("utf-8")
    info = tarfile.TarInfo(path)
    info.size = len(data)
    info.mtime = 1795939200  # fixed: the same bytes on every run
    info.mode = 0o644
    info.uname = info.gname = "root"
    tar.addfile(info, io.BytesIO(data))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", help="the .tar.zst to write")
    ap.add_argument("--hosts", type=int, default=256)
    ap.add_argument("--ranks-per-host", type=int, default=8)
    ap.add_argument("--mb", type=int, default=1024, help="MiB of worker logs in all (default 1024)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--shapes", type=int, default=400,
                    help="fixed log statements the messages come from (0: word salad, every line a new shape)")
    ap.add_argument("--trace-events", type=int, default=100000)
    ap.add_argument("--trace-hosts", type=int, default=4)
    ap.add_argument("--hlo-hosts", type=int, default=8)
    ap.add_argument("--plant", choices=("none", "hang", "nccl_warn"), default="none")
    ap.add_argument("--level", type=int, default=3, help="zstd level (default 3)")
    args = ap.parse_args()
    if args.hosts < 1 or args.ranks_per_host < 1 or args.mb < 1:
        ap.error("--hosts, --ranks-per-host and --mb must be positive")

    # The statements come from their own fixed seed: a good and a bad run of
    # one program print the same statements.
    shape_rnd = random.Random(1234)
    shapes = [" ".join(shape_rnd.choice(WORDS) for _ in range(shape_rnd.randint(4, 14)))
              for _ in range(args.shapes)]
    tmp = args.out + ".part"
    with open(tmp, "wb") as sink:
        zstd = subprocess.Popen(["zstd", "-q", f"-{args.level}", "-T0", "-c"], stdin=subprocess.PIPE, stdout=sink)
        with tarfile.open(fileobj=zstd.stdin, mode="w|", format=tarfile.PAX_FORMAT) as tar:
            trace_hosts = min(args.trace_hosts, args.hosts) if args.trace_events > 0 else 0
            for h in range(args.hosts):
                rnd = random.Random(args.seed * 1000003 + h)
                host = Host(args, h, rnd, shapes)
                base = f"hosts/{host.name}/"
                add(tar, base + "logs/worker.log", host.log_text(args.plant))
                for path, text in version_files(host.name, h).items():
                    add(tar, base + path, text)
                add(tar, base + "config/ds_config.json", ds_config())
                if h < trace_hosts:
                    share = args.trace_events // trace_hosts
                    add(tar, base + f"profiler/{host.name}_{host.pids[0]}.1764408000123456789.pt.trace.json",
                        trace_text(rnd, host.name, share))
                if h < args.hlo_hosts:
                    for m, (name, n) in enumerate((("jit_train_step", 400), ("jit_eval_step", 120))):
                        add(tar, base + f"xla_dump/module_{m + 1:04d}.{name}.sm_9.0_gpu_after_optimizations.txt",
                            hlo_text(name, n))
        zstd.stdin.close()
        if zstd.wait() != 0:
            sys.exit("zstd failed")
    os.replace(tmp, args.out)


if __name__ == "__main__":
    main()
