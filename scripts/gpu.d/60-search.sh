#!/usr/bin/env bash
# GPU part of the search harness: the agent, random search and the exhaustive oracle over the same levers of hft-lob
# on the real device, every trial behind the same rollback gate (io.gitm.bench.SearchHarness --workload hft-lob
# --device nvidia; docs/search-harness.md). Results in $GITM_PART_OUT (default $OUT/60-search): search.md (the
# per-method table, each lever's prediction against what the oracle measured of it alone, the wall time per method),
# search.json (every run, the agent's trials, every oracle trial), search.err (progress, one line a run).
#
# Sized to end within 5 minutes on an H200 with hft-lob's default input (2 M messages, 123 batches of 16384;
# ~1.4 ms a batch shipped, less with levers; opening a session or a device context 50-200 ms): a block is 8 batches
# (~11 ms of device time; a gate arm's 1 + 8 blocks are 72 batches, within one pass over the input, so no block ends
# short), a gate of the agent and random search is 2 x 9 blocks (~0.2 s) plus two sessions (~0.1-0.4 s), the
# oracle's gate 2 x 7 blocks (6 pairs: the fewest with which the signed-rank test can reach p < 0.05) plus two sessions. 8 levers: the oracle's 255 gates take ~80-150 s; the agent
# (~15 gates and a re-measurement) ~5-10 s a run, random search (30 gates and a re-measurement) ~15-25 s a run, 3
# runs each: ~60-100 s; profile, replay and dataset ~15 s. A timeout (SEARCH_TIMEOUT_S, default 290 s) stops it
# short of the suite's limit for a part; the progress lines in search.err then show how far it got.
# Optional: SEARCH_REPEATS (3), SEARCH_RANDOM_BUDGET (30), SEARCH_BLOCK (8), SEARCH_ORACLE_PAIRS (6),
# SEARCH_MAX_LEVERS (8), SEARCH_TIMEOUT_S (290); SEARCH_DEVICE=sim (default nvidia) and SEARCH_ARGS (more options,
# e.g. "--instruments 512 --book-messages 200000 --batch-messages 2048") try the part on the simulated device, e.g.
# on the build machine with a .gpu/ from scripts/gpu-prep.sh.
set -uo pipefail
gitm_root=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
cd "$gitm_root"
. scripts/gpu-env.sh
out=${GITM_PART_OUT:-${OUT:?OUT must be set}/60-search}
mkdir -p "$out"
export GITM_SCRATCH="$out/scratch"
if [ ! -x "$GITM_JAVA" ] && ! command -v "$GITM_JAVA" >/dev/null 2>&1; then
  echo "search: no Java runtime at $GITM_JAVA (run scripts/gpu-prep.sh on the build machine first)"
  exit 2
fi
device=${SEARCH_DEVICE:-nvidia}
echo "== SearchHarness --workload hft-lob --device $device"
t0=$(date +%s)
timeout --kill-after=10 "${SEARCH_TIMEOUT_S:-290}" "$GITM_JAVA" "${GITM_JAVA_FLAGS[@]}" -cp "$GITM_CP" \
  io.gitm.bench.SearchHarness --workload hft-lob --device "$device" \
  --repeats "${SEARCH_REPEATS:-3}" --random-budget "${SEARCH_RANDOM_BUDGET:-30}" \
  --block-iterations "${SEARCH_BLOCK:-8}" --oracle-pairs "${SEARCH_ORACLE_PAIRS:-6}" \
  --max-levers "${SEARCH_MAX_LEVERS:-8}" ${SEARCH_ARGS:-} --json "$out/search.json" \
  > "$out/search.md" 2> "$out/search.err"
rc=$?
echo "search harness: exit $rc in $(( $(date +%s) - t0 )) s"
cat "$out/search.md"
echo "-- last progress lines (search.err)"
tail -n 8 "$out/search.err"
rm -rf "$GITM_SCRATCH/datasets"
if [ "$rc" -ne 0 ]; then
  [ "$rc" -eq 124 ] && echo "search: stopped by the ${SEARCH_TIMEOUT_S:-290} s timeout"
  exit "$rc"
fi
[ -s "$out/search.json" ] || { echo "search: no search.json written"; exit 3; }
