package io.gitm.trace;

/** One host call into the driver or runtime API (e.g. {@code cuLaunchKernel}, {@code cudaMalloc}). */
public record ApiCallRecord(ApiKind kind, String name, long threadId, long correlationId, long startNs, long endNs)
    implements TraceRecord {
  public ApiCallRecord {
    TraceRecord.checkInterval(startNs, endNs);
    kind = kind == null ? ApiKind.OTHER : kind;
    name = name == null ? "" : name;
  }
}
