"""Multi-host hang scenarios of issue #4 without a torch watchdog (imported by generate.py):
a JAX task lost to preemption (coordination-service errors), HLO dumps that differ across
TPU hosts with no MXLA digest, and a host whose step times run 1.6x slower than its peers.

The TPU ones reuse generate.py's McJAX helpers (TpuJob, tpu_startup, tpu_training,
run_until_hang); the coordination-service messages are written in the family's style
(absl/glog headers, a status whose task list follows on raw continuation lines), not
copied from a real log. Host names, addresses and pids are made up.
"""

import json
import math
import random

import generate as gen
from generate import (SEC, HLO_TEMPLATE, HostLog, TpuJob, evd, expected, glog, run_until_hang, shutdown,
                      tpu_startup, tpu_training, tpu_wait, us_of, write, write_tpu_common)


def write_tpu_bundle(job, bundle):
    """The job's common files, its logs and a manifest (casefile.json) that gives each log its
    host and JAX task; returns the logs' marks."""
    write_tpu_common(job, bundle)
    marks = gen.render_logs(job, bundle)
    files = [{"path": gen.log_path(h), "kind": "log", "host": h["name"], "task": f"jax_worker/{h['task']}"}
             for h in job.hosts]
    write(bundle / "casefile.json",
          json.dumps({"format_version": 1, "labels": {"job": job.name}, "files": files}, indent=2) + "\n")
    return marks


# --------------------------------------------------------------------------------------------
# 6. JAX multi-host: task 5 is preempted, the coordination service reports it unhealthy


def coord_status(task):
    """The status text the coordination service hands to every task: its first line ends
    the record's header line, the task list and the advice follow as raw lines."""
    return ["UNAVAILABLE: The following tasks are unhealthy (stopped sending heartbeats):",
            f"/job:jax_worker/replica:0/task:{task}",
            "The tasks may have crashed or been preempted; look at their own logs for the first error."]


def fatal_abort(job, h, t, status):
    """A surviving task: it polls the error, logs the fatal check and aborts."""
    rng = job.rng
    tid = h["tid"]
    log = job.logs[h["name"]]
    log.emit(t, glog("E", t, tid["coord"], "coordination_service_agent.cc:724",
                     "Polled an error from the coordination service (it may come from this task or from another "
                     "one)."))
    t += rng.randint(300, 3000)
    head = glog("F", t, tid["coord"], "client.h:80",
                "Terminating process because the JAX distributed service detected fatal errors. Another task most "
                "likely died; read the other tasks' logs for details. Run Python unbuffered (python -u) to see every "
                "message. Status: " + status[0])
    a = [f"0x7f{rng.randint(0x10000000, 0xffffffff):08x}" for _ in range(6)]
    log.emit(t, [head] + status[1:] + [
        "*** Check failure stack trace: ***",
        f"    @     {a[0]}  (unknown)",
        f"    @     {a[1]}  (unknown)",
        f"    @     {a[2]}  (unknown)",
        f"    @     {a[3]}  (unknown)",
        f"    @     {a[4]}  start_thread",
        f"*** SIGABRT received by PID {h['pid']} (TID {tid['coord']}) on cpu {rng.randint(0, 95)} from PID "
        f"{h['pid']}; stack trace: ***",
        f"PC: @     {a[5]}  (unknown)  pthread_kill",
        "Fatal Python error: Aborted",
        "",
        f"Thread 0x{h['pytid']:016x} (most recent call first):",
        '  File "/home/tpu/.local/lib/python3.11/site-packages/jax/_src/interpreters/pxla.py", line 1297 in __call__',
        '  File "/home/tpu/.local/lib/python3.11/site-packages/jax/_src/pjit.py", line 1687 in _pjit_call_impl_python',
        '  File "/home/tpu/trainer/train.py", line 571 in train_loop',
        '  File "/home/tpu/trainer/train.py", line 651 in main',
    ])
    return t


