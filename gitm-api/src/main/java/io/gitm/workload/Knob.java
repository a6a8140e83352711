package io.gitm.workload;

/** A field of {@link ExecutionConfig} that a workload may or may not honour. */
public enum Knob {
  HOST_MEMORY, ALLOCATION, STREAMS, ASYNC_COPIES, COPY_COMPUTE_OVERLAP, STREAM_PRIORITY, GRAPH_CAPTURE, BLOCK_SIZE,
  KERNEL_VARIANT, MATH_MODE, L2_PERSIST, SHARED_CARVEOUT, WARMUP, BATCH_COALESCE
}
