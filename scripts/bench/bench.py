#!/usr/bin/env python3
"""The benchmark harness: casefile side by side with the limits and with lnav.

    scripts/bench/bench.py [--work DIR] [--mb 1024] [--hosts 256] [--reps 3]
        [--trace-events 100000] [--casefile BIN] [--library SO]
        [--only index] [--no-lnav] [--json FILE] [--smoke]

In ONE run, on the same files, each repetition runs every step below in
turn (so the machine's noise is shared), and the table gives the min and
median wall time and the peak RSS of each:

  limits    zstd -dc BUNDLE | wc -l; bsdtar -xOf BUNDLE > /dev/null;
            zstd -dc BUNDLE | grep -c -F NEEDLE (the limit of a substring scan)
  casefile  index (cold: no index yet); analyze on the existing index;
            analyze cold; diff of a good and a bad bundle with both indexes
            in place, and cold; a query counting the lines holding NEEDLE
            (every line scanned); a point lookup of one line by path and
            line number (in-process through the C API, median of 200
            lookups at random lines, and as a whole `casefile query` process)
  lnav      lnav -n -c ';SELECT count(*) FROM all_logs' on the extracted
            logs, and the same substring count through lnav's SQL

then the ratios against the targets of issue #10. The bundles come from
make_bench_bundle.py (deterministic) and are kept in --work for later runs:
the bad run (`--plant hang`, seed 2) is the one indexed and analysed; the
good run (seed 1) is the diff's other side. lnav's configuration and state go
to a folder of --work, never the user's.

Exit status 1 when a step fails or a check does not hold: casefile's
substring count equals grep's, the point lookup returns the line of the
extracted file, analyze names the planted hang. --smoke runs a small size
once (CI runs it: it proves the harness works; its timings mean nothing).
"""
import argparse
import json
import os
import platform
import random
import re
import shutil
import statistics
import subprocess
import sys
import tarfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
NEEDLE = "Watchdog caught collective operation timeout"
ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")


def sh_quote(s):
    return "'" + s.replace("'", "'\\''") + "'"


class StepFailed(Exception):
    pass


