"""Deterministic synthetic profiler traces for the comm analysis (issue #6).

Two layouts, both written from the documented format facts (shared/reference/formats.md
section 2), never copied from a real trace:

* XProf / TSL trace JSON, as jax.profiler's stop_and_export writes `<host>.trace.json.gz`
  (write_xprof_trace): {"displayTimeUnit":"ns","metadata":{"highres-ticks":true},
  "traceEvents":[...,{}]}; only M and X events; pid = plane, tid = line; ts/dur are
  microsecond floats at picosecond precision; every arg value is a string and the args keys
  are sorted; the array ends with an empty {}. TSL writes the whole document on one line;
  `per_line=True` puts one event per line instead (what a pretty-printer or a re-export
  does). Events are written plane by plane and line by line (each line in time order), so
  events of different threads are NOT sorted by time, as in a real file.
  Planes: /device:TPU:N (threads "Steps", "XLA Modules", "XLA Ops") and /host:CPU with the
  Megascale threads "Megascale: Communication Transport" (transfers between hosts with
  src/dst/bytes args, "Megascale: Memory Copy"), "Megascale: RPC" (RPC latencies) and
  "Megascale: DMA" (DeviceToHost/HostToDevice START/END with graph_key/action_index,
  MapDmaBuffer registrations).
* torch.profiler / Kineto JSON (write_kineto_trace): schemaVersion, deviceProperties,
  distributedInfo, baseTimeNanoseconds, one event per line, ts/dur "{us}.{ns:03}"
  relative to the base; cpu_op/user_annotation (ProfilerStep#N)/cuda_runtime on the CPU
  pid, kernels on the GPU pid with ncclDevKernel_* names for the collectives.

Anomaly knobs (the `anomalies` dict; absent = healthy):
  map_dma_steady: int        MapDmaBuffer calls per steady step (healthy: only in warm-up)
  memory_copy_in_recv: int   one "Megascale: Memory Copy" inside every Nth receive transfer
  low_slack: float           share of async collectives whose done follows the start at once
                             and then waits (long done)
  bandwidth_bound: bool      long recv-done waits; transfers keep the network busy ~90% of a step
  rpc_spikes: int            every N steps one RPC of rpc_spike_us (default 200 ms)
  rpc_spike_us: float
  rpc_constant_us: float     every RPC this slow (constant high latency)
  slow_link: dict            {"peer": host, "factor": 7.0, "mode": "pair"|"host"}: transfers
                             host->peer ("pair") or both directions ("host") factor x slower
  nccl_share: float          (Kineto) share of the step spent in NCCL kernels (healthy ~0.15)

Each writer returns a facts dict: the byte count written (uncompressed), events, the steady
start, counts of what the comm aggregator should find, and `planted`: per kind the first
events of it (line_no, offset of the object's "{" in the uncompressed stream, the object text
as written, ts, dur, pid, name), at most PLANTED_CAP per kind.

Library use:  from xprof_trace import write_xprof_trace
CLI:          python3 corpus/xprof_trace.py --out big.trace.json.gz --size-mb 500
Python 3.11, standard library only; no clock is read, so the output is byte-identical for
the same arguments.
"""

import argparse
import gzip
import json
import math
import random
import sys

PLANTED_CAP = 64
# Bytes one XProf event takes on average (measured on this generator's output); used only
# to turn --size-mb into an event count.
XPROF_BYTES_PER_EVENT = 172
KINETO_BYTES_PER_EVENT = 260


class _Out:
    """Writes text (gzip when the path ends .gz), tracking offset and line of every object."""

    def __init__(self, path):
        self.f = gzip.open(path, "wb", compresslevel=1) if str(path).endswith(".gz") else open(path, "wb")
        self.offset = 0
        self.line = 1
        self.buf = []
        self.buf_bytes = 0

    def write(self, text):
        data = text.encode("utf-8")
        self.buf.append(data)
        self.buf_bytes += len(data)
        self.offset += len(data)
        self.line += text.count("\n")
        if self.buf_bytes > (1 << 20):
            self.flush()

    def flush(self):
        self.f.write(b"".join(self.buf))
        self.buf = []
        self.buf_bytes = 0

    def close(self):
        self.flush()
        self.f.close()


