package io.gitm.analysis.critical;

/** The kinds of edge of the critical-path graph, as docs/trace-analysis.md defines them. */
public enum Edge {
  /** Host time inside an operation or API call on its thread (from a start or end to the next, nested). */
  HOST_OP,
  /** From the start of a launch call to the start of the device work it launched, the stream being empty. */
  LAUNCH,
  /** The execution of a kernel, copy or memset. */
  KERNEL,
  /** A synchronization: device work ending to the host call that waited for it; no time of its own. */
  SYNC,
  /** The device idle between two operations of one stream, the next one already launched. */
  IDLE,
  /** Order without time: one top-level host operation to the next on its thread. */
  DEPENDENCY;

  /** Whether an edge of this kind weighs the time between its ends (else nothing). */
  boolean timed() {
    return this == HOST_OP || this == LAUNCH || this == KERNEL || this == IDLE;
  }
}