def measure(cmd, env, check=True):
    """(wall seconds, peak RSS in MiB, stdout) of one shell command; the
    peak is that command's alone: it runs under /usr/bin/time -f %M."""
    rss_file = os.path.join(env["BENCH_TMP"], "rss.txt")
    full = f"/usr/bin/time -f %M -o {sh_quote(rss_file)} bash -o pipefail -c {sh_quote(cmd)}"
    start = time.perf_counter()
    proc = subprocess.run(full, shell=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    wall = time.perf_counter() - start
    if check and proc.returncode != 0:
        raise StepFailed(f"exit {proc.returncode}: {cmd}\n{proc.stderr.decode(errors='replace')[-2000:]}")
    try:
        with open(rss_file) as f:
            rss_mb = int(f.read().split()[-1]) / 1024
    except (OSError, ValueError, IndexError):
        rss_mb = float("nan")
    return wall, rss_mb, proc.stdout.decode(errors="replace")


def bundle_path(work, kind, a):
    return os.path.join(work, f"bench-{a.hosts}h-{a.mb}m-{a.trace_events}ev-{kind}.tar.zst")


def make_bundle(path, a, plant, seed):
    if os.path.exists(path):
        return
    cmd = [sys.executable, os.path.join(HERE, "make_bench_bundle.py"), path, "--hosts", str(a.hosts),
           "--mb", str(a.mb), "--seed", str(seed), "--plant", plant, "--trace-events", str(a.trace_events),
           "--ranks-per-host", str(a.ranks_per_host)]
    if a.smoke:
        cmd += ["--hlo-hosts", "2", "--trace-hosts", "2"]
    print("generating", os.path.basename(path), "...", flush=True)
    t = time.perf_counter()
    subprocess.run(cmd, check=True)
    print(f"  {time.perf_counter() - t:.1f} s, {os.path.getsize(path) / 1e6:.1f} MB", flush=True)


def input_stats(path):
    """Bytes of all entries, bytes and paths of the worker logs."""
    total = 0
    logs = []
    proc = subprocess.Popen(["zstd", "-dc", path], stdout=subprocess.PIPE)
    with tarfile.open(fileobj=proc.stdout, mode="r|") as tar:
        for m in tar:
            if m.isfile():
                total += m.size
                if m.name.endswith(".log"):
                    logs.append((m.name, m.size))
    proc.wait()
    return total, logs


def extract(path, dest):
    if os.path.isdir(dest):
        return
    tmp = dest + ".part"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    subprocess.run(["tar", "-I", "zstd", "-xf", path, "-C", tmp], check=True)
    os.replace(tmp, dest)


def count_lines(path):
    with open(path, "rb") as f:
        return sum(chunk.count(b"\n") for chunk in iter(lambda: f.read(1 << 20), b""))


def point_lookups(a, bundle, index, logs, extracted, n):
    """Median and max microseconds of `n` lookups of one line by path and
    line number, in-process through the C API (Python binding); checks
    each returned text against the extracted file."""
    sys.path.insert(0, os.path.join(ROOT, "capi", "python"))
    os.environ["CASEFILE_LIBRARY"] = a.library
    import casefile  # noqa: E402 - the binding of this checkout

    rnd = random.Random(7)
    picks = []
    for name, _ in rnd.sample(logs, min(len(logs), 8)):
        lines = count_lines(os.path.join(extracted, name))
        for _ in range(n // 8 + 1):
            picks.append((name, rnd.randint(1, lines)))
    picks = picks[:n]
    times = []
    with casefile.open(bundle, index=index) as s:
        s.index()
        for name, line in picks:
            sql = (f"SELECT text FROM files AS f JOIN lines AS l ON l.file_id = f.id "
                   f"WHERE f.path = '{name}' AND l.line_no = {line}")
            t = time.perf_counter()
            rows = s.query(sql)
            times.append((time.perf_counter() - t) * 1e6)
            if len(rows) != 1:
                raise StepFailed(f"point lookup {name}:{line} returned {len(rows)} rows")
    # Check a few against the file itself (the text is the line without its
    # newline; casefile keeps control bytes, so compare the raw line).
    for name, line in picks[:16]:
        with open(os.path.join(extracted, name), "rb") as f:
            for i, raw in enumerate(f, 1):
                if i == line:
                    want = raw.rstrip(b"\n").decode("utf-8", errors="replace")
                    break
        with casefile.open(bundle, index=index) as s:
            got = s.query(f"SELECT text FROM files AS f JOIN lines AS l ON l.file_id = f.id "
                          f"WHERE f.path = '{name}' AND l.line_no = {line}")[0][0]
        # `text` is the line with its ANSI escapes removed and its carriage-
        # return frames (tqdm) reduced (docs/SCHEMA.md, lines): compare the
        # escapes-free text, and for a framed line its last frame.
        want = ANSI.sub("", want)
        if got != want and got.rsplit("\r", 1)[-1] != want.rsplit("\r", 1)[-1]:
            raise StepFailed(f"point lookup {name}:{line}: {got[:80]!r} != {want[:80]!r}")
    return statistics.median(times), max(times), picks[0]


def machine():
    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem = ""
    try:
        with open("/proc/meminfo") as f:
            mem = f"{int(f.readline().split()[1]) / 1024 / 1024:.0f} GiB"
    except (OSError, ValueError):
        pass
    return f"{os.cpu_count()} vCPUs, {cpu}, {mem}, {platform.platform()}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", default="/tmp/casefile-bench10")
    ap.add_argument("--mb", type=int, default=1024)
    ap.add_argument("--hosts", type=int, default=256)
    ap.add_argument("--ranks-per-host", type=int, default=8)
    ap.add_argument("--trace-events", type=int, default=100000)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--casefile", default=os.path.join(ROOT, "build", "bin", "casefile"))
    ap.add_argument("--library", default=os.path.join(ROOT, "build", "lib", "libcasefile.so"))
    ap.add_argument("--only", choices=("all", "index"), default="all",
                    help="index: only the limits and `casefile index` (for the scaling checks)")
    ap.add_argument("--no-lnav", action="store_true")
    ap.add_argument("--json", help="write every measurement here")
    ap.add_argument("--smoke", action="store_true", help="a small size, once (CI)")
    ap.add_argument("--fresh", action="store_true", help="empty --work first (regenerate the bundles)")
    a = ap.parse_args()
    if a.smoke:
        a.mb, a.hosts, a.reps, a.trace_events, a.ranks_per_host = 8, 8, 1, 2000, 4
    a.casefile = os.path.abspath(a.casefile)
    a.library = os.path.abspath(a.library)
    if a.fresh:
        shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work, exist_ok=True)
    tmp = os.path.join(a.work, "tmp")
    os.makedirs(tmp, exist_ok=True)
    env = dict(os.environ, BENCH_TMP=tmp, HOME=os.path.join(a.work, "home"), LC_ALL="C",
               CASEFILE_CACHE_DIR=os.path.join(a.work, "cache"))
    os.makedirs(env["HOME"], exist_ok=True)
    have_lnav = shutil.which("lnav") is not None and not a.no_lnav
    have_bsdtar = shutil.which("bsdtar") is not None

    bad = bundle_path(a.work, "hang", a)
    good = bundle_path(a.work, "good", a)
    make_bundle(bad, a, "hang", 2)
    if a.only == "all":
        make_bundle(good, a, "none", 1)
    raw_bytes, logs = input_stats(bad)
    extracted = bad[: -len(".tar.zst")] + ".d"
    if a.only == "all":
        extract(bad, extracted)
    cf = sh_quote(a.casefile)
    B, G = sh_quote(bad), sh_quote(good)
    idx = os.path.join(a.work, "bad.db")
    idx_cold = os.path.join(a.work, "cold.db")
    diff_dir = os.path.join(a.work, "diff-idx")
    diff_cold = os.path.join(a.work, "diff-cold")
    log_files = " ".join(sh_quote(os.path.join(extracted, n)) for n, _ in logs)
    like = f"%{NEEDLE}%"

    steps = [
        ("zstd -dc | wc -l", "limit", f"zstd -dc {B} | wc -l", None),
    ]
    if have_bsdtar:
        steps.append(("bsdtar -xOf > /dev/null", "limit", f"bsdtar -xOf {B} > /dev/null", None))
    steps.append(("casefile index (cold)", "casefile",
                  f"rm -f {sh_quote(idx)} && {cf} index --index {sh_quote(idx)} {B}", None))
    if a.only == "all":
        steps += [
            ("zstd -dc | grep -c -F NEEDLE", "limit", f"zstd -dc {B} | grep -c -F {sh_quote(NEEDLE)} || true", None),
            ("casefile analyze (index in place)", "casefile",
             f"{cf} analyze {B} --index {sh_quote(idx)} --no-store --fail-on never --format json", None),
            ("casefile analyze (cold)", "casefile",
             f"rm -f {sh_quote(idx_cold)} && {cf} analyze {B} --index {sh_quote(idx_cold)} --no-store "
             f"--fail-on never --format json", None),
            ("casefile diff (indexes in place)", "casefile",
             f"{cf} diff {G} -- {B} --index-dir {sh_quote(diff_dir)} --format json", "prepare_diff"),
            ("casefile diff (cold)", "casefile",
             f"rm -rf {sh_quote(diff_cold)} && {cf} diff {G} -- {B} --index-dir {sh_quote(diff_cold)} "
             f"--no-store --format json", None),
            ("casefile query: lines LIKE NEEDLE", "casefile",
             f"{cf} query {B} --index {sh_quote(idx)} --format csv "
             f"{sh_quote(f'SELECT count(*) FROM lines WHERE text LIKE {chr(39)}{like}{chr(39)}')}", None),
            ("casefile query: one line by path:line", "casefile",
             f"{cf} query {B} --index {sh_quote(idx)} --format csv "
             f"{sh_quote(f'SELECT text FROM files AS f JOIN lines AS l ON l.file_id = f.id WHERE f.path = {chr(39)}{logs[0][0]}{chr(39)} AND l.line_no = 1000')}",
             None),
        ]
        if have_lnav:
            steps += [
                ("lnav: count(*) FROM all_logs", "lnav",
                 f"lnav -n -c ';SELECT count(*), sum(length(log_raw_text)) FROM all_logs' {log_files}", None),
                ("lnav: all_logs LIKE NEEDLE", "lnav",
                 f"lnav -n -c {sh_quote(f';SELECT count(*) FROM all_logs WHERE log_raw_text LIKE {chr(39)}{like}{chr(39)}')} "
                 f"{log_files}", None),
            ]

    results = {name: {"group": group, "cmd": cmd, "wall": [], "rss": [], "out": ""}
               for name, group, cmd, _ in steps}
    failures = []
    prepared = False
    for rep in range(1, a.reps + 1):
        for name, group, cmd, prep in steps:
            if prep == "prepare_diff" and not prepared:
                # Both sides indexed and analysed once, untimed.
                measure(f"{cf} diff {G} -- {B} --index-dir {sh_quote(diff_dir)} --format json > /dev/null", env)
                prepared = True
            try:
                wall, rss, out = measure(cmd, env)
            except StepFailed as e:
                failures.append(f"{name}: {e}")
                continue
            r = results[name]
            r["wall"].append(wall)
            r["rss"].append(rss)
            r["out"] = out
            print(f"rep {rep}  {name:40s} {wall:8.3f} s  {rss:7.0f} MB", flush=True)

    lookup = None
    if a.only == "all":
        try:
            med, worst, example = point_lookups(a, bad, idx, logs, extracted, 200)
            lookup = {"median_us": med, "max_us": worst, "example": list(example)}
        except StepFailed as e:
            failures.append(f"point lookup: {e}")

    lines = int(results["zstd -dc | wc -l"]["out"].split()[0]) if results["zstd -dc | wc -l"]["out"] else 0
    index_size = os.path.getsize(idx) if os.path.exists(idx) else 0

    def mn(name):
        w = results.get(name, {}).get("wall") or []
        return min(w) if w else None

    def md(name):
        w = results.get(name, {}).get("wall") or []
        return statistics.median(w) if w else None

    # Checks: the harness measured real work.
    if a.only == "all":
        grep_out = results["zstd -dc | grep -c -F NEEDLE"]["out"].strip()
        q_out = results["casefile query: lines LIKE NEEDLE"]["out"].strip().splitlines()
        if not q_out or q_out[-1] != grep_out:
            failures.append(f"casefile counted {q_out[-1] if q_out else None} lines with the needle, grep {grep_out}")
        an = results["casefile analyze (index in place)"]["out"]
        if "hang.collective_timeout" not in an:
            failures.append("analyze did not name the planted hang (hang.collective_timeout)")

    ratios = []

    def ratio(label, value, target, ok):
        ratios.append({"ratio": label, "value": value, "target": target, "met": ok})

    if mn("casefile index (cold)") and mn("zstd -dc | wc -l"):
        r_min = mn("zstd -dc | wc -l") / mn("casefile index (cold)")
        r_med = md("zstd -dc | wc -l") / md("casefile index (cold)")
        ratio("index throughput / decompress-and-count throughput", f"{r_min:.3f} (best runs), {r_med:.3f} (medians)",
              ">= 0.5", r_min >= 0.5)
    if index_size:
        ratio("index size / uncompressed input", f"{index_size / raw_bytes:.3f} ({index_size / 1e6:.0f} MB)",
              "<= 0.25", index_size / raw_bytes <= 0.25)
    rss = max(results["casefile index (cold)"]["rss"] or [0])
    ratio("casefile index peak RSS", f"{rss:.0f} MB", "< 200 MB", rss < 200)
    if a.only == "all":
        if mn("casefile analyze (index in place)"):
            v = mn("casefile analyze (index in place)")
            ratio("analyze, index in place", f"{v:.2f} s", "< 1 s", v < 1)
        if mn("casefile diff (indexes in place)"):
            v = mn("casefile diff (indexes in place)")
            ratio("diff, indexes in place", f"{v:.2f} s", "< 2 s", v < 2)
        if lookup:
            ratio("point lookup by path:line (in-process, median of 200)",
                  f"{lookup['median_us'] / 1000:.3f} ms (max {lookup['max_us'] / 1000:.3f} ms)", "< 1 ms",
                  lookup["median_us"] < 1000)
        if have_lnav and mn("lnav: count(*) FROM all_logs") and mn("casefile index (cold)"):
            v = mn("lnav: count(*) FROM all_logs") / mn("casefile index (cold)")
            ratio("lnav ingest time / casefile index time", f"{v:.3f}", ">= 3", v >= 3)
            v = mn("lnav: all_logs LIKE NEEDLE") / mn("casefile query: lines LIKE NEEDLE")
            ratio("lnav substring query time / casefile substring query time", f"{v:.3f}", ">= 5", v >= 5)

    # The report.
    print()
    print(f"machine: {machine()}")
    print(f"casefile: {a.casefile} ({subprocess.run([a.casefile, '--version'], capture_output=True, text=True).stdout.strip()})")
    if not have_bsdtar:
        print("bsdtar: not installed (package libarchive-tools): its limit was skipped")
    if not have_lnav:
        print("lnav: not installed or --no-lnav: the lnav steps were skipped")
    else:
        print(f"lnav: {subprocess.run(['lnav', '-V'], capture_output=True, text=True).stdout.strip()}")
    print(f"bundle: {os.path.basename(bad)}: {os.path.getsize(bad) / 1e6:.1f} MB compressed, {raw_bytes / 1e6:.1f} MB "
          f"of files ({sum(s for _, s in logs) / 1e6:.1f} MB in {len(logs)} logs), {lines} lines; "
          f"{a.hosts} hosts x {a.ranks_per_host} ranks, {a.trace_events} trace events")
    print(f"repetitions: {a.reps}")
    print()
    print("| step | min | median | MB/s (min) | peak RSS | output |")
    print("|---|---|---|---|---|---|")
    for name, group, cmd, _ in steps:
        r = results[name]
        if not r["wall"]:
            print(f"| {name} | failed | | | | |")
            continue
        w = min(r["wall"])
        out = " ".join(r["out"].split())
        out = out if len(out) <= 40 else f"{len(r['out'])} bytes"
        print(f"| {name} | {w:.3f} s | {statistics.median(r['wall']):.3f} s | {raw_bytes / 1e6 / w:.0f} | "
              f"{max(r['rss']):.0f} MB | {out} |")
    if lookup:
        print(f"| point lookup, in-process (C API), 200 random lines | median {lookup['median_us']:.0f} us | "
              f"max {lookup['max_us']:.0f} us | | | |")
    print()
    print("| ratio | value | target | met |")
    print("|---|---|---|---|")
    for r in ratios:
        print(f"| {r['ratio']} | {r['value']} | {r['target']} | {'yes' if r['met'] else 'NO'} |")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"machine": machine(), "bundle": bad, "raw_bytes": raw_bytes, "lines": lines,
                       "index_bytes": index_size, "steps": results, "lookup": lookup, "ratios": ratios,
                       "failures": failures}, f, indent=1)
    if failures:
        print()
        for f in failures:
            print("FAILED:", f)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
