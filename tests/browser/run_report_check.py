#!/usr/bin/env python3
"""One browser ctest as one command: make a report with the built CLI, then
open it with check_report.py.

  run_report_check.py --casefile BIN --work DIR --name NAME MODE... -- CHECK_ARGS...

MODE is one of
  --analyze BUNDLE...      casefile analyze BUNDLE... --format html
  --diff GOOD BAD          casefile diff --good GOOD --bad BAD --format html
  --xss                    writes a bundle whose log lines hold HTML and
                           script (see write_xss_bundle) and analyses it
  --expect-codes-from EXPECTED_JSON
                           adds --expect-code for every code the scenario's
                           expected.json lists (with --analyze)

Everything it writes goes under --work (in the build tree): the HTML, the
index (--index / --index-dir, so the corpus folder is never written to), the
screenshots NAME.png and NAME-narrow.png. Exit status: check_report.py's
(0 ok, 1 failed, 77 no Chromium), or 1 when the CLI failed.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent

# The XSS bundle: one log whose lines carry markup in the places a report
# quotes (the evidence of runtime.disk_full, a built-in rule, and the text of
# a second error line). If any of it reached the page unescaped, the script
# would set the canary, the image would be requested (and the CSP would
# report it), and check_report.py fails.
XSS_CANARY = "__casefile_xss"
XSS_LOG_LINES = [
    "[2026-11-03 10:15:01,120] [INFO] [engine.py:1130:save_checkpoint] Saving checkpoint global_step200",
    "[rank0]:Traceback (most recent call last):",
    '[rank0]:  File "/workspace/train.py", line 88, in save',
    "[rank0]:OSError: [Errno 28] No space left on device: "
    "'/data/<script>window.__casefile_xss=1</script>"
    "<img src=x onerror=\"window.__casefile_xss=2\">'",
    "[rank1]:RuntimeError: checkpoint upload failed: "
    '<img src="http://203.0.113.9/pixel.png"> No space left on device',
    "[rank1]:OSError: [Errno 28] No space left on device: '/data/\"><svg onload=window.__casefile_xss=3>'",
    "[2026-11-03 10:15:02,007] [ERROR] [launch.py:321:sigkill_handler] exits with return code = 1",
]


def write_xss_bundle(root: pathlib.Path) -> pathlib.Path:
    bundle = root / "xss_bundle"
    log = bundle / "nodes" / "xss-node-0" / "train.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text("\n".join(XSS_LOG_LINES) + "\n", encoding="utf-8")
    return bundle


def codes_from(expected_json: str) -> list[str]:
    with open(expected_json, encoding="utf-8") as f:
        return [finding["code"] for finding in json.load(f).get("findings", [])]


def main(argv: list[str]) -> int:
    if "--" in argv:
        cut = argv.index("--")
        argv, check_args = argv[:cut], argv[cut + 1 :]
    else:
        check_args = []
    p = argparse.ArgumentParser()
    p.add_argument("--casefile", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--name", required=True)
    mode = p.add_mutually_exclusive_group(required=True)
    mode.add_argument("--analyze", nargs="+", metavar="BUNDLE")
    mode.add_argument("--diff", nargs=2, metavar=("GOOD", "BAD"))
    mode.add_argument("--xss", action="store_true")
    p.add_argument("--expect-codes-from", metavar="EXPECTED_JSON")
    args = p.parse_args(argv)

    work = pathlib.Path(args.work) / args.name
    work.mkdir(parents=True, exist_ok=True)
    html = work / f"{args.name}.html"
    if html.exists():
        html.unlink()  # never check a page an earlier run left behind

    if args.diff:
        command = [args.casefile, "diff", "--good", args.diff[0], "--bad", args.diff[1],
                   "--index-dir", str(work / "index"), "--reindex"]
        ok_codes = (0,)
    else:
        bundles = args.analyze or [str(write_xss_bundle(work))]
        command = [args.casefile, "analyze", *bundles, "--index", str(work / "index.casefile"),
                   "--reindex", "--fail-on", "never"]
        ok_codes = (0,)
    command += ["--format", "html", "-o", str(html)]
    run = subprocess.run(command, capture_output=True, text=True, timeout=300)
    if run.returncode not in ok_codes or not html.is_file():
        print(f"run_report_check: {' '.join(command)} exited {run.returncode}\n{run.stderr[-3000:]}",
              file=sys.stderr)
        return 1

    check = [sys.executable, str(HERE / "check_report.py"), str(html),
             "--screenshot", str(work / f"{args.name}.png"),
             "--narrow-screenshot", str(work / f"{args.name}-narrow.png")]
    if args.expect_codes_from:
        for code in codes_from(args.expect_codes_from):
            check += ["--expect-code", code]
    if args.xss:
        check += ["--forbid-global", XSS_CANARY, "--expect-code", "runtime.disk_full",
                  "--expect-text", "<script>window.__casefile_xss=1</script>",
                  "--expect-text", '<img src="http://203.0.113.9/pixel.png">']
    check += check_args
    return subprocess.run(check).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
