#!/usr/bin/env bash
# Benchmarks `casefile diff` on two 1 GiB bundles side by side with one
# indexing run of the good bundle (the limits of issue #8: with indexes in
# place, under 10% of one indexing run; with no index, under 2.2 times it).
#
#   scripts/bench/diff_bench.sh [WORKDIR] [MB]
#
# The good bundle is scripts/bench/run.sh's (reused when present); the bad one
# is make_bundle.py --bad. Needs build/bin/casefile and /usr/bin/time.
set -euo pipefail
cd "$(dirname "$0")/../.."
work=${1:-/tmp/casefile-bench}
mb=${2:-1100}
mkdir -p "$work"
make() {  # make OUT.tar.zst ARGS...
  local out=$1
  shift
  if [ ! -f "$out" ]; then
    rm -rf "$work/src"
    python3 scripts/bench/make_bundle.py "$work/src" --mb "$mb" "$@"
    tar -C "$work/src" -I 'zstd -3 -T0' -cf "$out" .
    rm -rf "$work/src"
  fi
}
make "$work/bundle.tar.zst"
make "$work/bad.tar.zst" --seed 4321 --bad
good="$work/bundle.tar.zst"
bad="$work/bad.tar.zst"
idx="$work/diff-indexes"
timed() {  # timed LABEL CMD...: wall seconds and peak RSS of CMD
  local label=$1
  shift
  /usr/bin/time -f "%e %M" -o "$work/t.txt" "$@" >"$work/out.txt"
  read -r secs kb <"$work/t.txt"
  echo "$label: ${secs} s, peak RSS $((kb / 1024)) MB"
}
for i in 1 2; do
  rm -rf "$idx"
  mkdir -p "$idx"
  timed "index good (one indexing run)  run $i" build/bin/casefile index "$good" --index "$idx/one.db" --reindex
  rm -rf "$idx"
  timed "diff, no index                 run $i" build/bin/casefile diff "$good" -- "$bad" --index-dir "$idx" --format json
  timed "diff, indexes + stored findings run $i" build/bin/casefile diff "$good" -- "$bad" --index-dir "$idx" --format json
  cp "$work/out.txt" "$work/diff.json"
  # The same indexes without the provenance of their stored findings: the
  # analyzers run again (what the first diff after `casefile index` costs).
  for db in "$idx"/*.db; do
    python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute(\"DELETE FROM meta WHERE key='findings_provenance'\"); c.commit()" "$db"
  done
  timed "diff, indexes, no stored findings run $i" build/bin/casefile diff "$good" -- "$bad" --index-dir "$idx" --format json --no-store
done
python3 - "$work/diff.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print("headline:")
for h in d["headline"]:
    print("  -", h["summary"][:160])
print("totals:", d["totals"])
PY
