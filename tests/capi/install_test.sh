#!/bin/sh
# The installed tree, as a library user sees it. One step per ctest test
# (tests/capi/CMakeLists.txt); "install" is their fixture and runs first.
#
#   install_test.sh install   CMAKE BUILD_DIR WORK VERSION
#       cmake --install into WORK/prefix (a copy, no rebuild); checks the
#       files, the SONAME and that the CLI runs.
#   install_test.sh pkgconfig WORK CC CONSUMER_C BUNDLE EXPECTED_CODE [FLAG...]
#       builds tests/capi/install_consumer.c with `pkg-config casefile`
#       (shared) and `pkg-config --static casefile` (libcasefile.a) and runs
#       both on BUNDLE.
#   install_test.sh cmake     WORK CMAKE CXX PROJECT_DIR BUNDLE EXPECTED_CODE [FLAG...]
#       configures tests/capi/cmake_consumer with -DCMAKE_PREFIX_PATH and
#       runs both its programs (casefile::casefile, casefile::casefile_static).
#   install_test.sh cleanup   WORK
#
# FLAGs go to the compiler and linker (the sanitizer flags of a sanitized
# build).
set -eu
step=$1
shift

fail() {
  echo "$*"
  exit 1
}

# Runs a consumer and compares its findings line with the expected code.
run_consumer() {
  name=$1 program=$2 bundle=$3 code=$4
  rm -f "$work/$name.db"
  out=$("$program" "$bundle" "$work/$name.db") || fail "$name failed: $out"
  printf '%s\n' "$out" | grep -q -x "casefile $version" || fail "$name: no version line: $out"
  printf '%s\n' "$out" | grep -q -x "finding $code" || fail "$name: no finding $code: $out"
  printf '%s\n' "$out" | tail -n 1 | grep -q -x "report ok" || fail "$name: no report: $out"
  echo "$name: $(printf '%s\n' "$out" | grep '^finding' | tr '\n' ' ')"
}

case $step in
install)
  cmake_bin=$1 build=$2 work=$3 version=$4
  rm -rf "$work"
  mkdir -p "$work"
  prefix="$work/prefix"
  "$cmake_bin" --install "$build" --prefix "$prefix" >"$work/install.log"
  libdir=$(dirname "$(find "$prefix" -name casefile.pc)")/..
  libdir=$(cd "$libdir" && pwd)
  major=${version%%.*}
  for f in include/casefile.h bin/casefile; do
    [ -f "$prefix/$f" ] || fail "$f not installed under $prefix"
  done
  for f in libcasefile.a libcasefile.so "libcasefile.so.$major" "libcasefile.so.$version" \
    pkgconfig/casefile.pc cmake/casefile/casefileConfig.cmake \
    cmake/casefile/casefileConfigVersion.cmake cmake/casefile/casefileTargets.cmake \
    cmake/casefile/casefileStaticTargets.cmake; do
    [ -e "$libdir/$f" ] || fail "$f not installed under $libdir"
  done
  readelf -d "$libdir/libcasefile.so.$version" | grep -q "SONAME.*\[libcasefile.so.$major\]" ||
    fail "the SONAME of libcasefile.so is not libcasefile.so.$major"
  "$prefix/bin/casefile" --version | grep -q -x "casefile $version" ||
    fail "the installed CLI does not run"

  # Every casefile symbol the archive's members use is defined in the archive.
  archive="$libdir/libcasefile.a"
  nm -g --defined-only "$archive" 2>/dev/null | awk 'NF >= 3 { print $3 }' | sort -u >"$work/defined"
  nm -g --undefined-only "$archive" 2>/dev/null | awk 'NF >= 2 { print $NF }' | sort -u >"$work/undefined"
  missing=$(comm -23 "$work/undefined" "$work/defined" | grep -E '8casefile|^casefile_' || true)
  if [ -n "$missing" ]; then
    echo "libcasefile.a leaves casefile symbols undefined:"
    printf '%s\n' "$missing" | head -20
    exit 1
  fi
  echo "$libdir" >"$work/libdir"
  echo "$version" >"$work/version"
  echo "installed into $prefix"
  ;;

