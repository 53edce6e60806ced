#!/usr/bin/env python3
"""Opens one casefile HTML report in headless Chromium and checks it.

  check_report.py REPORT.html [--expect-code CODE]... [--expect-headline]
      [--expect-headline-text TEXT] [--expect-timeline] [--expect-selector CSS]...
      [--expect-text TEXT]... [--forbid-global NAME]... [--screenshot PNG]
      [--narrow-screenshot PNG] [--width 1200]

Checks (docs/REPORTS.md, "The HTML contract"):
  - the page asks for nothing but its own file:// URL (data: URLs allowed),
    and holds no src/href/@import/@font-face that points elsewhere;
  - no script exception, no console error, no Content-Security-Policy
    violation (the Log domain reports them);
  - each expectation given on the command line holds in the DOM, and what is
    expected is visible (a box of non-zero size);
  - at 390 CSS pixels wide the body does not overflow horizontally (wide
    tables scroll inside their own <div class="scroll">) and no text box or
    button is stretched taller than 80 px;
  - printed, the filter box is hidden.

Exit status: 0 all checks passed, 1 a check failed (each failure on its own
line), 77 no Chromium binary (ctest counts it as skipped).
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import pathlib
import sys
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp_pipe  # noqa: E402

EXIT_OK, EXIT_FAIL, EXIT_SKIP = 0, 1, 77
NARROW_WIDTH = 390
# A text box or button taller than this at the narrow width is out of shape
# (two lines of text with padding fit well below it).
MAX_CONTROL_HEIGHT = 80
# A full-page screenshot taller than this is cut (a 2 MiB page can be very
# long; the image is for a human to look at, not a check).
MAX_SCREENSHOT_HEIGHT = 16000

# Runs in the page after load; returns the facts the checks need as one JSON
# value. EXPECT is replaced by the expectations.
DOM_FACTS_JS = r"""
(() => {
  const expect = EXPECT;
  const visible = (el) => {
    if (!el) return false;
    const r = el.getBoundingClientRect();
    const style = getComputedStyle(el);
    return r.width > 0 && r.height > 0 && style.visibility !== 'hidden' && style.display !== 'none';
  };
  const facts = {title: document.title, problems: []};
  const problem = (text) => facts.problems.push(text);

  // Anything that would make the page fetch something: only data: URLs and
  // in-page fragments are allowed.
  const allowedUrl = (v) => v === '' || v.startsWith('#') || v.startsWith('data:');
  for (const el of document.querySelectorAll('*')) {
    for (const attr of ['src', 'href', 'xlink:href', 'srcset', 'action', 'poster', 'data', 'background']) {
      const v = el.getAttribute(attr);
      if (v !== null && !allowedUrl(v.trim())) {
        problem(`<${el.localName} ${attr}="${v.slice(0, 120)}"> points outside the page`);
      }
    }
  }
  for (const tag of ['link', 'iframe', 'object', 'embed', 'base']) {
    const n = document.getElementsByTagName(tag).length;
    if (n) problem(`${n} <${tag}> element(s): the page must be self-contained`);
  }
  for (const sheet of document.styleSheets) {
    // An external sheet's rules are unreadable (and the sheet is the problem).
    if (sheet.href) { problem(`external stylesheet ${sheet.href}`); continue; }
    for (const rule of sheet.cssRules) {
      if (rule instanceof CSSImportRule) problem(`@import ${rule.href}`);
      if (rule instanceof CSSFontFaceRule) problem(`@font-face ${rule.cssText.slice(0, 120)}`);
    }
  }
  const csp = document.querySelector('meta[http-equiv="Content-Security-Policy" i]');
  facts.csp = csp ? csp.getAttribute('content') : null;
  const generator = document.querySelector('meta[name="generator"]');
  facts.generator = generator ? generator.getAttribute('content') : null;
  facts.charset = !!document.querySelector('meta[charset="utf-8" i]');
  const viewport = document.querySelector('meta[name="viewport"]');
  facts.viewport = viewport ? viewport.getAttribute('content') : null;

  if (expect.headline) {
    const el = document.querySelector('#headline .headline, #headline .headline-item');
    if (!el) problem('no headline: #headline holds no .headline or .headline-item');
    else if (!el.textContent.trim()) problem('the headline is empty');
    else if (!visible(el)) problem('the headline is not visible');
    facts.headline = el ? el.textContent.trim() : null;
  }
  for (const code of expect.codes) {
    const el = document.querySelector(`article.finding[data-code="${CSS.escape(code)}"]`);
    if (!el) problem(`no finding article[data-code="${code}"]`);
    else if (!visible(el)) problem(`finding ${code} is not visible`);
  }
  if (expect.timeline) {
    const svg = document.querySelector('#timeline svg');
    const rows = [...document.querySelectorAll('#timeline svg g.host')];
    if (!svg) problem('no timeline svg in #timeline');
    else if (!rows.length) problem('the timeline svg has no g.host row');
    else if (!rows.some(visible)) problem(`none of the ${rows.length} g.host rows of the timeline has a non-zero size`);
    facts.timeline_rows = rows.length;
  }
  for (const selector of expect.selectors) {
    const all = [...document.querySelectorAll(selector)];
    if (!all.length) problem(`no element matches ${selector}`);
    else if (!all.some(visible)) problem(`no element matching ${selector} is visible`);
  }
  const bodyText = document.body ? document.body.textContent : '';
  for (const text of expect.texts) {
    if (!bodyText.includes(text)) problem(`the page text does not contain ${JSON.stringify(text)}`);
  }
  for (const name of expect.forbidden_globals) {
    if (typeof window[name] !== 'undefined') problem(`window.${name} is defined (${String(window[name])}): page text ran as script`);
  }
  return facts;
})()
"""

# At the narrow width: the overflow, and the elements that stick out of the
# viewport without being inside a scrolling box (to name the culprit).
NARROW_FACTS_JS = r"""
(() => {
  const width = Math.min(window.innerWidth, NARROW);
  const scrollWidth = document.documentElement.scrollWidth;
  const offenders = [];
  if (scrollWidth > width + 1) {
    for (const el of document.body.querySelectorAll('*')) {
      const r = el.getBoundingClientRect();
      if (r.right <= width + 1) continue;
      let p = el.parentElement, clipped = false;
      while (p && p !== document.body) {
        const o = getComputedStyle(p).overflowX;
        if (o === 'auto' || o === 'scroll' || o === 'hidden') { clipped = true; break; }
        p = p.parentElement;
      }
      if (clipped) continue;
      const id = el.id ? '#' + el.id : '';
      const cls = el.classList.length ? '.' + [...el.classList].join('.') : '';
      offenders.push(`${el.localName}${id}${cls} right=${Math.round(r.right)}`);
      if (offenders.length >= 5) break;
    }
  }
  // A control stretched out of shape by the narrow layout (a flex-basis
  // meant for the width applied to the height of a stacked filter bar).
  const tallControls = [];
  for (const el of document.querySelectorAll('input, button, select')) {
    const r = el.getBoundingClientRect();
    if (r.height > MAX_CONTROL) tallControls.push(`${el.localName}${el.id ? '#' + el.id : ''} height=${Math.round(r.height)}`);
  }
  return {width, scrollWidth, offenders, tallControls};
})()
"""

PRINT_FACTS_JS = r"""
(() => {
  const filter = document.getElementById('filter');
  if (!filter) return {filter: null};
  const r = filter.getBoundingClientRect();
  return {filter: r.width > 0 && r.height > 0 && getComputedStyle(filter).visibility !== 'hidden'};
})()
"""


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="Check a casefile HTML report in headless Chromium.")
    p.add_argument("report", help="the HTML file")
    p.add_argument("--expect-code", action="append", default=[], metavar="CODE",
                   help="a finding code that must have a visible article[data-code=CODE]")
    p.add_argument("--expect-headline", action="store_true",
                   help="#headline holds a non-empty, visible .headline or .headline-item")
    p.add_argument("--expect-headline-text", action="append", default=[], metavar="TEXT",
                   help="text the (first) headline must contain (implies --expect-headline)")
    p.add_argument("--expect-timeline", action="store_true",
                   help="#timeline holds an svg with a g.host row of non-zero size")
    p.add_argument("--expect-selector", action="append", default=[], metavar="CSS",
                   help="at least one element matches CSS and is visible")
    p.add_argument("--expect-text", action="append", default=[], metavar="TEXT",
                   help="the page's text (body.textContent) contains TEXT")
    p.add_argument("--forbid-global", action="append", default=[], metavar="NAME",
                   help="window.NAME must stay undefined (an XSS canary)")
    p.add_argument("--screenshot", metavar="PNG", help="save a full-page screenshot here")
    p.add_argument("--screenshot-height", type=int, default=MAX_SCREENSHOT_HEIGHT, metavar="PX",
                   help="cut the full-page screenshot to its top PX CSS pixels (docs images)")
    p.add_argument("--narrow-screenshot", metavar="PNG",
                   help=f"save a screenshot at {NARROW_WIDTH} px wide here")
    p.add_argument("--width", type=int, default=1200, help="viewport width (default 1200)")
    p.add_argument("--height", type=int, default=900, help="viewport height (default 900)")
    p.add_argument("--no-print-check", action="store_true",
                   help="skip the check that printing hides the filter box")
    p.add_argument("--timeout", type=float, default=90.0,
                   help="seconds for the whole check, browser start included (default 90)")
    p.add_argument("--quiet", action="store_true")
    return p.parse_args(argv)


def page_url(path: pathlib.Path) -> str:
    return path.resolve().as_uri()


def same_document(url: str, own: str) -> bool:
    """The page's own URL, whatever fragment a link added."""
    return urllib.parse.urldefrag(url)[0] == own


