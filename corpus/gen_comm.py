"""Comm scenarios from logs (issue #6, log half): NCCL errors, the socket transport where
InfiniBand is there, NCCL/driver versions that differ between hosts, a communicator init that
some ranks never complete, a rendezvous nobody can reach, the distributed GPU test with a
broken rank, and three healthy runs full of look-alikes (imported by generate.py).

torchrun jobs on several hosts, one tee'd log per host (nodes/<host>/train.log: the launch
script's shell trace, torchrun's agent lines, every local rank's output behind its "[rankN]:"
or "[defaultN]:" prefix), NCCL_DEBUG=INFO start-up per rank (formats.md 4: version banner
without a header, cudaDriverVersion, Bootstrap, NET/Plugin, NET/IB or NET/Socket, Using
network, rings and trees, every channel in both directions, Init START/COMPLETE in the
wording of the NCCL release), the training script's step lines, tqdm bars with \\r frames,
warnings, and what the failure makes torch, NCCL and torchrun print (formats.md 3, 5).
Host names, addresses, pids, comm pointers and ids are made up. Each scenario draws from its
own seeded random.Random. Every pinned line number is computed from the written file.
"""

import math

from generate import SEC, BUS_IDS, agent_finish_ok, agent_sigterm, expected, hexid, pylog_time, tqdm_frame, \
    us_of, write
from gen_torch_hang import TorchJob, check_lines, launch, torchrun_failed, write_env

# --------------------------------------------------------------------------------------------
# NCCL_DEBUG=INFO start-up of one rank in one communicator


class Comm:
    """One NCCL communicator: its members (global ranks, in rank order), id and the NCCL
    release that prints its lines."""

    def __init__(self, job, members, tag):
        self.members = list(members)
        self.id = hexid(job.rng, 16)
        self.tag = tag
        self.ptr = {g: f"0x{job.rng.randint(0x55a000000000, 0x55afffffffff):x}" for g in self.members}


def nccl_ver(job, g):
    """(version string, cuda, driver) NCCL of rank g's host prints."""
    node = job.node(g)
    o = job.v.get("per_node", {}).get(node.name, {})
    return (o.get("nccl", job.v["nccl"]), o.get("nccl_cuda", job.v["cuda"]), o.get("cuda_drv", job.v["cuda_drv"]))


def nccl_comm_lines(job, g, comm, net, first=True, banner=False, stuck=False, env=(), plugin_warn=False, nch=None):
    """NCCL_DEBUG=INFO lines of rank g for the init of `comm` (tee prefix not included).
    first: the process's first communicator (prints the process facts: driver, bootstrap,
    network); banner: the "NCCL version" line (rank 0 of a communicator, once per process);
    stuck: the rank stops after its topology lines and never prints Init COMPLETE."""
    rng = job.rng
    node = job.node(g)
    l, n = job.local(g), job.nproc
    pid = node.pids[l]
    proxy = pid + 61 + l
    host = node.name
    iface = job.v.get("iface", "ib0")
    vs, cu, drv = nccl_ver(job, g)
    ver = tuple(int(x) for x in vs.split("."))
    p2p = "P2P/IPC/read" if ver < (2, 19) else "P2P/CUMEM/read"
    nch = nch or job.nch
    nics = 4
    members = comm.members
    size = len(members)
    me = members.index(g)
    hosts = []
    for m in members:
        if job.node(m).name not in hosts:
            hosts.append(job.node(m).name)
    nn = len(hosts)
    ptr = comm.ptr[g]
    bus = BUS_IDS[l % len(BUS_IDS)]

    def info(msg, tid=None):
        return f"{host}:{pid}:{tid or pid} [{l}] NCCL INFO {msg}"

    def dev(m):
        # <= 2.17 the bracket holds the PCI bus id, from 2.18 the NVML device index.
        return f"{BUS_IDS[job.local(m) % len(BUS_IDS)]}" if ver < (2, 18) else str(job.local(m))

    def via(a, b, c):
        if job.node(a) is job.node(b):
            return job.v.get("intra", p2p)
        if net == "IB":
            return f"NET/IB/{c % nics}/GDRDMA"
        return f"NET/Socket/{c % 2}"

    def conn(c, a, b, conn_idx=0):
        tag = "" if job.node(a) is job.node(b) else (" [send]" if a == g else " [receive]")
        return info(f"Channel {c:02d}/{conn_idx} : {members.index(a)}[{dev(a)}] -> {members.index(b)}[{dev(b)}]"
                    f"{tag} via {via(a, b, c)}", proxy)

    out = []
    if banner:
        out.append(f"NCCL version {vs}+cuda{cu}")
    if first:
        out.append(info(f"cudaDriverVersion {drv}"))
        for k, v in env:
            out.append(info(f"{k} set by environment to {v}"))
        out.append(info(f"Bootstrap : Using {iface}:{node.ip}<0>"))
        if plugin_warn:
            # Harmless: the optional net plugin is absent (a WARN starts with an empty line).
            out.append("")
            out.append(f"{host}:{pid}:{pid} [{l}] net.cc:{'98' if ver >= (2, 19) else '90'} NCCL WARN NET/Plugin: "
                       f"could not load libnccl-net.so (no such file), continuing with the internal network "
                       f"implementation")
        out.append(info("NET/Plugin : No plugin found (libnccl-net.so), using internal implementation"))
        if net == "IB":
            hcas = " ".join(f"[{i}]mlx5_{i}:1/IB" for i in range(nics))
            out.append(info(f"NET/IB : Using {hcas} [RO]; OOB {iface}:{node.ip}<0>"))
            out.append(info("Using network IB"))
        else:
            sock_if = job.v.get("sock_if", iface)
            if job.v.get("ib_disabled"):
                pass  # NCCL_IB_DISABLE: the IB transport is not even probed
            else:
                out.append(info("NET/IB : No device found."))
            out.append(info(f"NET/Socket : Using [0]{sock_if}:{node.ip}<0>"))
            out.append(info("Using network Socket"))
    if ver >= (2, 20):
        out.append(info(f"ncclCommInitRank comm {ptr} rank {me} nranks {size} cudaDev {l} nvmlDev {l} busId {bus} "
                        f"commId 0x{comm.id} - Init START"))
    mask = "ffffffff,00000000,ffffffff" if l < n // 2 else "ffffffff,00000000,ffffffff,00000000"
    out.append(info(f"Setting affinity for GPU {l} to {mask}"))
    if ver >= (2, 19):
        out.append(info(f"comm {ptr} rank {me} nRanks {size} nNodes {nn} localRanks "
                        f"{sum(1 for m in members if job.node(m) is node)} localRank "
                        f"{sum(1 for m in members[:me] if job.node(m) is node)} MNNVL 0"))
    if stuck:
        out.append(info("NVLS multicast support is not available on dev %d" % l))
        return out
    nxt, prv = members[(me + 1) % size], members[(me - 1) % size]
    up = members[me - 1] if me > 0 else None
    down = members[me + 1] if me + 1 < size else None
    t_up = members.index(up) if up is not None else -1
    t_down = members.index(down) if down is not None else -1
    out.append(info("Trees " + " ".join(f"[{c}] {t_down}/-1/-1->{me}->{t_up}" for c in range(nch))))
    if ver >= (2, 19):
        out.append(info("P2P Chunksize set to 524288"))
    if me == 0:
        ring = "".join(f"{r:4d}" for r in range(size))
        for c in range(nch):
            out.append(info(f"Channel {c:02d}/{nch:02d} :{ring}"))
    if size > 1:
        for c in range(nch):
            out.append(conn(c, g, nxt))
            if job.node(prv) is not node:
                out.append(conn(c, prv, g))
    out.append(info("Connected all rings" + (", use ring PXN 0 GDR 1" if ver >= (2, 21) else "")))
    if size > 1:
        for c in range(nch):
            if up is not None:
                out.append(conn(c, g, up))
            if down is not None:
                out.append(conn(c, down, g) if job.node(down) is not node else conn(c, down, g))
    out.append(info("Connected all trees"))
    out.append(info("threadThresholds 8/8/64 | 128/8/64 | 512 | 512"))
    if ver >= (2, 19):
        out.append(info(f"{nch} coll channels, {nch} collnet channels, 0 nvls channels, {nch} p2p channels, "
                        f"2 p2p channels per peer"))
    else:
        out.append(info(f"{nch} coll channels, 0 nvls channels, {nch} p2p channels, 2 p2p channels per peer"))
    if ver >= (2, 20):
        out.append(info("TUNER/Plugin: Plugin load returned 2 : libnccl-tuner.so: cannot open shared object file: "
                        "No such file or directory"))
        out.append(info("TUNER/Plugin: Using internal tuner plugin."))
    if ver < (2, 18):
        done = f"comm {ptr} rank {me} nranks {size} cudaDev {l} busId {bus} - Init COMPLETE"
    else:
        done = (f"comm {ptr} rank {me} nranks {size} cudaDev {l} nvmlDev {l} busId {bus} commId 0x{comm.id} "
                f"- Init COMPLETE")
    out.append(info(("ncclCommInitRank " + done) if ver >= (2, 20) else done))
    if ver >= (2, 21):
        out.append(info(f"Init timings: rank {me} nranks {size} total {0.6 + rng.random():.2f} (kernels "
                        f"{0.2 + rng.random() * 0.2:.2f}, bootstrap {0.1 + rng.random() * 0.2:.2f}, allgathers "
                        f"0.01, topo {0.05 + rng.random() * 0.1:.2f}, graphs 0.01, connections "
                        f"{0.1 + rng.random() * 0.2:.2f}, rest 0.00)"))
    return out