def scenario_hang_jax_task_lost(d):
    job = TpuJob("hang_jax_task_lost", 6606, us_of(2025, 6, 12, 8, 4, 19), ["7c2e19a4"], 8,
                 ("TPU v4", "v4", 4), steps=720, first_step=31000, launch0=62_040,
                 step_fmt="plain", vmodule=False, eval_step=350, chatter=0.55)
    rng = job.rng
    k_last = 668
    h0 = job.hosts[0]
    lost = job.hosts[5]
    assert lost["task"] == 5
    for h in job.hosts:
        log = job.logs[h["name"]]
        tpu_startup(job, h, log, bad_utf8=(h is job.hosts[2]))
        tpu_training(job, h, log, k_last)
    # The lost host is preempted during the next step: its log just ends.
    t_die = job.step_end[k_last] + 640_000
    ll = job.logs[lost["name"]]
    ll.events = [e for e in ll.events if e[0] <= job.ht(lost, t_die)]
    # The others block in the next step; their agents keep heartbeating until the service
    # notices that task 5 stopped (100 s without a heartbeat).
    t_detect = t_die + 100 * SEC + rng.randint(200_000, 1_400_000)
    for h in job.hosts:
        if h is lost:
            continue
        tpu_wait(job, h, job.logs[h["name"]], job.ht(h, job.step_end[k_last]) + rng.randint(5_000, 60_000),
                 job.ht(h, t_detect), job.launch_id(k_last + 1), started=False)
    log0 = job.logs[h0["name"]]
    td = job.ht(h0, t_detect)
    svc = h0["pid"] + 90
    log0.emit(td, glog("E", td, svc, "coordination_service.cc:377",
                       f"Task /job:jax_worker/replica:0/task:{lost['task']} sent no heartbeat for "
                       f"100.{rng.randint(1, 9)}s (heartbeat timeout 100s); recording it as unhealthy and propagating "
                       "the error to every connected task."), marks={0: "detect"})
    status = coord_status(lost["task"])
    for h in job.hosts:
        if h is lost:
            continue
        tp = job.ht(h, t_detect) + rng.randint(350_000, 1_600_000)
        fatal_abort(job, h, tp, status)
    marks = write_tpu_bundle(job, d / "bundle")
    # The lost host's last line, as the file has it.
    lp = gen.log_path(lost)
    raw = (d / "bundle" / lp).read_bytes().split(b"\n")
    n_last = job.per_host_lines[lost["name"]]
    last = raw[n_last - 1].decode("utf-8")
    assert last and raw[n_last] == b""
    f = [{"code": "hang.task_lost",
          "culprits": [{"host": lost["name"], "task": f"jax_worker/{lost['task']}"}],
          "evidence": [
              evd(gen.log_path(h0), marks[h0["name"]]["detect"],
                  f"Task /job:jax_worker/replica:0/task:{lost['task']} sent no heartbeat for"),
              evd(lp, n_last, last[last.index("] ") + 2:]),
          ]}]
    expected(d, "JAX job on 8 TPU v4 hosts (one slice; casefile.json gives each log its task jax_worker/N): the host "
                "of task 5 is preempted and its log just ends; 100 s later the coordination service reports task 5 "
                "unhealthy and every other task terminates.", f)
    return job, f


# --------------------------------------------------------------------------------------------
# 7. HLO dumps that differ across hosts, no coordinator digest


