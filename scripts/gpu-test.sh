#!/usr/bin/env bash
# Builds the engine with a GPU backend and runs its real-model tests on a software driver:
# Vulkan on Mesa's lavapipe, OpenCL on PoCL (both run on the CPU), so the GPU code paths are
# compiled and exercised without a GPU. Slow; not part of `./run test`. See docs/gpu.md.
#
# Usage: scripts/gpu-test.sh vulkan|opencl|vulkan,opencl [TEST-FILTER...]
#   Installs the packages first (scripts/prereqs.sh --gpu), builds into
#   $CARGO_TARGET_DIR (default: <repo>/target-gpu, so the CPU build's target is not
#   rebuilt), shows the device the driver offers, then runs
#   `cargo test -p porfiry-engine --release --features <backend> -- --test-threads 1`
#   (TEST-FILTER is passed to the test binaries). Models: $PORFIRY_MODELS
#   (default ~/.cache/porfiry/models). The test `gpu_build_offloads_the_model` fails when
#   llama.cpp found no device it supports, so a run on the CPU fallback cannot pass.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
features="${1:-}"
case "$features" in
  vulkan | opencl | vulkan,opencl | opencl,vulkan) shift ;;
  *)
    echo "usage: scripts/gpu-test.sh vulkan|opencl|vulkan,opencl [TEST-FILTER...]" >&2
    exit 2
    ;;
esac

bash "$root/scripts/prereqs.sh" --gpu

export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target-gpu}"
export PORFIRY_MODELS="${PORFIRY_MODELS:-$HOME/.cache/porfiry/models}"

if [[ "$features" == *vulkan* ]]; then
  # ggml-vulkan (llama-cpp-sys-2 0.1.161) uses VK_EXT_layer_settings unguarded; Debian 12's
  # Vulkan headers (1.3.239) predate it and the build fails deep into ggml-vulkan.cpp.
  if ! grep -q 'VK_EXT_layer_settings' "${VULKAN_SDK:-/usr}/include/vulkan/vulkan_core.h" 2>/dev/null; then
    echo "the Vulkan headers lack VK_EXT_layer_settings, which llama.cpp's ggml-vulkan needs:" >&2
    echo "install newer Vulkan headers (Debian 13, or an SDK with VULKAN_SDK set); docs/gpu.md" >&2
    exit 1
  fi
  # lavapipe only: no real GPU's driver is picked up by accident.
  icds=(/usr/share/vulkan/icd.d/lvp_icd.*.json)
  icd="${icds[0]}"
  export VK_ICD_FILENAMES="$icd" VK_DRIVER_FILES="$icd"
  # ggml-vulkan skips CPU-type Vulkan devices (lavapipe is one) unless they are named.
  export GGML_VK_VISIBLE_DEVICES="${GGML_VK_VISIBLE_DEVICES:-0}"
  echo "Vulkan driver: $icd" >&2
  vulkaninfo --summary 2>/dev/null | grep -E 'deviceName|deviceType|apiVersion' >&2 || true
fi
if [[ "$features" == *opencl* ]]; then
  echo "OpenCL devices:" >&2
  clinfo 2>/dev/null | grep -E 'Platform Name|Device Name|Device Version|OpenCL C Version' >&2 || true
fi

cd "$root"
start=$(date +%s)
status=0
nice -n 15 cargo test -p porfiry-engine --release --features "$features" -- --test-threads 1 "$@" || status=$?
echo "gpu-test ($features): exit $status after $(($(date +%s) - start)) s" >&2
exit $status
