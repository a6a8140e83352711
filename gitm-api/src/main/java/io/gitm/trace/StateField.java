package io.gitm.trace;

/**
 * A field of a device state sample, with its unit. Each is one NVML (or ROCm SMI) reading. Fields are written to
 * trace files by ordinal: a new field is appended, never inserted, so that files written before it still read.
 */
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
  REMAPPED_ROWS("count"),
  /**
   * Compute processes on the device that are not the traced job's (a neighbour sharing it); 0 when the job is alone.
   * NaN when the device's process list could not be read.
   */
  OTHER_PROCESSES("count"),
  /**
   * The SM utilization of those other processes, summed: each one's mean over NVML's per-process samples since the
   * last read (a process with no sample was idle, 0). 0 with no other process; NaN when NVML keeps no per-process
   * samples or the list could not be read.
   */
  OTHER_SM_UTILIZATION("%");

  private final String unit;

  StateField(String unit) {
    this.unit = unit;
  }

  public String unit() {
    return unit;
  }
}
