package io.gitm.kernels;

import io.gitm.device.DeviceInfo;
import io.gitm.optimizer.attribution.Hypothesis;
import io.gitm.workload.WorkloadSpec;
import java.util.List;
import java.util.Map;

/**
 * What a lever's precondition may look at.
 *
 * @param workload the managed workload's spec (knobs it honours, variants it ships, output tolerance); null for a
 *     process job
 * @param device the device the job runs on
 * @param hypotheses the ranked attribution, best first
 * @param traceFacts facts read off the captured trace, by name (e.g. {@code streams}, {@code pageableCopies},
 *     {@code plainAllocations}, {@code launches}, {@code gemms}); absent = unknown
 * @param allowDeviceSettings whether class-C levers may be used ({@code --allow-device-settings})
 */
public record LeverContext(WorkloadSpec workload, DeviceInfo device, List<Hypothesis> hypotheses,
    Map<String, Double> traceFacts, boolean allowDeviceSettings) {
  public LeverContext {
    hypotheses = List.copyOf(hypotheses == null ? List.of() : hypotheses);
    traceFacts = Map.copyOf(traceFacts == null ? Map.of() : traceFacts);
  }

  public double fact(String name, double otherwise) {
    return traceFacts.getOrDefault(name, otherwise);
  }
}
