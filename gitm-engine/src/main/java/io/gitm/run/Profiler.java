package io.gitm.run;

import io.gitm.api.Ticker;
import io.gitm.device.Device;
import io.gitm.device.DeviceProvider;
import io.gitm.device.EventTracer;
import io.gitm.device.StateSampler;
import io.gitm.stats.Stats;
import io.gitm.telemetry.TelemetryLoop;
import io.gitm.trace.DeviceKind;
import io.gitm.trace.MarkerRecord;
import io.gitm.trace.TraceMeta;
import io.gitm.trace.TraceRecord;
import io.gitm.trace.TraceSink;
import io.gitm.workload.ExecutionConfig;
import io.gitm.workload.IterationResult;
import io.gitm.workload.OutputDigest;
import io.gitm.workload.Workload;
import io.gitm.workload.WorkloadSpec;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/**
 * Phase 1, profile: runs a workload in a given configuration until the phase's wall-clock time is used (or its
 * iteration cap is reached), recording kernel events and state samples into a sink, and measures its baseline.
 *
 * <p>The sink is opened (through {@code openSink}) once the tracer has started, with the tracer's meta.
 *
 * <p>State is sampled by a {@link TelemetryLoop} on the device's clock: on a real device on the loop's own thread, so
 * the job never waits for a sample; on the simulated device between iterations, since its clock moves only as the
 * job runs, which also keeps a simulated run deterministic.
 */
public final class Profiler {

  /**
   * @param wallLimit wall-clock time the phase may use once it has run {@code minIterations}
   * @param maxIterations at most this many iterations (0 = no cap)
   * @param samplePeriodNanos device-clock time between state samples
   * @param minIterations the phase runs this many iterations (fewer only when {@code maxIterations} is smaller, the
   *     input ends or a stop is asked for) before its wall-clock limit may cut it short
   */
  public record Options(Duration wallLimit, int maxIterations, long samplePeriodNanos, int minIterations) {
    public Options {
      if (wallLimit.isNegative() || maxIterations < 0 || samplePeriodNanos <= 0 || minIterations < 0) {
        throw new IllegalArgumentException("profile options must be non-negative with a positive sampling period");
      }
    }

    /** Options without a floor: the wall-clock limit may end the phase before its first iteration. */
    public Options(Duration wallLimit, int maxIterations, long samplePeriodNanos) {
      this(wallLimit, maxIterations, samplePeriodNanos, 0);
    }

    /** Whether an iteration more may start after {@code done} of them when the wall clock reads {@code now}. */
    boolean another(int done, long now, long end) {
      return (maxIterations == 0 || done < maxIterations) && (done < minIterations || now < end);
    }
  }

  /**
   * What the phase measured.
   *
   * @param throughput units per second of device-clock time over the steady iterations (all but the first, when
   *     there are several)
   * @param latency per-iteration time of the steady iterations, milliseconds
   * @param firstIterationMs the first iteration's time, with its one-time costs
   * @param samples state samples recorded
   * @param samplerErrors state readings that failed
   * @param tracing what the event tracer did ({@code "on"}, or why it was off)
   */
  public record Baseline(String workload, String metric, int iterations, long units, double throughput,
      Stats latency, double firstIterationMs, long samples, long samplerErrors, String tracing, OutputDigest output,
      double wallSeconds) {}

  /**
   * Iterations the profile phase runs whatever its time share, so that a loaded machine or a slow first iteration
   * still leaves a baseline with steady iterations and a trace to attribute.
   */
  public static final int FLOOR_ITERATIONS = 3;

  private Profiler() {}

  /**
   * Forwards records to the sink once it exists: the sink is opened after the tracer starts, so that the trace's
   * meta carries what the start measured (e.g. clock alignment); records of that instant are kept until then.
   */
  private static final class Relay implements TraceSink {
    private final List<TraceRecord> early = new ArrayList<>();
    private TraceSink target;

    synchronized void attach(TraceSink t) {
      early.forEach(t::accept);
      early.clear();
      target = t;
    }

    @Override
    public synchronized void accept(TraceRecord r) {
      if (target == null) {
        early.add(r);
      } else {
        target.accept(r);
      }
    }
  }

  public static Baseline run(Device device, Workload workload, ExecutionConfig config, Path dataDir, Ticker wall,
      Options options, Function<TraceMeta, TraceSink> openSink) {
    return run(device, workload, config, dataDir, wall, options, openSink, () -> false);
  }

  /** As above; the phase also ends, after the iteration in progress, once {@code stop} says so (Ctrl-C). */
  public static Baseline run(Device device, Workload workload, ExecutionConfig config, Path dataDir, Ticker wall,
      Options options, Function<TraceMeta, TraceSink> openSink, BooleanSupplier stop) {
    // the session is opened (input read or generated, modules loaded, run-long memory allocated) before the profile
    // window starts, so that preparing a dataset does not eat the window
    try (Workload.Session s = workload.open(device, config, dataDir)) {
      return run(device, s, workload.spec(), wall, options, openSink, stop);
    }
  }

