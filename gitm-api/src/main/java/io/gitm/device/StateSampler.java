package io.gitm.device;

import io.gitm.trace.StateField;
import io.gitm.trace.StateSample;
import java.util.Set;

/** Reads one device's state (NVML, ROCm SMI, or the simulator's model). */
public interface StateSampler {
  /** The fields this device and driver can read; others come back as NaN, without error. */
  Set<StateField> supported();

  /** One reading now; never throws for an unsupported field. */
  StateSample sample();
}
