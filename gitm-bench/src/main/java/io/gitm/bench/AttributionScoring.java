package io.gitm.bench;

import io.gitm.analysis.Analysis;
import io.gitm.analysis.Ceilings;
import io.gitm.analysis.Differential;
import io.gitm.analysis.attribution.Cause;
import io.gitm.analysis.attribution.Hypothesis;
import io.gitm.api.Ticker;
import io.gitm.device.HostMemoryKind;
import io.gitm.run.Profiler;
import io.gitm.sim.SimDevice;
import io.gitm.sim.SimSpec;
import io.gitm.stats.Sample;
import io.gitm.trace.MarkerRecord;
import io.gitm.trace.TraceMeta;
import io.gitm.trace.TraceRecord;
import io.gitm.workload.ExecutionConfig;
import io.gitm.workload.Workload;
import io.gitm.workloads.af2.Af2Workload;
import io.gitm.workloads.hft.HftLobWorkload;
import io.gitm.workloads.kitti.KittiWorkload;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.LongFunction;

/**
 * Scores the attribution on the simulated device: a workload ({@link #JOBS}: hft-lob, af2, af2-graph, kitti) in a
 * well-tuned configuration it honours ({@link Job}) runs with each fault of the sim's catalogue alone, with every pair
 * of faults (but pairs of two faults inert alone on every seed), and with none, over many seeds; each run's trace is
 * analyzed ({@link Analysis#analyze}) in memory and the ranked causes are compared with the injected ones.
 *
 * <p>Definitions (also in {@code docs/attribution.md}, "Scoring"). With {@code m} injected faults that are not inert
 * (one alone, two in a pair), a run is a <b>top-1 hit</b> when the best hypothesis's cause is one of the injected
 * faults' causes, and a <b>top-2 hit</b> when every injected cause is among the first {@code m + 1} hypotheses (for a
 * fault alone: rank 1 or 2; for a pair: both causes within the first three). A run is <b>inert</b> when its slowdown
 * of the job (same seed, with vs without the fault) is below {@link Options#inertBelow()}, and a fault is inert for
 * the workload when all its runs are; inert runs are left out of the rates (a pair with one inert fault is scored on
 * the other). A fault-free run is a <b>false
 * alarm</b> when any hypothesis names a cause of {@link #DEVICE_CAUSES}.
 *
 * <p>The <b>differential</b> scores use the same definitions on the differential ranking ({@link Differential}): the
 * causes new or grown against the same seed's fault-free run, ranked by the lost time they added; a fault-free run is
 * a differential false alarm when, against the previous fault-free seed's run, a cause of {@link #DEVICE_CAUSES} is
 * new or grew.
 *
 * <p>{@code java -cp gitm-bench/target/gitm-bench.jar io.gitm.bench.AttributionScoring [--workload
 * hft-lob|af2|af2-graph|kitti|all] [--alone N] [--pairs N] [--clean N] [--iterations N] [--faults a,b,…] [--seed S]
 * [--preset P] [--defaults] [--data DIR] [--out FILE]}
 */
public final class AttributionScoring {
  /** Each fault of the simulated device's catalogue and the cause it must be attributed to. */
  public static final Map<String, Cause> CAUSE_OF_FAULT = faultCauses();

  /**
   * Causes that lie in the device or its environment rather than in how the job runs: reporting one of these on a
   * fault-free run is a false alarm (the job's own inefficiencies, e.g. launch gaps, may be real on a clean run).
   */
  public static final Set<Cause> DEVICE_CAUSES = EnumSet.of(Cause.THERMAL_THROTTLING, Cause.POWER_THROTTLING,
      Cause.POWER_BRAKE, Cause.CLOCK_DROP, Cause.CONTENTION, Cause.HOST_LINK_DEGRADED, Cause.MEMORY_DEGRADED);

  private AttributionScoring() {}

