#!/usr/bin/env bash
# Runs the cargo-fuzz targets of fuzz/ (RELIABILITY.md §1), two at a time, each for
# SECONDS seconds, under nice 19, and prints one figure line per target: runs, exec/s, peak
# RSS, coverage, corpus size, and the crash / timeout / OOM artifacts it left.
#
# Usage: scripts/fuzz.sh [--seconds N] [--jobs N] [TARGET...]   (default: 600 s, 2, all)
# Needs cargo-fuzz (`cargo install cargo-fuzz --locked`); stable Rust with RUSTC_BOOTSTRAP=1.
# Logs: fuzz/logs/<target>.log; corpus: fuzz/corpus/<target>/; failures: fuzz/artifacts/.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds=600
jobs=2
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    -h|--help) sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) targets+=("$1"); shift ;;
  esac
done
cd "$root/fuzz"
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(ls seeds)
fi
export RUSTC_BOOTSTRAP=1
nice -n 15 cargo fuzz build --release >&2
mkdir -p logs

run_one() {
  local t="$1"
  mkdir -p "corpus/$t" "artifacts/$t"
  nice -n 19 cargo fuzz run --release "$t" "corpus/$t" "seeds/$t" -- \
    -max_total_time="$seconds" -rss_limit_mb=1024 -malloc_limit_mb=512 -timeout=10 \
    -max_len=65536 -print_final_stats=1 >"logs/$t.log" 2>&1 || true
}

figures() {
  local t="$1" log="logs/$1.log" done_line runs rss cov crashes timeouts ooms
  done_line="$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -n 1 || true)"
  runs="$(grep -Eo 'Done [0-9]+ runs in [0-9]+ second' "$log" | tail -n 1 || true)"
  rss="$(grep -Eo 'peak_rss_mb: *[0-9]+' "$log" | tail -n 1 | grep -Eo '[0-9]+$' || true)"
  cov="$(echo "$done_line" | grep -Eo 'cov: [0-9]+' || true)"
  crashes="$(find "artifacts/$t" -name 'crash-*' | wc -l)"
  timeouts="$(find "artifacts/$t" -name 'timeout-*' -o -name 'slow-unit-*' | wc -l)"
  ooms="$(find "artifacts/$t" -name 'oom-*' | wc -l)"
  printf '%s: %s; %s; peak RSS %s MB; corpus %s files; crashes %s, timeouts %s, OOMs %s\n' \
    "$t" "${runs:-no DONE line}" "${cov:-cov ?}" "${rss:-?}" \
    "$(find "corpus/$t" -type f | wc -l)" "$crashes" "$timeouts" "$ooms"
}

running=0
for t in "${targets[@]}"; do
  run_one "$t" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then
    wait -n || true
    running=$((running - 1))
  fi
done
wait
for t in "${targets[@]}"; do
  figures "$t"
done
