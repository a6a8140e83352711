#!/usr/bin/env bash
# Runs THERE (the GPU machine), in the repository root, after scripts/gpu-prep.sh made .gpu/ here and it travelled:
#   1. every test tagged "gpu" of every module (JUnit console launcher), reports under the results;
#   2. every scripts/gpu.d/*.sh part in name order, each with GITM_PART_OUT=$OUT/<part>/ to write results into,
#      its output teed to $OUT/<part>.log; a failing part does not stop the others.
# GITM_PARTS="10 40" runs only the parts whose names start with those prefixes; GITM_SKIP_TESTS=1 skips step 1,
# GITM_TEST_MODULES="gitm-workloads" limits it to those modules. Carry .gpu-pack (unpacked here into .gpu).
# At the end everything under $OUT is packed into $OUT/gpu-results.tar.gz next to $OUT/summary.txt (the device
# tool brings back at most 8 files). Without a GPU it runs too: the GPU tests report as skipped, with the reason.
set -uo pipefail
gitm_root=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
cd "$gitm_root"
# .gpu travels packed (scripts/gpu-prep.sh): unpack it in place of any .gpu there
if [ -f .gpu-pack/gpu.tar.xz ]; then
  rm -rf .gpu
  xz -dc .gpu-pack/gpu.tar.xz | tar -xf - || { echo "unpacking .gpu-pack/gpu.tar.xz failed"; exit 1; }
fi
. scripts/gpu-env.sh
OUT=${OUT:-$gitm_root/.gpu-out}
mkdir -p "$OUT"
export OUT
summary="$OUT/summary.txt"
started=$(date -u +%FT%TZ)
suite_t0=$(date +%s)
# the whole suite ends within this many seconds (a device call is cut at 600 s), leaving time to pack the results
deadline=${GITM_SUITE_DEADLINE_S:-540}
{
  echo "gitm GPU suite, started $started on $(hostname)"
  echo "commit: $(cat .gpu/commit 2>/dev/null || git -C "$gitm_root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "java: $("$GITM_JAVA" -version 2>&1 | head -n1)"
  echo "device: $(nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader 2>/dev/null || echo 'no nvidia-smi / no GPU')"
  echo "CUDA library folders: ${GITM_CUDA_LIB:-none found}; LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}"
} > "$summary"
launcher=$(ls .gpu/test-lib/junit-platform-console-standalone-*.jar 2>/dev/null | head -n1)
if [ -z "$launcher" ] && [ "${GITM_SKIP_TESTS:-0}" != 1 ]; then
  echo "no .gpu/test-lib/junit-platform-console-standalone-*.jar: run scripts/gpu-prep.sh on the build machine first" | tee -a "$summary"
  exit 1
fi
# where GPU tests write recorded fixtures; set it empty to skip the capture
export GITM_FIXTURE_OUT="${GITM_FIXTURE_OUT-$OUT/fixtures}"
[ -z "$GITM_FIXTURE_OUT" ] || mkdir -p "$GITM_FIXTURE_OUT"
roots=()
for d in .gpu/test-classes/*/; do
  # GITM_TEST_MODULES="gitm-workloads gitm-nvidia" runs only those modules' GPU tests
  if [ -n "${GITM_TEST_MODULES:-}" ]; then
    case " $GITM_TEST_MODULES " in *" $(basename "$d") "*) ;; *) continue ;; esac
  fi
  roots+=(--scan-class-path "${d%/}")
done
tests_rc=0
if [ "${GITM_SKIP_TESTS:-0}" != 1 ]; then
echo "== GPU tests (tag gpu) ==" | tee -a "$summary"
t0=$(date +%s)
# the JVM's -cp expands the jar wildcards (the launcher's own --class-path would not)
timeout --kill-after=10 "${GITM_TESTS_TIMEOUT:-200}" \
  "$GITM_JAVA" "${GITM_JAVA_FLAGS[@]}" -cp "$GITM_CP" org.junit.platform.console.ConsoleLauncher execute \
  --disable-banner --details=tree "${roots[@]}" --include-tag gpu --reports-dir "$OUT/junit" > "$OUT/gpu-tests.log" 2>&1
tests_rc=$?
sed -n '/tests found/,/tests failed/p;/containers failed/p' "$OUT/gpu-tests.log" | sed 's/^[[:space:]]*//' >> "$summary"
grep -oE '(no GPU usable|NVML not usable)[^]]*' "$OUT/gpu-tests.log" | sort | uniq -c | head -n 5 >> "$summary" || true
grep -E '✘|FAILED' "$OUT/gpu-tests.log" | head -n 40 >> "$summary" || true
echo "GPU tests: exit $tests_rc in $(( $(date +%s) - t0 )) s (log gpu-tests.log)" | tee -a "$summary"
fi

failed_parts=0
for part in scripts/gpu.d/*.sh; do
  [ -f "$part" ] || continue
  name=$(basename "$part" .sh)
  if [ -n "${GITM_PARTS:-}" ]; then
    wanted=0
    for p in $GITM_PARTS; do case "$name" in "$p"*) wanted=1 ;; esac; done
    [ "$wanted" = 1 ] || continue
  fi
  export GITM_PART_OUT="$OUT/$name"
  mkdir -p "$GITM_PART_OUT"
  left=$(( deadline - ($(date +%s) - suite_t0) ))
  limit=${GITM_PART_TIMEOUT:-420}
  [ "$limit" -le "$left" ] || limit=$left
  if [ "$limit" -lt 30 ]; then
    echo "part $name: skipped, the suite's deadline (${deadline} s) is reached" | tee -a "$summary"
    failed_parts=$((failed_parts + 1))
    continue
  fi
  echo "== part $name (limit ${limit} s) ==" | tee -a "$summary"
  t0=$(date +%s)
  timeout --kill-after=10 "$limit" bash "$part" 2>&1 | tee "$OUT/$name.log"
  rc=${PIPESTATUS[0]}
  [ "$rc" -eq 0 ] || failed_parts=$((failed_parts + 1))
  echo "part $name: exit $rc in $(( $(date +%s) - t0 )) s" | tee -a "$summary"
  tail -n 5 "$OUT/$name.log" | sed 's/^/    /' >> "$summary"
done
echo "finished $(date -u +%FT%TZ): GPU tests exit $tests_rc, $failed_parts part(s) failed" | tee -a "$summary"

# pack everything but the summary into one archive, cut into pieces of at most 15 MiB (the device tool brings back
# at most 8 files of 16 MiB each); join them with: cat gpu-results.tar.gz.part-* | tar xz
(cd "$OUT" && find . -mindepth 1 -maxdepth 1 ! -name summary.txt ! -name 'gpu-results.tar.gz*' -printf '%P\n' > .pack-list \
  && tar czf gpu-results.tar.gz -T .pack-list && rm .pack-list \
  && find . -mindepth 1 -maxdepth 1 ! -name summary.txt ! -name gpu-results.tar.gz -exec rm -rf {} + \
  && split -b 15m -d -a 1 gpu-results.tar.gz gpu-results.tar.gz.part- && rm gpu-results.tar.gz)
echo "results: $OUT/summary.txt and $(ls "$OUT"/gpu-results.tar.gz.part-* | wc -l) part(s) of gpu-results.tar.gz ($(du -ch "$OUT"/gpu-results.tar.gz.part-* | tail -n1 | cut -f1))"
[ "$tests_rc" -eq 0 ] && [ "$failed_parts" -eq 0 ]
