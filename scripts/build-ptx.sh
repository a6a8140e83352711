#!/usr/bin/env bash
# Compiles every CUDA C file under SRC_DIR to PTX (compute_90, loadable by any later driver through JIT) into
# OUT_DIR. Called by the Maven build for each module; a module without CUDA sources is skipped silently, and a
# machine without nvcc builds everything else, saying which kernels the real backend will then compile with NVRTC.
set -euo pipefail
src=$1 out=$2
[ -d "$src" ] || exit 0
shopt -s nullglob
files=("$src"/*.cu)
[ ${#files[@]} -gt 0 ] || exit 0
nvcc=""
for c in "$(command -v nvcc 2>/dev/null || true)" "${CUDA_HOME:-/nonexistent}/bin/nvcc" /usr/local/cuda/bin/nvcc /usr/local/cuda-*/bin/nvcc; do
  if [ -n "$c" ] && [ -x "$c" ]; then nvcc=$c; break; fi
done
mkdir -p "$out"
if [ -z "$nvcc" ]; then
  echo "[gitm] nvcc not found: ${#files[@]} CUDA source(s) in $src are shipped as source only; the nvidia backend compiles them with NVRTC at run time" >&2
  exit 0
fi
for f in "${files[@]}"; do
  name=$(basename "$f" .cu)
  if [ ! -f "$out/$name.ptx" ] || [ "$f" -nt "$out/$name.ptx" ]; then
    "$nvcc" -ptx -arch=compute_90 -O3 -lineinfo -o "$out/$name.ptx.tmp" "$f"
    mv "$out/$name.ptx.tmp" "$out/$name.ptx"
  fi
done
