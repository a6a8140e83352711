package io.gitm.workload;

import io.gitm.device.KernelModule;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a managed workload declares about itself: its kernels (with their work models), the knobs it honours, the
 * kernel variants it ships, how its output may differ under numerics-changing levers, and its headline metric.
 *
 * @param outputTolerance largest allowed relative difference of the output under class-B levers (0 = bit-identical)
 * @param metric the headline metric's name and unit, e.g. {@code messages/s}
 * @param higherIsBetter whether a larger metric is an improvement
 */
public record WorkloadSpec(String name, String description, List<KernelModule> modules, Set<Knob> knobs,
    Map<String, List<String>> kernelVariants, double outputTolerance, String metric, boolean higherIsBetter) {
  public WorkloadSpec {
    modules = List.copyOf(modules);
    knobs = Set.copyOf(knobs);
    kernelVariants = Map.copyOf(kernelVariants);
  }
}