  private static Map<String, Cause> faultCauses() {
    Map<String, Cause> m = new LinkedHashMap<>();
    m.put("thermal", Cause.THERMAL_THROTTLING);
    m.put("power-cap", Cause.POWER_THROTTLING);
    m.put("clock-drop", Cause.CLOCK_DROP);
    m.put("allocator-churn", Cause.ALLOCATOR_STALL);
    m.put("pageable-copies", Cause.PAGEABLE_COPIES);
    m.put("serialized-streams", Cause.FALSE_SERIALIZATION);
    m.put("launch-bound", Cause.LAUNCH_BOUND_HOST);
    m.put("uncoalesced", Cause.EXCESS_TRAFFIC);
    m.put("noisy-neighbour", Cause.CONTENTION);
    m.put("time-slicing", Cause.CONTENTION);
    m.put("sync-stall", Cause.SYNCHRONOUS_HOST_CALLS);
    m.put("pcie-downgrade", Cause.HOST_LINK_DEGRADED);
    m.put("power-brake", Cause.POWER_BRAKE);
    m.put("ecc-retirement", Cause.MEMORY_DEGRADED);
    return Collections.unmodifiableMap(m);
  }

  /**
   * What to run.
   *
   * @param alone seeds per fault alone (also the seeds of the fault-free reference runs for the slowdowns)
   * @param pairs seeds per pair of faults (0 = no pairs)
   * @param clean fault-free seeds for the false-alarm rate
   * @param iterations device batches per run
   * @param faults the faults to score, each a fault name of {@link #CAUSE_OF_FAULT}
   * @param inertBelow slowdown (same seed, with vs without the fault) below which a run is inert
   * @param vary whether each run draws its faults' severity and onset ({@link #spec}); else catalogue defaults
   */
  public record Options(Job job, String preset, int alone, int pairs, int clean, long firstSeed, int iterations,
      List<String> faults, double inertBelow, boolean vary) {
    public Options {
      if (job == null) {
        throw new IllegalArgumentException("scoring needs a workload: one of " + String.join(", ", JOBS));
      }
      if (alone < 1 || pairs < 0 || clean < 0 || iterations < 2) {
        throw new IllegalArgumentException("scoring needs at least 1 seed per fault, 0 or more per pair and fault-free,"
            + " and 2 or more iterations; got alone=" + alone + " pairs=" + pairs + " clean=" + clean
            + " iterations=" + iterations);
      }
      if (!(inertBelow >= 0 && inertBelow < 1)) {
        throw new IllegalArgumentException("inertBelow must be in [0, 1), got " + inertBelow);
      }
      SimSpec.preset(preset);
      faults = List.copyOf(faults);
      for (String f : faults) {
        if (!CAUSE_OF_FAULT.containsKey(f)) {
          throw new IllegalArgumentException("unknown fault '" + f + "': known faults are "
              + String.join(", ", CAUSE_OF_FAULT.keySet()));
        }
      }
      if (faults.isEmpty() || faults.stream().distinct().count() != faults.size()) {
        throw new IllegalArgumentException("scoring needs one or more distinct faults, got " + faults);
      }
    }

    /** hft-lob's defaults ({@link #defaults(Job)}). */
    public static Options defaults() {
      return defaults(AttributionScoring.job("hft-lob"));
    }

    /** The job's seeds and iterations ({@link Job}), every fault, inert below 2%, drawn faults. */
    public static Options defaults(Job job) {
      return new Options(job, "h200", job.alone(), job.pairs(), job.clean(), 1, job.iterations(),
          List.copyOf(CAUSE_OF_FAULT.keySet()), 0.02, true);
    }

    public Options withSeeds(int alone, int pairs, int clean) {
      return new Options(job, preset, alone, pairs, clean, firstSeed, iterations, faults, inertBelow, vary);
    }

    public Options withFaults(List<String> v) {
      return new Options(job, preset, alone, pairs, clean, firstSeed, iterations, v, inertBelow, vary);
    }

    public Options withFirstSeed(long v) {
      return new Options(job, preset, alone, pairs, clean, v, iterations, faults, inertBelow, vary);
    }

    public Options withIterations(int v) {
      return new Options(job, preset, alone, pairs, clean, firstSeed, v, faults, inertBelow, vary);
    }

    public Options withPreset(String v) {
      return new Options(job, v, alone, pairs, clean, firstSeed, iterations, faults, inertBelow, vary);
    }

    /** The job's own iterations and seeds ({@link Job}) are not changed: set them after. */
    public Options withJob(Job v) {
      return new Options(v, preset, alone, pairs, clean, firstSeed, iterations, faults, inertBelow, vary);
    }

    public Options withVary(boolean v) {
      return new Options(job, preset, alone, pairs, clean, firstSeed, iterations, faults, inertBelow, v);
    }
  }

