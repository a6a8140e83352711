#!/usr/bin/env bash
# GPU part of gitm's black-box mode (`gitm run --cmd ...`, issue #9): three unmodified PyTorch jobs from
# bench/blackbox/ (README.md there), each slowed by something only a process-level lever fixes:
#   fp32_matmul   FP32 GEMMs in full precision        lever TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1 (TF32, class B)
#   alloc_churn   torch.cuda.empty_cache() per batch  lever PYTORCH_CUDA_ALLOC_CONF (expandable_segments / cudaMallocAsync)
#   host_threads  8 CPU workers x default threads     lever OMP_NUM_THREADS = CPUs / processes (and CPU affinity)
# Steps, each logged; a failing step does not stop the others:
#   a. environment.txt: python3, torch (version, CUDA, default threads, allocator, matmul precision), CPUs, the GPU,
#      and the lever variables the machine had set (they are unset for everything below, so "base" means unset);
#   b. raw-ab.txt: each job with and without its levers, GITM_BB_RAW_RUNS (3) alternating runs of every arm, each
#      under a timeout, the it/s lines, the medians, and each arm's output compared with the base's (bench/blackbox/
#      compare_npy.py): evidence that does not depend on gitm. GITM_BB_RAW=0 skips it. Outputs and logs in raw/;
#   c. for each job of GITM_BB_JOBS (default "fp32_matmul alloc_churn host_threads"), gitm run as a user would run it
#      (--cmd last, a fresh --workdir per job), with report.md, report.html, report.json, outcome.json, journal.jsonl,
#      run.json, baseline.json and trials/ of its run folder copied to $GITM_PART_OUT/<job>/, gitm's progress in
#      gitm.log, its --json answer in gitm-stdout.json. GITM_BB_GITM=0 skips it.
# Time: the part aims to end GITM_BB_DEADLINE_S (470) s after it starts. The raw A/B is sized for ~3 min on an H200
# (30 runs of 4-9 s, not measured yet); then each gitm run gets an equal share of what is left, less 30 s each for
# the JVM and the overrun of a trial in flight (at most 4 min; a job whose share is under 30 s is skipped), and is
# interrupted (SIGINT: gitm writes the report of what it did) GITM_BB_OVERRUN_S (60) s after its budget.
# GITM_BB_BUDGET (e.g. 3m) fixes the budget instead: e.g. GITM_BB_RAW=0 GITM_BB_JOBS=alloc_churn GITM_BB_BUDGET=3m
# for one job alone in a call of its own, since a gate of a 4-8 s process job costs about a minute;
# GITM_BB_BUDGET_<job> (e.g. GITM_BB_BUDGET_host_threads=4m) fixes one job's.
# The suite gives a part at most GITM_PART_TIMEOUT (420) s: run this part alone with, e.g.,
#   GITM_SKIP_TESTS=1 GITM_PARTS=70 GITM_PART_TIMEOUT=530 bash scripts/gpu-suite.sh
# Other knobs: GITM_BB_RAW_JOBS (the jobs of step b, default GITM_BB_JOBS), GITM_BB_RAW_TIMEOUT (60 s a run),
# GITM_BB_TARGET (15%), GITM_BB_TRIAL_TIMEOUT (gitm's --timeout, 60s), GITM_BB_ARGS (more gitm run options),
# GITM_BB_TOL_<job> (its --rtol/--atol options; fp32_matmul's default "--rtol 1e-2 --atol 2e-2", the others none),
# GITM_BB_ARGS_<job> (more arguments for the job itself, e.g. "--iters 50"), GITM_BB_PYTHON (python3). Without a
# CUDA device torch can see, steps b and c are skipped unless GITM_BB_ALLOW_CPU=1 (a smoke test of this script with
# GITM_BB_ARGS_<job>="--device cpu" and small sizes).
set -uo pipefail
gitm_root=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
cd "$gitm_root" || exit 2
. scripts/gpu-env.sh
out=${GITM_PART_OUT:-${OUT:?OUT must be set}/70-blackbox}
mkdir -p "$out"
part_t0=$(date +%s)
deadline=${GITM_BB_DEADLINE_S:-470}
elapsed() { echo $(( $(date +%s) - part_t0 )); }
# gitm's store lives outside $out: traces and datasets need not come back, the files that matter are copied
export GITM_SCRATCH="${GITM_BB_SCRATCH:-$(mktemp -d /tmp/gitm-blackbox.XXXXXX)}"
mkdir -p "$GITM_SCRATCH"
bb="$gitm_root/bench/blackbox"
py=${GITM_BB_PYTHON:-python3}
all_jobs="fp32_matmul alloc_churn host_threads"
jobs=${GITM_BB_JOBS-$all_jobs}
raw_jobs=${GITM_BB_RAW_JOBS-$jobs}
rc=0

