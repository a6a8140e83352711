#!/usr/bin/env bash
# Builds libgitm_inject.so (the CUPTI injection library) from this folder with gcc, where the CUDA toolkit's
# CUPTI headers and library exist, into OUT_DIR and into CLASSES_DIR/native/<os>-<arch>/ (so the jar carries it).
# Elsewhere it says what is missing and builds nothing: the rest of gitm builds and runs without it.
# Usage: build-native.sh SRC_DIR OUT_DIR CLASSES_DIR
set -euo pipefail
src=$1 out=$2 classes=$3
arch=$(uname -m)
case "$arch" in x86_64) plat=linux-x86_64 ;; aarch64) plat=linux-aarch64 ;; *) plat=linux-$arch ;; esac
if [ "$(uname -s)" != Linux ]; then
  echo "[gitm] libgitm_inject.so skipped: CUPTI injection is built on Linux only" >&2; exit 0
fi
gcc=$(command -v gcc || command -v cc || true)
if [ -z "$gcc" ]; then
  echo "[gitm] libgitm_inject.so skipped: no gcc/cc on PATH (black-box tracing needs it; install gcc)" >&2; exit 0
fi
inc="" lib=""
for home in "${CUDA_HOME:-}" "${CUDA_PATH:-}" /usr/local/cuda /usr/local/cuda-*; do
  [ -n "$home" ] || continue
  for i in "$home/include" "$home/extras/CUPTI/include"; do
    if [ -z "$inc" ] && [ -f "$i/cupti.h" ]; then inc=$i; fi
  done
  for l in "$home/lib64" "$home/lib" "$home/extras/CUPTI/lib64"; do
    if [ -z "$lib" ] && [ -e "$l/libcupti.so" ]; then lib=$l; fi
  done
done
if [ -z "$inc" ] || [ -z "$lib" ]; then
  echo "[gitm] libgitm_inject.so skipped: no CUDA toolkit with cupti.h and libcupti.so found (looked in \$CUDA_HOME, \$CUDA_PATH, /usr/local/cuda, /usr/local/cuda-*); black-box tracing is unavailable from this build" >&2
  exit 0
fi
mkdir -p "$out" "$classes/native/$plat"
so="$out/libgitm_inject.so"
if [ ! -f "$so" ] || [ -n "$(find "$src" -newer "$so" -name '*.[ch]' -print -quit)" ]; then
  "$gcc" -std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -fPIC -shared -fvisibility=hidden -pthread \
    -I"$inc" -o "$so.tmp" "$src/gitm_inject.c" "$src/gtrace_writer.c" "$src/trace_kinds.c" \
    -L"$lib" -lcupti -ldl \
    -Wl,-rpath,"$lib:/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:/usr/local/cuda-13.0/lib64"
  mv "$so.tmp" "$so"
  echo "[gitm] built $so (CUPTI from $lib)" >&2
fi
cp "$so" "$classes/native/$plat/libgitm_inject.so"