def save_png(browser: cdp_pipe.Browser, session: str, path: str, max_height: int | None) -> None:
    """A PNG of the viewport (max_height None) or of the whole page cut to
    max_height CSS pixels."""
    params: dict = {"format": "png"}
    if max_height is not None:
        metrics = browser.send("Page.getLayoutMetrics", session_id=session)
        size = metrics.get("cssContentSize") or metrics["contentSize"]
        params["captureBeyondViewport"] = True
        params["clip"] = {
            "x": 0,
            "y": 0,
            "width": size["width"],
            "height": min(size["height"], max_height),
            "scale": 1,
        }
    shot = browser.send("Page.captureScreenshot", params, session_id=session, timeout=60)
    out = pathlib.Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(base64.b64decode(shot["data"]))


def evaluate(browser: cdp_pipe.Browser, session: str, expression: str):
    result = browser.send(
        "Runtime.evaluate",
        {"expression": expression, "returnByValue": True, "awaitPromise": True},
        session_id=session,
    )
    if "exceptionDetails" in result:
        details = result["exceptionDetails"]
        text = details.get("exception", {}).get("description") or details.get("text")
        raise cdp_pipe.CdpError(f"the check script failed: {text}")
    return result["result"].get("value")


def page_errors(events: list[dict], own_url: str) -> list[str]:
    """Requests that left the page, script exceptions, console errors and
    CSP violations, from the events of the run."""
    failures = []
    for event in events:
        method, params = event.get("method"), event.get("params", {})
        if method == "Network.requestWillBeSent":
            url = params.get("request", {}).get("url", "")
            if not (same_document(url, own_url) or url.startswith("data:")):
                failures.append(f"request left the page: {url[:200]}")
        elif method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            text = details.get("exception", {}).get("description") or details.get("text", "")
            failures.append(f"script exception: {text[:300]} (line {details.get('lineNumber')})")
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            args = " ".join(str(a.get("value", a.get("description", ""))) for a in params.get("args", []))
            failures.append(f"console.{params.get('type')}: {args[:300]}")
        elif method == "Log.entryAdded":
            entry = params.get("entry", {})
            text = entry.get("text", "")
            if "Content Security Policy" in text or "Content-Security-Policy" in text:
                failures.append(f"CSP violation: {text[:300]}")
            elif entry.get("level") == "error":
                failures.append(f"browser error ({entry.get('source')}): {text[:300]} {entry.get('url', '')}")
    return failures