# --- a. environment -------------------------------------------------------------------------------------------
lever_vars="TORCH_ALLOW_TF32_CUBLAS_OVERRIDE NVIDIA_TF32_OVERRIDE PYTORCH_CUDA_ALLOC_CONF OMP_NUM_THREADS MKL_NUM_THREADS
  CUDA_DEVICE_MAX_CONNECTIONS CUDA_MODULE_LOADING"
machine_levers=$(for v in $lever_vars; do echo "machine's $v: ${!v-unset}"; done)
for v in $lever_vars; do unset "$v"; done  # nproc too reads OMP_NUM_THREADS
{
  echo "date: $(date -u +%FT%TZ)  host: $(hostname)  commit: $(cat .gpu/commit 2>/dev/null || git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "python: $(command -v "$py") $("$py" --version 2>&1)"
  echo "nproc: $(nproc)  affinity: $(taskset -pc $$ 2>/dev/null | sed 's/.*: //')"
  lscpu 2>/dev/null | grep -E '^(Model name|Socket\(s\)|Core\(s\) per socket|Thread\(s\) per core|NUMA node\(s\)):' | sed 's/  */ /g'
  echo "gpu: $(nvidia-smi --query-gpu=name,driver_version,memory.total,persistence_mode --format=csv,noheader 2>/dev/null || echo 'no nvidia-smi')"
  echo "$machine_levers"
} > "$out/environment.txt" 2>&1
if ! timeout 120 "$py" - >> "$out/environment.txt" 2>&1 <<'PY'
import torch
print("torch %s, built for CUDA %s, cuDNN %s" % (torch.__version__, torch.version.cuda,
      torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None))
print("default intra-op threads %d, inter-op %d" % (torch.get_num_threads(), torch.get_num_interop_threads()))
print("float32 matmul precision (no lever set): %s" % torch.get_float32_matmul_precision())
if torch.cuda.is_available():
    print("cuda device: %s, capability %s, allocator backend %s" % (torch.cuda.get_device_name(0),
          torch.cuda.get_device_capability(0), torch.cuda.get_allocator_backend()))
else:
    print("torch sees no CUDA device")
print(torch.__config__.parallel_info())
PY
then
  echo "environment: importing torch failed (see environment.txt): the jobs cannot run, steps b and c skipped"
  GITM_BB_RAW=0 GITM_BB_GITM=0 rc=1
elif grep -q "torch sees no CUDA device" "$out/environment.txt" && [ "${GITM_BB_ALLOW_CPU:-0}" != 1 ]; then
  echo "environment: torch sees no CUDA device: steps b and c skipped (GITM_BB_ALLOW_CPU=1 runs them anyway, e.g." \
    "with GITM_BB_ARGS_<job>=\"--device cpu ...\" as a smoke test)"
  GITM_BB_RAW=0 GITM_BB_GITM=0 rc=1
fi
echo "== environment"; cat "$out/environment.txt"

