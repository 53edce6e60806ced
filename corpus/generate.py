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
            data = (base / e["path"]).read_bytes().split(b"\n")
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


def scenario_healthy_tpu(d):
    job = TpuJob("healthy_tpu", 99, us_of(2025, 9, 9, 16, 0, 31), ["b6e2d407", "5f93c18a"], 2,
                 ("TPU v4", "v4", 4), steps=880, first_step=0, launch0=4,
                 step_fmt="maxtext", vmodule=False, eval_step=500, chatter=0.6)
    rng = job.rng
    last = job.steps - 1
    for h in job.hosts:
        log = job.logs[h["name"]]
        tpu_startup(job, h, log, bad_utf8=(h is job.hosts[3]))
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
}


def main(argv):
    names = argv[1:] or list(SCENARIOS)
    for name in names:
        if name not in SCENARIOS:
            sys.exit(f"unknown scenario {name}; known: {', '.join(SCENARIOS)}")
        d = ROOT / name
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
