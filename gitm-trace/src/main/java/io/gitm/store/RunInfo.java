package io.gitm.store;

import java.util.Map;

/**
 * What a run is: its id, what it optimizes, on which device, with which budget and target, and when it started.
 * Stored as {@code run.json} in the run's folder.
 *
 * @param device the backend kind and whether it is real or simulated, e.g. {@code {"kind": "simulated", ...}}
 */
public record RunInfo(String id, String workload, String command, String budget, String target,
    Map<String, String> device, String createdAt, String gitmVersion) {
  public RunInfo {
    device = Map.copyOf(device == null ? Map.of() : device);
  }
}