def say_lines(job, g, t, lines, lo=40, hi=2500, marks=None):
    """Lines of rank g one by one from t; marks {index: name}. Returns the time after them."""
    for i, line in enumerate(lines):
        t += job.rng.randint(lo, hi)
        job.say(g, t, line, {0: marks[i]} if marks and i in marks else None)
    return t


# --------------------------------------------------------------------------------------------
# The training script's own output


def script_start(job, g, t):
    """What the script prints before init_process_group."""
    l = job.local(g)
    site = job.v["site"]
    t += job.rng.randint(2 * SEC, 2 * SEC + 100_000)
    job.say(g, t, f"{pylog_time(t)} - train - INFO - rank {g} (local {l}) on {job.node(g).name}: cuda:{l}, "
                  f"world size {job.world}")
    t += job.rng.randint(1000, 90_000)
    job.say(g, t, [f"{site}/torch/distributed/distributed_c10d.py:4049: UserWarning: No device id is provided via "
                   "`init_process_group` or `barrier `. Using the current device set by the user. ",
                   "  warnings.warn(  # warn only once"])
    return t


def train(job, t, steps, sec, mark_step=None, stop=None, every_bar=25, warn_rank=None):
    """Steps 1..steps on every rank: one loss line per rank, rank 0's tqdm bar (\\r frames,
    one physical line per `every_bar` steps), a data-loader warning now and then. stop:
    {rank: last step it prints}. Returns {step: start time}."""
    rng = job.rng
    stop = stop or {}
    times = {}
    frames = []
    for s in range(1, steps + 1):
        times[s] = t
        dt = sec * (0.96 + 0.08 * rng.random())
        for g in range(job.world):
            if s > stop.get(g, 1 << 30):
                continue
            tg = t + int(dt * SEC) + rng.randint(500, 40_000)
            loss = 2.05 + 7.9 * math.exp(-s / 70.0) + 0.6 * math.exp(-s / 900.0) + (rng.random() - 0.5) * 0.05
            job.say(g, tg, f"{pylog_time(tg)} - train - INFO - step {s}/{steps} loss={loss:.4f} "
                           f"lr={3e-4 * min(1.0, s / 100):.3e} step_time={dt:.3f}s")
        frames.append(tqdm_frame(s, steps, s * sec, sec))
        if s % every_bar == 0 or s == steps:
            if s <= stop.get(0, 1 << 30):
                job.say(0, t + int(dt * SEC) + 50_000, "\r" + "\r".join(frames))
            frames = []
        if warn_rank is not None and s % 97 == 13:
            g = (s * 7 + warn_rank) % job.world
            if s <= stop.get(g, 1 << 30):
                tg = t + rng.randint(0, int(dt * SEC))
                job.say(g, tg, f"{pylog_time(tg)} - data - WARNING - rank {g}: slow read of shard "
                               f"{rng.randint(100, 999):05d} ({1.2 + rng.random() * 2:.1f} s), retrying from the "
                               "page cache")
        t += int(dt * SEC) + rng.randint(5_000, 30_000)
    times[steps + 1] = t
    return times


def env_cmd(job, n, script, env, extra=""):
    """The launch script's shell trace on host n."""
    tmpl = "[rank${rank}]:" if job.prefix == "rank" else None
    lines = []
    if tmpl:
        lines.append("+ export TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE='[rank${rank}]:'")
    lines.append("+ export " + " ".join(env))
    lines.append(f"+ torchrun --nnodes {len(job.nodes)} --nproc_per_node {job.nproc} --node_rank {n.node_rank} "
                 f"--rdzv_backend c10d --rdzv_endpoint {job.nodes[0].name}:29500 --tee 3 {script}{extra}")
    return lines


def render(job, bundle):
    marks = job.render(bundle, lambda n: f"nodes/{n.name}/train.log")
    for n in job.nodes:
        write_env(job, bundle, n.name)
    return marks


