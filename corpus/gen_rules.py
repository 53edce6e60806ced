"""Scenarios of the built-in rule pack (issue #9), imported by generate.py.

The built-in pack (lib/analyze/rules/packs/runtime.json) holds one-line failure signatures that
no cross-host analyzer covers: a full disk (ENOSPC), the open-file limit (EMFILE) and a
DataLoader worker that died. Each scenario is a small torchrun job whose ranks log with the
"[rankN]:" prefix of TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE and Python logging lines
(formats.md 3.1, 5); the failing rank prints the message of the family the way PyTorch,
DeepSpeed and the shell print it, with its traceback. A healthy job carries the look-alikes
(ulimit output, config keys, successful saves with free-space notes, DataLoader settings) that
must not fire.

Bundles: nodes/<host>/train.log, the layout path attribution reads. Host names, pids, paths and
sizes are made up. Each scenario draws from its own seeded random.Random.
"""

import math
import random

from generate import SEC, evd, expected, pylog_time, us_of, write


class Job:
    """Ranks of a torchrun job on a few hosts; lines merged by time per host."""

    def __init__(self, seed, hosts, nproc, steps):
        self.rng = random.Random(seed)
        self.hosts = hosts
        self.nproc = nproc
        self.steps = steps
        self.events = {h: [] for h in hosts}  # host -> [(time, seq, text)]
        self.seq = 0
        self.pids = {g: 41000 + self.rng.randint(0, 20000) for g in range(len(hosts) * nproc)}

    def host_of(self, g):
        return self.hosts[g // self.nproc]

    def say(self, g, t, text):
        """A rank's line; text may be a list (a traceback keeps its lines together)."""
        lines = text if isinstance(text, list) else [text]
        for i, line in enumerate(lines):
            self.seq += 1
            self.events[self.host_of(g)].append((t + i, self.seq, f"[rank{g}]:{line}"))

    def raw(self, host, t, text):
        self.seq += 1
        self.events[host].append((t, self.seq, text))

    def render(self, bundle):
        """Writes each host's log; returns {host: {text: line number of its first occurrence}}."""
        where = {}
        for h in self.hosts:
            lines = [text for _, _, text in sorted(self.events[h])]
            write(bundle / "nodes" / h / "train.log", "\n".join(lines) + "\n")
            where[h] = {}
            for n, text in enumerate(lines, 1):
                where[h].setdefault(text, n)
        return where


def line_no(where, host, contains):
    """The first line of host's log holding `contains` (computed, never guessed)."""
    for text, n in sorted(where[host].items(), key=lambda kv: kv[1]):
        if contains in text:
            return n
    raise AssertionError((host, contains))


def start(job, t0, script="train.py"):
    """Shell trace, then each rank's start-up lines. Returns the time after them."""
    rng = job.rng
    for i, h in enumerate(job.hosts):
        t = t0 + rng.randint(0, SEC)
        for cmd in ["+ export TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE='[rank${rank}]:'",
                    "+ ulimit -n 65536",
                    f"+ torchrun --nnodes {len(job.hosts)} --nproc_per_node {job.nproc} --node_rank {i} "
                    f"--rdzv_backend c10d --rdzv_endpoint {job.hosts[0]}:29500 {script} --config run.yaml"]:
            job.raw(h, t, cmd)
            t += rng.randint(1000, 20000)
    t = t0 + 3 * SEC
    for g in range(len(job.hosts) * job.nproc):
        tg = t + rng.randint(0, SEC)
        job.say(g, tg, f"{pylog_time(tg)} - train - INFO - rank {g}: world size {len(job.hosts) * job.nproc}, "
                       f"local rank {g % job.nproc}, pid {job.pids[g]}")
        tg += rng.randint(10_000, 90_000)
        job.say(g, tg, f"{pylog_time(tg)} - train - INFO - rank {g}: DataLoader num_workers=8, "
                       "prefetch_factor=2, pin_memory=True")
    return t + 2 * SEC


def train(job, t, first, last, stop=None):
    """Step lines of every rank from `first` to `last`; stop(g, s) -> True ends rank g's lines.
    Returns ({step: time}, end time)."""
    rng = job.rng
    times = {}
    for s in range(first, last + 1):
        times[s] = t
        dt = 0.52 * (0.97 + 0.06 * rng.random())
        loss = 2.1 + 5.8 * math.exp(-s / 120.0) + (rng.random() - 0.5) * 0.05
        for g in range(len(job.hosts) * job.nproc):
            if stop and stop(g, s):
                continue
            tg = t + int(dt * SEC) + rng.randint(500, 9000)
            job.say(g, tg, f"{pylog_time(tg)} - train - INFO - rank {g}: step {s}/{job.steps} loss={loss:.4f} "
                           f"step_time={dt:.3f}s")
        t += int(dt * SEC) + rng.randint(5_000, 20_000)
    return times, t


def traceback(frames, last):
    out = ["Traceback (most recent call last):"]
    for path, line, fn, code in frames:
        out += [f'  File "{path}", line {line}, in {fn}', f"    {code}"]
    return out + [last]


SITE = "/usr/local/lib/python3.10/dist-packages"


def scenario_rules_disk_full(d):
    hosts = ["ckpt-node-0", "ckpt-node-1"]
    job = Job(9101, hosts, 4, 1000)
    rng = job.rng
    bundle = d / "bundle"
    t = start(job, us_of(2026, 9, 14, 2, 10, 5))
    times, t = train(job, t, 1, 400)
    # Step 400: every rank saves its DeepSpeed shard; node-1's /local_ckpt fills up while ranks
    # 5 and 6 write, node-0's ranks save fine.
    ts = t + rng.randint(100_000, 300_000)
    for g in range(8):
        tg = ts + rng.randint(0, 200_000)
        job.say(g, tg, f"[{pylog_time(tg)}] [INFO] [logging.py:128:log_dist] [Rank {g}] Saving model checkpoint: "
                       f"/local_ckpt/global_step400/mp_rank_00_model_states.pt")
    for g in (0, 1, 2, 3, 4, 7):
        tg = ts + rng.randint(2 * SEC, 3 * SEC)
        job.say(g, tg, f"[{pylog_time(tg)}] [INFO] [torch_checkpoint_engine.py:33:commit] [Torch] Checkpoint "
                       "global_step400 is ready now!")
    t5 = ts + rng.randint(1 * SEC, 2 * SEC)
    job.say(5, t5, traceback(
        [("/workspace/train.py", 212, "main", "engine.save_checkpoint(args.ckpt_dir, tag=f'global_step{step}')"),
         (f"{SITE}/deepspeed/runtime/engine.py", 3204, "save_checkpoint",
          "self._save_zero_checkpoint(save_dir, tag)"),
         (f"{SITE}/torch/serialization.py", 652, "save",
          "_save(obj, opened_zipfile, pickle_module, pickle_protocol, _disable_byteorder_record)")],
        "RuntimeError: [enforce fail at inline_container.cc:595] . PytorchStreamWriter failed writing file "
        "data/17: file write failed"))
    t6 = t5 + rng.randint(20_000, 80_000)
    job.say(6, t6, traceback(
        [("/workspace/train.py", 212, "main", "engine.save_checkpoint(args.ckpt_dir, tag=f'global_step{step}')"),
         (f"{SITE}/torch/serialization.py", 651, "save", "with _open_zipfile_writer(f) as opened_zipfile:")],
        "OSError: [Errno 28] No space left on device: "
        "'/local_ckpt/global_step400/zero_pp_rank_6_mp_rank_00_optim_states.pt'"))
    job.raw(hosts[1], t6 + rng.randint(300_000, 600_000),
            f"tee: /local_ckpt/logs/train-{rng.randint(100000, 999999)}.log: No space left on device")
    where = job.render(bundle)
    h = hosts[1]
    path = f"nodes/{h}/train.log"
    findings = [{
        "code": "runtime.disk_full",
        "culprits": [{"host": h, "rank": 5}, {"host": h, "rank": 6}, {"host": h}],
        "evidence": [evd(path, line_no(where, h, "PytorchStreamWriter failed writing file"),
                         "PytorchStreamWriter failed writing file data/17"),
                     evd(path, line_no(where, h, "[Errno 28]"), "OSError: [Errno 28] No space left on device"),
                     evd(path, line_no(where, h, "tee: /local_ckpt"), "No space left on device")],
    }, {
        # The runtime analyzer's first failure is rank 5's exception; the disk_full error explains
        # it, so it stays info.
        "code": "runtime.first_failure",
        "culprits": [{"host": h, "rank": 5}],
        "evidence": [evd(path, line_no(where, h, "PytorchStreamWriter failed writing file"),
                         "PytorchStreamWriter failed writing file data/17")],
    }]
    expected(d, "torch 2.4 + DeepSpeed job on 2 nodes x 4 GPUs: at step 400 every rank saves its checkpoint "
                "shard; ckpt-node-1's /local_ckpt fills up, rank 5 fails in torch.save with PytorchStreamWriter "
                "'file write failed', rank 6 with OSError [Errno 28], and tee cannot write the log. "
                "runtime.disk_full (built-in rule pack) names ckpt-node-1; runtime.first_failure names rank 5 "
                "and stays info, explained by the disk_full error.", findings)
    return None, findings


def scenario_rules_too_many_open_files(d):
    hosts = ["wds-node-0"]
    job = Job(9102, hosts, 8, 2000)
    rng = job.rng
    bundle = d / "bundle"
    t = start(job, us_of(2026, 9, 15, 11, 42, 30))
    times, t = train(job, t, 1, 730, stop=lambda g, s: g == 3 and s > 712)
    # Rank 3's webdataset reader opens a shard per sample without closing it; at step 713 the
    # process hits its open-file limit, then the DataLoader cannot receive shared tensors.
    t3 = times[713] + rng.randint(100_000, 300_000)
    job.say(3, t3, traceback(
        [("/workspace/train.py", 188, "train_epoch", "for batch in loader:"),
         ("/workspace/data/shards.py", 77, "__iter__", "fh = open(self.shards[i], 'rb')")],
        "OSError: [Errno 24] Too many open files: '/data/shards/shard-004211.tar'"))
    t3 += rng.randint(200_000, 500_000)
    job.say(3, t3, traceback(
        [(f"{SITE}/torch/utils/data/dataloader.py", 1328, "_next_data", "idx, data = self._get_data()"),
         (f"{SITE}/torch/multiprocessing/reductions.py", 496, "rebuild_storage_fd",
          "fd = df.detach()"),
         ("/usr/lib/python3.10/multiprocessing/reduction.py", 164, "recvfds",
          "raise RuntimeError('received %d items of ancdata' %")],
        "RuntimeError: received 0 items of ancdata"))
    where = job.render(bundle)
    h = hosts[0]
    path = f"nodes/{h}/train.log"
    findings = [{
        "code": "runtime.too_many_open_files",
        "culprits": [{"host": h, "rank": 3}],
        "evidence": [evd(path, line_no(where, h, "[Errno 24]"), "OSError: [Errno 24] Too many open files"),
                     evd(path, line_no(where, h, "RuntimeError: received 0 items of ancdata"),
                         "received 0 items of ancdata")],
    }]
    expected(d, "torch 2.4 job on 1 node x 8 GPUs reading webdataset shards: rank 3 leaks one file handle per "
                "shard and at step 713 hits the open-file limit (OSError [Errno 24]), then its DataLoader fails "
                "with 'received 0 items of ancdata'. runtime.too_many_open_files (built-in rule pack) names "
                "rank 3.", findings)
    return None, findings


def scenario_rules_dataloader_killed(d):
    hosts = ["img-node-0", "img-node-1"]
    job = Job(9103, hosts, 4, 3000)
    rng = job.rng
    bundle = d / "bundle"
    t = start(job, us_of(2026, 9, 16, 20, 5, 44))
    times, t = train(job, t, 1, 260, stop=lambda g, s: g == 6 and s > 251)
    # img-node-1 runs in a container with the default 64 MB /dev/shm: rank 6's DataLoader worker
    # dies of SIGBUS while writing a batch into shared memory.
    t6 = times[252] + rng.randint(100_000, 300_000)
    wpid = job.pids[6] + rng.randint(50, 400)
    job.say(6, t6, "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient "
                   "shared memory (shm).")
    job.say(6, t6 + rng.randint(5_000, 40_000), traceback(
        [(f"{SITE}/torch/utils/data/dataloader.py", 1243, "_try_get_data",
          "data = self._data_queue.get(timeout=timeout)"),
         (f"{SITE}/torch/utils/data/_utils/signal_handling.py", 73, "handler",
          "_error_if_any_worker_fails()")],
        f"RuntimeError: DataLoader worker (pid {wpid}) is killed by signal: Bus error. It is possible that "
        "dataloader's workers are out of shared memory. Please try to raise your shared memory limit."))
    where = job.render(bundle)
    h = hosts[1]
    path = f"nodes/{h}/train.log"
    findings = [{
        "code": "runtime.dataloader_killed",
        "culprits": [{"host": h, "rank": 6}],
        "evidence": [evd(path, line_no(where, h, "Unexpected bus error"),
                         "Unexpected bus error encountered in worker"),
                     evd(path, line_no(where, h, f"DataLoader worker (pid {wpid})"),
                         "is killed by signal: Bus error")],
    }]
    expected(d, "torch 2.4 job on 2 nodes x 4 GPUs: img-node-1's container has a small /dev/shm and rank 6's "
                "DataLoader worker dies of a bus error at step 252 ('insufficient shared memory (shm)', "
                "'DataLoader worker (pid N) is killed by signal: Bus error'). runtime.dataloader_killed "
                "(built-in rule pack) names rank 6.", findings)
    return None, findings


def scenario_healthy_rules_lookalikes(d):
    hosts = ["lk-node-0", "lk-node-1"]
    job = Job(9104, hosts, 4, 600)
    rng = job.rng
    bundle = d / "bundle"
    t = start(job, us_of(2026, 9, 17, 8, 0, 12))
    h0 = hosts[0]
    for line in ["+ ulimit -a", "open files                          (-n) 65536",
                 "max user processes                  (-u) 2061478", "+ df -h /local_ckpt",
                 "Filesystem      Size  Used Avail Use% Mounted on",
                 "/dev/nvme1n1    3.5T  1.1T  2.4T  32% /local_ckpt"]:
        t += rng.randint(1000, 9000)
        job.raw(h0, t, line)
    cfg = ["data:", "  num_workers: 8", "  max_open_files: 4096", "  sharing_strategy: file_descriptor",
           "checkpoint:", "  dir: /local_ckpt", "  on_disk_full: abort", "  min_free_gb: 200"]
    job.say(0, t, [f"{pylog_time(t)} - train - INFO - resolved config:"] + [f"  {x}" for x in cfg])
    times, t = train(job, t + SEC, 1, 600)
    for s in (200, 400, 600):
        for g in range(8):
            tg = times[s] + rng.randint(300_000, 900_000)
            job.say(g, tg, f"[{pylog_time(tg)}] [INFO] [torch_checkpoint_engine.py:33:commit] [Torch] Checkpoint "
                           f"global_step{s} is ready now!")
        tg = times[s] + rng.randint(1 * SEC, 2 * SEC)
        job.say(0, tg, f"{pylog_time(tg)} - train - INFO - saved checkpoint global_step{s}: 41.2 GB written, "
                       f"{2400 - s:d} GB left on device /dev/nvme1n1 (no space issues)")
    tg = times[300] + rng.randint(100_000, 300_000)
    job.say(5, tg, f"{pylog_time(tg)} - train - INFO - rank 5: DataLoader worker 3 restarted after the epoch "
                   "boundary (persistent_workers=False), 8 workers alive")
    job.say(2, tg + 7, f"{pylog_time(tg + 7)} - train - INFO - rank 2: open file handles 212 "
                       "(limit 65536), shm usage 1.2 GB of 32 GB")
    t = t + rng.randint(SEC, 2 * SEC)
    job.say(0, t, f"{pylog_time(t)} - train - INFO - training done: 600 steps")
    job.render(bundle)
    expected(d, "torch 2.4 job on 2 nodes x 4 GPUs that ends cleanly: ulimit -a and df output, config keys "
                "max_open_files / on_disk_full, checkpoint saves with free-space notes ('GB left on device'), "
                "DataLoader settings and a worker restarted at an epoch boundary, file-handle and shm usage "
                "lines; nothing must fire.", [])
    return None, []


SCENARIOS = {
    "rules_disk_full": scenario_rules_disk_full,
    "rules_too_many_open_files": scenario_rules_too_many_open_files,
    "rules_dataloader_killed": scenario_rules_dataloader_killed,
    "healthy_rules_lookalikes": scenario_healthy_rules_lookalikes,
}
