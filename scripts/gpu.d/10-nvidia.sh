#!/usr/bin/env bash
# GPU part of the nvidia backend: the doctor checks, the NVML sampling benchmark (us per full sample, every device)
# and `gitm calibrate` of device 0. Results in $GITM_PART_OUT (doctor.txt, nvml-sampling.json, calibration.json).
set -uo pipefail
gitm_root=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
cd "$gitm_root"
. scripts/gpu-env.sh
out=${GITM_PART_OUT:-${OUT:-$gitm_root/.gpu-out}/10-nvidia}
mkdir -p "$out"
java=("$GITM_JAVA" "${GITM_JAVA_FLAGS[@]}" -cp "$GITM_CP")
rc=0
echo "-- doctor (nvidia backend checks)"
"${java[@]}" io.gitm.nvidia.cuda.PrintDiagnostics 2>&1 | tee "$out/doctor.txt" || rc=1
if ! grep -q '^probe: Probe\[usable=true' "$out/doctor.txt"; then
  echo "no GPU usable here (see the probe line above): NVML benchmark and calibrate skipped"
  exit 3
fi
echo "-- NVML sampling benchmark"
"${java[@]}" io.gitm.nvidia.nvml.NvmlSamplingBench "$out/nvml-sampling.json" 5000 || rc=1
echo "-- calibrate device 0"
# GITM_CALIBRATE=quick: mid sizes (e.g. for checking the script itself against scripts/fake-gpu-check.sh's fakes)
"${java[@]}" io.gitm.cli.Main calibrate --device nvidia -o "$out/calibration.json" --json \
  $([ "${GITM_CALIBRATE:-full}" = quick ] && echo --quick) --scratch "$out/scratch" \
  > "$out/calibrate.stdout" 2>&1 || rc=1
tail -n 60 "$out/calibrate.stdout"
exit $rc
