#!/usr/bin/env bash
# GPU part: gitm's final hft-lob setup against the hand-tuned yardstick (docs/hft-lob.md: pinned + async copies +
# preallocation + graph capture + two streams + the warp book kernel), gated on the same device in one session with
# `gitm levers --measure` (interleaved A/B blocks, the run's gate): (1) each setup against the shipped one, (2) the
# yardstick against gitm's final setup. gitm's final setup is the last KEPT trial (the confirmation gate) of the
# newest run's report.json under $GITM_SCRATCH/runs (part 40's), or the levers in $YARD_GITM ("id+id+..."), or those of
# the report.json named by $YARD_REPORT. Results in $GITM_PART_OUT: one log and one JSON per gate set.
set -uo pipefail
gitm_root=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
cd "$gitm_root"
. scripts/gpu-env.sh
out=${GITM_PART_OUT:-${OUT:?OUT must be set}/45-yardstick}
mkdir -p "$out"
export GITM_SCRATCH="${GITM_SCRATCH:-$OUT/40-gitm-cli/scratch}"
gitm() { "$GITM_JAVA" "${GITM_JAVA_FLAGS[@]}" -Xmx16g -cp "$GITM_CP" io.gitm.cli.Main "$@"; }
yardstick=${YARD_SETUP:-pinned-host-memory+async-copies+preallocate+graph-capture+streams-2+kernel-variant:lob_book=warp}
final=${YARD_GITM:-}
if [ -z "$final" ]; then
  report=${YARD_REPORT:-$(ls -t "$GITM_SCRATCH"/runs/*/report.json 2>/dev/null | head -n1)}
  [ -n "$report" ] || { echo "yardstick: no report.json under $GITM_SCRATCH/runs and no YARD_GITM" | tee "$out/status"; exit 2; }
  final=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
kept = [t for t in d["trials"] if t["verdict"] == "KEPT"]
print("+".join(max(kept, key=lambda t: t["index"])["levers"]) if kept else "")' "$report")
  echo "gitm's final setup, from $report: ${final:-none kept}" | tee "$out/final-setup.txt"
fi
[ -n "$final" ] || { echo "yardstick: the run kept nothing" | tee "$out/status"; exit 3; }
rc=0
args=(--workload hft-lob --device "${YARD_DEVICE:-nvidia}" --measure --block-iterations "${YARD_BLOCK_ITERATIONS:-40}"
  --gate-pairs "${YARD_PAIRS:-12}")
echo "== against the shipped setup: gitm's final ($final) and the yardstick ($yardstick)" | tee "$out/vs-shipped.log"
gitm levers "${args[@]}" --setup "$final" --setup "$yardstick" >> "$out/vs-shipped.log" 2>&1 || rc=1
cat "$out/vs-shipped.log"
echo "== the yardstick against gitm's final setup" | tee "$out/yardstick-vs-gitm.log"
gitm levers "${args[@]}" --base "$final" --setup "$yardstick" >> "$out/yardstick-vs-gitm.log" 2>&1 || rc=1
cat "$out/yardstick-vs-gitm.log"
echo "== each lever on top of gitm's final setup" | tee "$out/on-top.log"
gitm levers "${args[@]}" --base "$final" >> "$out/on-top.log" 2>&1 || rc=1
cat "$out/on-top.log"
rm -rf "$GITM_SCRATCH/datasets"
[ "$rc" = 0 ] && echo ok > "$out/status" || echo "a gate set failed (see the logs)" > "$out/status"
exit "$rc"
