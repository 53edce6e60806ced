"""Comm scenarios from profiler traces and sysctl outputs (issue #6, trace half).

McJAX jobs on TPU VMs that train to the end (their logs are healthy_tpu's: glog/absl lines
of libtpu, Megascale, jax.distributed, the config dump, step lines, checkpoints), with an
XProf capture of a few steps in the middle: jax.profiler's `<host>.trace.json.gz` (TSL
trace JSON, formats.md 2.1) written by xprof_trace.py, with one anomaly of the MXLA
performance checks (seed 000, "Performance" / network analysis) planted in the culprit's
trace, and the TCP sysctls the collector gathers (lib/collect/command_table.cc).

Bundle layout (paths relative to bundle/):
  logs/<host>/worker.log                                  the host's training log
  tensorboard/plugins/profile/<run>/<host>.trace.json.gz  the host's trace (one event per line,
                                                          except healthy_comm_trace's big trace,
                                                          written on one line as TSL does)
  hosts/<host>/sysinfo/sysctl_net.txt                     `sysctl <keys>` as casefile collect
                                                          writes it ("key = value", tabs in
                                                          triples)
  config/train_config.yaml, env/jax_env.txt               as healthy_tpu

The culprit's trace has ~100k events; other hosts carry smaller traces (the capture of a
healthy host is not what the scenario is about, and the corpus stays small). Traces are
recompressed with gzip level 9 and mtime 0, so the output is byte-identical run to run.

Pinned evidence: a kept trace event is cited by its line in the gunzipped trace and its
object text. Which events the ingest aggregator keeps (lib/parse/trace/comm_trace_limits.h:
a pool of the 64 best candidates per kind - latest, or longest - from which the 16 earliest
in the steady state are stored) and which the rule cites (the earliest three stored) is
computed here from the trace as written, by reading it back.
"""

import gzip
import io
import json
import math

from generate import SEC, TpuJob, expected, glog, render_logs, finish_training, tpu_startup, us_of, \
    write, write_tpu_common
import generate
import xprof_trace as xt

# Aggregator pool and store sizes (lib/parse/trace/comm_trace_limits.h) and what the rules
# cite per trace (lib/analyze/analyzers/comm/comm_trace_thresholds.h).
POOL = 64
STORED = 16
SEGMENTS = 64
CITED = 3
RUN_DIR = "tensorboard/plugins/profile"


# --------------------------------------------------------------------------------------------
# Traces: gzip, and the events the aggregator keeps


def recompress(path):
    """Rewrites a .gz deterministically (level 9, no name, mtime 0)."""
    data = gzip.decompress(path.read_bytes())
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", compresslevel=9, mtime=0, filename="") as g:
        g.write(data)
    path.write_bytes(buf.getvalue())


def read_events(path):
    """(line_no, object text, event) of every event of a one-event-per-line trace."""
    out = []
    text = gzip.decompress(path.read_bytes()).decode("utf-8")
    for no, line in enumerate(text.split("\n"), 1):
        s = line[:-1] if line.endswith(",") else line
        if s.startswith('{"ph"'):
            out.append((no, s, json.loads(s)))
    return out


def stored_marks(cands, steady, score):
    """What the aggregator stores of a kind: the POOL best by score (ties: the earlier line),
    sorted by time, the first STORED in the steady state. cands: (when, line, text, ts, score)."""
    pool = sorted(cands, key=lambda c: (-score(c), c[1]))[:POOL]
    pool.sort(key=lambda c: (c[0], c[1]))
    return [c for c in pool if c[0] >= steady][:STORED]


