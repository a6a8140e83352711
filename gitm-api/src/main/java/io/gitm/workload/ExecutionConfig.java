package io.gitm.workload;

import io.gitm.device.HostMemoryKind;
import io.gitm.device.MathMode;
import java.util.Map;

/**
 * How a managed workload executes on the runtime facade: the surface that levers change from outside, without
 * touching the workload's code. A workload honours every field or declares (in {@link WorkloadSpec#knobs()}) that a
 * field does not apply to it.
 *
 * @param hostMemory host staging buffers: pageable (the straightforward default) or pinned
 * @param allocation how per-batch device memory is obtained
 * @param poolReleaseThresholdBytes for {@link Allocation#POOL}: bytes the pool keeps instead of releasing
 * @param streams how many streams independent batches are pipelined over (1 = everything on one stream)
 * @param asyncCopies copies queued on a stream (true) or synchronous with the host (false)
 * @param copyComputeOverlap copies on their own stream, ordered with compute by events
 * @param latencyStreamPriority priority of the latency-critical stream (0 = default; lower is higher priority)
 * @param graphCapture capture one iteration's work as a graph and replay it
 * @param blockSize threads per block for the workload's elementwise kernels (0 = the workload's own choice;
 *     {@link #OCCUPANCY_BLOCK_SIZE} = what the device's occupancy API suggests for them, asked by the workload at open)
 * @param kernelVariants per kernel family, the variant to use (absent = the default variant)
 * @param mathMode cuBLAS math mode for GEMMs
 * @param l2PersistBytes bytes of the workload's hot buffer marked persisting in L2 (0 = none)
 * @param sharedCarveoutPercent preferred shared-memory carve-out for the workload's kernels (-1 = driver default)
 * @param warmup load modules and run one untimed iteration before measuring
 * @param batchCoalesce how many input batches are merged into one device batch (1 = none), where allowed
 */
