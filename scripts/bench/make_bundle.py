#!/usr/bin/env python3
"""Writes a large synthetic multi-host bundle for benchmarks (not committed).

    make_bundle.py OUT_DIR [--hosts 64] [--mb 1100] [--seed 1234] [--bad] [--shapes N]

--bad writes the "bad run" of the diff benchmark (scripts/bench/diff_bench.sh):
another seed's lines plus, on one host, a NCCL WARN every ~5,000 lines and
steps that take twice as long.

Each host gets a worker log mixing glog-headed runtime lines, Python logging
lines from the training loop, torch [rankN]: prefixed lines and NCCL INFO
lines, so the line layer does the work it does on real logs. Deterministic.
Pack it with: tar -C OUT_DIR -I 'zstd -3 -T0' -cf bundle.tar.zst .
"""
import argparse
import os
import random


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--hosts", type=int, default=64)
    ap.add_argument("--mb", type=int, default=1100)
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--bad", action="store_true")
    # Word-salad messages (the default) make nearly every line a new shape:
    # the worst case for template mining. --shapes N draws each message from
    # N fixed word sequences instead, as a program's log statements repeat.
    ap.add_argument("--shapes", type=int, default=0)
    args = ap.parse_args()
    rnd = random.Random(args.seed)
    per_host = args.mb * 1024 * 1024 // args.hosts
    words = ("forward backward all-reduce optimizer step checkpoint shard tensor gradient "
             "bucket stream device host compile cache hit miss fusion layer attention").split()
    # The shapes come from their own fixed seed: a good and a bad run of one
    # program print the same statements.
    shape_rnd = random.Random(1234)
    shapes = [" ".join(shape_rnd.choice(words) for _ in range(shape_rnd.randint(4, 14)))
              for _ in range(args.shapes)]
    for h in range(args.hosts):
        host = f"node-{h:03d}"
        d = os.path.join(args.out, "hosts", host)
        os.makedirs(d, exist_ok=True)
        written = 0
        t = 9 * 3600 + 21 * 60 + h * 0.013
        step = 0
        buf = []
        with open(os.path.join(d, "worker.log"), "w") as f:
            slow = args.bad and h == 7
            while written < per_host:
                t += rnd.random() * (0.02 if slow else 0.01)
                if slow and rnd.random() < 0.0002:
                    warn = (f"{host}:{200000 + h}:{200100 + h} [{rnd.randint(0, 7)}] NCCL WARN NET/IB : "
                            f"Got async event : port error on mlx5_{rnd.randint(0, 7)}:1\n")
                    buf.append(warn)
                    written += len(warn)
                hh, rem = divmod(t, 3600)
                mm, ss = divmod(rem, 60)
                us = int((ss - int(ss)) * 1e6)
                k = rnd.random()
                if shapes:
                    msg = f"{rnd.choice(shapes)} {rnd.randint(0, 99999)}"
                else:
                    msg = " ".join(rnd.choice(words) for _ in range(rnd.randint(4, 14)))
                if k < 0.35:
                    line = f"I1129 {int(hh):02d}:{int(mm):02d}:{int(ss):02d}.{us:06d}  {4000 + h} runtime.cc:{rnd.randint(10, 900)}] {msg}\n"
                elif k < 0.6:
                    step += 1
                    line = (f"2026-11-29 {int(hh):02d}:{int(mm):02d}:{int(ss):02d},{us // 1000:03d} - train - INFO - "
                            f"step {step} loss={2.5 - step * 1e-6:.4f} grad_norm={rnd.random() * 3:.3f} lr=3.0e-4 {msg}\n")
                elif k < 0.8:
                    line = f"[rank{h * 8 + rnd.randint(0, 7)}]:[I1129 {int(hh):02d}:{int(mm):02d}:{int(ss):02d}.{us:06d}123 ProcessGroupNCCL.cpp:{rnd.randint(100, 3000)}] {msg}\n"
                else:
                    line = f"{host}:{200000 + h}:{200100 + h} [{rnd.randint(0, 7)}] NCCL INFO Channel {rnd.randint(0, 31):02d}/0 : {rnd.randint(0, 511)}[{rnd.randint(0, 7)}] -> {rnd.randint(0, 511)}[{rnd.randint(0, 7)}] via NET/IB/{rnd.randint(0, 7)}/GDRDMA {msg}\n"
                buf.append(line)
                written += len(line)
                if len(buf) >= 4096:
                    f.write("".join(buf))
                    buf.clear()
            f.write("".join(buf))


if __name__ == "__main__":
    main()
