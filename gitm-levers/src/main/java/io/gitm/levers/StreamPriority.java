package io.gitm.levers;

import io.gitm.analysis.attribution.Cause;
import io.gitm.device.DeviceInfo;
import io.gitm.workload.Knob;
import java.util.Set;

/**
 * The latency-critical stream created at the device's greatest (most urgent) priority, so that its blocks are
 * scheduled before those of the job's bulk streams (priority 0). The workload says which stream that is (hft-lob: the
 * signal stream that runs book, features and signal); it exists beside bulk streams only with several compute
 * streams, so the lever applies only there and changes nothing but that stream's priority. Replay does not model stream
 * priorities.
 */
record StreamPriority() implements Lever {
  private static final LeverSpec SPEC = new LeverSpec("stream-priority",
      "create the latency-critical stream at the device's highest priority", Set.of(Cause.FALSE_SERIALIZATION),
      SafetyClass.A, Scope.MANAGED);

  @Override
  public LeverSpec spec() {
    return SPEC;
  }

  @Override
  public Applicability check(LeverContext c) {
    Applicability no = Checks.honours(c, Knob.STREAM_PRIORITY);
    if (no != null) {
      return no;
    }
    DeviceInfo d = c.device();
    if (d == null) {
      return Applicability.no("the device is unknown, so is its stream-priority range");
    }
    if (d.greatestStreamPriority() >= d.leastStreamPriority()) {
      return Applicability.no(d.name() + " has a single stream priority");
    }
    var cfg = c.setup().config();
    if (cfg.streams() < 2 || cfg.graphCapture()) {
      return Applicability.no("the latency-critical (signal) stream contends with bulk streams only with several "
          + "compute streams and no graph capture: apply streams-2 or streams-4 first"
          + (cfg.graphCapture() ? ", without graph-capture" : ""));
    }
    if (cfg.latencyStreamPriority() == d.greatestStreamPriority()) {
      return Applicability.no("the latency-critical stream already has the highest priority, "
          + d.greatestStreamPriority());
    }
    return Applicability.yes("the latency-critical stream has priority " + c.setup().config().latencyStreamPriority()
        + " of " + d.greatestStreamPriority() + ".." + d.leastStreamPriority());
  }

  @Override
  public Setup apply(Setup s, LeverContext c) {
    if (c.device() == null) {
      throw new IllegalArgumentException("stream-priority needs the device's priority range, and the device is "
          + "unknown");
    }
    return s.withConfig(s.config().withLatencyStreamPriority(c.device().greatestStreamPriority()));
  }
}
