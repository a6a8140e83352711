#!/usr/bin/env bash
# GPU part of af2 (docs/af2.md; run on the GPU machine by scripts/gpu-suite.sh, or alone with $OUT set): Af2Bench on
# the real device (shipped and tuned configurations through ExecutionConfig alone: residues/s, peak device memory,
# output equality, per-kernel times against roofline floors), then `gitm run --workload af2 --device nvidia` as a
# user runs it, its reports copied. Needs the tests in .gpu/ (Af2Bench lives in gitm-workloads' test classes): prepare
# with scripts/gpu-prep.sh (not GITM_PREP_TESTS=0). Results in $GITM_PART_OUT (default $OUT/80-af2).
# Optional: AF2_RUNS (timed runs per configuration, 3), AF2_BUDGET_S (seconds before configurations are skipped,
# 200), AF2_SETTINGS (Af2Bench --settings, e.g. nRes=256,blocks=8), GITM_AF2_BUDGET (gitm run's budget, 3m; empty
# skips the run).
set -uo pipefail
gitm_root=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
cd "$gitm_root" || exit 2
. scripts/gpu-env.sh
out=${GITM_PART_OUT:-${OUT:?OUT must be set}/80-af2}
mkdir -p "$out"
export GITM_SCRATCH="$out/scratch"
rc=0
settings=()
[ -n "${AF2_SETTINGS:-}" ] && settings=(--settings "$AF2_SETTINGS")
echo "== Af2Bench --device nvidia" | tee "$out/bench.log"
timeout --kill-after=10 $(( ${AF2_BUDGET_S:-200} + 60 )) "$GITM_JAVA" "${GITM_JAVA_FLAGS[@]}" -Xmx16g -cp "$GITM_CP" \
  io.gitm.workloads.af2.Af2Bench --device nvidia --out "$out" --data "${TMPDIR:-/tmp}/gitm-datasets/biotech" \
  --runs "${AF2_RUNS:-3}" --budget-s "${AF2_BUDGET_S:-200}" "${settings[@]}" >> "$out/bench.log" 2>&1 || rc=1
tail -n 40 "$out/bench.log"
if [ -n "${GITM_AF2_BUDGET-3m}" ]; then
  echo "== gitm run --workload af2 --budget ${GITM_AF2_BUDGET:-3m} --target 15% --device nvidia" | tee "$out/run.log"
  secs=${GITM_AF2_BUDGET:-3m}
  case $secs in *m) secs=$(( ${secs%m} * 60 )) ;; *s) secs=${secs%s} ;; esac
  # SIGINT a minute after the budget: gitm cuts the trial in progress and writes the report of what was done
  timeout -s INT --kill-after=30 $(( secs + 60 )) \
    "$GITM_JAVA" "${GITM_JAVA_FLAGS[@]}" -Xmx16g -cp "$GITM_CP" io.gitm.cli.Main run --workload af2 \
    --budget "${GITM_AF2_BUDGET:-3m}" --target 15% --device nvidia >> "$out/run.log" 2>&1 || rc=1
  tail -n 30 "$out/run.log"
  run_dir=$(ls -d "$GITM_SCRATCH"/runs/*/ 2>/dev/null | head -n1)
  if [ -n "$run_dir" ]; then
    cp "$run_dir"/report.md "$run_dir"/report.html "$run_dir"/report.json "$run_dir"/outcome.json \
      "$run_dir"/journal.jsonl "$run_dir"/run.json "$out/" 2>/dev/null
  fi
  rm -rf "$GITM_SCRATCH/datasets"
fi
exit "$rc"