  /** The workloads that can be scored, by name. */
  public static final List<String> JOBS = List.of("hft-lob", "af2", "af2-graph", "kitti");

  /**
   * A workload as scored: how to build it for a run's seed, the well-tuned configuration it honours, its device
   * iterations a run and its default seeds (alone, per pair, fault-free).
   */
  public record Job(String name, LongFunction<Workload> workload, ExecutionConfig tuned, int iterations, int alone,
      int pairs, int clean) {}

  /** The job called {@code name}, one of {@link #JOBS}. */
  public static Job job(String name) {
    return switch (name) {
      case "hft-lob" -> new Job(name, s -> new HftLobWorkload(params(s)), tuned(), 24, 20, 5, 50);
      case "af2" -> new Job(name, s -> new Af2Workload(af2Params(s)), af2Tuned(), 8, 4, 1, 20);
      case "af2-graph" -> new Job(name, s -> new Af2Workload(af2Params(s)), af2Graph(), 24, 4, 1, 20);
      case "kitti" -> new Job(name, s -> new KittiWorkload(kittiParams(s)), kittiTuned(), 48, 4, 1, 20);
      default -> throw new IllegalArgumentException("unknown workload '" + name + "': known are "
          + String.join(", ", JOBS) + " (or all)");
    };
  }

  /** hft-lob's size: a few thousand messages a batch, so that one run takes well under a second. */
  public static HftLobWorkload.Params params(long seed) {
    return new HftLobWorkload.Params(seed, 512, 120_000, 4096, 10, 128, 7, null);
  }

  /**
   * A well-tuned hft-lob, so that each fault has something to break: pinned host memory, stream-ordered pool
   * allocation that keeps its memory, asynchronous copies on their own streams, two compute streams, no graph.
   */
  public static ExecutionConfig tuned() {
    return ExecutionConfig.shipped().withHostMemory(HostMemoryKind.PINNED)
        .withAllocation(ExecutionConfig.Allocation.POOL, 1L << 30).withStreams(2, true, true);
  }

  /** af2's size: the simulated architecture (2 blocks, c_m 32, c_z 16) on one of a few generated alignments. */
  public static Af2Workload.Params af2Params(long seed) {
    return new Af2Workload.Params(32, 16, 32, 16, 2, 4, 2, 8, 16, 4, 48, 4, seed, 7L, null, null);
  }

  /**
   * A well-tuned af2 (what it honours: no copy-compute overlap, one inference a step): pinned host memory, pool
   * allocation that keeps its memory, asynchronous copies, two streams.
   */
  public static ExecutionConfig af2Tuned() {
    return ExecutionConfig.shipped().withHostMemory(HostMemoryKind.PINNED)
        .withAllocation(ExecutionConfig.Allocation.POOL, 1L << 30).withStreams(2, true, false);
  }

  /**
   * af2 as one captured graph (what af2 honours for it): pinned host memory, every temporary preallocated, one stream,
   * the whole inference replayed per step by one graph launch, its input and output copies synchronous around the
   * graph (captured copies would make {@code pageable-copies}, under which pinned memory acts pageable, fail the
   * capture). No launch gaps between its kernels, so that faults that lengthen kernels (the clock causes, excess
   * traffic, another tenant, degraded memory) slow the job where the launch-bound {@link #af2Tuned()} hides them;
   * host-side faults (allocator, launches, synchronizations per launch) have little or nothing to act on here.
   */
  public static ExecutionConfig af2Graph() {
    return ExecutionConfig.shipped().withHostMemory(HostMemoryKind.PINNED)
        .withAllocation(ExecutionConfig.Allocation.PREALLOCATED, 0).withStreams(1, false, false)
        .withGraphCapture(true);
  }

