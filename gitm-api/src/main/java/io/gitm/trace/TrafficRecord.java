package io.gitm.trace;

/**
 * Device-memory bytes one kernel execution really moved, as measured (the simulated device's model, or a profiler
 * such as {@code ncu} on a GPU). The monitor compares it with the declared {@link WorkRecord}.
 *
 * @param source who measured it, e.g. {@code sim} or {@code ncu}
 */
public record TrafficRecord(int device, long correlationId, long timeNs, long bytesRead, long bytesWritten,
    String source) implements TraceRecord {
  public TrafficRecord {
    if (bytesRead < 0 || bytesWritten < 0) {
      throw new IllegalArgumentException("negative traffic: " + bytesRead + "/" + bytesWritten + " B");
    }
    source = source == null ? "" : source;
  }

  public long bytes() {
    return bytesRead + bytesWritten;
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
