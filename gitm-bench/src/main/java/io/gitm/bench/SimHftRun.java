package io.gitm.bench;

import io.gitm.device.EventTracer;
import io.gitm.device.HostMemoryKind;
import io.gitm.sim.Replay;
import io.gitm.sim.SimDevice;
import io.gitm.sim.SimSpec;
import io.gitm.trace.KernelRecord;
import io.gitm.trace.TraceChange;
import io.gitm.trace.TraceRecord;
import io.gitm.trace.TraceSink;
import io.gitm.trace.Work;
import io.gitm.trace.WorkRecord;
import io.gitm.workload.ExecutionConfig;
import io.gitm.workload.OutputDigest;
import io.gitm.workload.Workload;
import io.gitm.workloads.hft.HftLobWorkload;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * hft-lob on the simulated h200, live, for a stretch of simulated time: the workload runs session after session over
 * its dataset (a new session on the same device when the input runs out) until the device's clock reaches the
 * target, with the tracer on, and a state sample taken after every {@code sampleEvery} batches (as the profile phase
 * samples between iterations).
 *
 * <p>{@code java -cp gitm-bench/target/gitm-bench.jar io.gitm.bench.SimHftRun [--mode live|replay] [--seconds S]
 * [--config NAME] [--data DIR] [--messages N] [--trace on|off] [--seed N] [--faults SPEC]} prints the wall time and
 * simulated seconds per wall second (defaults: live, 600 s, {@code shipped}, {@code $TMPDIR/gitm-datasets/hft}, the
 * workload's default dataset of 2,000,000 book messages, tracing on, seed 1, no faults). Configurations:
 * {@link #CONFIGS}. {@code --mode replay} times the simulator without the workload: see {@link #replay}.
 */
public final class SimHftRun {
  private SimHftRun() {
  }

  /** The configurations the run takes by name: the shipped one, a tuned one and a captured-graph one. */
  static final Map<String, ExecutionConfig> CONFIGS = configs();

  private static Map<String, ExecutionConfig> configs() {
    ExecutionConfig s = ExecutionConfig.shipped();
    ExecutionConfig async = s.withHostMemory(HostMemoryKind.PINNED).withStreams(1, true, false);
    Map<String, ExecutionConfig> m = new LinkedHashMap<>();
    m.put("shipped", s);
    m.put("tuned", async.withAllocation(ExecutionConfig.Allocation.POOL, 1L << 30).withStreams(2, true, true));
    m.put("graph-warp", async.withAllocation(ExecutionConfig.Allocation.PREALLOCATED, 0).withGraphCapture(true)
        .withStreams(2, true, false).withKernelVariants(Map.of("lob_book", "warp")));
    return Map.copyOf(m);
  }

  /**
   * What to run.
   *
   * @param params the workload's parameters (its dataset)
   * @param config the execution configuration
   * @param data the dataset folder
   * @param simulatedNs the simulated time to run for: the run stops after the batch that reaches it
   * @param maxBatches at most this many batches (0: no cap)
   * @param seed the device's seed
   * @param faults the device's fault spec
   * @param sampleEvery a state sample after every this many batches (0: none)
   */
  record Options(HftLobWorkload.Params params, ExecutionConfig config, Path data, long simulatedNs, long maxBatches,
      long seed, String faults, int sampleEvery) {
    Options {
      if (params == null || config == null || data == null || faults == null) {
        throw new IllegalArgumentException("a run needs the workload's parameters, a config, a data folder and faults");
      }
      if (simulatedNs <= 0 || maxBatches < 0 || sampleEvery < 0) {
        throw new IllegalArgumentException("simulated time must be positive and the batch cap and sample period not"
            + " negative: " + simulatedNs + ", " + maxBatches + ", " + sampleEvery);
      }
    }
  }

  /**
   * A finished run.
   *
   * @param simulatedNs the device's clock at the end
   * @param batches device batches run
   * @param sessions sessions opened (passes over the dataset, the last one possibly partial)
   * @param outputs each session's output digest
   */
  record Result(long simulatedNs, long batches, int sessions, List<OutputDigest> outputs) {
  }

  /** Runs {@code o}; every record the tracer delivers and every sample goes to {@code sink} (null: no tracing). */
  static Result run(Options o, TraceSink sink) {
    HftLobWorkload w = new HftLobWorkload(o.params());
    long batches = 0;
    List<OutputDigest> outputs = new ArrayList<>();
    try (SimDevice d = SimDevice.open(SimSpec.preset("h200"), o.seed(), o.faults())) {
      EventTracer tracer = d.tracer();
      if (sink != null) {
        tracer.start(sink);
      }
      boolean more = true;
      while (more) {
        long before = batches;
        try (Workload.Session s = w.open(d, o.config(), o.data())) {
          while (s.hasNext() && (more = d.clock().nanos() < o.simulatedNs()
              && (o.maxBatches() == 0 || batches < o.maxBatches()))) {
            s.step();
            batches++;
            if (sink != null && o.sampleEvery() > 0 && batches % o.sampleEvery() == 0) {
              sink.accept(d.sampler().sample());
            }
          }
          outputs.add(s.output());
        }
        if (more && batches == before) {
          throw new IllegalStateException("hft-lob: a session on " + o.data() + " has no input batch to run");
        }
      }
      if (sink != null) {
        tracer.stop();
      }
      return new Result(d.clock().nanos(), batches, outputs.size(), outputs);
    }
  }

  /**
   * The trace-driven half: one whole session of {@code o} is traced, then replayed unchanged on fresh devices of the
   * h200 preset (each replay with its own seed, the kernels timed from their declared work, as the rank phase's
   * counterfactual replay does) until the replays' simulated time reaches {@code o}'s.
   */
  static ReplayResult replay(Options o) {
    List<TraceRecord> trace = new ArrayList<>();
    try (SimDevice d = SimDevice.open(SimSpec.preset("h200"), o.seed(), o.faults());
        Workload.Session s = new HftLobWorkload(o.params()).open(d, o.config(), o.data())) {
      d.tracer().start(trace::add);
      while (s.hasNext()) {
        s.step();
      }
      d.tracer().stop();
    }
    Map<Long, Work> work = new HashMap<>();
    for (TraceRecord r : trace) {
      if (r instanceof WorkRecord w) {
        work.put(w.correlationId(), w.work());
      }
    }
    long w0 = System.nanoTime();
    long c0 = cpuNanos();
    Replay replay = Replay.of(trace, (KernelRecord k) -> work.get(k.correlationId()));
    SimSpec spec = SimSpec.preset("h200");
    long simulated = 0;
    long records = 0;
    int replays = 0;
    while (simulated < o.simulatedNs()) {
      Replay.Prediction p = replay.predict(spec, TraceChange.none(), o.seed() + 1 + replays);
      simulated += p.totalNs();
      records += p.records().size();
      replays++;
    }
    return new ReplayResult(trace.size(), replays, simulated, records, System.nanoTime() - w0, cpuNanos() - c0);
  }

  /**
   * What {@link #replay} did.
   *
   * @param traced records of the traced session
   * @param replays replays run
   * @param simulatedNs their simulated time, added up
   * @param records records the replays emitted
   * @param wallNanos wall time of the replays (tracing the session left out)
   * @param cpuNanos the process's CPU time over the same stretch
   */
  record ReplayResult(int traced, int replays, long simulatedNs, long records, long wallNanos, long cpuNanos) {
  }

  /** CPU time of the whole process (every thread: the run, the JIT, the collector). */
  private static long cpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
        .getOperatingSystemMXBean()).getProcessCpuTime();
  }

  private static final List<String> OPTIONS = List.of("mode", "seconds", "config", "data", "messages", "trace", "seed",
      "faults");

  public static void main(String[] args) throws Exception {
    Map<String, String> a = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i += 2) {
      if (!args[i].startsWith("--") || i + 1 >= args.length) {
        throw new IllegalArgumentException("expected --name value pairs, got " + args[i]);
      }
      String key = args[i].substring(2);
      if (!OPTIONS.contains(key)) {
        throw new IllegalArgumentException("unknown option --" + key + ": use " + OPTIONS.stream().map(x -> "--" + x)
            .toList());
      }
      a.put(key, args[i + 1]);
    }
    double seconds = Double.parseDouble(a.getOrDefault("seconds", "600"));
    Path data = Path.of(a.getOrDefault("data", System.getProperty("java.io.tmpdir") + "/gitm-datasets/hft"));
    HftLobWorkload.Params defaults = HftLobWorkload.Params.defaults();
    int messages = Integer.parseInt(a.getOrDefault("messages", "" + defaults.bookMessages()));
    String trace = a.getOrDefault("trace", "on");
    String name = a.getOrDefault("config", "shipped");
    ExecutionConfig config = CONFIGS.get(name);
    if (config == null) {
      throw new IllegalArgumentException("--config " + name + ": unknown; use one of " + CONFIGS.keySet());
    }
    String mode = a.getOrDefault("mode", "live");
    if (!mode.equals("live") && !mode.equals("replay")) {
      throw new IllegalArgumentException("--mode takes live or replay, got " + mode);
    }
    if (!trace.equals("on") && !trace.equals("off")) {
      throw new IllegalArgumentException("--trace takes on or off, got " + trace);
    }
    if (!(seconds > 0) || messages <= 0) {
      throw new IllegalArgumentException("--seconds and --messages must be positive: " + seconds + ", " + messages);
    }
    Files.createDirectories(data);
    Options o = new Options(defaults.withData(defaults.seed(), defaults.instruments(), messages), config, data,
        (long) (seconds * 1e9), 0, Long.parseLong(a.getOrDefault("seed", "1")), a.getOrDefault("faults", ""), 1000);
    long t0 = System.nanoTime();
    long c0 = cpuNanos();
    if (mode.equals("replay")) {
      ReplayResult r = replay(o);
      double wall = r.wallNanos() / 1e9;
      System.out.printf(Locale.ROOT, "hft-lob %s replayed on sim h200: %d replays of a %d-record session, %.1f"
          + " simulated s in %.2f s wall, %.2f s CPU (tracing the session left out): %.1f simulated s per wall s;"
          + " %d records%n", name, r.replays(), r.traced(), r.simulatedNs() / 1e9, wall, r.cpuNanos() / 1e9,
          r.simulatedNs() / 1e9 / wall, r.records());
      return;
    }
    long[] records = new long[1];
    Result r = run(o, trace.equals("on") ? x -> records[0]++ : null);
    double wall = (System.nanoTime() - t0) / 1e9;
    System.out.printf(Locale.ROOT, "hft-lob %s on sim h200: %.1f simulated s in %.2f s wall, %.2f s CPU: %.3f"
        + " simulated s per wall s; %d batches in %d sessions, %d records%n", name, r.simulatedNs() / 1e9, wall,
        (cpuNanos() - c0) / 1e9, r.simulatedNs() / 1e9 / wall, r.batches(), r.sessions(), records[0]);
  }
}
