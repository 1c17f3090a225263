#!/usr/bin/env bash
# Installs Debian packages the tests or `make wasm` need (e.g. brotli, for the module's
# size), as root or through sudo. Idempotent.
set -euo pipefail
missing=()
for pkg in "$@"; do dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg"); done
[ ${#missing[@]} -eq 0 ] && exit 0
sudo=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 || { echo "install-debian: not root and no sudo; install ${missing[*]} by hand" >&2; exit 1; }
  sudo=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