  /** kitti's size: the simulated frames (120k-point scans, 0.64 m pillars, C 16), four frames per dataset. */
  public static KittiWorkload.Params kittiParams(long seed) {
    return new KittiWorkload.Params(seed, 7L, 4, 64, 2083, 0.64f, 12000, 32, 16, 1024, 100, 0.2f, 0.5f);
  }

  /**
   * A well-tuned kitti (what it honours: overlap by prefetching the next frame on a second stream, not
   * copyComputeOverlap): pinned host memory, pool allocation that keeps its memory, asynchronous copies, two streams.
   */
  public static ExecutionConfig kittiTuned() {
    return ExecutionConfig.shipped().withHostMemory(HostMemoryKind.PINNED)
        .withAllocation(ExecutionConfig.Allocation.POOL, 1L << 30).withStreams(2, true, false);
  }

  /**
   * One analyzed run.
   *
   * @param firstNs when its first iteration started on the simulated clock
   * @param jobNs the job's time on the simulated clock: from its first device operation's launch to the end of its last
   * @param ranked the hypotheses' causes, best first
   * @param side the run as a differential comparison reads it
   */
  public record Run(String faults, long seed, long firstNs, long jobNs, List<Cause> ranked,
      List<Hypothesis> hypotheses, Differential.Side side) {
    public int rank(Cause c) {
      int i = ranked.indexOf(c);
      return i < 0 ? Integer.MAX_VALUE : i + 1;
    }
  }

  /** Runs the job once on a fresh simulated device with {@code faults}, traces it into memory and analyzes it. */
  public static Run run(Options o, Path data, String faults, long seed) {
    List<TraceRecord> records = new ArrayList<>();
    TraceMeta[] meta = new TraceMeta[1];
    try (SimDevice d = SimDevice.open(SimSpec.preset(o.preset()), seed, faults)) {
      // the wall ticker stands still: the run ends after its iterations, the same on any machine
      Profiler.run(d, o.job().workload().apply(datasetSeed(seed)), o.job().tuned(), data, () -> 0L,
          new Profiler.Options(Duration.ofDays(1), o.iterations(), 1_000_000L), m -> {
            meta[0] = m;
            return records::add;
          });
    }
    long first = Long.MAX_VALUE;
    for (TraceRecord r : records) {
      if (r instanceof MarkerRecord m && m.name().startsWith("iteration")) {
        first = Math.min(first, m.startNs());
      }
    }
    Analysis.Result a = Analysis.analyze(meta[0], records, Ceilings.forTrace(meta[0], null).spec());
    return new Run(faults, seed, first, a.spanNs(), a.hypotheses().stream().map(Hypothesis::cause).toList(),
        a.hypotheses(), Differential.Side.of(a));
  }

  /** Runs use one of a few generated datasets, so that seeds differ in their input as well as in the device noise. */
  static long datasetSeed(long seed) {
    return 20261201L + Math.floorMod(seed, 4);
  }

  /**
   * The spec of {@code fault} on run {@code seed}: with {@link Options#vary()}, its severity drawn (seeded by the fault
   * and the seed) from {@link #RANGES} and its onset from the first fifth of the job ({@code firstNs}: when the first
   * iteration starts, {@code jobNs}: the fault-free job's length); otherwise the catalogue's defaults from the start.
   */
  public static String spec(Options o, String fault, long seed, long firstNs, long jobNs) {
    if (!o.vary()) {
      return fault;
    }
    SplittableRandom r = new SplittableRandom(seed * 1_000_003L + fault.hashCode());
    long onset = firstNs + (long) (r.nextDouble() * 0.2 * jobNs);
    StringBuilder b = new StringBuilder(fault).append('@').append(onset).append("ns");
    double[] range = RANGES.get(fault);
    if (range != null) {
      double v = range[1] + r.nextDouble() * (range[2] - range[1]);
      String param = PARAMS.get(fault);
      b.append(':').append(param).append('=').append(String.format(Locale.ROOT, range[0] == 1 ? "%.0f" : "%.3f", v));
    }
    return b.toString();
  }

