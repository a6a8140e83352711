package io.gitm.trace;

/**
 * One kernel execution on a device.
 *
 * @param correlationId links the execution to the host API call that launched it (0 when unknown)
 * @param registersPerThread registers per thread, -1 when unknown
 * @param staticSharedBytes static shared memory per block, -1 when unknown
 * @param dynamicSharedBytes dynamic shared memory per block, -1 when unknown
 */
public record KernelRecord(String name, int device, int stream, long correlationId, long startNs, long endNs,
    Dim3 grid, Dim3 block, int registersPerThread, int staticSharedBytes, int dynamicSharedBytes)
    implements TraceRecord {
  public KernelRecord {
    if (name == null || name.isEmpty()) {
      throw new IllegalArgumentException("kernel without a name");
    }
    TraceRecord.checkInterval(startNs, endNs);
    grid = grid == null ? Dim3.ONE : grid;
    block = block == null ? Dim3.ONE : block;
  }
}
