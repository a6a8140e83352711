# Sourced by scripts/gpu-suite.sh and the scripts/gpu.d parts: finds the Java runtime ($GITM_JAVA) and the CUDA
# library folders (the toolkit's lib64 onto LD_LIBRARY_PATH; it and PyTorch's bundled nvidia/cu13/lib into
# GITM_CUDA_LIB, where gitm's own library search looks). Defines GITM_CP, the class path of every runtime and test jar.
gitm_root=${gitm_root:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
if [ -x "$gitm_root/.gpu/jdk/bin/java" ]; then
  GITM_JAVA="$gitm_root/.gpu/jdk/bin/java"
elif [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then
  GITM_JAVA="$JAVA_HOME/bin/java"
else
  GITM_JAVA=$(command -v java || echo java)
fi
gitm_toolkit_lib=""
for d in ${CUDA_HOME:-} ${CUDA_PATH:-} /usr/local/cuda /usr/local/cuda-*; do
  for l in "$d/lib64" "$d/lib"; do
    if [ -d "$l" ] && ls "$l"/libcupti.so* >/dev/null 2>&1; then gitm_toolkit_lib=$(readlink -f "$l"); break 2; fi
  done
done
gitm_wheel_libs=""
for l in /usr/local/lib/python3*/dist-packages/nvidia/cu13/lib /usr/local/lib/python3*/site-packages/nvidia/cu13/lib \
  /usr/lib/python3*/dist-packages/nvidia/cu13/lib "$HOME"/.local/lib/python3*/site-packages/nvidia/cu13/lib \
  /opt/conda/lib/python3*/site-packages/nvidia/cu13/lib; do
  [ -d "$l" ] && gitm_wheel_libs="${gitm_wheel_libs:+$gitm_wheel_libs:}$l"
done
# Only the toolkit's folder goes on LD_LIBRARY_PATH (PyTorch jobs in other parts keep loading their own bundled
# copies); gitm itself also searches PyTorch's folder, through GITM_CUDA_LIB.
if [ -n "$gitm_toolkit_lib" ]; then
  export LD_LIBRARY_PATH="$gitm_toolkit_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
gitm_found="${gitm_toolkit_lib}${gitm_wheel_libs:+${gitm_toolkit_lib:+:}$gitm_wheel_libs}"
if [ -n "$gitm_found" ]; then
  export GITM_CUDA_LIB="${GITM_CUDA_LIB:+$GITM_CUDA_LIB:}$gitm_found"
fi
GITM_CP="$gitm_root/.gpu/lib/*:$gitm_root/.gpu/test-lib/*"
for d in "$gitm_root"/.gpu/test-classes/*/; do
  [ -d "$d" ] && GITM_CP="$GITM_CP:${d%/}"
done
GITM_JAVA_FLAGS=(--enable-native-access=ALL-UNNAMED -Xmx4g)
export GITM_JAVA GITM_CP
