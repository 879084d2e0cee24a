#!/usr/bin/env bash
# Build llama.cpp's own llama-bench and llama-server from the llama.cpp source that
# llama-cpp-sys-2 vendors, then compare them with Porfiry on the same model, threads, context
# and token sequence. Not part of `./run test`; CI never runs it.
#
#   LLAMA_TOOLS_SRC=DIR benches/llama-tools.sh [--threads N] [--model PATH] [--port P]
#                                              [--rounds R] [--skip bench|server] [--nice N]
#                                              [--speaking] [--all-heard]
#
# LLAMA_TOOLS_SRC: a llama.cpp source tree holding tools/llama-bench/, tools/server/ and
#   scripts/ui-assets.cmake. The crate's package leaves the tools' sources out, so they come
#   from elsewhere; BENCHMARKS.md says which tree matches the vendored one (nothing fetched is
#   ever committed). The script prints how that tree differs from the vendored one, copies
#   the vendored tree outside the repository, adds only the files the vendored tree lacks
#   (the vendored files always win) and builds the targets llama-bench and llama-server there.
# --nice N runs both sides' timed processes at niceness -N (root only), so that other work on
#   a shared machine disturbs them less; the same for both sides.
# --speaking plays ours as a voice user (`porfiry bench dialogue --speaking`: the words but the
#   last are prefilled from a partial transcript before each turn); the server still gets each
#   finished prompt as it is, so this compares the product with a plain server client.
# --all-heard: with --speaking, the recognizer's last partial holds all the words (then the
#   final result), so ours finds each turn's prompt decoded ahead but its last token.
# LLAMA_TOOLS_WORK: work directory (default $TMPDIR/porfiry-llama-tools).
# LLAMA_TOOLS_CONFIG: how the tools are configured. `ordinary` (default): as a llama.cpp user
#   builds them, `cmake -B build -DCMAKE_BUILD_TYPE=Release` with llama.cpp's own defaults
#   (GGML_NATIVE on, shared libraries), only the network-fetching parts (curl, OpenSSL, the
#   web UI) and the tests/examples switched off. `ours`: the configuration our release build
#   gave llama-cpp-sys-2, read from its CMakeCache.txt (build type, C/C++ flags, GGML_NATIVE,
#   static libraries).
# LLAMA_TOOLS_BUILD_TYPE: overrides the CMake build type of either configuration.
#
# 1. Engine speed: `llama-bench` pp512 (prefill from an empty cache) and tg128 at depth 512
#    (decode right after a 512-token prompt) next to the engine's `measure --llama-bench`
#    (same: a 512-token prompt, then 128 decoded tokens, sampling included), interleaved for
#    R rounds at the same thread count.
# 2. Per-turn TTFT: `porfiry bench dialogue --trace` writes every request's prompt token ids
#    and forced reply ids; benches/llama-server-replay.py sends the same ids to llama-server
#    (--swa-full, cache_prompt, one slot, same n_ctx and threads) and prints both side by
#    side, plus a new session's first turn; R rounds (a fresh server each), then medians and
#    minima per turn.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
threads=2
port=8089
rounds=3
skip=""
nice_level=0
speaking=()
ctx=4096
model="${PORFIRY_MODELS:-$root/models/cache}/gemma-3-270m-q4_k_m.gguf"
while [ $# -gt 0 ]; do
  case "$1" in
    --threads) threads="$2"; shift 2 ;;
    --model) model="$2"; shift 2 ;;
    --port) port="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --skip) skip="$2"; shift 2 ;;
    --nice) nice_level="$2"; shift 2 ;;
    --speaking) [ ${#speaking[@]} -gt 0 ] || speaking=(--speaking); shift ;;
    --all-heard) speaking=(--speaking --all-heard); shift ;;
    -h|--help) sed -n '2,32p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "llama-tools: unknown argument $1" >&2; exit 2 ;;
  esac
done

