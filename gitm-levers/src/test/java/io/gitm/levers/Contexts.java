package io.gitm.levers;

import io.gitm.analysis.attribution.Cause;
import io.gitm.analysis.attribution.Hypothesis;
import io.gitm.device.DeviceInfo;
import io.gitm.sim.SimDevice;
import io.gitm.sim.SimSpec;
import io.gitm.trace.DeviceKind;
import io.gitm.workload.WorkloadSpec;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Lever contexts the tests share. */
final class Contexts {
  private Contexts() {
  }

  /** The simulated h200 as a lever sees it. */
  static final DeviceInfo SIM_H200 = SimDevice.open(SimSpec.preset("h200"), 0, "").info();

  /** A real H200 (as the NVIDIA backend would describe it). */
  static final DeviceInfo REAL_H200 = new DeviceInfo("nvidia", DeviceKind.REAL, 0, "NVIDIA H200", "GPU-0", "9.0", 132,
      150_109_880_320L, 62_914_560, "580.159.04", 0, -5);

  /** Facts of a host with 2 CPUs whose job keeps 4 threads busy. */
  static final Map<String, Double> HOST = Map.of(LeverContext.FACT_HOST_CPUS, 2.0, LeverContext.FACT_HOST_THREADS,
      4.0);

  static final WorkloadSpec HFT = HftOnSim.workload().spec();

  /** hft-lob on the simulated h200 under {@code setup}, with {@link #HOST}'s facts. */
  static LeverContext hft(Setup setup) {
    return new LeverContext(HFT, SIM_H200, List.of(), HOST, false, setup);
  }

  /** The same spec honouring no knob and shipping no variant. */
  static WorkloadSpec withoutKnobs(WorkloadSpec s) {
    return new WorkloadSpec(s.name(), s.description(), s.modules(), Set.of(), Map.of(), s.outputTolerance(),
        s.metric(), s.higherIsBetter());
  }

  /** A black-box process on {@code device}. */
  static LeverContext process(DeviceInfo device, Setup setup) {
    return new LeverContext(null, device, List.of(), HOST, false, setup);
  }

  static Hypothesis suspect(Cause c) {
    return new Hypothesis(c, 0.3, 0.2, 0.4, 0.001, 0.9, List.of());
  }
}
