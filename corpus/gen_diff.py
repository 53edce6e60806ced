"""Good/bad pairs for `casefile diff` (issue #8), imported by generate.py.

Each pair is corpus/diff/<pair>/good/ and bad/ (one bundle each) and expected.json (what the
diff must put in its headline, which items its sections must hold, which sections must stay
empty). The two runs of a pair are the same job launched twice, the way real reruns differ:
another start time, other PIDs, communicator ids and random noise (each side draws from its own
seeded random.Random), the same machines. On top of that, bad carries what the pair is about:

  diff_nccl_upgrade     driver 535 -> 550 and nvidia-nccl-cu12 2.18.6 -> 2.20.5 on both hosts;
                        one host's IB port flaps (NCCL WARN "NET/IB : Got async event : ...",
                        a line family good never printed) and every step is slower
  diff_fp16_loss_scale  DeepSpeed config bf16 -> fp16; the dynamic loss scale collapses to 1
  diff_straggler_host   one host of four computes ~1.75x slower; its ranks' step times and
                        everyone's wall-clock step rise
  diff_healthy_lengths  the same healthy run stopped by its config at 300 and at 500 steps

The logs are written by the existing generators (gen_comm's NCCL start-up and training loop,
gen_torch_hang's TorchJob, generate.py's DeepSpeed/HF machinery, gen_build's nvidia-smi); this
module only composes them. Every pinned line number is computed from the written file and
checked (its "contains" text is in the line as the diff test reads it: last \\r frame, no ANSI).
"""

import json
import math
import types

import gen_build
from gen_comm import Comm, env_cmd, line_of, render, start_all, train
from gen_torch_hang import TorchJob
from generate import (OPT_13B, SEC, DsScaler, NumJob, agent_finish_ok, clean_line, hf_ds_train, hf_prelude,
                      hf_train_end, json_line_of, model_config_json, num_ds_engine, num_hf_train_banner,
                      pylog_time, us_of, write, write_host_env)

# --------------------------------------------------------------------------------------------
# expected.json and its self-check


def pin(side_dir, path, line, contains):
    """Evidence the diff must cite: a line of one side, checked against the written file."""
    data = (side_dir / path).read_bytes()
    text = clean_line(data, line)
    assert contains in text, (side_dir, path, line, contains, text)
    return {"path": path, "line": line, "contains": contains}


def pin_first(side_dir, path, contains):
    """The first line of a file whose cleaned text holds `contains`, pinned."""
    return pin(side_dir, path, line_of(side_dir, path, lambda x: contains in x), contains)


def item(section, kind, key=None, key_contains=None, good=None, bad=None):
    """One expected diff item: section and kind, the key exactly or a part of it, evidence."""
    out = {"section": section, "kind": kind}
    if key is not None:
        out["key"] = key
    if key_contains is not None:
        out["key_contains"] = key_contains
    if good:
        out["good_evidence"] = good
    if bad:
        out["bad_evidence"] = bad
    return out


def write_expected(d, description, headline, include, empty):
    doc = {"description": description, "good": ["good"], "bad": ["bad"], "headline": headline,
           "include": include, "empty": empty}
    write(d / "expected.json", json.dumps(doc, indent=2, ensure_ascii=False) + "\n")


# --------------------------------------------------------------------------------------------
# torchrun jobs over InfiniBand (pairs 1, 3, 4)


def nvidia_smi(job, side_dir, driver, driver_cuda, t_report):
    """`nvidia-smi` of every host, as a collector saves it next to collect_env."""
    for n in job.nodes:
        h = types.SimpleNamespace(driver=driver, driver_cuda=driver_cuda, gpu=job.gpu, ngpu=job.nproc,
                                  t_report=t_report)
        text, _ = gen_build.nvidia_smi_text(h, job.rng)
        write(side_dir / "env" / n.name / "nvidia_smi.txt", text)


def ib_job(seed, hosts, era, versions, nch=16):
    return TorchJob(seed, hosts, 8, era, "NVIDIA H100 80GB HBM3", 600_000, nch=nch, iface="ib0", **versions)


