#!/bin/sh
# Installs the build into a fresh prefix with `cmake --install`, then builds
# tests/capi/static_consumer.c against the installed libcasefile.a using only
# what `pkg-config --static casefile` says, runs it, and checks that the
# archive leaves no casefile symbol undefined.
#
# Usage: static_install_test.sh CMAKE BUILD_DIR WORK_DIR CC CONSUMER_C VERSION [EXTRA_FLAG...]
# EXTRA_FLAGs go to the compiler (the sanitizer flags of a sanitized build).
set -eu
cmake_bin=$1 build=$2 work=$3 cc=$4 src=$5 version=$6
shift 6

rm -rf "$work"
mkdir -p "$work"
prefix="$work/prefix"
"$cmake_bin" --install "$build" --prefix "$prefix" >"$work/install.log"

pc=$(find "$prefix" -name casefile.pc)
[ -n "$pc" ] || { echo "casefile.pc not installed under $prefix"; exit 1; }
archive=$(find "$prefix" -name libcasefile.a)
[ -n "$archive" ] || { echo "libcasefile.a not installed under $prefix"; exit 1; }
[ -f "$prefix/include/casefile.h" ] || { echo "casefile.h not installed"; exit 1; }
[ -x "$prefix/bin/casefile" ] || { echo "the casefile CLI not installed"; exit 1; }
"$prefix/bin/casefile" --version | grep -q -x "casefile $version" ||
  { echo "the installed CLI does not run"; exit 1; }

# Every casefile symbol the archive's members use is defined in the archive.
nm -g --defined-only "$archive" 2>/dev/null | awk 'NF >= 3 { print $3 }' | sort -u >"$work/defined"
nm -g --undefined-only "$archive" 2>/dev/null | awk 'NF >= 2 { print $NF }' | sort -u >"$work/undefined"
missing=$(comm -23 "$work/undefined" "$work/defined" | grep -E '8casefile|^casefile_' || true)
if [ -n "$missing" ]; then
  echo "libcasefile.a leaves casefile symbols undefined:"
  printf '%s\n' "$missing" | head -20
  exit 1
fi

export PKG_CONFIG_PATH="$(dirname "$pc")"
cflags=$(pkg-config --cflags casefile)
libs=$(pkg-config --static --libs casefile)
# -lcasefile would pick libcasefile.so when both are installed; -l: names
# the archive itself.
libs=$(printf '%s\n' "$libs" | sed 's/-lcasefile\( \|$\)/-l:libcasefile.a\1/')
# shellcheck disable=SC2086
"$cc" "$@" -std=c11 -Wall -Wextra -pedantic -Werror $cflags "$src" -o "$work/consumer" $libs

if readelf -d "$work/consumer" | grep NEEDED | grep -q libcasefile; then
  echo "the consumer was linked against libcasefile.so, not the archive"
  exit 1
fi

mkdir -p "$work/bundle/logs"
printf 'I0105 10:00:00.000000 1 train.py:1] step 1\nI0105 10:00:01.000000 1 train.py:1] step 2\n' \
  >"$work/bundle/logs/worker.log"
out=$("$work/consumer" "$work/bundle" "$work/index.db")
expected=$(printf 'casefile %s\nlines 2\nreport ok' "$version")
if [ "$out" != "$expected" ]; then
  echo "unexpected output:"
  printf '%s\n' "$out"
  echo "expected:"
  printf '%s\n' "$expected"
  exit 1
fi
echo "static consumer built from the installed archive and pkg-config: $out" | tr '\n' ' '
echo
rm -rf "$work"
