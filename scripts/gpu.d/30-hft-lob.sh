#!/usr/bin/env bash
# hft-lob on the lent GPU (run unattended from the repository root with $OUT set): the shipped configuration and
# hand-picked better ones reachable through ExecutionConfig alone, per-kernel times with roofline floors, and the
# same profiling pass on the simulated h200. Writes $OUT/hft-lob/{hft-lob.json,hft-lob.txt,status,log.txt}.
# Needs the carried runtime: .gpu/jdk/bin/java, .gpu/lib/*.jar (gitm-api, gitm-sim, gitm-nvidia, gitm-workloads),
# .gpu/test-classes/gitm-workloads/. Optional: HFT_RUNS (default 3), HFT_MESSAGES (default 2000000).
set -uo pipefail
out="${OUT:?OUT must be set}/hft-lob"
mkdir -p "$out"
java=.gpu/jdk/bin/java
if [ ! -x "$java" ]; then
  echo "hft-lob: no carried Java at $java" | tee "$out/status"
  exit 2
fi
cp=".gpu/test-classes/gitm-workloads:.gpu/lib/*"
data="${TMPDIR:-/tmp}/gitm-datasets/hft"
"$java" --enable-native-access=ALL-UNNAMED -Xmx16g -cp "$cp" io.gitm.workloads.hft.HftLobBench \
  --out "$out" --data "$data" --runs "${HFT_RUNS:-3}" --messages "${HFT_MESSAGES:-2000000}" 2>&1 | tee "$out/log.txt"
rc=${PIPESTATUS[0]}
[ "$rc" -eq 0 ] || exit "$rc"
status=$(head -n1 "$out/status" 2>/dev/null || echo "no status written")
[ "$status" = ok ] || { echo "hft-lob: $status"; exit 3; }
