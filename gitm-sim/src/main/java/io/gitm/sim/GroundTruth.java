package io.gitm.sim;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a simulated run really had: preset, seed and the injected faults. The analysis never reads it; tests and the
 * run store do (as metadata under {@code sim.*} keys) to score the analysis.
 */
public record GroundTruth(String preset, long seed, String faultSpec, List<InjectedFault> faults) {
  public GroundTruth {
    faults = List.copyOf(faults);
  }

  /** Flat metadata: {@code sim.preset}, {@code sim.seed}, {@code sim.faults}, {@code sim.fault.<i>.name} … */
  public Map<String, String> metadata() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("sim.preset", preset);
    m.put("sim.seed", Long.toString(seed));
    m.put("sim.faults", faultSpec);
    for (int i = 0; i < faults.size(); i++) {
      InjectedFault f = faults.get(i);
      String p = "sim.fault." + i + ".";
      m.put(p + "name", f.name());
      m.put(p + "onsetNs", Long.toString(f.onsetNs()));
      m.put(p + "endNs", f.endNs() == Long.MAX_VALUE ? "end" : Long.toString(f.endNs()));
      if (!f.kernel().isEmpty()) {
        m.put(p + "kernel", f.kernel());
      }
      f.params().entrySet().stream().sorted(Map.Entry.comparingByKey())
          .forEach(e -> m.put(p + "param." + e.getKey(), Double.toString(e.getValue())));
    }
    return m;
  }
}
