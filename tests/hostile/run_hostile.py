#!/usr/bin/env python3
"""Runs one hostile-bundle case of cases.json through the casefile CLI and
checks its expected outcome.

Usage: run_hostile.py --casefile BIN --case NAME --work DIR [--sanitizer]

DIR holds the cases written by make_hostile.py. The CLI runs with its cwd,
HOME, XDG_CACHE_HOME and TMPDIR in fresh empty folders and --index inside
DIR/runs/NAME/index/. For every command (index, analyze --format json,
query, files) the child's wall time and peak RSS (os.wait4) are measured
against the case's bounds. Then the outcome is checked: exit statuses, the
bundle's status, the ingest issues that must name the hostile entry, the
files and lines that must (or must not) be indexed. Last, no file may have
appeared anywhere but the index: the listings of cwd, HOME, TMPDIR and the
input's folder before and after must match, the index folder must hold the
index alone (its temporary siblings gone), and the case's absent_paths
(where an escaping entry would land) must not exist.

--sanitizer loosens the bounds for an ASan/UBSan build (time x15, RSS x4 +
1 GiB: shadow memory and quarantine) and accepts nothing else differently.

Writes DIR/results/NAME.json (measurements) and prints one line per command;
a failing case keeps its index and command output in DIR/runs/NAME.
Exit status 0 when every check passed, 1 otherwise (each failure printed).
"""

import argparse
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))


class Failures:
    def __init__(self):
        self.items = []

    def check(self, ok, message):
        if not ok:
            self.items.append(message)
        return ok


def listing(root):
    """Every path under `root` with its type, size and mtime: iterative and
    through directory descriptors, so trees deeper than PATH_MAX (the
    deep_dirs_tree case) are listed too. Symlinks are not followed."""
    out = {}
    if not os.path.isdir(root):
        return out
    stack = [("", os.open(root, os.O_RDONLY | os.O_DIRECTORY))]
    while stack:
        rel, fd = stack.pop()
        try:
            for entry in os.scandir(fd):
                st = entry.stat(follow_symlinks=False)
                path = rel + "/" + entry.name if rel else entry.name
                out[path] = (stat.S_IFMT(st.st_mode), st.st_size, st.st_mtime_ns)
                if stat.S_ISDIR(st.st_mode):
                    child = os.open(entry.name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW,
                                    dir_fd=fd)
                    stack.append((path, child))
        finally:
            os.close(fd)
    return out


def describe_changes(before, after):
    added = sorted(set(after) - set(before))
    removed = sorted(set(before) - set(after))
    changed = sorted(p for p in set(before) & set(after) if before[p] != after[p])
    parts = []
    if added:
        parts.append("new: " + ", ".join(repr(p)[:200] for p in added[:5]))
    if removed:
        parts.append("gone: " + ", ".join(repr(p)[:200] for p in removed[:5]))
    if changed:
        parts.append("changed: " + ", ".join(repr(p)[:200] for p in changed[:5]))
    return "; ".join(parts)


class Runner:
    def __init__(self, binary, env, cwd, out_dir, limit_s):
        self.binary = binary
        self.env = env
        self.cwd = cwd
        self.out_dir = out_dir
        self.limit_s = limit_s
        self.measurements = []
        self.count = 0

    def run(self, label, args):
        """Runs the CLI; returns (exit status, stdout bytes, stderr bytes)
        and records wall seconds and peak RSS. A child past the hard limit
        is killed (its status then reads -SIGKILL)."""
        self.count += 1
        out_path = os.path.join(self.out_dir, "%02d-%s.out" % (self.count, label))
        err_path = os.path.join(self.out_dir, "%02d-%s.err" % (self.count, label))
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            start = time.monotonic()
            child = subprocess.Popen(
                [self.binary] + args, cwd=self.cwd, env=self.env, stdout=out, stderr=err,
                stdin=subprocess.DEVNULL, start_new_session=True)
            killer = threading.Timer(self.limit_s, lambda: os.killpg(child.pid, signal.SIGKILL))
            killer.start()
            try:
                _, status, usage = os.wait4(child.pid, 0)
            finally:
                killer.cancel()
            child.returncode = 0  # reaped by wait4; keep Popen from waiting again
            seconds = time.monotonic() - start
        code = os.waitstatus_to_exitcode(status)
        rss_mb = usage.ru_maxrss / 1024.0
        self.measurements.append(
            {"command": label, "exit": code, "seconds": round(seconds, 3),
             "cpu_seconds": round(usage.ru_utime + usage.ru_stime, 3),
             "peak_rss_mb": round(rss_mb, 1)})
        print("  %-8s exit %-3d %7.2f s wall %7.2f s cpu %8.1f MB peak RSS" %
              (label, code, seconds, usage.ru_utime + usage.ru_stime, rss_mb), flush=True)
        with open(out_path, "rb") as f:
            stdout = f.read()
        with open(err_path, "rb") as f:
            stderr = f.read()
        return code, stdout, stderr


