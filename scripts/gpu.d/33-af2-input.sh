#!/usr/bin/env bash
# GPU part of af2 on a user's own AlphaFold target (issue 23): a target folder written by the tests' independent
# Python writer (gitm-workloads/src/test/resources/io/gitm/workloads/af2/af2_gen.py: uniref90 and MGnify Stockholm,
# BFD A3M, HHsearch .hhr, the query FASTA) of GITM_AF2_INPUT_RESIDUES (384) residues, then
# `gitm run --workload af2 --input T --max-msa 512` on the GPU with budget GITM_AF2_INPUT_BUDGET (100s) and a target
# past reach (1000%): the set-up (every file read, merged, written as .npy features), the baseline residues/s and the
# features checked by NumPy against the writer's own computation of AlphaFold's make_msa_features.
# Results in $GITM_PART_OUT (default $OUT/33-af2-input): write.txt, summary.txt, gitm-stdout.json, gitm.log,
# input.json, report.md, outcome.json, numpy-check.txt. GITM_AF2_INPUT_SETTINGS (e.g. blocks=12) is passed as
# -Dgitm.af2=... (the workload's settings over the device's preset).
set -uo pipefail
gitm_root=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
cd "$gitm_root" || exit 2
. scripts/gpu-env.sh
out=${GITM_PART_OUT:-${OUT:?OUT must be set}/33-af2-input}
mkdir -p "$out"
dir=${GITM_AF2_INPUT_DIR:-/tmp/gitm-af2-input}
rm -rf "$dir"
mkdir -p "$dir"
gen=gitm-workloads/src/test/resources/io/gitm/workloads/af2/af2_gen.py
res=${GITM_AF2_INPUT_RESIDUES:-384}
java=("$GITM_JAVA" "${GITM_JAVA_FLAGS[@]}" ${GITM_AF2_INPUT_SETTINGS:+"-Dgitm.af2=$GITM_AF2_INPUT_SETTINGS"} -cp "$GITM_CP")
{
  echo "date: $(date -u +%FT%TZ)  commit: $(cat .gpu/commit 2>/dev/null || git rev-parse --short HEAD 2>/dev/null)"
  echo "settings: ${GITM_AF2_INPUT_SETTINGS:-the preset of the device}"
  echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || echo none)"
  python3 "$gen" "$dir/T1000" --residues "$res" > "$dir/writer.txt" || echo "writing the target failed"
  grep -vE '^(sha256\.|query )' "$dir/writer.txt"
  du -sh "$dir/T1000"
} > "$out/write.txt" 2>&1
cat "$out/write.txt"
scratch="$dir/scratch"
t0=$(date +%s.%N)
"${java[@]}" io.gitm.cli.Main run --workload af2 --input "$dir/T1000" --max-msa 512 \
  --input-option "features=$dir/features" --budget "${GITM_AF2_INPUT_BUDGET:-100s}" --target 1000% \
  --device "${GITM_AF2_INPUT_DEVICE:-nvidia}" --scratch "$scratch" --json > "$out/gitm-stdout.json" 2> "$out/gitm.log"
rc=$?
echo "gitm exited $rc after $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s" | tee "$out/summary.txt"
run=$(ls -d "$scratch"/runs/*/ 2>/dev/null | head -n1)
for x in input.json report.md outcome.json; do
  [ -n "$run" ] && [ -f "$run/$x" ] && cp "$run/$x" "$out/"
done
grep -E "^(budget|set-up|profile|result)" "$out/gitm.log" | tee -a "$out/summary.txt"
tail -n 2 "$out/gitm.log" | grep -E "^gitm: " | tee -a "$out/summary.txt"
python3 "$gen" "$dir/again" --residues "$res" --check "$dir/features" > "$out/numpy-check.txt" 2>&1
echo "numpy check exited $? ($(cat "$out/numpy-check.txt"))" | tee -a "$out/summary.txt"
ls -l "$dir/features" >> "$out/summary.txt" 2>&1
exit "$rc"
