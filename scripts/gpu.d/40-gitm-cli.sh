#!/usr/bin/env bash
# GPU part of the gitm CLI, as a user runs it on the GPU machine: `gitm doctor`, `gitm calibrate --quick`,
# `gitm run --workload hft-lob` on the real device (all five phases: the worked example's reports), `gitm analyze` of
# its trace, `gitm trace info` and
# `gitm trace export --perfetto` of that run's trace, and a real PyTorch profiler (Kineto) trace recorded there and
# imported with `gitm trace import`. Results in $GITM_PART_OUT: one log per command, the run folder, the traces.
# GITM_RUN1=0 skips the first run (and what analyzes it), GITM_KINETO=0 the Kineto trace, GITM_NCU=0 the ncu
# profile; GITM_RUN2_TARGET adds a second run with that target (GITM_RUN2_BUDGET, default 4m), GITM_RUN3_ARGS a third
# run with those arguments.
set -uo pipefail
gitm_root=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
cd "$gitm_root"
. scripts/gpu-env.sh
out=${GITM_PART_OUT:-${OUT:?OUT must be set}/40-gitm-cli}
mkdir -p "$out"
export GITM_SCRATCH="$out/scratch"
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
step doctor doctor
step doctor-json doctor --json
step calibrate calibrate --quick -o "$out/calibration-quick.json"
run_dir=""
if [ "${GITM_RUN1:-1}" = 1 ]; then
  step run run --workload hft-lob --budget "${GITM_RUN_BUDGET:-4m}" --target 15% --device nvidia
  run_dir=$(ls -d "$GITM_SCRATCH"/runs/*/ 2>/dev/null | head -n1)
fi
if [ -n "$run_dir" ]; then
  cp "$run_dir"/report.md "$run_dir"/report.html "$run_dir"/report.json "$run_dir"/outcome.json "$run_dir"/baseline.json \
    "$run_dir"/run.json "$run_dir"/journal.jsonl "$out/" 2>/dev/null
  step analyze analyze "$run_dir"
  step analyze-json analyze "$run_dir" --json
  step trace-info trace info "$run_dir/trace.gtrace" --top 12
  step trace-export trace export --perfetto "$run_dir/trace.gtrace" -o "$out/hft-lob-h200.perfetto.json"
  cp "$run_dir/trace.gtrace" "$out/hft-lob-h200.gtrace"
  if command -v ncu >/dev/null 2>&1 && [ "${GITM_NCU:-1}" = 1 ]; then
    # DRAM bytes of the first hft-lob kernels of the shipped setup (the gate's first blocks), by Nsight Compute with
    # the clocks left alone; then the run's trace analyzed with them, so the memory-traffic invariant is judged
    echo "== ncu: DRAM bytes of the shipped setup's first ${GITM_NCU_KERNELS:-80} lob_ kernels" | tee "$out/ncu.log"
    t0=$(date +%s%N)
    timeout 240 ncu --clock-control none --print-units base --csv -k regex:^lob_ -c "${GITM_NCU_KERNELS:-80}" \
      --metrics dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum --log-file "$out/ncu.csv" \
      "$GITM_JAVA" "${GITM_JAVA_FLAGS[@]}" -cp "$GITM_CP" io.gitm.cli.Main levers --workload hft-lob --device nvidia \
      --measure --levers preallocate --block-iterations 8 --gate-pairs 6 >> "$out/ncu.log" 2>&1
    echo "ncu exit $? in $(( ($(date +%s%N) - t0) / 1000000 )) ms" | tee -a "$out/ncu.log"
    [ -s "$out/ncu.csv" ] && step analyze-ncu analyze "$run_dir" --ncu "$out/ncu.csv"
  fi
fi
if [ -n "${GITM_RUN2_TARGET:-}" ]; then
  # a second run that chases the hand-tuned yardstick: a target the first levers do not reach keeps the agent going
  step run2 run --workload hft-lob --budget "${GITM_RUN2_BUDGET:-4m}" --target "$GITM_RUN2_TARGET" --device nvidia
  run2=$(ls -d "$GITM_SCRATCH"/runs/*/ 2>/dev/null | grep -v "${run_dir:-^$}" | head -n1)
  if [ -n "$run2" ]; then
    mkdir -p "$out/run2"
    cp "$run2"/report.md "$run2"/report.html "$run2"/report.json "$run2"/outcome.json "$run2"/journal.jsonl \
      "$run2"/run.json "$out/run2/" 2>/dev/null
  fi
fi
if [ -n "${GITM_RUN3_ARGS:-}" ]; then
  # a third run with these arguments (e.g. a short budget and an unreachable target, to time the overrun at the
  # deadline: the step's "exit ... in N ms" is the whole process, start to exit)
  # shellcheck disable=SC2086
  step run3 run --workload hft-lob --device nvidia $GITM_RUN3_ARGS
fi
if [ "${GITM_KINETO:-1}" != 1 ]; then
  echo "== Kineto: skipped (GITM_KINETO=${GITM_KINETO})"
elif echo "== Kineto: record a real PyTorch profiler trace and import it"; timeout 180 python3 gitm-trace/src/test/resources/tracer/record-kineto-trace.py "$out/kineto" > "$out/kineto-record.log" 2>&1; then
  k=$(ls "$out"/kineto/*.json 2>/dev/null | head -n1)
  step kineto-import trace import "$k" -o "$out/kineto-real.gtrace"
  step kineto-info trace info "$out/kineto-real.gtrace" --top 8
  step kineto-analyze analyze "$k"
else
  echo "recording the Kineto trace failed:"; tail -n 20 "$out/kineto-record.log"; rc=1
fi
rm -rf "$GITM_SCRATCH/datasets"  # the generated input (64 MB) need not come back
exit $rc