def _num(us):
    """A microsecond float as TSL prints it: shortest round-trip form of a picosecond value."""
    ps = max(1, round(us * 1e6))
    v = ps / 1e6
    r = repr(v)
    return r[:-2] if r.endswith(".0") else r


def _args(d):
    # TSL: every value a string, keys sorted.
    return "{" + ",".join(f"{json.dumps(k)}:{json.dumps(str(d[k]))}" for k in sorted(d)) + "}"


class _Facts:
    def __init__(self):
        self.counts = {}
        self.planted = {}

    def count(self, kind, n=1):
        self.counts[kind] = self.counts.get(kind, 0) + n

    def plant(self, kind, out, text, ts, dur, pid, name, **extra):
        lst = self.planted.setdefault(kind, [])
        if len(lst) < PLANTED_CAP:
            rec = {"line_no": out.line, "offset": out.offset, "text": text, "ts": ts, "dur": dur,
                   "pid": str(pid), "name": name}
            rec.update(extra)
            lst.append(rec)


def default_peers(host, n=4):
    """Peer hosts of a TPU VM host name like t1v-n-3f2a1b0c-w-0 (the same slice, w-0..n-1)."""
    if "-w-" in host:
        stem = host.rsplit("-w-", 1)[0]
        return [f"{stem}-w-{i}" for i in range(n)]
    return [host] + [f"{host}-peer{i}" for i in range(1, n)]


# --------------------------------------------------------------------------------------------
# XProf / TSL


# The collectives of the SPMD program: (HLO opcode, weight). send/recv come as a pair.
_COLLECTIVES = [("all-reduce", 55), ("all-gather", 15), ("reduce-scatter", 10),
                ("collective-permute", 8), ("sendrecv", 12)]
_COMPUTE = ["fusion", "convolution", "dot", "copy", "bitcast", "reduce", "select", "add",
            "multiply", "transpose", "broadcast", "dynamic-update-slice"]
_LINK_BW_BYTES_PER_US = 12500.0  # ~100 Gbit/s DCN per host
_LINK_BASE_US = 18.0


def _program(rng, n_ops):
    """One step's XLA op sequence: compute ops with async collectives interleaved.

    Items: ("c", name) compute; ("s", name, op_id) async start; ("d", name, op_id) its done.
    A collective starts, 4-14 compute ops run (the slack), then its done.
    """
    items = []
    ids = {"fusion": 0}
    open_ops = []  # (done name, id, remaining compute ops)
    next_id = 1
    while len(items) < n_ops:
        if not open_ops and rng.random() < 0.18 or (len(open_ops) < 2 and rng.random() < 0.05):
            kind = rng.choices([c[0] for c in _COLLECTIVES], [c[1] for c in _COLLECTIVES])[0]
            gap = rng.randint(4, 14)
            if kind == "sendrecv":
                r, s = next_id, next_id + 1
                next_id += 2
                items.append(("s", f"recv.{r}", r))
                items.append(("s", f"send.{s}", s))
                open_ops.append([f"recv-done.{r}", r, gap])
                open_ops.append([f"send-done.{s}", s, gap])
            else:
                i = next_id
                next_id += 1
                items.append(("s", f"{kind}-start.{i}", i))
                open_ops.append([f"{kind}-done.{i}", i, gap])
            continue
        op = rng.choice(_COMPUTE)
        ids[op] = ids.get(op, 0) + 1
        items.append(("c", f"{op}.{ids[op]}"))
        for o in open_ops:
            o[2] -= 1
        while open_ops and open_ops[0][2] <= 0:
            name, i, _ = open_ops.pop(0)
            items.append(("d", name, i))
    for name, i, _ in open_ops:
        items.append(("d", name, i))
    return items


def _rendezvous(op_id):
    return f"dcn_rendezvous_{op_id}"


