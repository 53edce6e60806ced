#!/usr/bin/env bash
# The sanitizer half of the test command (README "Build and test"; issue #11,
# docs/TESTING.md). Run after scripts/setup.sh, which installs clang and its
# sanitizer runtimes. Three steps, each in its own build folder:
#   1. build-sanitize: clang, ASan + UBSan (+ libFuzzer's coverage hooks), the
#      whole test suite; then every fuzz target fuzzes for
#      CASEFILE_FUZZ_SECONDS (default 10) from its seeds and regressions.
#   2. build-tsan: gcc, ThreadSanitizer, the C API's thread tests, the
#      read-ahead decoder of the lines table and the zstd read-ahead of
#      .tar.zst bundles.
# Safe to run again: the folders are reused.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=${CASEFILE_JOBS:-2}
fuzz_seconds=${CASEFILE_FUZZ_SECONDS:-10}

# Readable stacks in reports; stop at the first error; leaks fail the test.
symbolizer=$(command -v llvm-symbolizer-14 || command -v llvm-symbolizer || true)
export ASAN_SYMBOLIZER_PATH=${symbolizer}
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}

echo "casefile sanitize: ASan + UBSan build (clang)" >&2
CC=clang CXX=clang++ cmake -S . -B build-sanitize -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCASEFILE_FUZZ=ON -DCASEFILE_FUZZ_SECONDS="$fuzz_seconds" ${CASEFILE_CMAKE_ARGS:-} >/dev/null
cmake --build build-sanitize -j"$jobs" >&2
# The browser tests drive an uninstrumented Chromium over pages the ordinary
# build's run already checked, and the benchmark harness's smoke run measures
# nothing an instrumented build should; everything else runs instrumented.
ctest --test-dir build-sanitize --output-on-failure -j"$jobs" -LE 'browser|fuzz_run|scale|bench'
ctest --test-dir build-sanitize --output-on-failure -j"$jobs" -L fuzz_run

echo "casefile sanitize: ThreadSanitizer build (the C API thread tests, the lines read-ahead, the zstd read-ahead)" >&2
cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCASEFILE_TSAN=ON \
  ${CASEFILE_CMAKE_ARGS:-} >/dev/null
cmake --build build-tsan -j"$jobs" --target capi_threads_test extension_test index_tests bundle_tests >&2
ctest --test-dir build-tsan --output-on-failure -R '^(capi_threads|extension_test|BlockReadAhead\..*|LinesReadAhead\..*|ZstdReadAhead\..*)$'
