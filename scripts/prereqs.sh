#!/usr/bin/env bash
# Installs the build prerequisites Porfiry needs on a Debian/Ubuntu machine:
# cmake and clang/libclang (llama-cpp-sys-2 builds llama.cpp and runs bindgen),
# a JDK (the JNI tests drive the bridge on a real JVM) and shellcheck (script lint).
#
# Usage: scripts/prereqs.sh [--check]
#   --check   only report what is missing; exit 1 if anything is.
# Without root or sudo it prints the exact command to run instead.
set -euo pipefail

check_only=0
[ "${1:-}" = "--check" ] && check_only=1

missing=()
command -v cmake >/dev/null 2>&1 || missing+=(cmake)
command -v clang >/dev/null 2>&1 || missing+=(clang)
# bindgen needs libclang.so; Debian ships it in libclang-dev (any version).
if ! ls /usr/lib/llvm-*/lib/libclang.so* /usr/lib/llvm-*/lib/libclang-[0-9]*.so* /usr/lib/*-linux-gnu/libclang-[0-9]*.so* >/dev/null 2>&1 \
   && [ -z "${LIBCLANG_PATH:-}" ]; then
  missing+=(libclang-dev)
fi
command -v javac >/dev/null 2>&1 || missing+=(default-jdk-headless)
command -v shellcheck >/dev/null 2>&1 || missing+=(shellcheck)
command -v python3 >/dev/null 2>&1 || missing+=(python3 python3-pip)

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
if [ $check_only -eq 1 ]; then
  echo "missing build prerequisites: ${missing[*]}" >&2
  exit 1
fi

if [ "$(id -u)" = 0 ]; then
  sudo_cmd=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  sudo_cmd=(sudo)
else
  echo "Porfiry needs these Debian packages: ${missing[*]}" >&2
  echo "Install them with:  sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "No apt-get here. Install these yourself: ${missing[*]}" >&2
  exit 1
fi
echo "installing build prerequisites: ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq >&2
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