vendored="$(find "${CARGO_HOME:-$HOME/.cargo}/registry/src" -maxdepth 2 -type d -name 'llama-cpp-sys-2-0.1.161' | head -n 1)/llama.cpp"
if [ ! -f "$vendored/CMakeLists.txt" ]; then
  echo "llama-tools: the vendored llama.cpp (llama-cpp-sys-2 0.1.161) is not in the cargo registry; run cargo build first" >&2
  exit 1
fi
src="${LLAMA_TOOLS_SRC:-}"
if [ -z "$src" ] || [ ! -f "$src/tools/llama-bench/llama-bench.cpp" ] ||
  [ ! -f "$src/tools/server/server.cpp" ] || [ ! -f "$src/scripts/ui-assets.cmake" ]; then
  cat >&2 <<EOF
llama-tools: LLAMA_TOOLS_SRC must name a llama.cpp tree with tools/llama-bench/, tools/server/
and scripts/ui-assets.cmake matching the one vendored by llama-cpp-sys-2 0.1.161 (its package
omits them; BENCHMARKS.md says where a matching tree comes from).
EOF
  exit 1
fi
[ -f "$model" ] || { echo "llama-tools: no model at $model (./run models fetch)" >&2; exit 1; }

# Both sides' timed processes at the same raised priority (root only) on a shared machine.
prio=""
if [ "$nice_level" -gt 0 ]; then
  prio="nice -n -$nice_level"
fi

work="${LLAMA_TOOLS_WORK:-${TMPDIR:-/tmp}/porfiry-llama-tools}"
mkdir -p "$work"
target="${CARGO_TARGET_DIR:-$root/target}"

echo "== Porfiry: release build (porfiry and the engine's measure example)"
cargo build --release --manifest-path "$root/Cargo.toml" --bin porfiry
cargo build --release --manifest-path "$root/Cargo.toml" -p porfiry-engine --example measure

echo "== the tools' source tree against the vendored one (files present in both, tools/ aside)"
(cd "$vendored" && find . -type f -not -path './tools/*' | sort) >"$work/vendored.files"
differ=0
: >"$work/differing.files"
while IFS= read -r f; do
  if [ ! -f "$src/$f" ]; then
    echo "missing  $f" >>"$work/differing.files"; differ=$((differ + 1))
  elif ! cmp -s "$vendored/$f" "$src/$f"; then
    echo "differs  $f" >>"$work/differing.files"; differ=$((differ + 1))
  fi
done <"$work/vendored.files"
echo "$(wc -l <"$work/vendored.files") vendored files, $differ differ or are missing in $src"
if [ "$differ" -gt 0 ]; then
  echo "by directory:"
  awk '{ n = split($2, p, "/"); d = p[2]; for (i = 3; i < n && i < 5; i++) d = d "/" p[i]; c[d]++ }
       END { for (d in c) printf "  %4d %s\n", c[d], d }' "$work/differing.files" | sort -rn
fi

config="${LLAMA_TOOLS_CONFIG:-ordinary}"
case "$config" in
  ordinary|ours) ;;
  *) echo "llama-tools: LLAMA_TOOLS_CONFIG must be ordinary or ours, not '$config'" >&2; exit 2 ;;
esac
# Our release build of llama-cpp-sys-2 (its build.rs drives CMake): printed in both
# configurations, used by `ours`.
cache="$(find "$target/release/build" -maxdepth 4 -path '*llama-cpp-sys-2-*/out/build/CMakeCache.txt' -printf '%T@ %p\n' 2>/dev/null | sort -rn | head -n 1 | cut -d' ' -f2-)"
cache_value() { sed -n "s/^$1:[A-Z]*=[[:space:]]*//p" "$cache" | head -n 1; }
build_type="Release"; native="ON"; cflags=""; cxxflags=""
if [ -n "$cache" ]; then
  build_type="$(cache_value CMAKE_BUILD_TYPE)"
  native="$(cache_value GGML_NATIVE)"
  cflags="$(cache_value CMAKE_C_FLAGS)"
  cxxflags="$(cache_value CMAKE_CXX_FLAGS)"
  echo "our llama.cpp build: $cache"
