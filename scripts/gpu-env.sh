# Sourced by scripts/gpu-suite.sh and the scripts/gpu.d parts: finds the Java runtime ($GITM_JAVA) and the CUDA
# library folders (toolkit lib64, PyTorch's bundled nvidia/cu13/lib), and puts them on LD_LIBRARY_PATH and
# GITM_CUDA_LIB. Defines GITM_CP, the class path of every runtime and test jar.
gitm_root=${gitm_root:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
if [ -x "$gitm_root/.gpu/jdk/bin/java" ]; then
  GITM_JAVA="$gitm_root/.gpu/jdk/bin/java"
elif [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then
  GITM_JAVA="$JAVA_HOME/bin/java"
else
  GITM_JAVA=$(command -v java || echo java)
fi
gitm_cuda_dirs=()
for d in ${CUDA_HOME:-} ${CUDA_PATH:-} /usr/local/cuda /usr/local/cuda-*; do
  for l in "$d/lib64" "$d/lib"; do
    if [ -d "$l" ] && ls "$l"/libcupti.so* >/dev/null 2>&1; then gitm_cuda_dirs+=("$(readlink -f "$l")"); break 2; fi
  done
done
for l in /usr/local/lib/python3*/dist-packages/nvidia/cu13/lib /usr/local/lib/python3*/site-packages/nvidia/cu13/lib \
  /usr/lib/python3*/dist-packages/nvidia/cu13/lib "$HOME"/.local/lib/python3*/site-packages/nvidia/cu13/lib \
  /opt/conda/lib/python3*/site-packages/nvidia/cu13/lib; do
  [ -d "$l" ] && gitm_cuda_dirs+=("$l")
done
if [ ${#gitm_cuda_dirs[@]} -gt 0 ]; then
  gitm_joined=$(IFS=:; echo "${gitm_cuda_dirs[*]}")
  export LD_LIBRARY_PATH="$gitm_joined${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export GITM_CUDA_LIB="${GITM_CUDA_LIB:+$GITM_CUDA_LIB:}$gitm_joined"
fi
GITM_CP="$gitm_root/.gpu/lib/*:$gitm_root/.gpu/test-lib/*"
for d in "$gitm_root"/.gpu/test-classes/*/; do
  [ -d "$d" ] && GITM_CP="$GITM_CP:${d%/}"
done
GITM_JAVA_FLAGS=(--enable-native-access=ALL-UNNAMED -Xmx4g)
export GITM_JAVA GITM_CP
