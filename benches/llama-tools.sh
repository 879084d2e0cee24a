#!/usr/bin/env bash
# Build llama.cpp's own llama-bench and llama-server from the llama.cpp source that
# llama-cpp-sys-2 vendors, then compare them with Porfiry on the same model, threads, context
# and token sequence. Not part of `./run test`; CI never runs it.
#
#   LLAMA_TOOLS_SRC=DIR benches/llama-tools.sh [--threads N] [--model PATH] [--port P]
#
# The crate's package leaves out the tools' sources (tools/llama-bench, tools/server, ...), so
# they must come from ggml-org/llama.cpp AT THE COMMIT THE CRATE VENDORS: LLAMA_TOOLS_SRC is a
# directory holding `tools/llama-bench/` and `tools/server/` of that commit (e.g. a checkout).
# They are overlaid on a copy of the vendored tree outside the repository and built there
# (targets llama-bench and llama-server only). Nothing fetched is ever committed.
#
# The same token sequence on both sides: `porfiry bench dialogue --trace` writes every request's
# prompt token ids and forced reply ids. For each request the script sends llama-server
# (cache_prompt on, --swa-full, one slot) the prompt ids with n_predict 1 and reads its prompt
# timings (its TTFT), then sends prompt + reply ids with n_predict 0 so its cache holds the reply
# as ours does after decoding it. Both TTFTs are printed side by side per request.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
threads=2
port=8089
model="${PORFIRY_MODELS:-$root/models/cache}/gemma-3-270m-q4_k_m.gguf"
while [ $# -gt 0 ]; do
  case "$1" in
    --threads) threads="$2"; shift 2 ;;
    --model) model="$2"; shift 2 ;;
    --port) port="$2"; shift 2 ;;
    *) echo "llama-tools: unknown argument $1" >&2; exit 2 ;;
  esac
done

vendored="$(find "${CARGO_HOME:-$HOME/.cargo}/registry/src" -maxdepth 2 -type d -name 'llama-cpp-sys-2-0.1.161' | head -n 1)/llama.cpp"
if [ ! -f "$vendored/CMakeLists.txt" ]; then
  echo "llama-tools: the vendored llama.cpp (llama-cpp-sys-2 0.1.161) is not in the cargo registry; run cargo build first" >&2
  exit 1
fi
src="${LLAMA_TOOLS_SRC:-}"
if [ -z "$src" ] || [ ! -f "$src/tools/llama-bench/llama-bench.cpp" ] || [ ! -d "$src/tools/server" ]; then
  cat >&2 <<EOF
llama-tools: LLAMA_TOOLS_SRC must name a directory with tools/llama-bench/ and tools/server/ of
the llama.cpp commit vendored by llama-cpp-sys-2 0.1.161 (its package omits them; see BENCHMARKS.md).
EOF
  exit 1
fi
[ -f "$model" ] || { echo "llama-tools: no model at $model (./run models fetch)" >&2; exit 1; }

work="${LLAMA_TOOLS_WORK:-${TMPDIR:-/tmp}/porfiry-llama-tools}"
mkdir -p "$work"
rm -rf "$work/llama.cpp"
cp -r "$vendored" "$work/llama.cpp"
cp -r "$src/tools/." "$work/llama.cpp/tools/"
cmake -S "$work/llama.cpp" -B "$work/build" -DCMAKE_BUILD_TYPE=Release \
  -DLLAMA_BUILD_TOOLS=ON -DLLAMA_BUILD_SERVER=ON -DLLAMA_BUILD_TESTS=OFF \
  -DLLAMA_BUILD_EXAMPLES=OFF -DGGML_NATIVE=OFF -DLLAMA_CURL=OFF >/dev/null
cmake --build "$work/build" --target llama-bench llama-server -j "$threads"
bin="$work/build/bin"

echo "== llama-bench, $threads threads (prefill 512, decode 128)"
"$bin/llama-bench" -m "$model" -t "$threads" -p 512 -n 128 -r 3 -o md

echo "== Porfiry, same dialogue: report and token trace"
cargo build --release --bin porfiry --manifest-path "$root/Cargo.toml"
target="${CARGO_TARGET_DIR:-$root/target}"
"$target/release/porfiry" bench dialogue --model "$model" --threads "$threads" --json \
  --trace "$work/trace.jsonl" >"$work/porfiry.json"

echo "== llama-server (cache_prompt, --swa-full, 1 slot, n_ctx 4096)"
"$bin/llama-server" -m "$model" -t "$threads" -c 4096 --swa-full -np 1 --port "$port" \
  --host 127.0.0.1 >"$work/server.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true' EXIT
for _ in $(seq 1 120); do
  if python3 - "$port" <<'EOF' 2>/dev/null; then break; fi
import sys, urllib.request
urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/health", timeout=1)
EOF
  sleep 0.5
done

python3 - "$port" "$work/trace.jsonl" "$work/porfiry.json" <<'EOF'
import json, sys, urllib.request

port, trace_path, ours_path = sys.argv[1], sys.argv[2], sys.argv[3]
ours = json.load(open(ours_path))["generations"]

def post(body):
    req = urllib.request.Request(f"http://127.0.0.1:{port}/completion",
                                 data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    return json.load(urllib.request.urlopen(req, timeout=600))

print(f"{'req':>3} {'turn':>4} {'ours: prefilled':>15} {'TTFT ms':>8} | {'server: prefilled':>17} {'TTFT ms':>8}")
for i, line in enumerate(open(trace_path)):
    t = json.loads(line)
    r = post({"prompt": t["prompt"], "n_predict": 1, "cache_prompt": True, "temperature": 0})
    s = r["timings"]
    post({"prompt": t["prompt"] + t["reply"], "n_predict": 0, "cache_prompt": True})
    o = ours[i]["stats"]
    print(f"{i + 1:>3} {ours[i]['turn']:>4} {o['prefilled_tokens']:>15} {o['ttft_ms']:>8.1f} | "
          f"{s['prompt_n']:>17} {s['prompt_ms'] + s.get('predicted_ms', 0):>8.1f}")
EOF
