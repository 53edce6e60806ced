#!/usr/bin/env python3
"""Writes a large synthetic multi-host bundle for benchmarks (not committed).

    make_bundle.py OUT_DIR [--hosts 64] [--mb 1100]

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
    args = ap.parse_args()
    rnd = random.Random(1234)
    per_host = args.mb * 1024 * 1024 // args.hosts
    words = ("forward backward all-reduce optimizer step checkpoint shard tensor gradient "
             "bucket stream device host compile cache hit miss fusion layer attention").split()
    for h in range(args.hosts):
        host = f"node-{h:03d}"
        d = os.path.join(args.out, "hosts", host)
        os.makedirs(d, exist_ok=True)
        written = 0
        t = 9 * 3600 + 21 * 60 + h * 0.013
        step = 0
        buf = []
        with open(os.path.join(d, "worker.log"), "w") as f:
            while written < per_host:
                t += rnd.random() * 0.01
                hh, rem = divmod(t, 3600)
                mm, ss = divmod(rem, 60)
                us = int((ss - int(ss)) * 1e6)
                k = rnd.random()
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
