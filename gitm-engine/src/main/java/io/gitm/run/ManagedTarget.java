package io.gitm.run;

import io.gitm.analysis.attribution.Hypothesis;
import io.gitm.api.Ticker;
import io.gitm.device.Device;
import io.gitm.device.DeviceInfo;
import io.gitm.device.DeviceProvider;
import io.gitm.device.DeviceRequest;
import io.gitm.device.HardwareSpec;
import io.gitm.device.SchedulingMode;
import io.gitm.job.Job;
import io.gitm.job.ManagedJob;
import io.gitm.levers.Lever;
import io.gitm.levers.LeverContext;
import io.gitm.levers.Setup;
import io.gitm.search.Gate;
import io.gitm.sim.SimSpec;
import io.gitm.store.RunDir;
import io.gitm.trace.DeviceKind;
import io.gitm.trace.TraceRecord;
import io.gitm.tracer.TraceWriter;
import io.gitm.workload.ExecutionConfig;
import io.gitm.workload.InputFingerprint;
import io.gitm.workload.OutputScore;
import io.gitm.workload.Workload;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A managed workload as a run's target: profiled in gitm's process on the opened {@code device} (which the run
 * closes after the profile), measured by the agent as a {@link ManagedJob} that opens the device again through
 * {@code provider} for each setup, and replayed on a model of the device it ran on.
 */
public final class ManagedTarget implements RunTarget {
  /** Wall time the "after" trace may take at most, device opening excluded. */
  static final Duration AFTER_TRACE_WINDOW = Duration.ofSeconds(1);
  /** Iterations the "after" trace runs at most: the timeline shows the first 30 ms of device work. */
  static final int AFTER_TRACE_ITERATIONS = 20;
  /** Wall time kept for writing the report after the "after" trace. */
  static final Duration AFTER_TRACE_LEAVES = Duration.ofSeconds(3);
  /** The least time worth opening a device for the "after" trace. */
  private static final Duration AFTER_TRACE_LEAST = Duration.ofMillis(100);
  /** The set-up's part that opens the workload's session. */
  static final String SESSION = "workload and dataset";

  private final Workload workload;
  private final Device device;
  private final DeviceProvider provider;
  private final String choiceReason;
  private final DeviceRequest request;
  private final Path dataDir;
  private final int maxIterations;
  private final int blockIterations;
  private final boolean allowDeviceSettings;
  /** The shipped setup's session, opened by {@link #setUp} for the profile; null before or once taken. */
  private Workload.Session session;

  /**
   * A target for {@code workload}, set up and profiled on {@code device}.
   *
   * @param device the opened device for the profile phase
   * @param request how the device was opened; the apply phase adds each setup's scheduling mode and settings to it
   * @param dataDir the workload's input folder (e.g. the store's {@code datasets/hft/})
   * @param maxIterations the profile runs at most this many iterations (0: no cap)
   * @param blockIterations iterations per gate block (0: chosen from the profile)
   * @param allowDeviceSettings whether class-C levers may be used (simulated device only)
   */
  public ManagedTarget(Workload workload, Device device, DeviceProvider provider, String choiceReason,
      DeviceRequest request, Path dataDir, int maxIterations, int blockIterations, boolean allowDeviceSettings) {
    this.workload = workload;
    this.device = device;
    this.provider = provider;
    this.choiceReason = choiceReason;
    this.request = request;
    this.dataDir = dataDir;
    this.maxIterations = maxIterations;
    this.blockIterations = blockIterations;
    this.allowDeviceSettings = allowDeviceSettings;
  }

  public Workload workload() {
    return workload;
  }

  public Device device() {
    return device;
  }

  @Override
  public String choiceReason() {
    return choiceReason;
  }

  /** Opens the shipped setup's session on the profile's device: its dataset read or generated, kernels loaded. */
  @Override
  public Map<String, Duration> setUp(Ticker wall) {
    long t0 = wall.nanos();
    if (session == null) {
      session = workload.open(device, ExecutionConfig.shipped(), dataDir);
    }
    return Map.of(SESSION, Duration.ofNanos(Math.max(0, wall.nanos() - t0)));
  }

  @Override
  public String name() {
    return workload.spec().name();
  }

  @Override
  public DeviceInfo info() {
    return device.info();
  }

  @Override
  public Map<String, String> requestDescription() {
    Map<String, String> d = new LinkedHashMap<>();
    d.put("request.kind", provider.kind());
    request.options().forEach((k, v) -> d.put("request." + k, v));
    return d;
  }

  @Override
  public Map<String, Object> resumeFiles() {
    return Map.of();
  }

  @Override
  public Optional<InputFingerprint> input() {
    return workload.input();
  }

  @Override
  public Optional<OutputScore> score() {
    return workload.score();
  }

  @Override
  public Optional<Record> groundTruth() {
    return device.groundTruth();
  }