def line_of(bundle, path, pred, nth=0):
    """1-based number of the nth line of a written file for which pred(text) holds."""
    lines = (bundle / path).read_bytes().split(b"\n")
    hits = [i + 1 for i, b in enumerate(lines) if pred(b.decode("utf-8", "replace"))]
    return hits[nth]


def text_at(bundle, path, line):
    return (bundle / path).read_bytes().split(b"\n")[line - 1].decode("utf-8", "replace")


def ev(bundle, path, line, contains):
    assert contains in text_at(bundle, path, line), (path, line, contains)
    return {"path": path, "line": line, "contains": contains}


def start_all(job, t0, cmd_of, comms_of, net, script_lines=script_start, after_init=None, stagger=900_000):
    """Launch on every node, each rank's first lines and the NCCL init of each communicator in
    comms_of(g) = [(comm, dict of nccl_comm_lines options)]. Returns the time when every
    rank is past init."""
    rng = job.rng
    ends = []
    for n in job.nodes:
        tn = launch(job, n, t0 + rng.randint(0, 2 * SEC), cmd_of(n))
        for l in range(job.nproc):
            g = n.node_rank * job.nproc + l
            # Local rank 0 starts first, the others a little later each.
            t = script_lines(job, g, tn + l * rng.randint(200_000, stagger))
            first = True
            for comm, opt in comms_of(g):
                # The ranks reach init_process_group in the order they started.
                t += SEC // 2 + rng.randint(0, 100_000)
                mark = opt.pop("mark", None)
                lines = nccl_comm_lines(job, g, comm, net, first=first, **opt)
                marks = None
                if mark:
                    marks = {next(i for i, x in enumerate(lines) if mark[0] in x): mark[1]}
                t = say_lines(job, g, t, lines, marks=marks)
                first = False
            if after_init:
                t = after_init(job, g, t)
            ends.append(t)
    return max(ends)


# --------------------------------------------------------------------------------------------
# 1. comm_nccl_error


def scenario_comm_nccl_error(d):
    """torch 2.5 / NCCL 2.21.5 on 3 nodes x 4 H100 over InfiniBand. At step 312 the link of
    node-2 flaps: rank 7 (node-1, the ring's sender to node-2) fails to recv from node-2's
    proxy (Connection reset by peer, ncclSystemError), the others then report the peer gone."""
    hosts = [("node-0", "10.20.0.11"), ("node-1", "10.20.0.12"), ("node-2", "10.20.0.13")]
    job = TorchJob(6101, hosts, 4, "v25", "NVIDIA H100 80GB HBM3", 600_000, nch=32, iface="ib0")
    rng = job.rng
    bundle = d / "bundle"
    steps, bad = 400, 312
    t0 = us_of(2025, 3, 14, 8, 2, 41)
    env = ["NCCL_DEBUG=INFO", "NCCL_SOCKET_IFNAME=ib0", "NCCL_IB_HCA=mlx5", "TORCH_NCCL_ASYNC_ERROR_HANDLING=3"]
    world = Comm(job, range(job.world), "world")
    nenv = [("NCCL_SOCKET_IFNAME", "ib0"), ("NCCL_IB_HCA", "mlx5")]
    t = start_all(job, t0, lambda n: env_cmd(job, n, "train.py", env, " --config configs/llama_3b.yaml"),
                  lambda g: [(world, dict(banner=g == 0, env=nenv, plugin_warn=True))], "IB")
    t += 10 * SEC
    culprit, peer = 7, job.nodes[2]
    stop = {g: bad - 1 for g in range(job.world)}
    times = train(job, t, steps, 0.74, stop=stop, warn_rank=3)
    tf = times[bad] + int(0.5 * SEC)
    pgp = job.pgp

    def nccl_hdr(g, tid):
        n = job.node(g)
        return f"{n.name}:{n.pids[job.local(g)]}:{tid} [{job.local(g)}]"

    def torch_error(g, t, cls_words, cls_name, cls_text, last, mark=None):
        """torch's watchdog on an async NCCL error, the exception it rethrows, the abort."""
        site = job.v["site"]
        err = f"NCCL error: {cls_words}, NCCL version 2.21.5"
        lines = [job.cxx(t, "E", "ProcessGroupNCCL.cpp:1692",
                         f"{pgp(g)}Exception (either an error or timeout) detected by watchdog at work: "
                         f"{37 * bad + 5}, last enqueued NCCL work: {37 * bad + 6}, last completed NCCL work: "
                         f"{37 * bad + 4}."),
                 job.cxx(t, "E", "ProcessGroupNCCL.cpp:681", f"[Rank {g}] Some NCCL operations have failed or timed "
                         "out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on "
                         "corrupted/incomplete data."),
                 job.cxx(t, "E", "ProcessGroupNCCL.cpp:695",
                         f"[Rank {g}] To avoid data inconsistency, we are taking the entire process down."),
                 job.cxx(t, "E", "ProcessGroupNCCL.cpp:1895",
                         f"{pgp(g)}Process group watchdog thread terminated with exception: {err}"),
                 f"{cls_name}: {cls_text}",
                 "Last error:",
                 last,
                 "Exception raised from checkForNCCLErrorsInternal at ../torch/csrc/distributed/c10d/"
                 "ProcessGroupNCCL.cpp:2027 (most recent call first):",
                 f"frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96 ({job.addr()} in "
                 f"{site}/torch/lib/libc10.so)",
                 "frame #1: c10d::ProcessGroupNCCL::checkForNCCLErrorsInternal(std::shared_ptr<c10d::NCCLComm>&) + "
                 f"0x220 ({job.addr()} in {site}/torch/lib/libtorch_cuda.so)",
                 f"frame #2: c10d::ProcessGroupNCCL::watchdogHandler() + 0x27c ({job.addr()} in "
                 f"{site}/torch/lib/libtorch_cuda.so)",
                 "",
                 "terminate called after throwing an instance of 'c10::DistBackendError'",
                 f"  what():  {pgp(g)}Process group watchdog thread terminated with exception: {err}",
                 f"{cls_name}: {cls_text}",
                 "Last error:",
                 last]
        return say_lines(job, g, t, lines, 20, 400, marks={3: mark} if mark else None)

    sys_words = "unhandled system error (run with NCCL_DEBUG=INFO for details)"
    sys_text = "System call (e.g. socket, malloc) or external library call failed or device error. "
    rem_words = "remote process exited or there was a network error"
    rem_text = ("NCCL detected that a remote process exited or that the network connection failed. It may be "
                "caused by a node failure, a network failure or a crashed process. ")
    # The culprit: NCCL's WARN, its unwind, then torch.
    l = job.local(culprit)
    proxy = job.node(culprit).pids[l] + 61 + l
    port = 36112
    recv = f"socketProgressOpt: Call to recv from {peer.ip}<{port}> failed : Connection reset by peer"
    h = nccl_hdr(culprit, proxy)
    lines = ["", f"{h} misc/socket.cc:538 NCCL WARN {recv}",
             f"{h} NCCL INFO misc/socket.cc:580 -> 2", f"{h} NCCL INFO misc/socket.cc:834 -> 2",
             f"{h} NCCL INFO proxy.cc:1361 -> 2", "",
             f"{h} proxy.cc:1598 NCCL WARN [Proxy Service {culprit}] Failed to execute operation Recv from rank "
             f"{culprit + 1}, retcode 2"]
    t = say_lines(job, culprit, tf, lines, 30, 300, marks={1: "warn"})
    t_c = torch_error(culprit, t + rng.randint(80_000, 300_000), sys_words, "ncclSystemError", sys_text, recv,
                      mark="exc")
    # The others: the peer is gone.
    exits = {culprit: t_c + rng.randint(100_000, 300_000)}
    for g in range(job.world):
        if g == culprit:
            continue
        tg = tf + rng.randint(1 * SEC, 3 * SEC)
        n = job.node(g)
        lg = job.local(g)
        h = nccl_hdr(g, n.pids[lg] + 61 + lg)
        other = job.node(culprit if g != culprit + 1 else culprit)
        closed = f"Net : Connection closed by remote peer {other.ip}<{rng.randint(40000, 60000)}>"
        if g in (culprit + 1, 0, 3, 4, 8, 11):
            tg = say_lines(job, g, tg, ["", f"{h} transport/net_socket.cc:482 NCCL WARN {closed}",
                                        f"{h} NCCL INFO transport/net.cc:1209 -> 6"], 30, 300)
        last = closed if g in (culprit + 1, 0, 3, 4, 8, 11) else "remote process exited or there was a network error"
        te = torch_error(g, tg + rng.randint(50_000, 400_000), rem_words, "ncclRemoteError", rem_text, last)
        exits[g] = te + rng.randint(100_000, 300_000)
    for n in job.nodes:
        mine = sorted((g for g in range(job.world) if job.node(g) is n), key=lambda g: exits[g])
        tc = exits[mine[-1]] + rng.randint(200_000, 2 * SEC)
        torchrun_failed(job, n, tc, "train.py", [(g, -6, exits[g]) for g in mine], [],
                        mark="rc" if n.name == "node-1" else None)
    marks = render(job, bundle)
    path = "nodes/node-1/train.log"
    f = [{"code": "comm.nccl_error",
          "culprits": [{"host": "node-1", "rank": str(culprit)}, {"host": "node-2"}],
          "evidence": [ev(bundle, path, marks["node-1"]["warn"], "Call to recv from 10.20.0.13<36112> failed : "
                                                                  "Connection reset by peer")]},
         # torch's exception is the run's first error of its own; its launcher reports -6 (the abort
         # that follows it). comm.nccl_error explains it.
         {"code": "runtime.first_failure",
          "culprits": [{"host": "node-1", "rank": str(culprit)}],
          "evidence": [ev(bundle, path, marks["node-1"]["exc"], "NCCL error: unhandled system error"),
                       ev(bundle, path, marks["node-1"]["rc"], "exitcode  : -6")]}]
    check_lines(bundle, f)
    expected(d, "torch 2.5 / NCCL 2.21.5, 3 nodes x 4 H100 over InfiniBand: at step 312 rank 7 on node-1 fails to "
                "recv from node-2 (10.20.0.13, Connection reset by peer; ncclSystemError), every other rank then "
                "reports ncclRemoteError and aborts (-6); comm.nccl_error names rank 7 / node-1 and the peer's host "
                "node-2.", f)
    return None, f