def check(args: argparse.Namespace, binary: str) -> list[str]:
    report = pathlib.Path(args.report)
    if not report.is_file():
        return [f"{report}: no such file"]
    own_url = page_url(report)
    failures: list[str] = []
    expect = {
        "headline": args.expect_headline or bool(args.expect_headline_text),
        "codes": args.expect_code,
        "timeline": args.expect_timeline,
        "selectors": args.expect_selector,
        "texts": args.expect_text,
        "forbidden_globals": args.forbid_global,
    }

    with cdp_pipe.Browser(binary, total_timeout=args.timeout) as browser:
        session = browser.new_page()
        for domain in ("Network", "Page", "Runtime", "Log"):
            browser.send(f"{domain}.enable", session_id=session)
        browser.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": args.width, "height": args.height, "deviceScaleFactor": 1, "mobile": False},
            session_id=session,
        )
        mark = len(browser.events)
        nav = browser.send("Page.navigate", {"url": own_url}, session_id=session)
        if nav.get("errorText"):
            return [f"navigation to {own_url} failed: {nav['errorText']}"]
        browser.wait_event("Page.loadEventFired", session_id=session, since=mark, timeout=30)
        # Let timers, image error handlers and late console messages run.
        browser.drain(0.5)

        facts = evaluate(browser, session, DOM_FACTS_JS.replace("EXPECT", json.dumps(expect)))
        failures += facts["problems"]
        if facts.get("csp") is None or "default-src 'none'" not in facts["csp"]:
            failures.append(f"no Content-Security-Policy meta with default-src 'none' (got {facts.get('csp')!r})")
        if not (facts.get("generator") or "").startswith("casefile"):
            failures.append(f"no <meta name=\"generator\" content=\"casefile ...\"> (got {facts.get('generator')!r})")
        if not facts.get("charset"):
            failures.append('no <meta charset="utf-8">')
        if not (facts.get("viewport") or "").startswith("width=device-width"):
            failures.append(f"no viewport meta width=device-width (got {facts.get('viewport')!r})")
        headline = facts.get("headline") or ""
        for text in args.expect_headline_text:
            if text not in headline:
                failures.append(f"the headline {headline!r} does not contain {text!r}")

        if args.screenshot:
            save_png(browser, session, args.screenshot, max_height=max(1, args.screenshot_height))

        # Narrow screen: the mobile viewport honours <meta name="viewport">.
        browser.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": NARROW_WIDTH, "height": 844, "deviceScaleFactor": 1, "mobile": True},
            session_id=session,
        )
        browser.drain(0.2)
        narrow = evaluate(browser, session, NARROW_FACTS_JS.replace("NARROW", str(NARROW_WIDTH)).replace("MAX_CONTROL", str(MAX_CONTROL_HEIGHT)))
        # Compared with the emulated width, not only innerWidth: a mobile
        # viewport zooms out to fit wide content, which grows innerWidth.
        if narrow["scrollWidth"] > min(narrow["width"], NARROW_WIDTH) + 1:
            failures.append(
                f"at {NARROW_WIDTH} px the page overflows: scrollWidth {narrow['scrollWidth']} > "
                f"innerWidth {narrow['width']}; sticking out: {', '.join(narrow['offenders']) or 'nothing (no viewport meta?)'}"
            )
        if narrow["tallControls"]:
            failures.append(
                f"at {NARROW_WIDTH} px a control is taller than {MAX_CONTROL_HEIGHT} px: "
                + ", ".join(narrow["tallControls"][:5])
            )
        if args.narrow_screenshot:
            save_png(browser, session, args.narrow_screenshot, max_height=None)

        if not args.no_print_check:
            browser.send(
                "Emulation.setDeviceMetricsOverride",
                {"width": args.width, "height": args.height, "deviceScaleFactor": 1, "mobile": False},
                session_id=session,
            )
            browser.send("Emulation.setEmulatedMedia", {"media": "print"}, session_id=session)
            printed = evaluate(browser, session, PRINT_FACTS_JS)
            if printed.get("filter"):
                failures.append("printed (@media print), the filter box #filter is still shown")
            browser.send("Emulation.setEmulatedMedia", {"media": ""}, session_id=session)

        browser.drain(0.1)
        failures = page_errors(browser.events, own_url) + failures
        if not args.quiet:
            summary = {k: facts.get(k) for k in ("title", "headline", "timeline_rows") if facts.get(k) is not None}
            print(f"check_report: {report}: {json.dumps(summary, ensure_ascii=False)}")
    return failures


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    binary = cdp_pipe.find_chromium()
    if binary is None:
        print("chromium not found: install Debian's chromium (scripts/setup.sh does)", file=sys.stderr)
        return EXIT_SKIP
    try:
        failures = check(args, binary)
    except cdp_pipe.CdpError as e:
        failures = [f"browser: {e}"]
    if failures:
        for f in failures:
            print(f"check_report: FAIL {args.report}: {f}", file=sys.stderr)
        return EXIT_FAIL
    if not args.quiet:
        print(f"check_report: ok {args.report}")
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
