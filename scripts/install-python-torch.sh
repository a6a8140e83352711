#!/usr/bin/env bash
# Installs Debian's PyTorch (CPU) and NumPy for /usr/bin/python3, for the tests of gitm's Python hook
# (gitm-levers: TorchHookPythonTest and the process-job tests that run a real PyTorch program).
# Idempotent: does nothing when /usr/bin/python3 imports torch and numpy. Needs root (or passwordless sudo) and
# apt-get; otherwise it says what is missing on one line and exits 1.
set -euo pipefail
py=/usr/bin/python3
if [[ -x $py ]] && "$py" -c 'import torch, numpy' >/dev/null 2>&1; then
  exit 0
fi
. "$(dirname "$(readlink -f "$0")")/apt-install.sh"
apt_install install-python-torch.sh python3-torch python3-numpy
if ! "$py" -c 'import torch, numpy' >/dev/null 2>&1; then
  echo "install-python-torch.sh: apt-get installed python3-torch but $py cannot import torch" >&2
  exit 1
fi
