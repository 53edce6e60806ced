#!/usr/bin/env python3
"""Tests check_report.py itself: it passes a hand-written page that follows
the contract, fails a broken one naming every problem, and exits 77 with its
message when no Chromium binary can be found.

Exit status: 0 ok, 1 a case failed, 77 no Chromium (after the 77 case, which
needs none).
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
CHECK = str(HERE / "check_report.py")
FIXTURES = HERE / "fixtures"

sys.path.insert(0, str(HERE))
import cdp_pipe  # noqa: E402

# What the broken page must be failed for (substrings of the FAIL lines).
BROKEN_PAGE_FAILURES = [
    "request left the page: http://203.0.113.9/pixel.png",
    "request left the page: file://203.0.113.9/s.css",
    "CSP violation",
    "script exception: ReferenceError: undefinedFn is not defined",
    "console.error: boom",
    '<img src="http://203.0.113.9/pixel.png"> points outside the page',
    "1 <link> element(s)",
    'no finding article[data-code="absent.code"]',
    'the page text does not contain "<script>"',
    "window.__casefile_xss is defined (1)",
    "at 390 px the page overflows",
    "at 390 px a control is taller than 80 px: input#filter height=240",
    "printed (@media print), the filter box #filter is still shown",
]


def run(args: list[str], env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, CHECK, *args], capture_output=True, text=True,
                          env=env, timeout=200)


def main() -> int:
    failures: list[str] = []

    # No browser anywhere: 77 and the message that names the fix.
    env = {k: v for k, v in os.environ.items() if k != "CASEFILE_CHROMIUM"}
    env["PATH"] = str(FIXTURES)  # holds no browser
    result = run([str(FIXTURES / "contract_page.html")], env)
    if result.returncode != 77 or "chromium not found: install Debian's chromium" not in result.stderr:
        failures.append(f"without chromium: exit {result.returncode}, stderr {result.stderr!r}")

    if cdp_pipe.find_chromium() is None:
        for f in failures:
            print(f"selftest: FAIL {f}", file=sys.stderr)
        print("chromium not found: install Debian's chromium (scripts/setup.sh does)", file=sys.stderr)
        return 1 if failures else 77

    expectations = ["--expect-code", "hang.bad_chip", "--expect-headline", "--expect-timeline",
                    "--expect-text", "<script>", "--forbid-global", "__casefile_xss"]
    result = run([str(FIXTURES / "contract_page.html"), *expectations])
    if result.returncode != 0:
        failures.append(f"contract_page.html: exit {result.returncode}\n{result.stderr}")

    result = run([str(FIXTURES / "broken_page.html"), *expectations, "--expect-code", "absent.code"])
    if result.returncode != 1:
        failures.append(f"broken_page.html: exit {result.returncode}, want 1")
    for text in BROKEN_PAGE_FAILURES:
        if text not in result.stderr:
            failures.append(f"broken_page.html: no failure naming {text!r}")
    if failures:
        print(result.stderr, file=sys.stderr)

    for f in failures:
        print(f"selftest: FAIL {f}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
