# Sourced by the install-*.sh scripts: apt_install SCRIPT PACKAGE... installs Debian packages as root (or through
# passwordless sudo), or says on one line what is missing and exits 1.
apt_install() {
  local script=$1
  shift
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "$script: no apt-get on this machine; install $* yourself" >&2
    exit 1
  fi
  local sudo=()
  if [[ $(id -u) -ne 0 ]]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
      sudo=(sudo -n)
    else
      echo "$script: installing needs root: run 'apt-get update && apt-get install -y $*' as root" >&2
      exit 1
    fi
  fi
  export DEBIAN_FRONTEND=noninteractive
  if ! "${sudo[@]}" apt-get update -q >/dev/null \
      || ! "${sudo[@]}" apt-get install -y -q --no-install-recommends "$@" >/dev/null; then
    echo "$script: 'apt-get install $*' failed (see the messages above)" >&2
    exit 1
  fi
}