public record ExecutionConfig(HostMemoryKind hostMemory, Allocation allocation, long poolReleaseThresholdBytes,
    int streams, boolean asyncCopies, boolean copyComputeOverlap, int latencyStreamPriority, boolean graphCapture,
    int blockSize, Map<String, String> kernelVariants, MathMode mathMode, long l2PersistBytes,
    int sharedCarveoutPercent, boolean warmup, int batchCoalesce) {

  /**
   * {@link #blockSize()} value asking the workload to take the block size from the device's occupancy API
   * ({@link io.gitm.device.Device#suggestedBlockSize}) for the kernels it governs.
   */
  public static final int OCCUPANCY_BLOCK_SIZE = -1;

  /** Where per-batch device memory comes from. */
  public enum Allocation {
    /** {@code cuMemAlloc}/{@code cuMemFree} every batch (the straightforward default). */
    PER_BATCH,
    /** Stream-ordered allocation from a memory pool every batch. */
    POOL,
    /** Allocated once, reused by every batch. */
    PREALLOCATED
  }

  public ExecutionConfig {
    if (hostMemory == null || allocation == null || mathMode == null) {
      throw new IllegalArgumentException("host memory, allocation and math mode are required");
    }
    if (streams < 1 || streams > 64) {
      throw new IllegalArgumentException("streams must be 1..64, got " + streams);
    }
    if (blockSize != 0 && blockSize != OCCUPANCY_BLOCK_SIZE
        && (blockSize < 32 || blockSize > 1024 || blockSize % 32 != 0)) {
      throw new IllegalArgumentException(
          "block size must be 0, -1 (occupancy API) or a multiple of 32 in 32..1024, got " + blockSize);
    }
    if (sharedCarveoutPercent < -1 || sharedCarveoutPercent > 100) {
      throw new IllegalArgumentException("shared carve-out must be -1 or 0..100, got " + sharedCarveoutPercent);
    }
    if (batchCoalesce < 1 || poolReleaseThresholdBytes < 0 || l2PersistBytes < 0) {
      throw new IllegalArgumentException("batch coalescing must be >= 1 and sizes non-negative");
    }
    kernelVariants = Map.copyOf(kernelVariants == null ? Map.of() : kernelVariants);
  }

  /**
   * The configuration a first straightforward implementation has: pageable host buffers, one stream, synchronous
   * copies, an allocation per batch, one launch per step, no graph, driver defaults everywhere.
   */
  public static ExecutionConfig shipped() {
    return new ExecutionConfig(HostMemoryKind.PAGEABLE, Allocation.PER_BATCH, 0, 1, false, false, 0, false, 0,
        Map.of(), MathMode.DEFAULT, 0, -1, false, 1);
  }

  public ExecutionConfig withHostMemory(HostMemoryKind v) {
    return new ExecutionConfig(v, allocation, poolReleaseThresholdBytes, streams, asyncCopies, copyComputeOverlap,
        latencyStreamPriority, graphCapture, blockSize, kernelVariants, mathMode, l2PersistBytes,
        sharedCarveoutPercent, warmup, batchCoalesce);
  }

  public ExecutionConfig withAllocation(Allocation v, long releaseThreshold) {
    return new ExecutionConfig(hostMemory, v, releaseThreshold, streams, asyncCopies, copyComputeOverlap,
        latencyStreamPriority, graphCapture, blockSize, kernelVariants, mathMode, l2PersistBytes,
        sharedCarveoutPercent, warmup, batchCoalesce);
  }

  public ExecutionConfig withStreams(int v, boolean async, boolean overlap) {
    return new ExecutionConfig(hostMemory, allocation, poolReleaseThresholdBytes, v, async, overlap,
        latencyStreamPriority, graphCapture, blockSize, kernelVariants, mathMode, l2PersistBytes,
        sharedCarveoutPercent, warmup, batchCoalesce);
  }

  public ExecutionConfig withLatencyStreamPriority(int v) {
    return new ExecutionConfig(hostMemory, allocation, poolReleaseThresholdBytes, streams, asyncCopies,
        copyComputeOverlap, v, graphCapture, blockSize, kernelVariants, mathMode, l2PersistBytes,
        sharedCarveoutPercent, warmup, batchCoalesce);
  }

  public ExecutionConfig withGraphCapture(boolean v) {
    return new ExecutionConfig(hostMemory, allocation, poolReleaseThresholdBytes, streams, asyncCopies,
        copyComputeOverlap, latencyStreamPriority, v, blockSize, kernelVariants, mathMode, l2PersistBytes,
        sharedCarveoutPercent, warmup, batchCoalesce);
  }

  public ExecutionConfig withBlockSize(int v) {
    return new ExecutionConfig(hostMemory, allocation, poolReleaseThresholdBytes, streams, asyncCopies,
        copyComputeOverlap, latencyStreamPriority, graphCapture, v, kernelVariants, mathMode, l2PersistBytes,
        sharedCarveoutPercent, warmup, batchCoalesce);
  }

  public ExecutionConfig withKernelVariants(Map<String, String> v) {
    return new ExecutionConfig(hostMemory, allocation, poolReleaseThresholdBytes, streams, asyncCopies,
        copyComputeOverlap, latencyStreamPriority, graphCapture, blockSize, v, mathMode, l2PersistBytes,
        sharedCarveoutPercent, warmup, batchCoalesce);
  }

  public ExecutionConfig withMathMode(MathMode v) {
    return new ExecutionConfig(hostMemory, allocation, poolReleaseThresholdBytes, streams, asyncCopies,
        copyComputeOverlap, latencyStreamPriority, graphCapture, blockSize, kernelVariants, v, l2PersistBytes,
        sharedCarveoutPercent, warmup, batchCoalesce);
  }

  public ExecutionConfig withL2PersistBytes(long v) {
    return new ExecutionConfig(hostMemory, allocation, poolReleaseThresholdBytes, streams, asyncCopies,
        copyComputeOverlap, latencyStreamPriority, graphCapture, blockSize, kernelVariants, mathMode, v,
        sharedCarveoutPercent, warmup, batchCoalesce);
  }

  public ExecutionConfig withSharedCarveout(int v) {
    return new ExecutionConfig(hostMemory, allocation, poolReleaseThresholdBytes, streams, asyncCopies,
        copyComputeOverlap, latencyStreamPriority, graphCapture, blockSize, kernelVariants, mathMode, l2PersistBytes,
        v, warmup, batchCoalesce);
  }

  public ExecutionConfig withWarmup(boolean v) {
    return new ExecutionConfig(hostMemory, allocation, poolReleaseThresholdBytes, streams, asyncCopies,
        copyComputeOverlap, latencyStreamPriority, graphCapture, blockSize, kernelVariants, mathMode, l2PersistBytes,
        sharedCarveoutPercent, v, batchCoalesce);
  }

  public ExecutionConfig withBatchCoalesce(int v) {
    return new ExecutionConfig(hostMemory, allocation, poolReleaseThresholdBytes, streams, asyncCopies,
        copyComputeOverlap, latencyStreamPriority, graphCapture, blockSize, kernelVariants, mathMode, l2PersistBytes,
        sharedCarveoutPercent, warmup, v);
  }
}