class TimeBins:
    """lib/parse/trace/comm_time_bins.h, step for step: SEGMENTS cells from the first time seen,
    width 1 us doubling as the range grows, sliding over unused cells first. Each cell holds a
    list; merging two cells concatenates them (the caller trims)."""

    def __init__(self, n, trim):
        self.cells = [[] for _ in range(n)]
        self.n, self.trim = n, trim
        self.lo, self.width = 0.0, 1.0
        self.started = self.used = False
        self.first = self.last = 0

    def _beyond(self, distance):
        cells = math.floor(distance / self.width) + 1
        return self.n if cells >= self.n else int(cells)

    def _shift(self, by):
        old = self.cells
        new = [[] for _ in range(self.n)]
        for j in range(self.first, self.last + 1):
            new[j + by] = old[j]
        self.cells = new
        self.first += by
        self.last += by
        self.lo -= self.width * by

    def _grow_right(self):
        half = self.n // 2
        self.cells = [self.trim(self.cells[2 * j] + self.cells[2 * j + 1]) for j in range(half)] + \
            [[] for _ in range(half)]
        self.width *= 2
        self.first //= 2
        self.last //= 2

    def _grow_left(self):
        half = self.n // 2
        self.cells = [[] for _ in range(half)] + \
            [self.trim(self.cells[2 * j] + self.cells[2 * j + 1]) for j in range(half)]
        self.lo -= self.width * self.n
        self.width *= 2
        self.first = half + self.first // 2
        self.last = half + self.last // 2

    def at(self, ts):
        if not self.started:
            self.started, self.lo = True, ts
        while ts >= self.lo + self.width * self.n:
            need = self._beyond(ts - (self.lo + self.width * self.n))
            if need <= self.first:
                self._shift(-need)
            else:
                self._grow_right()
        while ts < self.lo:
            cells = math.ceil((self.lo - ts) / self.width)
            need = self.n if cells >= self.n else max(1, int(cells))
            if need <= self.n - 1 - self.last:
                self._shift(need)
            else:
                self._grow_left()
        i = min(int((ts - self.lo) / self.width), self.n - 1)
        if not self.used or i < self.first:
            self.first = i
        if not self.used or i > self.last:
            self.last = i
        self.used = True
        return i


def stored_best_in_steady(cands, steady, score):
    """What the aggregator stores of a kind kept per time segment (SegmentedMarkPool,
    lib/parse/trace/comm_marks.h): each of SEGMENTS time cells keeps its STORED best by score
    (ties: the earlier line; cells are filled in line order, as the reader feeds them), and the
    STORED best of those at or after the steady start are stored, sorted by time.
    cands: (when, line, text, ts, score), in line order."""
    order = lambda c: (-score(c), c[1])
    trim = lambda cell: sorted(cell, key=order)[:STORED]
    bins = TimeBins(SEGMENTS, trim)
    for c in sorted(cands, key=lambda c: c[1]):
        i = bins.at(c[0])
        bins.cells[i] = trim(bins.cells[i] + [c])
    kept = [c for cell in bins.cells for c in cell if c[0] >= steady]
    best = sorted(kept, key=order)[:STORED]
    return sorted(best, key=lambda c: (c[0], c[1]))


def first_cited(stored):
    """The rule cites the stored marks in (event time, line) order: the first of them."""
    return min(stored, key=lambda c: (c[3], c[1]))


def evidence(path_rel, line, contains):
    return {"path": path_rel, "line": line, "contains": contains}


# --------------------------------------------------------------------------------------------
# A job: logs, traces, sysctls


def run_name(job, k):
    """jax.profiler's run folder: local time of the capture, %Y_%m_%d_%H_%M_%S."""
    d = generate.dt_of(job.step_end[k])
    return f"{d.year:04d}_{d.month:02d}_{d.day:02d}_{d.hour:02d}_{d.minute:02d}_{d.second:02d}"


def profile_lines(job, h, log, k, run, n_steps):
    """The capture as the training script logs it (jax.profiler.start_trace / stop_trace)."""
    rng = job.rng
    py = h["pytid"]
    t = job.ht(h, job.step_end[k]) + rng.randint(20_000, 90_000)
    log.emit(t, glog("I", t, py, "train.py:251",
                     f"Starting profiler at step {job.step_no(k + 1)} for {n_steps} steps "
                     f"(log dir /tmp/tensorboard)"))
    t += rng.randint(2000, 9000)
    log.emit(t, glog("I", t, h["tid"]["main"], "profiler_session.cc:104", "Profiler session initializing."))
    log.emit(t + 150, glog("I", t + 150, h["tid"]["main"], "profiler_session.cc:119",
                           "Profiler session started."))
    te = job.ht(h, job.step_end[min(k + n_steps, len(job.step_end) - 1)]) + rng.randint(30_000, 90_000)
    log.emit(te, glog("I", te, h["tid"]["main"], "profiler_session.cc:70", "Profiler session collecting data."))
    te += rng.randint(400_000, 1_500_000)
    log.emit(te, glog("I", te, h["tid"]["main"], "save_profile.cc:150",
                      f"Collecting XSpace to repository: /tmp/tensorboard/plugins/profile/{run}/"
                      f"{h['name']}.xplane.pb"))
    te += rng.randint(900_000, 2_500_000)
    log.emit(te, glog("I", te, py, "profiler.py:154",
                      f"Profile saved to /tmp/tensorboard/plugins/profile/{run} "
                      f"({h['name']}.xplane.pb, {h['name']}.trace.json.gz)"))


