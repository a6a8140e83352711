package io.gitm.trace;

/**
 * What one launch of a kernel does: {@code flops} operations in {@code precision}, the bytes it must read from and
 * write to device memory, and the longest chain of dependent memory accesses one thread performs: accesses where
 * each needs the result of the one before (a pointer chase, a probe loop whose next address or exit depends on the
 * value loaded, a serial load-add-store loop). Bytes and flops bound a kernel by bandwidth and throughput; the chain
 * bounds it by memory latency, which no amount of parallelism hides. The chain is split by where its steps are
 * served, since the two differ about tenfold in latency:
 *
 * @param dependentAccesses steps of the chain that leave the multiprocessor (a line not in its L1: served by L2 or
 *     device memory)
 * @param dependentOnChipAccesses steps of the chain served on the multiprocessor (L1 hits on lines the thread just
 *     touched, shared memory)
 *
 * <p>Both 0 means no chain worth modelling (or unknown). The planner predicts from this record and the simulated
 * device times from it.
 */
public record Work(double flops, Precision precision, long bytesRead, long bytesWritten, long dependentAccesses,
    long dependentOnChipAccesses) {
  public static final Work NONE = new Work(0, Precision.FP32, 0, 0);

  public Work {
    if (flops < 0 || bytesRead < 0 || bytesWritten < 0 || Double.isNaN(flops)) {
      throw new IllegalArgumentException(
          "negative work: " + flops + " flops, " + bytesRead + "/" + bytesWritten + " B");
    }
    if (dependentAccesses < 0 || dependentOnChipAccesses < 0) {
      throw new IllegalArgumentException("negative dependent-access chain: " + dependentAccesses + " off-chip, "
          + dependentOnChipAccesses + " on-chip");
    }
    precision = precision == null ? Precision.FP32 : precision;
  }

  /** Work without a dependent-access chain. */
  public Work(double flops, Precision precision, long bytesRead, long bytesWritten) {
    this(flops, precision, bytesRead, bytesWritten, 0, 0);
  }

  public long bytes() {
    return bytesRead + bytesWritten;
  }

  /** Flops per byte moved; infinite when no bytes move. */
  public double arithmeticIntensity() {
    return bytes() == 0 ? Double.POSITIVE_INFINITY : flops / bytes();
  }

  /** True when some thread performs a chain of dependent accesses. */
  public boolean hasChain() {
    return dependentAccesses > 0 || dependentOnChipAccesses > 0;
  }

  /** This work with its bytes replaced, the rest kept. */
  public Work withBytes(long read, long written) {
    return new Work(flops, precision, read, written, dependentAccesses, dependentOnChipAccesses);
  }

  /** This work in another precision, the rest kept. */
  public Work withPrecision(Precision p) {
    return new Work(flops, p, bytesRead, bytesWritten, dependentAccesses, dependentOnChipAccesses);
  }

  /** This work with the given chain, the rest kept. */
  public Work withChain(long offChip, long onChip) {
    return new Work(flops, precision, bytesRead, bytesWritten, offChip, onChip);
  }
}
