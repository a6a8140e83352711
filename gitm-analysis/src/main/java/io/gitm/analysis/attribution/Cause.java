package io.gitm.analysis.attribution;

/**
 * The fixed taxonomy of causes a slowdown is attributed to. Every hypothesis names one; every lever names the causes
 * it addresses.
 */
public enum Cause {
  THERMAL_THROTTLING("thermal throttling",
      "the SM clock is lowered because the GPU is hot (clock-event reasons 0x20/0x40)"),
  POWER_THROTTLING("power throttling", "the SM clock is lowered to stay under the board power limit (reason 0x4)"),
  POWER_BRAKE("hardware power brake", "an external power-brake signal slows the clock (reasons 0x80/0x8)"),
  CLOCK_DROP("clock drop", "the SM clock is held below its boost clock by a clock setting (reason 0x2)"),
  ALLOCATOR_STALL("allocator stall", "plain device allocations and frees synchronize the device and cost host time"),
  LAUNCH_BOUND_HOST("launch-bound host", "the device idles between kernels waiting for the host to launch the next"),
  FALSE_SERIALIZATION("false serialization", "independent work that could overlap runs one piece after another"),
  PAGEABLE_COPIES("pageable copies", "host copies from pageable memory are staged by the driver and block the host"),
  SYNCHRONOUS_HOST_CALLS("synchronous host calls", "the host waits for the device more often than the job needs"),
  MEMORY_BOUND_BELOW_ROOFLINE("memory-bound below roofline",
      "kernels take longer than their bytes at the measured bandwidth allow"),
  EXCESS_TRAFFIC("excess memory traffic",
      "kernels move more bytes than their work needs (uncoalesced or redundant access)"),
  CONTENTION("contention", "another tenant holds part of the device"),
  HOST_LINK_DEGRADED("host link degraded", "host-device copies run below the link's measured rate"),
  MEMORY_DEGRADED("device memory degraded", "device-memory bandwidth is below its measured rate (e.g. retired pages)"),
  COLD_START("cold start", "first launches pay module loading and lazy initialization");

  private final String label;
  private final String description;

  Cause(String label, String description) {
    this.label = label;
    this.description = description;
  }

  /** A short name for people, e.g. {@code allocator stall}. */
  public String label() {
    return label;
  }

  public String description() {
    return description;
  }
}
