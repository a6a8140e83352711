package io.gitm.levers;

import io.gitm.analysis.attribution.Cause;
import io.gitm.device.DeviceInfo;
import io.gitm.sim.Replay;
import io.gitm.workload.Knob;
import java.util.Optional;
import java.util.Set;

/**
 * The latency-critical stream created at the device's greatest (most urgent) priority, so that its blocks are
 * scheduled before those of the job's bulk streams (priority 0). The workload says which stream that is (hft-lob: the
 * signal stream that runs book, features and signal); it exists beside bulk streams only with several compute
 * streams, so the lever applies only there and changes nothing but that stream's priority.
 */
record StreamPriority() implements Lever {
  @Override
  public String id() {
    return "stream-priority";
  }

  @Override
  public String description() {
    return "create the latency-critical stream at the device's highest priority";
  }

  @Override
  public Set<Cause> addresses() {
    return Set.of(Cause.FALSE_SERIALIZATION);
  }

  @Override
  public SafetyClass safety() {
    return SafetyClass.A;
  }

  @Override
  public Scope scope() {
    return Scope.MANAGED;
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
      throw new IllegalArgumentException("stream-priority needs the device's priority range, and the device is unknown");
    }
    return s.withConfig(s.config().withLatencyStreamPriority(c.device().greatestStreamPriority()));
  }

  /** Empty: replay does not model stream priorities. */
  @Override
  public Optional<Replay.Change> counterfactual(Replay.Change base) {
    return Optional.empty();
  }
}