# --------------------------------------------------------------------------------------------
# 2. comm_transport_fallback


IBSTAT_PORT = ["\tCA type: MT4123", "\tNumber of ports: 1", "\tFirmware version: 20.39.1002",
               "\tHardware version: 0"]


def ibstat_text(rng, n_hca, active=True):
    """`ibstat` of a host with n_hca ConnectX-6 HCAs, one port each."""
    out = []
    for i in range(n_hca):
        guid = f"0x{rng.randint(0x1070fd0300000000, 0x1070fd03ffffffff):016x}"
        out += [f"CA 'mlx5_{i}'"] + IBSTAT_PORT + [f"\tNode GUID: {guid}", f"\tSystem image GUID: {guid}",
                                                   "\tPort 1:", f"\t\tState: {'Active' if active else 'Down'}",
                                                   f"\t\tPhysical state: {'LinkUp' if active else 'Disabled'}",
                                                   "\t\tRate: 200", f"\t\tBase lid: {rng.randint(2, 400)}",
                                                   "\t\tLMC: 0", "\t\tSM lid: 1", "\t\tCapability mask: 0x2651e848",
                                                   f"\t\tPort GUID: {guid}", "\t\tLink layer: InfiniBand"]
    return "\n".join(out) + "\n"


def scenario_comm_transport_fallback(d):
    """torch 2.3 / NCCL 2.20.5 on 2 nodes x 8 A100 with four active ConnectX-6 ports each; the
    launch script still exports NCCL_IB_DISABLE=1 from a debugging session, so NCCL talks
    NET/Socket over bond0 between the nodes. The job runs 300 steps, slowly, and exits cleanly."""
    hosts = [("gpu-b07", "10.30.4.17"), ("gpu-b08", "10.30.4.18")]
    job = TorchJob(6202, hosts, 8, "v23", "NVIDIA A100-SXM4-80GB", 1_800_000, nch=8, iface="bond0",
                   ib_disabled=True)
    job.prefix = "default"
    rng = job.rng
    bundle = d / "bundle"
    t0 = us_of(2024, 11, 5, 21, 17, 4)
    env = ["NCCL_DEBUG=INFO", "NCCL_SOCKET_IFNAME=bond0", "NCCL_IB_DISABLE=1"]
    world = Comm(job, range(job.world), "world")
    nenv = [("NCCL_SOCKET_IFNAME", "bond0"), ("NCCL_IB_DISABLE", "1")]
    t = start_all(job, t0, lambda n: ["+ source /etc/profile.d/modules.sh", "+ module load nccl-debug/env"]
                  + env_cmd(job, n, "train.py", env, " --config configs/gpt2_xl.yaml"),
                  lambda g: [(world, dict(banner=g == 0, env=nenv))], "Socket")
    t += 8 * SEC
    times = train(job, t, 300, 2.91, warn_rank=5)
    agent_finish_ok(job, times[301] + 2 * SEC)
    render(job, bundle)
    for n in job.nodes:
        write(bundle / "nodes" / n.name / "sysinfo" / "ibstat.txt", ibstat_text(rng, 4))
    path = "nodes/gpu-b07/train.log"
    # Rank 0 is the first NCCL process of gpu-b07's log; it receives ring traffic from rank 15
    # on gpu-b08 over the socket transport.
    sock = line_of(bundle, path, lambda x: x.startswith("[default0]:") and "[receive] via NET/Socket" in x)
    port = line_of(bundle, "nodes/gpu-b07/sysinfo/ibstat.txt", lambda x: "State: Active" in x)
    f = [{"code": "comm.transport_fallback",
          "culprits": [{"host": "gpu-b07"}, {"host": "gpu-b08"}],
          "evidence": [ev(bundle, path, sock, "[receive] via NET/Socket/"),
                       ev(bundle, "nodes/gpu-b07/sysinfo/ibstat.txt", port, "State: Active")]}]
    check_lines(bundle, f)
    expected(d, "torch 2.3 / NCCL 2.20.5 on 2 nodes x 8 A100: NCCL_IB_DISABLE=1 left in the launch script makes "
                "every rank use NET/Socket between the nodes although ibstat shows active ConnectX-6 ports on "
                "both; the job runs to a clean exit. comm.transport_fallback names both hosts.", f)
    return None, f


