package io.gitm.levers;

/** What a lever may do to a job's output and to the device. */
public enum SafetyClass {
  /** Output bit-identical expected. */
  A,
  /** Numerics change: the output must stay within the tolerance the workload declares. */
  B,
  /**
   * Changes device settings (clocks, power limit): off unless {@code --allow-device-settings}, and exercised on the
   * simulated device only.
   */
  C
}
