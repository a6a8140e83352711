package io.gitm.kernels;

import io.gitm.device.DeviceInfo;
import io.gitm.optimizer.attribution.Cause;
import io.gitm.sim.Replay;
import io.gitm.workload.Knob;
import java.util.Optional;
import java.util.Set;

/**
 * The latency-critical stream created at the device's greatest (most urgent) priority, so that its blocks are
 * scheduled before those of lower-priority streams of the same context.
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
    if (c.setup().config().latencyStreamPriority() == d.greatestStreamPriority()) {
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

  /** Empty: replay (like the simulated device) does not model stream priorities. */
  @Override
  public Optional<Replay.Change> counterfactual(Replay.Change base) {
    return Optional.empty();
  }
}
