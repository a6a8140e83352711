package io.gitm.trace;

/** A field of a device state sample, with its unit. Each is one NVML (or ROCm SMI) reading. */
public enum StateField {
  GPU_UTILIZATION("%"),
  MEMORY_UTILIZATION("%"),
  MEMORY_USED("B"),
  MEMORY_FREE("B"),
  MEMORY_TOTAL("B"),
  POWER("W"),
  POWER_LIMIT("W"),
  SM_CLOCK("MHz"),
  MEMORY_CLOCK("MHz"),
  GRAPHICS_CLOCK("MHz"),
  TEMPERATURE("C"),
  /** NVML clock-event (throttle) reason bits, as {@code nvmlDeviceGetCurrentClocksEventReasons} returns them. */
  CLOCK_EVENT_REASONS("bits"),
  PCIE_TX("B/s"),
  PCIE_RX("B/s"),
  NVLINK_TX("B/s"),
  NVLINK_RX("B/s"),
  ECC_VOLATILE_CORRECTED("count"),
  ECC_VOLATILE_UNCORRECTED("count"),
  ECC_AGGREGATE_CORRECTED("count"),
  ECC_AGGREGATE_UNCORRECTED("count"),
  RETIRED_PAGES("count"),
  REMAPPED_ROWS("count");

  private final String unit;

  StateField(String unit) {
    this.unit = unit;
  }

  public String unit() {
    return unit;
  }
}
