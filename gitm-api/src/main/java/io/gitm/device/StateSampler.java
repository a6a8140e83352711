package io.gitm.device;

import io.gitm.trace.StateField;
import io.gitm.trace.StateSample;
import java.util.Set;
import java.util.function.Supplier;

/** Reads one device's state (NVML, ROCm SMI, or the simulator's model). */
public interface StateSampler {
  /** The fields this device and driver can read; others come back as NaN, without error. */
  Set<StateField> supported();

  /** One reading now; never throws for an unsupported field. */
  StateSample sample();

  /**
   * Which pids are the traced job's, for {@link StateField#OTHER_PROCESSES} (every other compute process on the
   * device is a neighbour), asked at each read of the device's processes. A sampler that does not read processes
   * ignores it.
   */
  default void jobProcesses(Supplier<Set<Long>> pids) {
  }
}
