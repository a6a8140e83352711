package io.gitm.trace;

/** Whether data came from a real device or from gitm's simulated one. Every output says which. */
public enum DeviceKind {
  REAL, SIMULATED;

  public String label() {
    return this == REAL ? "real" : "simulated";
  }
}
