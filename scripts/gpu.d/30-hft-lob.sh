#!/usr/bin/env bash
# GPU part of hft-lob (run on the GPU machine from the repository root, by scripts/gpu-suite.sh or alone with $OUT
# set): the shipped configuration and hand-picked better ones reachable through ExecutionConfig alone (messages/s,
# batch latency p50/p99 with spreads, output equality with the plain-Java reference), per-kernel device times with
# roofline floors, and the same profiling pass on the simulated h200. Results in $GITM_PART_OUT (default
# $OUT/30-hft-lob): hft-lob.json, hft-lob.txt, status. Optional: HFT_RUNS (timed runs per config, default 3),
# HFT_MESSAGES (book messages of the generated dataset, default 2000000), HFT_BUDGET_S (seconds before remaining
# configurations are skipped, default 300; the suite stops a part at 420 s).
set -uo pipefail
root=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
cd "$root"
if [ -f scripts/gpu-env.sh ]; then
  gitm_root=$root
  . scripts/gpu-env.sh
  java=("$GITM_JAVA" "${GITM_JAVA_FLAGS[@]}" -Xmx16g -cp "$GITM_CP")
else
  java=(.gpu/jdk/bin/java --enable-native-access=ALL-UNNAMED -Xmx16g -cp ".gpu/test-classes/gitm-workloads:.gpu/lib/*")
fi
out=${GITM_PART_OUT:-${OUT:?OUT must be set}/30-hft-lob}
mkdir -p "$out"
if [ ! -x "${java[0]}" ] && ! command -v "${java[0]}" >/dev/null 2>&1; then
  echo "hft-lob: no Java runtime at ${java[0]} (run scripts/gpu-prep.sh on the build machine first)" | tee "$out/status"
  exit 2
fi
data="${TMPDIR:-/tmp}/gitm-datasets/hft"
"${java[@]}" io.gitm.workloads.hft.HftLobBench --out "$out" --data "$data" --runs "${HFT_RUNS:-3}" \
  --messages "${HFT_MESSAGES:-2000000}" --budget-s "${HFT_BUDGET_S:-300}"
rc=$?
[ "$rc" -eq 0 ] || { echo "hft-lob: the benchmark exited with $rc"; exit "$rc"; }
status=$(head -n1 "$out/status" 2>/dev/null || echo "no status written")
[ "$status" = ok ] || { echo "hft-lob: $status"; exit 3; }
