package io.gitm.trace;

/**
 * One host operation: a framework operator or a range it marks on a host thread (Kineto's {@code cpu_op} events,
 * e.g. {@code aten::mm}). Operations nest by time on their thread: one that starts and ends within another is its
 * child; the nesting is not stored, it follows from the times of the thread's operations.
 *
 * @param externalId the id that links the operation to the launches it made and the device work they caused (Kineto's
 *     {@code External id}), 0 when unknown
 */
public record HostOpRecord(String name, long threadId, long externalId, long startNs, long endNs)
    implements TraceRecord {
  public HostOpRecord {
    TraceRecord.checkInterval(startNs, endNs);
    name = name == null ? "" : name;
  }
}