# --------------------------------------------------------------------------------------------
# 3. comm_version_mismatch


def scenario_comm_version_mismatch(d):
    """torch 2.5 on 3 nodes x 4 H100, tensor parallel 4 inside each node. dgx-11 was re-imaged
    from an older container: NCCL 2.19.3+cuda12.2 and driver 535 (cudaDriverVersion 12020)
    where dgx-07 and dgx-08 load NCCL 2.21.5+cuda12.4 on driver 550 (12040). NCCL prints its
    banner on the rank 0 of each communicator: rank 0 for the world, the first rank of each
    node's tensor-parallel group. The job runs 250 steps to a clean exit."""
    hosts = [("dgx-07", "10.40.1.7"), ("dgx-08", "10.40.1.8"), ("dgx-11", "10.40.1.11")]
    job = TorchJob(6303, hosts, 4, "v25", "NVIDIA H100 80GB HBM3", 600_000, nch=16, iface="ib0",
                   per_node={"dgx-11": {"nccl": "2.19.3", "nccl_cuda": "12.2", "cuda_drv": "12020"}})
    rng = job.rng
    bundle = d / "bundle"
    t0 = us_of(2025, 1, 21, 6, 40, 12)
    env = ["NCCL_DEBUG=INFO", "NCCL_SOCKET_IFNAME=ib0", "NCCL_IB_HCA=mlx5"]
    world = Comm(job, range(job.world), "world")
    tp = [Comm(job, [n.node_rank * job.nproc + l for l in range(job.nproc)], f"tp{n.node_rank}") for n in job.nodes]
    nenv = [("NCCL_SOCKET_IFNAME", "ib0"), ("NCCL_IB_HCA", "mlx5")]

    def comms(g):
        return [(world, dict(banner=g == 0, env=nenv, plugin_warn=g % 4 == 1)),
                (tp[g // job.nproc], dict(banner=g % job.nproc == 0 and g != 0))]

    t = start_all(job, t0, lambda n: env_cmd(job, n, "pretrain.py", env, " --tp 4 --config configs/llama_8b.yaml"),
                  comms, "IB")
    t += 12 * SEC
    times = train(job, t, 250, 1.37, warn_rank=2)
    agent_finish_ok(job, times[251] + 2 * SEC)
    render(job, bundle)
    odd = line_of(bundle, "nodes/dgx-11/train.log", lambda x: "NCCL version 2.19.3+cuda12.2" in x)
    major = line_of(bundle, "nodes/dgx-07/train.log", lambda x: "NCCL version 2.21.5+cuda12.4" in x)
    f = [{"code": "comm.version_mismatch",
          "culprits": [{"host": "dgx-11", "rank": str(g)} for g in range(8, 12)],
          "evidence": [ev(bundle, "nodes/dgx-11/train.log", odd, "NCCL version 2.19.3+cuda12.2"),
                       ev(bundle, "nodes/dgx-07/train.log", major, "NCCL version 2.21.5+cuda12.4")]}]
    check_lines(bundle, f)
    expected(d, "torch 2.5 on 3 nodes x 4 H100 with tensor-parallel groups per node: dgx-11's ranks print NCCL "
                "2.19.3+cuda12.2 and cudaDriverVersion 12020, dgx-07 and dgx-08 NCCL 2.21.5+cuda12.4 and 12040 (the "
                "banner of each node comes from its tensor-parallel group's rank 0); the job runs to a clean exit. "
                "comm.version_mismatch names dgx-11's ranks 8-11.", f)
    return None, f


# --------------------------------------------------------------------------------------------
# 4. comm_init_incomplete


def slurm_cancel(job, t, step):
    """scancel of the job step: slurmstepd's line on every node, then torchrun's SIGTERM."""
    from generate import dt_of
    for n in job.nodes:
        tn = t + job.rng.randint(0, 300_000)
        d = dt_of(tn)
        job.agent(n, tn, f"slurmstepd: error: *** STEP {step} ON {n.name} CANCELLED AT "
                         f"{d.year}-{d.month:02d}-{d.day:02d}T{d.hour:02d}:{d.minute:02d}:{d.second:02d} ***")
        agent_sigterm(job, n, tn + job.rng.randint(10_000, 90_000))


def scenario_comm_init_incomplete(d):
    """torch 2.5 / NCCL 2.21.5 on 2 nodes x 8 H100: rank 13 (gpu-q02, GPU 5) prints Init START
    and its topology lines, then nothing; the 15 other ranks print Init COMPLETE and wait in
    the first collective (DDP's parameter broadcast) until the job is cancelled 22 minutes
    later."""
    hosts = [("gpu-q01", "10.50.2.21"), ("gpu-q02", "10.50.2.22")]
    job = TorchJob(6404, hosts, 8, "v25", "NVIDIA H100 80GB HBM3", 1_800_000, nch=32, iface="ib0")
    rng = job.rng
    bundle = d / "bundle"
    t0 = us_of(2025, 5, 8, 23, 51, 30)
    stuck = 13
    env = ["NCCL_DEBUG=INFO", "NCCL_SOCKET_IFNAME=ib0", "NCCL_IB_HCA=mlx5", "TORCH_NCCL_ASYNC_ERROR_HANDLING=3"]
    world = Comm(job, range(job.world), "world")
    nenv = [("NCCL_SOCKET_IFNAME", "ib0"), ("NCCL_IB_HCA", "mlx5")]

    def comms(g):
        o = dict(banner=g == 0, env=nenv, plugin_warn=True)
        if g == stuck:
            o.update(stuck=True, mark=("Init START", "start"))
        return [(world, o)]

    def after(job, g, t):
        if g == 0:
            t += rng.randint(SEC, 2 * SEC)
            job.say(0, t, f"{pylog_time(t)} - train - INFO - wrapping the model in DDP (broadcasting 1,543,503,872 "
                          "parameters from rank 0)")
        return t

    t = start_all(job, t0, lambda n: env_cmd(job, n, "train.py", env, " --config configs/vit_g.yaml"),
                  comms, "IB", after_init=after)
    slurm_cancel(job, t + 22 * 60 * SEC, "731904.0")
    marks = render(job, bundle)
    path = "nodes/gpu-q02/train.log"
    f = [{"code": "comm.init_incomplete",
          "culprits": [{"host": "gpu-q02", "rank": str(stuck)}],
          "evidence": [ev(bundle, path, marks["gpu-q02"]["start"], f"rank {stuck} nranks 16")]}]
    check_lines(bundle, f)
    expected(d, "torch 2.5 / NCCL 2.21.5 on 2 nodes x 8 H100: rank 13 on gpu-q02 prints Init START and stops; the "
                "15 other ranks reach Init COMPLETE and wait until the job is cancelled 22 minutes later (SIGTERM). "
                "comm.init_incomplete names rank 13.", f)
    return None, f


# --------------------------------------------------------------------------------------------
# 5. comm_rendezvous_failed


def scenario_comm_rendezvous_failed(d):
    """torch 2.4 on 3 nodes under Slurm + pyxis: the container of node-0 (the rendezvous
    endpoint) fails to import (no space left on device), so no torchrun ever listens on
    node-0:29500; torchrun on node-1 and node-2 retries the TCPStore for 60 s, printing
    "failed to connect ... Connection refused" at each try, then gives up with
    DistNetworkError and RendezvousConnectionError."""
    hosts = [("node-0", "10.60.0.10"), ("node-1", "10.60.0.11"), ("node-2", "10.60.0.12")]
    job = TorchJob(6505, hosts, 8, "v24", "NVIDIA A100-SXM4-80GB", 600_000)
    rng = job.rng
    bundle = d / "bundle"
    t0 = us_of(2024, 12, 2, 14, 3, 55)
    site = job.v["site"]
    image = "nvcr.io#nvidia/pytorch:24.07-py3"
    n0 = job.nodes[0]
    t = t0 + rng.randint(0, SEC)
    for line in [f"pyxis: importing docker image: {image}",
                 f"slurmstepd: error: pyxis: child {rng.randint(100000, 999999)} failed with error code: 1",
                 "slurmstepd: error: pyxis: failed to import docker image",
                 "slurmstepd: error: pyxis: printing enroot log file:",
                 f"slurmstepd: error: pyxis:     [INFO] Querying registry for permission grant",
                 f"slurmstepd: error: pyxis:     [INFO] Fetching image manifest list",
                 "slurmstepd: error: pyxis:     [INFO] Extracting image layers...",
                 "slurmstepd: error: pyxis:     [ERROR] No space left on device",
                 "slurmstepd: error: pyxis: couldn't start container",
                 "slurmstepd: error: spank: required plugin spank_pyxis.so: task_init() failed with rc=-1",
                 "slurmstepd: error: Failed to invoke spank plugin stack",
                 "srun: error: node-0: task 0: Exited with exit code 1"]:
        t += rng.randint(2 * SEC, 9 * SEC) if "Extracting" in line else rng.randint(2000, 400_000)
        job.agent(n0, t, line, {0: "no_space"} if "No space left" in line else None)
    cmd_env = ["NCCL_DEBUG=WARN", "OMP_NUM_THREADS=8"]
    for n in job.nodes[1:]:
        tn = t0 + rng.randint(40 * SEC, 55 * SEC)  # their image was cached
        job.agent(n, tn, f"pyxis: importing docker image: {image}")
        tn += rng.randint(3 * SEC, 6 * SEC)
        job.agent(n, tn, "pyxis: imported docker image: " + image)
        for line in env_cmd(job, n, "train.py", cmd_env, " --config configs/bert_large.yaml"):
            tn += rng.randint(200, 3000)
            job.agent(n, tn, line)
        tn += rng.randint(SEC, 2 * SEC)
        for msg in ["", "*" * 41, "Setting OMP_NUM_THREADS environment variable for each process to be 1 in "
                    "default, to avoid your system being overloaded, please further tune the variable for optimal "
                    "performance in your application as needed. ", "*" * 41]:
            job.agent(n, tn, job.agent_line(n, tn, "WARNING", "torch.distributed.run", "torch/distributed/run.py:793",
                                            msg))
            tn += 19
        start = tn
        k = 0
        while tn < start + 60 * SEC:
            tn += rng.randint(800_000, 1_900_000) if k else rng.randint(10_000, 90_000)
            job.agent(n, tn, job.cxx(tn, "W", "socket.cpp:697", f"[c10d] The client socket has failed to connect to "
                                                               f"[node-0]:29500 (errno: 111 - Connection refused)."),
                      {0: "refused"} if k == 0 else None)
            k += 1
        tn = start + 60 * SEC + rng.randint(10_000, 200_000)
        c10 = f"{site}/torch/distributed/elastic/rendezvous/c10d_rendezvous_backend.py"
        tb = ["Traceback (most recent call last):",
              f'  File "{c10}", line 159, in _create_tcp_store',
              "    store = TCPStore(",
              "            ^^^^^^^^^",
              "torch.distributed.DistNetworkError: The client socket has timed out after 60s while trying to "
              "connect to (node-0, 29500).",
              "",
              "The above exception was the direct cause of the following exception:",
              "",
              "Traceback (most recent call last):",
              '  File "/opt/conda/bin/torchrun", line 8, in <module>',
              "    sys.exit(main())",
              "             ^^^^^^",
              f'  File "{site}/torch/distributed/elastic/multiprocessing/errors/__init__.py", line 348, in wrapper',
              "    return f(*args, **kwargs)",
              "           ^^^^^^^^^^^^^^^^^^",
              f'  File "{site}/torch/distributed/run.py", line 901, in main',
              "    run(args)",
              f'  File "{site}/torch/distributed/run.py", line 892, in run',
              "    elastic_launch(",
              f'  File "{site}/torch/distributed/launcher/api.py", line 133, in __call__',
              "    return launch_agent(self._config, self._entrypoint, list(args))",
              "           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
              f'  File "{site}/torch/distributed/launcher/api.py", line 232, in launch_agent',
              "    rdzv_handler=rdzv_registry.get_rendezvous_handler(rdzv_parameters),",
              "                 ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
              f'  File "{site}/torch/distributed/elastic/rendezvous/registry.py", line 80, in get_rendezvous_handler',
              "    return handler_registry.create_handler(params)",
              "           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
              f'  File "{site}/torch/distributed/elastic/rendezvous/api.py", line 367, in create_handler',
              "    handler = creator(params)",
              "              ^^^^^^^^^^^^^^^",
              f'  File "{site}/torch/distributed/elastic/rendezvous/registry.py", line 41, in _create_c10d_handler',
              "    backend, store = create_backend(params)",
              "                     ^^^^^^^^^^^^^^^^^^^^^^",
              f'  File "{c10}", line 250, in create_backend',
              "    store = _create_tcp_store(params)",
              "            ^^^^^^^^^^^^^^^^^^^^^^^^^",
              f'  File "{c10}", line 175, in _create_tcp_store',
              "    raise RendezvousConnectionError(",
              "torch.distributed.elastic.rendezvous.api.RendezvousConnectionError: The connection to the C10d store "
              "has failed. See inner exception for details."]
        job.agent(n, tn, tb)
        job.agent(n, tn + rng.randint(200_000, 900_000),
                  f"srun: error: {n.name}: task {n.node_rank}: Exited with exit code 1")
    marks = job.render(bundle, lambda n: f"nodes/{n.name}/train.log")
    path = "nodes/node-1/train.log"
    f = [{"code": "comm.rendezvous_failed",
          "culprits": [{"host": "node-0"}],
          "evidence": [ev(bundle, path, marks["node-1"]["refused"],
                          "failed to connect to [node-0]:29500 (errno: 111 - Connection refused)")]},
         # The root cause, one line in node-0's pyxis output: the built-in
         # rule pack's disk-full signature.
         {"code": "runtime.disk_full",
          "culprits": [{"host": "node-0"}],
          "evidence": [ev(bundle, "nodes/node-0/train.log", marks["node-0"]["no_space"],
                          "[ERROR] No space left on device")]}]
    check_lines(bundle, f)
    expected(d, "torch 2.4 on 3 nodes under Slurm + pyxis: node-0's container fails to import (No space left on "
                "device) so nothing listens at the rendezvous endpoint node-0:29500; torchrun on node-1 and node-2 "
                "is refused for 60 s and exits with DistNetworkError / RendezvousConnectionError. "
                "comm.rendezvous_failed names the master node-0; runtime.disk_full names node-0's full disk.", f)
    return None, f


# --------------------------------------------------------------------------------------------
# 6. GPU test


GPU_TEST = "torch-distributed-gpu-test.py"


def gpu_test_cmd(job, n):
    return ["+ export NCCL_DEBUG=INFO" if job.v.get("nccl_debug") else "+ export NCCL_DEBUG=WARN",
            f"+ python -m torch.distributed.run --nproc_per_node {job.nproc} --nnodes {len(job.nodes)} --node_rank "
            f"{n.node_rank} --rdzv_backend c10d --rdzv_endpoint {job.nodes[0].name}:29500 --tee 3 {GPU_TEST}"]


def gpu_test_start(job, t0, world):
    """Launch the test on every node; each rank inits NCCL (INFO lines when NCCL_DEBUG=INFO).
    Returns the time after the all-reduce and barrier."""
    rng = job.rng

    def first(job, g, t):
        return t + rng.randint(2 * SEC, 2 * SEC + 100_000)

    def comms(g):
        return [(world, dict(banner=g == 0))] if job.v.get("nccl_debug") else []

    return start_all(job, t0, lambda n: gpu_test_cmd(job, n), comms, "IB", script_lines=first)


def scenario_comm_gpu_test_failed(d):
    """torch 2.1 / NCCL 2.18.1, the transformers GPU test under torchrun --tee 3 on 2 nodes x 4
    A100 with NCCL_DEBUG=INFO. Every rank inits NCCL and passes the all-reduce and barrier;
    then node-1's GPU 2 fails its allocation (uncorrectable ECC error: "[node-1-2] is broken"
    and the traceback) and node-0's GPU 3 hangs in it (no line at all); the six others print
    "is OK" and wait in the second barrier until the user cancels."""
    hosts = [("node-0", "10.70.8.20"), ("node-1", "10.70.8.21")]
    job = TorchJob(6606, hosts, 4, "v21", "NVIDIA A100-SXM4-80GB", 1_800_000, nch=8, iface="ib0", nccl_debug=True)
    job.prefix = "default"
    rng = job.rng
    bundle = d / "bundle"
    t0 = us_of(2024, 4, 17, 10, 12, 0)
    world = Comm(job, range(job.world), "world")
    t = gpu_test_start(job, t0, world) + rng.randint(SEC // 2, SEC)
    broken, silent = 6, 3
    for g in range(job.world):
        tg = t + rng.randint(10_000, 600_000)
        n = job.node(g)
        label = f"[{n.name}-{job.local(g)}]"
        if g == silent:
            continue
        if g == broken:
            job.say(g, tg, f"{label} is broken", {0: "broken"})
            job.say(g, tg + 3000, [
                "Traceback (most recent call last):",
                f'  File "/workspace/{GPU_TEST}", line 74, in <module>',
                "    torch.ones(1).cuda(local_rank)",
                "RuntimeError: CUDA error: uncorrectable ECC error encountered",
                "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace "
                "below might be incorrect.",
                "For debugging consider passing CUDA_LAUNCH_BLOCKING=1.",
                "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.",
                ""], {3: "cuda"})
            t_exit = tg + rng.randint(200_000, 900_000)
            continue
        job.say(g, tg, f"{label} is OK (global rank: {g}/{job.world})", {0: "ok"} if g == 0 else None)
    n1 = job.nodes[1]
    torchrun_failed(job, n1, t_exit + rng.randint(100_000, SEC), GPU_TEST, [(broken, 1, t_exit)],
                    [n1.pids[l] for l in range(job.nproc) if l != job.local(broken)], mark="rc")
    slurm_cancel(job, t_exit + 140 * SEC, "88231.0")
    marks = render(job, bundle)
    path = "nodes/node-1/train.log"
    f = [{"code": "comm.gpu_test_failed",
          "culprits": [{"host": "node-1", "rank": str(broken)}, {"host": "node-0", "rank": str(silent)}],
          "evidence": [ev(bundle, path, marks["node-1"]["broken"], "[node-1-2] is broken")]},
         # The broken rank's own error is a CUDA error (the ECC error): runtime names it too.
         {"code": "runtime.cuda_error",
          "culprits": [{"host": "node-1", "rank": str(broken)}],
          "evidence": [ev(bundle, path, marks["node-1"]["cuda"], "uncorrectable ECC error encountered")]},
         {"code": "runtime.first_failure",
          "culprits": [{"host": "node-1", "rank": str(broken)}],
          "evidence": [ev(bundle, path, marks["node-1"]["cuda"], "RuntimeError: CUDA error"),
                       ev(bundle, path, marks["node-1"]["rc"], "exitcode  : 1")]}]
    check_lines(bundle, f)
    expected(d, "The transformers GPU test (torch 2.1, NCCL 2.18.1) on 2 nodes x 4 A100: rank 6 prints "
                "\"[node-1-2] is broken\" and a CUDA ECC error traceback, rank 3 prints nothing, the six others "
                "print \"is OK\"; node-1's torchrun reports rank 6, the job is then cancelled. "
                "comm.gpu_test_failed names ranks 6 (node-1) and 3 (node-0).", f)
    return None, f


def scenario_healthy_comm_gpu_test(d):
    """torch 2.3, the GPU test on 2 nodes x 4 H100 without NCCL_DEBUG: every rank is OK and
    rank 0 prints the versions."""
    hosts = [("gpu-r01", "10.71.0.31"), ("gpu-r02", "10.71.0.32")]
    job = TorchJob(6707, hosts, 4, "v23", "NVIDIA H100 80GB HBM3", 1_800_000, iface="ib0")
    job.prefix = "default"
    rng = job.rng
    bundle = d / "bundle"
    t0 = us_of(2024, 8, 30, 16, 20, 0)
    world = Comm(job, range(job.world), "world")
    t = gpu_test_start(job, t0, world) + rng.randint(SEC // 2, SEC)
    order = list(range(job.world))
    rng.shuffle(order)
    for g in order:
        t += rng.randint(1000, 40_000)
        n = job.node(g)
        job.say(g, t, f"[{n.name}-{job.local(g)}] is OK (global rank: {g}/{job.world})")
    t += rng.randint(50_000, 200_000)
    job.say(0, t, "pt=2.3.1+cu121, cuda=12.1, nccl=(2, 20, 5)")
    agent_finish_ok(job, t + SEC)
    render(job, bundle)
    expected(d, "The transformers GPU test (torch 2.3) on 2 nodes x 4 H100: all 8 ranks print \"is OK\" and rank 0 "
                "the versions; nothing must fire.", [])
    return None, []


# --------------------------------------------------------------------------------------------
# Healthy runs


def scenario_healthy_comm_ib(d):
    """torch 2.4 / NCCL 2.20.5 on 2 nodes x 8 H100 over InfiniBand, NCCL_DEBUG=INFO with the
    harmless net-plugin WARN and a topology WARN; 320 steps, clean exit."""
    hosts = [("node-41", "10.12.5.41"), ("node-42", "10.12.5.42")]
    job = TorchJob(6808, hosts, 8, "v24", "NVIDIA H100 80GB HBM3", 600_000, nch=32, iface="ib0")
    rng = job.rng
    bundle = d / "bundle"
    t0 = us_of(2024, 10, 9, 3, 15, 44)
    env = ["NCCL_DEBUG=INFO", "NCCL_SOCKET_IFNAME=ib0", "NCCL_IB_HCA=mlx5", "NCCL_IB_GID_INDEX=3"]
    world = Comm(job, range(job.world), "world")
    nenv = [("NCCL_SOCKET_IFNAME", "ib0"), ("NCCL_IB_HCA", "mlx5"), ("NCCL_IB_GID_INDEX", "3")]

    def after(job, g, t):
        if job.local(g) == 6:
            n = job.node(g)
            t += rng.randint(1000, 9000)
            job.say(g, t, ["", f"{n.name}:{n.pids[6]}:{n.pids[6]} [6] graph/xml.cc:95 NCCL WARN Could not find real "
                               "path of /sys/class/pci_bus/0000:cb/../../0000:cb:00.0"])
        return t

    t = start_all(job, t0, lambda n: env_cmd(job, n, "train.py", env, " --config configs/gpt_6b.yaml"),
                  lambda g: [(world, dict(banner=g == 0, env=nenv, plugin_warn=True))], "IB", after_init=after)
    t += 9 * SEC
    times = train(job, t, 320, 0.88, warn_rank=1)
    agent_finish_ok(job, times[321] + 2 * SEC)
    render(job, bundle)
    for n in job.nodes:
        write(bundle / "nodes" / n.name / "sysinfo" / "ibstat.txt", ibstat_text(rng, 4))
    expected(d, "torch 2.4 / NCCL 2.20.5 on 2 nodes x 8 H100 over InfiniBand (NET/IB channels, active ibstat "
                "ports, NCCL_IB_HCA set), harmless NET/Plugin and topology WARNs; 320 steps, clean exit; nothing "
                "must fire.", [])
    return None, []


def scenario_healthy_comm_single_node_socket(d):
    """torch 2.0 / NCCL 2.14.3 on one node x 4 A100 (no rank prefix, the old 'comm ... busId
    - Init COMPLETE' wording, bus ids in channel brackets): NCCL_IB_DISABLE=1, NET/Socket
    probed and 'Using network Socket', every channel P2P/IPC inside the node."""
    hosts = [("ws-a100", "192.168.10.5")]
    job = TorchJob(6909, hosts, 4, "v21", "NVIDIA A100-SXM4-40GB", 1_800_000, nch=4, iface="eth0", ib_disabled=True,
                   nccl="2.14.3", cuda="11.8", cuda_drv="12000", torch="2.0.1+cu118", cuda_rt="11.8.89")
    rng = job.rng
    bundle = d / "bundle"
    t0 = us_of(2023, 7, 3, 11, 5, 0)
    env = ["NCCL_DEBUG=INFO", "NCCL_IB_DISABLE=1", "NCCL_SOCKET_IFNAME=eth0"]
    world = Comm(job, range(job.world), "world")
    nenv = [("NCCL_IB_DISABLE", "1"), ("NCCL_SOCKET_IFNAME", "eth0")]
    t = start_all(job, t0, lambda n: env_cmd(job, n, "finetune.py", env, " --model bert-base-uncased"),
                  lambda g: [(world, dict(banner=g == 0, env=nenv))], "Socket")
    t += 5 * SEC
    times = train(job, t, 600, 0.31, warn_rank=0, every_bar=50)
    agent_finish_ok(job, times[601] + 2 * SEC)
    render(job, bundle)
    expected(d, "torch 2.0 / NCCL 2.14.3 on one workstation with 4 A100: NCCL_IB_DISABLE=1, NET/Socket probed and "
                "'Using network Socket', every channel P2P/IPC; 600 steps, clean exit; nothing must fire.", [])
    return None, []


SCENARIOS = {
    "comm_nccl_error": scenario_comm_nccl_error,
    "comm_transport_fallback": scenario_comm_transport_fallback,
    "comm_version_mismatch": scenario_comm_version_mismatch,
    "comm_init_incomplete": scenario_comm_init_incomplete,
    "comm_rendezvous_failed": scenario_comm_rendezvous_failed,
    "comm_gpu_test_failed": scenario_comm_gpu_test_failed,
    "healthy_comm_ib": scenario_healthy_comm_ib,
    "healthy_comm_single_node_socket": scenario_healthy_comm_single_node_socket,
    "healthy_comm_gpu_test": scenario_healthy_comm_gpu_test,
}