def ib_start(job, t0, config):
    """Launch on every host, NCCL_DEBUG=INFO start-up of the world communicator over IB."""
    env = ["NCCL_DEBUG=INFO", "NCCL_SOCKET_IFNAME=ib0", "NCCL_IB_HCA=mlx5"]
    nenv = [("NCCL_SOCKET_IFNAME", "ib0"), ("NCCL_IB_HCA", "mlx5")]
    world = Comm(job, range(job.world), "world")
    t = start_all(job, t0, lambda n: env_cmd(job, n, "train.py", env, f" --config {config}"),
                  lambda g: [(world, dict(banner=g == 0, env=nenv, plugin_warn=True))], "IB")
    return t + 9 * SEC


def finish(job, side_dir, t_end, driver, driver_cuda, t_report):
    agent_finish_ok(job, t_end + 2 * SEC)
    render(job, side_dir)
    nvidia_smi(job, side_dir, driver, driver_cuda, t_report)


# --------------------------------------------------------------------------------------------
# 1. diff_nccl_upgrade

HOSTS_H = [("gpu-h01", "10.50.3.11"), ("gpu-h02", "10.50.3.12")]
OLD_STACK = {"nccl": "2.18.6", "driver": "535.161.08", "cuda_drv": "12020"}
NEW_STACK = {"nccl": "2.20.5", "driver": "550.54.15", "cuda_drv": "12040"}


def ib_port_flaps(job, times, node_idx, first_step):
    """NCCL's IB async-event thread on the ranks of one host that use mlx5_2 (local 4 and 5):
    the port goes down and comes back every few dozen steps. NCCL 2.18-2.20 print every
    async event but connection establishment as a WARN (preceded by its empty line)."""
    rng = job.rng
    node = job.nodes[node_idx]
    s = first_step
    last = max(times) - 1
    while s < last:
        for local in (4, 5):
            g = node.node_rank * job.nproc + local
            pid = node.pids[local]
            tid = pid + 23 + local
            hdr = f"{node.name}:{pid}:{tid} [{local}] transport/net_ib.cc:93 NCCL WARN NET/IB : Got async event : "
            t = times[s] + rng.randint(100_000, 400_000) + local * rng.randint(200, 900)
            job.say(g, t, ["", hdr + "port error"])
            job.say(g, t + rng.randint(1200_000, 2800_000), ["", hdr + "port active"])
        s += rng.randint(19, 37)


def nccl_upgrade_side(side_dir, seed, t0, stack, sec, flaps):
    job = ib_job(seed, HOSTS_H, "v23", stack)
    t = ib_start(job, t0, "configs/gpt_6b.yaml")
    times = train(job, t, 320, sec, warn_rank=1)
    if flaps:
        ib_port_flaps(job, times, 1, 40)
    drv_cuda = {"12020": "12.2", "12040": "12.4"}[stack["cuda_drv"]]
    finish(job, side_dir, times[321], stack["driver"], drv_cuda, t0 - 40 * 60 * SEC)
    return job


