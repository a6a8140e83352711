#!/usr/bin/env bash
# GPU part of PyTorch jobs optimized from the inside (issue 24): the jobs of bench/pytorch/ as users write them
# (resnet_train: a ResNet-18 over a DataLoader of images decoded per item; transformer_train: a transformer LM step;
# inference: a ResNet-18 inference loop), each
#   a. raw (GITM_PT_RAW=1, for the jobs of GITM_PT_RAW_JOBS, default all): GITM_PT_RUNS (2) alternating runs of three arms, the job's own it/s line each: "base" (as
#      written, no hook), "hooked" (gitm's Python hook on, no lever: the hook's own cost), "expert" (--expert: the
#      tuning guide's settings by hand, FP32 kept) -> raw.txt;
#   b. gitm (GITM_PT_GITM=1): gitm run --metric steps (restart mode) with budget GITM_PT_BUDGET_<job>, else
#      GITM_PT_BUDGET (3m; whole minutes), target
#      GITM_PT_TARGET (300%: past what any lever gives, so the whole budget is used), the job's outputs compared
#      within --rtol/--atol GITM_PT_TOL_<job>, else GITM_PT_TOL (1e-2); the run folder's reports, journal and trials/ copied to $out/<job>/;
#   c. after (GITM_PT_AFTER=1): GITM_PT_RUNS alternating runs of "expert" and "gitm" (the job as written, under the
#      environment and CPUs gitm kept, read from the journal) -> after.txt, with the ratio gitm/expert.
# GITM_PT_JOBS picks jobs (default all three); GITM_PT_ARGS_<job> adds job arguments (e.g. "--device cpu --steps 8"
# for a CPU smoke test with GITM_PT_ALLOW_CPU=1); GITM_PT_PYTHON (python3).
set -uo pipefail
gitm_root=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
cd "$gitm_root" || exit 2
. scripts/gpu-env.sh
out=${GITM_PART_OUT:-${OUT:?OUT must be set}/75-pytorch}
mkdir -p "$out"
export GITM_SCRATCH="${GITM_PT_SCRATCH:-$(mktemp -d /tmp/gitm-pytorch.XXXXXX)}"
py=${GITM_PT_PYTHON:-python3}
bench="$gitm_root/bench/pytorch"
jobs=${GITM_PT_JOBS-resnet_train transformer_train inference}
runs=${GITM_PT_RUNS:-2}
rc=0
for v in TORCH_ALLOW_TF32_CUBLAS_OVERRIDE NVIDIA_TF32_OVERRIDE PYTORCH_CUDA_ALLOC_CONF OMP_NUM_THREADS; do unset "$v"; done
{
  echo "date: $(date -u +%FT%TZ)  commit: $(cat .gpu/commit 2>/dev/null || git rev-parse --short HEAD 2>/dev/null)"
  echo "nproc: $(nproc)  gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || echo none)"
  timeout 120 "$py" -c 'import torch, sys; print("python", sys.version.split()[0], "torch", torch.__version__,
      "cuda", torch.cuda.is_available() and torch.cuda.get_device_name(0))'
} > "$out/environment.txt" 2>&1
cat "$out/environment.txt"
if ! grep -q "cuda NVIDIA\|cuda [A-Z]" "$out/environment.txt" && [ "${GITM_PT_ALLOW_CPU:-0}" != 1 ]; then
  echo "torch sees no CUDA device: nothing run (GITM_PT_ALLOW_CPU=1 runs a smoke test anyway)"
  exit 1
fi
# the hook as this build ships it, for the raw "hooked" arm
hook_py="$GITM_SCRATCH/hook-python"
"$py" - "$GITM_CP" "$hook_py" <<'PY' || { echo "gitm's Python hook is not in any jar of GITM_CP"; exit 2; }
import glob, os, sys, zipfile
jars = [j for e in sys.argv[1].split(":") for j in (sorted(glob.glob(e[:-1] + "*.jar")) if e.endswith("*") else [e])]
for jar in jars:
    if jar.endswith(".jar") and os.path.isfile(jar):
        with zipfile.ZipFile(jar) as z:
            names = [n for n in z.namelist() if n.startswith("io/gitm/job/hook/") and n.endswith(".py")]
            for n in names:
                target = os.path.join(sys.argv[2], n[len("io/gitm/job/hook/"):])
                os.makedirs(os.path.dirname(target), exist_ok=True)
                with open(target, "wb") as f:
                    f.write(z.read(n))
            if names:
                sys.exit(0)
