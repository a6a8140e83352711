#!/usr/bin/env bash
# GPU part of the simulator's fidelity table (docs/sim.md): for each workload of GITM_LW (default "af2 kitti
# hft-lob"), every lever that applies gated alone against the shipped setup on the real device (`gitm levers
# --measure --json`: interleaved A/B blocks, output digest), each lever's replay prediction beside it. Results in
# $GITM_PART_OUT/<workload>.json (default $OUT/55-levers-workloads). GITM_LW_PAIRS and GITM_LW_BLOCK set the gate's
# pairs and block iterations (default: the command's own).
set -uo pipefail
gitm_root=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
cd "$gitm_root" || exit 2
. scripts/gpu-env.sh
out=${GITM_PART_OUT:-${OUT:?OUT must be set}/55-levers-workloads}
mkdir -p "$out"
export GITM_SCRATCH="$out/scratch"
gitm() { "$GITM_JAVA" "${GITM_JAVA_FLAGS[@]}" -cp "$GITM_CP" io.gitm.cli.Main "$@"; }
rc=0
for w in ${GITM_LW:-af2 kitti hft-lob}; do
  args=(levers --workload "$w" --device nvidia --measure --json)
  [ -n "${GITM_LW_PAIRS:-}" ] && args+=(--gate-pairs "$GITM_LW_PAIRS")
  [ -n "${GITM_LW_BLOCK:-}" ] && args+=(--block-iterations "$GITM_LW_BLOCK")
  echo "== gitm ${args[*]}"
  t0=$(date +%s)
  gitm "${args[@]}" > "$out/$w.json" 2> "$out/$w.err" || rc=1
  echo "measured $w in $(( $(date +%s) - t0 )) s"; tail -n 3 "$out/$w.err"
done
rm -rf "$GITM_SCRATCH/datasets"
exit $rc