def scenario_diff_nccl_upgrade(d):
    """torch 2.3 on 2 hosts x 8 H100 over InfiniBand, before and after the hosts were moved to
    driver 550 and nvidia-nccl-cu12 2.20.5; after the upgrade mlx5_2 of gpu-h02 flaps and the
    job runs ~30% slower per step."""
    good, bad = d / "good", d / "bad"
    nccl_upgrade_side(good, 8101, us_of(2026, 4, 7, 9, 12, 31), OLD_STACK, 0.88, False)
    nccl_upgrade_side(bad, 8102, us_of(2026, 4, 21, 14, 3, 5), NEW_STACK, 1.15, True)
    log2 = "nodes/gpu-h02/train.log"
    # Self-check: the banners name the releases the version reports name.
    pin_first(good, "nodes/gpu-h01/train.log", "NCCL version 2.18.6+cuda12.1")
    pin_first(bad, "nodes/gpu-h01/train.log", "NCCL version 2.20.5+cuda12.1")
    # The headline takes the best item of each section first: the upgrade
    # (its first version item), the slower steps, and the new warning.
    headline = [
        item("versions", "changed", key="driver"),
        item("metrics", "slower", key_contains="step"),
        item("templates", "new", key_contains="Got async event",
             bad=[pin_first(bad, log2, "NCCL WARN NET/IB : Got async event : port error")]),
    ]
    include = [
        item("versions", "changed", key="driver_cuda"),
        item("versions", "changed", key="nccl",
             good=[{"contains": "nvidia-nccl-cu12==2.18.6"}], bad=[{"contains": "nvidia-nccl-cu12==2.20.5"}]),
    ]
    write_expected(d, "The same torch 2.3 job on 2 hosts x 8 H100 before and after a driver 535 -> 550 and NCCL "
                      "2.18.6 -> 2.20.5 upgrade: after it, mlx5_2 of gpu-h02 flaps (NCCL WARN 'NET/IB : Got async "
                      "event : port error' / 'port active', never seen before) and every step is ~30% slower.",
                   headline, include, ["findings.new", "findings.resolved", "configs", "hlo", "traces"])
    return None, []


# --------------------------------------------------------------------------------------------
# 2. diff_fp16_loss_scale

V_DS = {"torch": "2.0.1+cu118", "cuda": "11.8", "cuda_drv": "12020", "cuda_rt": "11.8.89", "nccl": "2.14.3",
        "ds": "0.9.5", "tf": "4.31.0", "accelerate": "0.21.0", "datasets": "2.14.4", "tokenizers": "0.13.3",
        "triton": "2.0.0", "driver": "535.54.03", "agent": "pylog", "iface": "ib0", "p2p": "P2P/IPC/read",
        "python": "3.10.12 (main, Jun 11 2023, 05:26:28) [GCC 11.4.0]", "micro": 8, "mem": 21.3,
        "os": "Ubuntu 22.04.2 LTS (x86_64)", "kernel": "5.15.0-76-generic", "gas": 2}


def ds_config(fp16):
    """The run's ds_config.json: both precision blocks, one enabled."""
    return {
        "bf16": {"enabled": not fp16},
        "fp16": {"enabled": fp16, "loss_scale": 0, "loss_scale_window": 1000, "initial_scale_power": 16,
                 "hysteresis": 2, "min_loss_scale": 1},
        "zero_optimization": {"stage": 2, "allgather_partitions": True, "allgather_bucket_size": 2e8,
                              "overlap_comm": True, "reduce_scatter": True, "reduce_bucket_size": 2e8,
                              "contiguous_gradients": True},
        "gradient_accumulation_steps": 2, "gradient_clipping": 1.0, "steps_per_print": 10,
        "train_micro_batch_size_per_gpu": 8, "wall_clock_breakdown": False,
    }