  /** The severity parameter each fault's draws vary. */
  static final Map<String, String> PARAMS = Map.ofEntries(Map.entry("thermal", "severity"),
      Map.entry("power-cap", "watts"), Map.entry("clock-drop", "mhz"), Map.entry("allocator-churn", "factor"),
      Map.entry("launch-bound", "gapUs"), Map.entry("uncoalesced", "factor"), Map.entry("noisy-neighbour", "sms"),
      Map.entry("time-slicing", "sliceUs"), Map.entry("sync-stall", "every"), Map.entry("pcie-downgrade", "factor"),
      Map.entry("power-brake", "factor"), Map.entry("ecc-retirement", "factor"));

  /** Per fault: {integer?, low, high} of its severity parameter's draws (h200 preset: 132 SMs, 1980 MHz, 700 W). */
  static final Map<String, double[]> RANGES = Map.ofEntries(Map.entry("thermal", new double[] {0, 0.3, 1.0}),
      Map.entry("power-cap", new double[] {1, 150, 500}), Map.entry("clock-drop", new double[] {1, 700, 1600}),
      Map.entry("allocator-churn", new double[] {0, 1, 4}), Map.entry("launch-bound", new double[] {1, 5, 40}),
      Map.entry("uncoalesced", new double[] {0, 2, 8}), Map.entry("noisy-neighbour", new double[] {1, 33, 99}),
      Map.entry("time-slicing", new double[] {1, 500, 3000}),
      Map.entry("sync-stall", new double[] {1, 4, 20}), Map.entry("pcie-downgrade", new double[] {0, 0.25, 0.75}),
      Map.entry("power-brake", new double[] {0, 0.4, 0.9}), Map.entry("ecc-retirement", new double[] {0, 0.7, 0.95}));

  /**
   * Scores of one fault alone over its runs.
   *
   * @param inert runs whose slowdown (same seed, with vs without the fault) was below the inert threshold
   * @param top1 top-1 hits among the other runs; {@code top2} likewise
   * @param diffTop1 top-1 hits of the differential ranking (against the seed's fault-free run); {@code diffTop2}
   *     likewise
   * @param slowdown median slowdown over all runs; {@code minSlowdown}, {@code maxSlowdown} its range
   */
  public record FaultScore(String fault, Cause cause, int runs, int inert, int top1, int top2, int diffTop1,
      int diffTop2, double slowdown, double minSlowdown, double maxSlowdown, Map<Cause, Integer> topCauses) {
    public int scored() {
      return runs - inert;
    }

    /** Inert for the workload: every run's slowdown was below the threshold. */
    public boolean inertForWorkload() {
      return inert == runs;
    }
  }

  /**
   * Scores of the pairs.
   *
   * @param skipped pairs not run because both faults were inert for the workload alone on every seed
   */
  public record PairScore(int pairs, int skipped, int runs, int scored, int top1, int top2, int bothTop2,
      int diffTop1, int diffTop2, List<String> worst) {}

  /**
   * What the scoring found.
   *
   * @param cleanCompared fault-free runs compared with the previous fault-free seed's run; {@code diffFalseAlarms} of
   *     them had a device cause new or grown, {@code diffAlarmCauses} which; {@code diffAny} of them had any cause new
   *     or grown, {@code diffCauses} which
   */
  public record Report(Options options, List<FaultScore> faults, PairScore pairs, int cleanRuns,
      int falseAlarms, Map<Cause, Integer> falseAlarmCauses, int cleanAny, Map<Cause, Integer> cleanCauses,
      int cleanCompared, int diffFalseAlarms, Map<Cause, Integer> diffAlarmCauses, int diffAny,
      Map<Cause, Integer> diffCauses, int runs, double seconds, double cleanSpanMs) {
    public int scoredRuns() {
      return faults.stream().mapToInt(FaultScore::scored).sum();
    }

    public double top1() {
      return rate(faults.stream().mapToInt(FaultScore::top1).sum(), scoredRuns());
    }

    public double top2() {
      return rate(faults.stream().mapToInt(FaultScore::top2).sum(), scoredRuns());
    }
  }

