"""GPU multi-rank hang scenarios of issue #4 (imported by generate.py).

torchrun jobs whose ranks wait in an NCCL collective: one per-node log each
(logs/<node>/train.log, every local rank interleaved as torchrun prints them),
NCCL_DEBUG=INFO start-up with its channel lines, the training script's own
output, then the ProcessGroupNCCL watchdog messages of the era and torchrun's
failure summary. Eras (formats.md 3.1, 3.2, 4, 5.1):

  v21  torch 2.1, NCCL 2.18: no rank prefix, "[E ProcessGroupNCCL.cpp:458]",
       WorkNCCL(SeqNum, OpType, Timeout(ms)), agent lines in Python logging form
  v23  torch 2.3, NCCL 2.20: "[rankN]:[E ProcessGroupNCCL.cpp:563]", NumelIn/Out,
       "[PG 0 Rank N] Timeout at NCCL work: ..."
  v24  torch 2.4, NCCL 2.20: glog times with nanoseconds, "[PG 0 Rank N] Exception
       (either an error or timeout) detected by watchdog at work: ..."
  v25  torch 2.5, NCCL 2.21: "[PG ID 0 PG GUID 0(default_pg) Rank N]" prefixes,
       dump-signal lines, flight recorder

Host names, addresses, pids, pointers and comm ids are made up. Each scenario
draws from its own seeded random.Random.
"""

import json
import math

import generate as gen
from generate import (SEC, BUS_IDS, HF_ARGS_COMMON, MegaRun, NumJob, agent_finish_ok, dt_of, evd, expected,
                      hf_args_dump, hf_ds_train, hf_log, hf_model_config_log, hf_time, mega_iter_line,
                      num_collect_env, num_hf_train_banner, num_pip_freeze, num_torchrun_start, pylog_time,
                      torch_glog, tqdm_frame, us_of, write)

ERAS = {
    "v21": {"torch": "2.1.2+cu121", "cuda": "12.1", "cuda_drv": "12020", "cuda_rt": "12.1.105", "nccl": "2.18.1",
            "driver": "535.104.12", "python": "3.10.12 (main, Jun 11 2023, 05:26:28) [GCC 11.4.0]",
            "site": "/usr/local/lib/python3.10/dist-packages", "bin": "/usr/bin/python3", "agent": "pylog",
            "rank_prefix": False, "cxx_time": False, "pg": None, "numel": False, "tf": "4.34.1",
            "accelerate": "0.23.0", "datasets": "2.14.5", "tokenizers": "0.14.1", "triton": "2.1.0"},
    "v23": {"torch": "2.3.1+cu121", "cuda": "12.1", "cuda_drv": "12040", "cuda_rt": "12.1.105", "nccl": "2.20.5",
            "driver": "550.54.15", "python": "3.10.14 (main, Mar 21 2024, 16:24:04) [GCC 11.2.0]",
            "site": "/usr/local/lib/python3.10/dist-packages", "bin": "/usr/bin/python", "agent": "pylog",
            "rank_prefix": True, "cxx_time": False, "pg": "short", "numel": True, "tf": "4.41.2",
            "accelerate": "0.31.0", "datasets": "2.19.2", "tokenizers": "0.19.1", "triton": "2.3.1"},
    "v24": {"torch": "2.4.1+cu124", "cuda": "12.4", "cuda_drv": "12040", "cuda_rt": "12.4.131", "nccl": "2.20.5",
            "driver": "550.90.07", "python": "3.11.9 (main, Apr 19 2024, 16:48:06) [GCC 11.2.0]",
            "site": "/usr/local/lib/python3.11/site-packages", "bin": "/usr/local/bin/python3.11", "agent": "glog",
            "rank_prefix": True, "cxx_time": True, "pg": "short", "numel": True, "triton": "3.0.0"},
    "v25": {"torch": "2.5.1+cu124", "cuda": "12.4", "cuda_drv": "12040", "cuda_rt": "12.4.131", "nccl": "2.21.5",
            "driver": "550.127.05", "python": "3.11.10 | packaged by conda-forge | (main, Oct 16 2024, 01:27:36) "
                                         "[GCC 13.3.0]",
            "site": "/opt/conda/lib/python3.11/site-packages", "bin": "/opt/conda/bin/python3.11", "agent": "glog",
            "rank_prefix": True, "cxx_time": True, "pg": "guid", "numel": True, "triton": "3.1.0"},
}

SIGNAMES = {6: "SIGABRT", 9: "SIGKILL", 15: "SIGTERM"}


class TorchJob(NumJob):
    """A torchrun job of one era: NumJob's hosts, pids and tee'd say()/agent() (the prefix
    is "[rankN]:" from torch 2.2 on, nothing before), plus the era's c10d messages."""

    def __init__(self, seed, hosts, nproc, era, gpu, timeout_ms, nch=16, **extra):
        v = dict(ERAS[era])
        v.update(extra)
        super().__init__(seed, hosts, nproc, "rank" if v["rank_prefix"] else "none", gpu, v)
        self.era = era
        self.timeout_ms = timeout_ms
        self.nch = nch
        self.nccl_ver = tuple(int(x) for x in v["nccl"].split("."))

    def cxx(self, t, level, src, msg):
        """A c10d C++ log line: glog header with nanoseconds from torch 2.4, '[E file:line]' before."""
        if self.v["cxx_time"]:
            return torch_glog(level, t, src, msg)
        return f"[{level} {src}] {msg}"

    def pgp(self, g):
        """The process-group log prefix of the default group (with its trailing blank)."""
        if self.v["pg"] == "short":
            return f"[PG 0 Rank {g}] "
        if self.v["pg"] == "guid":
            return f"[PG ID 0 PG GUID 0(default_pg) Rank {g}] "
        return ""

    def work(self, seq, op, numel):
        if not self.v["numel"]:
            return f"WorkNCCL(SeqNum={seq}, OpType={op}, Timeout(ms)={self.timeout_ms})"
        return (f"WorkNCCL(SeqNum={seq}, OpType={op}, NumelIn={numel}, NumelOut={numel}, "
                f"Timeout(ms)={self.timeout_ms})")

    def addr(self):
        return f"0x7f{self.rng.randint(0x1000000000, 0xfffffffff0):x}"


# --------------------------------------------------------------------------------------------
# Start-up


def nccl_init(job, g):
    """NCCL_DEBUG=INFO start-up of rank g (without the tee prefix): environment, network,
    one ring and one tree over every channel, Init COMPLETE in the version's wording."""
    rng = job.rng
    v = job.v
    node = job.node(g)
    l, n, world, nn = job.local(g), job.nproc, job.world, len(job.nodes)
    nch = job.nch
    pid = node.pids[l]
    proxy = pid + 57 + l
    host = node.name
    iface = v.get("iface", "bond0")
    ver = job.nccl_ver
    p2p = "P2P/IPC/read" if ver < (2, 19) else "P2P/CUMEM/read"
    nics = 8 if n >= 8 else 4

    def info(tid, msg):
        return f"{host}:{pid}:{tid} [{l}] NCCL INFO {msg}"

    comm = f"0x{rng.randint(0x55a000000000, 0x55afffffffff):x}"
    bus = BUS_IDS[l % len(BUS_IDS)]
    out = []
    if g == 0:
        out.append(f"NCCL version {v['nccl']}+cuda{v['cuda']}")
    out.append(info(pid, f"cudaDriverVersion {v['cuda_drv']}"))
    out.append(info(pid, f"NCCL_SOCKET_IFNAME set by environment to {iface}"))
    out.append(info(pid, "NCCL_IB_HCA set by environment to mlx5"))
    out.append(info(pid, f"Bootstrap : Using {iface}:{node.ip}<0>"))
    if v.get("plugin_warn"):
        # Harmless: the optional net plugin is absent (WARN lines start with an empty line).
        out.append("")
        out.append(f"{host}:{pid}:{pid} [{l}] net.cc:98 NCCL WARN NET/Plugin: could not load libnccl-net.so "
                   f"(no such file), continuing with the internal network implementation")
    out.append(info(pid, "NET/Plugin : No plugin found (libnccl-net.so), using internal implementation"))
    hcas = " ".join(f"[{i}]mlx5_{i}:1/IB" for i in range(nics))
    out.append(info(pid, f"NET/IB : Using {hcas} [RO]; OOB {iface}:{node.ip}<0>"))
    out.append(info(pid, "Using network IB"))
    if ver >= (2, 20):
        out.append(info(pid, f"ncclCommInitRank comm {comm} rank {g} nranks {world} cudaDev {l} nvmlDev {l} "
                             f"busId {bus} commId 0x{job.comm_id} - Init START"))
    mask = "ffffffff,00000000,ffffffff" if l < n // 2 else "ffffffff,00000000,ffffffff,00000000"
    out.append(info(pid, f"Setting affinity for GPU {l} to {mask}"))
    if ver >= (2, 19):
        out.append(info(pid, f"comm {comm} rank {g} nRanks {world} nNodes {nn} localRanks {n} localRank {l} "
                             f"MNNVL 0"))
    nr = node.node_rank
    if l == 0:
        d1, d2 = (g + 1 if n > 1 else -1), (g + n if nr < nn - 1 else -1)
        up = g - n if nr > 0 else -1
    else:
        d1, d2 = (g + 1 if l < n - 1 else -1), -1
        up = g - 1
    out.append(info(pid, "Trees " + " ".join(f"[{c}] {d1}/{d2}/-1->{g}->{up}" for c in range(nch))))
    if ver >= (2, 19):
        out.append(info(pid, "P2P Chunksize set to 524288"))
    if g == 0:
        ring = "".join(f"{r:4d}" for r in range(world))
        for c in range(nch):
            out.append(info(pid, f"Channel {c:02d}/{nch:02d} :{ring}"))
    for c in range(nch):
        if l < n - 1:
            out.append(info(proxy, f"Channel {c:02d}/0 : {g}[{l}] -> {g + 1}[{l + 1}] via {p2p}"))
        else:
            out.append(info(proxy, f"Channel {c:02d}/0 : {g}[{l}] -> {(g + 1) % world}[0] [send] via "
                                   f"NET/IB/{c % nics}/GDRDMA"))
        if l == 0:
            out.append(info(proxy, f"Channel {c:02d}/0 : {(g - 1) % world}[{n - 1}] -> {g}[0] [receive] via "
                                   f"NET/IB/{c % nics}/GDRDMA"))
    out.append(info(pid, "Connected all rings" + (", use ring PXN 0 GDR 1" if ver >= (2, 21) else "")))
    for c in range(nch):
        if l > 0:
            out.append(info(proxy, f"Channel {c:02d}/0 : {g}[{l}] -> {g - 1}[{l - 1}] via {p2p}"))
        elif d2 >= 0:
            out.append(info(proxy, f"Channel {c:02d}/0 : {d2}[0] -> {g}[0] [receive] via NET/IB/{c % nics}/GDRDMA"))
        if l == 0 and up >= 0:
            out.append(info(proxy, f"Channel {c:02d}/0 : {g}[0] -> {up}[0] [send] via NET/IB/{c % nics}/GDRDMA"))
    out.append(info(pid, "Connected all trees"))
    out.append(info(pid, "threadThresholds 8/8/64 | 128/8/64 | 512 | 512"))
    if ver >= (2, 19):
        out.append(info(pid, f"{nch} coll channels, {nch} collnet channels, 0 nvls channels, {nch} p2p channels, "
                             f"2 p2p channels per peer"))
    else:
        out.append(info(pid, f"{nch} coll channels, 0 nvls channels, {nch} p2p channels, 2 p2p channels per peer"))
    if ver >= (2, 20):
        out.append(info(pid, "TUNER/Plugin: Plugin load returned 2 : libnccl-tuner.so: cannot open shared object "
                             "file: No such file or directory"))
        out.append(info(pid, "TUNER/Plugin: Using internal tuner plugin."))
    done = (f"comm {comm} rank {g} nranks {world} cudaDev {l} nvmlDev {l} busId {bus} commId 0x{job.comm_id} "
            f"- Init COMPLETE")
    out.append(info(pid, ("ncclCommInitRank " + done) if ver >= (2, 20) else done))
    if ver >= (2, 21):
        out.append(info(pid, f"Init timings: rank {g} nranks {world} total {0.6 + rng.random():.2f} (kernels "
                             f"{0.2 + rng.random() * 0.2:.2f}, bootstrap {0.1 + rng.random() * 0.2:.2f}, "
                             f"allgathers 0.01, topo {0.05 + rng.random() * 0.1:.2f}, graphs 0.01, connections "
                             f"{0.1 + rng.random() * 0.2:.2f}, rest 0.00)"))
    return out


