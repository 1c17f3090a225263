#!/usr/bin/env bash
# Installs Debian's Firefox ESR and WebKitGTK's WebDriver (with its MiniBrowser) and Xvfb,
# for the browser test layer's other two engines (internal/testing/browsertest), and prints their
# versions. Idempotent: installs only what is missing. No test tool downloads its own browser.
set -euo pipefail
here="$(dirname "$0")"
bash "$here/install-debian.sh" firefox-esr webkit2gtk-driver xvfb
firefox-esr --version
echo "WebKitGTK $(dpkg-query -W -f='${Version}' webkit2gtk-driver)"
