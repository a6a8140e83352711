package io.gitm.trace;


/**
 * The work one kernel launch declares (its {@link Work} model evaluated on the launch's configuration and arguments),
 * recorded by the runtime facade at the launch, on the host clock. The planner predicts the kernel's time from it.
 * It is matched to the kernel's execution by {@code correlationId} where the backend knows it, else by order: the
 * n-th work record of a kernel name on a stream belongs to the n-th execution of that name on that stream.
 *
 * @param correlationId the launch's correlation id, 0 when the backend cannot tell it at launch time
 */
public record WorkRecord(String kernel, int device, int stream, long correlationId, long timeNs, double flops,
    Precision precision, long bytesRead, long bytesWritten, long dependentAccesses, long dependentOnChipAccesses)
    implements TraceRecord {
  public WorkRecord {
    if (kernel == null || kernel.isEmpty()) {
      throw new IllegalArgumentException("work record without a kernel name");
    }
    precision = precision == null ? Precision.FP32 : precision;
    // validates the figures the same way a Work does
    new Work(flops, precision, bytesRead, bytesWritten, dependentAccesses, dependentOnChipAccesses);
  }

  public static WorkRecord of(String kernel, int device, int stream, long correlationId, long timeNs, Work w) {
    return new WorkRecord(kernel, device, stream, correlationId, timeNs, w.flops(), w.precision(), w.bytesRead(),
        w.bytesWritten(), w.dependentAccesses(), w.dependentOnChipAccesses());
  }

  public Work work() {
    return new Work(flops, precision, bytesRead, bytesWritten, dependentAccesses, dependentOnChipAccesses);
  }

  @Override
  public long startNs() {
    return timeNs;
  }

  @Override
  public long endNs() {
    return timeNs;
  }
}