def rank_start(job, g, t, first_lines=()):
    """A rank's first lines (callables of time or text), its NCCL start-up, then what torch
    says once the communicator is up. Returns the time after them."""
    rng = job.rng
    for line in first_lines:
        t += rng.randint(300, 40_000)
        job.say(g, t, line(t) if callable(line) else line)
    t += rng.randint(SEC, 2 * SEC)
    for line in nccl_init(job, g):
        t += rng.randint(40, 2500)
        job.say(g, t, line)
    t += rng.randint(2000, 90_000)
    l = job.local(g)
    if job.era == "v21":
        # Look-alike: the old variable name is deprecated, nothing failed.
        job.say(g, t, job.cxx(t, "W", "ProcessGroupNCCL.cpp:703",
                              "Warning: NCCL_ASYNC_ERROR_HANDLING is deprecated, set TORCH_NCCL_ASYNC_ERROR_HANDLING "
                              "instead (function operator())"))
    elif job.era in ("v24", "v25"):
        pg = "[PG ID 0 PG GUID 0 Rank %d]" % g if job.era == "v25" else "[PG 0 Rank %d]" % g
        job.say(g, t, job.cxx(t, "W", "ProcessGroupNCCL.cpp:4115",
                              f"{pg}  barrier(): no device bound to this process yet, using GPU {l} (cuda:{l}); "
                              f"pass device_id to init_process_group() to choose it."))
    return t


def launch(job, node, t, cmd):
    """The launch script's shell trace and torchrun's banner on one node."""
    return num_torchrun_start(job, node, t, cmd)


# --------------------------------------------------------------------------------------------
# The watchdog and torchrun


def cxx_trace(job, where, line):
    """The C++ exception trace torch prints under 'what():' (torch >= 2.2)."""
    lib = f"{job.v['site']}/torch/lib"
    a = job.addr
    return [f"Exception raised from {where} at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:{line} "
            "(most recent call first):",
            f"frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96 ({a()} in {lib}/libc10.so)",
            "frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, "
            f"std::ratio<1l, 1000l> > >) + 0x1d2 ({a()} in {lib}/libtorch_cuda.so)",
            f"frame #2: c10d::ProcessGroupNCCL::watchdogHandler() + 0x233 ({a()} in {lib}/libtorch_cuda.so)",
            f"frame #3: c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d ({a()} in {lib}/libtorch_cuda.so)",
            f"frame #4: <unknown function> + 0xdc253 ({a()} in /lib/x86_64-linux-gnu/libstdc++.so.6)",
            f"frame #5: <unknown function> + 0x94ac3 ({a()} in /lib/x86_64-linux-gnu/libc.so.6)",
            f"frame #6: clone + 0x44 ({a()} in /lib/x86_64-linux-gnu/libc.so.6)",
            ""]


def watchdog_abort(job, g, t, seq, op, numel, ran_ms, enq, done, first_to_dump=True, fr=None):
    """Rank g's watchdog times out on collective `seq` at time t and takes the process down,
    in the era's words. The first line (the timeout) is marked 'wd<g>'. fr: (dump path,
    stack frames) when the flight recorder is on (v25). Returns the time of the last line."""
    rng = job.rng
    era = job.era
    wd = (f"[Rank {g}] Watchdog caught collective operation timeout: {job.work(seq, op, numel)} ran for "
          f"{ran_ms} milliseconds before timing out.")
    pgp = job.pgp(g)
    failed = ("Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, "
              "subsequent GPU operations might run on corrupted/incomplete data.")
    down = "To avoid data inconsistency, we are taking the entire process down."

    def say(lines, mark=None, gap=(30, 900)):
        nonlocal t
        job.say(g, t, lines, {0: mark} if mark else None)
        t += rng.randint(*gap)

    if era == "v21":
        say(f"[E ProcessGroupNCCL.cpp:458] {wd}", f"wd{g}")
        say(f"[E ProcessGroupNCCL.cpp:472] {failed}")
        say(f"[E ProcessGroupNCCL.cpp:478] {down}")
        say(f"[E ProcessGroupNCCL.cpp:915] [Rank {g}] NCCL watchdog thread terminated with exception: {wd}")
        say(["terminate called after throwing an instance of 'std::runtime_error'",
             f"  what():  [Rank {g}] NCCL watchdog thread terminated with exception: {wd}"])
        return t
    src = {"v23": (563, 577, 583, 1414, 1418), "v24": (607, 621, 627, 1595, 1599),
           "v25": (632, 681, 695, 1895, 1901)}[era]
    say(job.cxx(t, "E", f"ProcessGroupNCCL.cpp:{src[0]}", wd), f"wd{g}")
    if era == "v23":
        say(job.cxx(t, "E", "ProcessGroupNCCL.cpp:1537",
                    f"{pgp}Timeout at NCCL work: {seq}, last enqueued NCCL work: {enq}, last completed NCCL work: "
                    f"{done}."))
    else:
        say(job.cxx(t, "E", "ProcessGroupNCCL.cpp:1664" if era == "v24" else "ProcessGroupNCCL.cpp:1785",
                    f"{pgp}Exception (either an error or timeout) detected by watchdog at work: {seq}, last enqueued "
                    f"NCCL work: {enq}, last completed NCCL work: {done}."))
    if era == "v25":
        if first_to_dump:
            say(job.cxx(t, "E", "ProcessGroupNCCL.cpp:1826", f"{pgp}First PG on this rank to signal dumping."))
        say(job.cxx(t, "E", "ProcessGroupNCCL.cpp:1538",
                    f"{pgp}Received a dump signal due to a collective timeout from this local rank and we will try our "
                    f"best to dump the debug info. Last enqueued NCCL work: {enq}, last completed NCCL work: {done}."))
        say(job.cxx(t, "E", "ProcessGroupNCCL.cpp:1336",
                    f"{pgp}ProcessGroupNCCL preparing to dump debug info. Include stack trace: {1 if fr else 0}"),
            gap=(200_000, 1_500_000))
        if fr:
            path, frames = fr
            say(job.cxx(t, "I", "ProcessGroupNCCL.cpp:1354", f"{pgp}Finished writing NCCLPG debug info to {path}"))
            say([job.cxx(t, "E", "ProcessGroupNCCL.cpp:801", "Stack trace of the failed collective: ")] + frames)
        else:
            say(job.cxx(t, "E", "ProcessGroupNCCL.cpp:667",
                        "Stack trace of the failed collective not found, potentially because FlightRecorder is "
                        "disabled. You can enable it by setting TORCH_NCCL_TRACE_BUFFER_SIZE to a non-zero value."))
    say(job.cxx(t, "E", f"ProcessGroupNCCL.cpp:{src[1]}", f"[Rank {g}] {failed}"))
    say(job.cxx(t, "E", f"ProcessGroupNCCL.cpp:{src[2]}", f"[Rank {g}] {down}"))
    say(job.cxx(t, "E", f"ProcessGroupNCCL.cpp:{src[3]}",
                f"{pgp}Process group watchdog thread terminated with exception: {wd}"))
    say(["terminate called after throwing an instance of 'c10::DistBackendError'",
         f"  what():  {pgp}Process group watchdog thread terminated with exception: {wd}"]
        + cxx_trace(job, "ncclCommWatchdog", src[4]), gap=(100, 900))
    return t


