#!/usr/bin/env bash
# Installs the build prerequisites Porfiry needs on a Debian/Ubuntu machine:
# cmake and clang/libclang (llama-cpp-sys-2 builds llama.cpp and runs bindgen),
# a JDK (the JNI tests drive the bridge on a real JVM) and shellcheck (script lint).
#
# Usage: scripts/prereqs.sh [--check] [--gpu]
#   --check   only report what is missing; exit 1 if anything is.
#   --gpu     also the GPU backends' packages (the engine's `vulkan` and `opencl` features,
#             docs/gpu.md): Vulkan headers, SPIR-V headers, glslc, Mesa's software Vulkan
#             driver (lavapipe), vulkaninfo; OpenCL headers, the ICD loader, PoCL, clinfo.
#             Opt-in: `./run test` never installs them (CI builds CPU-only).
#             Where the system's Vulkan headers lack VK_EXT_layer_settings (Debian 12),
#             also unpacks newer ones into ~/.cache/porfiry/vulkan-headers
#             (scripts/vulkan-headers.sh; the system's packages stay as they are).
# Without root or sudo it prints the exact command to run instead.
set -euo pipefail

check_only=0
gpu=0
for arg in "$@"; do
  case "$arg" in
    --check) check_only=1 ;;
    --gpu) gpu=1 ;;
    *) echo "usage: scripts/prereqs.sh [--check] [--gpu]" >&2; exit 2 ;;
  esac
done

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

# True if any of the given paths (unquoted globs, expanded by the caller) exists.
any_exists() {
  local f
  for f in "$@"; do [ -e "$f" ] && return 0; done
  return 1
}

if [ $gpu -eq 1 ]; then
  # Vulkan (llama.cpp's ggml-vulkan): the loader and C++ headers, SPIRV-Headers' CMake
  # package, the shader compiler, lavapipe (a Vulkan driver on the CPU) and vulkaninfo.
  [ -e /usr/include/vulkan/vulkan.hpp ] || missing+=(libvulkan-dev)
  any_exists /usr/share/cmake/SPIRV-Headers/SPIRV-HeadersConfig.cmake \
    /usr/lib/*/cmake/SPIRV-Headers/SPIRV-HeadersConfig.cmake || missing+=(spirv-headers)
  command -v glslc >/dev/null 2>&1 || missing+=(glslc)
  any_exists /usr/share/vulkan/icd.d/lvp_icd.*.json || missing+=(mesa-vulkan-drivers)
  command -v vulkaninfo >/dev/null 2>&1 || missing+=(vulkan-tools)
  # OpenCL (llama.cpp's ggml-opencl): headers, the ICD loader to link against, PoCL (an
  # OpenCL platform on the CPU) and clinfo. ggml-opencl embeds its kernels with python3.
  [ -e /usr/include/CL/cl.h ] || missing+=(opencl-headers)
  any_exists /usr/lib/*/libOpenCL.so || missing+=(ocl-icd-opencl-dev)
  [ -e /etc/OpenCL/vendors/pocl.icd ] || missing+=(pocl-opencl-icd)
  command -v clinfo >/dev/null 2>&1 || missing+=(clinfo)
fi

# Vulkan headers new enough for ggml-vulkan, fetched after the packages are in place.
vulkan_headers() {
  [ $gpu -eq 1 ] || return 0
  local script
  script="$(dirname "${BASH_SOURCE[0]}")/vulkan-headers.sh"
  if [ $check_only -eq 1 ]; then
    bash "$script" --check >/dev/null
  else
    bash "$script" >/dev/null
  fi
}

if [ ${#missing[@]} -eq 0 ]; then
  vulkan_headers
  exit 0
fi
if [ $check_only -eq 1 ]; then
  echo "missing build prerequisites: ${missing[*]}" >&2
  vulkan_headers || true
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
vulkan_headers