  static double rate(int n, int of) {
    return of == 0 ? Double.NaN : (double) n / of;
  }

  /** The causes new or grown in {@code r} against the fault-free run of its seed, ranked. */
  static List<Cause> changed(Differential.Side baseline, Run r) {
    return Differential.compare(baseline, r.side()).ranked().stream().map(Differential.Change::cause).toList();
  }

  /**
   * Runs every case and scores it ({@link Scoring}): each fault alone, every pair, the fault-free seeds;
   * {@code progress} gets one line per fault or pair.
   */
  public static Report score(Options o, Path data, PrintStream progress) {
    Ticker wall = Ticker.system();
    long wall0 = wall.nanos();
    Scoring scoring = new Scoring(o, data, progress);
    List<FaultScore> scores = new ArrayList<>();
    for (String f : o.faults()) {
      scores.add(scoring.alone(f));
    }
    PairScore ps = scoring.pairs(scores);
    Scoring.Clean c = scoring.clean();
    return new Report(o, scores, ps, o.clean(), c.alarms, c.alarmCauses, c.any, c.causes, c.compared, c.diffAlarms,
        c.diffAlarmCauses, c.diffAny, c.diffCauses, scoring.runs(), (wall.nanos() - wall0) / 1e9,
        Sample.median(scoring.referenceSpansMs()));
  }

  /** The report as a markdown table. */
  public static String markdown(Report r) {
    StringBuilder b = new StringBuilder();
    b.append("| fault | expected cause | severity drawn | runs | inert runs | top-1 | top-2 | differential top-1 |"
        + " differential top-2 | slowdown median [range] | ranked first (non-inert runs) |\n");
    b.append("|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (FaultScore f : r.faults()) {
      String best = f.topCauses().entrySet().stream().sorted((x, y) -> y.getValue() - x.getValue())
          .map(e -> (e.getKey() == null ? "nothing" : e.getKey().name()) + " " + e.getValue())
          .reduce((x, y) -> x + ", " + y).orElse("");
      double[] range = RANGES.get(f.fault());
      String drawn = !r.options().vary() ? "default" : range == null ? "—"
          : PARAMS.get(f.fault()) + " " + fmt(range[1]) + "–" + fmt(range[2]);
      boolean inert = f.inertForWorkload();
      b.append(String.format(Locale.ROOT, "| %s | %s | %s | %d | %d | %s | %s | %s | %s | %+.1f%% [%+.1f%%, %+.1f%%] |"
          + " %s |%n", f.fault(), f.cause().name(), drawn, f.runs(), f.inert(),
          inert ? "inert for " + r.options().job().name() : pct(f.top1(), f.scored()),
          inert ? "inert" : pct(f.top2(), f.scored()), inert ? "inert" : pct(f.diffTop1(), f.scored()),
          inert ? "inert" : pct(f.diffTop2(), f.scored()),
          f.slowdown() * 100, f.minSlowdown() * 100, f.maxSlowdown() * 100, inert ? "—" : best));
    }
    b.append(String.format(Locale.ROOT, "| **every fault alone** (inert runs left out) | | | %d | %d | **%s** |"
        + " **%s** | **%s** | **%s** | | |%n", r.faults().stream().mapToInt(FaultScore::runs).sum(),
        r.faults().stream().mapToInt(FaultScore::inert).sum(),
        pct(r.faults().stream().mapToInt(FaultScore::top1).sum(), r.scoredRuns()),
        pct(r.faults().stream().mapToInt(FaultScore::top2).sum(), r.scoredRuns()),
        pct(r.faults().stream().mapToInt(FaultScore::diffTop1).sum(), r.scoredRuns()),
        pct(r.faults().stream().mapToInt(FaultScore::diffTop2).sum(), r.scoredRuns())));
    PairScore p = r.pairs();
    if (p.runs() > 0) {
      b.append(String.format(Locale.ROOT, "| **every pair** (%d pairs × %d seeds; %d pairs of two faults inert alone"
          + " not run) | | | %d | %d | **%s** | **%s** | **%s** | **%s** | both in top 2: %s | misses: %s |%n",
          p.pairs(), r.options().pairs(), p.skipped(), p.runs(), p.runs() - p.scored(),
          pct(p.top1(), p.scored()), pct(p.top2(), p.scored()), pct(p.diffTop1(), p.scored()),
          pct(p.diffTop2(), p.scored()), pct(p.bothTop2(), p.scored()),
          p.worst().isEmpty() ? "none" : String.join(", ", p.worst())));
    }
    b.append(String.format(Locale.ROOT, "| **fault-free** | | | %d | | false alarms **%s** | | false alarms **%s**"
        + " (against the previous seed) | | | device causes named: %s; any hypothesis: %d run(s)%s; device causes"
        + " new or grown: %s; any cause new or grown: %d run(s)%s |%n", r.cleanRuns(),
        pct(r.falseAlarms(), r.cleanRuns()), pct(r.diffFalseAlarms(), r.cleanCompared()),
        r.falseAlarmCauses().isEmpty() ? "none" : r.falseAlarmCauses().toString(), r.cleanAny(),
        r.cleanCauses().isEmpty() ? "" : " " + r.cleanCauses(),
        r.diffAlarmCauses().isEmpty() ? "none" : r.diffAlarmCauses().toString(), r.diffAny(),
        r.diffCauses().isEmpty() ? "" : " " + r.diffCauses()));
    return b.toString();
  }

