package io.gitm.sim;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The faults a simulated device can inject, with their parameters and defaults. Every fault also takes
 * {@code duration} (a time; absent = to the end of the run). The effects are described in {@code docs/sim.md}.
 */
enum FaultKind {
  /** Hot inlet / failing cooling: ambient rises by {@code severity} x 60 C; the thermal model and governor react. */
  THERMAL("thermal", "severity", 0.5),
  /** Board power limit lowered to {@code watts} (0 = half the default limit): SW power cap (0x4). */
  POWER_CAP("power-cap", "watts", 0),
  /** SM clock locked to {@code mhz} (0 = half the boost clock): applications clocks setting (0x2). */
  CLOCK_DROP("clock-drop", "mhz", 0),
  /** Stream-ordered allocations and frees become synchronizing cuMemAlloc/cuMemFree calls. */
  ALLOCATOR_CHURN("allocator-churn", "factor", 1),
  /** Pinned host memory silently behaves as pageable: copies are staged and block the host. */
  PAGEABLE_COPIES("pageable-copies"),
  /** All streams share one hardware queue: no two operations overlap. */
  SERIALIZED_STREAMS("serialized-streams"),
  /** The host spends {@code gapUs} microseconds between launches. */
  LAUNCH_BOUND("launch-bound", "gapUs", 20),
  /** Kernels (whose entry contains {@code kernel}, when given) move {@code factor} times their bytes. */
  UNCOALESCED("uncoalesced", "factor", 4),
  /** Another tenant holds {@code sms} multiprocessors (0 = half of them). */
  NOISY_NEIGHBOUR("noisy-neighbour", "sms", 0),
  /**
   * Another context time-slices the device (no MPS): from the onset the job's work runs for {@code jobSliceUs}, then
   * the other context's for {@code sliceUs}, and so on; kernels are paused across the other's slices.
   */
  TIME_SLICING("time-slicing", "sliceUs", 1500, "jobSliceUs", 1500),
  /** Every {@code every}-th launch is followed by a synchronous host call that waits for the device. */
  SYNC_STALL("sync-stall", "every", 10),
  /** Host link trained at {@code factor} of its rate (e.g. x16 to x8 = 0.5). */
  PCIE_DOWNGRADE("pcie-downgrade", "factor", 0.5),
  /** External power brake: SM clock at {@code factor} of the governor's (reasons 0x80 | 0x8). */
  POWER_BRAKE("power-brake", "factor", 0.5),
  /** Retired memory pages: device-memory bandwidth at {@code factor}; retired-page count {@code pages}. */
  ECC_RETIREMENT("ecc-retirement", "factor", 0.85, "pages", 24);

  final String id;
  final Map<String, Double> defaults;

  FaultKind(String id, Object... paramsAndDefaults) {
    this.id = id;
    Map<String, Double> d = new LinkedHashMap<>();
    for (int i = 0; i < paramsAndDefaults.length; i += 2) {
      d.put((String) paramsAndDefaults[i], ((Number) paramsAndDefaults[i + 1]).doubleValue());
    }
    this.defaults = d;
  }

  static FaultKind byId(String id) {
    for (FaultKind k : values()) {
      if (k.id.equals(id.toLowerCase(Locale.ROOT))) {
        return k;
      }
    }
    if (id.equalsIgnoreCase("noisy-neighbor")) {
      return NOISY_NEIGHBOUR;
    }
    throw new IllegalArgumentException("unknown fault '" + id + "': known faults are "
        + Arrays.stream(values()).map(k -> k.id).collect(Collectors.joining(", ")));
  }
}
