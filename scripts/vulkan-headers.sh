#!/usr/bin/env bash
# Vulkan headers new enough for llama.cpp's ggml-vulkan, for the engine's `vulkan` feature.
#
# ggml-vulkan (llama-cpp-sys-2 0.1.161) uses VK_EXT_layer_settings without a guard; Debian
# 12's Vulkan headers (libvulkan-dev 1.3.239) predate it. This script prints a directory to
# use as VULKAN_SDK (CMake's FindVulkan looks for <dir>/include/vulkan/vulkan.h first):
#
#   * $VULKAN_SDK, or /usr, when its headers already have the extension;
#   * otherwise Debian 13 (trixie)'s libvulkan-dev, unpacked (not installed) under
#     ~/.cache/porfiry/vulkan-headers/<version>/usr. apt downloads it with a private
#     configuration (sources list, package lists and archive cache under that directory),
#     from the mirror this system's own apt sources name, checked against the system's
#     Debian archive keyring. Nothing of the system's apt state or packages changes.
#
# Only the headers are used: the build still links the system's loader (libvulkan.so), and
# ggml-vulkan resolves the extension's entry points at run time.
#
# Usage: scripts/vulkan-headers.sh [--check]
#   --check   print the directory only if it is already there; exit 1 if not.
#   Env: PORFIRY_VULKAN_HEADERS_SUITE (default trixie), XDG_CACHE_HOME.
set -euo pipefail

check_only=0
case "${1:-}" in
  "") ;;
  --check) check_only=1 ;;
  *) echo "usage: scripts/vulkan-headers.sh [--check]" >&2; exit 2 ;;
esac

has_layer_settings() { # $1: a prefix with include/vulkan/
  [ -e "$1/include/vulkan/vulkan.hpp" ] \
    && grep -q 'VK_EXT_layer_settings' "$1/include/vulkan/vulkan_core.h" 2>/dev/null
}

sdk="${VULKAN_SDK:-/usr}"
if has_layer_settings "$sdk"; then
  echo "$sdk"
  exit 0
fi

suite="${PORFIRY_VULKAN_HEADERS_SUITE:-trixie}"
base="${XDG_CACHE_HOME:-$HOME/.cache}/porfiry/vulkan-headers"

# An earlier download is reused (the last in version order if there are several).
found=""
for dir in "$base"/*/usr; do
  if has_layer_settings "$dir"; then found="$dir"; fi
done
if [ -n "$found" ]; then
  echo "$found"
  exit 0
fi
if [ $check_only -eq 1 ]; then
  echo "no Vulkan headers with VK_EXT_layer_settings (system: $sdk; none under $base)" >&2
  exit 1
fi
if ! command -v apt-get >/dev/null 2>&1 || ! command -v dpkg-deb >/dev/null 2>&1; then
  echo "no apt-get/dpkg-deb here: set VULKAN_SDK to Vulkan headers with VK_EXT_layer_settings" >&2
  exit 1
fi

# The mirror and keyring of the system's own Debian source for its release, from deb822
# files (sources.list.d/*.sources) or one-line sources.list entries.
# shellcheck disable=SC1091
codename="$(. /etc/os-release && echo "${VERSION_CODENAME:-}")"
mirror=""
keyring=""
for f in /etc/apt/sources.list.d/*.sources; do
  [ -e "$f" ] || continue
  # One record per paragraph: print "URI KEYRING" of the first whose Suites has $codename.
  read -r mirror keyring < <(awk -v want="$codename" '
    function flush() {
      if (types ~ /(^| )deb( |$)/ && (" " suites " ") ~ (" " want " ") && uri != "" && !done) {
        print uri, (key == "" ? "-" : key); done = 1
      }
      types = ""; suites = ""; uri = ""; key = ""
    }
    /^[ \t]*#/ { next }
    /^[ \t]*$/ { flush(); next }
    tolower($1) == "types:"     { $1 = ""; types = $0 }
    tolower($1) == "suites:"    { $1 = ""; suites = $0 }
    tolower($1) == "uris:"      { uri = $2 }
    tolower($1) == "signed-by:" { key = $2 }
    END { flush() }' "$f") || true
  [ -n "$mirror" ] && break
done
if [ -z "$mirror" ]; then
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -e "$f" ] || continue
    # "deb [options] URI SUITE COMPONENTS..."
    mirror="$(awk -v want="$codename" '
      $1 != "deb" { next }
      { i = 2; if ($2 ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ } }
      $(i + 1) == want { print $i; exit }' "$f")"
    [ -n "$mirror" ] && break
  done
fi
if [ -z "$mirror" ]; then
  echo "found no Debian source for '$codename' in /etc/apt: set VULKAN_SDK instead" >&2
  exit 1
fi
case "$keyring" in
  "" | - | *[!A-Za-z0-9/._+-]*) keyring=/usr/share/keyrings/debian-archive-keyring.gpg ;;
esac

work="$base/apt"
mkdir -p "$work/lists/partial" "$work/archives/partial" "$work/cache" "$work/debs"
echo "deb [signed-by=$keyring] $mirror $suite main" >"$work/sources.list"
apt_opts=(
  -o "Dir::Etc::SourceList=$work/sources.list"
  -o Dir::Etc::SourceParts=/dev/null
  -o Dir::Etc::Preferences=/dev/null
  -o Dir::Etc::PreferencesParts=/dev/null
  -o "Dir::State::Lists=$work/lists"
  -o "Dir::Cache=$work/cache"
  -o "Dir::Cache::Archives=$work/archives"
  -o Acquire::Languages=none
  -o Acquire::IndexTargets::deb::DEP-11::DefaultEnabled=false
  -o Acquire::IndexTargets::deb::DEP-11-icons::DefaultEnabled=false
  -o Acquire::IndexTargets::deb::DEP-11-icons-small::DefaultEnabled=false
  -o Acquire::IndexTargets::deb::DEP-11-icons-hidpi::DefaultEnabled=false
  -o Acquire::IndexTargets::deb::Contents-deb::DefaultEnabled=false
)
# As root apt would hand the download to the _apt user, which cannot write under $HOME.
[ "$(id -u)" = 0 ] && apt_opts+=(-o APT::Sandbox::User=root)

echo "fetching Vulkan headers: libvulkan-dev from Debian $suite ($mirror)" >&2
apt-get "${apt_opts[@]}" -qq update >&2
rm -f "$work/debs"/*.deb
(cd "$work/debs" && apt-get "${apt_opts[@]}" -qq download libvulkan-dev >&2)
deb="$(ls -1 "$work/debs"/libvulkan-dev_*.deb)"
version="$(dpkg-deb -f "$deb" Version)"
dest="$base/$version"
rm -rf "$dest.tmp"
dpkg-deb -x "$deb" "$dest.tmp"
# Headers and their CMake package only: the .deb's libvulkan.so symlink would point at a
# loader (libvulkan1 $version) that is not there.
rm -rf "$dest.tmp/usr/lib"
if ! has_layer_settings "$dest.tmp/usr"; then
  echo "libvulkan-dev $version from $suite lacks VK_EXT_layer_settings too" >&2
  exit 1
fi
rm -rf "$dest"
mv "$dest.tmp" "$dest"
echo "Vulkan headers $version in $dest/usr" >&2
echo "$dest/usr"