def fp16_side(side_dir, seed, t0, fp16):
    """HF Trainer + DeepSpeed ZeRO-2 fine-tuning of OPT-1.3B on 2 hosts x 8 A100, 1000 steps.
    fp16: the dynamic loss scale calibrates, then from step 613 every step overflows and the
    scale halves down to 1 (the numeric_loss_scale_collapse story); bf16: no scaler at all.
    Returns the log marks."""
    job = NumJob(seed, [("gpu-node-21", "10.8.6.21"), ("gpu-node-22", "10.8.6.22")], 8, "default",
                 "NVIDIA A100-SXM4-80GB", dict(V_DS))
    rng = job.rng
    cfg = ds_config(fp16)
    flag = "--fp16" if fp16 else "--bf16"

    def cmd(n):
        return ["+ export NCCL_DEBUG=INFO NCCL_SOCKET_IFNAME=ib0",
                f"+ torchrun --nnodes 2 --nproc_per_node 8 --node_rank {n.node_rank} --master_addr 10.8.6.21 "
                "--master_port 29500 --tee 3 finetune_opt.py --model_name_or_path /shared/models/opt-1.3b "
                "--dataset /shared/data/sft-mix-v3 --output_dir /shared/runs/opt13b-sft --max_steps 1000 "
                "--per_device_train_batch_size 8 --gradient_accumulation_steps 2 --learning_rate 2e-5 "
                f"--warmup_steps 50 --logging_steps 10 --save_steps 500 {flag} --deepspeed ds_config.json"]

    t = hf_prelude(job, t0, cmd, "/shared/models/opt-1.3b", "OPTConfig", OPT_13B, "TrainingArguments",
                   [("deepspeed", "ds_config.json"), ("fp16", fp16), ("bf16", not fp16),
                    ("gradient_accumulation_steps", 2), ("learning_rate", 2e-05), ("logging_steps", 10),
                    ("max_steps", 1000), ("output_dir", "/shared/runs/opt13b-sft"),
                    ("per_device_train_batch_size", 8), ("save_steps", 500), ("warmup_steps", 50)], fp16)
    t = num_ds_engine(job, t + 3 * SEC, cfg, job.v["ds"], "torch.float16" if fp16 else "torch.bfloat16", lr=0.0)
    t = num_hf_train_banner(job, t, ["Num examples = 412,883", "Num Epochs = 1",
                                     "Instantaneous batch size per device = 8",
                                     "Total train batch size (w. parallel, distributed & accumulation) = 256",
                                     "Gradient Accumulation steps = 2", "Total optimization steps = 1,000",
                                     "Number of trainable parameters = 1,315,758,080"])
    collapse_from = 613
    state = {}

    def overflow(s):
        return fp16 and (s <= 3 or s >= collapse_from)

    def mark(kind, s, text):
        if kind == "overflow" and text.endswith("Attempted loss scale: 1, reducing to 1") and "first_min" not in state:
            state["first_min"] = s
            return "first_min"
        return None

    def loss(s):
        if s < collapse_from or not fp16:
            return 2.31 + 1.6 * math.exp(-s / 90.0) + 0.25 * math.exp(-s / 900.0) + (rng.random() - 0.5) * 0.09
        # Every step is skipped: the weights stop moving, the loss stays where it was.
        return 2.45 + 0.05 * math.sin(s / 7.0) + (rng.random() - 0.5) * 0.09

    def lr(k):
        return 2e-05 * min(1.0, k / 50) * (1 - max(0, k - 50) / 950) if k else 0.0

    t, history, _ = hf_ds_train(job, t + SEC, {
        "steps": 1000, "total": 1000, "sec": 1.34, "loss": loss, "lr": lr, "grad_norm": None,
        "epoch_steps": 1613, "logging_steps": 10, "steps_per_print": 10,
        "scaler": DsScaler(16, 1000, 2, 1) if fp16 else None, "overflow": overflow, "mark": mark,
        "status_every": 0})
    t = hf_train_end(job, t, 1000, 1000 * 1.34 + 11.2, round(sum(h["loss"] for h in history) / len(history), 4),
                     0.62, "/shared/runs/opt13b-sft")
    agent_finish_ok(job, t)
    marks = job.render(side_dir, lambda n: f"nodes/{n.name}/logs/train.log")
    for n in job.nodes:
        write_host_env(job, side_dir, f"nodes/{n.name}")
    write(side_dir / "config" / "ds_config.json", json.dumps(cfg, indent=2) + "\n")
    write(side_dir / "model" / "opt-1.3b" / "config.json", model_config_json(OPT_13B))
    return marks


