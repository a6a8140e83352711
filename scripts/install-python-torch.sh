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
if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-python-torch.sh: no apt-get on this machine; install PyTorch and NumPy for $py" >&2
  exit 1
fi
if [[ $(id -u) -eq 0 ]]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  sudo=(sudo -n)
else
  echo "install-python-torch.sh: installing needs root: run 'apt-get update && apt-get install -y python3-torch python3-numpy' as root" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
if ! "${sudo[@]}" apt-get update -q >/dev/null \
    || ! "${sudo[@]}" apt-get install -y -q --no-install-recommends python3-torch python3-numpy >/dev/null; then
  echo "install-python-torch.sh: 'apt-get install python3-torch python3-numpy' failed (see the messages above)" >&2
  exit 1
fi
if ! "$py" -c 'import torch, numpy' >/dev/null 2>&1; then
  echo "install-python-torch.sh: apt-get installed python3-torch but $py cannot import torch" >&2
  exit 1
fi