  private static String fmt(double v) {
    return v == Math.rint(v) ? String.format(Locale.ROOT, "%.0f", v) : String.format(Locale.ROOT, "%.2f", v);
  }

  static String pct(int n, int of) {
    return of == 0 ? "n/a" : String.format(Locale.ROOT, "%.1f%% (%d/%d)", 100.0 * n / of, n, of);
  }

  /** The line over several workloads' reports: faults alone, pairs and fault-free runs pooled. */
  public static String overall(List<Report> reports) {
    int scored = 0;
    int t1 = 0;
    int t2 = 0;
    int ps = 0;
    int p1 = 0;
    int p2 = 0;
    int clean = 0;
    int alarms = 0;
    int d1 = 0;
    int d2 = 0;
    int pd1 = 0;
    int pd2 = 0;
    int compared = 0;
    int dAlarms = 0;
    for (Report r : reports) {
      d1 += r.faults().stream().mapToInt(FaultScore::diffTop1).sum();
      d2 += r.faults().stream().mapToInt(FaultScore::diffTop2).sum();
      pd1 += r.pairs().diffTop1();
      pd2 += r.pairs().diffTop2();
      compared += r.cleanCompared();
      dAlarms += r.diffFalseAlarms();
      scored += r.scoredRuns();
      t1 += r.faults().stream().mapToInt(FaultScore::top1).sum();
      t2 += r.faults().stream().mapToInt(FaultScore::top2).sum();
      ps += r.pairs().scored();
      p1 += r.pairs().top1();
      p2 += r.pairs().top2();
      clean += r.cleanRuns();
      alarms += r.falseAlarms();
    }
    return String.format(Locale.ROOT, "overall (%s): alone top-1 %s, top-2 %s; pairs top-1 %s, top-2 %s; fault-free"
        + " false alarms %s%ndifferential (%s): alone top-1 %s, top-2 %s; pairs top-1 %s, top-2 %s; fault-free false"
        + " alarms %s%n", String.join(", ", reports.stream().map(r -> r.options().job().name()).toList()),
        pct(t1, scored), pct(t2, scored), pct(p1, ps), pct(p2, ps), pct(alarms, clean),
        String.join(", ", reports.stream().map(r -> r.options().job().name()).toList()), pct(d1, scored),
        pct(d2, scored), pct(pd1, ps), pct(pd2, ps), pct(dAlarms, compared));
  }

