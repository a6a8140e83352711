package io.gitm.trace;

/**
 * A named host-side range or instant the job or gitm marks (an iteration, a batch, a phase); instants have
 * {@code startNs == endNs}.
 */
public record MarkerRecord(String name, long threadId, long startNs, long endNs) implements TraceRecord {
  public MarkerRecord {
    TraceRecord.checkInterval(startNs, endNs);
    name = name == null ? "" : name;
  }
}
