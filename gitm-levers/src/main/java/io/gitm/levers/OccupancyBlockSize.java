package io.gitm.levers;

import io.gitm.analysis.attribution.Cause;
import io.gitm.workload.ExecutionConfig;
import io.gitm.workload.Knob;
import java.util.Set;

/**
 * The launch block size of the workload's elementwise kernels taken from the device's occupancy API
 * ({@code cuOccupancyMaxPotentialBlockSize}, {@link io.gitm.device.Device#suggestedBlockSize}): the workload asks it
 * for its kernels when it opens ({@link ExecutionConfig#OCCUPANCY_BLOCK_SIZE}). Replay does not model it: it keeps each
 * kernel's recorded launch shape.
 */
record OccupancyBlockSize() implements Lever {
  private static final LeverSpec SPEC = new LeverSpec("occupancy-block-size",
      "launch the elementwise kernels with the block size the occupancy API suggests",
      Set.of(Cause.MEMORY_BOUND_BELOW_ROOFLINE), SafetyClass.A, Scope.MANAGED);

  @Override
  public LeverSpec spec() {
    return SPEC;
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
}
