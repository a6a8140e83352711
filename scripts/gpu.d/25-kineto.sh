#!/usr/bin/env bash
# GPU part of real PyTorch profiler traces (run on the GPU machine from the repository root, by scripts/gpu-suite.sh
# or alone with $OUT set): records Kineto traces of small known jobs with scripts/gpu.d/kineto_traces.py (single
# stream with user annotations, two side streams with a copy, a CUDA graph, memory events with Python stacks, NCCL
# at world size 1), each with ProfilerStep annotations and a partial last step, gzipped, with manifest.json saying
# what each job did. Results in $GITM_PART_OUT (default $OUT/25-kineto); commit the traces under
# gitm-trace/src/test/resources/tracer/real/kineto/. About 60 s.
set -uo pipefail
root=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
cd "$root"
out=${GITM_PART_OUT:-${OUT:?OUT must be set}/25-kineto}
mkdir -p "$out"
python=$(command -v python3 || true)
[ -n "$python" ] || { echo "kineto: no python3 on the PATH" | tee "$out/status"; exit 2; }
"$python" -c 'import torch; assert torch.cuda.is_available()' 2>"$out/torch-check.log" \
  || { echo "kineto: no PyTorch with CUDA ($(tail -n1 "$out/torch-check.log"))" | tee "$out/status"; exit 2; }
timeout "${KINETO_TIMEOUT_S:-240}" "$python" scripts/gpu.d/kineto_traces.py "$out"
rc=$?
ls -l "$out"
[ "$rc" -eq 0 ] && echo ok > "$out/status" || echo "kineto: the recorder exited with $rc" | tee "$out/status"
exit "$rc"