tol_of() { # the job's tolerance options for gitm and for the raw comparison
  local v="GITM_BB_TOL_$1"
  if [ -n "${!v+x}" ]; then echo "${!v}"; elif [ "$1" = fp32_matmul ]; then echo "--rtol 1e-2 --atol 2e-2"; fi
}
# host_threads as shipped took over 60 s a run on the H200 (2026-11-30): a shorter run keeps gitm's gates affordable
args_of() {
  local v="GITM_BB_ARGS_$1"
  if [ -z "${!v+set}" ] && [ "$1" = host_threads ]; then echo "--batches 60 --warmup 8"; else echo "${!v:-}"; fi
}
to_seconds() { # 90s, 2m, 2m30s, 1h -> seconds (300 for anything else)
  local s=$1 t=0
  while [[ $s =~ ^([0-9]+)([hms])(.*)$ ]]; do
    case ${BASH_REMATCH[2]} in h) t=$(( t + BASH_REMATCH[1] * 3600 ));; m) t=$(( t + BASH_REMATCH[1] * 60 ));;
      s) t=$(( t + BASH_REMATCH[1] ));; esac
    s=${BASH_REMATCH[3]}
  done
  if [ -z "$s" ] && [ "$t" -gt 0 ]; then echo "$t"; else echo 300; fi
}
arms_of() { # one arm a line: NAME|ENV=VALUE ...|extra job arguments
  case $1 in
    fp32_matmul)
      echo "base||"
      echo "tf32-torch|TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1|"
      echo "tf32-nvidia|NVIDIA_TF32_OVERRIDE=1|" ;;
    alloc_churn)
      echo "base||"
      echo "expandable|PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True|"
      echo "async|PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync|"
      echo "ref-skip-empty-cache||--skip-empty-cache" ;;
    host_threads)
      local n; n=$(nproc)
      local per_process=$(( n / 9 )) per_worker=$(( n / 8 ))  # 8 workers + the main process; 8 workers alone
      [ "$per_process" -ge 1 ] || per_process=1
      [ "$per_worker" -ge 1 ] || per_worker=1
      echo "base||"
      echo "omp$per_process|OMP_NUM_THREADS=$per_process|"
      [ "$per_worker" = "$per_process" ] || echo "omp$per_worker|OMP_NUM_THREADS=$per_worker|" ;;
  esac
}

# --- b. raw A/B, independent of gitm ---------------------------------------------------------------------------
raw_txt="$out/raw-ab.txt"
if [ "${GITM_BB_RAW:-1}" != 0 ] && [ -n "$raw_jobs" ]; then
  rawdir="$out/raw"
  mkdir -p "$rawdir"
  runs=${GITM_BB_RAW_RUNS:-3}
  : > "$rawdir/values.txt"
  : > "$rawdir/medians.txt"
  echo "raw A/B on $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n1): $runs alternating runs" \
    "of every arm, each under a ${GITM_BB_RAW_TIMEOUT:-60} s timeout; base = no lever variable set" | tee "$raw_txt"
  for job in $raw_jobs; do
    if [ ! -f "$bb/$job.py" ]; then echo "$job: no $bb/$job.py" | tee -a "$raw_txt"; rc=1; continue; fi
    echo "== $job ($(elapsed) s into the part)" | tee -a "$raw_txt"
    for r in $(seq 1 "$runs"); do
      while IFS='|' read -r arm envs extra; do
        [ -n "$arm" ] || continue
        stem="$rawdir/$job-$arm-$r"
        t0=$(date +%s%N)
        # envs and the argument lists are space-separated words on purpose
        # shellcheck disable=SC2046,SC2086
        (cd "$rawdir" && timeout --kill-after=5 "${GITM_BB_RAW_TIMEOUT:-60}" env $envs "$py" "$bb/$job.py" \
          --out "$stem.npy" $(args_of "$job") $extra) < /dev/null > "$stem.out" 2> "$stem.err"
        code=$?
        ms=$(( ($(date +%s%N) - t0) / 1000000 ))
        v=$(grep -oE '^it/s: [0-9.]+' "$stem.out" | tail -n1 | awk '{print $2}')
        [ "$code" -eq 0 ] && [ -n "$v" ] || rc=1
        printf '%-13s %-21s run %d  it/s %-10s wall %5d ms  exit %d  %s\n' "$job" "$arm" "$r" "${v:-none}" "$ms" \
          "$code" "${envs:-(no lever)} $extra" | tee -a "$raw_txt"
        grep -E "^$job:" "$stem.err" | tail -n1 | sed 's/^/      /' >> "$raw_txt"
        [ "$code" -eq 0 ] || tail -n 5 "$stem.err" | sed 's/^/      | /' | tee -a "$raw_txt"
        echo "$job $arm $r ${v:-NA}" >> "$rawdir/values.txt"
      done < <(arms_of "$job")
    done
    echo "-- $job: medians, and each arm's output against base run 1" | tee -a "$raw_txt"
    "$py" - "$rawdir/values.txt" "$job" <<'PY' | tee -a "$raw_txt" "$rawdir/medians.txt"
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l.split()[:1] == [sys.argv[2]]]
arms = []
for _, arm, _, _ in rows:
    if arm not in arms:
        arms.append(arm)
