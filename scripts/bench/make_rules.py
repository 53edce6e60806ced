#!/usr/bin/env python3
"""Writes a rule pack of N rules for the rule-pack benchmark (docs/PERFORMANCE.md, "Rule packs").

    make_rules.py OUT.json [--literal 180] [--regex 20] [--seed 7]

The rules look like a site's own pack: literal signatures of failures (storage, scheduler,
container runtime, filesystems, drivers, libraries), a third of them matched ignoring case,
some with several literals ("any"), and regexes with capture groups whose required literal
is what the automaton finds. None of them matches the benchmark bundle's lines
(make_bundle.py), so the measurement is the cost of scanning, the case that matters: a pack
is run over every line of every run. Deterministic for a seed.
"""
import argparse
import json
import random

SUBSYSTEMS = ["gcsfuse", "s3fs", "lustre", "nfs4", "weka", "slurmd", "enroot", "pyxis", "containerd",
              "kubelet", "nvidia-fabricmanager", "nvidia-persistenced", "dcgm", "mlx5_core", "efa",
              "ofi-nccl", "aws-ofi", "tpu-runtime", "libtpu", "megascale", "grpc", "etcd", "redis",
              "wandb", "mlflow", "tensorboard", "hf-hub", "datasets", "webdataset", "petastorm"]
FAILURES = ["refused the mount", "lost its lease", "returned ESTALE", "hit a stale file handle",
            "exceeded the inode quota", "reported a checksum mismatch", "timed out fetching metadata",
            "was throttled by the backend", "failed the health probe", "dropped the connection",
            "could not allocate a hugepage", "rejected the credential", "detected a firmware fault",
            "reported an uncorrectable error", "ran out of receive buffers"]
REGEXES = [
    ("shard ([0-9]+) of (?<dataset>[a-z0-9_-]+) failed checksum", "{dataset} shard {1}"),
    ("lease (?<lease>[0-9a-f]+) expired after ([0-9]+)s on (?<node>[a-z0-9-]+)", "lease {lease} on {node}"),
    ("GPU ([0-9]+) fell off the bus at PCI ([0-9a-f:.]+)", "GPU {1} at {2}"),
    ("mount (?<mnt>/[A-Za-z0-9_/.-]+) became read-only", "{mnt}"),
    ("quota exceeded for project (?<project>[a-z0-9-]+) \\(([0-9]+) files\\)", "{project}"),
    ("container (?<cid>[0-9a-f]{12}) was OOM-killed by the runtime", "{cid}"),
    ("heartbeat from worker (?<w>[0-9]+) missing for ([0-9]+) intervals", "worker {w}"),
    ("token for bucket (?<bucket>[a-z0-9.-]+) expired", "{bucket}"),
    ("link (?<link>mlx5_[0-9]+)/([0-9]+) went down", "{link}"),
    ("fabric manager reported NVLink error on GPU ([0-9]+)", "GPU {1}"),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--literal", type=int, default=180)
    ap.add_argument("--regex", type=int, default=20)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    rules = []
    seen = set()
    while len(rules) < args.literal:
        sub, fail = rng.choice(SUBSYSTEMS), rng.choice(FAILURES)
        n = len(rules)
        text = f"{sub} {fail}"
        if text in seen:
            text = f"{sub}: {fail} (E{1000 + n})"
        seen.add(text)
        match = {"literal": text}
        if n % 5 == 4:
            match = {"any": [text, f"{sub}[{rng.randint(100, 999)}]: fatal: {fail}"]}
        if n % 3 == 0:
            match["ignore_case"] = True
        rules.append({
            "code": f"bench.literal_{n:03d}",
            "severity": ["error", "warning", "info"][n % 3],
            "title": f"{sub} {fail}",
            "summary": "{count} line(s) on {hosts}, first at {first}",
            "recommendation": f"Check {sub} on the hosts named.",
            "match": match,
        })
    for i in range(args.regex):
        regex, summary = REGEXES[i % len(REGEXES)]
        if i >= len(REGEXES):
            regex = regex.replace(" ", f" \\(variant {i}\\) ", 1)  # another required literal
        rules.append({
            "code": f"bench.regex_{i:03d}",
            "severity": "warning",
            "title": f"regex rule {i}",
            "summary": summary + " ({count} lines)",
            "recommendation": "Look at the first line cited.",
            "match": {"regex": regex, "ignore_case": i % 4 == 0},
            "min_count": 1 + i % 3,
        })
    pack = {"casefile_rules": 1, "name": "bench-200",
            "description": f"{len(rules)} synthetic rules for the benchmark (scripts/bench/make_rules.py)",
            "rules": rules}
    with open(args.out, "w") as f:
        json.dump(pack, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
