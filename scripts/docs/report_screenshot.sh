#!/usr/bin/env bash
# Regenerates docs/images/report.png and docs/images/diff.png: the HTML
# analysis report of a corpus scenario and the HTML diff of a corpus pair,
# made by the built CLI and photographed by headless Chromium through
# tests/browser/check_report.py (which also checks the pages: a page that
# fails its checks gives no image). The top of each page, 1200 CSS pixels
# wide. Needs Debian's chromium (scripts/setup.sh installs it) and a build.
#
#   scripts/docs/report_screenshot.sh
#
# Environment: CASEFILE_BUILD_DIR (default build), CASEFILE_REPORT_SCENARIO
# (default corpus/hang_straggler), CASEFILE_DIFF_SCENARIO (default
# corpus/diff/diff_nccl_upgrade), CASEFILE_SCREENSHOT_HEIGHT (CSS pixels kept
# from the top of each page, default 1800).
set -euo pipefail
cd "$(dirname "$0")/../.."

build=${CASEFILE_BUILD_DIR:-build}
casefile="$build/bin/casefile"
report_scenario=${CASEFILE_REPORT_SCENARIO:-corpus/hang_straggler}
diff_scenario=${CASEFILE_DIFF_SCENARIO:-corpus/diff/diff_nccl_upgrade}
height=${CASEFILE_SCREENSHOT_HEIGHT:-1800}

if [ ! -x "$casefile" ]; then
  echo "report_screenshot: $casefile not found: build first (scripts/setup.sh)" >&2
  exit 1
fi

# Indexes, cache and pages in a temporary folder: the corpus is never written.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export CASEFILE_CACHE_DIR="$work/cache" NO_COLOR=1

"$casefile" analyze "$report_scenario/bundle" --index "$work/report.casefile" \
  --fail-on never --format html -o "$work/report.html"
"$casefile" diff --good "$diff_scenario/good" --bad "$diff_scenario/bad" \
  --index-dir "$work/diff-index" --format html -o "$work/diff.html"

mkdir -p docs/images
# The images are written to the work folder first so that a failed check
# leaves the previous ones in docs/images untouched.
python3 tests/browser/check_report.py "$work/report.html" --width 1200 --expect-headline \
  --screenshot "$work/report.png" --screenshot-height "$height"
python3 tests/browser/check_report.py "$work/diff.html" --width 1200 --expect-headline \
  --screenshot "$work/diff.png" --screenshot-height "$height"
cp "$work/report.png" docs/images/report.png
cp "$work/diff.png" docs/images/diff.png
echo "report_screenshot: wrote docs/images/report.png and docs/images/diff.png" >&2
