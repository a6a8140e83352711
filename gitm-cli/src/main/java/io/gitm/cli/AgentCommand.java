package io.gitm.cli;

import io.gitm.api.Ticker;
import io.gitm.device.Device;
import io.gitm.device.Devices;
import io.gitm.device.StateSampler;
import io.gitm.export.DeviceLabels;
import io.gitm.export.MetricsExporter;
import io.gitm.nvidia.nvml.NvmlSampler;
import io.gitm.sim.SimDevice;
import io.gitm.telemetry.TelemetryLoop;
import io.gitm.trace.StateField;
import io.gitm.trace.StateSample;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * {@code gitm agent}: samples the devices' state and serves it as Prometheus metrics, named and labelled as NVIDIA's
 * dcgm-exporter does, on {@code /metrics}; with {@code --otlp}, pushes it to a collector too. On a usable GPU every
 * GPU NVML sees is sampled (one with {@code --device-index}), through NVML only: no CUDA context is created. Without
 * one, the simulated device is served, labelled simulated, its model advanced in step with the wall clock (idle, or
 * as {@code --faults} say). Runs until Ctrl-C or SIGTERM, or for {@code --duration}.
 */
@Command(name = "agent", mixinStandardHelpOptions = true,
    description = "Sample the GPUs' state and serve it as Prometheus metrics (dcgm-exporter names) on /metrics;"
        + " push it over OTLP with --otlp.")
final class AgentCommand implements Callable<Integer> {
  /** How long a SIGTERM waits for the last OTLP push before the JVM exits. */
  private static final long TERM_GRACE_SECONDS = 15;

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @CommandLine.Mixin
  DeviceOptions device = new DeviceOptions();

  @CommandLine.Mixin
  ExportTargets targets = new ExportTargets();

  @Option(names = "--no-prometheus", description = "Do not serve /metrics (push over OTLP only).")
  boolean noPrometheus;

  @Option(names = "--duration", paramLabel = "DURATION",
      description = "Stop after this long (default: run until Ctrl-C or SIGTERM).")
  String duration;

  @Override
  public Integer call() throws InterruptedException {
    CommandLine cl = spec.commandLine();
    if (noPrometheus && targets.otlp == null) {
      throw new CommandLine.ParameterException(cl, "--no-prometheus without --otlp leaves nothing to export");
    }
    if (noPrometheus && targets.listen != null) {
      throw new CommandLine.ParameterException(cl, "--listen and --no-prometheus contradict each other");
    }
    Duration limit = duration == null ? null : ExportTargets.duration(cl, "--duration", duration);
    Devices.Choice choice = device.choose(cl);
    boolean sim = choice.provider().kind().equals(Devices.SIMULATED);
    Ticker wall = Ticker.system();
    PrintWriter out = cl.getOut();
    List<StateSampler> samplers = new ArrayList<>();
    List<String> names = new ArrayList<>();
    Device simDevice = null;
    MetricsExporter exporter = targets.start(cl, !noPrometheus, wall);
    CountDownLatch stop = new CountDownLatch(1);
    CountDownLatch closed = new CountDownLatch(1);
    Thread hook = new Thread(() -> {
      stop.countDown();
      try {
        closed.await(TERM_GRACE_SECONDS, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "gitm-agent-stop");
    SignalHandler previous = null;
    long t0 = wall.nanos();
    TelemetryLoop loop;
    try {
      if (sim) {
        simDevice = device.open(cl, choice);
        samplers.add(new WallClockSim((SimDevice) simDevice, wall));
        DeviceLabels l = DeviceLabels.of(simDevice.info(), exporter.hostname());
        exporter.addDevice(l);
        names.add(l.device() + " " + l.modelName() + " [" + l.kind().label().toUpperCase(Locale.ROOT)
            + ": every figure is modeled, not measured on a GPU]");
      } else {
        boolean one = cl.getParseResult().hasMatchedOption("--device-index");
        List<NvmlSampler> nvml;
        try {
          nvml = one ? List.of(NvmlSampler.open(device.ordinal, wall)) : NvmlSampler.all(wall);
        } catch (RuntimeException | LinkageError e) {
          throw new CliFailure("cannot read the GPUs through NVML: " + Main.oneLine(String.valueOf(e.getMessage())),
              e);
        }
        if (nvml.isEmpty()) {
          throw new CliFailure("NVML sees no GPU");
        }
        for (NvmlSampler s : nvml) {
          DeviceLabels l = DeviceLabels.nvidia(s.index(), s.uuid(), s.name(), exporter.hostname());
          exporter.addDevice(l);
          samplers.add(s);
          names.add(l.device() + " " + l.modelName() + " " + l.uuid() + " [real]");
        }
      }
      loop = exporter.sample(samplers, targets.sampleHz);
      // the first round is taken at once: wait for it, so that the first scrape already has every device
      for (int i = 0; i < 10_000 && loop.rounds() == 0 && loop.samplerErrors() == 0; i++) {
        Thread.sleep(1);
      }
      out.println("gitm agent");
      for (String n : names) {
        out.println("device   " + n);
      }
      out.println("sampling " + ExportOptions.hz(targets.sampleHz) + " (" + choice.reason() + ")");
      out.println("metrics  " + targets.describe(exporter));
      out.println(limit == null ? "running  until Ctrl-C or SIGTERM" : "running  for " + duration);
      out.flush();
      Runtime.getRuntime().addShutdownHook(hook);
      previous = Signal.handle(new Signal("INT"), sig -> stop.countDown());
      if (limit == null) {
        stop.await();
      } else {
        stop.await(limit.toNanos(), TimeUnit.NANOSECONDS);
      }
    } finally {
      exporter.close();
      if (simDevice != null) {
        simDevice.close();
      }
      closed.countDown();
      if (previous != null) {
        Signal.handle(new Signal("INT"), previous);
      }
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException | IllegalArgumentException e) {
        // shutting down (the hook runs and waits for closed), or the hook was never added
      }
    }
    double seconds = (wall.nanos() - t0) / 1e9;
    out.println(String.format(Locale.ROOT, "stopped  after %.1f s: %d sampling rounds (%d missed periods, %d sampler"
        + " errors)%s", seconds, loop.rounds(), loop.missedPeriods(), loop.samplerErrors(), targets.otlp == null ? ""
        : ", " + exporter.otlpExports() + " OTLP pushes (" + exporter.otlpFailures() + " failed)"));
    out.flush();
    return Main.OK;
  }

  /**
   * The simulated device sampled as an idle GPU on the wall clock: before each sample its model is advanced by the
   * wall time passed since the last one, so that temperature, clocks, power and injected faults follow real time.
   */
  static final class WallClockSim implements StateSampler {
    private final SimDevice device;
    private final Ticker wall;
    private long last;

    WallClockSim(SimDevice device, Ticker wall) {
      this.device = device;
      this.wall = wall;
      this.last = wall.nanos();
    }

    @Override
    public Set<StateField> supported() {
      return device.sampler().supported();
    }

    @Override
    public synchronized StateSample sample() {
      long now = wall.nanos();
      device.hostWork(now - last);
      last = now;
      return device.sampler().sample();
    }
  }
}
