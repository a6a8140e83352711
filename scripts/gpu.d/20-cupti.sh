#!/usr/bin/env bash
# GPU part of CUPTI tracing (issue 3), run unattended on the lent GPU by scripts/gpu-suite.sh from the repository
# root with $OUT set; about 115 s. Writes everything under $OUT/cupti/ (small files only):
#   torch-mixed-summary.json               an unmodified PyTorch script traced by injection (libgitm_inject.so) with
#                                          the default GITM_TRACE_KINDS: records per type and name, and how many
#                                          kernels have a launch call of the same correlation id (the .gtrace itself
#                                          is deleted: it is large)
#   cupti-overhead.json (+ .txt)           in-process CUPTI tracing overhead (CuptiOverheadBench): kernel-dense and
#                                          GEMM-heavy loops, untraced vs traced in alternating pairs, per set of
#                                          activity kinds
#   torch-injection-overhead.json (+ .txt) PyTorch GEMM-heavy and elementwise-dense loops, untraced vs traced under
#                                          each GITM_TRACE_KINDS setting, with microseconds added per launch
#                                          (scripts/gpu.d/injection_overhead.py)
#   fixtures/                              small real traces for CI decoding tests (commit them under
#                                          gitm-nvidia/src/test/resources/cupti/); the torch fixture is traced with
#                                          GITM_TRACE_KINDS=all, so that it keeps every record type
#   steps.txt                              each step, its command and exit status
# Layout assumed (made by scripts/gpu-prep.sh): .gpu/jdk/bin/java, runtime jars in .gpu/lib/*.jar (gitm-nvidia's
# jar carries native/linux-x86_64/libgitm_inject.so), test classes and resources in .gpu/test-classes/gitm-nvidia/.
set -u
root=$(pwd)
out="${OUT:?OUT must be set}/cupti"
mkdir -p "$out/fixtures"
log="$out/steps.txt"
: > "$log"
step() { # step NAME TIMEOUT_S CMD... : runs CMD with a time limit, logs its status, never stops the script
  local name=$1 limit=$2; shift 2
  echo "== $name: $*" | tee -a "$log"
  local t0=$(date +%s%N)
  timeout "$limit" "$@" > "$out/$name.log" 2>&1
  local rc=$?
  echo "$name rc=$rc $(( ($(date +%s%N) - t0) / 1000000 )) ms" | tee -a "$log"
  tail -n 5 "$out/$name.log"
  return $rc
}

java="$root/.gpu/jdk/bin/java"
[ -x "$java" ] || java=$(command -v java || true)
cp="$root/.gpu/test-classes/gitm-nvidia:$(ls "$root"/.gpu/lib/*.jar 2>/dev/null | tr '\n' ':')"
{
  date -u +"date %Y-%m-%dT%H:%M:%SZ"
  nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader 2>&1 | head -n 8
  echo "java: $java"; echo "classpath: $cp"
} | tee "$out/environment.txt"

# CUPTI's folder: the injection library has an rpath to the usual toolkit folders; LD_LIBRARY_PATH covers others.
cupti_dir=""
for d in "${CUDA_HOME:-/nonexistent}/lib64" "${CUDA_HOME:-/nonexistent}/extras/CUPTI/lib64" /usr/local/cuda/lib64 \
         /usr/local/cuda/extras/CUPTI/lib64 /usr/local/cuda-*/lib64; do
  if [ -e "$d/libcupti.so.13" ]; then cupti_dir=$d; break; fi
done
echo "libcupti.so.13 in: ${cupti_dir:-NOT FOUND}" | tee -a "$out/environment.txt"
export LD_LIBRARY_PATH="${cupti_dir:+$cupti_dir:}${LD_LIBRARY_PATH:-}"

# The injection library: carried build output, else out of gitm-nvidia's jar, else built here with gcc.
inject=""
for f in "$root/.gpu/native/libgitm_inject.so" "$root/gitm-nvidia/target/native/libgitm_inject.so"; do
  [ -f "$f" ] && { inject=$f; break; }
done
if [ -z "$inject" ]; then
  for jar in "$root"/.gpu/lib/gitm-nvidia*.jar; do
    [ -f "$jar" ] || continue
    python3 - "$jar" "$out/libgitm_inject.so" <<'PY' && inject="$out/libgitm_inject.so" && break
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    open(sys.argv[2], "wb").write(z.read("native/linux-x86_64/libgitm_inject.so"))
PY
  done