def summary_time(t):
    d = dt_of(t)
    return f"{d.year}-{d.month:02d}-{d.day:02d}_{d.hour:02d}:{d.minute:02d}:{d.second:02d}"


def torchrun_failed(job, node, t, script, failed, sigterm_pids, mark=None):
    """torchrun's report of a failed local worker group: the agent's error line for the first
    failure, SIGTERM to the workers still alive, its own traceback and the failure summary.
    failed: [(global rank, exit code, time it exited)], the root cause (earliest) first.
    mark names the root cause's exitcode line. Returns the time after the summary."""
    rng = job.rng
    mod = "torch.distributed.elastic.multiprocessing.api"
    site = job.v["site"]
    src_pre = site.rsplit("/", 1)[1]
    g0, c0, _ = failed[0]
    job.agent(node, t, job.agent_line(node, t, "ERROR", mod, f"{src_pre}/torch/distributed/elastic/multiprocessing/"
                                                            "api.py:869",
                                      f"failed (exitcode: {c0}) local_rank: {job.local(g0)} (pid: "
                                      f"{node.pids[job.local(g0)]}) of binary: {job.v['bin']}"))
    for pid in sigterm_pids:
        t += rng.randint(100, 900)
        job.agent(node, t, job.agent_line(node, t, "WARNING", mod, f"{src_pre}/torch/distributed/elastic/"
                                                                  "multiprocessing/api.py:897",
                                          f"Sending process {pid} closing signal SIGTERM"))
    t += rng.randint(200_000, 2 * SEC)
    w = 60
    lines = [
        "Traceback (most recent call last):",
        '  File "/usr/local/bin/torchrun", line 8, in <module>',
        "    sys.exit(main())",
        f'  File "{site}/torch/distributed/elastic/multiprocessing/errors/__init__.py", line 348, in wrapper',
        "    return f(*args, **kwargs)",
        f'  File "{site}/torch/distributed/run.py", line 901, in main',
        "    run(args)",
        f'  File "{site}/torch/distributed/run.py", line 892, in run',
        "    elastic_launch(",
        f'  File "{site}/torch/distributed/launcher/api.py", line 133, in __call__',
        "    return launch_agent(self._config, self._entrypoint, list(args))",
        f'  File "{site}/torch/distributed/launcher/api.py", line 264, in launch_agent',
        "    raise ChildFailedError(",
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
        "=" * w,
        f"{script} FAILED",
        "-" * w,
        "Failures:",
    ]

    def entry(i, g, code, tf):
        pid = node.pids[job.local(g)]
        tb = (f"Signal {-code} ({SIGNAMES[-code]}) received by PID {pid}" if code < 0 else
              "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html")
        return [f"[{i}]:", f"  time      : {summary_time(tf)}", f"  host      : {node.name}",
                f"  rank      : {g} (local_rank: {job.local(g)})", f"  exitcode  : {code} (pid: {pid})",
                "  error_file: <N/A>", f"  traceback : {tb}"]

    if len(failed) > 1:
        for i, (g, code, tf) in enumerate(failed[1:], 1):
            lines += entry(i, g, code, tf)
    else:
        lines.append("  <NO_OTHER_FAILURES>")
    lines += ["-" * w, "Root Cause (first observed failure):"]
    rc_at = len(lines) + 4
    lines += entry(0, g0, c0, failed[0][2]) + ["=" * w]
    assert lines[rc_at].startswith("  exitcode  : ")
    job.agent(node, t, lines, {rc_at: mark} if mark else None)
    return t + rng.randint(1000, 9000)


def hang_aborts(job, t_enq, waiting, seq, op, numel_of, enq_of, done_of, jitter_us=(0, 900_000), fr_of=None,
                script="train.py", sigterm=(), exit_code=-6):
    """Every waiting rank times out `timeout` after t_enq and aborts; each node's agent then
    reports its dead workers (SIGTERM to the ranks in `sigterm`). Returns (end time, first rank
    to time out, {node: [failures]})."""
    rng = job.rng
    to = job.timeout_ms * 1000
    td = {g: t_enq + to + rng.randint(*jitter_us) for g in waiting}
    first = min(waiting, key=lambda g: td[g])
    exits = {}
    for g in sorted(waiting, key=lambda g: td[g]):
        ran = (td[g] - t_enq) // 1000 + rng.randint(0, 40)
        fr = fr_of(g) if fr_of else None
        te = watchdog_abort(job, g, td[g], seq, op, numel_of(g), ran, enq_of(g), done_of(g), fr=fr)
        exits[g] = te + rng.randint(50_000, 400_000)
    end = max(exits.values())
    per_node = {}
    for n in job.nodes:
        mine = [g for g in waiting if job.node(g) is n]
        if not mine:
            continue
        mine.sort(key=lambda g: exits[g])
        tc = exits[mine[-1]] + rng.randint(100_000, 4 * SEC)
        failed = [(g, exit_code, exits[g]) for g in mine]
        kill = [n.pids[job.local(g)] for g in sigterm if job.node(g) is n]
        end = max(end, torchrun_failed(job, n, tc, script, failed, kill))
        per_node[n.name] = failed
    return end, first, per_node


# --------------------------------------------------------------------------------------------
# Shared training-output helpers


def hf_rank_lines(job, g, fp16):
    """What an HF example script prints on every rank before NCCL starts."""
    site = job.v["site"]
    out = [lambda t: (f"{hf_time(t)} - WARNING - __main__ - Process rank: {g}, device: cuda:{job.local(g)}, "
                      f"n_gpu: 1, distributed training: True, 16-bits training: {fp16}")]
    if job.era == "v21":
        out += [f"{site}/torch/_utils.py:831: UserWarning: TypedStorage is deprecated and will be removed in the "
                "future; use UntypedStorage instead",
                "  return self.fget.__get__(instance, owner)()"]
    else:
        out += [f"{site}/transformers/training_args.py:1494: FutureWarning: the `evaluation_strategy` argument is "
                "deprecated, pass `eval_strategy` instead",
                "  warnings.warn("]
    return out


def rank_status(job, times, every, text, last_step=None, lag=(10_000, 300_000), lag_of=None):
    """One status line per rank every `every` steps; a rank in last_step stops after that step."""
    rng = job.rng
    last_step = last_step or {}
    for s in sorted(times):
        if s % every:
            continue
        for g in range(job.world):
            if s > last_step.get(g, 1 << 40):
                continue
            lo, hi = lag_of(g, s) if lag_of else lag
            tg = times[s] + rng.randint(lo, hi)
            job.say(g, tg, text(g, s, tg))


def hf_status_text(job, sec):
    rng = job.rng

    def text(g, s, t):
        return (f"{hf_time(t)} - INFO - __main__ - rank {g}: step {s}, "
                f"{job.v.get('micro', 8) / sec * (0.95 + 0.1 * rng.random()):.1f} samples/s, "
                f"max memory allocated {job.v.get('mem', 40.0) + rng.random() * 0.6:.2f} GiB")
    return text


def shard_lines(job, times, root, every=(140, 260), skip=()):
    """Each rank's data loader opens a new shard now and then. Returns {rank: last shard step}."""
    rng = job.rng
    steps = sorted(times)
    last = {}
    for g in range(job.world):
        if g in skip:
            continue
        s = rng.randint(1, every[0])
        idx = g * 97 + rng.randint(0, 50)
        while s <= steps[-1]:
            tg = times[s] + rng.randint(300_000, 900_000)
            job.say(g, tg, f"{hf_time(tg)} - INFO - data_utils - rank {g}: opening shard {root}/shard-{idx:05d}"
                           f".jsonl.zst ({1.4 + rng.random():.2f} GB)")
            last[g] = s
            idx += 1
            s += rng.randint(*every)
    return last


LLAMA_CFG = {
    "_name_or_path": "/mnt/models/llama-2-7b", "architectures": ["LlamaForCausalLM"], "attention_bias": False,
    "attention_dropout": 0.0, "bos_token_id": 1, "eos_token_id": 2, "hidden_act": "silu", "hidden_size": 4096,
    "initializer_range": 0.02, "intermediate_size": 11008, "max_position_embeddings": 4096,
    "model_type": "llama", "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 32,
    "pretraining_tp": 1, "rms_norm_eps": 1e-05, "rope_scaling": None, "rope_theta": 10000.0,
    "tie_word_embeddings": False, "torch_dtype": "float16", "use_cache": True, "vocab_size": 32000,
}


