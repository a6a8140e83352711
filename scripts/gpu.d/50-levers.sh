#!/usr/bin/env bash
# GPU part of the intervention library: every lever that applies to hft-lob, gated alone against the shipped setup
# on the real device (`gitm levers --measure`: interleaved A/B blocks, bootstrap CI, Mann-Whitney, output digest),
# and the budget overrun of short runs. Results in $GITM_PART_OUT.
set -uo pipefail
gitm_root=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
cd "$gitm_root"
. scripts/gpu-env.sh
out=${GITM_PART_OUT:-${OUT:?OUT must be set}/50-levers}
mkdir -p "$out"
export GITM_SCRATCH="$out/scratch"
gitm() { "$GITM_JAVA" "${GITM_JAVA_FLAGS[@]}" -cp "$GITM_CP" io.gitm.cli.Main "$@"; }
rc=0
echo "== gitm levers --workload hft-lob --device nvidia"
gitm levers --workload hft-lob --device nvidia | tee "$out/levers.txt" || rc=1
echo "== gitm levers --measure --device nvidia --json"
t0=$(date +%s)
gitm levers --workload hft-lob --device nvidia --measure --block-iterations "${GITM_LEVER_BLOCK:-40}" --gate-pairs "${GITM_LEVER_PAIRS:-12}" --json \
  > "$out/levers-measured.json" 2> "$out/levers-measured.err" || rc=1
echo "measured in $(( $(date +%s) - t0 )) s"; tail -n 5 "$out/levers-measured.err"
python3 - "$out/levers-measured.json" <<'PY' | tee "$out/levers-measured.md"
import json, sys
d = json.load(open(sys.argv[1]))
print("| lever | class | outcome | gain | 95% CI | p | shipped → with lever (msg/s) |")
print("|---|---|---|---:|---|---:|---|")
for l in d["levers"]:
    if "outcome" not in l:
        continue
    g = l["gain"]
    ok = isinstance(g, (int, float)) and g == g
    print("| `%s` | %s | %s | %s | %s | %s | %s |" % (l["id"], l["class"], l["outcome"].lower(),
        "%+.1f%%" % ((g - 1) * 100) if ok else "-",
        "%+.1f%% .. %+.1f%%" % ((l["ciLow"] - 1) * 100, (l["ciHigh"] - 1) * 100) if ok else "-",
        "%.2g" % l["pValue"] if ok else "-",
        "%.2f M → %.2f M" % (l["anchorMedian"] / 1e6, l["candidateMedian"] / 1e6) if ok else l.get("detail", "")))
PY
rm -rf "$GITM_SCRATCH/datasets"
exit $rc