else
  echo "llama-tools: no CMakeCache.txt of llama-cpp-sys-2 under $target/release; using Release, GGML_NATIVE=ON" >&2
fi
echo "our llama.cpp: CMAKE_BUILD_TYPE=$build_type GGML_NATIVE=$native C flags '$cflags' C++ flags '$cxxflags'"
configure=()
if [ "$config" = ours ]; then
  build_type="${LLAMA_TOOLS_BUILD_TYPE:-$build_type}"
  configure=(-DCMAKE_BUILD_TYPE="$build_type" -DCMAKE_C_FLAGS="$cflags"
    -DCMAKE_CXX_FLAGS="$cxxflags" -DGGML_NATIVE="$native" -DBUILD_SHARED_LIBS=OFF)
else
  build_type="${LLAMA_TOOLS_BUILD_TYPE:-Release}"
  configure=(-DCMAKE_BUILD_TYPE="$build_type")
fi
echo "tools build ($config): ${configure[*]}"

build="$work/build-$config"
echo "== building llama-bench and llama-server in $build ($threads jobs)"
mkdir -p "$work/llama.cpp"
cp -a "$vendored/." "$work/llama.cpp/"
cp -an "$src/tools/." "$work/llama.cpp/tools/"
mkdir -p "$work/llama.cpp/scripts"
cp -an "$src/scripts/." "$work/llama.cpp/scripts/"
cmake -S "$work/llama.cpp" -B "$build" "${configure[@]}" \
  -DLLAMA_BUILD_TOOLS=ON -DLLAMA_BUILD_SERVER=ON -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_APP=OFF -DLLAMA_CURL=OFF \
  -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF >"$work/configure.log"
started=$(date +%s)
cmake --build "$build" --config "$build_type" --target llama-bench llama-server -j "$threads" >"$work/build-$config.log"
echo "built in $(($(date +%s) - started)) s (an up-to-date build takes seconds)"
bin="$build/bin"

if [ "$skip" != "bench" ]; then
  echo "== engine speed: llama-bench vs Porfiry, $threads threads, $rounds interleaved rounds"
  : >"$work/llama-bench.jsonl"
  : >"$work/measure.jsonl"
  for r in $(seq 1 "$rounds"); do
    $prio "$bin/llama-bench" -m "$model" -t "$threads" -p 512 -n 0 -r 1 -o jsonl >>"$work/llama-bench.jsonl"
    $prio "$bin/llama-bench" -m "$model" -t "$threads" -p 0 -n 128 -d 512 -r 1 -o jsonl >>"$work/llama-bench.jsonl"
    $prio "$target/release/examples/measure" "$model" --llama-bench --threads "$threads" --reps 1 \
      >>"$work/measure.jsonl"
    echo "round $r done"
  done
  python3 - "$work/llama-bench.jsonl" "$work/measure.jsonl" <<'EOF'
import json, statistics, sys

