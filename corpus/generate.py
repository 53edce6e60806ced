#!/usr/bin/env python3
"""Writes the synthetic end-to-end test corpus of casefile.

Every byte written here is synthetic: the logs, configs, version reports, HLO
dumps and traces are composed from the documented shapes of those formats
(the MXLA debugging workflow's example messages, glog/absl headers, NCCL_DEBUG,
torchrun prefixes, collect_env, Kineto JSON). Nothing comes from a real run.

Deterministic: each scenario draws from its own random.Random seeded with a
fixed number, no clock is read, and dictionaries are written in a fixed
order, so two runs produce byte-identical files.

Usage: python3 corpus/generate.py [scenario ...]   (Python 3.11, stdlib only)
Each scenario folder is deleted and rewritten; nothing else is touched.
"""

import gzip
import base64
import datetime
import json
import math
import shutil
import sys
from pathlib import Path
import random

ROOT = Path(__file__).resolve().parent
EPOCH = datetime.datetime(1970, 1, 1)
SEC = 1_000_000  # microseconds


def us_of(year, month, day, hour, minute, second=0):
    return int((datetime.datetime(year, month, day, hour, minute, second) - EPOCH).total_seconds()) * SEC


def dt_of(t):
    return EPOCH + datetime.timedelta(microseconds=t)


def glog(level, t, tid, src, msg):
    """glog / absl header: Lmmdd hh:mm:ss.uuuuuu tid file:line] msg (tid is %5d)."""
    d = dt_of(t)
    return (f"{level}{d.month:02d}{d.day:02d} {d.hour:02d}:{d.minute:02d}:{d.second:02d}."
            f"{d.microsecond:06d} {tid:5d} {src}] {msg}")


def torch_glog(level, t, src, msg):
    """torch >= 2.4 C++ warning header with nanoseconds: [W1129 10:02:44.118201325 F.cpp:12] msg."""
    d = dt_of(t)
    ns = d.microsecond * 1000 + (t * 7919) % 1000
    return f"[{level}{d.month:02d}{d.day:02d} {d.hour:02d}:{d.minute:02d}:{d.second:02d}.{ns:09d} {src}] {msg}"


def pylog_time(t):
    d = dt_of(t)
    return f"{d.year:04d}-{d.month:02d}-{d.day:02d} {d.hour:02d}:{d.minute:02d}:{d.second:02d},{d.microsecond // 1000:03d}"


class HostLog:
    """One log file: events (time, lines) merged by time, so threads interleave.

    A mark names one line of an event; render() returns the 1-based line number
    of every mark, computed from the final file (never guessed).
    """

    def __init__(self):
        self.events = []
        self.seq = 0

    def emit(self, t, lines, marks=None):
        if isinstance(lines, (str, bytes)):
            lines = [lines]
        out = [l.encode("utf-8") if isinstance(l, str) else l for l in lines]
        for l in out:
            assert b"\n" not in l, l
        self.events.append((t, self.seq, out, dict(marks or {})))
        self.seq += 1

    def render(self, truncate_last_at=None):
        self.events.sort(key=lambda e: (e[0], e[1]))
        lines, marks = [], {}
        for _, _, ls, mk in self.events:
            for idx, name in mk.items():
                assert name not in marks, name
                marks[name] = len(lines) + idx + 1
            lines.extend(ls)
        if truncate_last_at is not None:
            lines[-1] = lines[-1][:truncate_last_at]
            data = b"\n".join(lines)
        else:
            data = b"\n".join(lines) + b"\n"
        return data, marks, len(lines)


def write(path, data):
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    path.write_bytes(data)


def hexid(rng, n):
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


# --------------------------------------------------------------------------------------------
# TPU / McJAX jobs


class TpuJob:
    """A multi-slice McJAX job: hosts, a shared step timeline, per-host clocks."""

    def __init__(self, name, seed, start, slices, hosts_per_slice, tpu, steps, first_step,
                 launch0, step_fmt="plain", vmodule=False, hlo_dump=False, lib_ver="0.0.17",
                 ckpt_period=200, eval_step=None, chatter=0.5):
        self.name = name
        self.rng = random.Random(seed)
        rng = self.rng
        self.start = start
        self.tpu = tpu  # ("TPU v4", "v4", 4)
        self.step_fmt = step_fmt
        self.vmodule = vmodule
        self.hlo_dump = hlo_dump
        self.lib_ver = lib_ver
        self.ckpt_period = ckpt_period
        self.first_step = first_step
        self.steps = steps
        self.launch0 = launch0
        self.hosts = []
        task = 0
        for s, prefix in enumerate(slices):
            for w in range(hosts_per_slice):
                self.hosts.append({
                    "name": f"t1v-n-{prefix}-w-{w}",
                    "ip": f"10.{128 + s}.0.{11 + w * 3 + s}",
                    "task": task,
                    "slice": s,
                    "widx": w,
                    "skew": rng.randint(-90_000, 90_000),
                    "pid": rng.randint(2900, 4100),
                    "pytid": rng.randint(1_302_000_000, 4_290_000_000),
                    "pytid2": rng.randint(1_302_000_000, 4_290_000_000),
                    "hb": rng.randint(20_000, 60_000),
                })
                task += 1
        for h in self.hosts:
            p = h["pid"]
            h["tid"] = {"main": p, "rt": p + 150 + rng.randint(0, 30), "hang": p + 167,
                        "grpc": p + 182 + rng.randint(0, 5), "mem": p + 201, "coord": p + 94,
                        "ckpt": p + 233}
        self.coord = self.hosts[0]
        self.coord_ip = self.coord["ip"]
        self.n_devices = len(self.hosts) * tpu[2]
        self.step_time = 1.18 + rng.random() * 0.3
        self.train_t0 = start + 150 * SEC + rng.randint(0, 20 * SEC)
        self.step_end = []
        t = self.train_t0
        for _ in range(steps):
            t += int(self.step_time * SEC * (0.97 + 0.06 * rng.random()))
            self.step_end.append(t)
        self.logs = {h["name"]: HostLog() for h in self.hosts}
        self.per_host_lines = {}
        self.ckpt_root = f"gs://{name.replace('_', '-')}-runs/{rng.choice(['llama2-7b', 'gemma-2b', 'mixtral-8x7b', 'llama3-8b'])}"
        self.eval_step = eval_step
        self.chatter = chatter  # chance per step of a line from another thread

    def step_no(self, k):
        return self.first_step + k

    def launch_id(self, k):
        return self.launch0 + k

    def ht(self, h, t):
        """Host clock: global time plus the host's skew."""
        return t + h["skew"]

    def heartbeat(self, h):
        """Heartbeat sequence numbers only grow."""
        h["hb"] += self.rng.randint(1, 4)
        return h["hb"]

    def slow_down(self, from_k, coef):
        """From step from_k on, every step takes longer than the one before
        (a synchronous job runs at the pace of its slowest host)."""
        shift = 0
        for k in range(from_k, len(self.step_end)):
            shift += int((k - from_k) ** 1.5 * coef)
            self.step_end[k] += shift

    def loss(self, step):
        r = self.rng
        return 1.85 + 1.4 * math.exp(-step / 3500.0) + (r.random() - 0.5) * 0.06


# Background line writers, shared by every TPU scenario ------------------------------------

CONFIG_KEYS = [
    ("run_name", None), ("model_name", None), ("base_emb_dim", 4096), ("base_num_query_heads", 32),
    ("base_num_kv_heads", 32), ("base_mlp_dim", 11008), ("base_num_decoder_layers", 32),
    ("head_dim", 128), ("vocab_size", 32000), ("max_target_length", 2048),
    ("per_device_batch_size", 4.0), ("gradient_accumulation_steps", 1), ("learning_rate", 0.0003),
    ("warmup_steps_fraction", 0.1), ("cosine_learning_rate_final_fraction", 0.1),
    ("adam_b1", 0.9), ("adam_b2", 0.95), ("adam_eps", 1e-08), ("adam_weight_decay", 0.1),
    ("gradient_clipping_threshold", 1.0), ("dtype", "bfloat16"), ("weight_dtype", "float32"),
    ("remat_policy", "full"), ("scan_layers", True), ("dcn_data_parallelism", -1),
    ("dcn_fsdp_parallelism", 1), ("ici_fsdp_parallelism", -1), ("ici_tensor_parallelism", 1),
    ("ici_data_parallelism", 1), ("num_slices", None), ("dataset_type", "tfds"),
    ("dataset_path", "gs://tpu-datasets/c4"), ("dataset_name", "c4/en:3.0.1"),
    ("eval_dataset_name", "c4/en:3.0.1"), ("eval_interval", 500), ("eval_steps", 40),
    ("tokenizer_path", "assets/tokenizer.llama2"), ("enable_checkpointing", True),
    ("async_checkpointing", True), ("checkpoint_period", None), ("enable_data_shuffling", True),
    ("data_shuffle_seed", 0), ("init_weights_seed", 0), ("steps", None),
    ("log_period", 100), ("enable_profiler", False), ("upload_all_profiler_results", False),
    ("skip_first_n_steps_for_profiler", 1), ("profiler_steps", 5), ("attention", "flash"),
    ("sa_block_q", 512), ("sa_block_kv", 512), ("sa_block_kv_compute", 512),
    ("opt_type", "adamw"), ("logits_via_embedding", False), ("normalize_embedding_logits", True),
    ("fused_qkv", False), ("fused_mlp", False), ("megablox", True), ("capacity_factor", -1.0),
    ("quantization", ""), ("decoder_block", "llama2"), ("enable_dropout", False),
    ("hardware", "tpu"), ("jax_cache_dir", "~/jax_cache"), ("compile_topology_num_slices", -1),
    ("collect_stack_trace", False), ("stack_trace_interval_seconds", 600),
    ("metrics_file", ""), ("gcs_metrics", True), ("save_config_to_gcs", False),
]