  /**
   * Profiles an opened session of the workload {@code spec} describes; the wall-clock limit starts now. The caller
   * closes the session.
   */
  public static Baseline run(Device device, Workload.Session s, WorkloadSpec spec, Ticker wall, Options options,
      Function<TraceMeta, TraceSink> openSink, BooleanSupplier stop) {
    EventTracer tracer = device.tracer();
    DeviceProvider.Probe tp = tracer.availability();
    String tracing = tp.usable() ? "on" : "off: " + tp.reason();
    StateSampler sampler = device.sampler();
    Ticker clock = device.clock();
    // A real device is sampled on the telemetry loop's own thread, so the job never waits for NVML; the simulated
    // device is sampled between iterations on its own (simulated) clock, which only moves as the job runs.
    boolean ownThread = device.info().kind() == DeviceKind.REAL;
    TelemetryLoop telemetry = new TelemetryLoop(List.of(sampler), clock,
        Math.min(TelemetryLoop.MAX_HZ, 1e9 / options.samplePeriodNanos()), 4096);
    AtomicLong samples = new AtomicLong();
    Tally tally = new Tally();
    long wallStart = wall.nanos();
    OutputDigest digest;
    long wallEnd = wallStart + options.wallLimit().toNanos();
    boolean traceStarted = false;
    try {
      TraceSink sink;
      if (tp.usable()) {
        Relay relay = new Relay();
        tracer.start(relay);
        traceStarted = true;
        sink = openSink.apply(tracer.meta());
        relay.attach(sink);
      } else {
        sink = openSink.apply(tracer.meta());
      }
      TraceSink target = sink;
      telemetry.addSink(x -> {
        target.accept(x);
        samples.incrementAndGet();
      });
      if (ownThread) {
        telemetry.start();
      } else {
        telemetry.runDue();
      }
      while (options.another(tally.n, wall.nanos(), wallEnd) && s.hasNext() && !stop.getAsBoolean()) {
        long t0 = clock.nanos();
        IterationResult r = s.step();
        long t1 = clock.nanos();
        sink.accept(new MarkerRecord("iteration " + tally.n, Thread.currentThread().threadId(), t0,
            Math.max(t0, t1)));
        tally.add(r);
        if (!ownThread) {
          telemetry.runDue();
        }
      }
      digest = s.output();
    } finally {
      telemetry.close();
      if (traceStarted) {
        tracer.stop();
      }
    }
    if (tally.n == 0) {
      throw new IllegalStateException("the profile phase ran no iteration of " + spec.name() + ": "
          + (stop.getAsBoolean() ? "the run was stopped first" : options.minIterations() > 0
              ? "the workload has no input" : "its " + RunLoop.window(options.wallLimit()) + " were used first"));
    }
    return tally.baseline(spec, samples.get(), telemetry.samplerErrors(), tracing, digest,
        (wall.nanos() - wallStart) / 1e9);
  }

  /** The iterations measured so far: their device time, in milliseconds, and the units they did. */
  private static final class Tally {
    private double[] lat = new double[1024];
    private int n;
    private long units;
    private long deviceNanos;
    private long firstUnits;
    private long firstNanos;

    void add(IterationResult r) {
      if (n == 0) {
        firstUnits = r.units();
        firstNanos = r.wallNanos();
      }
      if (n == lat.length) {
        lat = Arrays.copyOf(lat, n * 2);
      }
      lat[n++] = r.wallNanos() / 1e6;
      units += r.units();
      deviceNanos += r.wallNanos();
    }

    /**
     * The baseline of at least one iteration. The first pays one-time costs (first launches, lazy allocation, cold
     * caches): it is reported on its own and left out of the steady-state figures whenever there is more than one.
     */
    Baseline baseline(WorkloadSpec spec, long samples, long samplerErrors, String tracing, OutputDigest digest,
        double wallSeconds) {
      boolean warm = n > 1;
      long steadyUnits = warm ? units - firstUnits : units;
      long steadyNanos = warm ? deviceNanos - firstNanos : deviceNanos;
      double throughput = steadyNanos == 0 ? 0 : steadyUnits * 1e9 / steadyNanos;
      double[] steady = warm ? Arrays.copyOfRange(lat, 1, n) : Arrays.copyOf(lat, n);
      return new Baseline(spec.name(), spec.metric(), n, units, throughput, Stats.of("ms", steady), lat[0],
          samples, samplerErrors, tracing, digest, wallSeconds);
    }
  }
}
