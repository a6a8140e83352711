#!/usr/bin/env bash
# GPU part of hft-lob on a user's own ITCH file (issue 23): a generated session written as Nasdaq ships one (2-byte
# length prefixes) of GITM_HFT_INPUT_MESSAGES (60000000: about 2 GB) book messages over 4096 instruments, then
# `gitm run --workload hft-lob --input FILE` on the GPU with budget GITM_HFT_INPUT_BUDGET (2m) and a target past
# reach (1000%), so that its set-up (the file's scan: hash, framing, validation, book sizes) and its baseline
# messages/s are measured, with the input streamed from disk (it is above what is held in memory). Results in
# $GITM_PART_OUT (default $OUT/31-hft-input): write.txt, gitm-stdout.json, gitm.log, input.json, report.md,
# summary.txt. GITM_HFT_INPUT_DIR (/tmp/gitm-hft-input) holds the file; it is kept between calls when its size
# matches. GITM_HFT_INPUT_GZIP=1 gives gitm the file gzipped (gzip -1, as an exchange's daily file is shipped): read
# and decompressed as a stream, never whole.
set -uo pipefail
gitm_root=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
cd "$gitm_root" || exit 2
. scripts/gpu-env.sh
out=${GITM_PART_OUT:-${OUT:?OUT must be set}/31-hft-input}
mkdir -p "$out"
dir=${GITM_HFT_INPUT_DIR:-/tmp/gitm-hft-input}
mkdir -p "$dir"
n=${GITM_HFT_INPUT_MESSAGES:-60000000}
f="$dir/generated-$n.itch"
java=("$GITM_JAVA" "${GITM_JAVA_FLAGS[@]}" -cp "$GITM_CP")
{
  echo "date: $(date -u +%FT%TZ)  commit: $(cat .gpu/commit 2>/dev/null || git rev-parse --short HEAD 2>/dev/null)"
  echo "nproc: $(nproc)  gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || echo none)"
  if [ ! -f "$f" ]; then
    t0=$(date +%s.%N)
    "${java[@]}" io.gitm.workloads.hft.ItchSamples "$f" "$n" 4096 || { echo "writing $f failed"; exit 1; }
    echo "written in $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"
  fi
  if [ "${GITM_HFT_INPUT_GZIP:-0}" = 1 ] && [ -f "$f" ] && [ ! -f "$f.gz" ]; then
    t0=$(date +%s.%N)
    gzip -1 -c "$f" > "$f.gz.tmp" && mv "$f.gz.tmp" "$f.gz" || echo "gzip of $f failed"
    echo "gzipped in $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"
  fi
  ls -l "$f" "$f.gz" 2>/dev/null
} > "$out/write.txt" 2>&1
cat "$out/write.txt"
[ -f "$f" ] || exit 1
input=$f
if [ "${GITM_HFT_INPUT_GZIP:-0}" = 1 ]; then
  input=$f.gz
  [ -f "$input" ] || exit 1
fi
scratch="$dir/scratch"
rm -rf "$scratch"
t0=$(date +%s.%N)
"${java[@]}" io.gitm.cli.Main run --workload hft-lob --input "$input" --budget "${GITM_HFT_INPUT_BUDGET:-2m}" \
  --target 1000% --device "${GITM_HFT_INPUT_DEVICE:-nvidia}" --scratch "$scratch" --json > "$out/gitm-stdout.json" 2> "$out/gitm.log"
rc=$?
echo "gitm exited $rc after $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s" | tee "$out/summary.txt"
run=$(ls -d "$scratch"/runs/*/ 2>/dev/null | head -n1)
for x in input.json report.md report.json outcome.json; do
  [ -n "$run" ] && [ -f "$run/$x" ] && cp "$run/$x" "$out/"
done
grep -E "^(budget|set-up|baseline|result|phase profile)" "$out/gitm.log" | tee -a "$out/summary.txt"
exit "$rc"
