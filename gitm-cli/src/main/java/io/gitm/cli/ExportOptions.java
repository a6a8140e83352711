package io.gitm.cli;

import io.gitm.api.Ticker;
import io.gitm.export.DeviceLabels;
import io.gitm.export.MetricsExporter;
import io.gitm.nvidia.nvml.NvmlSampler;
import io.gitm.run.RunEvents;
import java.io.PrintWriter;
import java.util.List;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/**
 * {@code gitm run}'s metrics export: {@code --prometheus} serves the run's progress (phase, elapsed and remaining
 * time, best gain so far, trials done and kept) and, on a real GPU, the GPU's state sampled through NVML, on
 * {@code /metrics}; {@code --otlp} pushes the same, with the run's phases and trials as spans. On the simulated
 * device the state is not exported during a run: the model advances only as the job runs on it, and reading it from
 * outside would change the modeled timeline (and a seeded run's result); {@code gitm agent} serves the simulated
 * device's state.
 */
final class ExportOptions implements AutoCloseable {
  @Option(names = "--prometheus",
      description = "Serve the run's progress and the GPU's state as Prometheus metrics on /metrics (see --listen).")
  boolean prometheus;

  @CommandLine.Mixin
  ExportTargets targets = new ExportTargets();

  private MetricsExporter exporter;

  /**
   * The listener the run reports to: {@code progress} itself when nothing is exported; otherwise {@code progress}
   * wrapped by a started exporter, which also samples GPU {@code ordinal} through NVML when {@code realGpu}.
   */
  RunEvents wrap(CommandLine cl, RunEvents progress, boolean realGpu, int ordinal, Ticker wall) {
    boolean serve = prometheus || targets.listen != null;
    if (!serve && targets.otlp == null) {
      return progress;
    }
    exporter = targets.start(cl, serve, wall);
    PrintWriter err = cl.getErr();
    String state;
    if (realGpu) {
      try {
        NvmlSampler s = NvmlSampler.open(ordinal, wall);
        exporter.addDevice(DeviceLabels.nvidia(ordinal, s.uuid(), s.name(), exporter.hostname()));
        exporter.sample(List.of(s), targets.sampleHz);
        state = "GPU " + ordinal + " (" + s.name() + ") through NVML at " + hz(targets.sampleHz);
      } catch (RuntimeException | LinkageError e) {
        state = "no GPU state (NVML not usable: " + Main.oneLine(String.valueOf(e.getMessage())) + ")";
      }
    } else {
      state = "no device state (the simulated device is modeled on the run's own clock; gitm agent serves it)";
    }
    err.println("gitm: metrics: " + targets.describe(exporter) + "; run progress and " + state);
    err.flush();
    return exporter.around(progress);
  }

  static String hz(double hz) {
    return (hz == Math.rint(hz) ? Long.toString((long) hz) : Double.toString(hz)) + " Hz";
  }

  @Override
  public void close() {
    if (exporter != null) {
      exporter.close();
      exporter = null;
    }
  }
}