fi
if [ -z "$inject" ] && command -v gcc >/dev/null; then
  bash "$root/gitm-nvidia/src/main/c/build-native.sh" "$root/gitm-nvidia/src/main/c" "$out/native" "$out/native-classes" \
    && inject="$out/native/libgitm_inject.so"
fi
chmod +x "$inject" 2>/dev/null
echo "libgitm_inject.so: ${inject:-NOT FOUND}" | tee -a "$out/environment.txt"
workload="$root/scripts/gpu.d/cupti_torch_workload.py"
summary="$root/scripts/gpu.d/gtrace_summary.py"

# (a) An unmodified PyTorch script traced by injection, default kinds.
if [ -n "$inject" ]; then
  CUDA_INJECTION64_PATH="$inject" GITM_TRACE_OUT="$out/torch-mixed.gtrace" \
    step torch-mixed 180 python3 "$workload" --mode mixed --seconds 2
  ls -la "$out"/torch-mixed.gtrace* >> "$log" 2>&1
  step torch-mixed-summary 120 python3 "$summary" "$out/torch-mixed.gtrace" --top 25 \
    && cp "$out/torch-mixed-summary.log" "$out/torch-mixed-summary.json"
  rm -f "$out/torch-mixed.gtrace" "$out/torch-mixed.gtrace.tmp" "$out/torch-mixed-summary.log"
  # the default kinds must keep a launch call for every kernel (what Replay joins by correlation id)
  step torch-mixed-launch-check 10 python3 -c 'import json, sys
s = json.load(open(sys.argv[1]))
a = s["meta"]["attributes"]
print("kinds %s; %s; kernels %d, with a launch call %d, without %d; API records %d" % (a.get("trace.kinds"),
      a.get("trace.apiFunctions"), s["recordsByType"].get("kernel", 0), s["kernelsWithALaunchCall"],
      s["kernelsWithoutALaunchCall"], s["recordsByType"].get("api", 0)))
sys.exit(1 if s["kernelsWithoutALaunchCall"] or not s["kernelsWithALaunchCall"] else 0)' "$out/torch-mixed-summary.json"
  # fixture: a small real trace (a few hundred records), every kind
  CUDA_INJECTION64_PATH="$inject" GITM_TRACE_OUT="$out/fixtures/h200-driver580-torch-small.gtrace" GITM_TRACE_KINDS=all \
    step torch-small 180 python3 "$workload" --mode small
  step torch-small-summary 60 python3 "$summary" "$out/fixtures/h200-driver580-torch-small.gtrace" --top 10
fi

# Fixture of raw in-process CUPTI records, and the in-process tracing-overhead benchmark.
if [ -x "$java" ]; then
  step inprocess-fixture 120 "$java" --enable-native-access=ALL-UNNAMED -cp "$cp" \
    io.gitm.nvidia.cupti.CuptiFixtureRecorder "$out/fixtures/h200-driver580-inprocess.cuptiraw"
  step cupti-overhead 300 "$java" --enable-native-access=ALL-UNNAMED -Xmx2g -cp "$cp" \
    io.gitm.nvidia.cupti.CuptiOverheadBench "$out" 15
  cp "$out/cupti-overhead.log" "$out/cupti-overhead.txt" 2>/dev/null
fi

# (b') PyTorch loops untraced and traced under each GITM_TRACE_KINDS setting (one process per run), within a budget.
if [ -n "$inject" ]; then
  step torch-injection-overhead 150 python3 "$root/scripts/gpu.d/injection_overhead.py" "$workload" "$inject" "$out" \
    --budget-s 85 --max-rounds 3 --dense-repeats 3
  cp "$out/torch-injection-overhead.log" "$out/torch-injection-overhead.txt" 2>/dev/null
fi

# The GPU tests of this package, where the JUnit console launcher was carried (gpu-suite may run them itself).
launcher=$(ls "$root"/.gpu/lib/junit-platform-console-standalone*.jar 2>/dev/null | head -n 1)
if [ -n "$launcher" ] && [ -x "$java" ]; then
  step cupti-gpu-tests 300 "$java" --enable-native-access=ALL-UNNAMED -jar "$launcher" execute -cp "$cp" \
    --select-package io.gitm.nvidia.cupti --include-tag gpu --reports-dir "$out/junit"
else
  echo "cupti-gpu-tests: no junit-platform-console-standalone jar in .gpu/lib; the suite's own test run covers them" \
    | tee -a "$log"
fi
echo "== done; results in $out" | tee -a "$log"
