#!/usr/bin/env bash
# Builds the engine with a GPU backend and runs its real-model tests on a software driver:
# Vulkan on Mesa's lavapipe, OpenCL on PoCL (both run on the CPU), so the GPU code paths are
# compiled and exercised without a GPU. Slow; not part of `./run test`. See docs/gpu.md.
#
# Usage: scripts/gpu-test.sh vulkan|opencl|vulkan,opencl [TEST-FILTER...]
#   Installs the packages first (scripts/prereqs.sh --gpu; for Vulkan also newer headers
#   where the system's are too old, scripts/vulkan-headers.sh), builds at nice 19
#   ($PORFIRY_NICE) into $CARGO_TARGET_DIR (default: <repo>/target-gpu, so the CPU build's
#   target is not rebuilt), shows the device the driver offers, then runs
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
  # Vulkan headers (1.3.239) predate it and the build would fail deep into ggml-vulkan.cpp.
  # Then the build takes Debian 13's headers, unpacked by prereqs.sh (vulkan-headers.sh),
  # through VULKAN_SDK (CMake's FindVulkan searches <dir>/include first); it still links
  # the system's loader.
  VULKAN_SDK="$(bash "$root/scripts/vulkan-headers.sh")"
  export VULKAN_SDK
  echo "Vulkan headers: $VULKAN_SDK/include ($(awk '
    /^#define VK_HEADER_VERSION / { patch = $3 }
    /^#define VK_HEADER_VERSION_COMPLETE / { gsub(/[(),]/, " "); mm = $5 "." $6 }
    END { print mm "." patch }' "$VULKAN_SDK/include/vulkan/vulkan_core.h"))" >&2
  # A llama.cpp build configured earlier keeps the include directory it found in its CMake
  # cache; one that found other headers is configured again.
  for cache in "$CARGO_TARGET_DIR"/*/build/llama-cpp-sys-2-*/out/build/CMakeCache.txt; do
    [ -e "$cache" ] || continue
    if ! grep -qxF "Vulkan_INCLUDE_DIR:PATH=$VULKAN_SDK/include" "$cache" \
      && grep -q '^Vulkan_INCLUDE_DIR:' "$cache"; then
      echo "reconfiguring llama.cpp (its cache has other Vulkan headers): $cache" >&2
      rm -f "$cache"
    fi
  done
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
nice=(nice -n "${PORFIRY_NICE:-19}")
cargo_test=(cargo test -p porfiry-engine --release --features "$features")
# Build first, without the run-time variables: llama-cpp-sys-2 hands every GGML_* variable
# to CMake and rebuilds when one changes.
start=$(date +%s)
env -u GGML_VK_VISIBLE_DEVICES "${nice[@]}" "${cargo_test[@]}" --no-run
echo "gpu-test ($features): built in $(($(date +%s) - start)) s" >&2
start=$(date +%s)
status=0
"${nice[@]}" "${cargo_test[@]}" -- --test-threads 1 "$@" || status=$?
echo "gpu-test ($features): exit $status after $(($(date +%s) - start)) s" >&2
exit $status