def write_xprof_trace(path, *, host="t1v-n-3f2a1b0c-w-0", peers=None, seed=0, steps=20,
                      events_target=120_000, devices=4, step_us=50_000.0, first_step=1000,
                      anomalies=None, per_line=False, base_us=48213.0):
    """Writes one host's TSL trace JSON; returns its facts (see the module comment)."""
    an = dict(anomalies or {})
    peers = list(peers) if peers else default_peers(host)
    others = [p for p in peers if p != host] or [host + "-peer"]
    facts = _Facts()
    out = _Out(path)
    sched_rng = random.Random(f"{seed}/schedule")

    # Step windows, shared by every plane: the first step (compile, warm-up) is 3x longer.
    starts, lens = [], []
    t = base_us
    for i in range(steps):
        length = step_us * (3.0 if i == 0 else 1.0) * (1.0 + sched_rng.uniform(-0.03, 0.03))
        starts.append(t)
        lens.append(length)
        t += length + sched_rng.uniform(20.0, 120.0)
    # Steady state as the aggregator defines it: after the end of the second step (>= 3 steps),
    # else after the first 10% of the span.
    if steps >= 3:
        steady = starts[1] + lens[1]
    else:
        steady = starts[0] + 0.1 * (starts[-1] + lens[-1] - starts[0])
    facts.steady_start_us = steady

    # Event budget per step.
    per_step = max(50.0, events_target / steps)
    n_xfer = max(4, int(per_step * 0.12))
    n_dma = max(4, int(per_step * 0.06)) // 2 * 2
    n_rpc = max(4, int(per_step * 0.012))
    n_ops = max(16, int((per_step - n_xfer - n_dma - n_rpc) / devices) - 2)
    program = _program(random.Random(f"{seed}/program"), n_ops)

    ev = [0]
    first = [True]

    def emit(obj_text):
        if first[0]:
            first[0] = False
        else:
            out.write(",\n" if per_line else ",")
        ev[0] += 1

    def x(pid, tid, ts, dur, name, args, kind=None, **extra):
        text = (f'{{"ph":"X","pid":{pid},"tid":{tid},"ts":{_num(ts)},"dur":{_num(dur)},'
                f'"name":{json.dumps(name)},"args":{_args(args)}}}')
        emit(text)
        if kind:
            facts.plant(kind, out, text, ts, dur, pid, name, **extra)
        out.write(text)

    out.write('{"displayTimeUnit":"ns","metadata":{"highres-ticks":true},"traceEvents":[')
    if per_line:
        out.write("\n")
    host_pid = devices + 1
    meta = []
    for d in range(devices):
        pid = d + 1
        meta.append(f'{{"ph":"M","pid":{pid},"name":"process_name","args":{{"name":"/device:TPU:{d}"}}}}')
        meta.append(f'{{"ph":"M","pid":{pid},"name":"process_sort_index","args":{{"sort_index":{pid}}}}}')
        for tid, tname in ((1, "Steps"), (2, "XLA Modules"), (3, "XLA Ops")):
            meta.append(f'{{"ph":"M","pid":{pid},"tid":{tid},"name":"thread_name","args":{{"name":"{tname}"}}}}')
    meta.append(f'{{"ph":"M","pid":{host_pid},"name":"process_name","args":{{"name":"/host:CPU"}}}}')
    for tid, tname in ((1, "Megascale: Communication Transport"), (2, "Megascale: RPC"),
                       (3, "Megascale: DMA")):
        meta.append(f'{{"ph":"M","pid":{host_pid},"tid":{tid},"name":"thread_name","args":{{"name":"{tname}"}}}}')
    for m in meta:
        emit(m)
        out.write(m)

    low_slack = float(an.get("low_slack", 0.0))
    bw_bound = bool(an.get("bandwidth_bound", False))

    # --- device planes ---
    for d in range(devices):
        pid = d + 1
        for i in range(steps):
            name = str(first_step + i)
            kind = "steady_start" if i == 2 else None
            x(pid, 1, starts[i], lens[i], name, {"group_id": name, "step_name": name}, kind)
            facts.count("step_events")
        for i in range(steps):
            x(pid, 2, starts[i] + 3.5, lens[i] - 7.0, "jit_train_step(5721904319)",
              {"long_name": "jit_train_step(5721904319)", "program_id": "5721904319",
               "run_id": str(811 + i)})
        rng = random.Random(f"{seed}/ops/{pid}")
        for i in range(steps):
            s, length = starts[i] + 6.0, lens[i] - 14.0
            # Durations: collective starts are short; dones short unless waiting.
            plan = []
            fixed = 0.0
            low = set()
            for it in program:
                if it[0] == "s":
                    dur = rng.uniform(1.0, 4.0)
                    if rng.random() < low_slack:
                        low.add(it[2])
                elif it[0] == "d":
                    waiting = it[2] in low
                    is_recv = it[1].startswith("recv-done")
                    if waiting:
                        dur = rng.uniform(0.01, 0.03) * length
                    elif is_recv and bw_bound:
                        dur = rng.uniform(0.02, 0.05) * length
                    else:
                        dur = rng.uniform(1.0, 8.0) if not is_recv else rng.uniform(4.0, 30.0)
                else:
                    dur = rng.expovariate(1.0)
                    plan.append([it, dur, True])
                    continue
                fixed += dur
                plan.append([it, dur, False])
            compute = sum(p[1] for p in plan if p[2])
            room = length * 0.97 - fixed
            if room < length * 0.2:  # anomalies asked for more waiting than the step holds
                shrink = (length * 0.77) / fixed
                for p in plan:
                    if not p[2]:
                        p[1] *= shrink
                room = length * 0.2
            scale = room / compute if compute else 0.0
            # Low-slack collectives: their compute gap is moved after the done (the done
            # follows the start at once).
            order = plan
            # Re-sequence: a low-slack done goes right after its start.
            seq = []
            done_of = {}
            for p in order:
                if p[0][0] == "d" and p[0][2] in low:
                    done_of[p[0][2]] = p
            for p in order:
                it = p[0]
                if it[0] == "d" and it[2] in low:
                    continue
                seq.append(p)
                if it[0] == "s" and it[2] in low:
                    seq.append(done_of[it[2]])
            cur = s
            starts_at = {}
            for p in seq:
                it, dur, is_compute = p
                if is_compute:
                    dur *= scale
                dur = max(dur, 1e-6)
                gap = 0.05 if it[0] != "c" else 0.02
                if it[0] == "c":
                    x(pid, 3, cur, dur, it[1], {"long_name": f"%{it[1]} = f32[1024,4096]{{1,0}} {it[1].split('.')[0]}(...)"})
                elif it[0] == "s":
                    starts_at[it[2]] = (cur, dur)
                    long_name = f"%{it[1]} = (f32[4194304]{{0}}, u32[]) {it[1].split('.')[0]}(f32[4194304]{{0}} %p.{it[2]})"
                    if it[1].startswith(("send.", "recv.")):
                        long_name += (f', channel_id={it[2]}, is_host_transfer=true, '
                                      f'frontend_attributes={{_xla_host_transfer_rendezvous="{_rendezvous(it[2])}"}}')
                    x(pid, 3, cur, dur, it[1], {"long_name": long_name})
                else:
                    st, sd = starts_at.pop(it[2], (cur, 0.0))
                    slack = cur - (st + sd)
                    steady_pair = st >= steady
                    is_low = it[2] in low
                    kind = None
                    if steady_pair:
                        facts.count("collectives_steady")
                        if slack < 10.0:
                            facts.count("low_slack_steady")
                            kind = "low_slack"
                    if it[1].startswith("recv-done"):
                        facts.count("recv_done")
                        if cur >= steady:
                            facts.count("recv_done_steady")
                            if dur > 0.01 * length:
                                kind = kind or "recv_done_long"
                    x(pid, 3, cur, dur, it[1], {"long_name": f"%{it[1]} = f32[4194304]{{0}} {it[1].split('.')[0]}(%{it[1].replace('-done', '').replace('done', 'start')})"},
                      kind, slack=slack, low=is_low)
                    facts.count("collectives")
                cur += dur + gap

    # --- host plane ---
    pid = host_pid
    xfer_rng = random.Random(f"{seed}/transport")
    slow = an.get("slow_link")
    slow_peer = slow.get("peer") if isinstance(slow, dict) else (others[min(1, len(others) - 1)] if slow else None)
    slow_factor = float(slow.get("factor", 7.0)) if isinstance(slow, dict) else 7.0
    slow_mode = slow.get("mode", "pair") if isinstance(slow, dict) else "pair"
    facts.slow_peer = slow_peer
    copy_every = int(an.get("memory_copy_in_recv", 0))
    receives = 0
    busy_target = 0.9 if bw_bound else 0.3
    links = {}
    for i in range(steps):
        s, length = starts[i], lens[i]
        sizes = []
        for _ in range(n_xfer):
            # Mostly 256 KiB..16 MiB tensors, some small control messages.
            if xfer_rng.random() < 0.15:
                b = xfer_rng.randint(64, 4096)
            else:
                b = int(2 ** xfer_rng.uniform(18, 24))
            sizes.append(b)
        durs = [_LINK_BASE_US + b / _LINK_BW_BYTES_PER_US for b in sizes]
        scale = busy_target * length / sum(durs)
        durs = [dd * scale for dd in durs]
        idle = length * 0.98 - sum(durs)
        gaps = [xfer_rng.random() for _ in sizes]
        gsum = sum(gaps)
        cur = s + 10.0
        for k, (b, dur) in enumerate(zip(sizes, durs)):
            peer = others[k % len(others)]
            send = k % 2 == 0
            src, dst = (host, peer) if send else (peer, host)
            base_dur = dur
            if slow_peer and peer == slow_peer and (send or slow_mode == "host"):
                dur *= slow_factor
            name = "Megascale: Transfer Send" if send else "Megascale: Transfer Receive"
            args = {"bytes": b, "dst": dst, "graph_key": f"device_0_gid_{_rendezvous(k + 1)}$launch_{811 + i}",
                    "src": src}
            kind = "slow_link" if (slow_peer and peer == slow_peer and (send or slow_mode == "host")) else None
            x(pid, 1, cur, dur, name, args, kind)
            facts.count("transfers")
            facts.count("transfer_bytes", b)
            ln = links.setdefault((src, dst), [0, 0])
            ln[0] += 1
            ln[1] += b
            if not send:
                receives += 1
                if copy_every and receives % copy_every == 0:
                    c0 = cur + dur * 0.2
                    x(pid, 1, c0, dur * 0.5, "Megascale: Memory Copy", {"bytes": b, "reason": "unregistered buffer"},
                      "memory_copy", in_recv=True)
                    facts.count("memory_copy")
                    facts.count("memory_copy_in_recv")
            # A slow transfer overlaps the next ones (the transport has many in flight).
            cur += base_dur + (idle * gaps[k] / gsum if idle > 0 else 0.0)
    facts.links = {f"{a} -> {b}": v for (a, b), v in links.items()}

    rpc_rng = random.Random(f"{seed}/rpc")
    spike_every = int(an.get("rpc_spikes", 0))
    spike_us = float(an.get("rpc_spike_us", 200_000.0))
    constant = an.get("rpc_constant_us")
    rpc_names = ["Megascale: RPC SendTensor", "Megascale: RPC ReadyToSend", "Megascale: RPC Barrier"]
    for i in range(steps):
        s, length = starts[i], lens[i]
        ts_list = sorted(s + rpc_rng.uniform(0.0, length * 0.95) for _ in range(n_rpc))
        spike_at = 1 if (spike_every and i >= 2 and (i - 2) % spike_every == 0) else -1
        for k, ts in enumerate(ts_list):
            if constant:
                dur = float(constant) * rpc_rng.uniform(0.9, 1.1)
            else:
                dur = rpc_rng.lognormvariate(math.log(320.0), 0.35)
            kind = None
            if k == spike_at:
                dur = spike_us * rpc_rng.uniform(0.98, 1.02)
                kind = "rpc_spike"
                facts.count("rpc_spikes")
            x(pid, 2, ts, dur, rpc_names[k % len(rpc_names)],
              {"method": rpc_names[k % len(rpc_names)].split()[-1], "target": f"{others[k % len(others)]}:8471"}, kind)
            facts.count("rpc")

    dma_rng = random.Random(f"{seed}/dma")
    map_steady = int(an.get("map_dma_steady", 0))
    for i in range(steps):
        s, length = starts[i], lens[i]
        events = []
        if i == 0:
            # Host memory registration at start-up: the healthy pattern.
            for k in range(24):
                events.append((s + 40.0 + k * 310.0, dma_rng.uniform(120.0, 280.0), "MapDmaBuffer",
                               {"bytes": 1 << 26, "device": k % devices}))
        elif i >= 2 and map_steady:
            for k in range(map_steady):
                events.append((s + dma_rng.uniform(0.05, 0.9) * length, dma_rng.uniform(150.0, 400.0),
                               "MapDmaBuffer", {"bytes": 1 << 24, "device": k % devices}))
        for k in range(n_dma // 2):
            d2h = k % 2 == 0
            base = "DeviceToHost" if d2h else "HostToDevice"
            t0 = s + dma_rng.uniform(0.0, 0.95) * length
            rv = _rendezvous(k + 1)
            common = {"action_index": k, "graph_key": f"device_{k % devices}_gid_{rv}$launch_{811 + i}"}
            events.append((t0, dma_rng.uniform(0.5, 2.0), f"{base} START", common))
            events.append((t0 + dma_rng.uniform(20.0, 400.0), dma_rng.uniform(0.5, 2.0), f"{base} END", common))
        events.sort(key=lambda e: e[0])
        for ts, dur, name, args in events:
            kind = None
            if name == "MapDmaBuffer":
                facts.count("map_dma")
                if ts >= steady:
                    facts.count("map_dma_steady")
                    kind = "map_dma_steady"
            x(pid, 3, ts, dur, name, args, kind)

    emit("{}")
    out.write("{}")
    out.write("\n]}\n" if per_line else "]}")
    out.close()
    return {
        "path": str(path), "host": host, "bytes": out.offset, "events": ev[0] - 1,  # {} excluded
        "steps": steps, "step_events": facts.counts.get("step_events", 0),
        "steady_start_us": steady, "span_us": starts[-1] + lens[-1] - base_us,
        "step_starts_us": starts, "step_lens_us": lens,
        "slow_peer": facts.slow_peer, "links": facts.links,
        "counts": facts.counts, "planted": facts.planted, "per_line": per_line,
    }


# --------------------------------------------------------------------------------------------
# torch.profiler / Kineto


def _k(us):
    """Kineto's "{us}.{ns:03}" microseconds with exactly three decimals."""
    ns = int(round(us * 1000.0))
    return f"{ns // 1000}.{ns % 1000:03d}"


_NCCL_KERNELS = [
    "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
    "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
    "ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
]
_COMPUTE_KERNELS = [
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)",
    "sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x128x32_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas",
    "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>(int, float, float const*, float const*, float const*, float*, float*, float*)",
    "ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_64x3_tn",
]


