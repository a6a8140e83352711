#!/usr/bin/env bash
# Checks the nvidia backend's Java-to-C marshalling HERE, without a GPU: builds fake libcuda / libcublas /
# libnvidia-ml / libnvrtc (gitm-nvidia/src/test/c: host memory for device memory, the self-test kernels run on the CPU) and runs
# the GPU suite against them through GITM_CUDA_LIB (the fakes are found only there, after the loader path). Passing
# proves the bindings pass the right arguments in the right order and read results back; it proves nothing about a
# real GPU. Needs gcc and a prior scripts/gpu-prep.sh. The fixture capture (large GEMMs) is skipped.
set -euo pipefail
root=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
fake="$root/gitm-nvidia/target/fakecuda"
mkdir -p "$fake"
gcc -shared -fPIC -O1 -Wall -o "$fake/libcuda.so.1" "$root/gitm-nvidia/src/test/c/fakecuda.c"
gcc -shared -fPIC -O1 -Wall -o "$fake/libcublas.so.13" "$root/gitm-nvidia/src/test/c/fakecublas.c"
gcc -shared -fPIC -O1 -Wall -o "$fake/libnvidia-ml.so.1" "$root/gitm-nvidia/src/test/c/fakenvml.c"
gcc -shared -fPIC -O1 -Wall -o "$fake/libnvrtc.so.13" "$root/gitm-nvidia/src/test/c/fakenvrtc.c"
out=${OUT:-$root/gitm-nvidia/target/fake-gpu-out}
rm -rf "$out"
GITM_CUDA_LIB="$fake" GITM_CALIBRATE=quick GITM_FIXTURE_OUT= OUT="$out" bash "$root/scripts/gpu-suite.sh"
