#!/usr/bin/env bash
# Installs Debian's headless-capable Chromium for the report's browser test (ReportInBrowserTest, tag "browser").
# Idempotent: does nothing when /usr/bin/chromium exists. Needs root (or passwordless sudo) and apt-get; otherwise
# it says what is missing on one line and exits 1.
set -euo pipefail
if [[ -x /usr/bin/chromium ]]; then
  exit 0
fi
. "$(dirname "$(readlink -f "$0")")/apt-install.sh"
apt_install install-chromium.sh chromium
if [[ ! -x /usr/bin/chromium ]]; then
  echo "install-chromium.sh: apt-get installed chromium but /usr/bin/chromium is missing" >&2
  exit 1
fi