med = {}
for arm in arms:
    vals = [float(v) for _, a, _, v in rows if a == arm and v != "NA"]
    med[arm] = statistics.median(vals) if vals else None
base = med.get("base")
for arm in arms:
    m = med[arm]
    ratio = " = %.3fx base" % (m / base) if m and base else ""
    print("   %-13s %-21s median it/s %s%s" % (sys.argv[2], arm, "%.4f" % m if m else "none", ratio))
PY
    tol=$(tol_of "$job")
    while IFS='|' read -r arm envs extra; do
      [ -n "$arm" ] || continue
      for r in $(seq 1 "$runs"); do
        [ "$arm" = base ] && [ "$r" = 1 ] && continue
        # shellcheck disable=SC2086
        printf '   %-21s run %d vs base run 1: %s\n' "$arm" "$r" "$("$py" "$bb/compare_npy.py" $tol \
          "$rawdir/$job-base-1.npy" "$rawdir/$job-$arm-$r.npy" < /dev/null 2>&1)" | tee -a "$raw_txt"
      done
    done < <(arms_of "$job")
  done
  echo "raw A/B done in $(elapsed) s" | tee -a "$raw_txt"
else
  echo "raw A/B skipped (GITM_BB_RAW=0 or no jobs)" | tee "$raw_txt"
fi

# --- c. gitm run on each job, as a user would ------------------------------------------------------------------
summary="$out/summary.txt"
: > "$summary"
if [ "${GITM_BB_GITM:-1}" = 0 ] || [ -z "$jobs" ]; then
  echo "gitm runs skipped (GITM_BB_GITM=0 or GITM_BB_JOBS empty)" | tee -a "$summary"
elif [ ! -x "$GITM_JAVA" ] && ! command -v "$GITM_JAVA" >/dev/null 2>&1; then
  echo "gitm runs skipped: no Java runtime at $GITM_JAVA (run scripts/gpu-prep.sh on the build machine first)" \
    | tee -a "$summary"
  rc=2
