#!/usr/bin/env bash
# Runs the README's test command (./run-tests, what .ci/run runs) on a busy machine: beside N processes that each
# burn a CPU core (default 2), or, with --one-core, pinned to CPU 0 with taskset. Prints the load average before,
# while and after, and the result. Extra arguments go to ./run-tests (e.g. -pl gitm-cli -am -Dtest=RunEndToEndTest
# -Dsurefire.failIfNoSpecifiedTests=false). The burners are ended when the script exits, however it exits.
# Usage: scripts/load-test.sh [--burners N | --one-core] [RUN-TESTS-ARGUMENTS...]
set -euo pipefail
root=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
burners=2
one_core=false
while [ $# -gt 0 ]; do
  case "$1" in
    --burners)
      [ $# -ge 2 ] && [[ "$2" =~ ^[0-9]+$ ]] || { echo "load-test: --burners needs a count (0 or more)" >&2; exit 2; }
      burners=$2; shift 2 ;;
    --one-core) one_core=true; burners=0; shift ;;
    -h|--help) sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) break ;;
  esac
done
if $one_core && ! command -v taskset >/dev/null 2>&1; then
  echo "load-test: --one-core needs taskset (util-linux)" >&2
  exit 2
fi

pids=()
stop_burners() {
  local p
  for p in "${pids[@]}"; do
    kill "$p" 2>/dev/null || true
  done
  for p in "${pids[@]}"; do
    wait "$p" 2>/dev/null || true
  done
  pids=()
}
trap stop_burners EXIT
trap 'stop_burners; exit 130' INT
trap 'stop_burners; exit 143' TERM

load() {
  cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime
}

echo "load-test: load average before: $(load); $(nproc) CPUs"
for ((i = 0; i < burners; i++)); do
  sh -c 'while :; do :; done' &
  pids+=("$!")
done
if $one_core; then
  echo "load-test: running ./run-tests $* pinned to CPU 0 (taskset -c 0)"
  cmd=(taskset -c 0 "$root/run-tests" "$@")
else
  echo "load-test: running ./run-tests $* beside $burners CPU burners"
  cmd=("$root/run-tests" "$@")
fi
# the load average a minute in, while the suite runs
( sleep 60; echo "load-test: load average a minute in: $(load)" ) &
watcher=$!
t0=$(date +%s)
set +e
"${cmd[@]}"
rc=$?
set -e
kill "$watcher" 2>/dev/null || true
wait "$watcher" 2>/dev/null || true
t1=$(date +%s)
echo "load-test: load average at the end: $(load)"
stop_burners
if [ "$rc" -eq 0 ]; then
  echo "load-test: PASSED in $((t1 - t0)) s ($( $one_core && echo 'one core' || echo "$burners burners"))"
else
  echo "load-test: FAILED (exit $rc) after $((t1 - t0)) s ($( $one_core && echo 'one core' || echo "$burners burners"))"
fi
exit "$rc"
