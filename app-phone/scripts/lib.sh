# shellcheck shell=bash
# Shared helpers for the app-phone scripts. Sourced, never run.
#
# Every script:
#   - checks its inputs first and says exactly what is missing and how to get it (exit 2);
#   - with --dry-run prints the exact commands it would run, one per line prefixed with "+ ",
#     and runs none of them (tools such as adb and the NDK are then not required: a dry run
#     only warns about them, so the plan can be reviewed on a machine without them).

set -euo pipefail

# shellcheck disable=SC2034 # used by the scripts that source this file
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck disable=SC2034
# The app's package (applicationId in app-phone/app/build.gradle.kts).
APP_PACKAGE="app.porfiry.phone"
# shellcheck disable=SC2034
# Where native test binaries and their files live on the phone (apps cannot read it; adb can).
DEVICE_DIR="/data/local/tmp/porfiry"

DRY_RUN=0
SERIAL="${ANDROID_SERIAL:-}"
MISSING=()

# die MESSAGE... : print an error and exit 2 (bad or missing input).
die() {
  echo "error: $*" >&2
  exit 2
}

# missing MESSAGE : record a missing prerequisite; `check_missing` reports them all at once.
missing() {
  MISSING+=("$1")
}

# check_missing : stop (exit 2) listing every missing prerequisite; in a dry run only warn.
check_missing() {
  if [ "${#MISSING[@]}" -eq 0 ]; then
    return 0
  fi
  local m
  for m in "${MISSING[@]}"; do
    if [ "$DRY_RUN" -eq 1 ]; then
      echo "dry run: would stop here: $m" >&2
    else
      echo "error: $m" >&2
    fi
  done
  if [ "$DRY_RUN" -eq 0 ]; then
    exit 2
  fi
}

# run CMD ARGS... : print the command (shell-quoted) and run it unless this is a dry run.
run() {
  local out="+" w
  for w in "$@"; do
    if [[ "$w" =~ ^[A-Za-z0-9_./:=+,@%^-]+$ ]]; then
      out+=" $w"
    else
      out+=" '${w//\'/\'\\\'\'}'"
    fi
  done
  echo "$out"
  if [ "$DRY_RUN" -eq 0 ]; then
    "$@"
  fi
}

# adb_cmd ARGS... : run adb on the chosen device.
adb_cmd() {
  if [ -n "$SERIAL" ]; then
    run adb -s "$SERIAL" "$@"
  else
    run adb "$@"
  fi
}

# check_adb_device : adb is installed and exactly one usable device is chosen.
# Real runs stop with a clear message; dry runs skip the check (no device needed to plan).
check_adb_device() {
  if [ "$DRY_RUN" -eq 1 ]; then
    echo "dry run: adb and the device are not checked" >&2
    return 0
  fi
  if ! command -v adb >/dev/null 2>&1; then
    die "adb not found: install the Android SDK platform-tools and put adb on PATH (Debian: apt-get install adb)"
  fi
  local listing devices unauthorized
  listing="$(adb devices 2>/dev/null | tail -n +2 | sed '/^[[:space:]]*$/d')" || listing=""
  devices="$(printf '%s\n' "$listing" | awk -F'\t' '$2=="device"{print $1}')"
  unauthorized="$(printf '%s\n' "$listing" | awk -F'\t' '$2=="unauthorized"{print $1}')"
  if [ -n "$SERIAL" ]; then
    if ! printf '%s\n' "$devices" | grep -qxF "$SERIAL"; then
      die "no device $SERIAL: adb devices lists: ${listing:-nothing}"
    fi
    return 0
  fi
  if [ -z "$devices" ]; then
    if [ -n "$unauthorized" ]; then
      die "device $unauthorized is unauthorized: unlock the phone and accept the USB debugging prompt"
    fi
    die "no device: connect a phone with USB debugging on (adb devices lists none)"
  fi
  if [ "$(printf '%s\n' "$devices" | wc -l)" -gt 1 ]; then
    die "several devices ($(printf '%s' "$devices" | tr '\n' ' ')): choose one with --serial SERIAL or ANDROID_SERIAL"
  fi
}

# check_gguf FILE : the file exists and starts with the GGUF magic.
check_gguf() {
  local f="$1"
  if [ ! -e "$f" ]; then
    die "no model: $f does not exist (fetch the default with: cargo run --release -- models fetch)"
  fi
  if [ ! -f "$f" ] || [ ! -r "$f" ]; then
    die "model $f is not a readable file"
  fi
  local magic
  magic="$(head -c 4 "$f" | tr -d '\0')"
  if [ "$magic" != "GGUF" ]; then
    die "model $f is not a GGUF file (it does not start with the GGUF magic)"
  fi
}

# check_dir_has_files DIR WHAT : DIR exists and holds at least one file.
check_dir_has_files() {
  local d="$1" what="$2"
  if [ ! -d "$d" ]; then
    die "no $what: directory $d does not exist"
  fi
  if [ -z "$(find "$d" -type f -print -quit)" ]; then
    die "no $what: directory $d is empty"
  fi
}

# usage : print the calling script's header comment (its help).
usage() {
  awk 'NR > 1 && /^#/ && !/shellcheck/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
}
