#!/usr/bin/env bash
# Installs what casefile needs on Debian 12 (only the missing packages), then
# configures and builds into ./build. Safe to run again: it does only what is
# left to do. Run as root (or with sudo available) on a fresh machine.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake ninja-build g++ pkg-config libarchive-dev libzstd-dev libsqlite3-dev
          libsimdjson-dev libgtest-dev zstd python3 chromium fonts-dejavu-core
          clang libclang-rt-14-dev llvm-14 time libarchive-tools lnav)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "casefile setup: installing ${missing[*]}" >&2
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

build_type=${CASEFILE_BUILD_TYPE:-RelWithDebInfo}
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE="$build_type" ${CASEFILE_CMAKE_ARGS:-} >/dev/null
cmake --build build -j"${CASEFILE_JOBS:-2}" >&2