def hf_setup(job, t, model_dir, cfg, extra_args, total, batch):
    """Rank 0's TrainingArguments dump, model config, weight loading and training banner."""
    rng = job.rng
    args = dict(HF_ARGS_COMMON)
    args.update(dict(extra_args))
    t = hf_args_dump(job, t, "TrainingArguments", sorted(args.items()))
    t = hf_model_config_log(job, t, f"{model_dir}/config.json", "LlamaConfig", cfg)
    t += rng.randint(SEC, 3 * SEC)
    job.say(0, t, hf_log(t, "INFO", "modeling_utils.py:3474", f"loading weights file {model_dir}/model.safetensors"
                                                               ".index.json"))
    t += rng.randint(9 * SEC, 16 * SEC)
    job.say(0, t, "\r" + "\r".join(
        f"Loading checkpoint shards: {p:3d}%|{chr(0x2588) * (p // 10):<10}| {p // 50}/2 "
        f"[00:{int((p // 50) * 6.5):02d}<00:{int((2 - p // 50) * 6.5):02d}, {6.5 + rng.random():.2f}s/it]"
        for p in (0, 50, 100)))
    t += rng.randint(SEC, 2 * SEC)
    job.say(0, t, hf_log(t, "INFO", "modeling_utils.py:4364",
                         f"All model checkpoint weights were used when initializing {cfg['architectures'][0]}."))
    t += rng.randint(2 * SEC, 5 * SEC)
    return num_hf_train_banner(job, t, [
        f"Num examples = {total * batch * job.world:,}", "Num Epochs = 1",
        f"Instantaneous batch size per device = {batch}",
        f"Total train batch size (w. parallel, distributed & accumulation) = {batch * job.world}",
        "Gradient Accumulation steps = 1", f"Total optimization steps = {total:,}",
        "Number of trainable parameters = 6,738,415,616"])


def write_env(job, bundle, node):
    write(bundle / "env" / node / "collect_env.txt", num_collect_env(job))
    write(bundle / "env" / node / "pip_freeze.txt", num_pip_freeze(job))


def check_lines(bundle, findings):
    """Each pinned line holds its text in the frame the corpus test reads (last \\r frame,
    no ANSI), not only in the raw bytes."""
    for f in findings:
        for e in f["evidence"]:
            data = (bundle / e["path"]).read_bytes()
            assert e["contains"] in gen.clean_line(data, e["line"]), e


# --------------------------------------------------------------------------------------------
# 1. torch 2.1 per-node logs, a rank that never arrives


