#!/usr/bin/env bash
# GPU part of kitti on a user's own KITTI data (issue 23): inputs written by the tests' independent Python writer
# (gitm-workloads/src/test/resources/io/gitm/workloads/kitti/kitti_gen.py: struct, zlib, hashlib), then
# `gitm run --workload kitti --input ...` on the GPU, one run per layout, each with a target past reach (1000%) so
# that the set-up (every file read, hashed, validated), the baseline frames/s and the score are measured:
#   folder: a labelled KITTI object folder (velodyne, calib, label_2, image_2) of GITM_KITTI_INPUT_FRAMES (16) frames
#           of GITM_KITTI_INPUT_POINTS (120000) points, budget GITM_KITTI_INPUT_BUDGET (75s): scored against label_2;
#   lone:   one of its scans copied alone (a lone .bin), budget 35s: unscored;
#   demo:   4 unlabelled frames whose calibration holds P2 alone, budget 35s: unscored.
# Results in $GITM_PART_OUT (default $OUT/32-kitti-input): write.txt, summary.txt, and per run <run>/ with
# gitm-stdout.json, gitm.log, input.json, score.json (folder), report.md, outcome.json.
set -uo pipefail
gitm_root=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
cd "$gitm_root" || exit 2
. scripts/gpu-env.sh
out=${GITM_PART_OUT:-${OUT:?OUT must be set}/32-kitti-input}
mkdir -p "$out"
dir=${GITM_KITTI_INPUT_DIR:-/tmp/gitm-kitti-input}
rm -rf "$dir"
mkdir -p "$dir/lone"
gen=gitm-workloads/src/test/resources/io/gitm/workloads/kitti/kitti_gen.py
frames=${GITM_KITTI_INPUT_FRAMES:-16}
points=${GITM_KITTI_INPUT_POINTS:-120000}
java=("$GITM_JAVA" "${GITM_JAVA_FLAGS[@]}" -cp "$GITM_CP")
{
  echo "date: $(date -u +%FT%TZ)  commit: $(cat .gpu/commit 2>/dev/null || git rev-parse --short HEAD 2>/dev/null)"
  echo "nproc: $(nproc)  gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || echo none)"
  echo "python: $(python3 --version 2>&1)"
  t0=$(date +%s.%N)
  python3 "$gen" "$dir/training" --frames "$frames" --points "$points" > "$dir/training.txt" || echo "writing the folder failed"
  python3 "$gen" "$dir/demo" --frames 4 --points "$points" --calib p2only --no-labels > "$dir/demo.txt" || echo "writing the demo failed"
  cp "$dir/training/velodyne/000001.bin" "$dir/lone/000001.bin"
  echo "written in $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"
  grep -vE '^sha256\.' "$dir/training.txt"
  du -sh "$dir/training" "$dir/demo" "$dir/lone"
} > "$out/write.txt" 2>&1
cat "$out/write.txt"
cp "$dir/training.txt" "$out/training-writer.txt" 2>/dev/null
rc=0
run_one() {  # name input budget
  local name=$1 input=$2 budget=$3 o="$out/$1" scratch="$dir/scratch-$1"
  mkdir -p "$o"
  local t0=$(date +%s.%N)
  "${java[@]}" io.gitm.cli.Main run --workload kitti --input "$input" --budget "$budget" --target 1000% \
    --device "${GITM_KITTI_INPUT_DEVICE:-nvidia}" --scratch "$scratch" --json > "$o/gitm-stdout.json" 2> "$o/gitm.log"
  local r=$?
  [ $r -eq 0 ] || rc=$r
  echo "$name: gitm exited $r after $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s" | tee -a "$out/summary.txt"
  local run=$(ls -d "$scratch"/runs/*/ 2>/dev/null | head -n1)
  for x in input.json score.json report.md outcome.json; do
    [ -n "$run" ] && [ -f "$run/$x" ] && cp "$run/$x" "$o/"
  done
  grep -E "^(budget|set-up|profile|result)" "$o/gitm.log" | sed "s/^/  /" | tee -a "$out/summary.txt"
  tail -n 2 "$o/gitm.log" | grep -E "^gitm: " | sed "s/^/  /" | tee -a "$out/summary.txt"
}
: > "$out/summary.txt"
run_one folder "$dir/training" "${GITM_KITTI_INPUT_BUDGET:-75s}"
run_one lone "$dir/lone/000001.bin" 35s
run_one demo "$dir/demo" 35s
exit "$rc"
