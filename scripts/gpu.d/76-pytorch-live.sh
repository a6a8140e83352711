#!/usr/bin/env bash
# GPU part of live mode (issue 24): `gitm run --live` on a job that runs for GITM_LIVE_SECONDS (660) seconds,
# bench/pytorch/vit_train.py as a user writes it, steered by gitm for GITM_LIVE_BUDGET (10m) while it runs. The job
# runs longer than one device call may, so the part works in two phases over two calls on the same (warm) machine:
#   GITM_LIVE_PHASE=start  starts gitm (and through it the job) in a session of its own, under $GITM_LIVE_DIR
#                          (/tmp/gitm-live), then waits up to GITM_LIVE_WAIT (540) seconds for the job to end;
#   GITM_LIVE_PHASE=finish waits up to GITM_LIVE_WAIT for the job to end.
# Each phase copies what there is so far to $GITM_PART_OUT: gitm's answer and log, the run folder's reports, the
# step-rate series (steps.jsonl/.md/.svg), live.json, the hook's live.log, facts and metric, and the job's own output
# (its throughput lines every GITM_LIVE_LOG_EVERY seconds and its last line: the settings it ended with).
# GITM_LIVE_TOL (1e-2) is the equivalence check's --rtol and --atol; GITM_LIVE_ARGS adds job arguments (with GITM_LIVE_ALLOW_CPU=1, e.g. "--device cpu --width 64 --layers 1" for a
# smoke test without a GPU); GITM_PT_PYTHON (python3).
set -uo pipefail
gitm_root=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
cd "$gitm_root" || exit 2
. scripts/gpu-env.sh
out=${GITM_PART_OUT:-${OUT:?OUT must be set}/76-pytorch-live}
mkdir -p "$out"
py=${GITM_PT_PYTHON:-python3}
dir=${GITM_LIVE_DIR:-/tmp/gitm-live}
phase=${GITM_LIVE_PHASE:-start}
wait_s=${GITM_LIVE_WAIT:-540}
for v in TORCH_ALLOW_TF32_CUBLAS_OVERRIDE NVIDIA_TF32_OVERRIDE PYTORCH_CUDA_ALLOC_CONF OMP_NUM_THREADS; do unset "$v"; done

job_pid() { # the job's pid, from the run's step series (LiveJob writes it first)
  local s; s=$(ls "$dir"/scratch/runs/*/steps.jsonl 2>/dev/null | head -n1)
  [ -n "$s" ] && "$py" -c 'import json, sys
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e.get("kind") == "start":
        print(e["pid"]); break' "$s" 2>/dev/null
}
alive() { [ -n "$1" ] && kill -0 "$1" 2>/dev/null; }
collect() {
  cp "$dir"/gitm-stdout.json "$dir"/gitm.log "$dir"/started.txt "$out/" 2>/dev/null
  local run; run=$(ls -d "$dir"/scratch/runs/*/ 2>/dev/null | head -n1)
  [ -n "$run" ] || return 0
  for f in report.md report.json outcome.json journal.jsonl run.json steps.jsonl steps.md steps.svg live.json; do
    [ -f "$run/$f" ] && cp "$run/$f" "$out/"
  done
  mkdir -p "$out/live"
  cp "$run"/live/job.stdout "$run"/live/job.stderr "$out/live/" 2>/dev/null
  for f in live.log facts.json metric.json hook-error.txt; do
    h=$(find "$run" -name "$f" -path '*hook*' 2>/dev/null | head -n1)
    [ -n "$h" ] && cp "$h" "$out/live/hook-$f"
  done
  return 0
}

if [ "$phase" = start ]; then
  if ! "$py" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' \
      && [ "${GITM_LIVE_ALLOW_CPU:-0}" != 1 ]; then
    echo "torch sees no CUDA device: live part not run"
    exit 1
  fi
  rm -rf "$dir"
  mkdir -p "$dir/work"
  tol=${GITM_LIVE_TOL:-1e-2}
  cmd=(run --live --budget "${GITM_LIVE_BUDGET:-10m}" --target "${GITM_LIVE_TARGET:-1000%}" --rtol "$tol" --atol "$tol"
    --scratch "$dir/scratch" --workdir "$dir/work" --json --cmd "$py" "$gitm_root/bench/pytorch/vit_train.py"
    --seconds "${GITM_LIVE_SECONDS:-660}" --log-every "${GITM_LIVE_LOG_EVERY:-30}" --out "$dir/work/out.npy"
    ${GITM_LIVE_ARGS:-})
  echo "date: $(date -u +%FT%TZ)  commit: $(cat .gpu/commit 2>/dev/null || git rev-parse --short HEAD 2>/dev/null)" \
    > "$dir/started.txt"
  echo "== gitm ${cmd[*]}" | tee -a "$dir/started.txt" > "$dir/gitm.log"
  # a session of its own: the device call's end does not end it; the job is in a session of its own too (LiveJob)
  setsid "$GITM_JAVA" "${GITM_JAVA_FLAGS[@]}" -cp "$GITM_CP" io.gitm.cli.Main "${cmd[@]}" < /dev/null \
    > "$dir/gitm-stdout.json" 2>> "$dir/gitm.log" &
  echo $! > "$dir/gitm.pid"
  disown
  t_start=$(date +%s)
  echo "$t_start" > "$dir/t0"
  sleep 30
fi
[ -f "$dir/t0" ] || { echo "no live run under $dir: run GITM_LIVE_PHASE=start first"; exit 1; }
t0=$(cat "$dir/t0")
gpid=$(cat "$dir/gitm.pid" 2>/dev/null)
jpid=$(job_pid)
echo "gitm pid ${gpid:-?}, job pid ${jpid:-?}"
end=$(( $(date +%s) + wait_s ))
while [ "$(date +%s)" -lt "$end" ]; do
  [ -n "$jpid" ] || jpid=$(job_pid)
  if ! alive "$gpid" && [ -n "$jpid" ] && ! alive "$jpid"; then
    break
  fi
  if ! alive "$gpid" && [ -z "$jpid" ]; then
    echo "gitm ended and no job was started"
    break
  fi
  sleep 5
done
collect
echo "$(( $(date +%s) - t0 )) s since the start; gitm $(alive "$gpid" && echo running || echo ended);" \
  "job $(alive "$jpid" && echo running || echo ended)" | tee "$out/state.txt"
tail -n 20 "$dir/gitm.log"
tail -n 30 "$out/live/job.stdout" 2>/dev/null
if alive "$jpid"; then
  exit 0
fi
"$py" - "$out" <<'PY' | tee "$out/summary.txt"
import json, os, sys
d = sys.argv[1]
try:
    g = json.load(open(os.path.join(d, "gitm-stdout.json")))
    g = g[0] if isinstance(g, list) else g
    print("gitm: %s, gain x%s, kept %s" % (g.get("status"), g.get("speedup"), g.get("kept")))
    for t in (g.get("trialLog") or {}).values():
        print("  %s %s measured x%s" % ("+".join(t.get("levers", [])), t.get("outcome"), t.get("measuredSpeedup")))
except (OSError, ValueError) as e:
    print("gitm's --json answer is unreadable: %s" % e)
p = os.path.join(d, "steps.jsonl")
if os.path.exists(p):
    for line in open(p):
        e = json.loads(line)
        if e.get("kind") in ("switch", "check", "detach", "trial", "error"):
            print("  %s %s" % (e.get("kind"), {k: v for k, v in e.items() if k != "kind"}))
PY