AFTER_TEMPLATE = """HloModule jit_train_step, is_scheduled=true, entry_computation_layout={{(bf16[4096,32000]{{1,0:T(8,128)(2,1)}}, f32[4096]{{0:T(1024)}}, s32[{batch},2048]{{1,0:T(8,128)}})->(bf16[4096,32000]{{1,0:T(8,128)(2,1)}}, f32[])}}, allow_spmd_sharding_propagation_to_output={{true}}, num_partitions={parts}

%fused_computation (param_0.1: bf16[{rows},32000], param_1.2: f32[{rows}]) -> f32[{rows},32000] {{
  %param_0.1 = bf16[{rows},32000]{{1,0:T(8,128)(2,1)}} parameter(0)
  %convert.4.1 = f32[{rows},32000]{{1,0:T(8,128)}} convert(bf16[{rows},32000]{{1,0:T(8,128)(2,1)}} %param_0.1)
  %param_1.2 = f32[{rows}]{{0:T(256)}} parameter(1)
  %broadcast.5.1 = f32[{rows},32000]{{1,0:T(8,128)}} broadcast(f32[{rows}]{{0:T(256)}} %param_1.2), dimensions={{0}}
  ROOT %multiply.6.1 = f32[{rows},32000]{{1,0:T(8,128)}} multiply(f32[{rows},32000]{{1,0:T(8,128)}} %convert.4.1, f32[{rows},32000]{{1,0:T(8,128)}} %broadcast.5.1)
}}

%region_0.12 (Arg_0.13: f32[], Arg_1.14: f32[]) -> f32[] {{
  %Arg_0.13 = f32[] parameter(0)
  %Arg_1.14 = f32[] parameter(1)
  ROOT %add.15 = f32[] add(f32[] %Arg_0.13, f32[] %Arg_1.14)
}}

%region_1.27 (Arg_0.28: f32[], Arg_1.29: f32[]) -> f32[] {{
  %Arg_0.28 = f32[] parameter(0)
  %Arg_1.29 = f32[] parameter(1)
  ROOT %add.30 = f32[] add(f32[] %Arg_0.28, f32[] %Arg_1.29)
}}

ENTRY %main.40_spmd (param: bf16[{rows},32000], param.1: f32[{rows}], param.2: s32[4,2048]) -> (bf16[{rows},32000], f32[]) {{
  %param = bf16[{rows},32000]{{1,0:T(8,128)(2,1)}} parameter(0), sharding={{devices=[{parts},1]<=[{parts}]}}
  %param.1 = f32[{rows}]{{0:T(256)}} parameter(1), sharding={{replicated}}
  %param.2 = s32[4,2048]{{1,0:T(8,128)}} parameter(2), sharding={{devices=[{parts},1]<=[{parts}]}}
  %fusion = f32[{rows},32000]{{1,0:T(8,128)}} fusion(bf16[{rows},32000]{{1,0:T(8,128)(2,1)}} %param, f32[{rows}]{{0:T(256)}} %param.1), kind=kLoop, calls=%fused_computation
  %constant.7 = f32[] constant(0)
  %reduce.31 = f32[] reduce(f32[{rows},32000]{{1,0:T(8,128)}} %fusion, f32[] %constant.7), dimensions={{0,1}}, to_apply=%region_0.12
{collective}
  %constant.33 = f32[] constant(0.000244140625)
  %multiply.34 = f32[] multiply(f32[] {reduced}, f32[] %constant.33)
  ROOT %tuple.39 = (bf16[{rows},32000]{{1,0:T(8,128)(2,1)}}, f32[]) tuple(bf16[{rows},32000]{{1,0:T(8,128)(2,1)}} %convert.35, f32[] %multiply.34)
}}

"""

ASYNC_AR = """  %all-reduce-start = f32[] all-reduce-start(f32[] %reduce.31), channel_id=1, replica_groups=[1,{parts}]<=[{parts}], use_global_device_ids=true, to_apply=%region_1.27, backend_config={{"flag_configs":[],"barrier_config":{{"barrier_type":"CUSTOM","id":"0"}},"scoped_memory_configs":[],"used_scoped_memory_configs":[]}}
  %convert.35 = bf16[{rows},32000]{{1,0:T(8,128)(2,1)}} convert(f32[{rows},32000]{{1,0:T(8,128)}} %fusion)
  %all-reduce-done = f32[] all-reduce-done(f32[] %all-reduce-start)"""