SYSCTL_HEALTHY = {
    "net.ipv4.tcp_rmem": "4096\t131072\t67108864",
    "net.ipv4.tcp_wmem": "4096\t65536\t67108864",
    "net.core.rmem_max": "268435456",
    "net.core.wmem_max": "268435456",
    "net.core.rmem_default": "212992",
    "net.core.wmem_default": "212992",
    "net.ipv4.tcp_congestion_control": "cubic",
    "net.core.netdev_max_backlog": "30000",
    "net.ipv4.tcp_mtu_probing": "1",
    "net.ipv4.tcp_slow_start_after_idle": "0",
    "net.ipv4.ip_local_port_range": "32768\t60999",
    "net.ipv4.tcp_keepalive_time": "7200",
}
# A container that never got the tuned settings: the kernel's defaults.
SYSCTL_DEFAULTS = dict(SYSCTL_HEALTHY, **{
    "net.ipv4.tcp_rmem": "4096\t131072\t6291456",
    "net.ipv4.tcp_wmem": "4096\t16384\t4194304",
    "net.core.rmem_max": "212992",
    "net.core.wmem_max": "212992",
    "net.core.netdev_max_backlog": "1000",
    "net.ipv4.tcp_mtu_probing": "0",
    "net.ipv4.tcp_slow_start_after_idle": "1",
})


def sysctl_text(values):
    return "".join(f"{k} = {v}\n" for k, v in values.items())


