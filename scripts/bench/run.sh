#!/usr/bin/env bash
# Benchmarks `casefile index` side by side with the limit (`zstd -dc | wc -l`)
# on the same .tar.zst, in the same run, 3 repetitions each, and prints
# throughput (MB/s of uncompressed input), lines/s, peak RSS and index size.
#
#   scripts/bench/run.sh [WORKDIR] [MB] [BINARY...]
#
# With several BINARYs (e.g. the binary before a change and after it) each
# repetition runs the limit and then every binary in turn, so an A/B
# comparison alternates and shares the machine's noise. Default binary:
# build/bin/casefile. Needs /usr/bin/time (package `time`).
set -euo pipefail
cd "$(dirname "$0")/../.."
work=${1:-/tmp/casefile-bench}
mb=${2:-1100}
shift $(( $# > 2 ? 2 : $# ))
bins=("$@")
[ ${#bins[@]} -eq 0 ] && bins=(build/bin/casefile)
mkdir -p "$work"
if [ ! -f "$work/bundle.tar.zst" ]; then
  rm -rf "$work/src"
  python3 scripts/bench/make_bundle.py "$work/src" --mb "$mb"
  tar -C "$work/src" -I 'zstd -3 -T0' -cf "$work/bundle.tar.zst" .
  rm -rf "$work/src"
fi
bundle="$work/bundle.tar.zst"
raw_bytes=$(zstd -dc "$bundle" | tar -xOf - | wc -c)
lines=$(zstd -dc "$bundle" | tar -xOf - | wc -l)
echo "bundle: $bundle ($(stat -c %s "$bundle") bytes compressed, $raw_bytes bytes of logs, $lines lines)"
for i in 1 2 3; do
  s=$(date +%s.%N); zstd -dc "$bundle" | wc -l >/dev/null; e=$(date +%s.%N)
  echo "zstd -dc | wc -l   run $i: $(python3 -c "print(f'{($raw_bytes/1e6)/($e-$s):.0f} MB/s ({$e-$s:.2f} s)')")"
  for bin in "${bins[@]}"; do
    rm -f "$work/index.db"
    /usr/bin/time -v -o "$work/time.txt" "$bin" index "$bundle" --index "$work/index.db" --reindex >/dev/null
    secs=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$work/time.txt")
    rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$work/time.txt")
    size=$(stat -c %s "$work/index.db")
    python3 - "$secs" "$rss" "$size" "$raw_bytes" "$lines" "$i" "$bin" <<'PY'
import sys
wall, rss, size, raw, lines, i, binary = sys.argv[1:]
parts = [float(p) for p in wall.split(":")]
s = parts[-1] + (parts[-2] * 60 if len(parts) > 1 else 0) + (parts[-3] * 3600 if len(parts) > 2 else 0)
raw = int(raw)
print(f"casefile index     run {i}: {raw/1e6/s:.0f} MB/s ({s:.2f} s), {int(lines)/s/1e6:.2f} M lines/s, "
      f"peak RSS {int(rss)/1024:.0f} MB, index {int(size)/1e6:.0f} MB = {100*int(size)/raw:.1f}% of input"
      f"  [{binary}]")
PY
  done
done
