#!/usr/bin/env bash
# Install Debian's headless-capable Chromium for tests/pages/test_browser.py, only when missing.
#
# Idempotent and quiet: does nothing when /usr/bin/chromium already exists; otherwise
# (as root, or through sudo when available) runs apt-get update and installs the
# `chromium` package. Playwright drives that binary through executable_path; no
# browser is ever downloaded by Playwright itself.
set -euo pipefail

if command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ]; then
    exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
    SUDO=()
elif command -v sudo >/dev/null 2>&1; then
    SUDO=(sudo -n)
else
    echo "install-browser.sh: chromium is missing and this user cannot install it (not root, no sudo)" >&2
    exit 1
fi

export DEBIAN_FRONTEND=noninteractive
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
if ! { "${SUDO[@]}" apt-get update -qq && "${SUDO[@]}" apt-get install -y -qq chromium; } >"$log" 2>&1; then
    cat "$log" >&2
    echo "install-browser.sh: could not install chromium" >&2
    exit 1
fi
command -v chromium >/dev/null 2>&1