def scenario_hang_nccl_timeout_legacy(d):
    """torch 2.1 + HF Trainer (DDP) on 2 nodes x 8 A100; rank 11's data loader blocks on an NFS
    read after step 1180, the 15 other ranks hit the 30-minute watchdog at SeqNum S."""
    job = TorchJob(4101, [("node-0", "10.20.1.10"), ("node-1", "10.20.1.11")], 8, "v21",
                   "NVIDIA A100-SXM4-80GB", 1_800_000, nch=16, micro=8, mem=58.3)
    rng = job.rng
    bundle = d / "bundle"
    silent, k_last = 11, 1180
    seq = 37 * k_last + 29
    t0 = us_of(2023, 10, 5, 13, 40, 12)
    model = "/mnt/models/llama-2-7b"

    def cmd(n):
        return ["+ export NCCL_DEBUG=INFO NCCL_SOCKET_IFNAME=bond0 NCCL_IB_HCA=mlx5 NCCL_ASYNC_ERROR_HANDLING=1",
                f"+ torchrun --nnodes 2 --nproc_per_node 8 --node_rank {n.node_rank} --rdzv_backend c10d "
                "--rdzv_endpoint 10.20.1.10:29500 run_clm.py --model_name_or_path /mnt/models/llama-2-7b "
                "--dataset_name /mnt/nfs/corpus --per_device_train_batch_size 8 --bf16 --max_steps 3540 "
                "--logging_steps 10 --evaluation_strategy steps --eval_steps 500 --save_steps 2000 "
                "--output_dir /mnt/nfs/runs/llama2-7b-clm --ddp_timeout 1800"]

    ends = []
    for n in job.nodes:
        tn = launch(job, n, t0 + rng.randint(0, 2 * SEC), cmd(n))
        for l in range(job.nproc):
            g = n.node_rank * job.nproc + l
            ends.append(rank_start(job, g, tn + rng.randint(0, 900_000), hf_rank_lines(job, g, False)))
    t = max(ends) + rng.randint(SEC // 2, SEC)
    t = hf_setup(job, t, model, LLAMA_CFG,
                 [("bf16", True), ("fp16", False), ("learning_rate", 2e-05), ("logging_steps", 10),
                  ("max_steps", 3540), ("output_dir", "/mnt/nfs/runs/llama2-7b-clm"),
                  ("per_device_train_batch_size", 8), ("evaluation_strategy", "steps"), ("eval_steps", 500)],
                 3540, 8)
    sec = 2.31

    def loss(s):
        return 1.62 + 0.9 * math.exp(-s / 260.0) + (rng.random() - 0.5) * 0.05

    cfg = {"steps": k_last, "total": 3540, "sec": sec, "loss": loss, "lr": lambda k: 2e-05 * min(1.0, k / 100),
           "grad_norm": None, "epoch_steps": 3540, "logging_steps": 10, "steps_per_print": 1 << 40,
           "eval_every": 500, "eval_loss": lambda s: round(1.7 + 0.9 * math.exp(-s / 260.0), 4),
           "flush_every": 50, "eval_batches": 60}
    _, _, times = hf_ds_train(job, t + SEC, cfg)
    rank_status(job, times, 5, hf_status_text(job, sec))
    shard_lines(job, times, "/mnt/nfs/corpus/train", skip=(silent,))
    # Rank 11 opens a new shard after step 1180 and never comes back from the read.
    t_k = times[k_last]
    for i, s in enumerate(range(rng.randint(20, 60), k_last, 190)):
        ts = times[s] + rng.randint(300_000, 900_000)
        job.say(silent, ts, f"{hf_time(ts)} - INFO - data_utils - rank {silent}: opening shard /mnt/nfs/corpus/train/"
                            f"shard-{1066 + i:05d}.jsonl.zst ({1.4 + rng.random():.2f} GB)")
    tl = t_k + 1_450_000
    job.say(silent, tl, f"{hf_time(tl)} - INFO - data_utils - rank {silent}: opening shard /mnt/nfs/corpus/train/"
                        f"shard-01073.jsonl.zst (1.87 GB)")
    t_enq = t_k + 2_300_000
    waiting = [g for g in range(job.world) if g != silent]
    hang_aborts(job, t_enq, waiting, seq, "ALLREDUCE", lambda g: None, lambda g: None, lambda g: None,
                script="run_clm.py", sigterm=(silent,))
    marks = job.render(bundle, lambda n: f"logs/{n.name}/train.log")
    for n in job.nodes:
        write_env(job, bundle, n.name)
    n0 = job.nodes[0].name
    f = [{"code": "hang.collective_timeout",
          "culprits": [{"host": job.node(silent).name, "rank": silent}],
          "evidence": [
              evd(f"logs/{n0}/train.log", marks[n0]["wd0"],
                  f"[Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={seq}, OpType=ALLREDUCE, "
                  "Timeout(ms)=1800000)"),
              evd(f"logs/{n0}/train.log", marks[n0]["wd1"],
                  f"[Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={seq}, OpType=ALLREDUCE"),
          ]}]
    expected(d, f"torch 2.1 HF Trainer (DDP) job on 2 nodes x 8 A100, per-node logs without rank prefixes: rank "
                f"{silent} stops logging after opening an NFS shard and never reaches SeqNum {seq}; the 15 other "
                f"ranks hit the 30-minute NCCL watchdog timeout.", f)
    check_lines(bundle, f)
    return None, f


# --------------------------------------------------------------------------------------------
# 2. torch 2.5 with progress lines: a rank one collective behind


MEM_LINE = "[Rank {g}] (after {it} iterations) memory (MB) | allocated: {a:.1f} | max allocated: {m:.1f} | " \
           "reserved: {r:.1f} | max reserved: {r:.1f}"


def build_behind(bundle, seed, n_nodes, gpn, culprit, seq, iters, mem_every, t0, nch=16):
    """torch 2.5 Megatron-LM pretraining on n_nodes x gpn H100 where `culprit` stops before
    enqueuing collective `seq` (ALLREDUCE, 4194304 elements) and every other rank times out on
    it after 10 minutes. Generates and writes one node at a time (the benchmark bundle has
    1024 ranks). Returns (job, {node: marks}, first rank to time out)."""
    hosts = [(f"node-{i}", f"10.40.{i // 200}.{11 + i % 200}") for i in range(n_nodes)]
    job = TorchJob(seed, hosts, gpn, "v25", "NVIDIA H100 80GB HBM3", 600_000, nch=nch, iface="ib0")
    rng = job.rng
    world = job.world
    run = MegaRun(job, 32, 4096, 32, 1, 4 * world, 0.00015, 20000, "/lustre/ckpt/gpt-6.7b", 3.05)
    run.last = world - 1
    # One shared timeline: launch times per node, the end of every iteration.
    t_launch = {n.name: t0 + rng.randint(0, SEC) for n in job.nodes}
    t_train = t0 + 150 * SEC
    ends = [t_train]
    for _ in range(iters):
        ends.append(ends[-1] + int(run.sec * SEC * (0.98 + 0.04 * rng.random())))
    t_enq = ends[iters] + 1_900_000
    td = {g: t_enq + job.timeout_ms * 1000 + rng.randint(0, 1_200_000) for g in range(world) if g != culprit}
    first = min(td, key=lambda g: td[g])
    numel = 4194304

    def loss(it):
        return 2.05 + 8.9 * math.exp(-it / 140.0) + 1.1 * math.exp(-it / 1400.0) + (rng.random() - 0.5) * 0.06

    def cmd(n):
        return ["+ export TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE='[rank${rank}]:'",
                "+ export NCCL_DEBUG=INFO NCCL_SOCKET_IFNAME=ib0 NCCL_IB_HCA=mlx5 CUDA_DEVICE_MAX_CONNECTIONS=1",
                f"+ torchrun --nnodes {n_nodes} --nproc_per_node {gpn} --node_rank {n.node_rank} --master_addr "
                f"{hosts[0][1]} --master_port 6000 pretrain_gpt.py --num-layers 32 --hidden-size 4096 "
                "--num-attention-heads 32 --seq-length 4096 --micro-batch-size 4 "
                f"--global-batch-size {4 * world} --lr 1.5e-4 --train-iters 20000 --bf16 "
                "--distributed-timeout-minutes 10 --log-interval 1 --save /lustre/ckpt/gpt-6.7b"]

    marks = {}
    for n in job.nodes:
        tn = launch(job, n, t_launch[n.name], cmd(n))
        mine = [n.node_rank * gpn + l for l in range(gpn)]
        for g in mine:
            rank_start(job, g, tn + rng.randint(0, 700_000), [
                f"{job.v['site']}/megatron/core/tensor_parallel/layers.py:280: UserWarning: async grad allreduce "
                "is ignored with sequence parallelism off",
                "  warnings.warn("])
        if 0 in mine:
            t = t_train - 40 * SEC
            job.say(0, t, [f"using world size: {world}, data-parallel size: {run.dp}, context-parallel size: 1, "
                           "tensor-model-parallel size: 1, pipeline-model-parallel size: 1",
                           "------------------------ arguments ------------------------"]
                    + [f"  {k} {'.' * (48 - len(k))} {val}" for k, val in run.args()]
                    + ["-------------------- end of arguments ---------------------"])
            for line in ["> initializing torch distributed ...", "> setting random seeds to 1234 ...",
                         f"time to initialize megatron (seconds): {14 + rng.random() * 5:.3f}",
                         "building GPT model ...",
                         " > number of parameters on (tensor, pipeline) model parallel rank (0, 0): 6738415616",
                         "> building train, validation, and test datasets ...", "done with setup ...",
                         "training ..."]:
                t += rng.randint(200_000, 3 * SEC)
                job.say(0, t, line)
        for it in range(1, iters + 1):
            if run.last in mine:
                sec = (ends[it] - ends[it - 1]) / SEC
                job.say(run.last, ends[it], mega_iter_line(run, ends[it], it, loss(it), 0.2 + rng.random() * 0.2, sec))
            if it % mem_every == 0:
                for g in mine:
                    tm = ends[it] + rng.randint(20_000, 900_000)
                    job.say(g, tm, MEM_LINE.format(g=g, it=it, a=21500 + rng.random() * 300,
                                                   m=52100 + rng.random() * 500, r=61440.0))
        # The hang: every rank but the culprit enqueued `seq` and times out on it.
        exits = {}
        for g in mine:
            if g == culprit:
                continue
            ran = (td[g] - t_enq) // 1000 + rng.randint(0, 40)
            te = watchdog_abort(job, g, td[g], seq, "ALLREDUCE", numel, ran, seq, seq - 1, first_to_dump=True)
            exits[g] = te + rng.randint(50_000, 400_000)
        if culprit in mine:
            # Still alive, stuck before enqueuing `seq`: the dump signal of another rank reaches it.
            # Its heartbeat monitor polls the store's dump signal about once a second.
            tc = td[first] + rng.randint(150_000, 950_000)
            job.say(culprit, tc, job.cxx(tc, "E", "ProcessGroupNCCL.cpp:1538",
                                         f"{job.pgp(culprit)}Received a dump signal due to a collective timeout from "
                                         f"rank {first} and we will try our best to dump the debug info. Last "
                                         f"enqueued NCCL work: {seq - 1}, last completed NCCL work: {seq - 1}."),
                    {0: "behind"})
            tc += rng.randint(500, 9000)
            job.say(culprit, tc, job.cxx(tc, "E", "ProcessGroupNCCL.cpp:1336",
                                         f"{job.pgp(culprit)}ProcessGroupNCCL preparing to dump debug info. Include "
                                         "stack trace: 0"))
        failed = sorted(((g, -6, exits[g]) for g in exits), key=lambda x: x[2])
        tc = failed[-1][2] + rng.randint(100_000, 4 * SEC)
        assert culprit not in mine or tc > td[first] + 950_000
        torchrun_failed(job, n, tc, "pretrain_gpt.py", failed,
                        [n.pids[job.local(culprit)]] if culprit in mine else [])
        data, mk, _ = n.log.render()
        write(bundle / f"logs/{n.name}/train.log", data)
        n.log = None
        marks[n.name] = mk
    return job, marks, first


def scenario_hang_nccl_timeout_behind(d):
    bundle = d / "bundle"
    culprit, seq = 21, 1042
    job, marks, first = build_behind(bundle, 4202, 4, 8, culprit, seq, 1850, 5, us_of(2024, 12, 18, 18, 51, 7))
    hc = job.node(culprit).name
    n0 = job.nodes[0].name
    assert first != culprit and job.node(culprit).name == "node-2"
    f = [{"code": "hang.collective_timeout",
          "culprits": [{"host": hc, "rank": culprit}],
          "evidence": [
              evd(f"logs/{hc}/train.log", marks[hc]["behind"],
                  f"Rank {culprit}] Received a dump signal due to a collective timeout from rank {first} and we will "
                  f"try our best to dump the debug info. Last enqueued NCCL work: {seq - 1}, last completed NCCL "
                  f"work: {seq - 1}."),
              evd(f"logs/{n0}/train.log", marks[n0]["wd0"],
                  f"[Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={seq}, OpType=ALLREDUCE, "
                  "NumelIn=4194304, NumelOut=4194304, Timeout(ms)=600000)"),
              evd(f"logs/{n0}/train.log", marks[n0]["wd1"],
                  f"[Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={seq}"),
          ]}]
    expected(d, f"torch 2.5 Megatron-LM job on 4 nodes x 8 H100 ([rankN]: and [PG ID 0 PG GUID 0(default_pg) Rank N] "
                f"prefixes): rank {culprit} last enqueued SeqNum {seq - 1} and only answers the dump signal; 31 ranks "
                f"enqueued {seq} (ALLREDUCE, 4194304 elements) and time out after 600000 ms.", f)
    check_lines(bundle, f)
    return None, f


# --------------------------------------------------------------------------------------------
# 3. torch 2.3: a rank crashes first (CUDA OOM), the others time out


def scenario_hang_rank_crashed_first(d):
    hosts = [("dgx-a07", "10.31.7.7"), ("dgx-a08", "10.31.7.8"), ("dgx-a09", "10.31.7.9"), ("dgx-a10", "10.31.7.10")]
    job = TorchJob(4303, hosts, 4, "v23", "NVIDIA A100-SXM4-80GB", 900_000, nch=12, iface="enp12s0", micro=4,
                   mem=61.7)
    rng = job.rng
    bundle = d / "bundle"
    bad, k_last = 6, 1432
    seq = 18 * k_last + 11
    t0 = us_of(2024, 6, 11, 2, 13, 44)
    model = "/data/models/llama-2-7b"

    def cmd(n):
        return ["+ export TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE='[rank${rank}]:'",
                "+ export NCCL_DEBUG=INFO NCCL_SOCKET_IFNAME=enp12s0 NCCL_IB_HCA=mlx5",
                f"+ torchrun --nnodes 4 --nproc_per_node 4 --node_rank {n.node_rank} --rdzv_backend c10d "
                "--rdzv_endpoint dgx-a07:29500 finetune.py --model_name_or_path /data/models/llama-2-7b "
                "--dataset /data/sft/mix-v3 --per_device_train_batch_size 4 --bf16 --gradient_checkpointing "
                "--max_steps 5000 --logging_steps 10 --evaluation_strategy steps --eval_steps 500 --ddp_timeout 900 "
                "--output_dir /data/runs/sft-7b"]

    ends = []
    for n in job.nodes:
        tn = launch(job, n, t0 + rng.randint(0, 2 * SEC), cmd(n))
        for l in range(job.nproc):
            g = n.node_rank * job.nproc + l
            ends.append(rank_start(job, g, tn + rng.randint(0, 900_000), hf_rank_lines(job, g, False)))
    t = max(ends) + rng.randint(SEC // 2, SEC)
    t = hf_setup(job, t, model, LLAMA_CFG,
                 [("bf16", True), ("fp16", False), ("gradient_checkpointing", True), ("learning_rate", 1e-05),
                  ("logging_steps", 10), ("max_steps", 5000), ("output_dir", "/data/runs/sft-7b"),
                  ("per_device_train_batch_size", 4), ("eval_strategy", "steps"), ("eval_steps", 500),
                  ("ddp_timeout", 900)], 5000, 4)
    sec = 1.87

    def loss(s):
        return 0.94 + 0.75 * math.exp(-s / 310.0) + (rng.random() - 0.5) * 0.06

    def gnorm(s):
        return 0.31 + 0.5 * math.exp(-s / 200.0) + rng.random() * 0.08

    cfg = {"steps": k_last, "total": 5000, "sec": sec, "loss": loss, "lr": lambda k: 1e-05 * min(1.0, k / 50),
           "grad_norm": gnorm, "epoch_steps": 5000, "logging_steps": 10, "steps_per_print": 1 << 40,
           "eval_every": 500, "eval_loss": lambda s: round(1.01 + 0.75 * math.exp(-s / 310.0), 4),
           "flush_every": 50, "eval_batches": 48}
    _, _, times = hf_ds_train(job, t + SEC, cfg)
    t_k = times[k_last]
    t_oom = t_k + 910_000
    node_bad = job.node(bad)

    def lag_of(g, s):
        # At the last step the other ranks of the crashing node print while rank 6's traceback goes out.
        if s == k_last and job.node(g) is node_bad and g != bad:
            return (t_oom - t_k + 5_000, t_oom - t_k + 220_000)
        return (10_000, 300_000)

    rank_status(job, times, 4, hf_status_text(job, sec), lag_of=lag_of)
    # Rank 6 runs out of memory in the forward pass of step 1431.
    site = job.v["site"]
    tb = [
        "Traceback (most recent call last):",
        '  File "/workspace/finetune.py", line 341, in <module>',
        "    main()",
        '  File "/workspace/finetune.py", line 327, in main',
        "    trainer.train(resume_from_checkpoint=args.resume)",
        f'  File "{site}/transformers/trainer.py", line 1885, in train',
        "    return inner_training_loop(",
        f'  File "{site}/transformers/trainer.py", line 2216, in _inner_training_loop',
        "    tr_loss_step = self.training_step(model, inputs)",
        f'  File "{site}/transformers/trainer.py", line 3238, in training_step',
        "    loss = self.compute_loss(model, inputs)",
        f'  File "{site}/transformers/trainer.py", line 3264, in compute_loss',
        "    outputs = model(**inputs)",
        f'  File "{site}/torch/nn/modules/module.py", line 1532, in _wrapped_call_impl',
        "    return self._call_impl(*args, **kwargs)",
        f'  File "{site}/torch/nn/parallel/distributed.py", line 1593, in forward',
        "    else self._run_ddp_forward(*inputs, **kwargs)",
        f'  File "{site}/transformers/models/llama/modeling_llama.py", line 1189, in forward',
        "    logits = logits.float()",
    ]
    oom = (f"torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.91 GiB. GPU {job.local(bad)} has a "
           f"total capacity of 79.15 GiB of which 2.06 GiB is free. Process {node_bad.pids[job.local(bad)]} has 77.08 "
           "GiB memory in use. Of the allocated memory 72.64 GiB is allocated by PyTorch, and 3.67 GiB is reserved "
           "by PyTorch but unallocated.")
    tt = t_oom
    for line in tb:
        job.say(bad, tt, line)
        tt += rng.randint(4000, 16_000)
    job.say(bad, tt, oom, {0: "oom"})
    t_exit = tt + rng.randint(300_000, 700_000)
    others = [g for g in range(job.world) if job.node(g) is node_bad and g != bad]
    t_end = torchrun_failed(job, node_bad, t_exit + rng.randint(100_000, 1_500_000), "finetune.py",
                            [(bad, 1, t_exit)], [node_bad.pids[job.local(g)] for g in others], mark="rc")
    # The other nodes finished the forward pass and wait in the gradient all-reduce.
    t_enq = t_k + 1_700_000
    waiting = [g for g in range(job.world) if job.node(g) is not node_bad]
    assert t_end < t_enq + 900 * SEC
    hang_aborts(job, t_enq, waiting, seq, "ALLREDUCE", lambda g: 13107200, lambda g: seq + 2,
                lambda g: seq - 1, script="finetune.py")
    path_of = {n.name: f"logs/{n.name}/train.log" for n in job.nodes}
    marks = job.render(bundle, lambda n: path_of[n.name])
    files = []
    for n in job.nodes:
        write_env(job, bundle, n.name)
        files += [{"path": path_of[n.name], "kind": "log", "host": n.name},
                  {"path": f"env/{n.name}/collect_env.txt", "kind": "version", "host": n.name},
                  {"path": f"env/{n.name}/pip_freeze.txt", "kind": "version", "host": n.name}]
    write(bundle / "casefile.json", json.dumps({"format_version": 1, "labels": {"job": "sft-7b"}, "files": files},
                                               indent=2) + "\n")
    hb = node_bad.name
    n0 = job.nodes[0].name
    f = [{"code": "hang.collective_timeout",
          "culprits": [{"host": hb, "rank": bad}],
          "evidence": [
              evd(path_of[hb], marks[hb]["oom"], "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate"),
              evd(path_of[hb], marks[hb]["rc"], f"exitcode  : 1 (pid: {node_bad.pids[job.local(bad)]})"),
              evd(path_of[n0], marks[n0]["wd0"],
                  f"[Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={seq}, OpType=ALLREDUCE, "
                  "NumelIn=13107200, NumelOut=13107200, Timeout(ms)=900000)"),
          ]},
         # The runtime analyzer names the same crash: the out-of-memory error with its numbers, and
         # the first failure of the run (info, beside runtime.cuda_oom).
         {"code": "runtime.cuda_oom",
          "culprits": [{"host": hb, "rank": bad}],
          "evidence": [evd(path_of[hb], marks[hb]["oom"],
                           "CUDA out of memory. Tried to allocate 3.91 GiB. GPU 2 has a total capacity of 79.15 GiB")]},
         {"code": "runtime.first_failure",
          "culprits": [{"host": hb, "rank": bad}],
          "evidence": [
              evd(path_of[hb], marks[hb]["oom"], "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate"),
              evd(path_of[hb], marks[hb]["rc"], f"exitcode  : 1 (pid: {node_bad.pids[job.local(bad)]})"),
          ]}]
    expected(d, f"torch 2.3 HF Trainer (DDP) job on 4 nodes x 4 A100 (casefile.json names each node's log): rank {bad} "
                f"dies of a CUDA out-of-memory error (torchrun root cause, exitcode 1); 12 ranks of the other nodes "
                f"then time out at SeqNum {seq} and abort (exitcode -6).", f)
    check_lines(bundle, f)
    return None, f


# --------------------------------------------------------------------------------------------
# 4. torch 2.4: one rank issues a differently sized all-reduce


def titan_line(t, s, loss, lr, gn, mem, tps):
    """Rank 0's coloured per-step line of a custom trainer (ANSI kept, as the tee'd log has it)."""
    return (f"\x1b[36m[trainer]\x1b[0m {pylog_time(t)} | step {s:>5} | \x1b[32mloss {loss:.4f}\x1b[0m | lr {lr:.2e} "
            f"| grad_norm {gn:.3f} | \x1b[33mmem {mem:.1f} GiB\x1b[0m | tok/s/gpu {tps:,}")


def scenario_hang_collective_mismatch(d):
    job = TorchJob(4404, [("node-0", "10.52.3.20"), ("node-1", "10.52.3.21")], 8, "v24", "NVIDIA H100 80GB HBM3",
                   300_000, nch=24, iface="ens7")
    rng = job.rng
    bundle = d / "bundle"
    odd, seq, k_last = 9, 2047, 1364
    big, small = 4194304, 1048576
    t0 = us_of(2024, 11, 3, 6, 2, 51)

    def cmd(n):
        return ["+ export TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE='[rank${rank}]:'",
                "+ export NCCL_DEBUG=INFO NCCL_SOCKET_IFNAME=ens7 NCCL_IB_HCA=mlx5 TORCH_NCCL_ASYNC_ERROR_HANDLING=3",
                f"+ torchrun --nnodes 2 --nproc_per_node 8 --node_rank {n.node_rank} --rdzv_backend c10d "
                "--rdzv_endpoint 10.52.3.20:29500 -m trainer.main --config configs/llama3_8b_packed.toml"]

    def first(g):
        return [lambda t: f"{pylog_time(t)} | INFO | rank {g} | trainer.main | loading config configs/"
                          "llama3_8b_packed.toml",
                lambda t: f"{pylog_time(t)} | INFO | rank {g} | trainer.dist | init_process_group(backend='nccl', "
                          "timeout=0:05:00)"]

    ends = []
    for n in job.nodes:
        tn = launch(job, n, t0 + rng.randint(0, 2 * SEC), cmd(n))
        for l in range(job.nproc):
            g = n.node_rank * job.nproc + l
            ends.append(rank_start(job, g, tn + rng.randint(0, 900_000), first(g)))
    t = max(ends) + rng.randint(SEC, 2 * SEC)
    cfg_lines = ["[job]", 'dump_folder = "/checkpoints/llama3-8b-packed"', "[model]", 'name = "llama3"',
                 'flavor = "8B"', "[training]", "batch_size = 2", "seq_len = 8192", "steps = 12000",
                 "packing = true", "pack_buffer_tokens = 4194304", "[comm]", "init_timeout_seconds = 300",
                 "train_timeout_seconds = 300", "[checkpoint]", "interval = 500", "async_mode = \"async\""]
    job.say(0, t, [f"{pylog_time(t)} | INFO | rank 0 | trainer.main | config:"] + [f"    {x}" for x in cfg_lines])
    t += rng.randint(2 * SEC, 6 * SEC)
    job.say(0, t, f"\x1b[36m[trainer]\x1b[0m {pylog_time(t)} | model llama3 8B: 8,030,261,248 parameters, "
                  "\x1b[1mFSDP\x1b[0m over 16 ranks")
    times = {}
    sec = 1.64
    tt = t + 30 * SEC
    for s in range(1, k_last + 1):
        tt += int(sec * SEC * (0.97 + 0.06 * rng.random())) + (9 * SEC if s % 500 == 0 else 0)
        times[s] = tt
        loss = 2.4 + 9.1 * math.exp(-s / 90.0) + 0.6 * math.exp(-s / 900.0) + (rng.random() - 0.5) * 0.05
        job.say(0, tt, titan_line(tt, s, loss, 3e-4 * min(1.0, s / 200), 0.28 + rng.random() * 0.1,
                                  61.2 + rng.random() * 0.4, 6450 + rng.randint(-120, 120)))
        if s % 500 == 0:
            job.say(0, tt - 8 * SEC, f"{pylog_time(tt - 8 * SEC)} | INFO | rank 0 | trainer.checkpoint | saving "
                                     f"checkpoint step-{s} to /checkpoints/llama3-8b-packed/step-{s} (async)")

    def status(g, s, t):
        return (f"{pylog_time(t)} | INFO | rank {g} | trainer.data | step {s}: {rng.randint(3, 8)} packed batches "
                f"prefetched, mem reserved {70.1 + rng.random() * 0.8:.1f} GiB")

    rank_status(job, times, 10, status)
    # The shape bug: rank 9's packing falls back to a short buffer, its all-reduce is 4x smaller.
    t_k = times[k_last]
    tw = t_k + 640_000
    job.say(odd, tw, f"{pylog_time(tw)} | WARNING | rank {odd} | trainer.data | packing: shard 0419 ended early, "
                     f"pack buffer holds {small} tokens instead of {big}; continuing with the short buffer")
    t_enq = t_k + 1_300_000
    hang_aborts(job, t_enq, list(range(job.world)), seq, "ALLREDUCE", lambda g: small if g == odd else big,
                lambda g: seq, lambda g: seq - 1, script="trainer.main")
    marks = job.render(bundle, lambda n: f"logs/{n.name}/train.log")
    for n in job.nodes:
        write_env(job, bundle, n.name)
    ho = job.node(odd).name
    n0 = job.nodes[0].name
    f = [{"code": "hang.collective_mismatch",
          "culprits": [{"host": ho, "rank": odd}],
          "evidence": [
              evd(f"logs/{ho}/train.log", marks[ho][f"wd{odd}"],
                  f"[Rank {odd}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={seq}, "
                  f"OpType=ALLREDUCE, NumelIn={small}, NumelOut={small}, Timeout(ms)=300000)"),
              evd(f"logs/{n0}/train.log", marks[n0]["wd0"],
                  f"[Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={seq}, OpType=ALLREDUCE, "
                  f"NumelIn={big}, NumelOut={big}, Timeout(ms)=300000)"),
          ]}]
    expected(d, f"torch 2.4 job on 2 nodes x 8 H100: at SeqNum {seq} 15 ranks time out on ALLREDUCE NumelIn={big} and "
                f"rank {odd} on ALLREDUCE NumelIn={small} (a rank-dependent packing path shrank its buffer).", f)
    check_lines(bundle, f)
    return None, f


# --------------------------------------------------------------------------------------------
# 5. torch 2.5 with the flight recorder: one rank all-reduces a float32 tensor


def fr_dump(rank, world, entries, last):
    """A flight-recorder dump in its JSON form (json.dumps, one line; formats.md 3.3)."""
    doc = {
        "version": "2.5",
        "pg_config": {"0": {"name": "0", "desc": "default_pg", "ranks": str(list(range(world)))}},
        "pg_status": {"0": {"last_enqueued_collective": last, "last_started_collective": last,
                            "last_completed_collective": last - 1}},
        "entries": entries,
        "nccl_version": "2.21.5",
    }
    return json.dumps(doc) + "\n"


def scenario_hang_flight_recorder(d):
    hosts = [("ip-10-1-4-17", "10.1.4.17"), ("ip-10-1-4-18", "10.1.4.18")]
    job = TorchJob(4505, hosts, 4, "v25", "NVIDIA A100-SXM4-80GB", 120_000, nch=24, iface="ens5")
    rng = job.rng
    bundle = d / "bundle"
    odd, seq = 3, 37
    world = job.world
    t0 = us_of(2025, 2, 20, 16, 7, 31)
    site = job.v["site"]

    def cmd(n):
        return ["+ export TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE='[rank${rank}]:'",
                "+ export NCCL_DEBUG=INFO NCCL_SOCKET_IFNAME=ens5 TORCH_NCCL_TRACE_BUFFER_SIZE=2000 "
                "TORCH_NCCL_DUMP_ON_TIMEOUT=1 TORCH_NCCL_DEBUG_INFO_TEMP_FILE=/workspace/fr/nccl_trace_rank_",
                f"+ torchrun --nnodes 2 --nproc_per_node 4 --node_rank {n.node_rank} --rdzv_backend c10d "
                "--rdzv_endpoint 10.1.4.17:29500 train.py --config configs/vit_h14.yaml --resume "
                "/workspace/ckpt/step_18000 --nccl-timeout-s 120"]

    def first(g):
        return [lambda t: f"{pylog_time(t)} - train - INFO - rank {g}/{world} on cuda:{job.local(g)}",
                f"{site}/torch/_dynamo/eval_frame.py:600: UserWarning: torch.compile is disabled for this module "
                "(TORCH_COMPILE_DISABLE=1)",
                "  warnings.warn("]

    ends = []
    for n in job.nodes:
        tn = launch(job, n, t0 + rng.randint(0, 2 * SEC), cmd(n))
        for l in range(job.nproc):
            g = n.node_rank * job.nproc + l
            ends.append(rank_start(job, g, tn + rng.randint(0, 900_000), first(g)))
    t = max(ends) + rng.randint(SEC, 2 * SEC)
    # Rank 0 prints the model and resumes; every rank loads its shard of the optimizer state.
    blocks = []
    for i in range(32):
        blocks += [f"      ({i}): Block(",
                   "        (norm1): LayerNorm((1280,), eps=1e-06, elementwise_affine=True)",
                   "        (attn): Attention(",
                   "          (qkv): Linear(in_features=1280, out_features=3840, bias=True)",
                   "          (proj): Linear(in_features=1280, out_features=1280, bias=True)", "        )",
                   "        (norm2): LayerNorm((1280,), eps=1e-06, elementwise_affine=True)", "        (mlp): Mlp(",
                   "          (fc1): Linear(in_features=1280, out_features=5120, bias=True)", "          (act): GELU()",
                   "          (fc2): Linear(in_features=5120, out_features=1280, bias=True)", "        )", "      )"]
    job.say(0, t, [f"{pylog_time(t)} - train - INFO - model:", "DistributedDataParallel(",
                   "  (module): VisionTransformer(", "    (patch_embed): PatchEmbed(",
                   "      (proj): Conv2d(3, 1280, kernel_size=(14, 14), stride=(14, 14))",
                   "    )", "    (blocks): ModuleList("] + blocks
            + ["    )", "    (norm): LayerNorm((1280,), eps=1e-06, elementwise_affine=True)",
               "    (head): Linear(in_features=1280, out_features=1000, bias=True)", "  )", ")"])
    for g in range(world):
        tg = t + rng.randint(SEC, 2 * SEC)
        for i in range(48):
            tg += rng.randint(40_000, 160_000)
            job.say(g, tg, f"{pylog_time(tg)} - ckpt - INFO - rank {g}: read optimizer state block {i + 1}/48 "
                           f"({62 + rng.randint(0, 9)} MB) from /workspace/ckpt/step_18000/__{g}_{i}.distcp")
        tg += rng.randint(100_000, 400_000)
        job.say(g, tg, f"{pylog_time(tg)} - train - INFO - rank {g}: restored model and optimizer shard from "
                       f"/workspace/ckpt/step_18000 ({3.1 + rng.random() * 0.2:.2f} GB)")
        for w in range(8):
            tg += rng.randint(5_000, 60_000)
            job.say(g, tg, f"{pylog_time(tg)} - data - INFO - rank {g}: dataloader worker {w} started "
                           f"(pid {job.node(g).pids[job.local(g)] + 300 + 8 * job.local(g) + w})")
    t += 14 * SEC
    # Collectives 1..36: DDP's broadcast of the parameters, then 8 gradient buckets per step.
    buckets = [6553600, 6553600, 6553600, 6553600, 6553600, 6553600, 6553600, 2359296]
    ops = []
    tc = t
    for b in range(4):
        tc += rng.randint(20_000, 90_000)
        ops.append(("nccl:broadcast", [[buckets[b]]], tc))
    times = {}
    for s in range(1, 5):
        tc += rng.randint(900_000, 1_100_000)
        for b in range(8):
            tc += rng.randint(9_000, 30_000)
            ops.append(("nccl:all_reduce", [[buckets[b]]], tc))
        times[s] = tc + rng.randint(100_000, 200_000)
        tc = times[s]
        job.say(0, tc, f"{pylog_time(tc)} - train - INFO - step {18000 + s}: loss={1.287 + rng.random() * 0.02:.4f} "
                       f"lr=8.0e-05 img/s={1480 + rng.randint(-30, 30)}")
    # 37: the statistics all-reduce after step 4; rank 3 built its buffer in float32.
    tc += rng.randint(30_000, 60_000)
    ops.append(("nccl:all_reduce", [[2, 8192]], tc))
    assert len(ops) == seq
    t_enq = tc

    def entries(r):
        out = []
        for i, (op, sizes, tcr) in enumerate(ops):
            s = i + 1
            dt = "Float" if (s == seq and r == odd) else "BFloat16"
            ns = tcr * 1000 + rng.randint(0, 999)
            done = s < seq
            out.append({"record_id": i, "pg_id": 0, "process_group": ["0", "default_pg"], "collective_seq_id": s,
                        "p2p_seq_id": 0, "op_id": s, "profiling_name": op, "time_created_ns": ns,
                        "input_sizes": sizes, "input_dtypes": [dt], "output_sizes": sizes, "output_dtypes": [dt],
                        "state": "completed" if done else "started", "time_discovered_started_ns": None,
                        "time_discovered_completed_ns": ns + rng.randint(2_000_000, 40_000_000) if done else None,
                        "retired": done, "timeout_ms": job.timeout_ms, "is_p2p": False, "frames": []})
        return out

    frames = [f"#0 all_reduce from {site}/torch/distributed/distributed_c10d.py:2501",
              f"#1 wrapper from {site}/torch/distributed/c10d_logger.py:83",
              "#2 reduce_stats from /workspace/train.py:214",
              "#3 train_step from /workspace/train.py:301",
              "#4 main from /workspace/train.py:388",
              "#5 <module> from /workspace/train.py:412"]
    hang_aborts(job, t_enq, list(range(world)), seq, "ALLREDUCE", lambda g: 16384, lambda g: seq, lambda g: seq - 1,
                fr_of=lambda g: (f"/workspace/fr/nccl_trace_rank_{g}", frames), script="train.py")
    marks = job.render(bundle, lambda n: f"logs/{n.name}/train.log")
    for r in range(world):
        write(bundle / "fr" / f"nccl_trace_rank_{r}", fr_dump(r, world, entries(r), seq))
    for n in job.nodes:
        write_env(job, bundle, n.name)
    for r in (0, odd):
        text = (bundle / "fr" / f"nccl_trace_rank_{r}").read_text()
        assert text.count("\n") == 1 and len(text) < 60_000
        json.loads(text)
    ho = job.node(odd).name
    n0 = job.nodes[0].name
    f = [{"code": "hang.collective_mismatch",
          "culprits": [{"host": ho, "rank": odd}],
          "evidence": [
              evd(f"fr/nccl_trace_rank_{odd}", 1, '"input_dtypes": ["Float"]'),
              evd("fr/nccl_trace_rank_0", 1, '"collective_seq_id": 37, "p2p_seq_id": 0, "op_id": 37, '
                                             '"profiling_name": "nccl:all_reduce"'),
              evd(f"logs/{n0}/train.log", marks[n0]["wd0"],
                  f"[Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={seq}, OpType=ALLREDUCE, "
                  "NumelIn=16384, NumelOut=16384, Timeout(ms)=120000)"),
          ]}]
    expected(d, f"torch 2.5 DDP job on 2 nodes x 4 A100 with the flight recorder on: all 8 ranks time out at SeqNum "
                f"{seq} (same op and size in the logs); the JSON dumps show rank {odd}'s all_reduce in Float while "
                "the others are BFloat16.", f)
    check_lines(bundle, f)
    return None, f


# --------------------------------------------------------------------------------------------
# 9. A healthy 16-rank run with everything that looks like trouble


def scenario_healthy_multirank(d):
    hosts = [("node-31", "10.12.0.31"), ("node-32", "10.12.0.32")]
    job = TorchJob(4909, hosts, 8, "v25", "NVIDIA H100 80GB HBM3", 600_000, nch=16, iface="ib0", plugin_warn=True)
    rng = job.rng
    bundle = d / "bundle"
    world = job.world
    steps = 620
    t0 = us_of(2025, 6, 2, 19, 44, 3)
    site = job.v["site"]
    env = ["NCCL_DEBUG=INFO", "NCCL_IB_HCA=mlx5", "NCCL_SOCKET_IFNAME=ib0", "NCCL_TIMEOUT=1800",
           "NCCL_ASYNC_ERROR_HANDLING=1", "TORCH_NCCL_ASYNC_ERROR_HANDLING=3", "TORCH_NCCL_TRACE_BUFFER_SIZE=2000",
           "TORCH_NCCL_DUMP_ON_TIMEOUT=1", "TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC=600", "TORCH_CPP_LOG_LEVEL=INFO"]

    def cmd(n):
        return (["+ export TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE='[rank${rank}]:'",
                 "+ export " + " ".join(env), "+ env | grep -E '^(NCCL|TORCH)_' | sort"] + sorted(env)
                + ["TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE=[rank${rank}]:",
                   f"+ torchrun --nnodes 2 --nproc_per_node 8 --node_rank {n.node_rank} --rdzv_backend c10d "
                   "--rdzv_endpoint node-31:29500 train.py --config configs/gpt_1b.yaml"])

    def first(g):
        pgp = f"[PG ID 0 PG GUID 0(default_pg) Rank {g}] "
        return [
            lambda t: job.cxx(t, "W", "ProcessGroupNCCL.cpp:925",
                              "Warning: NCCL_ASYNC_ERROR_HANDLING is deprecated, set TORCH_NCCL_ASYNC_ERROR_HANDLING "
                              "instead (function operator())"),
            lambda t: job.cxx(t, "I", "ProcessGroupNCCL.cpp:934",
                              f"{pgp}ProcessGroupNCCL initialization options: size: {world}, global rank: {g}, "
                              f"TIMEOUT(ms): 600000, USE_HIGH_PRIORITY_STREAM: 0, SPLIT_FROM: 0, SPLIT_COLOR: 0, "
                              "PG Name: 0"),
            lambda t: job.cxx(t, "I", "ProcessGroupNCCL.cpp:943",
                              f"{pgp}ProcessGroupNCCL environments: NCCL version: 2.21.5, "
                              "TORCH_NCCL_ASYNC_ERROR_HANDLING: 3, TORCH_NCCL_DUMP_ON_TIMEOUT: 1, "
                              "TORCH_NCCL_WAIT_TIMEOUT_DUMP_MILSEC: 60000, TORCH_NCCL_DESYNC_DEBUG: 0, "
                              "TORCH_NCCL_ENABLE_TIMING: 0, TORCH_NCCL_BLOCKING_WAIT: 0, TORCH_DISTRIBUTED_DEBUG: OFF, "
                              "TORCH_NCCL_USE_TENSOR_REGISTER_ALLOCATOR_HOOK: 0, TORCH_NCCL_ENABLE_MONITORING: 1, "
                              "TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC: 600, TORCH_NCCL_TRACE_BUFFER_SIZE: 2000, "
                              "TORCH_NCCL_COORD_CHECK_MILSEC: 1000, TORCH_NCCL_NAN_CHECK: 0"),
            lambda t: f"{pylog_time(t)} - train - INFO - rank {g}: init_process_group(backend='nccl', "
                      "timeout=0:10:00) done",
        ]

    ends = []
    for n in job.nodes:
        tn = launch(job, n, t0 + rng.randint(0, 2 * SEC), cmd(n))
        for l in range(job.nproc):
            g = n.node_rank * job.nproc + l
            ends.append(rank_start(job, g, tn + rng.randint(0, 900_000), first(g)))
    t = max(ends) + rng.randint(SEC, 2 * SEC)
    cfg = ["model:", "  name: gpt-1b", "  n_layer: 24", "  d_model: 2048", "  dtype: bfloat16", "train:",
           "  steps: 620", "  micro_batch: 8", "  lr: 3.0e-4", "  eval_every: 100", "  checkpoint_every: 300",
           "dist:", "  backend: nccl", "  timeout_minutes: 10", "  nccl_timeout: 600", "  watchdog_timeout_s: 600",
           "data:", "  path: /datasets/fineweb-edu/tokens", "  num_workers: 6", "  timeout: 0"]
    job.say(0, t, [f"{pylog_time(t)} - train - INFO - resolved config:"] + [f"  {x}" for x in cfg])
    base = {g: 0.412 * (0.99 + 0.02 * rng.random()) for g in range(world)}
    spikes = {}
    while len(spikes) < 7:
        spikes[(rng.randrange(world), rng.randint(20, steps - 5))] = 1.9 + rng.random() * 0.7
    t += 20 * SEC
    step_start = {}
    for s in range(1, steps + 1):
        step_start[s] = t
        extra = 0.0
        if s % 100 == 0:
            extra = 2.6  # every rank evaluates after the step
        if s % 300 == 0:
            extra += 7.9  # every rank writes its checkpoint shard
        slowest = 0.0
        for g in range(world):
            dt = base[g] * (0.97 + 0.06 * rng.random()) * spikes.get((g, s), 1.0) + extra
            slowest = max(slowest, dt)
            tg = t + int(dt * SEC) + rng.randint(500, 4000)
            loss = 2.31 + 8.4 * math.exp(-s / 60.0) + 0.9 * math.exp(-s / 500.0) + (rng.random() - 0.5) * 0.04
            job.say(g, tg, f"{pylog_time(tg)} - train - INFO - step {s}/{steps} loss={loss:.4f} step_time={dt:.3f}s "
                           f"tokens/s={int(8 * 2048 / dt):,}")
        if s % 100 == 0:
            te = t + int(0.45 * SEC)
            frames = [tqdm_frame(i, 40, i * 0.06, 0.06) for i in range(0, 41, 5)]
            job.say(0, te, "\r" + "\r".join(f"eval: {x}" for x in frames))
            job.say(0, te + 2 * SEC, f"{pylog_time(te + 2 * SEC)} - train - INFO - eval at step {s}: "
                                     f"val_loss={2.4 + 8.4 * math.exp(-s / 60.0):.4f}")
        if s % 300 == 0:
            tk = t + int(3.2 * SEC)
            for g in range(world):
                tg = tk + rng.randint(0, 5 * SEC)
                job.say(g, tg, f"{pylog_time(tg)} - train - INFO - rank {g}: wrote checkpoint shard "
                               f"/checkpoints/gpt-1b/step_{s}/rank_{g:02d}.distcp")
        if s == 211:
            tg = t + int(0.2 * SEC)
            job.say(7, tg, f"{pylog_time(tg)} - data - WARNING - rank 7: slow read of shard 00412 (3.4 s), "
                           "retrying from the page cache")
        t += int(slowest * SEC) + rng.randint(5_000, 20_000)
    t += rng.randint(SEC, 3 * SEC)
    job.say(0, t, f"{pylog_time(t)} - train - INFO - training done: {steps} steps")
    for g in range(world):
        tg = t + rng.randint(SEC, 2 * SEC)
        job.say(g, tg, job.cxx(tg, "W", "ProcessGroupNCCL.cpp:1250",
                               f"Warning: the process group of rank {g} is being torn down at interpreter exit; call "
                               "destroy_process_group() at the end of training to release NCCL resources cleanly."))
    agent_finish_ok(job, t + 3 * SEC)
    job.render(bundle, lambda n: f"logs/{n.name}/train.log")
    for n in job.nodes:
        write_env(job, bundle, n.name)
    expected(d, "torch 2.5 job on 2 nodes x 8 H100 runs 620 steps to a clean torchrun exit: per-rank step times with "
                "eval/checkpoint slow steps on every rank and isolated spikes, NCCL INFO start-up, timeout settings "
                "and TORCH_NCCL_* environment printed by the script and by ProcessGroupNCCL; nothing must fire.", [])
    return None, []
