#!/usr/bin/env python3
"""Writes a large many-rank hang bundle for timing the hang analyzer (not committed).

    make_ranks_bundle.py DIR [NRANKS]        NRANKS defaults to 1024, a multiple of 8

The bundle is corpus scenario hang_nccl_timeout_behind at NRANKS ranks, 8 per node
(DIR/logs/node-<i>/train.log): torch 2.5 / Megatron-LM with [rankN]: prefixes, NCCL_DEBUG=INFO
start-up of every rank, one memory report per rank and iteration (about 2,000 lines per rank in
all), then every rank but one times out at SeqNum 1042 while the culprit only answers the dump
signal with "Last enqueued NCCL work: 1041". Deterministic (same seed, same bytes); Python 3.11,
standard library only. Pack it with: tar -C DIR -I 'zstd -3 -T0' -cf ranks.tar.zst .
"""
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "corpus"))

import generate  # noqa: E402,F401  (loads the generator first: gen_torch_hang imports it)
import gen_torch_hang  # noqa: E402

ITERS = 1900  # memory reports per rank; NCCL start-up and the hang add about 70 more lines


def main(argv):
    if len(argv) not in (2, 3):
        sys.exit(__doc__)
    out = Path(argv[1])
    nranks = int(argv[2]) if len(argv) == 3 else 1024
    if nranks < 16 or nranks % 8:
        sys.exit("NRANKS must be a multiple of 8, at least 16")
    if out.exists() and any(out.iterdir()):
        sys.exit(f"{out} is not empty")
    culprit = nranks * 2 // 3 + 5
    seq = 1042
    start = time.time()
    job, marks, first = gen_torch_hang.build_behind(out, 9001, nranks // 8, 8, culprit, seq, ITERS, 1,
                                                    generate.us_of(2025, 1, 14, 3, 0, 0))
    host = job.node(culprit).name
    files = sorted(out.glob("logs/*/train.log"))
    size = sum(f.stat().st_size for f in files)
    lines = sum(f.read_bytes().count(b"\n") for f in files)
    print(f"wrote {len(files)} node logs, {nranks} ranks, {lines} lines, {size / 1e6:.0f} MB in "
          f"{time.time() - start:.0f} s")
    print(f"expected: hang.collective_timeout, culprit rank {culprit} on {host} "
          f"(logs/{host}/train.log:{marks[host]['behind']}); {nranks - 1} ranks wait at SeqNum {seq}, "
          f"first to time out: rank {first}")


if __name__ == "__main__":
    main(sys.argv)
