package io.gitm.levers;

import io.gitm.analysis.attribution.Cause;
import io.gitm.sim.Replay;
import io.gitm.workload.ExecutionConfig;
import io.gitm.workload.Knob;
import java.util.Optional;
import java.util.Set;

/**
 * The launch block size of the workload's elementwise kernels taken from the device's occupancy API
 * ({@code cuOccupancyMaxPotentialBlockSize}, {@link io.gitm.device.Device#suggestedBlockSize}): the workload asks it
 * for its kernels when it opens ({@link ExecutionConfig#OCCUPANCY_BLOCK_SIZE}).
 */
record OccupancyBlockSize() implements Lever {
  @Override
  public String id() {
    return "occupancy-block-size";
  }

  @Override
  public String description() {
    return "launch the elementwise kernels with the block size the occupancy API suggests";
  }

  @Override
  public Set<Cause> addresses() {
    return Set.of(Cause.MEMORY_BOUND_BELOW_ROOFLINE);
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
    Applicability no = Checks.honours(c, Knob.BLOCK_SIZE);
    if (no != null) {
      return no;
    }
    int b = c.setup().config().blockSize();
    if (b == ExecutionConfig.OCCUPANCY_BLOCK_SIZE) {
      return Applicability.no("the block size already comes from the occupancy API");
    }
    return Applicability.yes("the block size is " + (b == 0 ? "the workload's own choice" : b + " threads"));
  }

  @Override
  public Setup apply(Setup s, LeverContext c) {
    return s.withConfig(s.config().withBlockSize(ExecutionConfig.OCCUPANCY_BLOCK_SIZE));
  }

  /** Empty: replay keeps each kernel's recorded launch shape. */
  @Override
  public Optional<Replay.Change> counterfactual(Replay.Change base) {
    return Optional.empty();
  }
}