bench = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
ours = [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
pp_l = [b["avg_ts"] for b in bench if b["n_prompt"] > 0]
tg_l = [b["avg_ts"] for b in bench if b["n_gen"] > 0]
pp_o = [v for o in ours for v in o["pp_tps"]]
tg_o = [v for o in ours for v in o["tg_tps"]]
print(f"ours: {ours[0]['pp_tokens']}-token prompt, {ours[0]['tg_tokens'][0]} tokens decoded "
      f"after it; llama-bench: pp512 at depth 0, tg128 at depth 512")
print(f"{'':>8} {'llama-bench median':>18} {'ours median':>11} {'ratio':>6} | "
      f"{'llama-bench best':>16} {'ours best':>9} {'ratio':>6}   (tok/s, all rounds)")
for name, l, o in (("prefill", pp_l, pp_o), ("decode", tg_l, tg_o)):
    ml, mo = statistics.median(l), statistics.median(o)
    print(f"{name:>8} {ml:>18.1f} {mo:>11.1f} {mo / ml:>6.3f} | {max(l):>16.1f} {max(o):>9.1f} "
          f"{max(o) / max(l):>6.3f}   llama-bench {[round(x, 1) for x in l]} ours "
          f"{[round(x, 1) for x in o]}")
EOF
fi

if [ "$skip" != "server" ]; then
  echo "== per-turn TTFT: Porfiry's dialogue vs llama-server replaying its tokens, $rounds rounds"
  echo "   (llama-server: cache_prompt, --swa-full, 1 slot, n_ctx $ctx, $threads threads, 127.0.0.1:$port)"
  outs=()
  # With head snapshots (when this build of porfiry has them) every round after the first
  # restores the static head from disk, as the app does after a restart.
  heads=()
  if "$target/release/porfiry" bench dialogue --help | grep -q -- '--head-snapshots'; then
    mkdir -p "$work/heads"
    heads=(--head-snapshots "$work/heads")
  fi
  for r in $(seq 1 "$rounds"); do
    $prio "$target/release/porfiry" bench dialogue --model "$model" --threads "$threads" \
      --ctx "$ctx" --json --trace "$work/trace.jsonl" "${heads[@]}" "${speaking[@]}" \
      >"$work/porfiry-$r.json"
    $prio "$bin/llama-server" -m "$model" -t "$threads" -tb "$threads" -c "$ctx" --swa-full \
      -np 1 --host 127.0.0.1 --port "$port" --no-webui >"$work/server-$r.log" 2>&1 &
    server=$!
    trap 'kill "$server" 2>/dev/null || true' EXIT
    ready=0
    for _ in $(seq 1 240); do
      if python3 -c 'import sys, urllib.request; urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/health", timeout=1)' "$port" 2>/dev/null; then
        ready=1; break
      fi
      kill -0 "$server" 2>/dev/null || break
      sleep 0.5
    done
    if [ $ready -ne 1 ]; then
      echo "llama-tools: llama-server did not come up; its log:" >&2
      tail -n 30 "$work/server-$r.log" >&2
      exit 1
    fi
    echo "-- round $r"
    python3 "$root/benches/llama-server-replay.py" --port "$port" --trace "$work/trace.jsonl" \
      --ours "$work/porfiry-$r.json" --out "$work/replay-$r.json"
    # Memory after the same tokens: the server's now, ours as `bench dialogue` reported it.
    python3 - "$server" "$work/porfiry-$r.json" <<'EOF' | tee -a "$work/memory.txt"
import json, sys
def status(path):
    out = {}
    for line in open(path):
        key, _, value = line.partition(":")
        if key in ("VmRSS", "RssAnon", "RssFile", "VmHWM"):
            out[key] = int(value.split()[0]) / 1024
    return out
s = status(f"/proc/{sys.argv[1]}/status")
ours = json.load(open(sys.argv[2])).get("process", {})
o = {k: v / 1024 for k, v in ours.items()}
print(f"memory after the dialogue, MiB: ours RSS {o.get('rss_kb', 0):.1f} (anon {o.get('rss_anon_kb', 0):.1f}), "
      f"peak {o.get('peak_rss_kb', 0):.1f}; llama-server RSS {s['VmRSS']:.1f} (anon {s['RssAnon']:.1f}), "
      f"peak {s['VmHWM']:.1f}; ratio RSS {o.get('rss_kb', 0) / s['VmRSS']:.3f}, "
      f"peak {o.get('peak_rss_kb', 0) / s['VmHWM']:.3f}")
EOF
    outs+=("$work/replay-$r.json")
    kill "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
    trap - EXIT
  done
  echo "== summary over $rounds rounds"
  python3 "$root/benches/llama-server-replay.py" --summary "${outs[@]}"
fi
echo "== done; raw data in $work"