  @Override
  public Profile profile(Profile.Input in) throws IOException {
    TraceWriter[] writer = new TraceWriter[1];
    try (Workload.Session s = session != null ? session : workload.open(device, ExecutionConfig.shipped(), dataDir)) {
      session = null;
      Profiler.Baseline b = Profiler.run(device, s, workload.spec(), in.clock().wall(), new Profiler.Options(
          in.window(), maxIterations, RunLoop.samplePeriod(device.info().kind()), Profiler.FLOOR_ITERATIONS), m -> {
            try {
              writer[0] = TraceWriter.create(in.tracePath(), m);
              return writer[0];
            } catch (IOException e) {
              throw new UncheckedIOException(e);
            }
          }, in.control()::stopRequested);
      writer[0].close();
      return new Profile(b, List.of(), Map.of());
    } catch (RuntimeException | IOException e) {
      if (writer[0] != null) {
        writer[0].abort();
      }
      String why = RunLoop.oneLine(String.valueOf(e.getMessage()));
      in.journal().append("failed", Map.of("phase", "profile", "error", why));
      throw new RunLoop.RunFailure("run " + in.run().id() + " failed in the profile phase: " + why, e);
    }
  }

  /** The simulated device's own model; for a real device, the model of its kind calibrated to what was measured. */
  @Override
  public Optional<SimSpec> replaySpec(DeviceInfo info, HardwareSpec hw) {
    if (info.kind() == DeviceKind.SIMULATED) {
      return Optional.of(SimSpec.preset(request.option("preset", "h200")));
    }
    String name = hw.deviceName().toLowerCase();
    return Optional.of(SimSpec.fromCalibration(hw, name.contains("h100") ? "h100" : name.contains("a100") ? "a100"
        : "h200"));
  }

  @Override
  public Tuning tune(Profiler.Baseline baseline, Gate.Options gate, PhasePlan plan) {
    int perBlock = blockIterations > 0 ? blockIterations : Tuning.blockIterations(baseline, gate, plan);
    return Tuning.of(baseline, perBlock, Tuning.gateFor(gate, baseline, perBlock));
  }

  @Override
  public Job.Closeable openJob(RunDir run, Ticker wall, Profiler.Baseline baseline, Tuning tuning) {
    return new ManagedJob(workload, provider, request, dataDir, tuning.blockIterations());
  }

  @Override
  public LeverContext leverContext(DeviceInfo info, List<Hypothesis> hypotheses, Map<String, Double> facts,
      Setup shipped) {
    return new LeverContext(workload.spec(), info, hypotheses, facts, allowDeviceSettings, shipped);
  }

  /** Every lever but those a process accepts from outside (environment variables, CPU pinning of a process). */
  @Override
  public boolean admits(Lever lever) {
    return lever.scope() != Lever.Scope.PROCESS;
  }

  @Override
  public double outputTolerance() {
    return workload.spec().outputTolerance();
  }

  @Override
  public boolean higherIsBetter() {
    return true;
  }

  /** Nothing: the report's own sections describe a managed workload, and its profile notes none. */
  @Override
  public List<String> notes(Profiler.Baseline baseline, List<String> profileNotes) {
    return List.of();
  }

  /**
   * Traces a short window of the final setup (the agent's anchor, after its confirmation gate) on a device opened
   * as the apply phase opens it for that setup; skipped, with the reason, when nothing was kept, the run was stopped,
   * or less than {@link #AFTER_TRACE_LEAVES} plus a tenth of a second of the budget is left.
   */
  @Override
  public AfterTrace traceAfter(Outcome outcome, Profiler.Baseline baseline, RunClock clock,
      RunLoop.Control control) {
    if (outcome == null || outcome.agent().keptLevers().isEmpty()) {
      return new AfterTrace(List.of(), null);
    }
    if (control.stopRequested()) {
      return new AfterTrace(List.of(), "no \"after\" timeline: the run was stopped before the final setup was traced");
    }
    Setup setup = outcome.agent().anchor();
    if (clock.budgetLeft().minus(AFTER_TRACE_LEAVES).compareTo(AFTER_TRACE_LEAST) < 0) {
      return new AfterTrace(List.of(), "no \"after\" timeline: the budget had no time left to trace the final setup");
    }
    Map<String, String> options = new LinkedHashMap<>(request.options());
    options.putAll(setup.deviceSettings());
    SchedulingMode mode = setup.scheduling() == SchedulingMode.AUTO ? request.scheduling() : setup.scheduling();
    List<TraceRecord> out = Collections.synchronizedList(new ArrayList<>());
    try (Device d = provider.open(new DeviceRequest(request.ordinal(), mode, options))) {
      Duration left = clock.budgetLeft().minus(AFTER_TRACE_LEAVES);
      if (left.compareTo(AFTER_TRACE_LEAST) < 0) {
        return new AfterTrace(List.of(), "no \"after\" timeline: opening the device for the final setup used the"
            + " time left");
      }
      Duration window = left.compareTo(AFTER_TRACE_WINDOW) < 0 ? left : AFTER_TRACE_WINDOW;
      int iterations = Math.max(2, Math.min(AFTER_TRACE_ITERATIONS, baseline.iterations()));
      Profiler.run(d, workload, setup.config(), dataDir, clock.wall(), new Profiler.Options(window, iterations,
          RunLoop.samplePeriod(d.info().kind())), m -> out::add, control::stopRequested);
    } catch (RuntimeException e) {
      return new AfterTrace(List.of(), "no \"after\" timeline: tracing the final setup failed: "
          + RunLoop.oneLine(String.valueOf(e.getMessage())));
    }
    List<TraceRecord> records = List.copyOf(out);
    return new AfterTrace(records, setup.cpus().isEmpty() ? null : "the \"after\" timeline ran the final setup"
        + " without its CPU pinning (" + setup.cpus() + "); the gates measured it pinned");
  }

  @Override
  public void close() {
    try (Device d = device) {
      if (session != null) {
        session.close();
        session = null;
      }
    }
  }
}
