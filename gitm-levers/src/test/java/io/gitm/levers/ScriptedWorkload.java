package io.gitm.levers;

import io.gitm.device.Device;
import io.gitm.workload.ExecutionConfig;
import io.gitm.workload.IterationResult;
import io.gitm.workload.Knob;
import io.gitm.workload.OutputDigest;
import io.gitm.workload.Workload;
import io.gitm.workload.WorkloadSpec;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * A workload that does no device work: each session has {@code steps} steps of {@code nanosPerStep} and
 * {@code unitsPerStep}, and throws what it is told to when it opens or at a given step. It remembers its sessions and
 * the devices they were opened on.
 */
final class ScriptedWorkload implements Workload {
  final int steps;
  final long nanosPerStep;
  final long unitsPerStep;
  final boolean higherIsBetter;
  Supplier<RuntimeException> onOpen;
  Supplier<RuntimeException> onStep;
  int failAtStep = -1;
  final List<Scripted> sessions = new ArrayList<>();

  ScriptedWorkload(int steps, long nanosPerStep, long unitsPerStep, boolean higherIsBetter) {
    this.steps = steps;
    this.nanosPerStep = nanosPerStep;
    this.unitsPerStep = unitsPerStep;
    this.higherIsBetter = higherIsBetter;
  }

  @Override
  public WorkloadSpec spec() {
    return new WorkloadSpec("scripted", "steps without device work", List.of(), Set.of(Knob.BATCH_COALESCE), Map.of(),
        0, higherIsBetter ? "units/s" : "ms/batch", higherIsBetter);
  }

  @Override
  public Session open(Device device, ExecutionConfig config, Path dataDir) {
    if (onOpen != null) {
      throw onOpen.get();
    }
    Scripted s = new Scripted(device, config);
    sessions.add(s);
    return s;
  }

  final class Scripted implements Session {
    final Device device;
    final ExecutionConfig config;
    int done;
    boolean closed;

    Scripted(Device device, ExecutionConfig config) {
      this.device = device;
      this.config = config;
    }

    @Override
    public IterationResult step() {
      if (done == failAtStep && onStep != null) {
        throw onStep.get();
      }
      done++;
      // the step's time passes on the device's clock, which is what a managed job's block measures
      if (device instanceof io.gitm.sim.SimDevice sim) {
        sim.hostWork(nanosPerStep);
      }
      return new IterationResult(nanosPerStep, unitsPerStep, Map.of());
    }

    @Override
    public boolean hasNext() {
      return done < steps;
    }

    @Override
    public OutputDigest output() {
      return new OutputDigest("steps-" + done, new double[] {done});
    }

    @Override
    public void close() {
      closed = true;
    }
  }
}
