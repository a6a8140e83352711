package io.gitm.analysis.attribution;

/** The thresholds of attribution's detectors and of the test that makes lost time a hypothesis. */
public final class Thresholds {
  /** Windows of the span, for where lost time fell and for segments without iteration markers. */
  static final int CHUNKS = 10;
  /** The smallest effect (share of the span) worth a hypothesis. */
  public static final double MIN_EFFECT = 0.005;
  /** Fewest events (gaps, kernels, sample intervals) a hypothesis rests on. */
  static final int MIN_EVENTS = 3;
  /** Adjusted p-value below which a hypothesis is reported. */
  static final double ALPHA = 0.05;

  /** A blocking host call that ended at most this long before a device-idle gap began is one of its causes. */
  static final long TOUCH_NS = 1_000;
  /** An allocation or free that held the host longer than this stalled it (a pool-served one takes 1–2 µs). */
  static final long SLOW_ALLOC_NS = 10_000;
  /** A device-idle gap with the host not blocked counts as launch-bound beyond this many launch latencies. */
  static final double LAUNCH_GAP_LATENCIES = 2;
  /** Operations issued while another stream's work was running, needed before missing overlap is judged. */
  static final int MIN_OPPORTUNITIES = 8;
  /** Share of those operations that overlapped, below which the streams are judged serialized. */
  static final double SERIAL_RATE = 0.05;
  /** How long before another stream's work ended an operation must have been ready to count as an opportunity. */
  static final long OVERLAP_MARGIN_NS = 2_000;
  /** Kernels per stream kept to find one running beside a ready operation. */
  static final int RECENT = 8;
  /** Clock deficit (share below the boost clock) under which the clock counts as at speed. */
  static final double MIN_DEFICIT = 0.02;
  /** Measured over declared bytes above which a kernel moved excess traffic (the monitor's tolerance). */
  static final double TRAFFIC_TOLERANCE = 1.25;
  /** Host copies at least this large are judged against the link's rate. */
  static final long LINK_MIN_BYTES = 64 * 1024;
  /** Share of the calibrated rate (fixed cost included) below which a host copy ran slow. */
  static final double LINK_SLOW = 0.7;
  /** Fixed device-side cost of a kernel (the planner's), left out when judging a kernel's excess. */
  static final double KERNEL_FIXED_NS = 2_500;
  /** The planner's slack over a kernel's model time in its upper bound. */
  static final double PLANNER_SLACK = 1.5;
  /** Fixed cost of a copy (the planner's). */
  static final double COPY_FIXED_NS = 3_000;

  private Thresholds() {}

  /**
   * The time a ready operation needs to start: {@link #LAUNCH_GAP_LATENCIES} launch latencies (at least 1 µs each).
   */
  static double launchGap(double launchLatencyNs) {
    return LAUNCH_GAP_LATENCIES * Math.max(1_000, launchLatencyNs);
  }
}
