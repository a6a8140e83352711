#!/usr/bin/env bash
# GPU part of the af2 and kitti workloads (docs/af2.md, docs/kitti.md; run on the GPU machine by scripts/gpu-suite.sh,
# or alone with $OUT set): for each workload of GITM_WL (default "af2 kitti"), its bench on the real device (shipped
# and tuned configurations through ExecutionConfig alone: throughput, latency or peak memory, output equality,
# per-kernel times against roofline floors), then `gitm run --workload W --device nvidia` as a user runs it, its reports
# copied. Needs the tests in .gpu/ (the benches live in gitm-workloads' test classes): prepare with
# scripts/gpu-prep.sh (not GITM_PREP_TESTS=0). Results in $GITM_PART_OUT/<workload> (default $OUT/80-workloads).
# Optional: WL_RUNS (timed runs per configuration, the bench's default), WL_BUDGET_S (seconds of a bench before
# configurations are skipped, 150), WL_SETTINGS_<w> (the bench's --settings and gitm run's -Dgitm.<w>, e.g.
# WL_SETTINGS_af2=nRes=256,blocks=8),
# GITM_WL_BUDGET (gitm run's budget, 2m; empty skips the runs; GITM_WL_BUDGET_<w> for one workload), WL_DEVICE (nvidia; sim for a smoke test without a GPU).
set -uo pipefail
gitm_root=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
cd "$gitm_root" || exit 2
. scripts/gpu-env.sh
base=${GITM_PART_OUT:-${OUT:?OUT must be set}/80-workloads}
rc=0
for w in ${GITM_WL:-af2 kitti}; do
  case $w in
    af2) bench=io.gitm.workloads.af2.Af2Bench domain=biotech ;;
    kitti) bench=io.gitm.workloads.kitti.KittiBench domain=edge ;;
    *) echo "unknown workload $w (known: af2 kitti)"; rc=1; continue ;;
  esac
  out="$base/$w"
  mkdir -p "$out"
  export GITM_SCRATCH="$out/scratch"
  args=(--device "${WL_DEVICE:-nvidia}" --out "$out" --data "${TMPDIR:-/tmp}/gitm-datasets/$domain" --budget-s "${WL_BUDGET_S:-150}")
  [ -n "${WL_RUNS:-}" ] && args+=(--runs "$WL_RUNS")
  sv="WL_SETTINGS_$w"
  [ -n "${!sv:-}" ] && args+=(--settings "${!sv}")
  echo "== $bench ${args[*]}" | tee "$out/bench.log"
  timeout --kill-after=10 $(( ${WL_BUDGET_S:-150} + 60 )) "$GITM_JAVA" "${GITM_JAVA_FLAGS[@]}" -Xmx16g -cp "$GITM_CP" \
    "$bench" "${args[@]}" >> "$out/bench.log" 2>&1 || rc=1
  tail -n 30 "$out/bench.log"
  bv="GITM_WL_BUDGET_$w"
  if [ -n "${!bv+set}" ]; then budget=${!bv}; else budget=${GITM_WL_BUDGET-2m}; fi
  if [ -n "$budget" ]; then
    echo "== ${!sv:+GITM_JAVA_OPTS=-Dgitm.$w=${!sv} }gitm run --workload $w --budget $budget --target 15% --device ${WL_DEVICE:-nvidia}" | tee "$out/run.log"
    secs=$budget
    case $secs in *m) secs=$(( ${secs%m} * 60 )) ;; *s) secs=${secs%s} ;; esac
    # SIGINT a minute after the budget: gitm cuts the trial in progress and writes the report of what was done
    props=()
    [ -n "${!sv:-}" ] && props+=("-Dgitm.$w=${!sv}")
    timeout -s INT --kill-after=30 $(( secs + 60 )) "$GITM_JAVA" "${GITM_JAVA_FLAGS[@]}" -Xmx16g "${props[@]}" \
      -cp "$GITM_CP" io.gitm.cli.Main run --workload "$w" --budget "$budget" --target 15% --device "${WL_DEVICE:-nvidia}" >> "$out/run.log" 2>&1 \
      || rc=1
    tail -n 30 "$out/run.log"
    run_dir=$(ls -d "$GITM_SCRATCH"/runs/*/ 2>/dev/null | head -n1)
    if [ -n "$run_dir" ]; then
      cp "$run_dir"/report.md "$run_dir"/report.html "$run_dir"/report.json "$run_dir"/outcome.json \
        "$run_dir"/journal.jsonl "$run_dir"/run.json "$out/" 2>/dev/null
    fi
    rm -rf "$GITM_SCRATCH/datasets"
  fi
done
exit "$rc"