def scenario_diff_fp16_loss_scale(d):
    """The same OPT-1.3B fine-tuning in bf16 (good) and, after ds_config.json was switched to fp16,
    with a loss scale that collapses to 1 at step ~620 (bad)."""
    good, bad = d / "good", d / "bad"
    fp16_side(good, 8201, us_of(2026, 5, 11, 8, 30, 2), False)
    marks = fp16_side(bad, 8202, us_of(2026, 5, 12, 19, 4, 47), True)
    cfg_path = "config/ds_config.json"
    cfg_text = {s: (s / cfg_path).read_text() for s in (good, bad)}

    def cfg_pin(side, block, value):
        return pin(side, cfg_path, json_line_of(cfg_text[side], block, "enabled"), f'"enabled": {value}')

    log0 = "nodes/gpu-node-21/logs/train.log"
    collapse = pin(bad, log0, marks["gpu-node-21"]["first_min"], "Attempted loss scale: 1, reducing to 1")
    headline = [
        item("findings", "new", key="numeric.loss_scale_collapse", bad=[collapse]),
        item("configs", "changed", key_contains="bf16.enabled",
             good=[cfg_pin(good, "bf16", "true")], bad=[cfg_pin(bad, "bf16", "false")]),
        item("configs", "changed", key_contains="fp16.enabled",
             good=[cfg_pin(good, "fp16", "false")], bad=[cfg_pin(bad, "fp16", "true")]),
    ]
    include = [item("templates", "new", key_contains="OVERFLOW")]
    write_expected(d, "The same HF Trainer + DeepSpeed ZeRO-2 fine-tuning of OPT-1.3B on 2 hosts x 8 A100 in bf16 "
                      "(good) and after ds_config.json was switched to fp16 (bad): the dynamic loss scale halves "
                      "down to 1 and every later step overflows (numeric.loss_scale_collapse).",
                   headline, include, ["findings.resolved", "versions", "hlo", "traces"])
    return None, []


# --------------------------------------------------------------------------------------------
# 3. diff_straggler_host

HOSTS_S = [("gpu-s01", "10.60.1.11"), ("gpu-s02", "10.60.1.12"), ("gpu-s03", "10.60.1.13"),
           ("gpu-s04", "10.60.1.14")]
STACK_S = {"nccl": "2.20.5", "driver": "550.90.07", "cuda_drv": "12040"}


def train_per_rank(job, t, steps, sec, factor_of, warn_rank=None):
    """gen_comm.train with each rank's own step time: rank g prints sec * factor_of(g) (its
    compute and the part of the gradient all-reduce it waits for); the step ends, for
    everyone, when the slowest rank is done. No tqdm bar: this script logs step lines only
    (a bar's s/it is the wall time of the slowest rank, a series of its own). Returns
    {step: start time}."""
    rng = job.rng
    times = {}
    for s in range(1, steps + 1):
        times[s] = t
        base = sec * (0.96 + 0.08 * rng.random())
        dts = [base * factor_of(g) * (0.99 + 0.02 * rng.random()) for g in range(job.world)]
        wall = max(dts)
        for g in range(job.world):
            tg = t + int(dts[g] * SEC) + rng.randint(500, 40_000)
            loss = 2.05 + 7.9 * math.exp(-s / 70.0) + 0.6 * math.exp(-s / 900.0) + (rng.random() - 0.5) * 0.05
            job.say(g, tg, f"{pylog_time(tg)} - train - INFO - step {s}/{steps} loss={loss:.4f} "
                           f"lr={3e-4 * min(1.0, s / 100):.3e} step_time={dts[g]:.3f}s")
        if warn_rank is not None and s % 97 == 13:
            g = (s * 7 + warn_rank) % job.world
            tg = t + rng.randint(0, int(wall * SEC))
            job.say(g, tg, f"{pylog_time(tg)} - data - WARNING - rank {g}: slow read of shard "
                           f"{rng.randint(100, 999):05d} ({1.2 + rng.random() * 2:.1f} s), retrying from the "
                           "page cache")
        t += int(wall * SEC) + rng.randint(5_000, 30_000)
    times[steps + 1] = t
    return times


