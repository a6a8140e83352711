#!/usr/bin/env bash
# Measures how far past its wall-clock budget `gitm run` goes: runs hft-lob with a target it cannot reach, over levers
# of little effect and with long gates (so the agent is still searching at the deadline), for each budget given, and prints budget, elapsed and overrun from each run's
# outcome.json. Usage: scripts/budget-overrun.sh [--device sim|nvidia] BUDGET...
set -euo pipefail
root=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
device=sim
if [ "${1:-}" = "--device" ]; then device=$2; shift 2; fi
[ $# -gt 0 ] || set -- 30s 1m 2m
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
printf '| budget | elapsed s (run) | overrun s (run) | overrun %% | whole command s (JVM start to exit) | status |\n|---|---:|---:|---:|---:|---|\n'
for b in "$@"; do
  t0=$(date +%s%N)
  "${GITM:-$root/gitm}" run --workload hft-lob --budget "$b" --target 99% --device "$device" --scratch "$scratch" \
    --levers stream-priority,l2-persist-window,shared-carveout-max-l1,sched-yield,sched-blocking-sync,cpu-affinity,warmup,occupancy-block-size \
    --gate-pairs 40 --json > "$scratch/out.json" 2> "$scratch/err.txt" || true
  t1=$(date +%s%N)
  python3 - "$scratch/out.json" "$b" "$(( (t1 - t0) / 1000000 ))" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
budget = d["elapsedSeconds"] - d["overrunSeconds"]
print("| %s | %.2f | %+.2f | %+.2f%% | %.2f | %s |" % (sys.argv[2], d["elapsedSeconds"], d["overrunSeconds"],
      100 * d["overrunSeconds"] / budget, int(sys.argv[3]) / 1000, d["status"]))
PY
done
