package io.gitm.sim;

import java.util.Map;

/**
 * One fault injected into a simulated device: its name (see {@link FaultKind}), when it starts and ends on the
 * simulated clock, and its parameters with every default filled in.
 *
 * @param endNs {@link Long#MAX_VALUE} when the fault lasts to the end of the run
 * @param kernel for faults that hit some kernels: the substring of the kernel entries hit (empty = all)
 */
public record InjectedFault(String name, long onsetNs, long endNs, Map<String, Double> params, String kernel) {
  public InjectedFault {
    params = Map.copyOf(params);
    kernel = kernel == null ? "" : kernel;
  }

  /** Whether the fault is in force at simulated time {@code t}. */
  public boolean activeAt(long t) {
    return t >= onsetNs && t < endNs;
  }

  public double param(String key) {
    Double v = params.get(key);
    if (v == null) {
      throw new IllegalStateException("fault " + name + " has no parameter " + key);
    }
    return v;
  }
}