def tpu_startup(job, h, log, with_ansi=True, bad_utf8=False):
    """Launcher trace, libtpu init, Megascale config, jax.distributed, config dump,
    input pipeline and compilation: everything before the first step."""
    rng = job.rng
    tid = h["tid"]
    t = job.ht(h, job.start + rng.randint(0, 4 * SEC))
    py = h["pytid"]

    def step(lo=200, hi=9000):
        nonlocal t
        t += rng.randint(lo, hi)
        return t

    hostnames = ",".join(x["ip"] for x in job.hosts if x["slice"] == h["slice"])
    log.emit(step(), f"+ cd /home/tpu/trainer")
    log.emit(step(), f"+ export TPU_STDERR_LOG_LEVEL=0 TPU_MIN_LOG_LEVEL=0 TF_CPP_MIN_LOG_LEVEL=0")
    log.emit(step(), f"+ export MEGASCALE_COORDINATOR_ADDRESS={job.coord_ip} MEGASCALE_NUM_SLICES="
                     f"{len(set(x['slice'] for x in job.hosts))} MEGASCALE_SLICE_ID={h['slice']} MEGASCALE_PORT=8081")
    vm = " --vmodule=real_program_continuator=1" if job.vmodule else ""
    log.emit(step(), "+ export LIBTPU_INIT_ARGS='--xla_tpu_enable_async_collective_fusion=true "
                     "--xla_tpu_enable_async_collective_fusion_fuse_all_gather=true "
                     "--xla_tpu_overlap_compute_collective_tc=true --xla_enable_async_all_gather=true "
                     f"--megascale_grpc_premap_memory_bytes=17179869184{vm}'")
    if job.hlo_dump:
        log.emit(step(), "+ export XLA_FLAGS=--xla_dump_to=/tmp/xla_dump")
    log.emit(step(), f"+ python3 -u train.py configs/base.yml run_name={job.name}-r{rng.randint(1, 9)} "
                     f"steps={job.first_step + job.steps + 500}")
    if with_ansi:
        log.emit(step(), f"\x1b[1;34m[launch]\x1b[0m worker {h['task']} on {h['name']} ({h['ip']}), "
                         f"slice {h['slice']}, \x1b[32mready\x1b[0m")
    t += rng.randint(2 * SEC, 5 * SEC)
    log.emit(step(), glog("I", t, tid["main"], "tpu_platform_init.cc:92",
                          f"libtpu version {job.lib_ver} (build cl/{rng.randint(700000000, 799999999)}, "
                          f"built Jun {rng.randint(1, 28)} 2025), jaxlib 0.6.1"))
    log.emit(step(), glog("I", t, tid["main"], "tpu_platform_init.cc:118",
                          f"TPU_WORKER_ID={h['widx']} TPU_WORKER_HOSTNAMES={hostnames}"))
    kind, gen, chips = job.tpu
    log.emit(step(), glog("I", t, tid["main"], "topology.cc:340",
                          f"{kind} slice topology {len([x for x in job.hosts if x['slice'] == 0]) * chips} chips, "
                          f"{chips} chips on this host, host bounds 1x1x{len([x for x in job.hosts if x['slice'] == 0])}, "
                          f"host coords (0,0,{h['widx']})"))
    for c in range(chips):
        log.emit(step(500, 3000), glog("I", t, tid["main"], "tpu_chip.cc:211",
                                       f"TPU_{c}: chip {c}, coords ({c % 2},{c // 2},{h['widx']}), "
                                       f"HBM {32 if gen == 'v4' else 16}.00 GiB, pcie 0000:00:{4 + c:02x}.0, state READY"))
    log.emit(step(), glog("I", t, tid["main"], "megascale_config.cc:118",
                          f"Megascale: coordinator={job.coord_ip}:8080 num_slices="
                          f"{len(set(x['slice'] for x in job.hosts))} slice_id={h['slice']} port=8081 "
                          f"task={h['task']}"))
    log.emit(step(), glog("I", t, tid["main"], "megascale_hang_detector.cc:75",
                          "Megascale hang detection enabled, timeout 1m"))
    log.emit(step(), glog("I", t, tid["main"], "dcn_transport.cc:512",
                          f"--megascale_grpc_premap_memory_bytes=17179869184: premapped 16.00 GiB of host "
                          f"memory for DCN transfers in {1.2 + rng.random():.2f}s"))
    if job.vmodule:
        log.emit(step(), glog("I", t, tid["main"], "vlog_is_on.cc:197",
                              "--vmodule=real_program_continuator=1 enabled"))
    t += rng.randint(SEC // 2, 2 * SEC)
    log.emit(step(), glog("I", t, py, "distributed.py:105",
                          f"Connecting to JAX distributed service on {job.coord_ip}:8476"))
    t += rng.randint(SEC, 6 * SEC)
    log.emit(step(), glog("I", t, tid["coord"], "coordination_service_agent.cc:298",
                          "Coordination agent has successfully connected."))
    log.emit(step(), glog("I", t, py, "distributed.py:131",
                          f"jax.distributed initialized: process_id={h['task']} num_processes={len(job.hosts)}"))
    # config dump
    for k, v in CONFIG_KEYS:
        if k == "run_name":
            v = job.name
        elif k == "model_name":
            v = job.ckpt_root.rsplit("/", 1)[1]
        elif k == "num_slices":
            v = len(set(x["slice"] for x in job.hosts))
        elif k == "checkpoint_period":
            v = job.ckpt_period
        elif k == "steps":
            v = job.first_step + job.steps + 500
        log.emit(step(20, 200), glog("I", t, py, "pyconfig.py:442", f"Config param {k}: {v}"))
    log.emit(step(), glog("I", t, py, "max_utils.py:188",
                          f"System Information: Jax Version: 0.6.1, Jaxlib Version: 0.6.1, "
                          f"Jax Backend: PJRT C API, libtpu {job.lib_ver}"))
    devs = ", ".join(f"TpuDevice(id={h['task'] * chips + c}, process_index={h['task']}, "
                     f"coords=({c % 2},{c // 2},{h['widx']}), core_on_chip=0)" for c in range(chips))
    log.emit(step(), glog("I", t, py, "train.py:601", f"local devices: [{devs}]"))
    log.emit(step(), glog("I", t, py, "train.py:602",
                          f"global device count {job.n_devices}, process count {len(job.hosts)}, "
                          f"mesh shape {{'data': {len(set(x['slice'] for x in job.hosts))}, 'fsdp': "
                          f"{job.n_devices // len(set(x['slice'] for x in job.hosts))}}}"))
    log.emit(step(), glog("W", t, py, "xla_bridge.py:909",
                          "Platform 'tpu' is experimental under PJRT C API; jax_platforms=tpu,cpu"))
    # input pipeline
    log.emit(step(), glog("I", t, py, "input_pipeline.py:77",
                          f"Loading c4/en:3.0.1 split train, shard {h['task']} of {len(job.hosts)}"))
    t += rng.randint(SEC, 3 * SEC)
    log.emit(step(), glog("I", t, py, "input_pipeline.py:91",
                          "Tokenizer loaded from assets/tokenizer.llama2 (vocab 32000)"))
    if bad_utf8:
        # A decoded sample with a stray Latin-1 byte: invalid UTF-8 in an ordinary line.
        log.emit(step(), glog("I", t, py, "input_pipeline.py:102", "first example text: ").encode()
                 + b"'Le caf\xe9 de la gare \xab ouvert \xbb, horaires 7h-22h...'")
    else:
        log.emit(step(), glog("I", t, py, "input_pipeline.py:102",
                              "first example text: 'The quick survey of 1,204 households found that...'"))
    for i in range(rng.randint(4, 7)):
        log.emit(step(), glog("I", t, py, "dataset_info.py:617",
                              f"Load dataset info from gs://tpu-datasets/c4/c4/en/3.0.1 (shard file {i:05d}-of-01024)"))
    # compilation
    log.emit(step(), glog("I", t, py, "pxla.py:1906",
                          "Compiling jit_train_step with global shapes and types [ShapedArray(bfloat16[4096,32000]), "
                          f"ShapedArray(int32[{job.n_devices * 4},2048])]. Argument mapping: "
                          f"[NamedSharding(mesh=Mesh('data': {len(set(x['slice'] for x in job.hosts))}, 'fsdp': "
                          f"{job.n_devices // len(set(x['slice'] for x in job.hosts))}), "
                          "spec=PartitionSpec('fsdp', None))]."))
    if job.hlo_dump:
        log.emit(step(), glog("I", t, tid["main"], "dump.cc:591",
                              "HloModule dump enabled with path prefix: , suffix: before_optimizations"))
    key = hexid(rng, 64)
    log.emit(step(), glog("W", t, py, "compiler.py:206",
                          f"Persistent compilation cache miss for 'jit_train_step' with key 'jit_train_step-{key}'"))
    t += rng.randint(28 * SEC, 48 * SEC)
    log.emit(step(), glog("I", t, py, "pxla.py:1935",
                          f"Finished XLA compilation of jit(train_step) in {30 + rng.random() * 15:.9f} sec"))
    ns = len(set(x["slice"] for x in job.hosts))
    if ns > 1:
        msg = (f"Megascale transport: established {len(job.hosts) * 2} DCN connections to {ns - 1} remote "
               f"slice(s) in {1 + rng.random() * 2:.2f}s")
    else:
        msg = "Megascale transport: single slice, DCN listener on port 8081, no remote slices"
    log.emit(step(), glog("I", t, tid["main"], "dcn_transport.cc:640", msg))
    if job.first_step == 0:
        log.emit(step(), glog("I", t, py, "checkpoint_manager.py:1087",
                              f"No checkpoint found in {job.ckpt_root}/checkpoints, starting from scratch"))
        t += rng.randint(2 * SEC, 5 * SEC)
        log.emit(step(), glog("I", t, py, "train.py:488", "Initialized parameters from seed 0"))
    else:
        log.emit(step(), glog("I", t, py, "checkpoint_manager.py:1087",
                              f"Restoring checkpoint from {job.ckpt_root}/checkpoints/{job.first_step}"))
        t += rng.randint(5 * SEC, 12 * SEC)
        log.emit(step(), glog("I", t, py, "checkpointer.py:256",
                              f"Finished restoring checkpoint from {job.ckpt_root}/checkpoints/{job.first_step} "
                              f"in {5 + rng.random() * 7:.2f}s"))
    if with_ansi:
        log.emit(step(), f"\x1b[32m\u2713\x1b[0m ready at step {job.first_step} "
                         f"(\x1b[1m{job.n_devices}\x1b[0m devices, {len(job.hosts)} hosts)")
    return t


def step_line(job, h, step, loss, dt):
    tok = 4 * 2048 / dt
    if job.step_fmt == "maxtext":
        return (f"completed step: {step}, seconds: {dt:.3f}, TFLOP/s/device: {tok * 0.0276:.3f}, "
                f"Tokens/s/device: {tok:.3f}, total_weights: {job.n_devices * 4 * 2048}, loss: {loss:.3f}")
    return (f"step {step}, loss={loss:.4f}, grad_norm={0.6 + job.rng.random() * 0.5:.3f}, "
            f"lr={3e-4 * (0.5 + 0.5 * math.cos(step / 40000)):.2e}, step_time={dt:.3f}s, "
            f"tokens/s/device={tok:.1f}")


SPORADIC = [
    ("I", "grpc", "grpc_server.cc:77", "DCN keepalive: {n} peers healthy, max rtt {rtt:.2f}ms"),
    ("I", "coord", "coordination_service_agent.cc:512", "Heartbeat to coordination service ok (seq {seq})"),
    ("W", "py", "pjit.py:1092", "Donated buffers were not usable: ShapedArray(float32[{d}]). See an "
                                "explanation at the jax docs (buffer donation)."),
    ("I", "mem", "host_memory.cc:143", "host RSS {rss:.1f} GiB, pinned {pin:.1f} GiB"),
    ("I", "py", "metric_logger.py:88", "wrote scalars for step {step} to {root}/tensorboard"),
    ("I", "grpc", "dcn_transport.cc:902", "DCN flow control: window {w} KiB, in flight {f} transfers"),
    ("I", "py", "input_pipeline.py:188", "prefetched {f} batches"),
    ("I", "mem", "gc.cc:61", "host allocator: freed {f} MiB"),
    ("I", "coord", "coordination_service_agent.cc:530", "Polled error state: OK"),
    ("W", "py", "tensor_board.py:211", "scalar 'learning/grad_norm' has {f} pending points, flushing"),
]


def tpu_training(job, h, log, last_k, bad_step_k=None, straggle_from=None, tqdm_frames=True):
    """Steps 0..last_k (inclusive) on host h: step lines, continuator VLOG,
    checkpoints, memory stats, sporadic lines from other threads."""
    rng = job.rng
    tid = h["tid"]
    py = h["pytid"]
    t = 0
    for k in range(last_k + 1):
        s = job.step_no(k)
        te = job.ht(h, job.step_end[k]) + rng.randint(-4000, 4000)
        dt = (job.step_end[k] - (job.step_end[k - 1] if k else job.train_t0)) / SEC
        if job.vmodule:
            log.emit(te, glog("I", te, tid["rt"], "real_program_continuator.cc:1187",
                              f"launch_id={job.launch_id(k)} program=jit_train_step completed 4/4 graphs in "
                              f"{dt * 1000 - rng.random() * 20:.1f}ms"))
        t = te + rng.randint(1500, 6000)
        log.emit(t, glog("I", t, py, "train.py:212", step_line(job, h, s, job.loss(s), dt)))
        if s % 50 == 0:
            for c in range(job.tpu[2]):
                tm = t + rng.randint(100, 900) * (c + 1)
                log.emit(tm, glog("I", tm, tid["mem"], "memory_stats.cc:64",
                                  f"TPU_{c} HBM in use {24 + rng.random() * 3:.2f} GiB, peak {27.5 + rng.random():.2f} "
                                  f"GiB, fragmentation {rng.random() * 4:.1f}%"))
        if s % job.ckpt_period == 0 and k > 0:
            c = t + rng.randint(2000, 9000)
            log.emit(c, glog("I", c, py, "checkpoint_manager.py:1365", f"Saving checkpoint for step {s}"))
            c += rng.randint(2000, 20000)
            log.emit(c, glog("I", c, h["pytid2"], "async_checkpointer.py:141",
                             f"[process={h['task']}] Started async save of checkpoint {s} to "
                             f"{job.ckpt_root}/checkpoints/{s}"))
            c += rng.randint(3 * SEC, 9 * SEC)
            for _ in range(rng.randint(2, 4)):
                c += rng.randint(100000, 800000)
                log.emit(c, glog("I", c, tid["ckpt"], "gcs_file_system.cc:1421",
                                 f"Uploaded {job.ckpt_root}/checkpoints/{s}/state/ocdbt.process_{h['task']}/d/"
                                 f"{hexid(rng, 32)} ({rng.randint(80, 700)} MiB)"))
            c += rng.randint(100000, 900000)
            log.emit(c, glog("I", c, h["pytid2"], "async_checkpointer.py:177",
                             f"Finished async save of checkpoint {s} in {(c - t) / SEC:.2f}s"))
        if job.eval_step is not None and k == job.eval_step:
            c = t + rng.randint(5000, 20000)
            log.emit(c, glog("I", c, py, "train.py:388", f"Running eval at step {s}"))
            # tqdm: carriage-return frames in one line, as a tee'd stderr keeps them.
            frames = []
            n = 40
            for i in range(0, n + 1, 4 if tqdm_frames else n):
                pct = i * 100 // n
                bar = ("\u2588" * (pct // 10)).ljust(10)
                el = int(i * 0.3)
                frames.append(f"eval: {pct:3d}%|{bar}| {i}/{n} [00:{el:02d}<00:{int((n - i) * 0.3):02d}, "
                              f"{3.2 + rng.random():.2f}it/s]")
            c += rng.randint(200000, 500000)
            log.emit(c, "\r" + "\r".join(frames))
            c += rng.randint(2000, 9000)
            log.emit(c, glog("I", c, py, "train.py:402",
                             f"eval step {s}: eval_loss={job.loss(s) + 0.05:.4f}, eval_perplexity="
                             f"{math.exp(job.loss(s) + 0.05):.3f}, eval_tokens={40 * 4 * 2048 * job.n_devices}"))
        while rng.random() < job.chatter:
            lvl, th, src, fmt = rng.choice(SPORADIC)
            tx = te + rng.randint(50000, int(dt * SEC * 0.8))
            msg = fmt.format(n=len(job.hosts) - 1, rtt=0.3 + rng.random(), seq=job.heartbeat(h),
                             d=rng.choice([4096, 11008, 32000]), rss=40 + rng.random() * 6,
                             pin=16 + rng.random(), step=s, root=job.ckpt_root,
                             w=rng.choice([4096, 8192, 16384]), f=rng.randint(0, 40))
            tt = py if th == "py" else tid[th]
            log.emit(tx, glog(lvl, tx, tt, src, msg))
            if rng.random() < 0.5:
                break
    return t


def tpu_wait(job, h, log, t_from, t_to, launch, started=True):
    """Lines between the last completed step and the hang report: the program
    was launched, then only other threads speak."""
    rng = job.rng
    tid = h["tid"]
    t = t_from + rng.randint(2000, 9000)
    if job.vmodule and started:
        log.emit(t, glog("I", t, tid["rt"], "real_program_continuator.cc:1142",
                         f"launch_id={launch} program=jit_train_step launched 4 graphs"))
    t += rng.randint(8 * SEC, 12 * SEC)
    while t < t_to - 3 * SEC:
        log.emit(t, glog("I", t, tid["coord"], "coordination_service_agent.cc:512",
                         f"Heartbeat to coordination service ok (seq {job.heartbeat(h)})"))
        if rng.random() < 0.5:
            tx = t + rng.randint(100000, 3 * SEC)
            log.emit(tx, glog("I", tx, tid["grpc"], "grpc_server.cc:77",
                              f"DCN keepalive: {len(job.hosts) - 1} peers healthy, max rtt {0.3 + rng.random():.2f}ms"))
        t += rng.randint(9 * SEC, 11 * SEC)


def hang_msg(n, launch, done):
    return (f"Megascale hang detected: Timed out waiting for {n} graphs to complete at launch_id {launch}. "
            f"Already completed: {done}. StepGloballyInProgress: true. Timeout: 1m")


def traceback_lines(hang_text):
    return [
        "Traceback (most recent call last):",
        '  File "/home/tpu/trainer/train.py", line 655, in <module>',
        "    app.run(main)",
        '  File "/usr/local/lib/python3.11/site-packages/absl/app.py", line 308, in run',
        "    _run_main(main, args)",
        '  File "/usr/local/lib/python3.11/site-packages/absl/app.py", line 254, in _run_main',
        "    sys.exit(main(argv))",
        '  File "/home/tpu/trainer/train.py", line 651, in main',
        "    train_loop(config)",
        '  File "/home/tpu/trainer/train.py", line 577, in train_loop',
        "    record_metrics(metrics, step)",
        '  File "/home/tpu/trainer/train.py", line 219, in record_metrics',
        "    loss = float(jax.device_get(metrics['scalar']['learning/loss']))",
        '  File "/usr/local/lib/python3.11/site-packages/jax/_src/api.py", line 2791, in device_get',
        "    return tree_map(_device_get, x)",
        "jaxlib.xla_extension.XlaRuntimeError: DEADLINE_EXCEEDED: " + hang_text,
    ]


def tpu_env_file(job, host):
    kind, _, chips = job.tpu
    py = "3.11.12 (main, Apr  9 2025, 08:55:54) [GCC 11.4.0]"
    lines = [
        "jax:    0.6.1",
        "jaxlib: 0.6.1",
        "numpy:  2.2.6",
        f"python: {py}",
        f'device info: {kind}-{job.n_devices}, {chips} local devices"',
        f"process_count: {len(job.hosts)}",
        f"platform: uname_result(system='Linux', node='{host['name']}', release='6.8.0-1015-gcp', "
        "version='#17~22.04.1-Ubuntu SMP Tue Sep  3 16:11:52 UTC 2024', machine='x86_64')",
        f"JAX_COORDINATOR_ADDRESS={job.coord_ip}:8476",
        "JAX_PLATFORMS=tpu,cpu",
    ]
    if job.hlo_dump:
        lines.append("XLA_FLAGS=--xla_dump_to=/tmp/xla_dump")
    return "\n".join(lines) + "\n"


def tpu_config_yaml(job):
    ns = len(set(x["slice"] for x in job.hosts))
    return "\n".join([
        "# Training config for the multislice run (synthetic)",
        f"run_name: {job.name}",
        f"model_name: {job.ckpt_root.rsplit('/', 1)[1]}",
        f"base_output_directory: {job.ckpt_root}",
        "dataset_type: tfds",
        "dataset_path: gs://tpu-datasets/c4",
        "per_device_batch_size: 4",
        "max_target_length: 2048",
        f"steps: {job.first_step + job.steps + 500}",
        "learning_rate: 3.0e-4",
        "dtype: bfloat16",
        "remat_policy: full",
        "attention: flash",
        "enable_checkpointing: true",
        "async_checkpointing: true",
        f"checkpoint_period: {job.ckpt_period}",
        "eval_interval: 500",
        "mesh:",
        f"  dcn_data_parallelism: {ns}",
        "  ici_fsdp_parallelism: -1",
        "  ici_tensor_parallelism: 1",
        "megascale:",
        f"  num_slices: {ns}",
        "  hang_detection_timeout: 1m",
        "  grpc_premap_memory_bytes: 17179869184",
        "libtpu_init_args:",
        "  - --xla_tpu_enable_async_collective_fusion=true",
        "  - --xla_tpu_overlap_compute_collective_tc=true",
        "  - --megascale_grpc_premap_memory_bytes=17179869184",
    ]) + "\n"


def write_tpu_common(job, bundle, config="yaml"):
    if config == "yaml":
        write(bundle / "config" / "train_config.yaml", tpu_config_yaml(job))
    else:
        ns = len(set(x["slice"] for x in job.hosts))
        cfg = {"run_name": job.name, "model_name": job.ckpt_root.rsplit("/", 1)[1],
               "base_output_directory": job.ckpt_root, "per_device_batch_size": 4,
               "max_target_length": 2048, "steps": job.first_step + job.steps + 500,
               "learning_rate": 3e-4, "dtype": "bfloat16", "checkpoint_period": job.ckpt_period,
               "dcn_data_parallelism": ns, "ici_fsdp_parallelism": -1, "num_slices": ns,
               "libtpu_init_args": ["--xla_tpu_enable_async_collective_fusion=true",
                                    "--megascale_grpc_premap_memory_bytes=17179869184"]}
        write(bundle / "config" / "run_config.json", json.dumps(cfg, indent=2) + "\n")
    write(bundle / "env" / "jax_env.txt", tpu_env_file(job, job.coord))


def log_path(h):
    return f"logs/{h['name']}/worker.log"


def render_logs(job, bundle, truncate=None):
    """Writes every host log; returns {host: {mark: line}}."""
    out = {}
    for h in job.hosts:
        log = job.logs[h["name"]]
        cut = truncate.get(h["name"]) if truncate else None
        data, marks, n = log.render(truncate_last_at=cut)
        write(bundle / log_path(h), data)
        job.per_host_lines[h["name"]] = n
        out[h["name"]] = marks
    return out


def run_until_hang(job, hang_k, detect_delay, n_graphs, done, skip_hosts=(), bad_utf8_host=None,
                   ansi_hosts=None, tracebacks=False, report_hosts=None):
    """Startup, training up to step hang_k - 1, the silent wait and each
    host's own hang report. Returns {host: time of its hang report}."""
    rng = job.rng
    t_last = job.step_end[hang_k - 1]
    t_detect = t_last + 60 * SEC + detect_delay
    reports = {}
    for h in job.hosts:
        log = job.logs[h["name"]]
        tpu_startup(job, h, log, with_ansi=(ansi_hosts is None or h["name"] in ansi_hosts),
                    bad_utf8=(h["name"] == bad_utf8_host))
        tl = tpu_training(job, h, log, hang_k - 1)
        if h["name"] in skip_hosts:
            continue
        td = job.ht(h, t_detect) + rng.randint(0, 400000)
        tpu_wait(job, h, log, tl, td, job.launch_id(hang_k))
        if report_hosts is None or h["name"] in report_hosts:
            msg = hang_msg(n_graphs, job.launch_id(hang_k), done)
            log.emit(td, glog("E", td, h["tid"]["hang"], "megascale_hang_detector.cc:131", msg),
                     marks={0: "hang_report"})
            reports[h["name"]] = td
            if tracebacks:
                tb = td + rng.randint(3 * SEC, 6 * SEC)
                log.emit(tb, traceback_lines(msg))
    return reports


def digest_lines(log, t, tid, src, lines, rng, style="per_line", level="E", interleave=None, gap=(3, 40)):
    """Writes a coordinator digest. lines: [(text, mark|None)].

    per_line: every line carries its own glog header (logged line by line);
    single: one header, the rest raw continuation lines.
    interleave: callable(t_lo, t_hi) writing other threads' lines between two digest lines.
    """
    if style == "single":
        first = glog(level, t, tid, src, lines[0][0])
        log.emit(t, [first] + [x for x, _ in lines[1:]],
                 marks={i: m for i, (_, m) in enumerate(lines) if m})
        return t
    for i, (text, m) in enumerate(lines):
        log.emit(t, glog(level, t, tid, src, text), marks={0: m} if m else None)
        nt = t + rng.randint(*gap)
        if interleave and i + 1 < len(lines):
            interleave(t, nt)
        t = nt
    return t


def expected(scen_dir, description, findings, inputs=("bundle",)):
    doc = {"description": description, "inputs": list(inputs), "findings": findings}
    write(scen_dir / "expected.json", json.dumps(doc, indent=2, ensure_ascii=False) + "\n")


def ev(marks, host, mark, contains, bundle=None):
    e = {"path": f"logs/{host}/worker.log", "line": marks[host][mark], "contains": contains}
    if bundle:
        e["bundle"] = bundle
    return e


def check_evidence(scen_dir, doc_findings, bundles_root):
    """Self-check: every pinned line holds its 'contains' text."""
    for f in doc_findings:
        for e in f["evidence"]:
            base = bundles_root if "bundle" not in e else scen_dir / e["bundle"]
            data = (base / e["path"]).read_bytes()
            if e["path"].endswith(".gz"):
                # Ingest reads a .gz member gunzipped; its line numbers are the text's.
                data = gzip.decompress(data)
            data = data.split(b"\n")
            line = data[e["line"] - 1].decode("utf-8", "replace")
            assert e["contains"] in line, (scen_dir.name, e, line)


# --------------------------------------------------------------------------------------------
# TPU scenarios


def scenario_hang_bad_chip(d):
    job = TpuJob("hang_bad_chip", 11, us_of(2025, 11, 29, 9, 2, 11), ["8e41c2d0"], 8,
                 ("TPU v4", "v4", 4), steps=620, first_step=12000, launch0=13_010,
                 step_fmt="plain", vmodule=True, eval_step=300)
    hang_k = 560
    h0, bad = job.hosts[0], job.hosts[5]
    reports = run_until_hang(job, hang_k, 210_000, 4, 100, bad_utf8_host=job.hosts[2]["name"],
                             tracebacks=True)
    log0 = job.logs[h0["name"]]
    t = job.ht(h0, reports[h0["name"]] - h0["skew"]) + 2_300_000
    bh = bad["name"]
    lines = [
        ("Megascale detects a hang that is likely caused by bad TPU chips on the following hosts. "
         "Please remove the hosts from the fleet and restart the workload. If problem persists please "
         "contact Megascale XLA team.", "header"),
        (f"  The host that have bad TPUs are: {bh}", "hosts"),
        ("  Full error digest:", None),
        ("    Potential cause: Bad TPU chips", "cause"),
        (f"    Potential culprit workers: jax_worker/{bad['task']}:{bh}", "culprit"),
    ]
    digest_lines(log0, t, h0["tid"]["hang"], "megascale_hang_handler.cc:214", lines, job.rng)
    # The bad host's own runtime saw its chip stop answering before the hang report.
    lb = job.logs[bh]
    tb = job.ht(bad, job.step_end[hang_k - 1]) + 31 * SEC
    lb.emit(tb, glog("W", tb, bad["tid"]["rt"], "tpu_chip.cc:688",
                     "TPU_2: no progress on core 0 for 30s (pc 0x00003a1c, sflag wait)"))
    write_tpu_common(job, d / "bundle")
    # Host w-7 was killed while writing: its last line has no newline.
    marks = render_logs(job, d / "bundle", truncate={job.hosts[7]["name"]: 61})
    f = [{"code": "hang.bad_chip",
          "culprits": [{"host": bh, "task": f"jax_worker/{bad['task']}"}],
          "evidence": [
              ev(marks, h0["name"], "header", "Megascale detects a hang that is likely caused by bad TPU chips"),
              ev(marks, h0["name"], "culprit", f"Potential culprit workers: jax_worker/{bad['task']}:{bh}"),
          ]}]
    expected(d, "McJAX job on 8 TPU v4 hosts hangs; the MXLA coordinator digest names a bad TPU chip on w-5.", f)
    return job, f


def interleaver(job, h, log, texts):
    """Returns a callable that writes lines from other threads of host h between
    two digest lines. Each text is used once; then only metrics and heartbeats."""
    rng = job.rng
    pool = list(texts)
    rng.shuffle(pool)

    def go(lo, hi):
        n = rng.randint(0, 2) if pool else int(rng.random() < 0.12)
        for _ in range(n):
            tt = rng.randint(lo + 1, max(lo + 1, hi - 1))
            if pool:
                th, src, msg = pool.pop()
            else:
                th, src, msg = rng.choice([
                    ("coord", "coordination_service_agent.cc:512",
                     f"Heartbeat to coordination service ok (seq {job.heartbeat(h)})"),
                    ("grpc", "grpc_server.cc:77",
                     f"DCN keepalive: {len(job.hosts) - 1} peers healthy, max rtt {0.3 + rng.random():.2f}ms"),
                    ("py", "metric_logger.py:88", f"flushing metrics to {job.ckpt_root}/tensorboard")])
            tid = h["pytid"] if th == "py" else h["tid"][th]
            log.emit(tt, glog("I", tt, tid, src, msg))
    return go


def other_thread_texts(job, verb="Forwarded hang digest to"):
    """Lines of the coordinator's gRPC thread while the digest is being logged."""
    return [("grpc", "megascale_coordinator.cc:412", f"{verb} jax_worker/{x['task']} ({x['name']})")
            for x in job.hosts[1:]]


def received_reports(job, h0, log0, t):
    """The coordinator's gRPC thread logs each worker's hang report before the digest."""
    for x in job.hosts[1:]:
        tt = t - job.rng.randint(100_000, 1_500_000)
        log0.emit(tt, glog("I", tt, h0["tid"]["grpc"], "megascale_coordinator.cc:388",
                           f"Received hang report from jax_worker/{x['task']} ({x['name']})"))


def shutdown(job, t_global, hosts=None, reason="SIGTERM received from the job scheduler, shutting down"):
    """Every live host gets the scheduler's SIGTERM some seconds after the hang."""
    for x in job.hosts:
        if hosts is not None and x["name"] not in hosts:
            continue
        tx = job.ht(x, t_global) + job.rng.randint(0, 2 * SEC)
        job.logs[x["name"]].emit(tx, glog("W", tx, x["pytid"], "train.py:630", reason))


def scenario_hang_network(d):
    job = TpuJob("hang_network", 22, us_of(2025, 12, 3, 14, 10, 47), ["5b0e7a13", "c27f90d4"], 4,
                 ("TPU v4", "v4", 4), steps=820, first_step=48200, launch0=96_412,
                 step_fmt="maxtext", vmodule=False, eval_step=400, chatter=0.62)
    hang_k = 770
    h0 = job.hosts[0]
    a = job.hosts[5]  # slice 1 w-1: in both broken links
    b = job.hosts[2]  # slice 0 w-2
    c = job.hosts[3]  # slice 0 w-3
    reports = run_until_hang(job, hang_k, 120_000, 4, 100, bad_utf8_host=job.hosts[6]["name"],
                             ansi_hosts={x["name"] for x in job.hosts[:4]})
    log0 = job.logs[h0["name"]]
    texts = other_thread_texts(job)
    t = reports[h0["name"]] + 1_800_000
    rng = job.rng
    received_reports(job, h0, log0, t)

    def digest(t, p, q, tag):
        lines = [
            ("Megascale detects a hang that is likely caused by a networking issue. Please examine the "
             "underlying networking stack for the following hosts.", f"header{tag}"),
            (f"    The hosts are: {p['name']}, {q['name']}", f"hosts{tag}"),
            ("    Full error digest:", None),
            ("      Potential cause: Networking issue", f"cause{tag}"),
            (f"      Potential culprit workers: {p['name']}, {q['name']}", f"culprit{tag}"),
        ]
        return digest_lines(log0, t, h0["tid"]["hang"], "megascale_hang_handler.cc:231", lines, rng,
                            interleave=interleaver(job, h0, log0, texts if tag == "1" else []), gap=(400, 2500))

    t = digest(t, a, b, "1")
    # The job keeps waiting; the next detection round names another link of the same host.
    t2 = t + 61 * SEC + rng.randint(0, 500_000)
    for x in job.hosts:
        lg = job.logs[x["name"]]
        tx = job.ht(x, t2 - h0["skew"]) - 2 * SEC + rng.randint(0, 300_000)
        tpu_wait(job, x, lg, job.ht(x, t - h0["skew"]), tx, job.launch_id(hang_k), started=False)
        lg.emit(tx, glog("E", tx, x["tid"]["hang"], "megascale_hang_detector.cc:131",
                         hang_msg(4, job.launch_id(hang_k), 100)))
        tx += rng.randint(SEC, 4 * SEC)
        lg.emit(tx, glog("I", tx, x["tid"]["coord"], "coordination_service_agent.cc:512",
                         f"Heartbeat to coordination service ok (seq {job.heartbeat(x)})"))
    digest(t2, c, a, "2")
    shutdown(job, t2 - h0["skew"] + rng.randint(20 * SEC, 40 * SEC))
    write_tpu_common(job, d / "bundle")
    marks = render_logs(job, d / "bundle")
    f = [{"code": "hang.network",
          "culprits": [{"host": a["name"]}, {"host": b["name"]}, {"host": c["name"]}],
          "evidence": [
              ev(marks, h0["name"], "header1", "Megascale detects a hang that is likely caused by a networking issue"),
              ev(marks, h0["name"], "culprit1", f"Potential culprit workers: {a['name']}, {b['name']}"),
              ev(marks, h0["name"], "culprit2", f"Potential culprit workers: {c['name']}, {a['name']}"),
          ]}]
    expected(d, "Two-slice McJAX job (8 TPU v4 hosts) hangs; two coordinator digests name broken links "
                "that share one host.", f)
    return job, f


def scenario_hang_different_module(d):
    job = TpuJob("hang_different_module", 33, us_of(2025, 10, 17, 22, 40, 5), ["a90c6e15", "d4b21f88"], 2,
                 ("TPU v4", "v4", 4), steps=760, first_step=3000, launch0=187,
                 step_fmt="plain", vmodule=True, eval_step=520)
    hang_k = 700
    h0 = job.hosts[0]
    odd = job.hosts[3]
    reports = run_until_hang(job, hang_k, 330_000, 4, 100, bad_utf8_host=job.hosts[1]["name"])
    log0 = job.logs[h0["name"]]
    rng = job.rng
    t = reports[h0["name"]] + 2_900_000
    pcs = {x["name"]: rng.randint(0x1000, 0x4fff) for x in job.hosts}
    lines = [
        ("Megascale detects a hang that is likely caused by running different modules on different devices. "
         "Please confirm that all workers is running the exact same program. It can also be caused by a hang "
         "in a subset of devices and the unaffected devices have moved on to the next program. Please inspect "
         "the digest below to further root cause the hang.", "header"),
        (f"Example hosts that have different HLO modules: {odd['name']}", "hosts"),
        ("Full error digest:", None),
        ("  Potential cause: Different module", "cause"),
        (f"  Potential culprit workers: {odd['name']}", "culprit"),
        ("  TPU stats:", None),
    ]
    for x in job.hosts:
        lines.append((f"    {x['name']}: 0x{pcs[x['name']]:08x}", None))
    lines.append(("  TPU states:", None))
    fp1, fp2 = hexid(rng, 16), hexid(rng, 16)
    lines += [("    Module: jit_loss_and_grad", None), (f"    Fingerprint: {fp1}", None),
              ("    Launch ID: 193", None)]
    for x in job.hosts:
        if x is not odd:
            lines.append((f"      tc0:0x{pcs[x['name']]:x}(fusion.{rng.randint(100, 400)}): {x['name']}", None))
    lines += [("    Module: jit_optimizer_apply", None), (f"    Fingerprint: {fp2}", None),
              ("    Launch ID: 0", None),
              (f"      tc0:0x{pcs[odd['name']]:x}(all-reduce-start.7): {odd['name']}", None)]
    received_reports(job, h0, log0, t)
    texts = other_thread_texts(job)
    digest_lines(log0, t, h0["tid"]["hang"], "megascale_hang_handler.cc:214", lines, rng,
                 interleave=interleaver(job, h0, log0, texts), gap=(200, 1800))
    shutdown(job, t - h0["skew"] + rng.randint(15 * SEC, 30 * SEC))
    write_tpu_common(job, d / "bundle", config="json")
    marks = render_logs(job, d / "bundle")
    f = [{"code": "hang.different_module",
          "culprits": [{"host": odd["name"]}],
          "evidence": [
              ev(marks, h0["name"], "header", "Megascale detects a hang that is likely caused by running different modules"),
              ev(marks, h0["name"], "culprit", f"Potential culprit workers: {odd['name']}"),
          ]}]
    expected(d, "Two-slice McJAX job (4 TPU v4 hosts) hangs; the digest shows one host on a different HLO module.", f)
    return job, f


HLO_TEMPLATE = """HloModule jit_train_step, entry_computation_layout={{(bf16[4096,32000]{{1,0}}, f32[4096]{{0}}, s32[{batch},2048]{{1,0}})->(bf16[4096,32000]{{1,0}}, f32[])}}, allow_spmd_sharding_propagation_to_output={{true}}, num_partitions={parts}

%region_0.12 (Arg_0.13: f32[], Arg_1.14: f32[]) -> f32[] {{
  %Arg_0.13 = f32[] parameter(0)
  %Arg_1.14 = f32[] parameter(1)
  ROOT %add.15 = f32[] add(f32[] %Arg_0.13, f32[] %Arg_1.14)
}}

%region_1.27 (Arg_0.28: f32[], Arg_1.29: f32[]) -> f32[] {{
  %Arg_0.28 = f32[] parameter(0)
  %Arg_1.29 = f32[] parameter(1)
  ROOT %{combiner} = f32[] {combiner_op}(f32[] %Arg_0.28, f32[] %Arg_1.29)
}}

ENTRY %main.40 (Arg_0.1: bf16[4096,32000], Arg_1.2: f32[4096], Arg_2.3: s32[{batch},2048]) -> (bf16[4096,32000], f32[]) {{
  %Arg_0.1 = bf16[4096,32000]{{1,0}} parameter(0), sharding={{devices=[{parts},1]<=[{parts}]}}
  %Arg_1.2 = f32[4096]{{0}} parameter(1), sharding={{replicated}}
  %Arg_2.3 = s32[{batch},2048]{{1,0}} parameter(2), sharding={{devices=[{parts},1]<=[{parts}]}}
  %convert.4 = f32[4096,32000]{{1,0}} convert(bf16[4096,32000]{{1,0}} %Arg_0.1)
  %broadcast.5 = f32[4096,32000]{{1,0}} broadcast(f32[4096]{{0}} %Arg_1.2), dimensions={{0}}
  %multiply.6 = f32[4096,32000]{{1,0}} multiply(f32[4096,32000]{{1,0}} %convert.4, f32[4096,32000]{{1,0}} %broadcast.5), metadata={{op_name="jit(train_step)/jvp(mul)" source_file="/home/tpu/trainer/layers.py" source_line={line}}}
  %constant.7 = f32[] constant(0)
  %reduce.31 = f32[] reduce(f32[4096,32000]{{1,0}} %multiply.6, f32[] %constant.7), dimensions={{0,1}}, to_apply=%region_0.12, metadata={{op_name="jit(train_step)/reduce_sum" source_file="/home/tpu/trainer/train.py" source_line=147}}
  %all-reduce.32 = f32[] all-reduce(f32[] %reduce.31), channel_id=1, replica_groups=[1,{parts}]<=[{parts}], use_global_device_ids=true, to_apply=%region_1.27
  %constant.33 = f32[] constant({scale})
  %multiply.34 = f32[] multiply(f32[] %all-reduce.32, f32[] %constant.33)
  %convert.35 = bf16[4096,32000]{{1,0}} convert(f32[4096,32000]{{1,0}} %multiply.6)
  ROOT %tuple.39 = (bf16[4096,32000]{{1,0}}, f32[]) tuple(bf16[4096,32000]{{1,0}} %convert.35, f32[] %multiply.34)
}}

"""


def scenario_hang_fingerprint_mismatch(d):
    job = TpuJob("hang_fingerprint_mismatch", 44, us_of(2025, 1, 8, 3, 15, 40), ["6f31d0a2", "0b8e44c7", "e5a7129f"], 2,
                 ("TPU v4", "v4", 4), steps=820, first_step=200, launch0=11,
                 step_fmt="maxtext", vmodule=False, hlo_dump=True, eval_step=610, ckpt_period=100, chatter=0.6)
    hang_k = 780
    h0 = job.hosts[0]
    odd = job.hosts[4]
    reports = run_until_hang(job, hang_k, 80_000, 4, 100, bad_utf8_host=job.hosts[3]["name"])
    log0 = job.logs[h0["name"]]
    rng = job.rng
    t = reports[h0["name"]] + 1_400_000
    fp1, fp2 = hexid(rng, 16), hexid(rng, 16)
    others = [x["name"] for x in job.hosts if x is not odd]
    lines = [
        ("Megascale detects a hang that is likely caused by inconsistent HLO module compilation across workers. "
         "This is likely a bug in JAX tracing or XLA compiler. Please inspect the HLO dumps to confirm the root "
         "cause.", "header"),
        (f"  Example hosts that have different HLO fingerprints: {odd['name']}", "hosts"),
        ("  Full error digest:", None),
        ("    Potential cause: Fingerprint mismatch", "cause"),
        (f"  Potential culprit workers: {odd['name']}", "culprit"),
        ("  TPU stats:", None),
        ("    Module: reduce.31", None),
        (f"    Fingerprint: {fp1}", None),
        ("    Launch ID: 37", None),
        (f"      tc0:0x1a40(reduce.31): {', '.join(others)}", None),
        ("    Module: reduce.31", None),
        (f"    Fingerprint: {fp2}", None),
        ("    Launch ID: 40", None),
        (f"      tc0:0x1a58(reduce.31): {odd['name']}", None),
    ]
    digest_lines(log0, t, h0["tid"]["hang"], "megascale_hang_handler.cc:214", lines, rng, gap=(2, 25))
    shutdown(job, t - h0["skew"] + rng.randint(15 * SEC, 30 * SEC))
    b = d / "bundle"
    write_tpu_common(job, b)
    write(b / "xla_dump" / h0["name"] / "module_0001.jit_train_step.before_optimizations.txt",
          HLO_TEMPLATE.format(combiner="add.30", combiner_op="add", line=88, scale="0.000244140625",
                              parts=job.n_devices, batch=job.n_devices * 4))
    write(b / "xla_dump" / odd["name"] / "module_0001.jit_train_step.before_optimizations.txt",
          HLO_TEMPLATE.format(combiner="maximum.30", combiner_op="maximum", line=91, scale="0.000244140625",
                              parts=job.n_devices, batch=job.n_devices * 4))
    marks = render_logs(job, b)
    f = [{"code": "hang.fingerprint_mismatch",
          "culprits": [{"host": odd["name"]}],
          "evidence": [
              ev(marks, h0["name"], "header", "likely caused by inconsistent HLO module compilation across workers"),
              ev(marks, h0["name"], "culprit", f"Potential culprit workers: {odd['name']}"),
          ]}]
    expected(d, "Three-slice McJAX job (6 TPU v4 hosts) hangs; the digest reports an HLO fingerprint mismatch "
                "on one host, whose HLO dump differs.", f)
    return job, f


def scenario_hang_input_stall(d):
    job = TpuJob("hang_input_stall", 55, us_of(2025, 3, 21, 11, 0, 3), ["71c9ab30"], 4,
                 ("TPU v5 lite", "v5e", 4), steps=940, first_step=800, launch0=2_204,
                 step_fmt="plain", vmodule=False, eval_step=700, chatter=0.55)
    hang_k = 880
    h0 = job.hosts[0]
    slow = job.hosts[2]
    rng = job.rng
    # The stalled host's input pipeline slows down before the hang, and the job with it.
    job.slow_down(hang_k - 60, 2_500)
    ls = job.logs[slow["name"]]
    for i, k in enumerate(range(hang_k - 60, hang_k, 6)):
        tt = job.ht(slow, job.step_end[k]) + rng.randint(20_000, 200_000)
        ls.emit(tt, glog("W", tt, slow["pytid2"], "input_pipeline.py:233",
                         f"prefetch buffer empty: waited {0.4 + i * 0.9 + rng.random() * 0.3:.2f}s for the next "
                         f"batch (gs://tpu-datasets/c4 read throughput {max(1.0, 48 - i * 5.1):.1f} MiB/s)"))
    reports = run_until_hang(job, hang_k, 420_000, 4, 100, bad_utf8_host=job.hosts[3]["name"])
    log0 = job.logs[h0["name"]]
    t = reports[h0["name"]] + 2_100_000
    lines = [
        ("Megascale detects a hang that is likely caused by data input stall on the", "header"),
        ("following hosts. Please check the workers to make sure the data input pipeline", None),
        ("is working properly.", None),
        (f"  The host that have data input stalls are: {slow['name']}", "hosts"),
    ]
    digest_lines(log0, t, h0["tid"]["hang"], "megascale_hang_handler.cc:276", lines, rng, style="single")
    shutdown(job, t - h0["skew"] + rng.randint(10 * SEC, 20 * SEC))
    write_tpu_common(job, d / "bundle")
    marks = render_logs(job, d / "bundle")
    f = [{"code": "hang.input_stall",
          "culprits": [{"host": slow["name"]}],
          "evidence": [
              ev(marks, h0["name"], "header", "Megascale detects a hang that is likely caused by data input stall"),
              ev(marks, h0["name"], "hosts", f"The host that have data input stalls are: {slow['name']}"),
          ]}]
    expected(d, "Single-slice McJAX job (4 TPU v5e hosts) hangs; the digest, printed once with raw "
                "continuation lines, names a host with a data input stall.", f)
    return job, f


def scenario_hang_unrecoverable(d):
    job = TpuJob("hang_unrecoverable", 66, us_of(2025, 7, 14, 23, 48, 30), ["3d5f0e96", "9a1c27b4"], 4,
                 ("TPU v4", "v4", 4), steps=640, first_step=20400, launch0=40_940,
                 step_fmt="maxtext", vmodule=True, eval_step=410, chatter=0.4)
    hang_k = 585  # runs past midnight: glog times wrap from 23:59 to 00:0x
    h0 = job.hosts[0]
    dma, chk = job.hosts[3], job.hosts[6]
    rng = job.rng
    reports = run_until_hang(job, hang_k, 150_000, 4, 100, skip_hosts=(dma["name"], chk["name"]),
                             bad_utf8_host=job.hosts[1]["name"])
    t_last = job.step_end[hang_k - 1]
    # The two halted workers: their own last words.
    ld = job.logs[dma["name"]]
    td = job.ht(dma, t_last) + rng.randint(300_000, 900_000)
    dma_err = ("INTERNAL: TPU to host DMA failed on TPU_1 (chip 1, core 0): transfer of 33554432 bytes "
               "completed with error status 0x0000000b on DMA engine 3")
    ld.emit(td, glog("E", td, dma["tid"]["rt"], "tpu_dma.cc:402", dma_err))
    td += rng.randint(1000, 9000)
    ld.emit(td, glog("E", td, dma["tid"]["rt"], "real_program_continuator.cc:655",
                     f"launch_id={job.launch_id(hang_k)} program=jit_train_step halted: {dma_err}"))
    td += rng.randint(SEC, 3 * SEC)
    ld.emit(td, glog("I", td, dma["tid"]["coord"], "coordination_service_agent.cc:512",
                     "Reporting error to coordination service: worker halted"))
    lc = job.logs[chk["name"]]
    tc = job.ht(chk, t_last) + rng.randint(1_000_000, 2_000_000)
    chk_err = (f"Check failed: launch_id == expected_launch_id ({job.launch_id(hang_k) + 1} vs. "
               f"{job.launch_id(hang_k)}) program state out of order")
    lc.emit(tc, [glog("F", tc, chk["tid"]["rt"], "real_program_continuator.cc:412", chk_err),
                 "*** Check failure stack trace: ***",
                 "    @     0x7f3a9c2e41a4  (unknown)",
                 "    @     0x7f3a9c2e3c6b  (unknown)",
                 "    @     0x7f3a9b61d0e9  (unknown)",
                 "    @     0x7f3a9b5f72c2  (unknown)",
                 "    @     0x7f3a9e294ac3  start_thread",
                 "https://symbolize.stripped_domain/r/?trace=7f3a9c2e41a4,7f3a9c2e3c6b,7f3a9b61d0e9&map=",
                 "*** SIGABRT received by PID " + str(chk["pid"]) + " (TID " + str(chk["tid"]["rt"])
                 + ") on cpu 41 from PID " + str(chk["pid"]) + "; stack trace: ***",
                 "PC: @     0x7f3a9e2969fc  (unknown)  pthread_kill",
                 "    @     0x7f3a9c3011e7       1904  (unknown)",
                 "    @     0x7f3a9e242520  (unknown)  (unknown)",
                 "    @     0x7f3a9e1c5e13  (unknown)  abort"])
    lc.emit(tc + 1, "Fatal Python error: Aborted")
    t = reports[h0["name"]] + 1_600_000
    rw = [(dma, f"jax_worker/{dma['task']}:{dma['name']}", dma_err),
          (chk, f"jax_worker/{chk['task']}:{chk['name']}", chk_err)]
    lines = [("Some workers have halted with an unrecoverable error:", "header")]
    for x, wname, err in rw:
        lines.append((f"  {wname} : {err}", f"err_{x['widx']}_{x['slice']}"))
    lines.append(("  Please inspect the error log of these workers:", None))
    for x, _, _ in rw:
        lines.append((f"  {x['name']}", None))
    log0 = job.logs[h0["name"]]
    digest_lines(log0, t, h0["tid"]["hang"], "megascale_hang_handler.cc:305", lines, rng)
    shutdown(job, t - h0["skew"] + rng.randint(15 * SEC, 30 * SEC), hosts=set(reports))
    write_tpu_common(job, d / "bundle")
    # The aborted worker's log ends mid-line.
    marks = render_logs(job, d / "bundle", truncate={chk["name"]: 17})
    f = [{"code": "hang.unrecoverable",
          "culprits": [{"host": dma["name"], "task": f"jax_worker/{dma['task']}"},
                       {"host": chk["name"], "task": f"jax_worker/{chk['task']}"}],
          "evidence": [
              ev(marks, h0["name"], "header", "Some workers have halted with an unrecoverable error:"),
              ev(marks, h0["name"], f"err_{dma['widx']}_{dma['slice']}", f"jax_worker/{dma['task']}:{dma['name']} : INTERNAL: TPU to host DMA failed"),
              ev(marks, h0["name"], f"err_{chk['widx']}_{chk['slice']}", f"jax_worker/{chk['task']}:{chk['name']} : Check failed:"),
          ]}]
    expected(d, "Two-slice McJAX job (8 TPU v4 hosts) hangs after two workers halt, one on a TPU-to-host DMA "
                "failure and one on a check failure.", f)
    return job, f


def scenario_hang_unknown(d):
    job = TpuJob("hang_unknown", 77, us_of(2025, 5, 6, 13, 20, 9), ["4c8d19e2"], 4,
                 ("TPU v5 lite", "v5e", 4), steps=720, first_step=1500, launch0=5_118,
                 step_fmt="plain", vmodule=True, eval_step=600)
    hang_k = 660
    h0 = job.hosts[0]
    rng = job.rng
    reports = run_until_hang(job, hang_k, 260_000, 4, 100, bad_utf8_host=job.hosts[2]["name"], tracebacks=True)
    log0 = job.logs[h0["name"]]
    t = reports[h0["name"]] + 2_600_000
    fp = hexid(rng, 16)
    lines = [
        ("Megascale detects a hang but cannot determine the root cause. Please inspect the", "header"),
        ("full digest below.", None),
        ("  Full error digest:", None),
        ("    TPU stats:", None),
    ]
    for x in job.hosts:
        lines.append((f"      {x['name']}: 0x{rng.randint(0x2000, 0x2fff):08x}", None))
    lines += [("    TPU states:", None), ("      Module: jit_train_step", None),
              (f"      Fingerprint: {fp}", None), (f"      Launch ID: {job.launch_id(hang_k)}", None)]
    for x in job.hosts:
        lines.append((f"        sc{rng.randint(0, 1)}:0x{rng.randint(0x400, 0x4ff):x}(all-gather-start.{rng.randint(2, 9)}): "
                      f"{x['name']}", None))
    digest_lines(log0, t, h0["tid"]["hang"], "megascale_hang_handler.cc:342", lines, rng)
    write_tpu_common(job, d / "bundle")
    marks = render_logs(job, d / "bundle")
    f = [{"code": "hang.unknown",
          "culprits": [],
          "evidence": [ev(marks, h0["name"], "header", "Megascale detects a hang but cannot determine the root cause")]}]
    expected(d, "Single-slice McJAX job (4 TPU v5e hosts) hangs; the coordinator cannot determine the root cause.", f)
    return job, f


def scenario_hang_straggler(d):
    job = TpuJob("hang_straggler", 88, us_of(2025, 8, 5, 7, 20, 52), ["e07b3c55", "21f4a9d6", "8c60b1e3"], 2,
                 ("TPU v4", "v4", 4), steps=680, first_step=9100, launch0=27_301,
                 step_fmt="maxtext", vmodule=True, eval_step=250)
    hang_k = 620
    late = job.hosts[4]
    rng = job.rng
    # The whole job slows as one host falls behind (synchronous steps).
    job.slow_down(hang_k - 25, 9_000)
    run_until_hang(job, hang_k, 190_000, 4, 100, skip_hosts=(late["name"],),
                             bad_utf8_host=job.hosts[1]["name"])
    # The straggler completed one launch fewer and reports an older launch id.
    ll = job.logs[late["name"]]
    t_last = job.step_end[hang_k - 1]
    tw = job.ht(late, job.step_end[hang_k - 2]) + rng.randint(5_000, 30_000)
    tr = tw + 60 * SEC + rng.randint(0, 300_000)
    tpu_wait(job, late, ll, tw, tr, job.launch_id(hang_k - 1), started=True)
    ll.emit(tr, glog("E", tr, late["tid"]["hang"], "megascale_hang_detector.cc:131",
                     hang_msg(4, job.launch_id(hang_k - 1), 97)), marks={0: "hang_report"})
    # The straggler's own last step line is missing: drop it from its log.
    ll.events = [e for e in ll.events
                 if not (b"train.py:212]" in e[2][0] and f"step: {job.step_no(hang_k - 1)},".encode() in e[2][0])
                 and not (b"real_program_continuator.cc:1187]" in e[2][0]
                          and f"launch_id={job.launch_id(hang_k - 1)} ".encode() in e[2][0])]
    shutdown(job, t_last + 90 * SEC)
    write_tpu_common(job, d / "bundle")
    marks = render_logs(job, d / "bundle")
    h0 = job.hosts[0]
    f = [{"code": "hang.straggler",
          "culprits": [{"host": late["name"]}],
          "evidence": [
              ev(marks, late["name"], "hang_report",
                 f"at launch_id {job.launch_id(hang_k - 1)}. Already completed: 97."),
              ev(marks, h0["name"], "hang_report",
                 f"at launch_id {job.launch_id(hang_k)}. Already completed: 100."),
          ]}]
    expected(d, "Three-slice McJAX job (6 TPU v4 hosts) hangs without a coordinator digest; one host reports "
                "an older launch id with fewer completed graphs.", f)
    return job, f


def finish_training(job, h, log, last):
    """Training to the last step, then the final checkpoint and a clean shutdown."""
    rng = job.rng
    t = tpu_training(job, h, log, last)
    s = job.step_no(last)
    t += rng.randint(SEC, 3 * SEC)
    log.emit(t, glog("I", t, h["pytid"], "checkpoint_manager.py:1365", f"Saving checkpoint for step {s}"))
    t += rng.randint(8 * SEC, 15 * SEC)
    log.emit(t, glog("I", t, h["pytid2"], "async_checkpointer.py:177",
                     f"Finished async save of checkpoint {s} in {7 + rng.random() * 6:.2f}s"))
    t += rng.randint(100_000, 400_000)
    log.emit(t, glog("I", t, h["pytid"], "train.py:640",
                     f"Training finished: {job.steps} steps, final loss {job.loss(s):.3f}"))
    t += rng.randint(100_000, 900_000)
    log.emit(t, glog("I", t, h["tid"]["main"], "megascale_hang_detector.cc:92",
                     "Megascale hang detection stopped (no hang detected, 0 timeouts)"))
    t += rng.randint(10_000, 90_000)
    log.emit(t, glog("I", t, h["tid"]["main"], "dcn_transport.cc:1204",
                     "Megascale transport shut down; released 16.00 GiB premapped host memory"))
    t += rng.randint(10_000, 90_000)
    log.emit(t, glog("I", t, h["tid"]["coord"], "coordination_service_agent.cc:640",
                     "Coordination agent has successfully shut down."))
    log.emit(t + 5000, "+ exit 0")


def scenario_healthy_tpu(d):
    job = TpuJob("healthy_tpu", 99, us_of(2025, 9, 9, 16, 0, 31), ["b6e2d407", "5f93c18a"], 2,
                 ("TPU v4", "v4", 4), steps=880, first_step=0, launch0=4,
                 step_fmt="maxtext", vmodule=False, eval_step=500, chatter=0.6)
    rng = job.rng
    last = job.steps - 1
    for h in job.hosts:
        log = job.logs[h["name"]]
        tpu_startup(job, h, log, bad_utf8=(h is job.hosts[3]))
        finish_training(job, h, log, last)
    write_tpu_common(job, d / "bundle")
    render_logs(job, d / "bundle")
    expected(d, "Two-slice McJAX job (4 TPU v4 hosts) trains to completion with Megascale hang detection on; "
                "nothing must fire.", [])
    return job, []


# --------------------------------------------------------------------------------------------
# GPU: torchrun, 2 nodes x 4 GPUs


class GpuNode:
    def __init__(self, name, node_rank, rng, ip):
        self.name = name
        self.node_rank = node_rank
        self.ip = ip
        self.agent_pid = rng.randint(2_000_000, 2_100_000)
        self.pids = [self.agent_pid + 29 + i * 3 for i in range(4)]
        self.log = HostLog()


def gpu_prefixes(local, grank):
    return f"[default{local}]:", f"[rank{grank}]:"


def nccl_init(node, local, grank, t, rng, world, comm_id):
    """NCCL_DEBUG=INFO init of one rank; returns its lines (without the tee prefix)."""
    pid = node.pids[local]
    tid_main = pid
    tid_b = pid + 41 + local
    h = node.name

    def info(tid, msg):
        return f"{h}:{pid}:{tid} [{local}] NCCL INFO {msg}"

    out = []
    comm = f"0x{rng.randint(0x55d000000000, 0x55dfffffffff):x}"
    if grank == 0:
        out.append("NCCL version 2.21.5+cuda12.4")
    out.append(info(tid_main, "cudaDriverVersion 12040"))
    out.append(info(tid_main, "NCCL_SOCKET_IFNAME set by environment to bond0"))
    out.append(info(tid_main, f"Bootstrap : Using bond0:{node.ip}<0>"))
    # Harmless: the optional net plugin is absent; WARN lines start with an empty line.
    out.append("")
    out.append(f"{h}:{pid}:{tid_main} [{local}] net.cc:98 NCCL WARN NET/Plugin: could not load "
               f"libnccl-net.so (no such file), continuing with the internal network implementation")
    out.append(info(tid_main, "NET/Plugin : No plugin found (libnccl-net.so), using internal implementation"))
    out.append(info(tid_main, "NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [2]mlx5_2:1/IB [3]mlx5_3:1/IB [RO]; "
                              f"OOB bond0:{node.ip}<0>"))
    out.append(info(tid_main, "Using network IB"))
    out.append(info(tid_main, f"ncclCommInitRank comm {comm} rank {grank} "
                              f"nranks {world} cudaDev {local} nvmlDev {local} busId {['18000', '2a000', '3a000', '5d000'][local]} "
                              f"commId 0x{comm_id} - Init START"))
    out.append(info(tid_main, "Setting affinity for GPU %d to ffffffff,00000000,ffffffff" % local))
    out.append(info(tid_main, f"comm {comm} rank {grank} nRanks {world} "
                              f"nNodes 2 localRanks 4 localRank {local} MNNVL 0"))
    down = f"{grank + 1}" if local < 3 else "-1"
    out.append(info(tid_main, f"Trees [0] {down}/-1/-1->{grank}->{grank - 1 if local else -1} "
                              f"[1] {down}/-1/-1->{grank}->{grank - 1 if local else -1}"))
    out.append(info(tid_main, "P2P Chunksize set to 524288"))
    if grank == 0:
        out.append(info(tid_main, "Channel 00/02 :    0   1   2   3   4   5   6   7"))
        out.append(info(tid_main, "Channel 01/02 :    0   1   2   3   4   5   6   7"))
    for ch in range(2):
        if local < 3:
            out.append(info(tid_b, f"Channel {ch:02d}/0 : {grank}[{local}] -> {grank + 1}[{local + 1}] via P2P/IPC/read"))
        else:
            peer = (grank + 1) % world
            out.append(info(tid_b, f"Channel {ch:02d}/0 : {grank}[{local}] -> {peer}[0] [send] via NET/IB/{ch}/GDRDMA"))
        if local == 0:
            prev = (grank - 1) % world
            out.append(info(tid_b, f"Channel {ch:02d}/0 : {prev}[3] -> {grank}[0] [receive] via NET/IB/{ch}/GDRDMA"))
    out.append(info(tid_main, "Connected all rings, use ring PXN 0 GDR 1"))
    for ch in range(2):
        if local > 0:
            out.append(info(tid_b, f"Channel {ch:02d}/0 : {grank}[{local}] -> {grank - 1}[{local - 1}] via P2P/IPC/read"))
    out.append(info(tid_main, "Connected all trees"))
    out.append(info(tid_main, "threadThresholds 8/8/64 | 64/8/64 | 512 | 512"))
    out.append(info(tid_main, "2 coll channels, 2 collnet channels, 0 nvls channels, 2 p2p channels, 2 p2p channels per peer"))
    out.append(info(tid_main, "TUNER/Plugin: Plugin load returned 2 : libnccl-tuner.so: cannot open shared object file: "
                              "No such file or directory"))
    out.append(info(tid_main, "TUNER/Plugin: Using internal tuner plugin."))
    out.append(info(tid_main, f"ncclCommInitRank comm {comm} rank {grank} nranks {world} "
                              f"cudaDev {local} nvmlDev {local} busId {['18000', '2a000', '3a000', '5d000'][local]} "
                              f"commId 0x{comm_id} - Init COMPLETE"))
    out.append(info(tid_main, f"Init timings: rank {grank} nranks {world} total {0.6 + rng.random():.2f} "
                              f"(kernels {0.2 + rng.random() * 0.2:.2f}, bootstrap {0.1 + rng.random() * 0.2:.2f}, "
                              f"allgathers 0.01, topo {0.05 + rng.random() * 0.1:.2f}, graphs 0.01, connections "
                              f"{0.1 + rng.random() * 0.2:.2f}, rest 0.00)"))
    return out


DS_ENGINE_KEYS = [
    ("activation_checkpointing_config", '{"partition_activations": false, "contiguous_memory_optimization": false}'),
    ("amp_enabled", "False"), ("amp_params", "False"), ("bfloat16_enabled", "False"),
    ("checkpoint_parallel_write_pipeline", "False"), ("checkpoint_tag_validation_enabled", "True"),
    ("communication_data_type", "None"), ("curriculum_enabled_legacy", "False"),
    ("data_efficiency_enabled", "False"), ("disable_allgather", "False"), ("dump_state", "False"),
    ("dynamic_loss_scale_args", "{'init_scale': 65536, 'scale_window': 1000, 'delayed_shift': 2, "
                                "'consecutive_hysteresis': False, 'min_scale': 1}"),
    ("eigenvalue_enabled", "False"), ("elasticity_enabled", "False"), ("fp16_auto_cast", "False"),
    ("fp16_enabled", "True"), ("global_rank", "0"), ("grad_accum_dtype", "None"),
    ("gradient_accumulation_steps", "4"), ("gradient_clipping", "1.0"),
    ("gradient_predivide_factor", "1.0"), ("initial_dynamic_scale", "65536"), ("load_universal_checkpoint", "False"),
    ("loss_scale", "0"), ("memory_breakdown", "False"), ("optimizer_legacy_fusion", "False"),
    ("optimizer_name", "adamw"), ("optimizer_params", "{'lr': 2e-05, 'betas': [0.9, 0.999], 'eps': 1e-08, 'weight_decay': 0.0}"),
    ("pipeline", "{'stages': 'auto', 'partition': 'best', 'seed_layers': False, 'activation_checkpoint_interval': 0}"),
    ("prescale_gradients", "False"), ("scheduler_name", "WarmupDecayLR"),
    ("scheduler_params", "{'warmup_min_lr': 0, 'warmup_max_lr': 2e-05, 'warmup_num_steps': 60, 'total_num_steps': 1200}"),
    ("seq_parallel_communication_data_type", "torch.float32"), ("sparse_attention", "None"),
    ("sparse_gradients_enabled", "False"), ("steps_per_print", "10"), ("train_batch_size", "128"),
    ("train_micro_batch_size_per_gpu", "4"), ("use_node_local_storage", "False"), ("wall_clock_breakdown", "False"),
    ("weight_quantization_config", "None"), ("world_size", "8"), ("zero_allow_untested_optimizer", "False"),
    ("zero_config", "stage=2 contiguous_gradients=True reduce_scatter=True reduce_bucket_size=500000000 "
                    "allgather_partitions=True allgather_bucket_size=500000000 overlap_comm=True"),
    ("zero_enabled", "True"), ("zero_force_ds_cpu_optimizer", "True"), ("zero_optimization_stage", "2"),
]


def ds(t, level, where, msg):
    return f"[{pylog_time(t)}] [{level}] [{where}] {msg}"


def gpu_node_log(node, rng, t0, steps, world, comm_id, step_times, trace_name):
    """The tee'd torchrun log of one node: every line of local rank L carries [defaultL]:."""
    log = node.log
    t = t0
    ap = node.agent_pid
    # torchrun agent lines (no prefix: the agent itself)
    for msg in ["", "*" * 41,
                "OMP_NUM_THREADS is set to 1 for each worker process by default; tune it for your workload if needed.",
                "*" * 41]:
        log.emit(t, glog("W", t, ap, "torch/distributed/run.py:792", msg))
        t += 17
    log.emit(t, glog("I", t, ap, "torch/distributed/elastic/agent/server/api.py:525",
                     "[default] starting workers for entrypoint: python3"))
    t += rng.randint(2 * SEC, 4 * SEC)
    base_rank = node.node_rank * 4
    streams = []
    for local in range(4):
        g = base_rank + local
        d, r = gpu_prefixes(local, g)
        tl = t + rng.randint(0, 800_000)
        L = []  # (t, text)

        def add(text, dtu=(500, 40_000)):
            nonlocal tl
            tl += rng.randint(*dtu)
            if isinstance(text, bytes):
                L.append((tl, d.encode() + text))
            else:
                L.append((tl, d + (text(tl) if callable(text) else text)))
        add(lambda x: ds(x, "INFO", "real_accelerator.py:219:get_accelerator", "Setting ds_accelerator to cuda (auto detect)"))
        add("\x1b[93m [WARNING] \x1b[0m async_io requires the dev libaio .so object and headers but these were not found.")
        add("\x1b[93m [WARNING] \x1b[0m If libaio is already installed (perhaps from source), try setting the CFLAGS "
            "and LDFLAGS environment variables to where it can be found.")
        add(f"/opt/conda/lib/python3.11/site-packages/transformers/deepspeed.py:24: FutureWarning: "
            f"transformers.deepspeed is deprecated, import from transformers.integrations instead")
        add("  warnings.warn(")
        add(lambda x: ds(x, "INFO", "comm.py:652:init_distributed", "cdb=None"))
        if g == 0:
            add(lambda x: ds(x, "INFO", "comm.py:683:init_distributed",
                   "Initializing TorchBackend in DeepSpeed with backend nccl"))
        add(f"rank {g} local_rank {local} world_size {world} using cuda:{local} "
            f"(NVIDIA H100 80GB HBM3, {79.2:.1f} GiB)")
        tl += rng.randint(SEC, 3 * SEC)
        for line in nccl_init(node, local, g, tl, rng, world, comm_id):
            tl += rng.randint(50, 3000)
            L.append((tl, d + line))
        if node.node_rank == 1 and local == 2:
            # A dataset sample with a stray Latin-1 byte: invalid UTF-8 in a harmless line.
            add(b"tokenizer: replaced undecodable byte in sample 18231: 'na\xefve caf\xe9 r\xe9sum\xe9'")
        add(lambda x: r + torch_glog("W", x, "ProcessGroupNCCL.cpp:4115",
                           f"[PG ID 0 PG GUID 0 Rank {g}]  barrier(): device for this process not set yet, "
                           f"using GPU {local} (cuda:{local}); pass device_id to init_process_group to silence this."))
        streams.append(L)
    # merge init streams
    for L in streams:
        for tt, text in L:
            log.emit(tt, text)
    t = max(L[-1][0] for L in streams) + rng.randint(SEC, 2 * SEC)
    d0 = "[default0]:"
    if node.node_rank == 0:
        log.emit(t, d0 + ds(t, "INFO", "logging.py:128:log_dist", "[Rank 0] DeepSpeed info: version=0.15.4, "
                                                                   "git-hash=unknown, git-branch=unknown"))
        t += 20_000
        log.emit(t, d0 + ds(t, "INFO", "config.py:999:print", "DeepSpeedEngine configuration:"))
        for k, v in DS_ENGINE_KEYS:
            t += rng.randint(20, 200)
            log.emit(t, d0 + ds(t, "INFO", "config.py:1003:print", f"  {k} {'.' * max(1, 29 - len(k))} {v}"))
        t += 3000
        log.emit(t, d0 + ds(t, "INFO", "config.py:989:print_user_config",
                            '  json = {"train_micro_batch_size_per_gpu": 4, "gradient_accumulation_steps": 4, '
                            '"fp16": {"enabled": true, "loss_scale": 0, "initial_scale_power": 16}, '
                            '"zero_optimization": {"stage": 2}, "steps_per_print": 10}'))
    t += rng.randint(SEC, 2 * SEC)
    # training
    overflow_steps = {1: 65536, 2: 32768, 3: 16384} if node.node_rank == 0 else {}
    bar_frames = []
    loss = 2.9
    for s in range(1, steps + 1):
        t = step_times[s - 1] + rng.randint(-3000, 3000)
        loss = max(0.9, loss * (0.9975 + rng.random() * 0.0035) - 0.0002)
        if node.node_rank == 0 and s in overflow_steps:
            a = overflow_steps[s]
            log.emit(t, d0 + ds(t, "INFO", "loss_scaler.py:190:update_scale",
                                f"[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: {a}, "
                                f"reducing to {a // 2}"))
        for local in range(4):
            g = base_rank + local
            if s % 3 == local % 3:
                tt = t + rng.randint(1000, 60_000)
                log.emit(tt, f"[default{local}]:{pylog_time(tt)} - INFO - train - [rank {g}] step {s}/{steps} "
                             f"loss {loss + (rng.random() - 0.5) * 0.04:.4f} lr {min(1.0, s / 60) * 2e-5:.3e} "
                             f"tokens/s {11500 + rng.randint(-400, 400)} mem {31.2 + rng.random():.1f}GB")
        if node.node_rank == 0:
            if s % 10 == 0:
                tt = t + rng.randint(70_000, 90_000)
                log.emit(tt, d0 + ds(tt, "INFO", "logging.py:128:log_dist",
                                     f"[Rank 0] step={s}, skipped={min(s, 3)}, lr=[{min(1.0, s / 60) * 2e-5:.10e}], "
                                     f"mom=[[0.9, 0.999]]"))
                log.emit(tt + 40, d0 + ds(tt + 40, "INFO", "timer.py:264:stop",
                                          f"epoch=0/micro_step={s * 4}/global_step={s}, RunningAvgSamplesPerSec="
                                          f"{26.0 + rng.random():.6f}, CurrSamplesPerSec={25.5 + rng.random() * 2:.6f}, "
                                          f"MemAllocated={24.1 + rng.random() * 0.1:.2f}GB, MaxMemAllocated=31.87GB"))
                log.emit(tt + 90, d0 + "{" + f"'loss': {loss:.4f}, 'grad_norm': {0.5 + rng.random():.4f}, "
                                             f"'learning_rate': {min(1.0, s / 60) * 2e-5}, 'epoch': {s / steps:.2f}" + "}")
            # tqdm frames collect until a newline-terminated line is printed
            pct = s * 100 // steps
            el = (step_times[s - 1] - step_times[0]) // SEC
            bar = ("\u2588" * (pct // 10)).ljust(10)
            bar_frames.append(f"{pct:3d}%|{bar}| {s}/{steps} [{el // 60:02d}:{el % 60:02d}<"
                              f"{(steps - s) * 13 // 10 // 60:02d}:{(steps - s) * 13 // 10 % 60:02d}, "
                              f"{1.25 + rng.random() * 0.1:.2f}s/it]")
            if s % 50 == 0:
                tt = t + rng.randint(100_000, 110_000)
                log.emit(tt, d0 + "\r" + "\r".join(bar_frames))
                bar_frames = []
            if s == 20:
                tt = t + 200_000
                log.emit(tt, d0 + f"STAGE:{pylog_time(tt)[:19]} {node.pids[0]}:{node.pids[0]} "
                                  "ActivityProfilerController.cpp:314] Completed Stage: Warm Up")
            if s == 25:
                tt = t + 200_000
                log.emit(tt, d0 + f"STAGE:{pylog_time(tt)[:19]} {node.pids[0]}:{node.pids[0]} "
                                  "ActivityProfilerController.cpp:320] Completed Stage: Collection")
                log.emit(tt + 900_000, d0 + f"STAGE:{pylog_time(tt + 900_000)[:19]} {node.pids[0]}:{node.pids[0]} "
                                            "ActivityProfilerController.cpp:324] Completed Stage: Post Processing")
                log.emit(tt + 1_200_000, d0 + f"{pylog_time(tt + 1_200_000)} - INFO - train - profiler trace written to "
                                              f"/workspace/run/{trace_name}")
            if s % 400 == 0:
                tt = t + 300_000
                log.emit(tt, d0 + ds(tt, "INFO", "engine.py:3536:_save_zero_checkpoint",
                                     f"zero checkpoint saved /workspace/run/checkpoints/global_step{s}/"
                                     f"zero_pp_rank_0_mp_rank_00_optim_states.pt"))
        if s % 400 == 0:
            for local in range(4):
                tt = t + rng.randint(250_000, 600_000)
                log.emit(tt, f"[default{local}]:" + ds(tt, "INFO", "torch_checkpoint_engine.py:33:commit",
                                                       f"[Torch] Checkpoint global_step{s} is ready now!"))
    t = step_times[-1] + 2 * SEC
    if node.node_rank == 0:
        log.emit(t, d0 + "{" + f"'train_runtime': {(step_times[-1] - step_times[0]) / SEC:.4f}, "
                               f"'train_samples_per_second': 25.87, 'train_steps_per_second': 0.202, "
                               f"'train_loss': {loss + 0.4:.4f}, 'epoch': 1.0" + "}")
        log.emit(t + 500, d0 + "\r" + "\r".join(bar_frames or ["100%|\u2588\u2588\u2588\u2588\u2588\u2588\u2588\u2588\u2588\u2588| "
                                                           f"{steps}/{steps}"]))
    for local in range(4):
        g = base_rank + local
        tt = t + rng.randint(SEC, 2 * SEC)
        log.emit(tt, f"[default{local}]:[rank{g}]:" + torch_glog(
            "W", tt, "ProcessGroupNCCL.cpp:1250",
            f"Warning: the process group of rank {g} is being torn down at interpreter exit; call "
            "destroy_process_group() at the end of training to release NCCL resources cleanly."))
    t += 3 * SEC
    log.emit(t, glog("I", t, ap, "torch/distributed/elastic/agent/server/api.py:876",
                     "[default] all workers of the local group finished successfully; waiting up to 300 seconds "
                     "for the other agents"))
    log.emit(t + 40_000, glog("I", t + 40_000, ap, "torch/distributed/elastic/agent/server/api.py:889",
                              "[default] other agents done after 0.0412 seconds"))


def collect_env_text(node):
    return "\n".join([
        "Collecting environment information...",
        "PyTorch version: 2.5.1+cu124",
        "Is debug build: False",
        "CUDA used to build PyTorch: 12.4",
        "ROCM used to build PyTorch: N/A",
        "",
        "OS: Ubuntu 22.04.4 LTS (x86_64)",
        "GCC version: (Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0",
        "Clang version: Could not collect",
        "CMake version: version 3.30.5",
        "Libc version: glibc-2.35",
        "",
        "Python version: 3.11.10 | packaged by conda-forge | (main, Oct 16 2024, 01:27:36) [GCC 13.3.0] (64-bit runtime)",
        "Python platform: Linux-5.15.0-125-generic-x86_64-with-glibc2.35",
        "Is CUDA available: True",
        "CUDA runtime version: 12.4.131",
        "CUDA_MODULE_LOADING set to: LAZY",
        "GPU models and configuration: ",
        "GPU 0: NVIDIA H100 80GB HBM3",
        "GPU 1: NVIDIA H100 80GB HBM3",
        "GPU 2: NVIDIA H100 80GB HBM3",
        "GPU 3: NVIDIA H100 80GB HBM3",
        "",
        "Nvidia driver version: 550.127.05",
        "cuDNN version: Probably one of the following:",
        "/usr/lib/x86_64-linux-gnu/libcudnn.so.9.1.0",
        "/usr/lib/x86_64-linux-gnu/libcudnn_adv.so.9.1.0",
        "/usr/lib/x86_64-linux-gnu/libcudnn_cnn.so.9.1.0",
        "HIP runtime version: N/A",
        "MIOpen runtime version: N/A",
        "Is XNNPACK available: True",
        "",
        "CPU:",
        "Architecture:                         x86_64",
        "CPU op-mode(s):                       32-bit, 64-bit",
        "Address sizes:                        52 bits physical, 57 bits virtual",
        "Byte Order:                           Little Endian",
        "CPU(s):                               96",
        "On-line CPU(s) list:                  0-95",
        "Vendor ID:                            GenuineIntel",
        "Model name:                           Intel(R) Xeon(R) Platinum 8468",
        "Thread(s) per core:                   1",
        "Core(s) per socket:                   48",
        "Socket(s):                            2",
        "NUMA node(s):                         2",
        "",
        "Versions of relevant libraries:",
        "[pip3] numpy==1.26.4",
        "[pip3] nvidia-nccl-cu12==2.21.5",
        "[pip3] torch==2.5.1+cu124",
        "[pip3] triton==3.1.0",
        "[conda] numpy                     1.26.4                   pypi_0    pypi",
        "[conda] torch                     2.5.1+cu124              pypi_0    pypi",
        "",
    ])


def nvidia_smi_text(rng):
    frame = "+-----------------------------------------------------------------------------------------+"
    lines = [
        "Sat Nov 29 10:01:44 2025",
        frame,
        "| NVIDIA-SMI 550.127.05             Driver Version: 550.127.05     CUDA Version: 12.4     |",
        "|-----------------------------------------+------------------------+----------------------+",
        "| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |",
        "| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |",
        "|                                         |                        |               MIG M. |",
        "|=========================================+========================+======================|",
    ]
    for i, bus in enumerate(["18", "2A", "3A", "5D"]):
        lines.append(f"|   {i}  NVIDIA H100 80GB HBM3          On  |   00000000:{bus}:00.0 Off |                    0 |")
        lines.append(f"| N/A   {30 + rng.randint(0, 6)}C    P0             {68 + rng.randint(0, 9)}W /  700W |"
                     f"       1MiB /  81559MiB |      0%      Default |")
        lines.append("|                                         |                        |             Disabled |")
        lines.append("+-----------------------------------------+------------------------+----------------------+")
    lines += ["", frame,
              "| Processes:                                                                              |",
              "|  GPU   GI   CI        PID   Type   Process name                              GPU Memory |",
              "|        ID   ID                                                               Usage      |",
              "|=========================================================================================|",
              "|  No running processes found                                                             |",
              frame, ""]
    return "\n".join(lines)


DS_CONFIG = {
    "train_micro_batch_size_per_gpu": 4,
    "gradient_accumulation_steps": 4,
    "gradient_clipping": 1.0,
    "steps_per_print": 10,
    "fp16": {"enabled": True, "loss_scale": 0, "initial_scale_power": 16, "loss_scale_window": 1000,
             "hysteresis": 2, "min_loss_scale": 1},
    "optimizer": {"type": "AdamW", "params": {"lr": 2e-05, "betas": [0.9, 0.999], "eps": 1e-08, "weight_decay": 0.0}},
    "scheduler": {"type": "WarmupDecayLR",
                  "params": {"warmup_min_lr": 0, "warmup_max_lr": 2e-05, "warmup_num_steps": 60,
                             "total_num_steps": 1200}},
    "zero_optimization": {"stage": 2, "overlap_comm": True, "contiguous_gradients": True,
                          "reduce_bucket_size": 500000000, "allgather_bucket_size": 500000000},
    "wall_clock_breakdown": False,
}


def kineto_trace(node, rng, base_ns):
    """A small torch.profiler (Kineto) trace: relative ts with 3 decimals, CPU ops,
    kernels, NCCL collectives with their metadata, flows, and the final window event."""
    pid = node.pids[0]
    ev = []

    def num(x):
        return f"{x:.3f}"

    def obj(d):
        parts = []
        for k, v in d.items():
            if isinstance(v, float):
                parts.append(f'"{k}": {num(v)}')
            else:
                parts.append(f"{json.dumps(k)}: {json.dumps(v)}")
        return "{" + ", ".join(parts) + "}"

    ts = 1000.0
    corr = 9000
    for step in range(20, 25):
        st0 = ts
        ev.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{step}", "pid": pid, "tid": pid,
                   "ts": ts, "dur": 1250000.0 + rng.randint(0, 20000) + 0.5, "args": {"External id": corr}})
        ts += 120.0
        for op in range(12):
            name = rng.choice(["aten::linear", "aten::addmm", "aten::layer_norm", "aten::gelu", "aten::mm",
                               "aten::add_", "aten::softmax"])
            dur = 40.0 + rng.random() * 300
            ev.append({"ph": "X", "cat": "cpu_op", "name": name, "pid": pid, "tid": pid, "ts": ts, "dur": dur,
                       "args": {"External id": corr + op, "Sequence number": 4000 + op, "Fwd thread id": 0}})
            kts = ts + dur * 0.6
            ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": pid, "tid": pid,
                       "ts": kts, "dur": 4.2, "args": {"correlation": corr + op, "external id": corr + op}})
            gts = kts + 30.0 + rng.random() * 50
            kname = rng.choice(["sm90_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x256x64_warpgroupsize2x1x1",
                                "void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl>",
                                "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::Half, float>"])
            kd = 20.0 + rng.random() * 800
            ev.append({"ph": "X", "cat": "kernel", "name": kname, "pid": 0, "tid": 7, "ts": gts, "dur": kd,
                       "args": {"queued": 0, "device": 0, "context": 1, "stream": 7, "correlation": corr + op,
                                "registers per thread": 168, "grid": [132, 1, 1], "block": [384, 1, 1]}})
            ev.append({"ph": "s", "id": corr + op, "pid": pid, "tid": pid, "ts": kts, "cat": "ac2g",
                       "name": "ac2g"})
            ev.append({"ph": "f", "id": corr + op, "pid": 0, "tid": 7, "ts": gts, "cat": "ac2g", "name": "ac2g",
                       "bp": "e"})
            ts += dur + 10.0
        # one gradient all-reduce per step
        seq = 300 + step
        meta = {"Collective name": "allreduce", "In msg nelems": 262144000, "Out msg nelems": 262144000,
                "Group size": 8, "dtype": "Half", "In split size": "[]", "Out split size": "[]",
                "Process Group Name": "0", "Process Group Description": "default_pg",
                "Process Group Ranks": "[0, 1, 2, 3, 4, 5, 6, 7]", "Rank": 0, "Seq": seq}
        ev.append({"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": pid, "tid": pid + 7,
                   "ts": ts, "dur": 35.0, "args": dict(meta)})
        ev.append({"ph": "X", "cat": "cpu_op", "name": "c10d::allreduce_", "pid": pid, "tid": pid + 7,
                   "ts": ts + 1.0, "dur": 31.0, "args": {"External id": corr + 50}})
        kd = 52000.0 + rng.random() * 3000
        ev.append({"ph": "X", "cat": "kernel",
                   "name": "ncclDevKernel_AllReduce_Sum_f16_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
                   "pid": 0, "tid": 20, "ts": ts + 60.0, "dur": kd,
                   "args": dict(meta, **{"device": 0, "stream": 20, "correlation": corr + 50})})
        ts = st0 + 1260000.0
        corr += 100
    ev.append({"ph": "i", "s": "g", "name": "Record Window End", "pid": "", "tid": "", "ts": ts + 10.0})
    dev = [{"id": i, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 84929347584, "computeMajor": 9,
            "computeMinor": 0, "maxThreadsPerBlock": 1024, "maxThreadsPerMultiprocessor": 2048,
            "regsPerBlock": 65536, "warpSize": 32, "sharedMemPerBlock": 49152, "numSms": 132,
            "sharedMemPerMultiprocessor": 233472} for i in range(4)]
    out = ['{', '  "schemaVersion": 1,', '  "deviceProperties": [']
    out.append(",\n".join("    " + json.dumps(x) for x in dev))
    out.append("  ],")
    out.append('  "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 8, "pg_count": 1, '
               '"pg_config": [{"pg_name": "0", "pg_desc": "default_pg", "backend_config": "cuda:nccl", '
               '"pg_size": 8, "ranks": "[0, 1, 2, 3, 4, 5, 6, 7]"}], "nccl_version": "2.21.5"},')
    out.append('  "record_shapes": 1,')
    out.append(f'  "with_stack": 0,')
    out.append('  "displayTimeUnit": "ms",')
    out.append(f'  "baseTimeNanoseconds": {base_ns},')
    out.append('  "traceEvents": [')
    out.append(",\n".join("  " + obj(e) for e in ev))
    out.append("  ],")
    out.append(f'  "traceName": "/workspace/run/profiler/{node.name}_{pid}.{base_ns + 1_300_000_000}.pt.trace.json"')
    out.append("}")
    return "\n".join(out) + "\n"


def scenario_healthy_gpu(d):
    rng = random.Random(1010)
    nodes = [GpuNode("node-0", 0, rng, "172.31.12.40"), GpuNode("node-1", 1, rng, "172.31.12.41")]
    steps = 1200
    t0 = us_of(2025, 11, 29, 10, 2, 11)
    step_times = []
    t = t0 + 95 * SEC
    for _ in range(steps):
        t += int(SEC * (1.26 + rng.random() * 0.08))
        step_times.append(t)
    comm_id = hexid(rng, 16)
    base_ns = step_times[19] * 1000 + 412_337
    trace_name = f"profiler/{nodes[0].name}_{nodes[0].pids[0]}.{base_ns + 1_300_000_000}.pt.trace.json"
    for n in nodes:
        skew = rng.randint(-40_000, 40_000)
        gpu_node_log(n, rng, t0 + skew + rng.randint(0, SEC), steps, 8, comm_id,
                     [x + skew for x in step_times], trace_name)
    for n in nodes:
        b = d / "bundles" / n.name
        data, _, _ = n.log.render()
        write(b / "logs" / "train.log", data)
        write(b / "env" / "collect_env.txt", collect_env_text(n))
        write(b / "env" / "nvidia-smi.txt", nvidia_smi_text(rng))
        write(b / "env" / "pip_freeze.txt", "\n".join([
            "accelerate==1.1.1", "datasets==3.1.0", "deepspeed==0.15.4", "numpy==1.26.4",
            "nvidia-nccl-cu12==2.21.5", "safetensors==0.4.5", "tokenizers==0.20.3",
            "torch==2.5.1+cu124", "tqdm==4.67.0", "transformers==4.46.3", "triton==3.1.0", ""]))
        write(b / "config" / "ds_config.json", json.dumps(DS_CONFIG, indent=2) + "\n")
        files = ["logs/train.log", "env/collect_env.txt", "env/nvidia-smi.txt", "env/pip_freeze.txt",
                 "config/ds_config.json"]
        if n.node_rank == 0:
            write(b / trace_name, kineto_trace(n, rng, base_ns))
            files.append(trace_name)
            kinds = {"logs": "log", "env": "version", "config": "config", "profiler": "trace"}
            manifest = {"format_version": 1, "host": n.name,
                        "files": [{"path": p, "kind": kinds[p.split("/")[0]], "host": n.name} for p in files]}
            write(b / "casefile.json", json.dumps(manifest, indent=2) + "\n")
    expected(d, "PyTorch torchrun + DeepSpeed job on 2 nodes x 4 H100 GPUs trains to completion; nothing must fire.",
             [], inputs=("bundles/node-0", "bundles/node-1"))
    return None, []


# --------------------------------------------------------------------------------------------
# Numeric scenarios (issue #5): GPU jobs whose logs carry fp16/bf16 numeric failures.
#
# Each writes one bundle: every host's logs and version files sit under a folder named
# after the host (path attribution names the host), the DeepSpeed config and the model
# config.json at the bundle root. Ranks speak through torchrun's tee prefixes
# ([rankG]: with TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE, else torchrun's default
# [defaultL]: where L is the LOCAL rank) or, for the DeepSpeed launcher, pdsh's "host: ".


class NumNode:
    """One GPU host of a numeric scenario and its tee'd launcher log."""

    def __init__(self, name, ip, node_rank, nproc, rng):
        self.name = name
        self.ip = ip
        self.node_rank = node_rank
        self.agent_pid = rng.randint(120_000, 980_000)
        self.pids = []
        p = self.agent_pid + rng.randint(20, 60)
        for _ in range(nproc):
            p += rng.randint(3, 11)
            self.pids.append(p)
        self.log = HostLog()


class NumJob:
    """hosts: [(name, ip)]; prefix: "rank", "default" or "pdsh" (one shared launcher log).
    v: versions and launcher style (agent "glog" for torch >= 2.4, "pylog" before)."""

    def __init__(self, seed, hosts, nproc, prefix, gpu, v):
        self.rng = random.Random(seed)
        self.nodes = [NumNode(n, ip, i, nproc, self.rng) for i, (n, ip) in enumerate(hosts)]
        self.nproc = nproc
        self.world = nproc * len(self.nodes)
        self.prefix = prefix
        self.gpu = gpu
        self.v = v
        self.shared = HostLog() if prefix == "pdsh" else None
        self.comm_id = hexid(self.rng, 16)

    def node(self, g):
        return self.nodes[g // self.nproc]

    def local(self, g):
        return g % self.nproc

    def log_of(self, node):
        return self.shared if self.shared is not None else node.log

    def tag(self, g):
        if self.prefix == "rank":
            return f"[rank{g}]:"
        if self.prefix == "default":
            return f"[default{self.local(g)}]:"
        if self.prefix == "pdsh":
            return f"{self.node(g).name}: "
        return ""

    def say(self, g, t, lines, marks=None):
        """Lines printed by rank g (each physical line gets the rank's tee prefix)."""
        if isinstance(lines, (str, bytes)):
            lines = [lines]
        tag = self.tag(g)
        out = [tag.encode() + l if isinstance(l, bytes) else tag + l for l in lines]
        self.log_of(self.node(g)).emit(t, out, marks)

    def agent(self, node, t, lines, marks=None):
        """Lines of the launcher itself (no rank prefix; pdsh still names the host)."""
        if isinstance(lines, str):
            lines = [lines]
        tag = f"{node.name}: " if self.prefix == "pdsh" else ""
        self.log_of(node).emit(t, [tag + l for l in lines], marks)

    def agent_line(self, node, t, level, module, src, msg):
        if self.v["agent"] == "glog":
            return glog(level[0], t, node.agent_pid, src, msg)
        return f"[{pylog_time(t)}] {module}: [{level}] {msg}"

    def render(self, bundle, path_of):
        """Writes each node's log at path_of(node); returns {node name: marks}."""
        out = {}
        if self.shared is not None:
            data, marks, _ = self.shared.render()
            write(bundle / path_of(None), data)
            return {None: marks}
        for n in self.nodes:
            data, marks, _ = n.log.render()
            write(bundle / path_of(n), data)
            out[n.name] = marks
        return out


def hf_time(t):
    """The date format of the HF example scripts' basicConfig: 11/29/2026 09:21:26."""
    d = dt_of(t)
    return f"{d.month:02d}/{d.day:02d}/{d.year:04d} {d.hour:02d}:{d.minute:02d}:{d.second:02d}"


def hf_log(t, level, src, msg):
    """transformers' explicit format: [INFO|trainer.py:2314] 2026-11-29 09:21:26,123 >> msg."""
    return f"[{level}|{src}] {pylog_time(t)} >> {msg}"


def mega_time(t):
    d = dt_of(t)
    return f"{d.year:04d}-{d.month:02d}-{d.day:02d} {d.hour:02d}:{d.minute:02d}:{d.second:02d}"


def tq_time(sec):
    sec = int(sec)
    h, rem = divmod(sec, 3600)
    m, s = divmod(rem, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m:02d}:{s:02d}"


TQDM_PARTIAL = " \u258f\u258e\u258d\u258c\u258b\u258a\u2589"


def tqdm_frame(n, total, elapsed, sec_per_it, unit="it"):
    """One tqdm frame as a non-tty stream shows it: 10-cell bar, elapsed<remaining, rate."""
    frac = n / total
    cells = frac * 10
    full = int(cells)
    bar = "\u2588" * full
    if full < 10:
        bar += TQDM_PARTIAL[int((cells - full) * 8)]
    bar = bar.ljust(10)
    if n == 0:
        return f"  0%|          | 0/{total} [00:00<?, ?{unit}/s]"
    rate = f"{1 / sec_per_it:5.2f}{unit}/s" if sec_per_it < 1 else f"{sec_per_it:5.2f}s/{unit}"
    return (f"{frac * 100:3.0f}%|{bar}| {n}/{total} [{tq_time(elapsed)}<"
            f"{tq_time((total - n) * sec_per_it)}, {rate}]")


class DsScaler:
    """DeepSpeed's DynamicLossScaler.update_scale (fp16), replayed to print what it prints.
    raise_at_min=False: the versions that keep printing 'reducing to 1' at the minimum."""

    def __init__(self, power, window, hysteresis, min_scale):
        self.cur = 2 ** power
        self.window = window
        self.delayed = hysteresis
        self.hyst = hysteresis
        self.min = min_scale
        self.iter = 0
        self.last_overflow = -1

    def update(self, overflow):
        msg = None
        if overflow:
            head = "[deepspeed] OVERFLOW! Rank 0 Skipping step."
            if self.delayed == 1 or self.hyst == 1:
                nxt = max(self.cur / 2, self.min)
                msg = f"{head} Attempted loss scale: {int(self.cur)}, reducing to {int(nxt)}"
                self.cur = nxt
            else:
                msg = (f"{head} Attempted loss scale: {int(self.cur)}, but hysteresis is {self.hyst}. "
                       f"Reducing hysteresis to {self.hyst - 1}")
                self.hyst -= 1
            self.last_overflow = self.iter
        else:
            stable = (self.iter - self.last_overflow) - 1
            if stable > 0 and stable % self.window == 0:
                self.hyst = self.delayed
                self.cur *= 2
        self.iter += 1
        return msg


BUS_IDS = ["18000", "2a000", "3a000", "5d000", "9a000", "ab000", "ba000", "db000"]


def num_nccl_lines(job, g):
    """NCCL_DEBUG=INFO start-up of rank g over a ring through all hosts (tee prefix not included)."""
    rng = job.rng
    node = job.node(g)
    local = job.local(g)
    n, world = job.nproc, job.world
    pid = node.pids[local]
    tid_b = pid + 37 + local
    iface = job.v.get("iface", "bond0")
    p2p = job.v.get("p2p", "P2P/CUMEM/read")

    def info(tid, msg):
        return f"{node.name}:{pid}:{tid} [{local}] NCCL INFO {msg}"

    comm = f"0x{rng.randint(0x55d000000000, 0x55dfffffffff):x}"
    bus = BUS_IDS[local]
    out = []
    if g == 0:
        out.append(f"NCCL version {job.v['nccl']}+cuda{job.v['cuda']}")
    out.append(info(pid, f"cudaDriverVersion {job.v['cuda_drv']}"))
    out.append(info(pid, f"NCCL_SOCKET_IFNAME set by environment to {iface}"))
    out.append(info(pid, f"Bootstrap : Using {iface}:{node.ip}<0>"))
    if job.v.get("net_plugin_warn"):
        out.append("")
        out.append(f"{node.name}:{pid}:{pid} [{local}] net.cc:98 NCCL WARN NET/Plugin: could not load "
                   f"libnccl-net.so (no such file), continuing with the internal network implementation")
    out.append(info(pid, "NET/Plugin : No plugin found (libnccl-net.so), using internal implementation"))
    hcas = " ".join(f"[{i}]mlx5_{i}:1/IB" for i in range(min(n, 4)))
    out.append(info(pid, f"NET/IB : Using {hcas} [RO]; OOB {iface}:{node.ip}<0>"))
    out.append(info(pid, "Using network IB"))
    out.append(info(pid, f"ncclCommInitRank comm {comm} rank {g} nranks {world} cudaDev {local} nvmlDev {local} "
                         f"busId {bus} commId 0x{job.comm_id} - Init START"))
    mask = "ffffffff,00000000,ffffffff" if local < n // 2 else "ffffffff,00000000,ffffffff,00000000"
    out.append(info(pid, f"Setting affinity for GPU {local} to {mask}"))
    out.append(info(pid, f"comm {comm} rank {g} nRanks {world} nNodes {len(job.nodes)} localRanks {n} "
                         f"localRank {local} MNNVL 0"))
    down = g + 1 if local < n - 1 else -1
    up = g - 1 if local else -1
    out.append(info(pid, f"Trees [0] {down}/-1/-1->{g}->{up} [1] {down}/-1/-1->{g}->{up}"))
    out.append(info(pid, "P2P Chunksize set to 524288"))
    if g == 0:
        ring = "".join(f"{r:4d}" for r in range(world))
        out.append(info(pid, f"Channel 00/02 :{ring}"))
        out.append(info(pid, f"Channel 01/02 :{ring}"))
    for ch in range(2):
        if local < n - 1:
            out.append(info(tid_b, f"Channel {ch:02d}/0 : {g}[{local}] -> {g + 1}[{local + 1}] via {p2p}"))
        else:
            out.append(info(tid_b, f"Channel {ch:02d}/0 : {g}[{local}] -> {(g + 1) % world}[0] [send] via "
                                   f"NET/IB/{ch}/GDRDMA"))
        if local == 0:
            out.append(info(tid_b, f"Channel {ch:02d}/0 : {(g - 1) % world}[{n - 1}] -> {g}[0] [receive] via "
                                   f"NET/IB/{ch}/GDRDMA"))
    out.append(info(pid, "Connected all rings, use ring PXN 0 GDR 1"))
    for ch in range(2):
        if local > 0:
            out.append(info(tid_b, f"Channel {ch:02d}/0 : {g}[{local}] -> {g - 1}[{local - 1}] via {p2p}"))
    out.append(info(pid, "Connected all trees"))
    out.append(info(pid, "threadThresholds 8/8/64 | 64/8/64 | 512 | 512"))
    out.append(info(pid, "2 coll channels, 2 collnet channels, 0 nvls channels, 2 p2p channels, 2 p2p channels per peer"))
    out.append(info(pid, "TUNER/Plugin: Plugin load returned 2 : libnccl-tuner.so: cannot open shared object file: "
                         "No such file or directory"))
    out.append(info(pid, "TUNER/Plugin: Using internal tuner plugin."))
    out.append(info(pid, f"ncclCommInitRank comm {comm} rank {g} nranks {world} cudaDev {local} nvmlDev {local} "
                         f"busId {bus} commId 0x{job.comm_id} - Init COMPLETE"))
    out.append(info(pid, f"Init timings: rank {g} nranks {world} total {0.6 + rng.random():.2f} (kernels "
                         f"{0.2 + rng.random() * 0.2:.2f}, bootstrap {0.1 + rng.random() * 0.2:.2f}, allgathers 0.01, "
                         f"topo {0.05 + rng.random() * 0.1:.2f}, graphs 0.01, connections "
                         f"{0.1 + rng.random() * 0.2:.2f}, rest 0.00)"))
    return out


DS_ANSI_WARNINGS = [
    "async_io requires the dev libaio .so object and headers but these were not found.",
    "async_io: please install the libaio-dev package with apt",
    "If libaio is already installed (perhaps from source), try setting the CFLAGS and LDFLAGS environment "
    "variables to where it can be found.",
    "Please specify the CUTLASS repo directory as environment variable $CUTLASS_PATH",
]


def num_torchrun_start(job, node, t, cmd):
    """Shell trace of the launch script and torchrun's start-up banner on one host."""
    rng = job.rng
    for line in cmd:
        job.agent(node, t, line)
        t += rng.randint(200, 3000)
    t += rng.randint(SEC // 2, 2 * SEC)
    for msg in ["", "*" * 41,
                "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your "
                "system being overloaded, please further tune the variable for optimal performance in your "
                "application as needed. ",
                "*" * 41]:
        job.agent(node, t, job.agent_line(node, t, "WARNING", "torch.distributed.run", "torch/distributed/run.py:793", msg))
        t += 19
    return t + rng.randint(SEC, 3 * SEC)


def num_rank_start(job, g, t, ds=True, hf_fp16=None, extra=()):
    """DeepSpeed/HF/NCCL start-up lines of rank g from time t; returns the time after them."""
    rng = job.rng
    local = job.local(g)

    def add(line, lo=300, hi=30_000):
        nonlocal t
        t += rng.randint(lo, hi)
        job.say(g, t, line(t) if callable(line) else line)

    if ds:
        add(lambda x: ds_line(x, "INFO", "real_accelerator.py:219:get_accelerator",
                              "Setting ds_accelerator to cuda (auto detect)"))
        for w in DS_ANSI_WARNINGS:
            add(f"\x1b[93m [WARNING] \x1b[0m {w}", 20, 400)
    if hf_fp16 is not None:
        add(lambda x: f"{hf_time(x)} - WARNING - __main__ - Process rank: {g}, device: cuda:{local}, n_gpu: 1, "
                      f"distributed training: True, 16-bits training: {hf_fp16}")
    for line in extra:
        add(line)
    if ds:
        add(lambda x: ds_line(x, "INFO", "comm.py:652:init_distributed", "cdb=None"))
        if g == 0:
            add(lambda x: ds_line(x, "INFO", "comm.py:683:init_distributed",
                                  "Initializing TorchBackend in DeepSpeed with backend nccl"))
    t += rng.randint(SEC, 2 * SEC)
    for line in num_nccl_lines(job, g):
        t += rng.randint(50, 2500)
        job.say(g, t, line)
    return t


def ds_line(t, level, where, msg):
    """DeepSpeed's logger: [2026-11-29 09:21:26,123] [INFO] [engine.py:1276:fn] msg."""
    return f"[{pylog_time(t)}] [{level}] [{where}] {msg}"


def ds_user_json(cfg):
    """print_user_config: json.dumps(sort_keys, indent=4, separators=(",", ":")), one line per key."""
    return json.dumps(cfg, sort_keys=True, indent=4, separators=(",", ":")).split("\n")


def num_ds_engine(job, t, cfg, version, dtype, stage=2, opt="AdamW", lr=2e-05):
    """DeepSpeed engine start-up on rank 0: optimizer, memory, the engine configuration dump.
    cfg holds the resolved values (HF fills "auto" before DeepSpeed sees them)."""
    rng = job.rng
    fp16 = cfg.get("fp16", {}).get("enabled") is True
    bf16 = cfg.get("bf16", {}).get("enabled") is True
    f = cfg.get("fp16", {})
    micro = cfg["train_micro_batch_size_per_gpu"]
    gas = cfg["gradient_accumulation_steps"]
    lines = [
        ("logging.py:128:log_dist", f"[Rank 0] DeepSpeed info: version={version}, git-hash=unknown, git-branch=unknown"),
        ("config.py:733:__init__", f"Config mesh_device None world_size = {job.world}"),
        ("logging.py:128:log_dist", "[Rank 0] DeepSpeed Flops Profiler Enabled: False"),
        ("logging.py:128:log_dist", "[Rank 0] Using client Optimizer as basic optimizer"),
        ("logging.py:128:log_dist", "[Rank 0] Removing param_group that has no 'params' in the basic Optimizer"),
        ("logging.py:128:log_dist", f"[Rank 0] DeepSpeed Basic Optimizer = {opt}"),
        ("utils.py:59:is_zero_supported_optimizer",
         f"Checking ZeRO support for optimizer={opt} type=<class 'torch.optim.adamw.AdamW'>"),
        ("logging.py:128:log_dist", f"[Rank 0] Creating {dtype} ZeRO stage {stage} optimizer"),
        ("stage_1_and_2.py:149:__init__", "Reduce bucket size 500000000"),
        ("stage_1_and_2.py:150:__init__", "Allgather bucket size 500000000"),
        ("stage_1_and_2.py:151:__init__", "CPU Offload: False"),
        ("stage_1_and_2.py:152:__init__", "Round robin gradient partitioning: False"),
        ("utils.py:781:see_memory_usage", "Before initializing optimizer states"),
        ("utils.py:782:see_memory_usage", f"MA {1.2 + rng.random():.2f} GB         Max_MA {2.3 + rng.random():.2f} GB"
                                          f"         CA {2.4 + rng.random():.2f} GB         Max_CA 4 GB "),
        ("utils.py:789:see_memory_usage", f"CPU Virtual Memory:  used = {55 + rng.random() * 20:.2f} GB, "
                                          f"percent = {5 + rng.random() * 3:.1f}%"),
        ("utils.py:781:see_memory_usage", "After initializing optimizer states"),
        ("utils.py:782:see_memory_usage", f"MA {3.2 + rng.random():.2f} GB         Max_MA {4.1 + rng.random():.2f} GB"
                                          f"         CA {4.4 + rng.random():.2f} GB         Max_CA 5 GB "),
        ("utils.py:789:see_memory_usage", f"CPU Virtual Memory:  used = {56 + rng.random() * 20:.2f} GB, "
                                          f"percent = {5 + rng.random() * 3:.1f}%"),
        ("stage_1_and_2.py:543:__init__", "optimizer state initialized"),
        ("logging.py:128:log_dist", "[Rank 0] DeepSpeed Final Optimizer = DeepSpeedZeroOptimizer"),
        ("logging.py:128:log_dist", "[Rank 0] DeepSpeed using client LR scheduler"),
        ("logging.py:128:log_dist", "[Rank 0] DeepSpeed LR Scheduler = None"),
        ("logging.py:128:log_dist", f"[Rank 0] step=0, skipped=0, lr=[{lr}], mom=[(0.9, 0.999)]"),
        ("config.py:999:print", "DeepSpeedEngine configuration:"),
    ]
    dls = ("None" if not fp16 else
           f"{{'init_scale': {2 ** f.get('initial_scale_power', 16)}, 'scale_window': {f.get('loss_scale_window', 1000)}, "
           f"'delayed_shift': {f.get('hysteresis', 2)}, 'consecutive_hysteresis': False, "
           f"'min_scale': {f.get('min_loss_scale', 1)}}}")
    dump = [
        ("activation_checkpointing_config", '{"partition_activations": false, "contiguous_memory_optimization": false}'),
        ("amp_enabled", "False"), ("amp_params", "False"), ("bfloat16_enabled", str(bf16)),
        ("checkpoint_parallel_write_pipeline", "False"), ("checkpoint_tag_validation_enabled", "True"),
        ("communication_data_type", "None"), ("data_efficiency_enabled", "False"),
        ("disable_allgather", "False"), ("dump_state", "False"), ("dynamic_loss_scale_args", dls),
        ("elasticity_enabled", "False"), ("fp16_auto_cast", "False" if fp16 else "None"),
        ("fp16_enabled", str(fp16)), ("global_rank", "0"), ("grad_accum_dtype", "None"),
        ("gradient_accumulation_steps", str(gas)), ("gradient_clipping", str(cfg.get("gradient_clipping", 1.0))),
        ("gradient_predivide_factor", "1.0"),
        ("initial_dynamic_scale", str(2 ** f.get("initial_scale_power", 16)) if fp16 else "1"),
        ("load_universal_checkpoint", "False"), ("loss_scale", "0" if fp16 else "1.0"),
        ("memory_breakdown", "False"), ("optimizer_name", "None"), ("optimizer_params", "None"),
        ("prescale_gradients", "False"), ("scheduler_name", "None"), ("scheduler_params", "None"),
        ("sparse_gradients_enabled", "False"), ("steps_per_print", str(cfg.get("steps_per_print", 10))),
        ("train_batch_size", str(micro * gas * job.world)), ("train_micro_batch_size_per_gpu", str(micro)),
        ("wall_clock_breakdown", "False"), ("world_size", str(job.world)),
        ("zero_allow_untested_optimizer", "True"),
        ("zero_config", f"stage={stage} contiguous_gradients=True reduce_scatter=True reduce_bucket_size=500000000 "
                        "allgather_partitions=True allgather_bucket_size=500000000 overlap_comm=True"),
        ("zero_enabled", "True"), ("zero_optimization_stage", str(stage)),
    ]
    for k, val in dump:
        lines.append(("config.py:1003:print", f"  {k} {'.' * max(1, 29 - len(k))} {val}"))
    uj = ds_user_json(cfg)
    for src, msg in lines:
        t += rng.randint(40, 4000)
        job.say(0, t, ds_line(t, "INFO", src, msg))
    t += rng.randint(200, 900)
    job.say(0, t, [ds_line(t, "INFO", "config.py:989:print_user_config", "  json = " + uj[0])] + uj[1:])
    return t + rng.randint(SEC // 2, SEC)


def num_hf_train_banner(job, t, lines):
    """HF Trainer's '***** Running training *****' block on rank 0 (explicit log format)."""
    for i, msg in enumerate(["***** Running training *****"] + [f"  {x}" for x in lines]):
        t += job.rng.randint(100, 900)
        job.say(0, t, hf_log(t, "INFO", f"trainer.py:{2314 + i}", msg))
    return t


def num_collect_env(job):
    v = job.v
    lines = [
        "Collecting environment information...",
        f"PyTorch version: {v['torch']}",
        "Is debug build: False",
        f"CUDA used to build PyTorch: {v['cuda']}",
        "ROCM used to build PyTorch: N/A",
        "",
        f"OS: {v.get('os', 'Ubuntu 22.04.4 LTS (x86_64)')}",
        "GCC version: (Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0",
        "Clang version: Could not collect",
        "CMake version: version 3.28.3",
        "Libc version: glibc-2.35",
        "",
        f"Python version: {v['python']} (64-bit runtime)",
        f"Python platform: Linux-{v.get('kernel', '5.15.0-126-generic')}-x86_64-with-glibc2.35",
        "Is CUDA available: True",
        f"CUDA runtime version: {v['cuda_rt']}",
        "CUDA_MODULE_LOADING set to: LAZY",
        "GPU models and configuration: ",
    ]
    lines += [f"GPU {i}: {job.gpu}" for i in range(job.nproc)]
    lines += [
        "",
        f"Nvidia driver version: {v['driver']}",
        "cuDNN version: Probably one of the following:",
        "/usr/lib/x86_64-linux-gnu/libcudnn.so.9.1.0",
        "HIP runtime version: N/A",
        "MIOpen runtime version: N/A",
        "Is XNNPACK available: True",
        "",
        "CPU:",
        "Architecture:                         x86_64",
        "CPU op-mode(s):                       32-bit, 64-bit",
        "Byte Order:                           Little Endian",
        f"CPU(s):                               {v.get('cpus', 96)}",
        f"Model name:                           {v.get('cpu', 'AMD EPYC 7R13 Processor')}",
        "Thread(s) per core:                   2",
        "Socket(s):                            2",
        "",
        "Versions of relevant libraries:",
        f"[pip3] numpy=={v.get('numpy', '1.26.4')}",
        f"[pip3] nvidia-nccl-cu12=={v['nccl']}",
        f"[pip3] torch=={v['torch']}",
    ]
    if "triton" in v:
        lines.append(f"[pip3] triton=={v['triton']}")
    lines += [f"[conda] torch                     {v['torch']:<24} pypi_0    pypi", ""]
    return "\n".join(lines)


def num_pip_freeze(job):
    v = job.v
    pk = {"accelerate": v.get("accelerate"), "datasets": v.get("datasets"), "deepspeed": v.get("ds"),
          "numpy": v.get("numpy", "1.26.4"), "nvidia-nccl-cu12": v["nccl"], "safetensors": "0.4.5",
          "sentencepiece": "0.2.0", "tokenizers": v.get("tokenizers"), "torch": v["torch"],
          "transformers": v.get("tf"), "triton": v.get("triton")}
    return "\n".join(f"{k}=={x}" for k, x in sorted(pk.items()) if x) + "\n"


def write_host_env(job, bundle, sub):
    write(bundle / sub / "env" / "collect_env.txt", num_collect_env(job))
    write(bundle / sub / "env" / "pip_freeze.txt", num_pip_freeze(job))


def json_line_of(text, block, key):
    """1-based line of the first `"key"` after the line that opens `"block"` (a JSON file
    written with indent): the generator pins config lines from the text it wrote."""
    lines = text.split("\n")
    start = 0
    if block is not None:
        start = next(i for i, l in enumerate(lines) if f'"{block}"' in l)
    for i in range(start, len(lines)):
        if f'"{key}"' in lines[i]:
            return i + 1
    raise AssertionError((block, key))


def clean_line(data, line_no):
    """The line as the corpus test reads it: last \\r frame, ANSI escapes removed."""
    line = data.split(b"\n")[line_no - 1].decode("utf-8", "replace")
    if line.endswith("\r"):
        line = line[:-1]
    line = line[line.rfind("\r") + 1:]
    out, i = [], 0
    while i < len(line):
        if line[i] == "\x1b" and i + 1 < len(line) and line[i + 1] == "[":
            j = i + 2
            while j < len(line) and not (0x40 <= ord(line[j]) <= 0x7e):
                j += 1
            i = j + 1
            continue
        out.append(line[i])
        i += 1
    return "".join(out)


def check_clean_evidence(scen_dir, findings):
    """Numeric scenarios: each pinned 'contains' is in the line's last frame, not in a dropped one."""
    for f in findings:
        for e in f["evidence"]:
            data = (scen_dir / "bundle" / e["path"]).read_bytes()
            assert e["contains"] in clean_line(data, e["line"]), (scen_dir.name, e)


def evd(path, line, contains):
    return {"path": path, "line": line, "contains": contains}


# DebugUnderflowOverflow (transformers.debug_utils) output -------------------------------------

DUO_PREFIX = " " * 17
DUO_HEADER = "abs min  abs max  metadata"
FP16_MAX = 65504.0


def duo_num(x):
    if x == math.inf:
        return f"{'inf':>8}"
    if x != x:
        return f"{'nan':>8}"
    return f"{x:8.2e}"


def duo_frame(name, cls, rows):
    """A frame: the module header row, then one row per weight/input/output."""
    out = [f"{DUO_PREFIX} {name} {cls}"]
    for r in rows:
        if r[0] == "None":
            out.append(f"{'None':>17} {r[1]}")
        elif r[0] == "nat":
            out.append(f"{'not a tensor':>17} {r[1]}")
        else:
            out.append(f"{duo_num(r[1])} {duo_num(r[2])} {r[0]}")
    return out


class T5Walk:
    """The forward hooks of a T5/mT5 model in the order they fire, with plausible abs
    min/max values. `hot` = (stack, block): that block's FF output grows to `hot_wo`;
    `stop` = a module name whose output overflows fp16 (the walk ends there)."""

    def __init__(self, rng, cls, layers, gated, vocab, hot, hot_wo, gain=1.0, stop=None, base_seed=1):
        self.rng = rng
        # The model's own scale of each value, drawn in hook order from a fixed seed: the same
        # module gets the same base in every batch and on every rank; rng only adds noise.
        self.base = random.Random(base_seed)
        self.cls = cls  # "MT5" or "T5"
        self.layers = layers
        self.gated = gated
        self.vocab = vocab
        self.hot = hot
        self.hot_wo = hot_wo
        self.gain = gain
        self.stop = stop
        self.frames = []
        self.done = False

    def u(self, lo, hi):
        return lo * (hi / lo) ** self.base.random()

    def wmin(self):
        return self.u(1e-9, 2e-6)

    def jit(self, x):
        return x * self.gain * (0.96 + 0.08 * self.rng.random())

    def add(self, name, cls, rows):
        if self.done:
            return
        self.frames.append((name, cls, rows))
        if name == self.stop:
            self.done = True

    def linear(self, name, inp, out_max, wmax):
        self.add(name, "Linear", [("weight", self.wmin(), wmax), ("input[0]", inp[0], inp[1]),
                                  ("output", self.u(1e-7, 1e-4), out_max)])
        return (self.u(1e-7, 1e-4), out_max)

    def norm(self, name, inp):
        out = (self.u(1e-7, 5e-6), self.u(3.0, 12.0))
        self.add(name, f"{self.cls}LayerNorm", [("weight", self.u(0.02, 0.3), self.u(0.4, 6.0)),
                                                ("input[0]", inp[0], inp[1]), ("output", out[0], out[1])])
        return out

    def dropout(self, name, inp):
        out_max = inp[1] * 1.111
        if name == self.stop or out_max > FP16_MAX:
            out_max = math.inf
        self.add(name, "Dropout", [("input[0]", inp[0], inp[1]), ("output", 0.0, out_max)])
        return (0.0, out_max)

    def attention(self, base, h, kv, first, cross=False):
        """SelfAttention / EncDecAttention module `base` with input h (and kv for k, v)."""
        self.linear(f"{base}.q", h, self.jit(self.u(5, 40)), self.u(0.3, 3))
        self.linear(f"{base}.k", kv, self.jit(self.u(5, 60)), self.u(0.3, 3))
        v = self.linear(f"{base}.v", kv, self.jit(self.u(2, 30)), self.u(0.3, 3))
        pos = (0.0, 0.0) if cross else (self.u(1e-2, 3e-1), self.u(8, 30))
        if first and not cross:
            self.add(f"{base}.relative_attention_bias", "Embedding",
                     [("weight", self.u(1e-3, 1e-1), pos[1]), ("input[0]", 0.0, 31.0), ("output", pos[0], pos[1])])
        o = self.linear(f"{base}.o", (self.u(1e-6, 1e-4), v[1] * 0.9), self.jit(self.u(60, 700)), self.u(0.5, 4))
        self.add(base, f"{self.cls}Attention", [("input[0]", h[0], h[1]), ("output[0]", o[0], o[1]),
                                                ("None", "output[1]"), ("output[2]", pos[0], pos[1])])
        return o, pos

    def ff(self, base, h, hot):
        ln = self.norm(f"{base}.layer_norm", h)
        drd = f"{base}.DenseReluDense"
        if self.gated:
            a = self.linear(f"{drd}.wi_0", ln, self.jit(self.u(10, 60)), self.u(1, 6))
            act = (0.0, a[1] * 1.02)
            self.add(f"{drd}.act", "NewGELUActivation", [("input[0]", a[0], a[1]), ("output", act[0], act[1])])
            b = self.linear(f"{drd}.wi_1", ln, self.jit(self.u(40, 300)), self.u(2, 27))
            prod = (0.0, act[1] * b[1] * self.u(0.15, 0.5))
        else:
            a = self.linear(f"{drd}.wi", ln, self.jit(self.u(20, 200)), self.u(1, 9))
            prod = (0.0, a[1])
            self.add(f"{drd}.act", "ReLU", [("input[0]", a[0], a[1]), ("output", 0.0, prod[1])])
        if hot:
            # What grows is the gated product feeding wo, and wo's output with it.
            prod = (0.0, self.hot_wo * self.u(0.12, 0.17))
        dr = self.dropout(f"{drd}.dropout", prod)
        wo_max = self.hot_wo if hot else self.jit(self.u(2e2, 3.5e3))
        out = self.linear(f"{drd}.wo", dr, wo_max, self.u(2, 8))
        self.add(drd, f"{self.cls}DenseGatedActDense" if self.gated else f"{self.cls}DenseActDense",
                 [("input[0]", ln[0], ln[1]), ("output", out[0], out[1])])
        return self.dropout(f"{base}.dropout", out)

    def block(self, stack, i, h, enc_out):
        b = f"{stack}.block.{i}"
        ln = self.norm(f"{b}.layer.0.layer_norm", h)
        att, pos = self.attention(f"{b}.layer.0.SelfAttention", ln, ln, i == 0)
        d = self.dropout(f"{b}.layer.0.dropout", att)
        h1 = (h[0] * 0.5, max(h[1], d[1]) * (1.0 + 0.08 * self.rng.random()))
        self.add(f"{b}.layer.0", f"{self.cls}LayerSelfAttention",
                 [("input[0]", h[0], h[1]), ("output[0]", h1[0], h1[1]), ("None", "output[1]"),
                  ("output[2]", pos[0], pos[1])])
        ff_layer = 1
        outs = [("output[1]", pos[0], pos[1])]
        if stack == "decoder":
            ln2 = self.norm(f"{b}.layer.1.layer_norm", h1)
            catt, cpos = self.attention(f"{b}.layer.1.EncDecAttention", ln2, enc_out, i == 0, cross=True)
            d2 = self.dropout(f"{b}.layer.1.dropout", catt)
            h2 = (h1[0] * 0.5, max(h1[1], d2[1]) * (1.0 + 0.05 * self.rng.random()))
            self.add(f"{b}.layer.1", f"{self.cls}LayerCrossAttention",
                     [("input[0]", h1[0], h1[1]), ("output[0]", h2[0], h2[1]), ("None", "output[1]"),
                      ("output[2]", cpos[0], cpos[1])])
            h1 = h2
            ff_layer = 2
            outs.append(("output[2]", cpos[0], cpos[1]))
        f = self.ff(f"{b}.layer.{ff_layer}", h1, self.hot == (stack, i))
        h2 = (h1[0] * 0.5, h1[1] + f[1] * self.u(0.5, 0.95))
        self.add(f"{b}.layer.{ff_layer}", f"{self.cls}LayerFF", [("input[0]", h1[0], h1[1]), ("output", h2[0], h2[1])])
        self.add(b, f"{self.cls}Block", [("input[0]", h[0], h[1]), ("output[0]", h2[0], h2[1])] + outs)
        return h2

    def stack(self, name, ids_max, enc_out=None):
        emb = (self.u(2e-5, 9e-5), self.u(3e2, 8e2))
        self.add("shared", "Embedding", [("weight", self.u(1e-7, 2e-6), emb[1] * 1.05), ("input[0]", 0.0, ids_max),
                                         ("output", emb[0], emb[1])])
        h = self.dropout(f"{name}.dropout", emb)
        h = (self.u(1e-5, 1e-3), h[1])
        for i in range(self.layers):
            h = self.block(name, i, h, enc_out)
            h = (h[0], h[1] * (1.0 + 0.1 * self.rng.random()))
        ln = self.norm(f"{name}.final_layer_norm", h)
        out = self.dropout(f"{name}.dropout", ln)
        self.add(name, f"{self.cls}Stack", [("nat", "output")])
        return out

    def run(self):
        """The whole forward: encoder, decoder, lm_head, the model itself."""
        enc = self.stack("encoder", float(self.vocab - self.rng.randint(1, 900)))
        if not self.done:
            dec = self.stack("decoder", float(self.vocab - self.rng.randint(1, 900)), enc)
            self.linear("lm_head", dec, self.u(40, 120), self.u(300, 800))
            self.add("", f"{self.cls}ForConditionalGeneration", [("nat", "output")])
        return self.frames


def duo_report(batch, frames):
    """What dump_saved_frames prints: detect_overflow's line first, then the report."""
    lines = ["output has infs", "", f"Detected inf/nan during batch_number={batch}",
             f"Last {len(frames)} forward frames:", DUO_HEADER]
    for name, cls, rows in frames:
        lines += duo_frame(name, cls, rows)
    return lines + ["", "", ""]


DUO_ABORT = ("ValueError: DebugUnderflowOverflow: inf/nan detected, aborting as there is no point running "
             "further. Please scroll up above this traceback to see the activation values prior to this event.")


class BarStream:
    """What rank 0 prints through one tee'd stream: tqdm frames (stderr, '\\r' and no newline)
    pile up in one physical line until a line ends it. A logger line either follows on its
    own line or is glued right after the last frame ('…1.87it/s][2026-…] [INFO] …')."""

    def __init__(self, job, g=0):
        self.job = job
        self.g = g
        self.frames = []

    def frame(self, text):
        self.frames.append(text)

    def flush(self, t):
        if self.frames:
            self.job.say(self.g, t, "\r" + "\r".join(self.frames))
            self.frames = []

    def line(self, t, text, mark=None, glue=False):
        marks = {0: mark} if mark else None
        if glue and self.frames:
            self.job.say(self.g, t, "\r" + "\r".join(self.frames) + text, marks)
            self.frames = []
        else:
            self.flush(t - 1)
            self.job.say(self.g, t, text, marks)


def hf_loss_dict(loss, grad_norm, lr, epoch):
    d = f"{{'loss': {loss:.4f}"
    if grad_norm is not None:
        d += f", 'grad_norm': {grad_norm!r}"
    return d + f", 'learning_rate': {lr!r}, 'epoch': {epoch!r}}}"


def hf_ds_train(job, t, cfg):
    """An HF Trainer + DeepSpeed training loop seen from the logs. cfg keys:
    steps (run to), total (max_steps), sec (seconds per step), loss(s), lr(k) (k = applied
    optimizer steps), grad_norm(s) or None, epoch_steps, logging_steps, steps_per_print,
    scaler (DsScaler or None), overflow(s) -> bool, glue(s, msg) -> bool, mark(kind, s, text)
    -> mark name or None, status_every (per-rank status lines, or 0), eval_every,
    eval_loss(s), flush_every (tqdm lines when nothing else ends them).
    Returns (end time, [(step, loss dict values)], step end times)."""
    rng = job.rng
    bar = BarStream(job)
    t_bar = t
    bar.frame(tqdm_frame(0, cfg["total"], 0, 1))
    applied = 0
    history = []
    times = {}
    skipped = 0
    mark = cfg.get("mark", lambda kind, s, text: None)
    for s in range(1, cfg["steps"] + 1):
        t += int(cfg["sec"] * SEC * (0.95 + 0.1 * rng.random()))
        times[s] = t
        overflow = cfg.get("overflow", lambda s: False)(s)
        tt = t - rng.randint(20_000, 60_000)
        if cfg.get("scaler") is not None:
            msg = cfg["scaler"].update(overflow)
            if msg:
                text = ds_line(tt, "INFO", cfg.get("scaler_src", "loss_scaler.py:183:update_scale"), msg)
                bar.line(tt, text, mark("overflow", s, msg), glue=cfg.get("glue", lambda s, m: False)(s, msg))
        if overflow:
            skipped += 1
        else:
            applied += 1
        lr = cfg["lr"](applied)
        if s % cfg["steps_per_print"] == 0:
            tt += rng.randint(1000, 5000)
            bar.line(tt, ds_line(tt, "INFO", "logging.py:128:log_dist",
                                 f"[Rank 0] step={s}, skipped={skipped}, lr=[{lr!r}], mom=[(0.9, 0.999)]"))
            tt += rng.randint(50, 400)
            micro = job.v.get("micro", 16)
            sps = micro * job.world / cfg["sec"] * (0.97 + 0.06 * rng.random())
            bar.line(tt, ds_line(tt, "INFO", "timer.py:264:stop",
                                 f"epoch=0/micro_step={s * job.v.get('gas', 1)}/global_step={s}, RunningAvgSamplesPerSec={sps:.6f}, "
                                 f"CurrSamplesPerSec={sps * (0.97 + 0.06 * rng.random()):.6f}, "
                                 f"MemAllocated={job.v.get('mem', 11.2) + rng.random() * 0.1:.2f}GB, "
                                 f"MaxMemAllocated={job.v.get('mem', 11.2) + 3.71:.2f}GB"))
        bar.frame(tqdm_frame(s, cfg["total"], (t - t_bar) / SEC, cfg["sec"]))
        if s % cfg["logging_steps"] == 0:
            loss = cfg["loss"](s)
            gn = cfg["grad_norm"](s) if cfg.get("grad_norm") else None
            ep = round(s / cfg["epoch_steps"], 4)
            text = hf_loss_dict(loss, gn, lr, ep)
            td = t + rng.randint(2000, 20_000)
            bar.line(td, text, mark("dict", s, text))
            history.append({"epoch": ep, "grad_norm": gn, "learning_rate": lr, "loss": round(loss, 4), "step": s})
        if cfg.get("eval_every") and s % cfg["eval_every"] == 0:
            te = t + rng.randint(50_000, 90_000)
            bar.flush(te)
            te = hf_eval(job, te, s, cfg)
            history.append({"epoch": round(s / cfg["epoch_steps"], 4), "eval_loss": cfg["eval_loss"](s),
                            "step": s})
            t = te
        elif s % cfg.get("flush_every", 50) == 0:
            bar.flush(t + rng.randint(30_000, 60_000))
        every = cfg.get("status_every", 0)
        if every and s % every == 0:
            for g in range(job.world):
                lag = cfg.get("status_lag", lambda g, s: 300_000)(g, s)
                tg = t + (rng.randint(*lag) if isinstance(lag, tuple) else rng.randint(10_000, lag))
                job.say(g, tg, f"{hf_time(tg)} - INFO - __main__ - rank {g}: step {s}, "
                               f"{job.v.get('micro', 16) / cfg['sec'] * (0.95 + 0.1 * rng.random()):.1f} samples/s, "
                               f"max memory allocated {job.v.get('mem', 11.2) + 3.7 + rng.random() * 0.4:.2f} GiB")
    bar.flush(t + rng.randint(5_000, 50_000))
    return t, history, times


def hf_eval(job, t, s, cfg):
    """An evaluation pass on rank 0: its tqdm bar, then the eval dict."""
    rng = job.rng
    n = cfg.get("eval_batches", 84)
    frames = [tqdm_frame(0, n, 0, 1)]
    for i in range(4, n + 1, 4):
        frames.append(tqdm_frame(i, n, i * 0.11, 0.11))
    if frames[-1].find(f" {n}/{n} ") < 0:
        frames.append(tqdm_frame(n, n, n * 0.11, 0.11))
    t += int(n * 0.11 * SEC)
    job.say(0, t, "\r" + "\r".join(frames))
    el = n * 0.11 + rng.random()
    t += rng.randint(100_000, 300_000)
    job.say(0, t, f"{{'eval_loss': {cfg['eval_loss'](s)!r}, 'eval_runtime': {el:.4f}, "
                  f"'eval_samples_per_second': {n * 8 * job.world / el:.3f}, "
                  f"'eval_steps_per_second': {n / el:.3f}, 'epoch': {round(s / cfg['epoch_steps'], 4)!r}}}")
    return t + rng.randint(200_000, 600_000)


def hf_train_end(job, t, steps, runtime, train_loss, epoch, out_dir):
    """The end of a successful HF Trainer run on rank 0."""
    rng = job.rng
    t += rng.randint(SEC, 3 * SEC)
    job.say(0, t, [hf_log(t, "INFO", "trainer.py:2591", ""), "", "Training completed. Do not forget to share "
                   "your model on huggingface.co/models =)", "", ""])
    t += rng.randint(1000, 9000)
    job.say(0, t, f"{{'train_runtime': {runtime:.4f}, 'train_samples_per_second': "
                  f"{steps * job.v.get('micro', 16) * job.world / runtime:.3f}, 'train_steps_per_second': "
                  f"{steps / runtime:.3f}, 'train_loss': {train_loss!r}, 'epoch': {epoch!r}}}")
    t += rng.randint(1000, 9000)
    job.say(0, t, "\r" + tqdm_frame(steps, steps, runtime, runtime / steps))
    for src, msg in [("trainer.py:3801", f"Saving model checkpoint to {out_dir}"),
                     ("configuration_utils.py:414", f"Configuration saved in {out_dir}/config.json"),
                     ("configuration_utils.py:865", f"Configuration saved in {out_dir}/generation_config.json"),
                     ("modeling_utils.py:3042", f"Model weights saved in {out_dir}/model.safetensors"),
                     ("tokenization_utils_base.py:2646", f"tokenizer config file saved in {out_dir}/tokenizer_config.json")]:
        t += rng.randint(20_000, 900_000)
        job.say(0, t, hf_log(t, "INFO", src, msg))
    t += rng.randint(5000, 30_000)
    job.say(0, t, ["***** train metrics *****",
                   f"  epoch                    = {epoch:>10}",
                   f"  train_loss               = {train_loss:>10.4f}",
                   f"  train_runtime            = {tq_time(runtime) + f'.{rng.randint(10, 99)}':>10}",
                   f"  train_samples_per_second = {steps * job.v.get('micro', 16) * job.world / runtime:>10.3f}",
                   f"  train_steps_per_second   = {steps / runtime:>10.3f}"])
    return t


def agent_finish_ok(job, t):
    """Each host's torchrun agent after its workers exit cleanly."""
    rng = job.rng
    for n in job.nodes:
        tn = t + rng.randint(SEC, 3 * SEC)
        job.agent(n, tn, job.agent_line(n, tn, "INFO", "torch.distributed.elastic.agent.server.api",
                                        "torch/distributed/elastic/agent/server/api.py:879",
                                        "[default] worker group successfully finished. Waiting 300 seconds for "
                                        "other agents to finish."))
        tn += rng.randint(SEC, 2 * SEC)
        job.agent(n, tn, job.agent_line(n, tn, "INFO", "torch.distributed.elastic.agent.server.api",
                                        "torch/distributed/elastic/agent/server/api.py:932",
                                        f"Done waiting for other agents. Elapsed: {rng.random() * 2:.6f} seconds"))


def agent_child_failed(job, node, t, script, failed, code, others_sigterm=True, mark=None):
    """torchrun's reaction to a failed worker: SIGTERM to the others, the failure summary.
    failed: [(global rank, pid)], first one is the root cause. mark names the root cause's
    exitcode line."""
    rng = job.rng
    mod = "torch.distributed.elastic.multiprocessing.api"
    if others_sigterm:
        dead = {p for _, p in failed}
        for pid in node.pids:
            if pid not in dead:
                t += rng.randint(100, 900)
                job.agent(node, t, job.agent_line(node, t, "WARNING", mod,
                                                  "torch/distributed/elastic/multiprocessing/api.py:897",
                                                  f"Sending process {pid} closing signal SIGTERM"))
    g0, pid0 = failed[0]
    t += rng.randint(SEC, 3 * SEC)
    job.agent(node, t, job.agent_line(node, t, "ERROR", mod, "torch/distributed/elastic/multiprocessing/api.py:869",
                                      f"failed (exitcode: {code}) local_rank: {job.local(g0)} (pid: {pid0}) of "
                                      f"binary: /opt/conda/bin/python3.11"))
    d = dt_of(t)
    stamp = f"{d.year}-{d.month:02d}-{d.day:02d}_{d.hour:02d}:{d.minute:02d}:{d.second:02d}"
    w = 60
    lines = [
        "Traceback (most recent call last):",
        '  File "/opt/conda/bin/torchrun", line 8, in <module>',
        "    sys.exit(main())",
        '  File "/opt/conda/lib/python3.11/site-packages/torch/distributed/elastic/multiprocessing/errors/__init__.py", '
        "line 355, in wrapper",
        "    return f(*args, **kwargs)",
        '  File "/opt/conda/lib/python3.11/site-packages/torch/distributed/run.py", line 919, in main',
        "    run(args)",
        '  File "/opt/conda/lib/python3.11/site-packages/torch/distributed/run.py", line 910, in run',
        "    elastic_launch(",
        '  File "/opt/conda/lib/python3.11/site-packages/torch/distributed/launcher/api.py", line 138, in __call__',
        "    return launch_agent(self._config, self._entrypoint, list(args))",
        '  File "/opt/conda/lib/python3.11/site-packages/torch/distributed/launcher/api.py", line 269, in launch_agent',
        "    raise ChildFailedError(",
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
        "=" * w,
        f"{script} FAILED",
        "-" * w,
        "Failures:",
    ]

    def entry(i, g, pid):
        return [f"[{i}]:",
                f"  time      : {stamp}",
                f"  host      : {node.name}.ec2.internal" if node.name.startswith("ip-") else f"  host      : {node.name}",
                f"  rank      : {g} (local_rank: {job.local(g)})",
                f"  exitcode  : {code} (pid: {pid})",
                "  error_file: <N/A>",
                "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"]

    if len(failed) > 1:
        for i, (g, pid) in enumerate(failed[1:], 1):
            lines += entry(i, g, pid)
    else:
        lines.append("  <NO_OTHER_FAILURES>")
    lines += ["-" * w, "Root Cause (first observed failure):"]
    rc_at = len(lines) + 4
    lines += entry(0, g0, pid0) + ["=" * w]
    assert lines[rc_at].startswith("  exitcode  : ")
    t += rng.randint(1000, 9000)
    job.agent(node, t, lines, {rc_at: mark} if mark else None)
    return t


def agent_sigterm(job, node, t):
    """A host whose agent is told to stop (the job step was cancelled elsewhere)."""
    rng = job.rng
    job.agent(node, t, job.agent_line(node, t, "WARNING", "torch.distributed.elastic.agent.server.api",
                                      "torch/distributed/elastic/agent/server/api.py:704",
                                      "Received Signals.SIGTERM death signal, shutting down workers"))
    for pid in node.pids:
        t += rng.randint(100, 900)
        job.agent(node, t, job.agent_line(node, t, "WARNING", "torch.distributed.elastic.multiprocessing.api",
                                          "torch/distributed/elastic/multiprocessing/api.py:897",
                                          f"Sending process {pid} closing signal SIGTERM"))
    return t


def model_config_json(cfg):
    """A model config.json as transformers writes it: sorted keys, indent 2."""
    return json.dumps(cfg, indent=2, sort_keys=True) + "\n"


def hf_model_config_log(job, t, path, cls, cfg):
    """Rank 0 logging the model config it loaded (one record, raw continuation lines)."""
    rng = job.rng
    t += rng.randint(1000, 30_000)
    job.say(0, t, hf_log(t, "INFO", "configuration_utils.py:679", f"loading configuration file {path}"))
    t += rng.randint(500, 5000)
    body = json.dumps(cfg, indent=2, sort_keys=True).split("\n")
    job.say(0, t, [hf_log(t, "INFO", "configuration_utils.py:746", f"Model config {cls} {body[0]}")] + body[1:] + [""])
    return t


def hf_args_dump(job, t, cls, fields):
    """The example scripts' 'Training/evaluation parameters ...(' dump, one field a line."""
    lines = [f"{hf_time(t)} - INFO - __main__ - Training/evaluation parameters {cls}("]
    lines += [f"{k}={v}," for k, v in fields] + [")"]
    job.say(0, t, lines)
    return t + job.rng.randint(1000, 9000)


HF_ARGS_COMMON = [
    ("_n_gpu", 1), ("accelerator_config", "AcceleratorConfig(split_batches=False, dispatch_batches=None, "
                                          "even_batches=True, use_seedable_sampler=True, non_blocking=False, "
                                          "gradient_accumulation_kwargs=None)"),
    ("adam_beta1", 0.9), ("adam_beta2", 0.999), ("adam_epsilon", 1e-08), ("auto_find_batch_size", False),
    ("bf16_full_eval", False), ("data_seed", None), ("dataloader_drop_last", False),
    ("dataloader_num_workers", 4), ("dataloader_pin_memory", True), ("ddp_backend", None),
    ("ddp_find_unused_parameters", None), ("ddp_timeout", 1800), ("disable_tqdm", False),
    ("eval_accumulation_steps", None), ("fp16_backend", "auto"), ("fp16_full_eval", False),
    ("fp16_opt_level", "O1"), ("gradient_checkpointing", False), ("half_precision_backend", "auto"),
    ("local_rank", 0), ("log_level", "passive"), ("logging_first_step", False),
    ("logging_nan_inf_filter", True), ("logging_strategy", "steps"), ("lr_scheduler_type", "linear"),
    ("max_grad_norm", 1.0), ("optim", "adamw_torch"), ("save_safetensors", True), ("seed", 42),
    ("skip_memory_metrics", True), ("tf32", None), ("torch_compile", False), ("warmup_ratio", 0.0),
    ("weight_decay", 0.0),
]


V_TORCH25 = {"torch": "2.5.1+cu124", "cuda": "12.4", "cuda_drv": "12040", "cuda_rt": "12.4.131", "nccl": "2.21.5",
             "ds": "0.15.4", "tf": "4.46.3", "accelerate": "1.1.1", "datasets": "3.1.0", "tokenizers": "0.20.3",
             "triton": "3.1.0", "driver": "550.127.05", "agent": "glog",
             "python": "3.11.10 | packaged by conda-forge | (main, Oct 16 2024, 01:27:36) [GCC 13.3.0]"}

MT5_SMALL = {
    "_name_or_path": "/fsx/models/mt5-small", "architectures": ["MT5ForConditionalGeneration"],
    "classifier_dropout": 0.0, "d_ff": 1024, "d_kv": 64, "d_model": 512, "decoder_start_token_id": 0,
    "dense_act_fn": "gelu_new", "dropout_rate": 0.1, "eos_token_id": 1, "feed_forward_proj": "gated-gelu",
    "initializer_factor": 1.0, "is_encoder_decoder": True, "is_gated_act": True, "layer_norm_epsilon": 1e-06,
    "model_type": "mt5", "num_decoder_layers": 8, "num_heads": 6, "num_layers": 8, "pad_token_id": 0,
    "relative_attention_max_distance": 128, "relative_attention_num_buckets": 32, "tie_word_embeddings": False,
    "tokenizer_class": "T5Tokenizer", "torch_dtype": "float32", "transformers_version": "4.46.3",
    "use_cache": True, "vocab_size": 250112,
}


def hf_prelude(job, t0, cmd_of, model_dir, model_cls, model_cfg, args_cls, args_extra, hf_fp16):
    """Launch, per-rank start-up and the rank-0 model/argument dumps of an HF example run."""
    rng = job.rng
    ends = []
    for n in job.nodes:
        tn = num_torchrun_start(job, n, t0 + rng.randint(0, 2 * SEC), cmd_of(n))
        for local in range(job.nproc):
            g = n.node_rank * job.nproc + local
            ends.append(num_rank_start(job, g, tn + rng.randint(0, 900_000), ds=True, hf_fp16=hf_fp16))
    t = max(ends) + rng.randint(SEC // 2, SEC)
    t = hf_args_dump(job, t, args_cls, sorted(HF_ARGS_COMMON + args_extra))
    t = hf_model_config_log(job, t, f"{model_dir}/config.json", model_cls, model_cfg)
    t += rng.randint(SEC, 3 * SEC)
    job.say(0, t, hf_log(t, "INFO", "modeling_utils.py:3937", f"loading weights file {model_dir}/model.safetensors"))
    t += rng.randint(SEC, 4 * SEC)
    job.say(0, t, hf_log(t, "INFO", "modeling_utils.py:4800",
                         f"All model checkpoint weights were used when initializing {model_cfg['architectures'][0]}."))
    return t


def scenario_numeric_overflow(d):
    job = NumJob(5101, [("ip-10-0-3-41", "10.0.3.41"), ("ip-10-0-3-57", "10.0.3.57")], 4, "rank",
                 "NVIDIA A100-SXM4-80GB", dict(V_TORCH25, iface="ens32", p2p="P2P/CUMEM/read", micro=16, mem=9.4))
    rng = job.rng
    bundle = d / "bundle"
    culprit_g, batch = 3, 4850
    ds_cfg = {
        "fp16": {"enabled": "auto", "loss_scale": 0, "loss_scale_window": 1000, "initial_scale_power": 16,
                 "hysteresis": 2, "min_loss_scale": 1},
        "zero_optimization": {"stage": 2, "overlap_comm": True, "contiguous_gradients": True,
                              "reduce_bucket_size": 5e8, "allgather_bucket_size": 5e8},
        "gradient_accumulation_steps": "auto", "gradient_clipping": "auto",
        "train_batch_size": "auto", "train_micro_batch_size_per_gpu": "auto",
    }
    resolved = json.loads(json.dumps(ds_cfg))
    resolved["fp16"]["enabled"] = True
    resolved.update({"gradient_accumulation_steps": 1, "gradient_clipping": 1.0, "train_batch_size": 128,
                     "train_micro_batch_size_per_gpu": 16, "steps_per_print": 10})

    def cmd(n):
        return ["+ export TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE='[rank${rank}]:'",
                "+ export NCCL_DEBUG=INFO NCCL_SOCKET_IFNAME=ens32",
                f"+ torchrun --nnodes=2 --nproc-per-node=4 --node-rank={n.node_rank} --rdzv-backend=c10d "
                "--rdzv-endpoint=10.0.3.41:29400 --tee=3 run_translation.py --model_name_or_path "
                "/fsx/models/mt5-small --do_train --source_lang en --target_lang ro --dataset_name wmt16 "
                "--dataset_config_name ro-en --source_prefix 'translate English to Romanian: ' --output_dir "
                "/fsx/runs/mt5-small-enro --per_device_train_batch_size 16 --learning_rate 5e-4 --max_steps 6000 "
                "--logging_steps 50 --fp16 --debug underflow_overflow --deepspeed /fsx/runs/ds_config.json "
                "--overwrite_output_dir"]

    t0 = us_of(2026, 11, 29, 9, 14, 2)
    t = hf_prelude(job, t0, cmd, "/fsx/models/mt5-small", "MT5Config", MT5_SMALL,
                         "Seq2SeqTrainingArguments",
                         [("debug", "[<DebugOption.UNDERFLOW_OVERFLOW: 'underflow_overflow'>]"),
                          ("deepspeed", "/fsx/runs/ds_config.json"), ("fp16", True), ("bf16", False),
                          ("learning_rate", 0.0005), ("logging_steps", 50), ("max_steps", 6000),
                          ("output_dir", "/fsx/runs/mt5-small-enro"), ("per_device_train_batch_size", 16),
                          ("predict_with_generate", False)], True)
    # datasets.map on the main process first: one line of \r frames
    frames = [f"Running tokenizer on train dataset:   0%|          | 0/610320 [00:00<?, ? examples/s]"]
    for k in range(1, 11):
        n_done = 610320 * k // 10
        cells = ("\u2588" * k).ljust(10)
        frames.append(f"Running tokenizer on train dataset: {k * 10:3d}%|{cells}| "
                      f"{n_done}/610320 [{tq_time(k * 6.2)}<{tq_time((10 - k) * 6.2)}, "
                      f"{9400 + rng.randint(0, 900):.2f} examples/s]")
    t += 62 * SEC
    job.say(0, t, "\r" + "\r".join(frames))
    t = num_ds_engine(job, t + 2 * SEC, resolved, job.v["ds"], "torch.float16", lr=5e-4)
    t = num_hf_train_banner(job, t, ["Num examples = 610,320", "Num Epochs = 2",
                                     "Instantaneous batch size per device = 16",
                                     "Total train batch size (w. parallel, distributed & accumulation) = 128",
                                     "Gradient Accumulation steps = 1", "Total optimization steps = 6,000",
                                     "Number of trainable parameters = 300,176,768"])
    sc = DsScaler(16, 1000, 2, 1)

    def loss(s):
        return 1.62 + 9.5 * math.exp(-s / 140.0) + 0.55 * math.exp(-s / 1400.0) + (rng.random() - 0.5) * 0.08

    _, _, times = hf_ds_train(job, t + SEC, {
        "steps": batch, "total": 6000, "sec": 0.43, "loss": loss, "lr": lambda k: 5e-4 * (1 - k / 6000),
        "grad_norm": lambda s: 0.9 + 2.4 * math.exp(-s / 300.0) + rng.random() * 0.4, "epoch_steps": 4768,
        "logging_steps": 50, "steps_per_print": 10, "scaler": sc, "overflow": lambda s: s <= 3,
        "status_every": 25, "status_lag": lambda g, s: (40_000 if g == culprit_g else (190_000, 420_000) if s == batch else 900_000)})
    # Batch 1850 (the 1851st forward) overflows on rank 3: detect_overflow's line, the report.
    walk = T5Walk(rng, "MT5", 8, True, 250112, ("encoder", 5), 63_140.0, stop="encoder.block.5.layer.1.dropout",
                  base_seed=8)
    frames21 = walk.run()[-21:]
    report = duo_report(batch, frames21)
    i_det = report.index(f"Detected inf/nan during batch_number={batch}")
    i_hdr = report.index(f"{DUO_PREFIX} encoder.block.5.layer.1.dropout Dropout")
    tr = times[batch] + rng.randint(120_000, 180_000)
    i = 0
    while i < len(report):
        k = rng.randint(2, 9)
        mk = {}
        if i <= i_det < i + k:
            mk[i_det - i] = "detected"
        if i <= i_hdr < i + k:
            mk[i_hdr - i] = "culprit"
        job.say(culprit_g, tr, report[i:i + k], mk)
        i += k
        tr += rng.randint(3_000, 40_000)
    tb = tr + rng.randint(5_000, 30_000)
    site = "/opt/conda/lib/python3.11/site-packages"
    tb_lines = [
        "Traceback (most recent call last):",
        '  File "/fsx/runs/run_translation.py", line 699, in <module>',
        "    main()",
        '  File "/fsx/runs/run_translation.py", line 615, in main',
        "    train_result = trainer.train(resume_from_checkpoint=checkpoint)",
        f'  File "{site}/transformers/trainer.py", line 2123, in train',
        "    return inner_training_loop(",
        f'  File "{site}/transformers/trainer.py", line 2481, in _inner_training_loop',
        "    tr_loss_step = self.training_step(model, inputs, num_items_in_batch)",
        f'  File "{site}/transformers/trainer.py", line 3579, in training_step',
        "    loss = self.compute_loss(model, inputs, num_items_in_batch=num_items_in_batch)",
        f'  File "{site}/transformers/trainer.py", line 3633, in compute_loss',
        "    outputs = model(**inputs)",
        f'  File "{site}/torch/nn/modules/module.py", line 1736, in _wrapped_call_impl',
        "    return self._call_impl(*args, **kwargs)",
        f'  File "{site}/torch/nn/modules/module.py", line 1747, in _call_impl',
        "    return forward_call(*args, **kwargs)",
        f'  File "{site}/deepspeed/utils/nvtx.py", line 18, in wrapped_fn',
        "    ret_val = func(*args, **kwargs)",
        f'  File "{site}/deepspeed/runtime/engine.py", line 1899, in forward',
        "    loss = self.module(*inputs, **kwargs)",
        f'  File "{site}/transformers/models/mt5/modeling_mt5.py", line 1828, in forward',
        "    encoder_outputs = self.encoder(",
        f'  File "{site}/transformers/models/mt5/modeling_mt5.py", line 1131, in forward',
        "    layer_outputs = layer_module(",
        f'  File "{site}/transformers/models/mt5/modeling_mt5.py", line 759, in forward',
        "    hidden_states = self.layer[-1](hidden_states)",
        f'  File "{site}/transformers/models/mt5/modeling_mt5.py", line 340, in forward',
        "    hidden_states = hidden_states + self.dropout(forwarded_states)",
        f'  File "{site}/torch/nn/modules/module.py", line 1857, in _call_impl',
        "    hook_result = hook(self, args, result)",
        f'  File "{site}/transformers/debug_utils.py", line 272, in forward_hook',
        "    raise ValueError(",
        DUO_ABORT,
    ]
    job.say(culprit_g, tb, tb_lines, {len(tb_lines) - 1: "abort"})
    n0, n1 = job.nodes
    t_fail = tb + rng.randint(2 * SEC, 4 * SEC)
    t_fail = agent_child_failed(job, n0, t_fail, "run_translation.py", [(culprit_g, n0.pids[culprit_g])], 1,
                                mark="rc")
    agent_sigterm(job, n1, t_fail + rng.randint(SEC, 3 * SEC))
    marks = job.render(bundle, lambda n: f"{n.name}/logs/train.log")
    for n in job.nodes:
        write_host_env(job, bundle, n.name)
    write(bundle / "config" / "ds_config.json", json.dumps(ds_cfg, indent=4) + "\n")
    write(bundle / "model" / "mt5-small" / "config.json", model_config_json(MT5_SMALL))
    path = f"{n0.name}/logs/train.log"
    f = [{"code": "numeric.overflow",
          "culprits": [{"host": n0.name, "rank": culprit_g}],
          "evidence": [evd(path, marks[n0.name]["detected"], f"Detected inf/nan during batch_number={batch}"),
                       evd(path, marks[n0.name]["culprit"], "encoder.block.5.layer.1.dropout Dropout")]},
         # The run's only traceback of its own (the runtime analyzer sees no other cause: error).
         {"code": "runtime.first_failure",
          "culprits": [{"host": n0.name, "rank": culprit_g}],
          "evidence": [evd(path, marks[n0.name]["abort"], "ValueError: DebugUnderflowOverflow: inf/nan detected"),
                       evd(path, marks[n0.name]["rc"], f"exitcode  : 1 (pid: {n0.pids[culprit_g]})")]}]
    expected(d, "HF Trainer + DeepSpeed fp16 fine-tuning of an mt5-small model on 2 hosts x 4 A100 with "
                "--debug underflow_overflow; rank 3's forward overflows fp16 in encoder block 5's feed-forward "
                "dropout and DebugUnderflowOverflow aborts the run.", f)
    check_clean_evidence(d, f)
    return None, f


T5_SMALL = {
    "_name_or_path": "/data/models/t5-small", "architectures": ["T5ForConditionalGeneration"],
    "classifier_dropout": 0.0, "d_ff": 2048, "d_kv": 64, "d_model": 512, "decoder_start_token_id": 0,
    "dense_act_fn": "relu", "dropout_rate": 0.1, "eos_token_id": 1, "feed_forward_proj": "relu",
    "initializer_factor": 1.0, "is_encoder_decoder": True, "is_gated_act": False, "layer_norm_epsilon": 1e-06,
    "model_type": "t5", "n_positions": 512, "num_decoder_layers": 6, "num_heads": 8, "num_layers": 6,
    "output_past": True, "pad_token_id": 0, "relative_attention_max_distance": 128,
    "relative_attention_num_buckets": 32, "torch_dtype": "float32", "transformers_version": "4.44.2",
    "use_cache": True, "vocab_size": 32128,
}


def scenario_numeric_overflow_trace(d):
    """A debugging run: DebugUnderflowOverflow(model, trace_batch_nums=[1, 3]) on every rank of a
    plain DDP + torch.autocast(fp16) loop; the traced batches show encoder block 4's feed-forward
    output growing, and batch 5 overflows on rank 6."""
    v = {"torch": "2.4.1+cu121", "cuda": "12.1", "cuda_drv": "12020", "cuda_rt": "12.1.105", "nccl": "2.20.5",
         "tf": "4.44.2", "datasets": "2.21.0", "tokenizers": "0.19.1", "triton": "3.0.0", "accelerate": "0.34.2",
         "driver": "535.183.01", "agent": "glog", "python": "3.10.14 (main, Jul 22 2024, 12:01:33) [GCC 11.4.0]",
         "iface": "eth0", "p2p": "P2P/IPC/read", "net_plugin_warn": True, "cpu": "Intel(R) Xeon(R) Platinum 8480+",
         "cpus": 112}
    job = NumJob(5202, [("gpu-b-07", "10.12.0.7"), ("gpu-b-08", "10.12.0.8")], 4, "rank",
                 "NVIDIA H100 80GB HBM3", v)
    rng = job.rng
    bundle = d / "bundle"
    culprit_g, batch = 6, 5

    def cmd(n):
        return ["+ export TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE='[rank${rank}]:'",
                "+ export NCCL_DEBUG=INFO",
                f"+ torchrun --nnodes=2 --nproc-per-node=4 --node-rank={n.node_rank} --rdzv-backend=c10d "
                "--rdzv-endpoint=10.12.0.7:29400 --tee=3 debug_t5_fp16.py --model /data/models/t5-small "
                "--data /data/cnn_dailymail/train.jsonl --batch-size 32 --lr 3e-4 --trace-batches 1,3 --steps 400"]

    t0 = us_of(2026, 5, 18, 16, 40, 11)
    ends = []
    for n in job.nodes:
        tn = num_torchrun_start(job, n, t0 + rng.randint(0, SEC), cmd(n))
        for local in range(job.nproc):
            g = n.node_rank * job.nproc + local
            ends.append(num_rank_start(job, g, tn + rng.randint(0, 700_000), ds=False, extra=[
                lambda x, g=g: (f"{hf_time(x)} - INFO - debug_t5 - rank {g}: loaded /data/models/t5-small "
                                f"(60,506,624 parameters), torch.autocast(dtype=torch.float16) + GradScaler")]))
    t = max(ends) + rng.randint(SEC // 2, SEC)
    probe = T5Walk(random.Random(0), "T5", 6, False, 32128, None, 0.0).run()
    n_modules = len({name for name, _, _ in probe})
    job.say(0, t, f"{hf_time(t)} - INFO - debug_t5 - DebugUnderflowOverflow: forward hooks on {n_modules} modules, "
                  f"trace_batch_nums=[1, 3], abort_after_batch_num=None")
    t += rng.randint(SEC, 2 * SEC)
    sec = 0.41
    hot = ("encoder", 4)
    growth = {1: 12_100.0, 3: 39_400.0, 5: 62_200.0}
    for b in range(batch + 1):
        tb = t
        if b in (1, 3):
            # Every rank prints its frames hook by hook while its forward runs.
            for g in range(job.world):
                walk = T5Walk(rng, "T5", 6, False, 32128, hot, growth[b] * (0.94 + 0.1 * rng.random()),
                              gain=1.0 if b == 1 else 1.06, base_seed=52)
                frames = walk.run()
                tg = tb + rng.randint(1_000, 20_000)
                job.say(g, tg, ["", "", f"{DUO_PREFIX} *** Starting batch number={b} ***", DUO_HEADER])
                for name, cls, rows in frames:
                    tg += rng.randint(200, 2_500)
                    job.say(g, tg, duo_frame(name, cls, rows))
            t += int(sec * 2.6 * SEC)
        elif b == batch:
            walk = T5Walk(rng, "T5", 6, False, 32128, hot, growth[b], stop="encoder.block.4.layer.1.dropout",
                          gain=1.1, base_seed=52)
            report = duo_report(b, walk.run()[-21:])
            i_det = report.index(f"Detected inf/nan during batch_number={b}")
            i_hdr = report.index(f"{DUO_PREFIX} encoder.block.4.layer.1.dropout Dropout")
            tr = tb + rng.randint(90_000, 140_000)
            job.say(culprit_g, tr, report, {i_det: "detected", i_hdr: "culprit"})
            break
        t += int(sec * (0.95 + 0.1 * rng.random()) * SEC)
        loss = [10.87, 9.96, 9.13, 8.71, 8.26][b]
        job.say(0, t + 2_000, f"{hf_time(t)} - INFO - debug_t5 - step {b} loss {loss + rng.random() * 0.05:.4f} "
                              f"lr {3e-4 * min(1.0, (b + 1) / 100):.2e} ({(t - tb) / SEC:.2f}s)")
    site = "/usr/local/lib/python3.10/dist-packages"
    tb = tr + rng.randint(3_000, 20_000)
    tb_lines = [
        "Traceback (most recent call last):",
        '  File "/workspace/debug_t5_fp16.py", line 141, in <module>',
        "    main()",
        '  File "/workspace/debug_t5_fp16.py", line 118, in main',
        "    out = model(input_ids=batch[\"input_ids\"], attention_mask=batch[\"attention_mask\"], labels=batch[\"labels\"])",
        f'  File "{site}/torch/nn/modules/module.py", line 1553, in _wrapped_call_impl',
        "    return self._call_impl(*args, **kwargs)",
        f'  File "{site}/torch/nn/modules/module.py", line 1562, in _call_impl',
        "    return forward_call(*args, **kwargs)",
        f'  File "{site}/torch/nn/parallel/distributed.py", line 1636, in forward',
        "    else self._run_ddp_forward(*inputs, **kwargs)",
        f'  File "{site}/transformers/models/t5/modeling_t5.py", line 1739, in forward',
        "    encoder_outputs = self.encoder(",
        f'  File "{site}/transformers/models/t5/modeling_t5.py", line 1106, in forward',
        "    layer_outputs = layer_module(",
        f'  File "{site}/transformers/models/t5/modeling_t5.py", line 751, in forward',
        "    hidden_states = self.layer[-1](hidden_states)",
        f'  File "{site}/transformers/models/t5/modeling_t5.py", line 343, in forward',
        "    hidden_states = hidden_states + self.dropout(forwarded_states)",
        f'  File "{site}/torch/nn/modules/module.py", line 1616, in _call_impl',
        "    hook_result = hook(self, args, result)",
        f'  File "{site}/transformers/debug_utils.py", line 272, in forward_hook',
        "    raise ValueError(",
        DUO_ABORT,
    ]
    job.say(culprit_g, tb, tb_lines, {len(tb_lines) - 1: "abort"})
    n0, n1 = job.nodes
    t_fail = agent_child_failed(job, n1, tb + rng.randint(2 * SEC, 4 * SEC), "debug_t5_fp16.py",
                                [(culprit_g, n1.pids[job.local(culprit_g)])], 1, mark="rc")
    agent_sigterm(job, n0, t_fail + rng.randint(SEC, 3 * SEC))
    marks = job.render(bundle, lambda n: f"nodes/{n.name}/train.log")
    for n in job.nodes:
        write_host_env(job, bundle, f"nodes/{n.name}")
    write(bundle / "model" / "t5-small" / "config.json", model_config_json(T5_SMALL))
    path = f"nodes/{n1.name}/train.log"
    f = [{"code": "numeric.overflow",
          "culprits": [{"host": n1.name, "rank": culprit_g}],
          "evidence": [evd(path, marks[n1.name]["detected"], f"Detected inf/nan during batch_number={batch}"),
                       evd(path, marks[n1.name]["culprit"], "encoder.block.4.layer.1.dropout Dropout")]},
         # The run's only traceback of its own (the runtime analyzer sees no other cause: error).
         {"code": "runtime.first_failure",
          "culprits": [{"host": n1.name, "rank": culprit_g}],
          "evidence": [evd(path, marks[n1.name]["abort"], "ValueError: DebugUnderflowOverflow: inf/nan detected"),
                       evd(path, marks[n1.name]["rc"],
                           f"exitcode  : 1 (pid: {n1.pids[job.local(culprit_g)]})")]}]
    expected(d, "Plain DDP + fp16 autocast debugging run of t5-small on 2 hosts x 4 H100 with "
                "DebugUnderflowOverflow tracing batches 1 and 3 on every rank (encoder block 4's feed-forward "
                "output grows ~3x between them); batch 5 then overflows on rank 6.", f)
    check_clean_evidence(d, f)
    return None, f


OPT_13B = {
    "_name_or_path": "/shared/models/opt-1.3b", "_remove_final_layer_norm": False, "activation_dropout": 0.0,
    "activation_function": "relu", "architectures": ["OPTForCausalLM"], "attention_dropout": 0.0,
    "bos_token_id": 2, "do_layer_norm_before": True, "dropout": 0.1, "enable_bias": True, "eos_token_id": 2,
    "ffn_dim": 8192, "hidden_size": 2048, "init_std": 0.02, "layer_norm_elementwise_affine": True,
    "layerdrop": 0.0, "max_position_embeddings": 2048, "model_type": "opt", "num_attention_heads": 32,
    "num_hidden_layers": 24, "pad_token_id": 1, "prefix": "</s>", "torch_dtype": "float16",
    "transformers_version": "4.31.0", "use_cache": True, "vocab_size": 50272, "word_embed_proj_dim": 2048,
}


def scenario_numeric_loss_scale_collapse(d):
    """DeepSpeed fp16: calibration, 600 good steps, then the scale halves to 1 and overflows on
    every step after; some OVERFLOW lines are glued after the rank-0 tqdm bar."""
    v = {"torch": "2.0.1+cu118", "cuda": "11.8", "cuda_drv": "12020", "cuda_rt": "11.8.89", "nccl": "2.14.3",
         "ds": "0.9.5", "tf": "4.31.0", "accelerate": "0.21.0", "datasets": "2.14.4", "tokenizers": "0.13.3",
         "triton": "2.0.0", "driver": "535.54.03", "agent": "pylog", "iface": "ib0", "p2p": "P2P/IPC/read",
         "python": "3.10.12 (main, Jun 11 2023, 05:26:28) [GCC 11.4.0]", "micro": 8, "mem": 21.3,
         "os": "Ubuntu 22.04.2 LTS (x86_64)", "kernel": "5.15.0-76-generic", "gas": 2}
    job = NumJob(5303, [("gpu-node-11", "10.8.4.11"), ("gpu-node-12", "10.8.4.12")], 8, "default",
                 "NVIDIA A100-SXM4-80GB", v)
    rng = job.rng
    bundle = d / "bundle"
    ds_cfg = {
        "fp16": {"enabled": True, "loss_scale": 0, "loss_scale_window": 1000, "initial_scale_power": 16,
                 "hysteresis": 2, "min_loss_scale": 1},
        "zero_optimization": {"stage": 2, "allgather_partitions": True, "allgather_bucket_size": 2e8,
                              "overlap_comm": True, "reduce_scatter": True, "reduce_bucket_size": 2e8,
                              "contiguous_gradients": True},
        "gradient_accumulation_steps": 2, "gradient_clipping": 1.0, "steps_per_print": 10,
        "train_micro_batch_size_per_gpu": 8, "wall_clock_breakdown": False,
    }

    def cmd(n):
        return ["+ export NCCL_DEBUG=INFO NCCL_SOCKET_IFNAME=ib0",
                f"+ torchrun --nnodes 2 --nproc_per_node 8 --node_rank {n.node_rank} --master_addr 10.8.4.11 "
                "--master_port 29500 --tee 3 finetune_opt.py --model_name_or_path /shared/models/opt-1.3b "
                "--dataset /shared/data/sft-mix-v3 --output_dir /shared/runs/opt13b-sft --max_steps 1000 "
                "--per_device_train_batch_size 8 --gradient_accumulation_steps 2 --learning_rate 2e-5 "
                "--warmup_steps 50 --logging_steps 10 --save_steps 500 --fp16 --deepspeed ds_zero2_fp16.json"]

    t0 = us_of(2026, 2, 3, 22, 5, 40)
    t = hf_prelude(job, t0, cmd, "/shared/models/opt-1.3b", "OPTConfig", OPT_13B,
                         "TrainingArguments",
                         [("deepspeed", "ds_zero2_fp16.json"), ("fp16", True), ("bf16", False),
                          ("gradient_accumulation_steps", 2), ("learning_rate", 2e-05), ("logging_steps", 10),
                          ("max_steps", 1000), ("output_dir", "/shared/runs/opt13b-sft"),
                          ("per_device_train_batch_size", 8), ("save_steps", 500), ("warmup_steps", 50)], True)
    t = num_ds_engine(job, t + 3 * SEC, ds_cfg, v["ds"], "torch.float16", lr=0.0)
    t = num_hf_train_banner(job, t, ["Num examples = 412,883", "Num Epochs = 1",
                                     "Instantaneous batch size per device = 8",
                                     "Total train batch size (w. parallel, distributed & accumulation) = 256",
                                     "Gradient Accumulation steps = 2", "Total optimization steps = 1,000",
                                     "Number of trainable parameters = 1,315,758,080"])
    sc = DsScaler(16, 1000, 2, 1)
    collapse_from = 613
    state = {"first_min": None}

    def overflow(s):
        return s <= 3 or s >= collapse_from

    def mark(kind, s, text):
        if kind == "overflow" and text.endswith("Attempted loss scale: 1, reducing to 1") and not state["first_min"]:
            state["first_min"] = s
            return "first_min"
        return None

    def glue(s, msg):
        return s == state.get("first_min_next") or (s >= collapse_from and rng.random() < 0.35)

    def loss(s):
        if s < collapse_from:
            return 2.31 + 1.6 * math.exp(-s / 90.0) + 0.25 * math.exp(-s / 900.0) + (rng.random() - 0.5) * 0.09
        return 2.47 + 0.06 * math.sin(s / 7.0) + (rng.random() - 0.5) * 0.09

    def lr(k):
        return 2e-05 * min(1.0, k / 50) * (1 - max(0, k - 50) / 950) if k else 0.0

    # The first overflow at the minimum is glued to the bar: find its step ahead of the loop.
    probe = DsScaler(16, 1000, 2, 1)
    for s in range(1, 1001):
        m = probe.update(overflow(s))
        if m and m.endswith("Attempted loss scale: 1, reducing to 1"):
            state["first_min_next"] = s
            break
    t, history, _ = hf_ds_train(job, t + SEC, {
        "steps": 1000, "total": 1000, "sec": 1.34, "loss": loss, "lr": lr, "grad_norm": None,
        "epoch_steps": 1613, "logging_steps": 10, "steps_per_print": 10, "scaler": sc, "overflow": overflow,
        "mark": mark, "glue": glue, "status_every": 0})
    t = hf_train_end(job, t, 1000, 1000 * 1.34 + 11.2, round(sum(h["loss"] for h in history) / len(history), 4),
                     0.62, "/shared/runs/opt13b-sft")
    agent_finish_ok(job, t)
    marks = job.render(bundle, lambda n: f"nodes/{n.name}/logs/train.log")
    for n in job.nodes:
        write_host_env(job, bundle, f"nodes/{n.name}")
    write(bundle / "config" / "ds_zero2_fp16.json", json.dumps(ds_cfg, indent=2) + "\n")
    write(bundle / "model" / "opt-1.3b" / "config.json", model_config_json(OPT_13B))
    n0 = job.nodes[0]
    f = [{"code": "numeric.loss_scale_collapse",
          "culprits": [],
          "evidence": [evd(f"nodes/{n0.name}/logs/train.log", marks[n0.name]["first_min"],
                           "Attempted loss scale: 1, reducing to 1")]}]
    expected(d, "HF Trainer + DeepSpeed ZeRO-2 fp16 fine-tuning of an OPT-1.3B model on 2 hosts x 8 A100: after "
                "the normal calibration and 600 good steps the dynamic loss scale halves down to the minimum 1 "
                "and every later step overflows and is skipped.", f)
    check_clean_evidence(d, f)
    return None, f


QWEN_05B = {
    "_name_or_path": "/mnt/models/qwen2.5-0.5b", "architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0,
    "bos_token_id": 151643, "eos_token_id": 151643, "hidden_act": "silu", "hidden_size": 896,
    "initializer_range": 0.02, "intermediate_size": 4864, "max_position_embeddings": 32768,
    "max_window_layers": 24, "model_type": "qwen2", "num_attention_heads": 14, "num_hidden_layers": 24,
    "num_key_value_heads": 2, "rms_norm_eps": 1e-06, "rope_scaling": None, "rope_theta": 1000000.0,
    "sliding_window": None, "tie_word_embeddings": True, "torch_dtype": "bfloat16",
    "transformers_version": "4.46.3", "use_cache": True, "use_sliding_window": False, "vocab_size": 151936,
}


def scenario_numeric_loss_spike(d):
    """HF Trainer + DeepSpeed bf16 ("auto" resolved by --bf16): the logged loss jumps once to
    ~4.7x its running median and comes back. A bf16 model trained in bf16 (no bf16_in_fp16)."""
    job = NumJob(5404, [("node03", "10.20.1.3"), ("node04", "10.20.1.4")], 4, "default",
                 "NVIDIA H100 80GB HBM3", dict(V_TORCH25, iface="bond0", micro=8, mem=18.7, net_plugin_warn=True, gas=4))
    rng = job.rng
    bundle = d / "bundle"
    ds_cfg = {
        "bf16": {"enabled": "auto"},
        "fp16": {"enabled": "auto", "loss_scale": 0, "loss_scale_window": 1000, "initial_scale_power": 16,
                 "hysteresis": 2, "min_loss_scale": 1},
        "zero_optimization": {"stage": 2, "overlap_comm": True, "contiguous_gradients": True,
                              "reduce_bucket_size": "auto"},
        "gradient_accumulation_steps": "auto", "gradient_clipping": "auto", "steps_per_print": 50,
        "train_batch_size": "auto", "train_micro_batch_size_per_gpu": "auto",
    }
    resolved = json.loads(json.dumps(ds_cfg))
    resolved["bf16"]["enabled"] = True
    resolved["fp16"]["enabled"] = False
    resolved["zero_optimization"]["reduce_bucket_size"] = 802816
    resolved.update({"gradient_accumulation_steps": 4, "gradient_clipping": 1.0, "train_batch_size": 256,
                     "train_micro_batch_size_per_gpu": 8})

    def cmd(n):
        return ["+ export NCCL_DEBUG=INFO NCCL_SOCKET_IFNAME=bond0",
                f"+ torchrun --nnodes=2 --nproc_per_node=4 --node_rank={n.node_rank} --master_addr=10.20.1.3 "
                "--master_port=29500 --tee 3 train_sft.py --model_name_or_path /mnt/models/qwen2.5-0.5b "
                "--dataset /mnt/data/chat-sft-1m.jsonl --output_dir /mnt/runs/qwen05b-sft --bf16 True "
                "--per_device_train_batch_size 8 --gradient_accumulation_steps 4 --learning_rate 1e-5 "
                "--lr_scheduler_type cosine --warmup_ratio 0.03 --max_steps 2000 --logging_steps 5 "
                "--eval_strategy steps --eval_steps 500 --save_strategy no --deepspeed ds_config.json"]

    t0 = us_of(2026, 7, 9, 3, 31, 18)
    t = hf_prelude(job, t0, cmd, "/mnt/models/qwen2.5-0.5b", "Qwen2Config", QWEN_05B,
                         "TrainingArguments",
                         [("deepspeed", "ds_config.json"), ("fp16", False), ("bf16", True), ("eval_steps", 500),
                          ("eval_strategy", "IntervalStrategy.STEPS"), ("gradient_accumulation_steps", 4),
                          ("learning_rate", 1e-05), ("logging_steps", 5), ("max_steps", 2000),
                          ("output_dir", "/mnt/runs/qwen05b-sft"), ("per_device_train_batch_size", 8)], False)
    t = num_ds_engine(job, t + 2 * SEC, resolved, job.v["ds"], "torch.bfloat16", lr=0.0)
    t = num_hf_train_banner(job, t, ["Num examples = 1,024,000", "Num Epochs = 1",
                                     "Instantaneous batch size per device = 8",
                                     "Total train batch size (w. parallel, distributed & accumulation) = 256",
                                     "Gradient Accumulation steps = 4", "Total optimization steps = 2,000",
                                     "Number of trainable parameters = 494,032,768"])
    spike_step = 1235
    base = {}

    def loss(s):
        if s == spike_step:
            return 6.2817
        b = 1.18 + 1.05 * math.exp(-s / 120.0) + 0.12 * math.exp(-s / 1500.0)
        if s == spike_step + 5:
            b *= 1.11
        base[s] = b * (1 + (rng.random() - 0.5) * 0.11)
        return base[s]

    def grad_norm(s):
        if s == spike_step:
            return 27.508312225341797
        return 0.55 + 1.9 * math.exp(-s / 200.0) + rng.random() * 0.25 + (1.3 if s == spike_step + 5 else 0.0)

    def lr(k):
        w = 60
        return 1e-05 * (k / w if k < w else 0.5 * (1 + math.cos(math.pi * (k - w) / (2000 - w))))

    def mark(kind, s, text):
        return "spike" if kind == "dict" and s == spike_step else None

    t, history, _ = hf_ds_train(job, t + SEC, {
        "steps": 2000, "total": 2000, "sec": 1.07, "loss": loss, "lr": lr, "grad_norm": grad_norm,
        "epoch_steps": 4000, "logging_steps": 5, "steps_per_print": 50, "scaler": None, "mark": mark,
        "eval_every": 500, "eval_loss": lambda s: round(1.21 + 0.9 * math.exp(-s / 160.0) + rng.random() * 0.02, 6),
        "eval_batches": 60, "flush_every": 25, "status_every": 10, "status_lag": lambda g, s: 200_000})
    t = hf_train_end(job, t, 2000, 2000 * 1.07 + 131.5, round(sum(h["loss"] for h in history if "loss" in h)
                                                             / sum(1 for h in history if "loss" in h), 4),
                     0.5, "/mnt/runs/qwen05b-sft")
    agent_finish_ok(job, t)
    marks = job.render(bundle, lambda n: f"{n.name}/logs/train.log")
    for n in job.nodes:
        write_host_env(job, bundle, n.name)
    write(bundle / "config" / "ds_config.json", json.dumps(ds_cfg, indent=2) + "\n")
    write(bundle / "model" / "qwen2.5-0.5b" / "config.json", model_config_json(QWEN_05B))
    n0 = job.nodes[0]
    f = [{"code": "numeric.loss_spike",
          "culprits": [{"host": n0.name, "rank": 0}],
          "evidence": [evd(f"{n0.name}/logs/train.log", marks[n0.name]["spike"], "'loss': 6.2817")]}]
    expected(d, "HF Trainer + DeepSpeed bf16 SFT of a bf16 Qwen2.5-0.5B model on 2 hosts x 4 H100: the loss "
                "logged by rank 0 jumps once to ~5x its recent median at step 1235 and recovers; no NaN.", f)
    check_clean_evidence(d, f)
    return None, f


LLAMA_3B = {
    "_name_or_path": "/models/llama-3.2-3b", "architectures": ["LlamaForCausalLM"], "attention_bias": False,
    "attention_dropout": 0.0, "bos_token_id": 128000, "eos_token_id": 128001, "head_dim": 128,
    "hidden_act": "silu", "hidden_size": 3072, "initializer_range": 0.02, "intermediate_size": 8192,
    "max_position_embeddings": 131072, "mlp_bias": False, "model_type": "llama", "num_attention_heads": 24,
    "num_hidden_layers": 28, "num_key_value_heads": 8, "pretraining_tp": 1, "rms_norm_eps": 1e-05,
    "rope_scaling": {"factor": 32.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                     "original_max_position_embeddings": 8192, "rope_type": "llama3"},
    "rope_theta": 500000.0, "tie_word_embeddings": True, "torch_dtype": "bfloat16",
    "transformers_version": "4.46.3", "use_cache": True, "vocab_size": 128256,
}


def scenario_numeric_bf16_in_fp16(d):
    """A bf16-pretrained model fine-tuned with DeepSpeed fp16, launched by the deepspeed launcher
    over pdsh (one log on the launch host, every line prefixed "host: "); training is healthy."""
    job = NumJob(5505, [("gpu-node-21", "10.2.0.21"), ("gpu-node-22", "10.2.0.22")], 8, "pdsh",
                 "NVIDIA A100-SXM4-80GB", dict(V_TORCH25, iface="ib0", micro=4, mem=27.9, gas=8))
    rng = job.rng
    bundle = d / "bundle"
    ds_cfg = {
        "train_micro_batch_size_per_gpu": 4,
        "gradient_accumulation_steps": 8,
        "gradient_clipping": 1.0,
        "steps_per_print": 100,
        "fp16": {"enabled": True, "loss_scale": 0, "loss_scale_window": 1000, "initial_scale_power": 16,
                 "hysteresis": 2, "min_loss_scale": 1},
        "bf16": {"enabled": False},
        "zero_optimization": {"stage": 2, "overlap_comm": True, "contiguous_gradients": True,
                              "reduce_bucket_size": 5e8, "allgather_bucket_size": 5e8},
        "wall_clock_breakdown": False,
    }
    ds_text = json.dumps(ds_cfg, indent=4) + "\n"
    n0, n1 = job.nodes
    t = us_of(2026, 4, 22, 14, 2, 37)
    world = {n.name: list(range(job.nproc)) for n in job.nodes}
    info = base64.urlsafe_b64encode(json.dumps(world).encode()).decode()
    user_args = ("train.py --model_name_or_path /models/llama-3.2-3b --data_path /data/support-chat-v2 "
                 "--output_dir /checkpoints/llama32-3b-support --num_train_epochs 1 --max_steps 1500 "
                 "--per_device_train_batch_size 4 --gradient_accumulation_steps 8 --learning_rate 2e-5 "
                 "--logging_steps 10 --save_steps 750 --fp16 --deepspeed ds_config.json")
    # The launcher itself runs on the first host; its own lines carry no pdsh prefix.
    job.shared.emit(t, ds_line(t, "INFO", "real_accelerator.py:219:get_accelerator",
                               "Setting ds_accelerator to cuda (auto detect)"))
    t += rng.randint(SEC, 2 * SEC)
    job.shared.emit(t, ds_line(t, "INFO", "multinode_runner.py:80:get_cmd", "Running on the following workers: "
                                                                            f"{n0.name},{n1.name}"))
    t += rng.randint(1000, 9000)
    job.shared.emit(t, ds_line(t, "INFO", "runner.py:568:main",
                               f"cmd = pdsh -S -f 1024 -w {n0.name},{n1.name} export NCCL_DEBUG=INFO; export "
                               f"NCCL_SOCKET_IFNAME=ib0; export PYTHONPATH=/workspace;  cd /workspace; "
                               f"/opt/conda/bin/python3.11 -u -m deepspeed.launcher.launch --world_info={info} "
                               f"--node_rank=%n --master_addr={n0.ip} --master_port=29500 {user_args}"))
    ends = []
    for n in job.nodes:
        tn = t + rng.randint(SEC, 3 * SEC)
        gl = ", ".join(f"'{x.name}': [{', '.join(str(x.node_rank * job.nproc + i) for i in range(job.nproc))}]"
                       for x in job.nodes)
        for src, msg in [
            ("launch.py:146:main", f"WORLD INFO DICT: {{{', '.join(repr(k) + ': ' + str(v) for k, v in world.items())}}}"),
            ("launch.py:152:main", f"nnodes=2, num_local_procs={job.nproc}, node_rank={n.node_rank}"),
            ("launch.py:163:main", f"global_rank_mapping=defaultdict(<class 'list'>, {{{gl}}})"),
            ("launch.py:164:main", f"dist_world_size={job.world}"),
            ("launch.py:168:main", f"Setting CUDA_VISIBLE_DEVICES={','.join(str(i) for i in range(job.nproc))}"),
            ("launch.py:256:main", f"process {n.pids[0]} spawned with command: ['/opt/conda/bin/python3.11', '-u', "
                                   f"'train.py', '--local_rank=0', ...]"),
        ]:
            tn += rng.randint(100, 3000)
            job.agent(n, tn, ds_line(tn, "INFO", src, msg))
        for local in range(job.nproc):
            g = n.node_rank * job.nproc + local
            ends.append(num_rank_start(job, g, tn + rng.randint(SEC, 2 * SEC), ds=True, hf_fp16=True))
    t = max(ends) + rng.randint(SEC // 2, SEC)
    t = hf_model_config_log(job, t, "/models/llama-3.2-3b/config.json", "LlamaConfig", LLAMA_3B)
    t += rng.randint(5 * SEC, 9 * SEC)
    job.say(0, t, "\rLoading checkpoint shards:   0%|          | 0/2 [00:00<?, ?it/s]"
                  "\rLoading checkpoint shards:  50%|\u2588\u2588\u2588\u2588\u2588     | 1/2 [00:03<00:03,  3.41s/it]"
                  "\rLoading checkpoint shards: 100%|\u2588\u2588\u2588\u2588\u2588\u2588\u2588\u2588\u2588\u2588| 2/2 "
                  "[00:04<00:00,  2.17s/it]")
    t = num_ds_engine(job, t + 2 * SEC, ds_cfg, job.v["ds"], "torch.float16", lr=0.0)
    t = num_hf_train_banner(job, t, ["Num examples = 388,120", "Num Epochs = 1",
                                     "Instantaneous batch size per device = 4",
                                     "Total train batch size (w. parallel, distributed & accumulation) = 512",
                                     "Gradient Accumulation steps = 8", "Total optimization steps = 1,500",
                                     "Number of trainable parameters = 3,212,749,824"])

    def loss(s):
        return 0.92 + 0.85 * math.exp(-s / 110.0) + 0.1 * math.exp(-s / 900.0) + (rng.random() - 0.5) * 0.07

    def lr(k):
        return 2e-05 * min(1.0, k / 45) * (1 - max(0, k - 45) / 1455)

    t, history, _ = hf_ds_train(job, t + SEC, {
        "steps": 1500, "total": 1500, "sec": 2.61, "loss": loss, "lr": lr,
        "grad_norm": lambda s: 0.31 + 1.4 * math.exp(-s / 150.0) + rng.random() * 0.12,
        "epoch_steps": 758, "logging_steps": 10, "steps_per_print": 100, "scaler": DsScaler(16, 1000, 2, 1),
        "overflow": lambda s: s <= 4, "status_every": 0, "flush_every": 25})
    t = hf_train_end(job, t, 1500, 1500 * 2.61 + 40.3, round(sum(h["loss"] for h in history) / len(history), 4),
                     1.98, "/checkpoints/llama32-3b-support")
    for n in job.nodes:
        tn = t + rng.randint(2 * SEC, 4 * SEC)
        for pid in n.pids:
            tn += rng.randint(10_000, 400_000)
            job.agent(n, tn, ds_line(tn, "INFO", "launch.py:351:main", f"Process {pid} exits successfully."))
    job.render(bundle, lambda n: "logs/deepspeed_launcher.log")
    for n in job.nodes:
        write_host_env(job, bundle, f"nodes/{n.name}")
    write(bundle / "config" / "ds_config.json", ds_text)
    mtext = model_config_json(LLAMA_3B)
    write(bundle / "model" / "llama-3.2-3b" / "config.json", mtext)
    f = [{"code": "numeric.bf16_in_fp16",
          "culprits": [],
          "evidence": [evd("model/llama-3.2-3b/config.json", json_line_of(mtext, None, "torch_dtype"),
                           '"torch_dtype": "bfloat16"'),
                       evd("config/ds_config.json", json_line_of(ds_text, "fp16", "enabled"), '"enabled": true')]}]
    expected(d, "HF Trainer + DeepSpeed fp16 fine-tuning of a Llama model whose config.json says bfloat16, "
                "launched with the deepspeed launcher over pdsh on 2 hosts x 8 A100; the loss scale only "
                "calibrates and training is otherwise healthy.", f)
    check_clean_evidence(d, f)
    return None, f


OPT_350M = {
    "_name_or_path": "/data/models/opt-350m", "_remove_final_layer_norm": False, "activation_dropout": 0.0,
    "activation_function": "relu", "architectures": ["OPTForCausalLM"], "attention_dropout": 0.0,
    "bos_token_id": 2, "do_layer_norm_before": False, "dropout": 0.1, "enable_bias": True, "eos_token_id": 2,
    "ffn_dim": 4096, "hidden_size": 1024, "init_std": 0.02, "layer_norm_elementwise_affine": True,
    "layerdrop": 0.0, "max_position_embeddings": 2048, "model_type": "opt", "num_attention_heads": 16,
    "num_hidden_layers": 24, "pad_token_id": 1, "prefix": "</s>", "torch_dtype": "float16",
    "transformers_version": "4.46.3", "use_cache": True, "vocab_size": 50272, "word_embed_proj_dim": 512,
}


def scenario_healthy_fp16(d):
    """DeepSpeed fp16 done right: a longer calibration burst from 2^16, the scale growing back
    after 1000 clean steps and two isolated overflows later; loss decreasing noisily."""
    job = NumJob(5606, [("gpu-c-01", "10.30.0.11"), ("gpu-c-02", "10.30.0.12")], 4, "rank",
                 "NVIDIA H100 80GB HBM3", dict(V_TORCH25, iface="eth0", micro=16, mem=14.2))
    rng = job.rng
    bundle = d / "bundle"
    ds_cfg = {
        "fp16": {"enabled": "auto", "loss_scale": 0, "loss_scale_window": 1000, "initial_scale_power": 16,
                 "hysteresis": 2, "min_loss_scale": 1},
        "zero_optimization": {"stage": 1},
        "gradient_accumulation_steps": "auto", "gradient_clipping": "auto", "steps_per_print": 100,
        "train_batch_size": "auto", "train_micro_batch_size_per_gpu": "auto",
    }
    resolved = json.loads(json.dumps(ds_cfg))
    resolved["fp16"]["enabled"] = True
    resolved.update({"gradient_accumulation_steps": 1, "gradient_clipping": 1.0, "train_batch_size": 128,
                     "train_micro_batch_size_per_gpu": 16})

    def cmd(n):
        return ["+ export TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE='[rank${rank}]:'",
                "+ export NCCL_DEBUG=INFO",
                f"+ torchrun --nnodes=2 --nproc-per-node=4 --node-rank={n.node_rank} --rdzv-backend=c10d "
                "--rdzv-endpoint=10.30.0.11:29400 --tee=3 run_clm.py --model_name_or_path /data/models/opt-350m "
                "--dataset_name wikitext --dataset_config_name wikitext-103-raw-v1 --do_train --do_eval "
                "--per_device_train_batch_size 16 --learning_rate 5e-5 --max_steps 3000 --logging_steps 10 "
                "--eval_strategy steps --eval_steps 1000 --save_steps 1000 --fp16 --deepspeed ds_config.json "
                "--output_dir /data/runs/opt350m-wt103"]

    t0 = us_of(2026, 9, 14, 11, 48, 6)
    t = hf_prelude(job, t0, cmd, "/data/models/opt-350m", "OPTConfig", OPT_350M,
                         "TrainingArguments",
                         [("deepspeed", "ds_config.json"), ("fp16", True), ("bf16", False), ("eval_steps", 1000),
                          ("learning_rate", 5e-05), ("logging_steps", 10), ("max_steps", 3000),
                          ("output_dir", "/data/runs/opt350m-wt103"), ("per_device_train_batch_size", 16),
                          ("save_steps", 1000)], True)
    t = num_ds_engine(job, t + 2 * SEC, resolved, job.v["ds"], "torch.float16", stage=1, lr=5e-05)
    t = num_hf_train_banner(job, t, ["Num examples = 117,920", "Num Epochs = 4",
                                     "Instantaneous batch size per device = 16",
                                     "Total train batch size (w. parallel, distributed & accumulation) = 128",
                                     "Gradient Accumulation steps = 1", "Total optimization steps = 3,000",
                                     "Number of trainable parameters = 331,196,416"])
    overflow_at = {1, 2, 3, 4, 5, 6, 1733, 2410}

    def loss(s):
        return 2.86 + 0.95 * math.exp(-s / 260.0) + 0.3 * math.exp(-s / 2500.0) + (rng.random() - 0.5) * 0.14

    t, history, _ = hf_ds_train(job, t + SEC, {
        "steps": 3000, "total": 3000, "sec": 0.52, "loss": loss, "lr": lambda k: 5e-05 * (1 - k / 3000),
        "grad_norm": lambda s: 0.8 + 2.2 * math.exp(-s / 400.0) + rng.random() * 0.3, "epoch_steps": 921,
        "logging_steps": 10, "steps_per_print": 100, "scaler": DsScaler(16, 1000, 2, 1),
        "overflow": lambda s: s in overflow_at, "eval_every": 1000,
        "eval_loss": lambda s: round(2.79 + 0.3 * math.exp(-s / 1500.0) + rng.random() * 0.02, 6),
        "eval_batches": 48, "status_every": 20, "flush_every": 20})
    train_loss = round(sum(h["loss"] for h in history if "loss" in h) / sum(1 for h in history if "loss" in h), 4)
    t = hf_train_end(job, t, 3000, 3000 * 0.52 + 57.9, train_loss, 3.2573, "/data/runs/opt350m-wt103")
    agent_finish_ok(job, t)
    job.render(bundle, lambda n: f"nodes/{n.name}/train.log")
    for n in job.nodes:
        write_host_env(job, bundle, f"nodes/{n.name}")
    write(bundle / "config" / "ds_config.json", json.dumps(ds_cfg, indent=2) + "\n")
    write(bundle / "model" / "opt-350m" / "config.json", model_config_json(OPT_350M))
    state = {"best_metric": None, "best_model_checkpoint": None, "epoch": 3.2573, "eval_steps": 1000,
             "global_step": 3000, "is_hyper_param_search": False, "is_local_process_zero": True,
             "is_world_process_zero": True,
             "log_history": [{k: x for k, x in h.items() if x is not None} for h in history]
             + [{"epoch": 3.2573, "step": 3000, "total_flos": 1.0642337456717005e+17, "train_loss": train_loss,
                 "train_runtime": 1617.9, "train_samples_per_second": 237.404, "train_steps_per_second": 1.854}],
             "logging_steps": 10, "max_steps": 3000, "num_input_tokens_seen": 0, "num_train_epochs": 4,
             "save_steps": 1000, "stateful_callbacks": {"TrainerControl": {"args": {
                 "should_epoch_stop": False, "should_evaluate": False, "should_log": False, "should_save": True,
                 "should_training_stop": True}, "attributes": {}}},
             "total_flos": 1.0642337456717005e+17, "train_batch_size": 16, "trial_name": None, "trial_params": None}
    write(bundle / "output" / "checkpoint-3000" / "trainer_state.json",
          json.dumps(state, indent=2, sort_keys=True) + "\n")
    expected(d, "HF Trainer + DeepSpeed fp16 training of an OPT-350M model (config float16) on 2 hosts x 4 H100: "
                "the loss scale calibrates from 2^16 in six overflows, grows back after 1000 clean steps and "
                "overflows twice more later, as dynamic scaling does; the loss decreases. Nothing must fire.", [])
    return None, []


# Megatron-LM (megatron.core) pretraining runs ---------------------------------------------------

MEGATRON_ARGS = [
    ("accumulate_allreduce_grads_in_fp32", "True"), ("adam_beta1", "0.9"), ("adam_beta2", "0.95"),
    ("adam_eps", "1e-08"), ("attention_dropout", "0.0"), ("attention_softmax_in_fp32", "False"),
    ("bf16", "True"), ("bias_dropout_fusion", "True"), ("bias_gelu_fusion", "True"),
    ("check_for_large_grads", "False"), ("check_for_nan_in_loss_and_grad", "True"),
    ("check_for_spiky_loss", "False"), ("clip_grad", "1.0"), ("consumed_train_samples", "0"),
    ("data_parallel_size", None), ("data_path", "['/lustre/data/pile/pile_text_document']"),
    ("distributed_backend", "nccl"), ("eval_interval", "1000"), ("eval_iters", "10"), ("ffn_hidden_size", None),
    ("fp16", "False"), ("fp32_residual_connection", "False"), ("global_batch_size", None),
    ("hidden_dropout", "0.0"), ("hidden_size", None), ("hysteresis", "2"), ("init_method_std", "0.02"),
    ("initial_loss_scale", "4294967296"), ("log_interval", "1"), ("log_throughput", "True"),
    ("loss_scale", "None"), ("loss_scale_window", "1000"), ("lr", None), ("lr_decay_style", "cosine"),
    ("lr_warmup_iters", "2000"), ("micro_batch_size", "4"), ("min_loss_scale", "1.0"), ("min_lr", None),
    ("num_attention_heads", None), ("num_layers", None), ("optimizer", "adam"), ("overlap_grad_reduce", "True"),
    ("params_dtype", "torch.bfloat16"), ("pipeline_model_parallel_size", "1"), ("rerun_mode", "validate_results"),
    ("save", "/lustre/ckpt/gpt"), ("save_interval", "1000"), ("seed", "1234"), ("seq_length", "2048"),
    ("tensor_model_parallel_size", None), ("tokenizer_type", "GPT2BPETokenizer"), ("train_iters", None),
    ("use_distributed_optimizer", "True"), ("use_flash_attn", "True"), ("weight_decay", "0.1"), ("world_size", None),
]


class MegaRun:
    """A GPT pretraining run of Megatron-LM: shape, parallelism and the loss/grad-norm curves."""

    def __init__(self, job, layers, hidden, heads, tp, gbs, lr, iters, save, sec):
        self.job = job
        self.layers, self.hidden, self.heads, self.tp = layers, hidden, heads, tp
        self.dp = job.world // tp
        self.gbs, self.lr, self.iters, self.save, self.sec = gbs, lr, iters, save, sec
        self.last = job.world - 1  # print_rank_last

    def args(self):
        fill = {"data_parallel_size": self.dp, "ffn_hidden_size": 4 * self.hidden, "global_batch_size": self.gbs,
                "hidden_size": self.hidden, "lr": self.lr, "min_lr": self.lr / 10,
                "num_attention_heads": self.heads, "num_layers": self.layers, "save": self.save,
                "tensor_model_parallel_size": self.tp, "train_iters": self.iters, "world_size": self.job.world}
        return [(k, fill.get(k, val) if val is None or k == "save" else val) for k, val in MEGATRON_ARGS]

    def lr_at(self, it):
        w = 2000
        if it <= w:
            return self.lr * it / w
        return self.lr / 10 + 0.45 * self.lr * (1 + math.cos(math.pi * (it - w) / (self.iters - w)))


def mega_startup(job, run, t0, cmd_of):
    """torchrun launch, NCCL start-up, Megatron's argument dump and set-up messages on rank 0."""
    rng = job.rng
    ends = []
    for n in job.nodes:
        tn = num_torchrun_start(job, n, t0 + rng.randint(0, SEC), cmd_of(n))
        for local in range(job.nproc):
            g = n.node_rank * job.nproc + local
            ends.append(num_rank_start(job, g, tn + rng.randint(0, 600_000), ds=False))
    t = max(ends) + rng.randint(SEC // 2, SEC)
    w = job.world
    job.say(0, t, [f"using world size: {w}, data-parallel size: {run.dp}, context-parallel size: 1, hierarchical "
                   f"context-parallel sizes: Nonetensor-model-parallel size: {run.tp}, encoder-tensor-model-parallel "
                   f"size: 0, pipeline-model-parallel size: 1, encoder-pipeline-model-parallel size: 0",
                   "Number of virtual stages per pipeline stage: None",
                   "using torch.bfloat16 for parameters ...",
                   "------------------------ arguments ------------------------"]
           + [f"  {k} {'.' * (48 - len(k))} {val}" for k, val in run.args()]
           + ["-------------------- end of arguments ---------------------"])
    lines = [
        "setting number of micro-batches to constant " + str(run.gbs // (4 * run.dp)),
        "> building GPT2BPETokenizer tokenizer ...",
        " > padded vocab (size: 50257) with 175 dummy tokens (new size: 50432)",
        "> initializing torch distributed ...",
        f"> initialized tensor model parallel with size {run.tp}",
        "> initialized pipeline model parallel with size 1",
        "> setting random seeds to 1234 ...",
        "> compiling dataset index builder ...",
        "make: Entering directory '/workspace/Megatron-LM/megatron/core/datasets'",
        "make: Nothing to be done for 'default'.",
        "make: Leaving directory '/workspace/Megatron-LM/megatron/core/datasets'",
        f">>> done with dataset index builder. Compilation time: {0.05 + rng.random() * 0.05:.3f} seconds",
        "> compiling and loading fused kernels ...",
        f">>> done with compiling and loading fused kernels. Compilation time: {1.9 + rng.random():.3f} seconds",
        f"time to initialize megatron (seconds): {12 + rng.random() * 6:.3f}",
        f"[after megatron is initialized] datetime: {mega_time(t)} ",
        "building GPT model ...",
    ]
    for line in lines:
        t += rng.randint(2_000, 400_000)
        job.say(0, t, line)
    nparams = 12 * run.layers * run.hidden * run.hidden // run.tp + 50432 * run.hidden // run.tp
    for g in range(run.tp):
        t += rng.randint(1000, 90_000)
        job.say(g, t, f" > number of parameters on (tensor, pipeline) model parallel rank ({g}, 0): {nparams}")
    t += rng.randint(SEC, 3 * SEC)
    job.say(0, t, "INFO:megatron.core.distributed.distributed_data_parallel:Setting up DistributedDataParallel with "
                  "config DistributedDataParallelConfig(grad_reduce_in_fp32=True, overlap_grad_reduce=True, "
                  "overlap_param_gather=False, align_param_gather=False, use_distributed_optimizer=True, "
                  "num_distributed_optimizer_instances=1, check_for_nan_in_grad=True, bucket_size=40000000, "
                  "average_in_collective=False, fp8_param_gather=False)")
    t += rng.randint(1000, 9000)
    names = []
    for i in reversed(range(run.layers)):
        p = f"module.decoder.layers.{i}"
        names += [f"{p}.mlp.linear_fc2.bias", f"{p}.mlp.linear_fc2.weight", f"{p}.mlp.linear_fc1.bias",
                  f"{p}.mlp.linear_fc1.weight", f"{p}.mlp.linear_fc1.layer_norm_bias",
                  f"{p}.mlp.linear_fc1.layer_norm_weight", f"{p}.self_attention.linear_proj.bias",
                  f"{p}.self_attention.linear_proj.weight", f"{p}.self_attention.linear_qkv.bias",
                  f"{p}.self_attention.linear_qkv.weight", f"{p}.self_attention.linear_qkv.layer_norm_bias",
                  f"{p}.self_attention.linear_qkv.layer_norm_weight"]
    names += ["module.decoder.final_layernorm.bias", "module.decoder.final_layernorm.weight",
              "module.embedding.position_embeddings.weight", "module.embedding.word_embeddings.weight"]
    nb = 4
    per = (len(names) + nb - 1) // nb
    job.say(0, t, f"INFO:megatron.core.distributed.param_and_grad_buffer:Number of buckets for gradient all-reduce "
                  f"/ reduce-scatter: {nb}")
    for b in range(nb):
        part = names[b * per:(b + 1) * per]
        t += rng.randint(100, 2000)
        job.say(0, t, [f"Params for bucket {b + 1} ({nparams // nb} elements):"] + [f"\t{x}" for x in part])
    t += rng.randint(1000, 9000)
    job.say(0, t, f"INFO:megatron.core.optimizer:Setting up optimizer with config OptimizerConfig(optimizer='adam', "
                  f"lr={run.lr}, min_lr={run.lr / 10}, decoupled_lr=None, decoupled_min_lr=None, weight_decay=0.1, "
                  "fp16=False, bf16=True, params_dtype=torch.bfloat16, use_precision_aware_optimizer=False, "
                  "loss_scale=None, initial_loss_scale=4294967296, min_loss_scale=1.0, loss_scale_window=1000, "
                  "hysteresis=2, adam_beta1=0.9, adam_beta2=0.95, adam_eps=1e-08, sgd_momentum=0.9, "
                  "use_distributed_optimizer=True, overlap_param_gather_with_optimizer_step=False, clip_grad=1.0, "
                  "log_num_zeros_in_grad=False, barrier_with_L1_time=True, timers=<megatron.core.timers.Timers "
                  "object>, config_logger_dir='')")
    for line in ["> learning rate decay style: cosine",
                 f"WARNING: could not find the metadata file {run.save}/latest_checkpointed_iteration.txt",
                 "    will not load any checkpoints and will start from random",
                 "(min, max) time across ranks (ms):",
                 f"    load-checkpoint ................................: ({0.4 + rng.random():.2f}, "
                 f"{1.5 + rng.random():.2f})",
                 f"[after model, optimizer, and learning rate scheduler are built] datetime: {mega_time(t)} ",
                 "> building train, validation, and test datasets ...",
                 " > datasets target sizes (minimum size):",
                 f"    train:      {run.iters * run.gbs}",
                 f"    validation: {(run.iters // 1000 + 1) * 10 * run.gbs}",
                 f"    test:       {10 * run.gbs}",
                 "> building train, validation, and test datasets for GPT ...",
                 "INFO:megatron.core.datasets.blended_megatron_dataset_builder:Building GPTDataset splits with "
                 f"sizes=({run.iters * run.gbs}, {(run.iters // 1000 + 1) * 10 * run.gbs}, {10 * run.gbs}) and "
                 "config=GPTDatasetConfig(random_seed=1234, sequence_length=2048, split='969,30,1')",
                 "INFO:megatron.core.datasets.indexed_dataset:Load the _IndexReader from "
                 "/lustre/data/pile/pile_text_document.idx",
                 "INFO:megatron.core.datasets.indexed_dataset:\tExtract the sequence lengths",
                 "INFO:megatron.core.datasets.indexed_dataset:\tExtract the sequence pointers",
                 "INFO:megatron.core.datasets.indexed_dataset:\tExtract the document indices",
                 "INFO:megatron.core.datasets.indexed_dataset:> total number of sequences: 210604984",
                 "INFO:megatron.core.datasets.indexed_dataset:> total number of documents: 210604984",
                 "> finished creating GPT datasets ...",
                 f"[after dataloaders are built] datetime: {mega_time(t)} ",
                 "done with setup ...",
                 "(min, max) time across ranks (ms):",
                 f"    model-and-optimizer-setup ......................: ({7800 + rng.random() * 300:.2f}, "
                 f"{8100 + rng.random() * 300:.2f})",
                 f"    train/valid/test-data-iterators-setup ..........: ({41000 + rng.random() * 900:.2f}, "
                 f"{42000 + rng.random() * 900:.2f})",
                 "training ...",
                 "Setting rerun_state_machine.current_iteration to 0...",
                 f"[before the start of training step] datetime: {mega_time(t)} "]:
        t += rng.randint(2_000, 900_000)
        job.say(0, t, line)
    return t + rng.randint(SEC, 2 * SEC)


def mega_iter_line(run, t, it, loss, gn, sec):
    tflops = 6 * 12 * run.layers * run.hidden * run.hidden * 2048 * run.gbs / sec / run.job.world / 1e12
    return (f" [{mega_time(t)}] iteration {it:8d}/{run.iters:8d} | consumed samples: {it * run.gbs:12d} | "
            f"elapsed time per iteration (ms): {sec * 1000:.1f} | throughput per GPU (TFLOP/s/GPU): {tflops:.1f} | "
            f"learning rate: {run.lr_at(it):.6E} | global batch size: {run.gbs:5d} | lm loss: {loss:.6E} | "
            f"loss scale: 1.0 | grad norm: {gn:.3f} | number of skipped iterations:   0 | "
            "number of nan iterations:   0 |")


def mega_train(job, run, t, last_it, loss, gn, mark=None):
    """Iterations 1..last_it: iteration lines on the last rank, validation and checkpoints."""
    rng = job.rng
    mark = mark or (lambda it: None)
    for it in range(1, last_it + 1):
        sec = run.sec * (0.97 + 0.06 * rng.random()) * (1.6 if it == 1 else 1.0)
        t += int(sec * SEC)
        m = mark(it)
        job.say(run.last, t, mega_iter_line(run, t, it, loss(it), gn(it), sec), {0: m} if m else None)
        if it == 1:
            job.say(0, t + 30_000, f"[Rank 0] (after 1 iterations) memory (MB) | allocated: "
                                   f"{19000 + rng.random() * 800:.1f} | max allocated: {38000 + rng.random() * 900:.1f} | "
                                   f"reserved: 41984.0 | max reserved: 41984.0")
        if it == 2:
            job.say(0, t - 400_000, "WARNING:megatron.core.rerun_state_machine:Result validation enabled")
        if it % 1000 == 0:
            te = t + rng.randint(5 * SEC, 9 * SEC)
            v = loss(it) + 0.04
            bar = "-" * 99
            job.say(run.last, te, [bar, f" validation loss at iteration {it} | lm loss value: {v:.6E} | "
                                        f"lm loss PPL: {math.exp(v):.6E} | ", bar])
            ts = te + rng.randint(1000, 9000)
            job.say(0, ts, f"saving checkpoint at iteration {it:7d} to {run.save} in torch_dist format")
            ts += rng.randint(8 * SEC, 20 * SEC)
            job.say(0, ts, f"  successfully saved checkpoint from iteration {it:7d} to {run.save} "
                           f"[ t 1/{run.tp}, p 1/1 ]")
            job.say(0, ts + 3000, ["(min, max) time across ranks (ms):",
                                   f"    save-checkpoint ................................: "
                                   f"({(ts - te) / 1000 - 40:.2f}, {(ts - te) / 1000:.2f})"])
            t = ts + rng.randint(SEC, 2 * SEC)
    return t


def scenario_numeric_nan_loss(d):
    """Megatron-LM bf16 GPT pretraining (rerun mode validate_results): the loss spikes for a few
    iterations, then rank 5's local grad norm is NaN and the rerun state machine stops the job."""
    v = dict(V_TORCH25, iface="ib0", p2p="P2P/CUMEM/read", cpu="Intel(R) Xeon(R) Platinum 8480CL", cpus=224)
    job = NumJob(5707, [("gpu-a-03", "10.64.2.3"), ("gpu-a-04", "10.64.2.4")], 4, "default",
                 "NVIDIA H100 80GB HBM3", v)
    rng = job.rng
    bundle = d / "bundle"
    run = MegaRun(job, 24, 2048, 16, 2, 256, 0.0002, 20000, "/lustre/ckpt/gpt-1.3b", 2.35)
    bad_g, nan_it = 5, 2741

    def cmd(n):
        return ["+ export NCCL_DEBUG=INFO NCCL_SOCKET_IFNAME=ib0 CUDA_DEVICE_MAX_CONNECTIONS=1",
                f"+ torchrun --nnodes 2 --nproc_per_node 4 --node_rank {n.node_rank} --master_addr 10.64.2.3 "
                "--master_port 6000 --tee 3 pretrain_gpt.py --num-layers 24 --hidden-size 2048 "
                "--num-attention-heads 16 --seq-length 2048 --max-position-embeddings 2048 --micro-batch-size 4 "
                "--global-batch-size 256 --lr 2e-4 --min-lr 2e-5 --lr-decay-style cosine --lr-warmup-iters 2000 "
                "--train-iters 20000 --tensor-model-parallel-size 2 --bf16 --use-distributed-optimizer "
                "--rerun-mode validate_results --log-interval 1 --log-throughput --eval-interval 1000 "
                "--save-interval 1000 --save /lustre/ckpt/gpt-1.3b --data-path /lustre/data/pile/pile_text_document "
                "--vocab-file gpt2-vocab.json --merge-file gpt2-merges.txt"]

    t = mega_startup(job, run, us_of(2026, 3, 14, 0, 1, 52), cmd)
    spike = {2737: 3.0614, 2738: 7.9126, 2739: 11.3702, 2740: 9.8231}
    spike_gn = {2737: 3.912, 2738: 41.733, 2739: 112.407, 2740: 86.295}

    def loss(it):
        if it in spike:
            return spike[it]
        return 2.36 + 8.6 * math.exp(-it / 170.0) + 0.9 * math.exp(-it / 1500.0) + (rng.random() - 0.5) * 0.07

    def gn(it):
        if it in spike_gn:
            return spike_gn[it]
        return 0.24 + 4.0 * math.exp(-it / 120.0) + rng.random() * 0.09

    t = mega_train(job, run, t, nan_it - 1, loss, gn)
    # Iteration 2741: rank 5's gradient bucket norm is NaN before the data-parallel all-reduce.
    msg = ("found NaN in local grad norm for bucket #0 in backward pass before data-parallel communication "
           "collective")
    t += int(run.sec * 0.7 * SEC)
    job.say(bad_g, t, f"ERROR:megatron.core.rerun_state_machine:Unexpected result nan on rank {bad_g} at iteration "
                      f"#{nan_it} invocation #1 (message='{msg}')", {0: "nan"})
    t += int(run.sec * 1.1 * SEC)
    node = job.node(bad_g)
    job.say(bad_g, t, f"ERROR:megatron.core.rerun_state_machine:Rank {bad_g}, node {node.name}, device "
                      f"{job.local(bad_g)}, iteration #{nan_it}: First rerun: unexpected result is reproducible within "
                      f"the tolerance (nan = nan). Need to rerun on a different GPU to verify correctness.!")
    t += rng.randint(50_000, 200_000)
    job.say(0, t, "WARNING:megatron.core.rerun_state_machine:Saving a checkpoint and exiting now. Please resume the "
                  "job from the checkpoint to rerun the last iteration and establish a diagnostic")
    t += rng.randint(1000, 9000)
    job.say(0, t, f"saving checkpoint at iteration {nan_it:7d} to {run.save} in torch_dist format")
    t += rng.randint(9 * SEC, 18 * SEC)
    job.say(0, t, f"  successfully saved checkpoint from iteration {nan_it:7d} to {run.save} [ t 1/{run.tp}, p 1/1 ]")
    t += rng.randint(SEC, 3 * SEC)
    for n in job.nodes:
        failed = [(n.node_rank * job.nproc + i, n.pids[i]) for i in range(job.nproc)]
        agent_child_failed(job, n, t + rng.randint(SEC, 2 * SEC), "pretrain_gpt.py", failed, 16,
                           others_sigterm=False)
    marks = job.render(bundle, lambda n: f"nodes/{n.name}/torchrun.log")
    for n in job.nodes:
        write_host_env(job, bundle, f"nodes/{n.name}")
    f = [{"code": "numeric.nan_loss",
          "culprits": [{"host": node.name, "rank": bad_g}],
          "evidence": [evd(f"nodes/{node.name}/torchrun.log", marks[node.name]["nan"],
                           f"Unexpected result nan on rank {bad_g}")]}]
    expected(d, "Megatron-LM bf16 GPT-1.3B pretraining on 2 hosts x 4 H100 (TP 2, DP 4): the lm loss spikes "
                "for four iterations, then the rerun state machine finds a NaN local grad norm on rank 5 and "
                "stops the job.", f)
    check_clean_evidence(d, f)
    return None, f


def scenario_healthy_bf16(d):
    """Megatron-LM bf16 GPT pretraining that finishes: 'loss scale: 1.0' on every iteration line."""
    v = dict(V_TORCH25, iface="ib0", p2p="P2P/CUMEM/read", cpu="Intel(R) Xeon(R) Platinum 8480CL", cpus=224,
             net_plugin_warn=True)
    job = NumJob(5808, [("gpu-a-11", "10.64.2.11"), ("gpu-a-12", "10.64.2.12")], 8, "default",
                 "NVIDIA H100 80GB HBM3", v)
    rng = job.rng
    bundle = d / "bundle"
    run = MegaRun(job, 24, 2048, 16, 2, 512, 0.0003, 3000, "/lustre/ckpt/gpt-1.3b-b", 2.41)

    def cmd(n):
        return ["+ export NCCL_DEBUG=INFO NCCL_SOCKET_IFNAME=ib0 CUDA_DEVICE_MAX_CONNECTIONS=1",
                f"+ torchrun --nnodes 2 --nproc_per_node 8 --node_rank {n.node_rank} --master_addr 10.64.2.11 "
                "--master_port 6000 --tee 3 pretrain_gpt.py --num-layers 24 --hidden-size 2048 "
                "--num-attention-heads 16 --seq-length 2048 --max-position-embeddings 2048 --micro-batch-size 4 "
                "--global-batch-size 512 --lr 3e-4 --min-lr 3e-5 --lr-decay-style cosine --lr-warmup-iters 2000 "
                "--train-iters 3000 --tensor-model-parallel-size 2 --bf16 --use-distributed-optimizer "
                "--rerun-mode validate_results --log-interval 1 --log-throughput --eval-interval 1000 "
                "--save-interval 1000 --save /lustre/ckpt/gpt-1.3b-b --data-path /lustre/data/pile/pile_text_document "
                "--vocab-file gpt2-vocab.json --merge-file gpt2-merges.txt"]

    t = mega_startup(job, run, us_of(2026, 6, 2, 19, 44, 3), cmd)

    def loss(it):
        return 2.52 + 8.4 * math.exp(-it / 160.0) + 0.8 * math.exp(-it / 1300.0) + (rng.random() - 0.5) * 0.09

    def gn(it):
        return 0.27 + 3.6 * math.exp(-it / 130.0) + rng.random() * 0.12

    t = mega_train(job, run, t, 3000, loss, gn)
    t += rng.randint(SEC, 3 * SEC)
    job.say(0, t, f"[after training is done] datetime: {mega_time(t)} ")
    agent_finish_ok(job, t + rng.randint(2 * SEC, 5 * SEC))
    job.render(bundle, lambda n: f"nodes/{n.name}/torchrun.log")
    for n in job.nodes:
        write_host_env(job, bundle, f"nodes/{n.name}")
    expected(d, "Megatron-LM bf16 GPT pretraining on 2 hosts x 8 H100 runs 3000 iterations to the end with "
                "'loss scale: 1.0' on every iteration line and a noisy, decreasing loss; nothing must fire.", [])
    return None, []


# The cross-rank hang scenarios of issue #4 live in their own modules, which import this one.
sys.modules.setdefault("generate", sys.modules[__name__])
import gen_build  # noqa: E402
import gen_comm  # noqa: E402
import gen_comm_trace  # noqa: E402
import gen_diff  # noqa: E402
import gen_multihost_hang  # noqa: E402
import gen_runtime  # noqa: E402
import gen_rules  # noqa: E402
import gen_torch_hang  # noqa: E402

SCENARIOS = {
    "hang_bad_chip": scenario_hang_bad_chip,
    "hang_network": scenario_hang_network,
    "hang_different_module": scenario_hang_different_module,
    "hang_fingerprint_mismatch": scenario_hang_fingerprint_mismatch,
    "hang_input_stall": scenario_hang_input_stall,
    "hang_unrecoverable": scenario_hang_unrecoverable,
    "hang_unknown": scenario_hang_unknown,
    "hang_straggler": scenario_hang_straggler,
    "healthy_tpu": scenario_healthy_tpu,
    "healthy_gpu": scenario_healthy_gpu,
    "numeric_overflow": scenario_numeric_overflow,
    "numeric_overflow_trace": scenario_numeric_overflow_trace,
    "numeric_loss_scale_collapse": scenario_numeric_loss_scale_collapse,
    "numeric_nan_loss": scenario_numeric_nan_loss,
    "numeric_loss_spike": scenario_numeric_loss_spike,
    "numeric_bf16_in_fp16": scenario_numeric_bf16_in_fp16,
    "healthy_fp16": scenario_healthy_fp16,
    "healthy_bf16": scenario_healthy_bf16,
    "hang_nccl_timeout_legacy": gen_torch_hang.scenario_hang_nccl_timeout_legacy,
    "hang_nccl_timeout_behind": gen_torch_hang.scenario_hang_nccl_timeout_behind,
    "hang_rank_crashed_first": gen_torch_hang.scenario_hang_rank_crashed_first,
    "hang_collective_mismatch": gen_torch_hang.scenario_hang_collective_mismatch,
    "hang_flight_recorder": gen_torch_hang.scenario_hang_flight_recorder,
    "hang_jax_task_lost": gen_multihost_hang.scenario_hang_jax_task_lost,
    "hang_hlo_fingerprint_nodigest": gen_multihost_hang.scenario_hang_hlo_fingerprint_nodigest,
    "hang_step_straggler": gen_multihost_hang.scenario_hang_step_straggler,
    "runtime_device_oom": gen_multihost_hang.scenario_runtime_device_oom,
    "healthy_multirank": gen_torch_hang.scenario_healthy_multirank,
    "runtime_oom_killed": gen_runtime.scenario_runtime_oom_killed,
    "runtime_cuda_oom": gen_runtime.scenario_runtime_cuda_oom,
    "runtime_cuda_error": gen_runtime.scenario_runtime_cuda_error,
    "runtime_first_failure": gen_runtime.scenario_runtime_first_failure,
    "healthy_runtime_lookalikes": gen_runtime.scenario_healthy_runtime_lookalikes,
    "build_cuda_mismatch": gen_build.scenario_build_cuda_mismatch,
    "build_multiple_toolkits": gen_build.scenario_build_multiple_toolkits,
    "build_compiler_unsupported": gen_build.scenario_build_compiler_unsupported,
    "build_arch_mismatch": gen_build.scenario_build_arch_mismatch,
    "build_extension_failed": gen_build.scenario_build_extension_failed,
    "build_version_skew": gen_build.scenario_build_version_skew,
    "build_driver_too_old": gen_build.scenario_build_driver_too_old,
    "build_load_failed": gen_build.scenario_build_load_failed,
    "healthy_build": gen_build.scenario_healthy_build,
    **gen_comm.SCENARIOS,
    **gen_comm_trace.SCENARIOS,
    **gen_diff.SCENARIOS,
    **gen_rules.SCENARIOS,
}


def main(argv):
    names = argv[1:] or list(SCENARIOS)
    for name in names:
        if name not in SCENARIOS:
            sys.exit(f"unknown scenario {name}; known: {', '.join(SCENARIOS)}")
        d = ROOT / gen_diff.SCENARIO_DIRS.get(name, name)  # the diff pairs live in corpus/diff/
        if d.exists():
            shutil.rmtree(d)
        job, findings = SCENARIOS[name](d)
        check_evidence(d, findings, d / "bundle")
        if job is not None:
            counts = ", ".join(f"{h['name'].rsplit('-', 2)[-2]}-{h['name'].rsplit('-', 1)[-1]}:"
                               f"{job.per_host_lines[h['name']]}" for h in job.hosts)
            print(f"{name}: {counts}")
        else:
            print(f"{name}: written")


if __name__ == "__main__":
    main(sys.argv)
