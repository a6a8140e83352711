package io.gitm.trace;

/** What a trace's nanosecond timestamps count from. */
public enum ClockDomain {
  /** The host's monotonic clock (CLOCK_MONOTONIC); CUPTI timestamps are aligned to it. */
  HOST_MONOTONIC,
  /** Nanoseconds since the Unix epoch (e.g. imported profiler traces). */
  UNIX_EPOCH,
  /** The simulated device's own time, from zero at its start. */
  SIMULATED
}
