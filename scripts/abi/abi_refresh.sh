#!/bin/sh
# Rewrites the committed ABI baseline, capi/abi/casefile.abi, from a build's
# libcasefile.so and the source tree's casefile.h (docs/API.md, "ABI check").
# Run it when the check reports compatible additions, or with an ABI major
# bump; commit the baseline with the change, so its diff is reviewed with it.
#
#   scripts/abi/abi_refresh.sh [--no-build] [BUILD_DIR]   (default: build)
#
# The same as `cmake --build BUILD_DIR --target abi_refresh` (which passes
# --no-build: the target already depends on the library). It builds the
# shared library first; CC (default cc) compiles the layout program.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
build_first=1
if [ "${1:-}" = "--no-build" ]; then
  build_first=0
  shift
fi
build=${1:-$root/build}
[ "$build_first" -eq 0 ] || cmake --build "$build" --target casefile_shared >&2
library=$(find "$build/lib" -maxdepth 1 -name 'libcasefile.so.*.*.*' -type f | head -n 1)
[ -n "$library" ] || { echo "no libcasefile.so built under $build" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sh "$root/scripts/abi/abi_dump.sh" dump "${CC:-cc}" "$root/include" "$library" "$work" \
  >"$work/casefile.abi"
if [ -f "$root/capi/abi/casefile.abi" ]; then
  sh "$root/scripts/abi/abi_check.sh" "$root/capi/abi/casefile.abi" "$work/casefile.abi" >&2 ||
    echo "abi_refresh: the change is incompatible; commit it only with an ABI major bump" >&2
fi
cp "$work/casefile.abi" "$root/capi/abi/casefile.abi"
echo "wrote $root/capi/abi/casefile.abi" >&2