def write_kineto_trace(path, *, host="gpu-node-07", rank=0, world_size=8, seed=0, steps=12,
                       events_target=100_000, step_us=120_000.0, nccl_version="2.21.5",
                       anomalies=None, base_ns=1718900000123456789, legacy_kernel_names=False):
    """Writes one rank's torch.profiler trace; returns its facts."""
    an = dict(anomalies or {})
    share = float(an.get("nccl_share", 0.15))
    out = _Out(path)
    facts = _Facts()
    rng = random.Random(f"{seed}/kineto/{rank}")
    pid_cpu, pid_gpu = 90000 + rank * 17, rank
    dist = {"backend": "nccl", "rank": rank, "world_size": world_size, "pg_count": 1,
            "pg_config": [{"pg_name": "0", "pg_desc": "default_pg", "backend_config": "cuda:nccl",
                           "pg_size": world_size, "ranks": str(list(range(world_size)))}],
            "nccl_version": nccl_version}
    out.write('{\n  "schemaVersion": 1,\n  "deviceProperties": [\n    {"id": 0, "name": "NVIDIA H100 80GB HBM3", '
              '"totalGlobalMem": 85520809984, "computeMajor": 9, "computeMinor": 0, "maxThreadsPerBlock": 1024, '
              '"numSms": 132}\n  ],\n')
    out.write(f'  "distributedInfo": {json.dumps(dist)},\n')
    out.write('  "record_shapes": 1,\n  "with_stack": 0,\n  "trace_id": "6F1C0A2B9E4D4C1A8B7E6D5C4B3A2918",\n'
              f'  "displayTimeUnit": "ms",\n  "baseTimeNanoseconds": {base_ns // 1000 * 1000},\n  "traceEvents": [')
    first = [True]
    ev = [0]
    nccl_total = [0.0]

    def put(text, kind=None, ts=0.0, dur=0.0, pid=0, name=""):
        out.write("" if first[0] else ",")
        first[0] = False
        out.write("\n  ")
        if kind:
            facts.plant(kind, out, text, ts, dur, pid, name)
        out.write(text)
        ev[0] += 1

    per_step = max(40.0, events_target / steps)
    n_kern = max(8, int(per_step / 3))
    t = 1250.0
    starts, lens = [], []
    for i in range(steps):
        length = step_us * (2.5 if i == 0 else 1.0) * (1 + rng.uniform(-0.02, 0.02))
        starts.append(t)
        lens.append(length)
        t += length + rng.uniform(50, 300)
    steady = starts[1] + lens[1] if steps >= 3 else starts[0] + 0.1 * (starts[-1] + lens[-1] - starts[0])
    corr = 1000
    for i in range(steps):
        s, length = starts[i], lens[i]
        name = f"ProfilerStep#{i + 5}"
        text = (f'{{"ph": "X", "cat": "user_annotation", "name": "{name}", "pid": {pid_cpu}, "tid": {pid_cpu}, '
                f'"ts": {_k(s)}, "dur": {_k(length)}, "args": {{"External id": {corr}, "Record function id": 0, "Ev Idx": {ev[0]}}}}}')
        put(text, "steady_start" if i == 2 else None, s, length, pid_cpu, name)
        facts.count("step_events")
        # GPU stream: compute kernels with NCCL kernels taking `share` of the step.
        nccl_n = max(2, n_kern // 12)
        comp_n = n_kern - nccl_n
        nccl_time = share * length
        comp_time = (0.9 - share) * length
        kinds = ["n"] * nccl_n + ["c"] * comp_n
        rng.shuffle(kinds)
        cur = s + 40.0
        idle = length * 0.1 - 60.0
        for kk in kinds:
            corr += 1
            if kk == "n":
                dur = nccl_time / nccl_n
                kname = rng.choice(_NCCL_KERNELS)
                if legacy_kernel_names:
                    kname = "ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)"
                cpu_ts = max(s + 1.0, cur - rng.uniform(10, 40))
                put(f'{{"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": {pid_cpu}, "tid": {pid_cpu}, '
                    f'"ts": {_k(cpu_ts)}, "dur": {_k(6.5)}, "args": {{"External id": {corr}, "Collective name": "allreduce", '
                    f'"In msg nelems": 4194304, "Out msg nelems": 4194304, "Group size": {world_size}, "dtype": "Float", '
                    f'"Process Group Name": "0", "Process Group Description": "default_pg", "Rank": {rank}, "Seq": {corr}}}}}')
                kind = None
                if cur >= steady:
                    facts.count("nccl_kernels_steady")
                    nccl_total[0] += dur
                put(f'{{"ph": "X", "cat": "kernel", "name": "{kname}", "pid": {pid_gpu}, "tid": 20, "ts": {_k(cur)}, '
                    f'"dur": {_k(dur)}, "args": {{"External id": {corr}, "device": {pid_gpu}, "stream": 20, "correlation": {corr}, '
                    f'"grid": [8, 1, 1], "block": [512, 1, 1], "Collective name": "allreduce", "Group size": {world_size}}}}}',
                    kind, cur, dur, pid_gpu, kname)
                facts.count("nccl_kernels")
            else:
                dur = comp_time / comp_n * rng.uniform(0.5, 1.5)
                kname = rng.choice(_COMPUTE_KERNELS)
                put(f'{{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": {pid_cpu}, "tid": {pid_cpu}, '
                    f'"ts": {_k(max(s + 1.0, cur - 15.0))}, "dur": {_k(4.2)}, "args": {{"External id": {corr}, "correlation": {corr}}}}}')
                put(f'{{"ph": "X", "cat": "kernel", "name": {json.dumps(kname)}, "pid": {pid_gpu}, "tid": 7, "ts": {_k(cur)}, '
                    f'"dur": {_k(dur)}, "args": {{"External id": {corr}, "device": {pid_gpu}, "stream": 7, "correlation": {corr}, '
                    f'"registers per thread": 128, "shared memory": 0}}}}')
            cur += dur + idle / n_kern
    put(f'{{"ph": "i", "cat": "", "s": "g", "name": "Record Window End", "pid": "", "tid": "", "ts": {_k(t + 10)}}}')
    out.write(f'\n  ],\n  "traceName": "/tmp/prof/{host}_{pid_cpu}.{base_ns}.pt.trace.json"\n}}\n')
    out.close()
    return {"path": str(path), "host": host, "rank": rank, "bytes": out.offset, "events": ev[0],
            "steps": steps, "steady_start_us": steady, "nccl_kernel_us_steady": nccl_total[0],
            "steady_span_us": starts[-1] + lens[-1] - steady, "span_us": t - starts[0],
            "nccl_version": nccl_version, "counts": facts.counts, "planted": facts.planted}


# --------------------------------------------------------------------------------------------
# CLI


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="output path; .gz -> gzip")
    ap.add_argument("--format", choices=["xprof", "kineto"], default="xprof")
    ap.add_argument("--size-mb", type=float, help="target uncompressed size (sets --events)")
    ap.add_argument("--events", type=int, default=120_000)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--host", default="t1v-n-3f2a1b0c-w-0")
    ap.add_argument("--per-line", action="store_true", help="one event per line (TSL writes one line)")
    ap.add_argument("--anomaly", action="append", default=[],
                    help="knob=value, e.g. map_dma_steady=3, low_slack=0.4, rpc_spikes=5, "
                         "bandwidth_bound=1, memory_copy_in_recv=4, slow_link=<peer host>")
    ap.add_argument("--facts", help="write the facts (JSON) here")
    a = ap.parse_args(argv)
    an = {}
    for kv in a.anomaly:
        k, _, v = kv.partition("=")
        if k == "slow_link":
            an[k] = {"peer": v, "factor": 7.0}
        elif k == "bandwidth_bound":
            an[k] = v not in ("0", "false", "")
        else:
            an[k] = float(v) if "." in v else int(v)
    events = a.events
    if a.size_mb:
        per = XPROF_BYTES_PER_EVENT if a.format == "xprof" else KINETO_BYTES_PER_EVENT
        events = int(a.size_mb * 1e6 / per)
    if a.format == "xprof":
        facts = write_xprof_trace(a.out, host=a.host, seed=a.seed, steps=a.steps, events_target=events,
                                  anomalies=an, per_line=a.per_line)
    else:
        facts = write_kineto_trace(a.out, host=a.host, seed=a.seed, steps=a.steps, events_target=events,
                                   anomalies=an)
    summary = {k: facts[k] for k in ("path", "bytes", "events", "steps", "steady_start_us")}
    summary["counts"] = facts["counts"]
    print(json.dumps(summary, indent=1))
    if a.facts:
        with open(a.facts, "w") as f:
            json.dump(facts, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
