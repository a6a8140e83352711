#!/usr/bin/env bash
# gitm analyze and Holistic Trace Analysis on the same large Kineto trace, one after the other on this machine:
#   bench/kineto-scale/side-by-side.sh KERNELS [TEMPLATE] [OUT_DIR]
# writes OUT_DIR/trace/trace.json (make_trace.py: TEMPLATE's profiler steps repeated to KERNELS kernels; default
# template the cuda-graph fixture, about 1 KB of JSON a kernel), then times
#   gitm analyze TRACE --json in a 1 GiB heap (GITM_JAVA_OPTS=-Xmx1g), wall and peak RSS by /usr/bin/time, and
#   HTA's parse and breakdowns (hta_breakdowns.py, PYTHONPATH=../shared/peers/hta), cut at GITM_HTA_TIMEOUT (600) s,
# and prints both temporal breakdowns side by side. Results in OUT_DIR: gitm.json, gitm.time, hta.json, hta.time.
set -uo pipefail
here=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
root=$(cd "$here/../.." && pwd)
kernels=${1:?usage: side-by-side.sh KERNELS [TEMPLATE] [OUT_DIR]}
template=${2:-$root/gitm-trace/src/test/resources/tracer/real/kineto/cuda-graph.pt.trace.json.gz}
out=${3:-/tmp/gitm-kineto-scale-$kernels}
mkdir -p "$out/trace"
[ -f "$out/trace/trace.json" ] || python3 "$here/make_trace.py" "$template" "$kernels" "$out/trace/trace.json" || exit 1
ls -l "$out/trace/trace.json"
echo "== gitm analyze (-Xmx1g)"
GITM_JAVA_OPTS=-Xmx1g /usr/bin/time -v -o "$out/gitm.time" "$root/gitm" analyze "$out/trace/trace.json" --json \
  > "$out/gitm.json" 2> "$out/gitm.err"
echo "exit $?; $(grep -E 'Elapsed|Maximum resident' "$out/gitm.time" | sed 's/^\s*//' | tr '\n' ';')"
echo "== HTA"
PYTHONPATH=$root/../shared/peers/hta timeout "${GITM_HTA_TIMEOUT:-600}" /usr/bin/time -v -o "$out/hta.time" \
  python3 "$here/hta_breakdowns.py" "$out/trace" > "$out/hta.json" 2> "$out/hta.err"
echo "exit $?; $(grep -E 'Elapsed|Maximum resident' "$out/hta.time" 2>/dev/null | sed 's/^\s*//' | tr '\n' ';')"
python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
g = json.load(open(out + "/gitm.json"))["breakdowns"]
print("gitm window:", g["window"])
print("gitm temporal (ns):", {k: v for k, v in g["temporal"].items()})
try:
    h = json.load(open(out + "/hta.json"))
    print("HTA seconds:", h["seconds"])
    print("HTA temporal:", h["temporal"])
except Exception as e:
    print("HTA gave no result:", e)
PY