pkgconfig)
  work=$1 cc=$2 src=$3 bundle=$4 code=$5
  shift 5
  version=$(cat "$work/version")
  libdir=$(cat "$work/libdir")
  export PKG_CONFIG_PATH="$libdir/pkgconfig"
  pkg-config --exists casefile || fail "pkg-config does not find casefile.pc"
  [ "$(pkg-config --modversion casefile)" = "$version" ] || fail "casefile.pc has another version"
  cflags=$(pkg-config --cflags casefile)

  # Shared: the program needs libcasefile.so.MAJOR and binds every casefile_
  # symbol to the version node of that major.
  libs=$(pkg-config --libs casefile)
  # shellcheck disable=SC2086
  "$cc" "$@" -std=c11 -Wall -Wextra -pedantic -Werror $cflags "$src" -o "$work/c_shared" $libs \
    "-Wl,-rpath,$libdir"
  readelf -d "$work/c_shared" | grep NEEDED | grep -q "\[libcasefile.so.${version%%.*}\]" ||
    fail "the shared consumer does not need libcasefile.so.${version%%.*}"
  unversioned=$(nm -D --undefined-only "$work/c_shared" | awk '{ print $NF }' |
    grep '^casefile_' | grep -v "@CASEFILE_${version%%.*}\$" || true)
  [ -z "$unversioned" ] || fail "casefile symbols without the version node: $unversioned"
  run_consumer c_shared "$work/c_shared" "$bundle" "$code"

  # Static: -lcasefile would pick libcasefile.so when both are installed;
  # -l: names the archive itself.
  libs=$(pkg-config --static --libs casefile | sed 's/-lcasefile\( \|$\)/-l:libcasefile.a\1/')
  # shellcheck disable=SC2086
  "$cc" "$@" -std=c11 -Wall -Wextra -pedantic -Werror $cflags "$src" -o "$work/c_static" $libs
  if readelf -d "$work/c_static" | grep NEEDED | grep -q libcasefile; then
    fail "the static consumer was linked against libcasefile.so, not the archive"
  fi
  run_consumer c_static "$work/c_static" "$bundle" "$code"
  ;;

cmake)
  work=$1 cmake_bin=$2 cxx=$3 project=$4 bundle=$5 code=$6
  shift 6
  version=$(cat "$work/version")
  flags="$*"
  rm -rf "$work/cmake_consumer"
  # Ninja when there is one (as the build itself), else the default.
  generator=""
  command -v ninja >/dev/null 2>&1 && generator="-GNinja"
  "$cmake_bin" -S "$project" -B "$work/cmake_consumer" $generator \
    -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" \
    >"$work/cmake_consumer.log" 2>&1 || { cat "$work/cmake_consumer.log"; fail "configure failed"; }
  "$cmake_bin" --build "$work/cmake_consumer" >>"$work/cmake_consumer.log" 2>&1 ||
    { cat "$work/cmake_consumer.log"; fail "build failed"; }
  if readelf -d "$work/cmake_consumer/consumer_static" | grep NEEDED | grep -q libcasefile; then
    fail "casefile::casefile_static linked libcasefile.so"
  fi
  readelf -d "$work/cmake_consumer/consumer_shared" | grep NEEDED | grep -q libcasefile.so ||
    fail "casefile::casefile did not link libcasefile.so"
  run_consumer cmake_shared "$work/cmake_consumer/consumer_shared" "$bundle" "$code"
  run_consumer cmake_static "$work/cmake_consumer/consumer_static" "$bundle" "$code"
  ;;

cleanup)
  rm -rf "$1"
  ;;

*)
  fail "unknown step $step"
  ;;
esac