class CommJob:
    """A TPU job that trains to the end with a profile captured at step k0 for `steps` steps."""

    def __init__(self, d, name, seed, start, slices, hosts_per_slice, steps=700, chatter=0.5):
        self.d = d
        self.bundle = d / "bundle"
        self.job = TpuJob(name, seed, start, slices, hosts_per_slice, ("TPU v5 lite", "v5e", 4), steps=steps,
                          first_step=0, launch0=4, step_fmt="maxtext", vmodule=False,
                          eval_step=steps * 2 // 3, chatter=chatter)
        self.hosts = [h["name"] for h in self.job.hosts]
        self.k0 = steps // 2
        self.run = run_name(self.job, self.k0)
        self.seed = seed

    def host(self, i):
        return self.hosts[i]

    def trace_rel(self, host):
        return f"{RUN_DIR}/{self.run}/{host}.trace.json.gz"

    def write_logs(self, trace_steps):
        job = self.job
        for h in job.hosts:
            log = job.logs[h["name"]]
            tpu_startup(job, h, log)
            profile_lines(job, h, log, self.k0, self.run, trace_steps)
            finish_training(job, h, log, job.steps - 1)
        write_tpu_common(job, self.bundle)
        render_logs(job, self.bundle)

    def write_sysctls(self, values_of=None):
        for host in self.hosts:
            values = (values_of or {}).get(host, SYSCTL_HEALTHY)
            write(self.bundle / "hosts" / host / "sysinfo" / "sysctl_net.txt", sysctl_text(values))

    def trace(self, host, events, steps=14, anomalies=None, per_line=True, peers=None):
        """Writes `host`'s trace; returns (bundle-relative path, absolute path, facts)."""
        rel = self.trace_rel(host)
        path = self.bundle / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        seed = self.seed * 100 + self.hosts.index(host)
        facts = xt.write_xprof_trace(path, host=host, peers=peers or self.hosts, seed=seed, steps=steps,
                                     events_target=events, anomalies=anomalies, per_line=per_line,
                                     step_us=round(self.job.step_time * 1e6, 1), first_step=self.job.step_no(self.k0 + 1))
        recompress(path)
        return rel, path, facts


def planted_first(facts, kind, contains):
    p = facts["planted"][kind][0]
    assert contains in p["text"], (kind, p["text"][:200])
    return p["line_no"]


# --------------------------------------------------------------------------------------------
# Scenarios


def scenario_comm_dma_premap_exhausted(d):
    cj = CommJob(d, "comm_dma_premap", 601, us_of(2025, 10, 2, 8, 14, 3), ["9d3e61a7"], 2)
    cj.write_logs(14)
    cj.write_sysctls()
    culprit, other = cj.host(1), cj.host(0)
    # Two registrations per steady step: 24 in all, under the pool, so the earliest is cited.
    rel, path, facts = cj.trace(culprit, 100_000, anomalies={"map_dma_steady": 2})
    cj.trace(other, 12_000)
    assert facts["counts"]["map_dma_steady"] == 24
    line = planted_first(facts, "map_dma_steady", '"name":"MapDmaBuffer"')
    findings = [{"code": "comm.dma_premap_exhausted", "culprits": [{"host": culprit}],
                 "evidence": [evidence(rel, line, '"name":"MapDmaBuffer"')]}]
    expected(d, f"One-slice TPU v5e job (2 hosts) whose XProf capture shows MapDmaBuffer registrations in "
                f"every steady-state step on {culprit} only (24 after the second step; the other host "
                f"registers only at start-up); the config sets --megascale_grpc_premap_memory_bytes to 16 GiB.",
             findings)
    return None, findings


def scenario_comm_memory_copy(d):
    cj = CommJob(d, "comm_memory_copy", 602, us_of(2025, 10, 3, 21, 40, 55), ["4b7c20f9", "e18a5d36"], 1)
    cj.write_logs(14)
    cj.write_sysctls()
    culprit, other = cj.host(0), cj.host(1)
    # One copy inside every 900th receive: the first falls in step 2 (428 receives a step).
    rel, path, facts = cj.trace(culprit, 100_000, anomalies={"memory_copy_in_recv": 900})
    cj.trace(other, 12_000)
    assert 1 <= facts["counts"]["memory_copy_in_recv"] <= STORED
    assert facts["planted"]["memory_copy"][0]["ts"] >= facts["steady_start_us"]
    line = planted_first(facts, "memory_copy", '"name":"Megascale: Memory Copy"')
    findings = [{"code": "comm.memory_copy", "culprits": [{"host": culprit}],
                 "evidence": [evidence(rel, line, '"name":"Megascale: Memory Copy"')]}]
    expected(d, f"Two-slice TPU v5e job (one host per slice): {culprit}'s trace shows \"Megascale: Memory "
                f"Copy\" events inside network receives (the transport is zero-copy); the other host has "
                f"none.", findings)
    return None, findings


def scenario_comm_low_collective_slack(d):
    cj = CommJob(d, "comm_low_slack", 603, us_of(2025, 10, 6, 13, 5, 17), ["7f02c4e8"], 2)
    cj.write_logs(14)
    cj.write_sysctls()
    culprit, other = cj.host(0), cj.host(1)
    rel, path, facts = cj.trace(culprit, 100_000, anomalies={"low_slack": 0.45})
    cj.trace(other, 12_000)
    steady = facts["steady_start_us"]
    # Pair starts and dones per (pid, op) as the aggregator does; low slack under 10 us.
    open_ = {}
    cands = []
    for no, text, ev in read_events(path):
        name = ev.get("name", "")
        pid = ev.get("pid")
        base, _, suffix = name.partition(".")
        if base.endswith("-start") or base in ("send", "recv"):
            op = base[:-6] if base.endswith("-start") else base
            open_.setdefault((pid, op, suffix), []).append((ev["ts"], ev["ts"] + ev["dur"], no))
        elif base.endswith("-done"):
            op = base[:-5]
            q = open_.get((pid, op, suffix))
            if not q:
                continue
            st, se, _ = q.pop(0)
            slack = ev["ts"] - se
            if slack < 10.0:
                cands.append((st, no, text, ev["ts"], st))
    stored = stored_marks(cands, steady, score=lambda c: c[4])
    first = first_cited(stored)
    assert '-done' in first[2], first[2][:200]
    contains = '"name":"' + json.loads(first[2])["name"] + '"'
    findings = [{"code": "comm.low_collective_slack", "culprits": [{"host": culprit}],
                 "evidence": [evidence(rel, first[1], contains)]}]
    expected(d, f"One-slice TPU v5e job (2 hosts): in {culprit}'s trace about 45% of the async collectives "
                f"have their -done right after their -start (zero slack) and then wait; the other host's "
                f"collectives overlap compute.", findings)
    return None, findings


def scenario_comm_bandwidth_bound(d):
    cj = CommJob(d, "comm_bandwidth", 604, us_of(2025, 10, 9, 2, 33, 48), ["c3a91f05", "60d4e2b7"], 1)
    cj.write_logs(14)
    cj.write_sysctls()
    culprit, other = cj.host(1), cj.host(0)
    rel, path, facts = cj.trace(culprit, 100_000, anomalies={"bandwidth_bound": True})
    cj.trace(other, 12_000)
    steady = facts["steady_start_us"]
    cands = [(ev["ts"], no, text, ev["ts"], ev["dur"]) for no, text, ev in read_events(path)
             if ev.get("name", "").startswith("recv-done")]
    # The longest waits are in the first (3x longer) step, before the steady state; the
    # aggregator keeps the longest per time segment, so the longest steady ones are stored
    # and the rule cites the earliest of them (not the steady-start step event, its fallback
    # when a trace has no steady recv-done at all).
    stored = stored_best_in_steady(cands, steady, score=lambda c: c[4])
    assert len(stored) == STORED, len(stored)
    pre_steady = sorted(cands, key=lambda c: (-c[4], c[1]))[:POOL]
    assert all(c[0] < steady for c in pre_steady), "scenario no longer has its longest waits in warm-up"
    first = first_cited(stored)
    line, contains = first[1], '"name":"' + json.loads(first[2])["name"] + '"'
    assert contains.startswith('"name":"recv-done'), contains
    findings = [{"code": "comm.bandwidth_bound", "culprits": [{"host": culprit}],
                 "evidence": [evidence(rel, line, contains)]}]
    expected(d, f"Two-slice TPU v5e job (one host per slice): {culprit}'s transfers keep the DCN busy ~90% of "
                f"each step and its recv-done ops wait 2-5% of a step each; the other host's network is "
                f"30% busy.", findings)
    return None, findings


def scenario_comm_rpc_latency(d):
    cj = CommJob(d, "comm_rpc_latency", 605, us_of(2025, 10, 14, 17, 12, 9), ["2e7b93c1"], 2)
    cj.write_logs(14)
    cj.write_sysctls()
    culprit, other = cj.host(0), cj.host(1)
    # A 200 ms RPC every second step from step 2: 6 spikes, all stored.
    rel, path, facts = cj.trace(culprit, 100_000, anomalies={"rpc_spikes": 2, "rpc_spike_us": 200_000.0})
    cj.trace(other, 12_000)
    assert 4 <= facts["counts"]["rpc_spikes"] <= STORED
    line = planted_first(facts, "rpc_spike", '"name":"Megascale: RPC')
    findings = [{"code": "comm.rpc_latency", "culprits": [{"host": culprit}],
                 "evidence": [evidence(rel, line, '"name":"Megascale: RPC')]}]
    expected(d, f"One-slice TPU v5e job (2 hosts): {culprit}'s Megascale RPCs take ~320 us except one 200 ms "
                f"RPC every second step (the seed's periodic 200 ms spikes); the sysctls are tuned, so "
                f"comm.tcp_config stays silent.", findings)
    return None, findings


def scenario_comm_tcp_config(d):
    cj = CommJob(d, "comm_tcp_config", 606, us_of(2025, 10, 20, 11, 48, 30), ["85f1c0d2"], 2)
    cj.write_logs(14)
    culprit = cj.host(1)
    cj.write_sysctls({culprit: SYSCTL_DEFAULTS})
    for h in cj.hosts:
        cj.trace(h, 12_000)
    rel = f"hosts/{culprit}/sysinfo/sysctl_net.txt"
    lines = (cj.bundle / rel).read_text().split("\n")
    rmem = lines.index("net.ipv4.tcp_rmem = 4096\t131072\t6291456") + 1
    slow_start = lines.index("net.ipv4.tcp_slow_start_after_idle = 1") + 1
    findings = [{"code": "comm.tcp_config", "culprits": [{"host": culprit}],
                 "evidence": [evidence(rel, rmem, "net.ipv4.tcp_rmem = 4096"),
                              evidence(rel, slow_start, "net.ipv4.tcp_slow_start_after_idle = 1")]}]
    expected(d, f"One-slice TPU v5e job (2 hosts): {culprit}'s container runs with the kernel's TCP defaults "
                f"(6 MiB / 4 MiB buffer maxima, 208 KiB caps, slow start after idle, no MTU probing, "
                f"backlog 1000); the other host is tuned. Small healthy traces on both.", findings)
    return None, findings


def scenario_comm_slow_link(d):
    cj = CommJob(d, "comm_slow_link", 607, us_of(2025, 10, 23, 6, 2, 41), ["a4c0e937"], 6, steps=420, chatter=0.3)
    cj.write_logs(14)
    cj.write_sysctls()
    culprit = cj.host(4)
    # w-4's NIC: every peer sees its transfers to and from w-4 7x slower; w-4's own capture
    # shows it towards w-0. The first peer's capture is the full-size one.
    pinned = None
    for i, host in enumerate(cj.hosts):
        peer = cj.host(0) if host == culprit else culprit
        rel, path, facts = cj.trace(host, 100_000 if i == 0 else 12_000,
                                    anomalies={"slow_link": {"peer": peer, "factor": 7.0, "mode": "host"}})
        if i == 0:
            # The link's slowest transfer (first of equals), as the aggregator keeps it.
            link = f"{host} -> {culprit}"
            best = None
            for no, text, ev in read_events(path):
                a = ev.get("args", {})
                if a.get("src") == host and a.get("dst") == culprit:
                    if best is None or ev["dur"] > best[0]:
                        best = (ev["dur"], no, text)
            assert best, link
            pinned = evidence(rel, best[1], '"name":"Megascale: Transfer Send"')
    findings = [{"code": "comm.slow_link", "culprits": [{"host": culprit}], "evidence": [pinned]}]
    expected(d, f"One-slice TPU v5e job of 6 hosts, every host profiled: transfers to and from {culprit} take "
                f"7x longer than between any other pair (a bad NIC); the 10 slow pairs all have {culprit} "
                f"at one end.", findings)
    return None, findings


def scenario_healthy_comm_trace(d):
    cj = CommJob(d, "healthy_comm_trace", 608, us_of(2025, 10, 27, 15, 20, 0), ["d70b5e24", "19fa3c86"], 2)
    cj.write_logs(14)
    cj.write_sysctls()
    # A full-size capture on one line, as TSL writes it, and smaller ones per line.
    cj.trace(cj.host(0), 110_000, per_line=False)
    for h in cj.hosts[1:]:
        cj.trace(h, 12_000)
    expected(d, "Two-slice TPU v5e job (4 hosts) with an XProf capture on every host and tuned TCP "
                "sysctls: MapDmaBuffer only at start-up, no memory copies, collectives with slack, a 30% "
                "busy network, 320 us RPCs, uniform links; nothing must fire.", [])
    return None, []


# --------------------------------------------------------------------------------------------
# torch.profiler (Kineto) traces on GPUs


def read_kineto_events(path):
    """(line_no, object text, event) of every event of a Kineto trace as write_kineto_trace
    writes it: one event per line, indented, a comma after all but the last."""
    out = []
    text = gzip.decompress(path.read_bytes()).decode("utf-8")
    for no, line in enumerate(text.split("\n"), 1):
        s = line.strip()
        s = s[:-1] if s.endswith(",") else s
        if s.startswith('{"ph"'):
            out.append((no, s, json.loads(s)))
    return out


def kineto_ts(v):
    """ts/dur as the reader takes them: Kineto writes numbers ("1250.000"); "" on the
    final instant event is no time."""
    return float(v) if isinstance(v, (int, float)) else None


def kineto_steady(events):
    """The steady state as ingest decides it (lib/parse/trace/comm_trace_finish.cc
    DecideSteady) from ProfilerStep# events: per pid the three earliest steps; over the pids
    with three or more, the latest end of a second step (first pid in order wins ties), and
    the third step of that pid is the steady_start mark. Returns (start, (line, text))."""
    steps = {}
    for no, text, ev in events:
        if ev.get("name", "").startswith("ProfilerStep#"):
            steps.setdefault(str(ev["pid"]), []).append((float(ev["ts"]), float(ev["dur"]), no, text))
    start, mark = None, None
    for pid in sorted(steps):
        p = sorted(steps[pid], key=lambda s: s[0])
        if len(p) < 3:
            continue
        second_end = p[1][0] + p[1][1]
        if start is None or second_end > start:
            start, mark = second_end, (p[2][2], p[2][3])
    assert start is not None, "no process with three ProfilerStep events"
    return start, mark


def kineto_nccl_share(events, steady):
    """(NCCL kernels starting in the steady state, union of their intervals over the steady
    span): what ingest stores as nccl_kernels and nccl_kernel_share (docs/TRACE_COMM.md)."""
    last_end = 0.0
    pieces = []
    count = 0
    for _, _, ev in events:
        ts = kineto_ts(ev.get("ts"))
        if ts is None:
            continue
        dur = kineto_ts(ev.get("dur")) or 0.0
        last_end = max(last_end, ts + dur)
        if ev.get("cat") == "kernel" and ev.get("name", "").startswith(("ncclDevKernel_", "ncclKernel_")):
            pieces.append((ts, ts + dur))
            if ts >= steady:
                count += 1
    covered, cur_lo, cur_hi = 0.0, None, None
    for lo, hi in sorted(pieces):
        lo, hi = max(lo, steady), min(hi, last_end)
        if hi <= lo:
            continue
        if cur_hi is None or lo > cur_hi:
            if cur_hi is not None:
                covered += cur_hi - cur_lo
            cur_lo, cur_hi = lo, hi
        else:
            cur_hi = max(cur_hi, hi)
    if cur_hi is not None:
        covered += cur_hi - cur_lo
    span = last_end - steady
    return count, (covered / span if span > 0 else 0.0)


def scenario_comm_bandwidth_bound_gpu(d):
    """FSDP (FULL_SHARD, bf16 mixed precision: parameter all-gathers, bf16 gradient
    reduce-scatters, an f32 all-reduce of the gradient norm) with torch 2.5 / NCCL 2.21.5 on
    2 nodes x 4 H100, NCCL_DEBUG=INFO over InfiniBand; the inter-node fabric runs far below
    line rate (a congested spine), so every ring collective crawls through the one slow hop
    and every rank spends ~70% of each step inside NCCL kernels. Training finishes, 2.6 s a
    step.

    Bundle: nodes/<host>/train.log (gen_comm's tee'd torchrun log: shell trace, agent lines,
    [rankN]: prefixes, NCCL INFO start-up, step/loss lines, tqdm bar, Kineto STAGE lines and
    the script's "trace written" line), env/<host>/collect_env.txt and pip_freeze.txt, and
    per rank nodes/<host>/prof/<host>_<pid>.<ns>.pt.trace.json.gz as
    tensorboard_trace_handler(use_gzip=True) names it (worker name <hostname>_<pid>; the
    rank's pid is the trace's CPU pid, the file's time is its baseTimeNanoseconds, as the
    traceName inside says), ~20k events each, written by xprof_trace.write_kineto_trace
    and recompressed deterministically.

    The ring couples every rank, so all eight traces cross the rule (nccl_kernels >= 20,
    nccl_kernel_share >= 50%) and both hosts are culprits; healthy_gpu's trace (NCCL ~4% of
    the step) is the look-alike that must stay silent. A torch.profiler trace has no
    recv-done, so the rule cites each trace's steady_start mark: the third ProfilerStep of
    the deciding process, computed here by reading every written trace back."""
    from gen_comm import Comm, agent_finish_ok, env_cmd, render, start_all, train
    from gen_torch_hang import TorchJob
    from generate import pylog_time

    hosts = [("gpu-b07", "10.40.7.17"), ("gpu-b08", "10.40.7.18")]
    job = TorchJob(6611, hosts, 4, "v25", "NVIDIA H100 80GB HBM3", 600_000, nch=16, iface="ib0",
                   plugin_warn=True)
    rng = job.rng
    bundle = d / "bundle"
    # torch.profiler names a trace after the writing process (<hostname>_<pid>) and
    # write_kineto_trace gives rank g the CPU pid 90000 + 17 g: the workers get those pids
    # (torchrun's agent started just before them) so log and trace agree.
    for n in job.nodes:
        n.pids = [90000 + 17 * (n.node_rank * job.nproc + l) for l in range(job.nproc)]
        n.agent_pid = n.pids[0] - rng.randint(40, 90)
    t0 = us_of(2025, 12, 3, 14, 6, 22)
    env = ["NCCL_DEBUG=INFO", "NCCL_SOCKET_IFNAME=ib0", "NCCL_IB_HCA=mlx5"]
    world = Comm(job, range(job.world), "world")
    nenv = [("NCCL_SOCKET_IFNAME", "ib0"), ("NCCL_IB_HCA", "mlx5")]
    t = start_all(job, t0, lambda n: env_cmd(job, n, "train_fsdp.py", env,
                                             " --model gpt-1.3b --sharding full_shard --mixed-precision bf16"
                                             " --profile-steps 6-17"),
                  lambda g: [(world, dict(banner=g == 0, env=nenv, plugin_warn=True))], "IB")
    t += 7 * SEC
    step_sec = 2.6
    steps = 240
    times = train(job, t, steps, step_sec, every_bar=20)

    # The profiler: schedule(wait=1, warmup=4, active=12) with prof.step() after every
    # iteration, so ProfilerStep#5..#16 (write_kineto_trace's names) are steps 6..17. Each
    # rank's trace is written first, so its STAGE lines can follow the window it holds.
    # A slow inter-node hop: 66-73% of every step in NCCL kernels on every rank.
    cited = []
    culprit_hosts = []
    shares = {}
    for g in range(job.world):
        n = job.node(g)
        pid = n.pids[job.local(g)]
        # The trace's first step starts 1.25 ms after its base time.
        base_ns = (times[6] - 1250) * 1000 + rng.randint(0, 999_999)
        name = f"{n.name}_{pid}.{base_ns}.pt.trace.json.gz"
        rel = f"nodes/{n.name}/prof/{name}"
        path = bundle / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        facts = xt.write_kineto_trace(path, host=n.name, rank=g, world_size=job.world, seed=6611, steps=12,
                                      events_target=30_000, step_us=step_sec * 1e6, nccl_version="2.21.5",
                                      anomalies={"nccl_share": 0.66 + 0.01 * g}, base_ns=base_ns)
        recompress(path)
        events = read_kineto_events(path)
        assert len(events) == facts["events"], (rel, len(events), facts["events"])
        steady, (line, text) = kineto_steady(events)
        count, share = kineto_nccl_share(events, steady)
        shares[rel] = share
        # Well clear of the bound, so ingest's 1/1,024-of-the-span cell rounding cannot flip it.
        assert count >= 20 and share >= 0.55, (rel, count, share)
        if n.name not in culprit_hosts:
            culprit_hosts.append(n.name)
        assert facts["planted"]["steady_start"][0]["line_no"] == line, rel
        cited.append(evidence(rel, line, '"name": "' + json.loads(text)["name"] + '"'))

        ta = times[6] - rng.randint(2000, 9000)
        job.say(g, ta, f"STAGE:{pylog_time(ta)[:19]} {pid}:{pid} ActivityProfilerController.cpp:314] "
                       "Completed Stage: Warm Up")
        tb = base_ns // 1000 + 1250 + int(facts["span_us"]) + rng.randint(20_000, 90_000)
        job.say(g, tb, f"STAGE:{pylog_time(tb)[:19]} {pid}:{pid} ActivityProfilerController.cpp:320] "
                       "Completed Stage: Collection")
        tc = tb + rng.randint(600_000, 1_400_000)
        job.say(g, tc, f"STAGE:{pylog_time(tc)[:19]} {pid}:{pid} ActivityProfilerController.cpp:324] "
                       "Completed Stage: Post Processing")
        tw = tc + rng.randint(200_000, 900_000)
        job.say(g, tw, f"{pylog_time(tw)} - train - INFO - rank {g}: profiler trace written to /tmp/prof/{name}")
    agent_finish_ok(job, times[steps + 1] + 2 * SEC)
    render(job, bundle)

    findings = [{"code": "comm.bandwidth_bound", "culprits": [{"host": h} for h in culprit_hosts],
                 "evidence": cited}]
    lo, hi = min(shares.values()), max(shares.values())
    expected(d, f"FSDP (full shard, bf16; torch 2.5 / NCCL 2.21.5) on 2 nodes x 4 H100 over InfiniBand trains "
                f"to the end at 2.6 s a step; a torch.profiler capture of steps 6-17 on every rank shows "
                f"ncclDevKernel_AllGather/ReduceScatter/AllReduce kernels running {lo:.0%}-{hi:.0%} of the "
                f"steady state on all 8 ranks (a slow inter-node hop in the ring holds every rank): both "
                f"hosts are bandwidth bound; the rule cites each trace's third ProfilerStep (Kineto traces "
                f"have no recv-done).", findings)
    return None, findings


SCENARIOS = {
    "comm_dma_premap_exhausted": scenario_comm_dma_premap_exhausted,
    "comm_memory_copy": scenario_comm_memory_copy,
    "comm_low_collective_slack": scenario_comm_low_collective_slack,
    "comm_bandwidth_bound": scenario_comm_bandwidth_bound,
    "comm_rpc_latency": scenario_comm_rpc_latency,
    "comm_tcp_config": scenario_comm_tcp_config,
    "comm_slow_link": scenario_comm_slow_link,
    "healthy_comm_trace": scenario_healthy_comm_trace,
    "comm_bandwidth_bound_gpu": scenario_comm_bandwidth_bound_gpu,
}
