#!/usr/bin/env bash
# Installs Debian's chromium for the browser test layer (internal/testing/browsertest) and prints its
# version. Idempotent: does nothing but print the version when chromium is already on PATH.
# The browser tests use /usr/bin/chromium (or $CHROMIUM); no test tool downloads its own.
set -euo pipefail

if ! command -v chromium >/dev/null 2>&1; then
  sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
      sudo=(sudo)
    else
      echo "install-chromium: not root and no sudo; install the Debian package 'chromium' by hand" >&2
      exit 1
    fi
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update
  "${sudo[@]}" apt-get install -y --no-install-recommends chromium
fi

chromium --version