SYNC_AR = """  %all-reduce.32 = f32[] all-reduce(f32[] %reduce.31), channel_id=1, replica_groups=[1,{parts}]<=[{parts}], use_global_device_ids=true, to_apply=%region_1.27
  %convert.35 = bf16[{rows},32000]{{1,0:T(8,128)(2,1)}} convert(f32[{rows},32000]{{1,0:T(8,128)}} %fusion)"""

INIT_BEFORE = """HloModule jit_init_params, entry_computation_layout={{(u32[2]{{0}})->(bf16[4096,32000]{{1,0}}, f32[4096]{{0}})}}, allow_spmd_sharding_propagation_to_output={{true,true}}, num_partitions={parts}

ENTRY %main.9 (Arg_0.1: u32[2]) -> (bf16[4096,32000], f32[4096]) {{
  %Arg_0.1 = u32[2]{{0}} parameter(0), sharding={{replicated}}
  %rng-bit-generator.2 = (u32[2]{{0}}, u32[4096,32000]{{1,0}}) rng-bit-generator(u32[2]{{0}} %Arg_0.1), algorithm=rng_default
  %get-tuple-element.3 = u32[4096,32000]{{1,0}} get-tuple-element((u32[2]{{0}}, u32[4096,32000]{{1,0}}) %rng-bit-generator.2), index=1
  %convert.4 = bf16[4096,32000]{{1,0}} convert(u32[4096,32000]{{1,0}} %get-tuple-element.3), sharding={{devices=[{parts},1]<=[{parts}]}}
  %constant.5 = f32[] constant(1)
  %broadcast.6 = f32[4096]{{0}} broadcast(f32[] %constant.5), dimensions={{}}, sharding={{replicated}}
  ROOT %tuple.8 = (bf16[4096,32000]{{1,0}}, f32[4096]{{0}}) tuple(bf16[4096,32000]{{1,0}} %convert.4, f32[4096]{{0}} %broadcast.6)
}}

"""


def scenario_hang_hlo_fingerprint_nodigest(d):
    job = TpuJob("hang_hlo_fingerprint_nodigest", 7707, us_of(2025, 4, 2, 21, 33, 5), ["3e9a51c7", "b8d20f64"], 2,
                 ("TPU v5 lite", "v5e", 4), steps=560, first_step=4400, launch0=8_812,
                 step_fmt="maxtext", vmodule=True, hlo_dump=True, eval_step=300, chatter=0.55)
    rng = job.rng
    hang_k = 520
    odd = job.hosts[2]
    reports = run_until_hang(job, hang_k, 240_000, 4, 100, bad_utf8_host=job.hosts[1]["name"], tracebacks=True)
    # The odd host was launched without the async collective fusion flags: XLA schedules its
    # all-reduce synchronously, so its optimized module differs from the other hosts'.
    lo = job.logs[odd["name"]]
    hits = 0
    for i, (t, s, lines, mk) in enumerate(lo.events):
        if lines[0].startswith(b"+ export LIBTPU_INIT_ARGS="):
            lo.events[i] = (t, s, [b"+ export LIBTPU_INIT_ARGS='--xla_tpu_overlap_compute_collective_tc=true "
                                   b"--megascale_grpc_premap_memory_bytes=17179869184 "
                                   b"--vmodule=real_program_continuator=1'"], mk)
            hits += 1
    assert hits == 1
    shutdown(job, max(reports.values()) + rng.randint(20 * SEC, 40 * SEC))
    b = d / "bundle"
    write_tpu_common(job, b)
    parts = job.n_devices
    batch = parts * 4
    rows = 4096 // parts
    before = HLO_TEMPLATE.format(combiner="add.30", combiner_op="add", line=88, scale="0.000244140625",
                                 parts=parts, batch=batch)
    ids = {}
    for h in job.hosts:
        ids[h["name"]] = 41 + (2 if h is odd else 0) + (1 if h["widx"] == 1 and h["slice"] == 1 else 0)
        coll = (SYNC_AR if h is odd else ASYNC_AR).format(parts=parts, rows=rows)
        after = AFTER_TEMPLATE.format(parts=parts, rows=rows, batch=batch, collective=coll,
                                      reduced="%all-reduce.32" if h is odd else "%all-reduce-done")
        base = b / "hlo" / h["name"]
        mid = f"module_{ids[h['name']]:04d}.jit_train_step"
        write(base / f"{mid}.before_optimizations.txt", before)
        write(base / f"{mid}.after_optimizations.txt", after)
        write(base / "module_0007.jit_init_params.before_optimizations.txt", INIT_BEFORE.format(parts=parts))
        write(base / "module_0007.jit_init_params.after_optimizations.txt",
              INIT_BEFORE.format(parts=parts).replace("HloModule jit_init_params, ",
                                                      "HloModule jit_init_params, is_scheduled=true, "))
    texts = {h["name"]: (b / "hlo" / h["name"] / f"module_{ids[h['name']]:04d}.jit_train_step.after_optimizations.txt"
                         ).read_text() for h in job.hosts}
    others = {v for k, v in texts.items() if k != odd["name"]}
    assert len(others) == 1 and texts[odd["name"]] not in others
    marks = gen.render_logs(job, b)
    odd_path = f"hlo/{odd['name']}/module_{ids[odd['name']]:04d}.jit_train_step.after_optimizations.txt"
    f = [{"code": "hang.fingerprint_mismatch",
          "culprits": [{"host": odd["name"]}],
          "evidence": [evd(odd_path, 1, "HloModule jit_train_step, is_scheduled=true, entry_computation_layout=")]}]
    expected(d, "Two-slice McJAX job (4 TPU v5e hosts) hangs; workers report the hang but no coordinator digest "
                "exists; the HLO dumps show one host whose after_optimizations jit_train_step differs (launched "
                "without the async collective fusion flags).", f)
    return job, f