def sql_quote(text):
    return "'" + text.replace("'", "''") + "'"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--casefile", required=True, help="the casefile CLI to run")
    parser.add_argument("--case", required=True, help="a case name of cases.json")
    parser.add_argument("--work", required=True, help="folder make_hostile.py wrote")
    parser.add_argument("--cases", default=os.path.join(HERE, "cases.json"))
    parser.add_argument("--sanitizer", action="store_true",
                        help="looser time and memory bounds for an ASan/UBSan build")
    args = parser.parse_args()

    with open(args.cases, encoding="utf-8") as f:
        cases = {c["name"]: c for c in json.load(f)["cases"]}
    if args.case not in cases:
        sys.exit("run_hostile.py: unknown case " + args.case)
    case = cases[args.case]
    work = os.path.abspath(args.work)
    if not os.path.exists(os.path.join(work, "COMPLETE")):
        sys.exit("run_hostile.py: %s was not written whole by make_hostile.py" % work)
    binary = os.path.abspath(args.casefile)
    bundle = os.path.join(work, case["input"])
    if not os.path.lexists(bundle):
        sys.exit("run_hostile.py: input %s is missing" % bundle)

    max_seconds = float(case["max_seconds"])
    max_rss_mb = float(case["max_rss_mb"])
    if args.sanitizer:
        max_seconds *= 15
        max_rss_mb = max_rss_mb * 4 + 1024

    run_dir = os.path.join(work, "runs", args.case)
    shutil.rmtree(run_dir, ignore_errors=True)
    index_dir = os.path.join(run_dir, "index")
    out_dir = os.path.join(run_dir, "output")
    os.makedirs(index_dir)
    os.makedirs(out_dir)
    index = os.path.join(index_dir, "index.casefile.db")

    scratch = tempfile.mkdtemp(prefix="casefile-hostile-")
    cwd, home, tmp = (os.path.join(scratch, n) for n in ("cwd", "home", "tmp"))
    for d in (cwd, home, tmp):
        os.makedirs(d)
    env = {k: v for k, v in os.environ.items() if not k.startswith("CASEFILE_")}
    env.update({"HOME": home, "XDG_CACHE_HOME": os.path.join(home, ".cache"), "TMPDIR": tmp,
                "NO_COLOR": "1", "LC_ALL": "C"})
    input_folder = os.path.dirname(bundle)
    # The scratch folder holds cwd, HOME and TMPDIR: watching it whole also
    # catches "../x" written next to the cwd.
    watched = {"cwd, HOME and TMPDIR": scratch, "the input's folder": input_folder}
    before = {name: listing(path) for name, path in watched.items()}

    fail = Failures()
    runner = Runner(binary, env, cwd, out_dir, max(60.0, max_seconds * 3))
    partial = case["status"] != "complete"
    common = [bundle, "--index", index]
    print("hostile case %s: %s" % (args.case, case["what"]), flush=True)

    def index_alone(after_what):
        left = sorted(os.listdir(index_dir))
        fail.check(left == [os.path.basename(index)],
                   "after %s the index folder holds %r, not the index alone" % (after_what, left))

    def query(label, sql):
        code, out, err = runner.run(label, ["query"] + common + ["--format", "json", sql])
        fail.check(code == (3 if partial else 0),
                   "query %r exited %d: %s" % (sql[:80], code, err.decode(errors="replace")[:300]))
        try:
            return json.loads(out)
        except ValueError as e:
            fail.check(False, "query %r printed invalid JSON (%s)" % (sql[:80], e))
            return []

    # 1. index
    code, out, err = runner.run("index", ["index"] + common)
    fail.check(code == case["index_exit"], "casefile index exited %d, expected %d: %s" %
               (code, case["index_exit"], err.decode(errors="replace")[-500:]))
    index_alone("index")
    if not os.path.exists(index):
        fail.check(False, "no index was written")
    else:
        # 2. analyze --format json
        code, out, err = runner.run(
            "analyze", ["analyze"] + common + ["--format", "json", "--fail-on", "never"])
        fail.check(code == case["analyze_exit"], "casefile analyze exited %d, expected %d: %s" %
                   (code, case["analyze_exit"], err.decode(errors="replace")[-500:]))
        try:
            report = json.loads(out)
        except ValueError as e:
            report = None
            fail.check(False, "analyze --format json printed invalid JSON (%s)" % e)
        if report is not None:
            statuses = [b["status"] for b in report.get("bundles", [])]
            fail.check(statuses == [case["status"]],
                       "report bundle status %r, expected %r" % (statuses, [case["status"]]))
            counts = report.get("ingest_issue_counts", {})
            for want in case.get("issues", []):
                kind = want.get("kind", want.get("kind_prefix"))
                fail.check(any(k.startswith(kind) for k in counts),
                           "report lists no ingest issue of kind %s" % kind)
            if partial:
                fail.check(any(b.get("error") for b in report.get("bundles", [])),
                           "a partial bundle without its error in the report")

        # 3. the index's rows
        issues = query("issues", "SELECT kind, path, \"offset\", message FROM ingest_issues")
        for want in case.get("issues", []):
            rows = [r for r in issues
                    if r["kind"] == want.get("kind") or r["kind"].startswith(
                        want.get("kind_prefix", "\0"))]
            if "path" in want:
                rows = [r for r in rows if r["path"] == want["path"]]
            if "path_prefix" in want:
                rows = [r for r in rows if r["path"].startswith(want["path_prefix"])]
            if "message_contains" in want:
                rows = [r for r in rows if want["message_contains"] in r["message"]]
            if "min_offset" in want:
                rows = [r for r in rows if int(r["offset"]) >= want["min_offset"]]
            wanted = want.get("count")
            fail.check(len(rows) == wanted if wanted is not None else len(rows) >= 1,
                       "expected %s ingest issue(s) %r, found %d; issues: %r" %
                       (wanted or "at least one", want, len(rows),
                        [(r["kind"], r["path"][:80], r["message"][:160]) for r in issues[:8]]))
        for kind in case.get("no_issue_kinds", []):
            rows = [r for r in issues if r["kind"] == kind]
            fail.check(not rows, "unexpected ingest issue(s) of kind %s: %r" %
                       (kind, [r["message"][:200] for r in rows[:3]]))

        files = query("files", "SELECT path, kind, entry_type, link_target, size, line_count, "
                               "truncated FROM files")
        for want in case.get("files", []):
            rows = [r for r in files if r["path"] == want["path"]]
            fail.check(len(rows) == want.get("count", 1),
                       "expected %d row(s) for %r in files, found %d" %
                       (want.get("count", 1), want["path"][:120], len(rows)))
            for key, column in (("kind", "kind"), ("entry_type", "entry_type"),
                                ("link_target", "link_target"), ("lines", "line_count"),
                                ("size", "size"), ("truncated", "truncated")):
                if key in want:
                    got = [r[column] for r in rows]
                    fail.check(all(g == str(want[key]) for g in got),
                               "%s of %r: %r, expected %r" % (key, want["path"][:120], got,
                                                              want[key]))
        for path in case.get("absent_files", []):
            fail.check(not any(r["path"] == path for r in files),
                       "%r must not be indexed, but is" % path)
        if "file_count" in case:
            regular = [r for r in files if r["entry_type"] == "file"]
            fail.check(len(regular) == case["file_count"],
                       "%d regular files indexed, expected %d" %
                       (len(regular), case["file_count"]))

        for want in case.get("lines", []):
            rows = query("lines", "SELECT l.text, l.flags, length(CAST(l.text AS BLOB)) AS len "
                                  "FROM lines l "
                                  "JOIN files f ON f.id = l.file_id WHERE f.path = %s AND "
                                  "l.line_no = %d" % (sql_quote(want["path"]), want["line_no"]))
            if not fail.check(len(rows) == 1, "line %d of %r: %d rows" %
                              (want["line_no"], want["path"], len(rows))):
                continue
            row = rows[0]
            if "text" in want:
                fail.check(row["text"] == want["text"], "line %d of %r is %r, expected %r" %
                           (want["line_no"], want["path"], row["text"][:100], want["text"]))
            if "flags_set" in want:
                fail.check(int(row["flags"]) & want["flags_set"] == want["flags_set"],
                           "line %d of %r has flags %s, expected bits %d set" %
                           (want["line_no"], want["path"], row["flags"], want["flags_set"]))
            if "length" in want:
                fail.check(int(row["len"]) == want["length"], "line %d of %r is %s long, "
                           "expected %d" % (want["line_no"], want["path"], row["len"],
                                            want["length"]))

        for i, want in enumerate(case.get("queries", [])):
            rows = query("sql%d" % (i + 1), want["sql"])
            got = [list(r.values()) for r in rows]
            fail.check(got == want["rows"], "%s gave %r, expected %r" %
                       (want["sql"], got[:10], want["rows"]))

        if "verify" in case:
            want = case["verify"]
            code, out, err = runner.run("verify", ["verify", bundle])
            fail.check(code == want["exit"], "casefile verify exited %d, expected %d" %
                       (code, want["exit"]))
            text = out.decode("utf-8", errors="replace")
            for needle in want.get("stdout_contains", []):
                fail.check(needle in text, "casefile verify did not say %r: %s" %
                           (needle, text[:600]))

        # 4. listings: valid JSON always; terminal-safe table output
        code, out, err = runner.run("list", ["files"] + common + ["--format", "json"])
        try:
            json.loads(out.decode("utf-8"))
        except ValueError as e:
            fail.check(False, "casefile files --format json printed invalid JSON/UTF-8 (%s)" % e)
        if case.get("terminal_safe"):
            code, out, err = runner.run("table", ["files"] + common)
            # Tab is harmless to a terminal and kept (output.cc TerminalSafe).
            bad = sorted({b for b in out if (b < 0x20 and b not in (0x09, 0x0A)) or b == 0x7F})
            fail.check(not bad, "casefile files printed raw control bytes %r" % bad)
            rows = [r for r in files if r["entry_type"] == "file"]
            fail.check(out.count(b"\n") == len(rows) + 2,
                       "casefile files printed %d lines for %d files: a name broke a line" %
                       (out.count(b"\n"), len(rows)))
        index_alone("the last command")

    # 5. nothing written outside the index
    for name, path in watched.items():
        after = listing(path)
        changes = describe_changes(before[name], after)
        fail.check(not changes, "files changed in %s (%s): %s" % (name, path, changes))
    for path in case.get("absent_paths", []):
        fail.check(not os.path.lexists(path), "%s exists: an entry escaped" % path)

    # 6. bounds
    for m in runner.measurements:
        fail.check(m["seconds"] <= max_seconds, "%s took %.1f s, bound %.0f s" %
                   (m["command"], m["seconds"], max_seconds))
        fail.check(m["peak_rss_mb"] <= max_rss_mb, "%s peaked at %.0f MB RSS, bound %.0f MB" %
                   (m["command"], m["peak_rss_mb"], max_rss_mb))

    shutil.rmtree(scratch, ignore_errors=True)
    results_dir = os.path.join(work, "results")
    os.makedirs(results_dir, exist_ok=True)
    with open(os.path.join(results_dir, args.case + (".asan" if args.sanitizer else "") + ".json"),
              "w") as f:
        json.dump({"case": args.case, "what": case["what"], "expected": case["expected"],
                   "sanitizer": args.sanitizer, "max_seconds": max_seconds,
                   "max_rss_mb": max_rss_mb, "measurements": runner.measurements,
                   "failures": fail.items}, f, indent=1)
    if fail.items:
        for item in fail.items:
            print("FAIL: " + item)
        print("(the index and the command output stay in %s)" % run_dir)
        return 1
    # A passing case leaves no index behind (trace_10m's is 500 MB).
    shutil.rmtree(run_dir, ignore_errors=True)
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