sys.exit(1)
PY
args_of() { local v="GITM_PT_ARGS_$1"; echo "${!v:-}"; }
rate_of() { grep -o 'it/s: [0-9.]*' "$1" | tail -1 | cut -d' ' -f2; }
one() { # one run: job arm log [env...]
  local job=$1 arm=$2 log=$3; shift 3
  local w; w=$(mktemp -d "$GITM_SCRATCH/run.XXXXXX")
  local extra=()
  [ "$arm" = expert ] && extra=(--expert)
  # shellcheck disable=SC2046
  (cd "$bench" && env "$@" timeout 300 "$py" "$job.py" --out "$w/out.npy" "${extra[@]}" $(args_of "$job")) \
    > "$log" 2>&1
  echo "$job $arm exit $? it/s $(rate_of "$log")"
}
for job in $jobs; do
  jout="$out/$job"
  mkdir -p "$jout"
  if [ "${GITM_PT_RAW:-1}" = 1 ] && [[ " ${GITM_PT_RAW_JOBS-$jobs} " == *" $job "* ]]; then
    for i in $(seq 1 "$runs"); do
      one "$job" base "$jout/raw-base-$i.log"
      hd=$(mktemp -d "$GITM_SCRATCH/hook.XXXXXX")
      one "$job" hooked "$jout/raw-hooked-$i.log" PYTHONPATH="$hook_py" GITM_HOOK_DIR="$hd" GITM_HOOK_VERSION=1
      cp "$hd/metric.json" "$jout/raw-hooked-$i.metric.json" 2>/dev/null
      cp "$hd/facts.json" "$jout/raw-hooked-$i.facts.json" 2>/dev/null
      one "$job" expert "$jout/raw-expert-$i.log"
    done | tee "$jout/raw.txt"
  fi
  if [ "${GITM_PT_GITM:-1}" = 1 ]; then
    work="$GITM_SCRATCH/work-$job"
    mkdir -p "$work"
    bv="GITM_PT_BUDGET_$job"
    budget=${!bv:-${GITM_PT_BUDGET:-3m}}
    # shellcheck disable=SC2207
    tv="GITM_PT_TOL_$job"
    tol=${!tv:-${GITM_PT_TOL:-1e-2}}
    cmd=(run --budget "$budget" --target "${GITM_PT_TARGET:-300%}" --metric steps --output out.npy --rtol "$tol"
      --atol "$tol" --timeout 120s --workdir "$work" --json --cmd "$py" "$bench/$job.py" --out out.npy
      $(args_of "$job"))
    echo "== gitm ${cmd[*]}" | tee "$jout/gitm.log"
    t0=$(date +%s)
    timeout -s INT --kill-after=30 $(( ${budget%m} * 60 + 60 )) "$GITM_JAVA" "${GITM_JAVA_FLAGS[@]}" -cp "$GITM_CP" \
      io.gitm.cli.Main "${cmd[@]}" < /dev/null > "$jout/gitm-stdout.json" 2>> "$jout/gitm.log"
    r=$?
    echo "exit $r in $(( $(date +%s) - t0 )) s" | tee -a "$jout/gitm.log"
    [ "$r" -eq 0 ] || rc=1
    tail -n 25 "$jout/gitm.log"
    run_dir=$(ls -d "$GITM_SCRATCH"/runs/*/ 2>/dev/null | while read -r d; do
      grep -q "$job.py" "$d/run.json" 2>/dev/null && echo "$d"; done | tail -1)
    if [ -n "$run_dir" ]; then
      for f in report.md report.json outcome.json journal.jsonl run.json profile-notes.json; do
        [ -f "$run_dir/$f" ] && cp "$run_dir/$f" "$jout/"
      done
      mkdir -p "$jout/trials"
      cp "$run_dir"/trials/processes.jsonl "$jout/trials/" 2>/dev/null
      for h in "$run_dir"/trials/p*.hook; do
        [ -f "$h/facts.json" ] && cp "$h/facts.json" "$jout/trials/$(basename "$h").facts.json"
      done
      tail -n 40 "$run_dir"/trials/p0002.stderr > "$jout/trials/p0002.stderr.tail" 2>/dev/null
    fi
  fi
  if [ "${GITM_PT_AFTER:-1}" = 1 ] && [ -f "$jout/journal.jsonl" ]; then
    kept=$("$py" - "$jout/journal.jsonl" <<'PY'
import json, sys
env, cpus = {}, []
for line in open(sys.argv[1]):
    try:
        e = json.loads(line)
    except ValueError:
        continue
    if e.get("type") == "trial":
        t = e["data"]["trial"]
        if t.get("verdict", {}).get("outcome") == "KEPT":
            env, cpus = t["candidate"].get("environment", {}), t["candidate"].get("cpus", [])
print(" ".join("%s=%s" % kv for kv in sorted(env.items())) + "|" + ",".join(map(str, cpus)))
PY
)
    kenv=${kept%|*}
    kcpus=${kept#*|}
    echo "gitm kept: env [${kenv}] cpus [${kcpus}]" | tee "$jout/after.txt"
    for i in $(seq 1 "$runs"); do
      one "$job" expert "$jout/after-expert-$i.log"
      hd=$(mktemp -d "$GITM_SCRATCH/hook.XXXXXX")
      # shellcheck disable=SC2086
      if [ -n "$kcpus" ]; then
        (cd "$bench" && env PYTHONPATH="$hook_py" GITM_HOOK_DIR="$hd" GITM_HOOK_VERSION=1 $kenv timeout 300 \
          taskset -c "$kcpus" "$py" "$job.py" --out "$hd/out.npy" $(args_of "$job")) > "$jout/after-gitm-$i.log" 2>&1
      else
        (cd "$bench" && env PYTHONPATH="$hook_py" GITM_HOOK_DIR="$hd" GITM_HOOK_VERSION=1 $kenv timeout 300 \
          "$py" "$job.py" --out "$hd/out.npy" $(args_of "$job")) > "$jout/after-gitm-$i.log" 2>&1
      fi
      echo "$job gitm exit $? it/s $(rate_of "$jout/after-gitm-$i.log")"
    done | tee -a "$jout/after.txt"
  fi
  "$py" - "$jout" <<'PY' | tee "$jout/summary.txt"
import glob, json, os, re, statistics, sys
d = sys.argv[1]
def rates(pattern):
    out = []
    for f in sorted(glob.glob(os.path.join(d, pattern))):
        m = re.findall(r"it/s: ([0-9.]+)", open(f, errors="replace").read())
        if m:
            out.append(float(m[-1]))
    return out
med = {k: statistics.median(v) for k, v in ((k, rates(p)) for k, p in [("base", "raw-base-*.log"),
       ("hooked", "raw-hooked-*.log"), ("expert", "raw-expert-*.log"), ("after-expert", "after-expert-*.log"),
       ("after-gitm", "after-gitm-*.log")]) if v}
print("%s medians it/s: %s" % (os.path.basename(d), ", ".join("%s %.3f" % kv for kv in med.items())))
if "base" in med and "hooked" in med:
    print("  hook's cost on the job's own it/s: %+.2f%%" % (100 * (med["base"] / med["hooked"] - 1)))
if "base" in med and "expert" in med:
    print("  expert by hand: x%.3f" % (med["expert"] / med["base"]))
if "after-expert" in med and "after-gitm" in med:
    print("  gitm's kept setup vs the expert's, alternating: %.1f%%" % (100 * med["after-gitm"] / med["after-expert"]))
o = os.path.join(d, "gitm-stdout.json")
if os.path.exists(o):
    try:
        g = json.load(open(o))
        print("  gitm: %s, gain x%s, kept %s" % (g.get("status"), g.get("speedup"), g.get("kept")))
        for t in (g.get("trialLog") or {}).values():
            print("    %s %s measured x%s" % ("+".join(t.get("levers", [])), t.get("outcome"), t.get("measuredSpeedup")))
    except ValueError:
        print("  gitm's --json answer is unreadable")
PY
done
exit $rc