# --------------------------------------------------------------------------------------------
# 8. One host 1.6x slower on every step, no hang


def scenario_hang_step_straggler(d):
    rng = random.Random(8808)
    hosts = [f"gpu-st-{i:02d}" for i in range(1, 9)]
    slow = "gpu-st-05"
    steps = 1200
    t0 = us_of(2025, 3, 12, 10, 2, 44)
    base = {h: 0.408 * (0.99 + 0.02 * rng.random()) for h in hosts}
    spikes = {}
    while len(spikes) < 6:
        h = rng.choice(hosts)
        if h != slow:
            spikes[(h, rng.randint(30, steps - 10))] = 2.1 + rng.random() * 0.6
    # Synchronous data parallelism: every step ends when the slowest host is done.
    dts = {h: [] for h in hosts}
    ends = []
    t = t0 + 95 * SEC
    for s in range(1, steps + 1):
        extra = (2.8 if s % 100 == 0 else 0.0) + (5.6 if s % 400 == 0 else 0.0)
        slowest = 0.0
        for h in hosts:
            dt = base[h] * (1.6 if h == slow else 1.0) * (0.96 + 0.08 * rng.random()) * spikes.get((h, s), 1.0) + extra
            dts[h].append(dt)
            slowest = max(slowest, dt)
        t += int((slowest + 0.012) * SEC)
        ends.append(t)
    marks = {}
    for i, h in enumerate(hosts):
        log = HostLog()
        pid = rng.randint(41000, 58000)
        py = rng.randint(139_900_000_000_000, 140_700_000_000_000)
        skew = rng.randint(-60_000, 60_000)
        tt = t0 + skew + rng.randint(0, 3 * SEC)
        for line in ["+ export XLA_PYTHON_CLIENT_MEM_FRACTION=0.92 NCCL_DEBUG=WARN TF_CPP_MIN_LOG_LEVEL=0",
                     f"+ python3 -u train.py --config configs/vit_l16_i21k.py --coordinator_address gpu-st-01:1234 "
                     f"--num_processes 8 --process_id {i}"]:
            log.emit(tt, line)
            tt += rng.randint(1000, 9000)

        def info(dt_lo, dt_hi, src, msg, level="I", tid=py):
            nonlocal tt
            tt += rng.randint(dt_lo, dt_hi)
            log.emit(tt, glog(level, tt, tid, src, msg))

        info(SEC, 3 * SEC, "distributed.py:105", "Connecting to JAX distributed service on 10.9.0.11:1234")
        info(SEC, 4 * SEC, "coordination_service_agent.cc:298", "Coordination agent has successfully connected.",
             tid=pid + 31)
        info(1000, 9000, "distributed.py:131", f"jax.distributed initialized: process_id={i} num_processes=8")
        info(1000, 90_000, "xla_bridge.py:889", "Unable to initialize backend 'tpu': no TPU devices on this host")
        devs = ", ".join(f"CudaDevice(id={i * 8 + j})" for j in range(8))
        info(1000, 90_000, "train.py:88", f"local devices: [{devs}]")
        info(1000, 9000, "train.py:90", "global device count 64, process count 8, mesh {'data': 64}")
        for k, v in [("model", "vit_l16"), ("image_size", 224), ("patch_size", 16), ("num_layers", 24),
                     ("hidden_size", 1024), ("mlp_dim", 4096), ("num_heads", 16), ("dropout", 0.1),
                     ("batch_size", 4096), ("base_lr", 0.001), ("warmup_steps", 300), ("weight_decay", 0.03),
                     ("total_steps", steps), ("eval_every", 100), ("checkpoint_every", 400),
                     ("dataset", "imagenet21k"), ("data_dir", "/datasets/imagenet21k/tfrecords"),
                     ("shuffle_buffer", 250000), ("prefetch", 4), ("dtype", "bfloat16"),
                     ("checkpoint_dir", "/checkpoints/vit-l16-i21k"), ("seed", 0)]:
            info(20, 300, "config.py:61", f"Config param {k}: {v}")
        info(SEC, 5 * SEC, "input_pipeline.py:142", f"reading shard {i} of 8 from /datasets/imagenet21k/tfrecords "
                                                    f"(1024 files)")
        info(SEC, 2 * SEC, "pxla.py:1906", "Compiling train_step with global shapes and types "
                                           "[ShapedArray(bfloat16[4096,224,224,3]), ShapedArray(int32[4096])].")
        info(30 * SEC, 45 * SEC, "pxla.py:1935",
             f"Finished XLA compilation of jit(train_step) in {33 + rng.random() * 9:.9f} sec")
        for s in range(1, steps + 1):
            te = ends[s - 1] + skew - rng.randint(2_000, 9_000)
            dt = dts[h][s - 1]
            loss = 1.92 + 5.6 * math.exp(-s / 180.0) + (rng.random() - 0.5) * 0.03
            log.emit(te, glog("I", te, py, "train.py:288", f"step {s}: loss={loss:.4f} step_time={dt:.3f}s"),
                     marks={0: "last_step"} if s == steps else None)
            if s % 100 == 0:
                tx = te - int(2.7 * SEC)
                prec = 0.31 + 0.4 * (1 - math.exp(-s / 400))
                log.emit(tx, glog("I", tx, py, "train.py:301",
                                  f"eval at step {s}: val_loss={loss + 0.11:.4f}, val_prec@1={prec:.4f}"))
            if s % 400 == 0:
                tx = te - int(5.4 * SEC)
                log.emit(tx, glog("I", tx, py, "checkpoints.py:522", f"saving checkpoint step {s} to "
                                                                     f"/checkpoints/vit-l16-i21k/checkpoint_{s}"))
                log.emit(tx + 5 * SEC, glog("I", tx + 5 * SEC, pid + 77, "checkpoints.py:560",
                                            f"saved checkpoint_{s} (shard {i}) in 4.{rng.randint(10, 99)}s"))
            if h == slow and s % 150 == 75:
                tx = te - rng.randint(50_000, 300_000)
                log.emit(tx, glog("W", tx, pid + 64, "gpu_monitor.py:77",
                                  f"GPU {rng.randint(0, 7)}: clocks throttled (power brake), SM clock "
                                  f"{1010 + rng.randint(0, 90)} MHz"))
            while rng.random() < 0.55:
                tx = te - rng.randint(20_000, 350_000)
                msg = rng.choice([f"host RSS {38 + rng.random() * 4:.1f} GiB",
                                  f"prefetched {rng.randint(2, 4)} batches",
                                  f"wrote scalars for step {s} to /checkpoints/vit-l16-i21k/tb",
                                  "Heartbeat to coordination service ok"])
                log.emit(tx, glog("I", tx, pid + 31 if msg.startswith("Heart") else py, "train.py:412"
                                  if not msg.startswith("Heart") else "coordination_service_agent.cc:512", msg))
                if rng.random() < 0.5:
                    break
        tt = ends[-1] + skew + rng.randint(SEC, 3 * SEC)
        log.emit(tt, glog("I", tt, py, "train.py:330", f"training finished after {steps} steps"))
        tt += rng.randint(100_000, 900_000)
        log.emit(tt, glog("I", tt, pid + 31, "coordination_service_agent.cc:640",
                          "Coordination agent has successfully shut down."))
        data, mk, _ = log.render()
        write(d / "bundle" / "nodes" / h / "train.log", data)
        marks[h] = mk
    med = sorted(sorted(v)[len(v) // 2] for k, v in dts.items() if k != slow)
    ratio = sorted(dts[slow])[steps // 2] / med[len(med) // 2]
    assert 1.5 < ratio < 1.7, ratio
    last = steps
    f = [{"code": "hang.straggler",
          "culprits": [{"host": slow}],
          "evidence": [evd(f"nodes/{slow}/train.log", marks[slow]["last_step"],
                           f"step {last}: loss=")]}]
    expected(d, f"JAX data-parallel job on 8 GPU hosts (one process per host) trains {steps} steps to the end; "
                f"{slow}'s own step time is about 1.6x its peers' on every step (its GPUs are power-braked), with "
                "eval and checkpoint slow steps on every host and isolated spikes elsewhere.", f)
    return None, f


# --------------------------------------------------------------------------------------------
# 9. JAX on 4 TPU v4 hosts: the first evaluation's program does not fit the HBM


def scenario_runtime_device_oom(d):
    job = TpuJob("runtime_device_oom", 6609, us_of(2025, 9, 3, 14, 20, 5), ["5b81d0c2"], 4,
                 ("TPU v4", "v4", 4), steps=520, first_step=0, launch0=41_310,
                 step_fmt="plain", vmodule=False, eval_step=None, chatter=0.5)
    rng = job.rng
    k_last = 499  # steps 0..499 run; the evaluation at step 500 is compiled first
    site = "/home/mlrunner/.local/lib/python3.10/site-packages"
    tb = ["Traceback (most recent call last):",
          '  File "/usr/lib/python3.10/runpy.py", line 196, in _run_module_as_main',
          "    return _run_code(code, main_globals, None,",
          '  File "/usr/lib/python3.10/runpy.py", line 86, in _run_code',
          "    exec(code, run_globals)",
          '  File "/home/mlrunner/maxtext/MaxText/train.py", line 781, in <module>',
          "    app.run(main)",
          f'  File "{site}/absl/app.py", line 308, in run',
          "    _run_main(main, args)",
          f'  File "{site}/absl/app.py", line 254, in _run_main',
          "    sys.exit(main(argv))",
          '  File "/home/mlrunner/maxtext/MaxText/train.py", line 777, in main',
          "    train_loop(config)",
          '  File "/home/mlrunner/maxtext/MaxText/train.py", line 712, in train_loop',
          "    eval_metrics = p_eval_step(state, eval_batch, nextrng)",
          "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of "
          "memory in memory space hbm. Used 33.87G of 31.25G hbm. Exceeded hbm capacity by 2.62G.",
          "",
          "Total hbm usage >= 34.62G:",
          "    reserved        750.00M ",
          "    program          33.87G ",
          "    arguments            0B ",
          "",
          "Output size 0B; shares 0B with arguments.",
          "",
          "Program hbm requirement 33.87G:",
          "    global           52.0K",
          "    scoped           24.0K",
          "    HLO temp         33.87G (100.0% utilization: Unpadded (33.10G) Padded (33.10G), 2.3% fragmentation "
          "(781.25M))",
          "",
          "  Largest program allocations in hbm:",
          ""]
    for i, (size, shape, op) in enumerate([
            ("8.00G", "bf16[32,32,2048,2048]{3,2,1,0:T(8,128)(2,1)}", "dot_general"),
            ("8.00G", "bf16[32,32,2048,2048]{3,2,1,0:T(8,128)(2,1)}", "exp"),
            ("4.00G", "f32[32,2048,16384]{2,1,0:T(8,128)}", "dot_general"),
            ("2.00G", "bf16[32,2048,16384]{2,1,0:T(8,128)(2,1)}", "mul")], 1):
        tb += [f"  {i}. Size: {size}",
               f'     Operator: op_name="jit(eval_step)/jit(main)/decoder/layers/self_attention/{op}" '
               'source_file="/home/mlrunner/maxtext/MaxText/layers/attentions.py" source_line=244',
               f"     Shape: {shape}",
               f"     Unpadded size: {size}",
               f"     XLA label: fusion.{1200 + 17 * i} = fusion(...), kind=kOutput",
               "     Allocation type: HLO temp",
               "     ==========================",
               ""]
    tb += ["--------------------",
           "For simplicity, JAX has removed its internal frames from the traceback of the following exception. "
           "Set JAX_TRACEBACK_FILTERING=off to include these."]
    t_compile = {}
    for h in job.hosts:
        log = job.logs[h["name"]]
        tpu_startup(job, h, log)
        tpu_training(job, h, log, k_last)
        py = h["pytid"]
        t = job.ht(h, job.step_end[k_last]) + rng.randint(40_000, 300_000)
        log.emit(t, glog("I", t, py, "train.py:702",
                         "Running evaluation at step 500 (eval_steps=40, eval_per_device_batch_size=32)"))
        t += rng.randint(100_000, 400_000)
        t_compile[h["name"]] = t
        log.emit(t, glog("I", t, py, "pxla.py:1901",
                         "Compiling jit_eval_step with global shapes and types [ShapedArray(bfloat16[4096,32000]), "
                         "ShapedArray(int32[512,2048])]. Argument mapping: (GSPMDSharding({devices=[16,1]<=[16]}), "
                         "GSPMDSharding({devices=[16,1]<=[16]}))."))
        t += rng.randint(38 * SEC, 52 * SEC)
        log.emit(t, tb, marks={15: "exc"})
    marks = write_tpu_bundle(job, d / "bundle")
    exc = "RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of memory in memory space hbm."
    # The traceback's lines carry no time: a failure takes the time of the stamped line before it,
    # the compile line.
    first = min(job.hosts, key=lambda h: t_compile[h["name"]])
    f = [{"code": "runtime.device_oom",
          "culprits": [{"host": h["name"]} for h in job.hosts],
          "evidence": [evd(gen.log_path(h), marks[h["name"]]["exc"], exc) for h in job.hosts]},
         {"code": "runtime.first_failure",
          "culprits": [{"host": first["name"]}],
          "evidence": [evd(gen.log_path(first), marks[first["name"]]["exc"], exc)]}]
    expected(d, "JAX (MaxText-style) training on 4 TPU v4 hosts: 500 steps run, then the first evaluation's "
                "program (eval_per_device_batch_size=32, twice the training batch) is compiled and every host "
                "fails with 'XlaRuntimeError: RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of "
                "memory in memory space hbm. Used 33.87G of 31.25G hbm', followed by the compiler's report of "
                "the largest allocations.", f)
    return job, f