def straggler_side(side_dir, seed, t0, slow_node):
    job = ib_job(seed, HOSTS_S, "v24", STACK_S)
    t = ib_start(job, t0, "configs/llama_7b_dp.yaml")

    def factor(g):
        if slow_node is None:
            return 1.0
        # The slow host computes 1.75x longer; the others wait for it in the all-reduce.
        return 1.75 if job.node(g).name == slow_node else 1.3

    times = train_per_rank(job, t, 300, 0.92, factor, warn_rank=2)
    finish(job, side_dir, times[301], STACK_S["driver"], "12.4", t0 - 25 * 60 * SEC)
    return job


def scenario_diff_straggler_host(d):
    """torch 2.4 DDP on 4 hosts x 8 H100, 300 steps both times; in bad gpu-s03 has become slow."""
    good, bad = d / "good", d / "bad"
    straggler_side(good, 8301, us_of(2026, 6, 3, 7, 45, 10), None)
    job = straggler_side(bad, 8302, us_of(2026, 6, 4, 7, 51, 38), "gpu-s03")
    slow = job.nodes[2]
    first = slow.node_rank * job.nproc
    path = f"nodes/{slow.name}/train.log"
    # The finding cites the last step line of straggling ranks (which of the eight is the
    # analyzer's choice): any line of the slow host's log holding the last step.
    last = {"path": path, "contains": "step 300/300"}
    assert line_of(bad, path, lambda x: x.startswith(f"[rank{first}]:") and "step 300/300" in x)
    headline = [
        item("findings", "new", key="hang.straggler", bad=[last]),
        item("metrics", "slower", key_contains="step"),
    ]
    write_expected(d, "The same torch 2.4 DDP job on 4 hosts x 8 H100, 300 steps each time; in bad gpu-s03 computes "
                      "~1.75x longer per step (its ranks' step_time lines), the other hosts wait for it in the "
                      "all-reduce and every step takes ~1.75x the wall time (hang.straggler on gpu-s03).",
                   headline, [], ["findings.resolved", "versions", "configs", "templates.new", "hlo", "traces"])
    return None, []


# --------------------------------------------------------------------------------------------
# 4. diff_healthy_lengths

HOSTS_L = [("gpu-l07", "10.70.2.17"), ("gpu-l08", "10.70.2.18")]
STACK_L = {"nccl": "2.20.5", "driver": "550.90.07", "cuda_drv": "12040"}


def lengths_side(side_dir, seed, t0, steps):
    job = ib_job(seed, HOSTS_L, "v24", STACK_L)
    # The step count comes from the config file (not in the bundle): both command lines are equal.
    t = ib_start(job, t0, "configs/gpt_6b.yaml")
    times = train(job, t, steps, 0.88, warn_rank=1)
    finish(job, side_dir, times[steps + 1], STACK_L["driver"], "12.4", t0 - 15 * 60 * SEC)
    return job


def scenario_diff_healthy_lengths(d):
    """The same healthy torch 2.4 job twice: 300 steps (good) and 500 steps (bad)."""
    good, bad = d / "good", d / "bad"
    lengths_side(good, 8401, us_of(2026, 7, 14, 2, 10, 0), 300)
    lengths_side(bad, 8402, us_of(2026, 7, 15, 2, 10, 44), 500)
    write_expected(d, "The same healthy torch 2.4 job on 2 hosts x 8 H100 run twice, 300 steps (good) and 500 steps "
                      "(bad), with new PIDs, times and noise: a run of another length is no difference, the diff "
                      "must be nearly empty (no headline).",
                   [], [], ["findings.new", "findings.resolved", "findings.persisting", "templates.new",
                            "templates.vanished", "versions", "configs", "hlo", "traces"])
    return None, []


SCENARIOS = {
    "diff_nccl_upgrade": scenario_diff_nccl_upgrade,
    "diff_fp16_loss_scale": scenario_diff_fp16_loss_scale,
    "diff_straggler_host": scenario_diff_straggler_host,
    "diff_healthy_lengths": scenario_diff_healthy_lengths,
}

# Where generate.py writes each pair, relative to corpus/.
SCENARIO_DIRS = {name: f"diff/{name}" for name in SCENARIOS}
