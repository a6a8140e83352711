#!/usr/bin/env bash
# Installs Debian's headless-capable Chromium for the report's browser test (ReportInBrowserTest, tag "browser").
# Idempotent: does nothing when /usr/bin/chromium exists. Needs root (or passwordless sudo) and apt-get; otherwise
# it says what is missing on one line and exits 1.
set -euo pipefail
if [[ -x /usr/bin/chromium ]]; then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-chromium.sh: no apt-get on this machine; install Chromium so that /usr/bin/chromium exists" >&2
  exit 1
fi
if [[ $(id -u) -eq 0 ]]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  sudo=(sudo -n)
else
  echo "install-chromium.sh: installing Chromium needs root: run 'apt-get update && apt-get install -y chromium' as root" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
if ! "${sudo[@]}" apt-get update -q >/dev/null || ! "${sudo[@]}" apt-get install -y -q --no-install-recommends chromium >/dev/null; then
  echo "install-chromium.sh: 'apt-get install chromium' failed (see the messages above)" >&2
  exit 1
fi
if [[ ! -x /usr/bin/chromium ]]; then
  echo "install-chromium.sh: apt-get installed chromium but /usr/bin/chromium is missing" >&2
  exit 1
fi