else
  # shellcheck disable=SC2086  # a space-separated list
  set -- $jobs
  n_left=$#
  for job in "$@"; do
    jout="$out/$job"
    mkdir -p "$jout"
    left=$(( deadline - $(elapsed) ))
    jb="GITM_BB_BUDGET_$job"
    if [ -n "${!jb:-}" ]; then
      budget=${!jb}
    elif [ -n "${GITM_BB_BUDGET:-}" ]; then
      budget=$GITM_BB_BUDGET
    else
      share=$(( (left - 30 * n_left) / n_left ))
      [ "$share" -le 240 ] || share=240
      budget="${share}s"
    fi
    n_left=$(( n_left - 1 ))
    if [ -z "${GITM_BB_BUDGET:-}" ] && [ -z "${!jb:-}" ] && [ "${share:-0}" -lt 30 ]; then
      echo "$job: gitm run skipped, ${left} s left of the part's ${deadline} s" | tee -a "$summary"
      rc=1
      continue
    fi
    work="$GITM_SCRATCH/work/$job"
    rm -rf "$work"
    mkdir -p "$work"
    before=$(printf '%s\n' "$GITM_SCRATCH"/runs/*/)
    # the option lists are space-separated words on purpose
    # shellcheck disable=SC2206,SC2207
    cmd=(run --budget "$budget" --target "${GITM_BB_TARGET:-15%}" --metric-regex 'it/s: ([0-9.]+)' --higher-is-better
      --output out.npy $(tol_of "$job") --timeout "${GITM_BB_TRIAL_TIMEOUT:-60s}" --workdir "$work" --json
      ${GITM_BB_ARGS:-} --cmd "$py" "$bb/$job.py" --out out.npy $(args_of "$job"))
    hard=$(( $(to_seconds "$budget") + ${GITM_BB_OVERRUN_S:-60} ))
    echo "== gitm ${cmd[*]}   (budget $budget, interrupted after ${hard} s; $(elapsed) s into the part)" \
      | tee "$jout/gitm.log"
    t0=$(date +%s)
    # SIGINT first: gitm cuts the trial in progress, writes the report of what was done and exits 130
    timeout -s INT --kill-after=30 "$hard" "$GITM_JAVA" "${GITM_JAVA_FLAGS[@]}" -cp "$GITM_CP" io.gitm.cli.Main \
      "${cmd[@]}" < /dev/null > "$jout/gitm-stdout.json" 2>> "$jout/gitm.log"
    r=$?
    tail -n 30 "$jout/gitm.log" | grep -v '^== gitm' || true
    echo "exit $r in $(( $(date +%s) - t0 )) s" | tee -a "$jout/gitm.log"
    [ "$r" -eq 0 ] || rc=1
    # the run folder: named by gitm's --json answer, else the one new folder under runs/
    run_dir=$("$py" -c 'import json, sys; print(json.load(open(sys.argv[1])).get("folder", ""))' \
      "$jout/gitm-stdout.json" 2>/dev/null)
    if [ -z "$run_dir" ] || [ ! -d "$run_dir" ]; then
      run_dir=""
      for d in "$GITM_SCRATCH"/runs/*/; do
        [ -d "$d" ] || continue
        printf '%s\n' "$before" | grep -Fxq "$d" || run_dir=$d
      done
    fi
    if [ -n "$run_dir" ]; then
      for f in report.md report.html report.json outcome.json journal.jsonl run.json baseline.json process.json \
        profile-notes.json; do
        [ -f "$run_dir/$f" ] && cp "$run_dir/$f" "$jout/"
      done
      [ -d "$run_dir/trials" ] && cp -r "$run_dir/trials" "$jout/"
      (cd "$run_dir" && ls -laR) > "$jout/run-folder.txt" 2>&1
      echo "run folder $run_dir copied to $jout" | tee -a "$jout/gitm.log"
    else
      echo "no new run folder under $GITM_SCRATCH/runs" | tee -a "$jout/gitm.log"
    fi
    result=$("$py" - "$jout/gitm-stdout.json" 2>/dev/null <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
base = d.get("baseline") or {}
trials = ", ".join("%s %s %s" % ("+".join(t.get("levers", [])), str(t.get("outcome", "?")).lower(),
                                 "x%.3f" % t["measuredGain"] if isinstance(t.get("measuredGain"), (int, float))
                                 else "")
                   for t in (d.get("trialLog") or {}).values())
print("%s; baseline %s %s; gain x%s; kept %s; trials: %s" % (
    d.get("status"), base.get("throughput"), base.get("metric", ""), d.get("gain"), d.get("kept"), trials or "none"))
PY
)
    echo "$job: gitm exit $r, budget $budget; ${result:-no --json answer}" | tee -a "$summary"
  done
fi

# --- summary: the raw medians and gitm's result per job --------------------------------------------------------
if [ -s "$out/raw/medians.txt" ]; then
  { echo "raw A/B medians:"; cat "$out/raw/medians.txt"; } >> "$summary"
fi
echo "== summary ($(elapsed) s into the part)"
cat "$summary"
exit $rc
