#!/usr/bin/env bash
# GPU part of the simulator's fidelity table (docs/sim.md): for each workload of GITM_LW (default "af2 kitti
# hft-lob"), every lever that applies gated alone against the shipped setup on the real device (`gitm levers
# --measure --json`: interleaved A/B blocks, output digest). Results in
# $GITM_PART_OUT/<workload>-<lever>.json (default $OUT/55-levers-workloads), one command per lever. GITM_LW_PAIRS and
# GITM_LW_BLOCK set the gate's pairs and block iterations (default: the command's own); GITM_LW_SECONDS (480) ends it;
# GITM_LW_SKIP="W:ID ..." leaves those out.
set -uo pipefail
gitm_root=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
cd "$gitm_root" || exit 2
. scripts/gpu-env.sh
out=${GITM_PART_OUT:-${OUT:?OUT must be set}/55-levers-workloads}
mkdir -p "$out"
export GITM_SCRATCH="$out/scratch"
gitm() { "$GITM_JAVA" "${GITM_JAVA_FLAGS[@]}" -cp "$GITM_CP" io.gitm.cli.Main "$@"; }
rc=0
deadline=$(( $(date +%s) + ${GITM_LW_SECONDS:-480} ))
for w in ${GITM_LW:-af2 kitti hft-lob}; do
  # one gate per command, so that what was measured before a time limit is kept
  gitm levers --workload "$w" --device nvidia --json > "$out/$w-levers.json" 2> "$out/$w-levers.err" || { rc=1; continue; }
  ids=$(python3 -c 'import json,sys; print(" ".join(l["id"] for l in json.load(open(sys.argv[1]))["levers"] if l.get("applies")))' "$out/$w-levers.json")
  for id in $ids; do
    case " ${GITM_LW_SKIP:-} " in *" $w:$id "*) continue ;; esac
    if [ "$(date +%s)" -ge "$deadline" ]; then echo "time is up before $w $id"; rc=1; break 2; fi
    args=(levers --workload "$w" --device nvidia --measure --json --levers "$id")
    [ -n "${GITM_LW_PAIRS:-}" ] && args+=(--gate-pairs "$GITM_LW_PAIRS")
    [ -n "${GITM_LW_BLOCK:-}" ] && args+=(--block-iterations "$GITM_LW_BLOCK")
    t0=$(date +%s)
    timeout $(( deadline - t0 > 10 ? deadline - t0 : 10 )) "$GITM_JAVA" "${GITM_JAVA_FLAGS[@]}" -cp "$GITM_CP" \
      io.gitm.cli.Main "${args[@]}" > "$out/$w-$id.json" 2> "$out/$w-$id.err" || rc=1
    echo "$w $id: $(( $(date +%s) - t0 )) s"
  done
done
rm -rf "$GITM_SCRATCH/datasets"
exit $rc