  /**
   * {@code [--workload hft-lob|af2|af2-graph|kitti|all] [--alone N] [--pairs N] [--clean N] [--iterations N] [--seed S]
   * [--preset P] [--faults a,b,…] [--defaults] [--data DIR] [--out FILE]}: prints each workload's markdown table and,
   * for several, the overall line (and writes them to FILE). Seeds and iterations not given are each workload's own
   * ({@link Job}).
   */
  public static void main(String[] args) throws IOException {
    Path out = null;
    Path data = null;
    List<String> workloads = List.of("hft-lob");
    Map<String, String> given = new LinkedHashMap<>();
    boolean defaults = false;
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (a.equals("--defaults")) {
        defaults = true;
        continue;
      }
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException("option " + a + " needs a value");
      }
      String v = args[++i];
      switch (a) {
        case "--alone", "--pairs", "--clean", "--iterations", "--seed" -> given.put(a, String.valueOf(integer(a, v)));
        case "--preset", "--faults" -> given.put(a, v);
        case "--workload" -> {
          workloads = v.equals("all") ? JOBS : List.of(v);
          job(v.equals("all") ? JOBS.getFirst() : v);
        }
        case "--out" -> out = Path.of(v);
        case "--data" -> data = Path.of(v);
        default -> throw new IllegalArgumentException("unknown option '" + a + "': known are --workload, --alone, "
            + "--pairs, --clean, --iterations, --seed, --preset, --faults, --defaults, --data, --out");
      }
    }
    Path dir = data != null ? data : Files.createTempDirectory("gitm-scoring");
    StringBuilder md = new StringBuilder();
    List<Report> reports = new ArrayList<>();
    for (String w : workloads) {
      Options o = options(Options.defaults(job(w)), given).withVary(!defaults);
      System.err.println("== " + w);
      Report r = score(o, dir, System.err);
      reports.add(r);
      String part = String.format(Locale.ROOT, "%s (%d runs in %.1f s, %.3f s per run; fault-free span %.2f ms of"
          + " simulated time, median; --alone %d --pairs %d --clean %d --iterations %d --seed %d):%n%n%s%n", w,
          r.runs(), r.seconds(), r.seconds() / Math.max(1, r.runs()), r.cleanSpanMs(), o.alone(), o.pairs(),
          o.clean(), o.iterations(), o.firstSeed(),
          markdown(r));
      System.out.print(part);
      md.append(part);
    }
    if (reports.size() > 1) {
      String line = overall(reports);
      System.out.print(line);
      md.append(line);
    }
    if (out != null) {
      Files.writeString(out, md, StandardCharsets.UTF_8);
    }
  }

  private static Options options(Options o, Map<String, String> given) {
    for (Map.Entry<String, String> e : given.entrySet()) {
      String v = e.getValue();
      o = switch (e.getKey()) {
        case "--alone" -> o.withSeeds(Integer.parseInt(v), o.pairs(), o.clean());
        case "--pairs" -> o.withSeeds(o.alone(), Integer.parseInt(v), o.clean());
        case "--clean" -> o.withSeeds(o.alone(), o.pairs(), Integer.parseInt(v));
        case "--iterations" -> o.withIterations(Integer.parseInt(v));
        case "--seed" -> o.withFirstSeed(Integer.parseInt(v));
        case "--preset" -> o.withPreset(v);
        case "--faults" -> o.withFaults(List.of(v.split(",")));
        default -> throw new IllegalStateException("option " + e.getKey() + " has no setter");
      };
    }
    return o;
  }

  private static int integer(String option, String v) {
    try {
      return Integer.parseInt(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("option " + option + " takes a whole number, got '" + v + "'");
    }
  }
}
