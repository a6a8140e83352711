#!/usr/bin/env bash
# GPU part: the same job with and without a neighbour on the GPU. `gitm run --workload hft-lob` alone, then again
# while a plain PyTorch job (cupti_torch_workload.py --mode mixed: GEMMs and elementwise kernels, another process)
# shares the device; `gitm analyze` of the second run (its state samples carry the other process; the neighbour
# condition) and `gitm analyze --baseline` of the second against the first (what the neighbour added).
# GITM_NB_BUDGET: each run's budget (default 1m). Results in $GITM_PART_OUT: one log per command, both run folders'
# reports and traces.
set -uo pipefail
gitm_root=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
cd "$gitm_root"
. scripts/gpu-env.sh
out=${GITM_PART_OUT:-${OUT:?OUT must be set}/90-neighbour}
mkdir -p "$out"
gitm() { "$GITM_JAVA" "${GITM_JAVA_FLAGS[@]}" -cp "$GITM_CP" io.gitm.cli.Main "$@"; }
rc=0
step() { # step NAME CMD...: runs a gitm command, logs it and its exit status
  local name=$1; shift
  echo "== gitm $*" | tee "$out/$name.log"
  local t0=$(date +%s%N)
  gitm "$@" >> "$out/$name.log" 2>&1
  local r=$?
  echo "exit $r in $(( ($(date +%s%N) - t0) / 1000000 )) ms" | tee -a "$out/$name.log"
  cat "$out/$name.log"
  [ "$r" -eq 0 ] || rc=1
  return $r
}
budget=${GITM_NB_BUDGET:-1m}
GITM_SCRATCH="$out/quiet" step run-quiet run --workload hft-lob --budget "$budget" --target 15% --device nvidia
quiet=$(ls -d "$out"/quiet/runs/*/ 2>/dev/null | head -n1)
echo "== neighbour: python3 cupti_torch_workload.py --mode mixed (another process on the GPU)" | tee "$out/neighbour.log"
python3 scripts/gpu.d/cupti_torch_workload.py --mode mixed --seconds 150 >> "$out/neighbour.log" 2>&1 &
nb=$!
for _ in $(seq 1 60); do # until the neighbour holds a context on the GPU (at most 30 s)
  nvidia-smi --query-compute-apps=pid --format=csv,noheader 2>/dev/null | grep -q . && break
  sleep 0.5
done
nvidia-smi --query-compute-apps=pid,used_memory --format=csv >> "$out/neighbour.log" 2>&1
GITM_SCRATCH="$out/shared" step run-neighbour run --workload hft-lob --budget "$budget" --target 15% --device nvidia
kill "$nb" 2>/dev/null; wait "$nb" 2>/dev/null
shared=$(ls -d "$out"/shared/runs/*/ 2>/dev/null | head -n1)
for d in "$quiet" "$shared"; do
  [ -n "$d" ] || continue
  n=$(basename "$(dirname "$(dirname "$d")")")
  mkdir -p "$out/$n-run"
  cp "$d"/report.md "$d"/report.json "$d"/baseline.json "$d"/trace.gtrace "$out/$n-run/" 2>/dev/null
done
if [ -n "$quiet" ] && [ -n "$shared" ]; then
  step analyze-quiet analyze "$quiet"
  step analyze-neighbour analyze "$shared"
  step analyze-neighbour-json analyze "$shared" --json
  step analyze-baseline analyze "$shared" --baseline "$quiet"
  step analyze-baseline-json analyze "$shared" --baseline "$quiet" --json
else
  echo "a run folder is missing (quiet: ${quiet:-none}, with neighbour: ${shared:-none})"; rc=1
fi
rm -rf "$out"/quiet "$out"/shared  # the run stores (datasets, scratch) need not come back; the copies above do
exit $rc
