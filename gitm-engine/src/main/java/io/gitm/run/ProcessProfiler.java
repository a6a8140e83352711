package io.gitm.run;

import io.gitm.api.Ticker;
import io.gitm.device.GpuProcess;
import io.gitm.device.StateSampler;
import io.gitm.job.ProcessJob;
import io.gitm.levers.LeverContext;
import io.gitm.levers.Setup;
import io.gitm.os.ProcessGroups;
import io.gitm.stats.Stats;
import io.gitm.telemetry.TelemetryLoop;
import io.gitm.trace.ApiCallRecord;
import io.gitm.trace.ApiKind;
import io.gitm.trace.ClockDomain;
import io.gitm.trace.KernelNames;
import io.gitm.trace.KernelRecord;
import io.gitm.trace.TraceMeta;
import io.gitm.trace.TraceRecord;
import io.gitm.tracer.TraceReader;
import io.gitm.tracer.TraceWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The profile phase of a black-box job: one run traced by CUPTI injection while the GPU's state is sampled (NVML),
 * then untraced runs of the shipped setup for the baseline, as many as the phase's window allows (at least
 * {@link #MIN_UNTRACED}). The traced run's records and the state samples become the run's {@code trace.gtrace}. A job
 * that fails here stops the run: gitm does not optimize a broken job.
 */
final class ProcessProfiler {
  static final int MIN_UNTRACED = 2;
  static final int MAX_UNTRACED = 10;
  /** How often the job's processes are looked at for the busy-process count, and the GPU state sampled. */
  static final Duration POLL = Duration.ofMillis(100);
  /** CPU ticks (1/100 s) a process must use in one poll to count as busy (a fifth of a core). */
  static final long BUSY_TICKS = 2;

  private ProcessProfiler() {}

  /**
   * What the profile found.
   *
   * @param jobProcesses the most processes of the job busy at once (1 when unknown)
   * @param notes what a reader of the report should know (tracing off and why, an unreproducible output, …)
   */
  record Result(Profiler.Baseline baseline, List<ProcessJob.RunResult> runs, int jobProcesses, List<String> notes) {}

  /** Thrown when the shipped job fails: the message holds its exit status and last lines. */
  static final class BrokenJob extends Exception {
    BrokenJob(String message) {
      super(message);
    }
  }

  /**
   * @param tracing the environment that traces a run into the given file, or null (then {@code tracingOff} says why)
   * @param sampler the GPU's state sampler, or null
   * @param tracePath where the run's trace is written
   * @param control a stop request ends the run in progress ({@link InterruptedException}) and the phase
   */
  static Result profile(ProcessJob job, String name, Function<Path, Map<String, String>> tracing, String tracingOff,
      StateSampler sampler, Supplier<List<GpuProcess>> gpuProcesses, Path tracePath,
      Duration window, Ticker wall, RunLoop.Control control) throws BrokenJob, InterruptedException, IOException {
    BooleanSupplier stop = control::stopRequested;
    GpuUse gpu = new GpuUse(gpuProcesses);
    List<String> notes = new ArrayList<>();
    List<ProcessJob.RunResult> runs = new ArrayList<>();
    long start = wall.nanos();
    List<TraceRecord> samples = Collections.synchronizedList(new ArrayList<>());
    int[] busyPeak = {1};
    String tracingState;
    Path injected = tracePath.resolveSibling("injected.gtrace");
    ProcessJob.RunResult traced = null;
    if (tracing != null) {
      Files.deleteIfExists(injected);
      traced = watched(job, tracing.apply(injected), "profile (traced)", sampler, wall, samples, busyPeak,
          gpu, control);
      runs.add(traced);
      if (!traced.ok()) {
        notes.add("with gitm's CUPTI injection the job failed (" + traced.failure() + "); it was profiled untraced");
      }
    }
    List<ProcessJob.RunResult> untraced = new ArrayList<>();
    while (untraced.size() < MIN_UNTRACED || (untraced.size() < MAX_UNTRACED
        && wall.nanos() - start < window.toNanos() && !stop.getAsBoolean())) {
      if (stop.getAsBoolean() && !untraced.isEmpty()) {
        break;
      }
      boolean first = traced == null && untraced.isEmpty();
      ProcessJob.RunResult r = watched(job, Map.of(), "profile", first ? sampler : null, wall, samples, busyPeak,
          first ? gpu : null, control);
      runs.add(r);
      if (!r.ok()) {
        throw new BrokenJob("the job fails as shipped, without any change by gitm: " + r.failure() + "\n"
            + ProcessJob.lastLines(r, 10));
      }
      untraced.add(r);
    }
    // the trace: the injected run's records, else none; plus the state samples
    TraceMeta meta;
    List<TraceRecord> records = new ArrayList<>();
    if (traced != null && traced.ok() && Files.isRegularFile(injected)) {
      try (TraceReader r = TraceReader.open(injected)) {
        meta = r.meta();
        r.read(records::add);
      }
      tracingState = "CUPTI injection (libgitm_inject.so): " + records.size() + " records from run p"
          + String.format("%04d", traced.index());
    } else {
      String why = tracing == null ? tracingOff : traced != null && traced.ok()
          ? "the traced run wrote no trace (the job made no CUDA call, or exited without the library's flush)"
          : "the traced run failed";
      tracingState = "off: " + why;
      Map<String, String> attrs = new LinkedHashMap<>();
      attrs.put("tracing", tracingState);
      meta = new TraceMeta("black-box process " + name, ClockDomain.HOST_MONOTONIC, List.of(), attrs);
      notes.add("no kernel trace: " + why + "; the analysis has the job's metric and the GPU's state only");
    }
    try (var others = Files.list(tracePath.getParent())) {
      List<String> children = others.map(p -> p.getFileName().toString())
          .filter(n -> n.startsWith("injected-") && n.endsWith(".gtrace")).sorted().toList();
      if (!children.isEmpty()) {
        notes.add("the job's child processes that used CUDA wrote " + children.size() + " trace(s) of their own, kept"
            + " in the run folder and not analyzed: " + String.join(", ", children));
      }
    }
    records.addAll(samples);
    records.sort(Comparator.comparingLong(TraceRecord::startNs));
    try (TraceWriter w = TraceWriter.create(tracePath, meta)) {
      records.forEach(w::accept);
    }
    Files.deleteIfExists(injected);

    double[] metric = untraced.stream().mapToDouble(ProcessJob.RunResult::metric).toArray();
    double[] wallMs = untraced.stream().mapToDouble(r -> r.wallSeconds() * 1000).toArray();
    Stats m = Stats.of(job.metric(), metric);
    if (untraced.stream().map(r -> r.output().sha256()).distinct().count() > 1) {
      notes.add("the job's outputs differ from run to run of the shipped setup: no lever can show a bit-identical"
          + " output, so every lever's output is compared within the job's tolerance (--rtol/--atol), class A too");
    }
    gpu.note().ifPresent(notes::add);
    double total = (wall.nanos() - start) / 1e9;
    Profiler.Baseline b = new Profiler.Baseline(name, job.metric(), untraced.size(), untraced.size(), m.p50(),
        Stats.of("ms", wallMs), runs.getFirst().wallSeconds() * 1000, samples.size(), 0, tracingState,
        untraced.getLast().output(), total);
    return new Result(b, runs, busyPeak[0], notes);
  }

  /**
   * One run of the shipped setup, with the job's processes polled for how many are busy at once, and the GPU's state
   * sampled, while it runs.
   */
  private static ProcessJob.RunResult watched(ProcessJob job, Map<String, String> extra, String label,
      StateSampler sampler, Ticker wall, List<TraceRecord> samples, int[] busyPeak, GpuUse gpu,
      RunLoop.Control control) throws InterruptedException {
    TelemetryLoop telemetry = sampler == null ? null
        : new TelemetryLoop(List.of(sampler), wall, 1e9 / RunLoop.SAMPLE_PERIOD_NS, 4096);
    if (sampler != null) {
      sampler.jobProcesses(jobPids(job));
    }
    if (telemetry != null) {
      telemetry.addSink(samples::add);
      telemetry.start();
    }
    Thread poller = Thread.ofPlatform().daemon().name("gitm-job-poller").start(() -> {
      Map<Long, Long> before = Map.of();
      while (!Thread.currentThread().isInterrupted()) {
        var g = job.runningGroup();
        if (g.isPresent()) {
          try {
            Map<Long, Long> now = ProcessGroups.cpuTicks(g.getAsLong());
            int busy = 0;
            for (var e : now.entrySet()) {
              if (e.getValue() - before.getOrDefault(e.getKey(), e.getValue()) >= BUSY_TICKS) {
                busy++;
              }
            }
            synchronized (busyPeak) {
              busyPeak[0] = Math.max(busyPeak[0], busy);
            }
            before = now;
            if (gpu != null) {
              gpu.poll(now.keySet());
            }
          } catch (RuntimeException gone) {
            // the group ended between the look and the read
          }
        }
        LockSupport.parkNanos(POLL.toNanos());
      }
    });
    // a stop request (Ctrl-C) ends the run in progress: the job ends its process group and throws
    control.enterApply();
    try {
      return job.execute(Setup.shipped(), extra, label);
    } finally {
      control.leaveApply();
      poller.interrupt();
      if (telemetry != null) {
        telemetry.close();
      }
    }
  }

  /**
   * The pids of the job's run, for the sampler's other-process fields: the processes of its process group now, and
   * every one seen in it before (a job process the driver still lists while it exits stays the job's).
   */
  static Supplier<Set<Long>> jobPids(ProcessJob job) {
    Set<Long> seen = ConcurrentHashMap.newKeySet();
    return () -> {
      var g = job.runningGroup();
      if (g.isPresent()) {
        try {
          seen.addAll(ProcessGroups.cpuTicks(g.getAsLong()).keySet());
        } catch (RuntimeException gone) {
          // the group ended between the look and the read
        }
      }
      return Set.copyOf(seen);
    };
  }

  /**
   * The GPU use of the job's processes, from the driver's process list filtered to the job's process group, and of
   * the other processes on the same GPU (a tenant sharing it).
   */
  static final class GpuUse {
    private final Supplier<List<GpuProcess>> source;
    private final Map<Long, Long> jobPeak = new TreeMap<>();
    private final Map<Long, double[]> jobSm = new TreeMap<>();
    private final Map<Long, Long> otherPeak = new TreeMap<>();
    /** Every pid seen in the job's group so far: a job process the driver lists while it exits stays the job's. */
    private final Set<Long> everJob = new HashSet<>();
    private int polls;
    private String error;

    GpuUse(Supplier<List<GpuProcess>> source) {
      this.source = source;
    }

    synchronized void poll(Set<Long> jobPids) {
      if (source == null || error != null) {
        return;
      }
      List<GpuProcess> now;
      try {
        now = source.get();
      } catch (RuntimeException e) {
        error = String.valueOf(e.getMessage());
        return;
      }
      polls++;
      everJob.addAll(jobPids);
      otherPeak.keySet().removeAll(everJob);
      for (GpuProcess p : now) {
        if (everJob.contains(p.pid())) {
          jobPeak.merge(p.pid(), p.usedMemoryBytes(), Math::max);
          if (Double.isFinite(p.smUtilization())) {
            double[] s = jobSm.computeIfAbsent(p.pid(), k -> new double[2]);
            s[0] += p.smUtilization();
            s[1]++;
          }
        } else {
          otherPeak.merge(p.pid(), p.usedMemoryBytes(), Math::max);
        }
      }
    }

    /** What the report says about it, if the driver was asked at all. */
    synchronized Optional<String> note() {
      if (source == null) {
        return Optional.empty();
      }
      if (error != null) {
        return Optional.of("the driver's process list could not be read: " + error);
      }
      StringBuilder sb = new StringBuilder("GPU use of the job's processes (NVML, filtered to its process group, "
          + polls + " looks): ");
      if (jobPeak.isEmpty()) {
        sb.append("none seen (no CUDA process, or the driver sees pids of another namespace)");
      } else {
        List<String> parts = new ArrayList<>();
        jobPeak.forEach((pid, mem) -> {
          double[] s = jobSm.get(pid);
          parts.add(String.format(Locale.ROOT, "pid %d peak %.2f GiB%s", pid, mem / (double) (1L << 30),
              s == null || s[1] == 0 ? "" : String.format(Locale.ROOT, ", SM %.0f%% mean", s[0] / s[1])));
        });
        sb.append(String.join("; ", parts));
      }
      if (!otherPeak.isEmpty()) {
        long mem = otherPeak.values().stream().mapToLong(Long::longValue).sum();
        sb.append(String.format(Locale.ROOT, "; %d other process(es) on the same GPU (%.2f GiB at peak): it"
            + " is shared", otherPeak.size(), mem / (double) (1L << 30)));
      }
      return Optional.of(sb.toString());
    }
  }

  /**
   * Facts a black-box trace shows that process levers estimate their gain from: the share of the traced span spent in
   * FP32 GEMM kernels not on tensor cores ({@link LeverContext#FACT_FP32_GEMM_SHARE}), and in
   * device allocation and free calls ({@link LeverContext#FACT_ALLOCATION_SHARE}), and in convolution kernels
   * ({@link LeverContext#FACT_CONV_SHARE}). Empty without
   * kernel records.
   */
  static Map<String, Double> traceFacts(List<TraceRecord> records) {
    long first = Long.MAX_VALUE;
    long last = Long.MIN_VALUE;
    long gemm = 0;
    long alloc = 0;
    long conv = 0;
    boolean kernels = false;
    for (TraceRecord r : records) {
      if (r instanceof KernelRecord k) {
        kernels = true;
        first = Math.min(first, k.startNs());
        last = Math.max(last, k.endNs());
        if (KernelNames.fp32Gemm(k.name())) {
          gemm += k.endNs() - k.startNs();
        }
        if (KernelNames.conv(k.name())) {
          conv += k.endNs() - k.startNs();
        }
      } else if (r instanceof ApiCallRecord a) {
        first = Math.min(first, a.startNs());
        last = Math.max(last, a.endNs());
        if (a.kind() == ApiKind.ALLOC || a.kind() == ApiKind.FREE) {
          alloc += a.endNs() - a.startNs();
        }
      }
    }
    if (!kernels || last <= first) {
      return Map.of();
    }
    double span = last - first;
    return Map.of(LeverContext.FACT_FP32_GEMM_SHARE, Math.min(1, gemm / span),
        LeverContext.FACT_ALLOCATION_SHARE, Math.min(1, alloc / span), LeverContext.FACT_CONV_SHARE,
        Math.min(1, conv / span));
  }

}
