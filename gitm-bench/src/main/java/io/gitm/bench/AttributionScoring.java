package io.gitm.bench;

import io.gitm.device.HostMemoryKind;
import io.gitm.optimizer.Analysis;
import io.gitm.optimizer.Ceilings;
import io.gitm.optimizer.attribution.Cause;
import io.gitm.optimizer.attribution.Hypothesis;
import io.gitm.scheduler.Profiler;
import io.gitm.sim.SimDevice;
import io.gitm.sim.SimSpec;
import io.gitm.trace.MarkerRecord;
import io.gitm.trace.TraceMeta;
import io.gitm.trace.TraceRecord;
import io.gitm.workload.ExecutionConfig;
import io.gitm.workloads.hft.HftLobWorkload;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Scores the attribution on the simulated device: hft-lob in a well-tuned configuration runs with each fault of the
 * sim's catalogue alone, with every pair of faults, and with none, over many seeds; each run's trace is analyzed
 * ({@link Analysis#analyze}) in memory and the ranked causes are compared with the injected ones.
 *
 * <p>Definitions (also in {@code docs/attribution.md}, "Scoring"). With {@code m} injected faults that are not inert
 * (one alone, two in a pair), a run is a <b>top-1 hit</b> when the best hypothesis's cause is one of the injected
 * faults' causes, and a <b>top-2 hit</b> when every injected cause is among the first {@code m + 1} hypotheses (for a
 * fault alone: rank 1 or 2; for a pair: both causes within the first three). A fault is <b>inert for hft-lob</b> when
 * its median slowdown of the job (same seed, with vs without it) is below {@link Options#inertBelow()}; inert faults
 * are left out of the rates (a pair with one inert fault is scored on the other). A fault-free run is a <b>false
 * alarm</b> when any hypothesis names a cause of {@link #DEVICE_CAUSES}.
 *
 * <p>{@code java -cp gitm-bench/target/gitm-bench.jar io.gitm.bench.AttributionScoring [--alone N] [--pairs N]
 * [--clean N] [--iterations N] [--faults a,b,…] [--seed S] [--preset P] [--out FILE]}
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
    m.put("sync-stall", Cause.SYNCHRONOUS_HOST_CALLS);
    m.put("pcie-downgrade", Cause.HOST_LINK_DEGRADED);
    m.put("power-brake", Cause.POWER_BRAKE);
    m.put("ecc-retirement", Cause.MEMORY_DEGRADED);
    return java.util.Collections.unmodifiableMap(m);
  }

  /**
   * What to run.
   *
   * @param alone seeds per fault alone (also the seeds of the fault-free reference runs for the slowdowns)
   * @param pairs seeds per pair of faults (0 = no pairs)
   * @param clean fault-free seeds for the false-alarm rate
   * @param iterations device batches per run
   * @param faults the faults to score, each a fault name of {@link #CAUSE_OF_FAULT} (default parameters)
   * @param inertBelow median slowdown below which a fault is inert for the workload
   */
  public record Options(String preset, int alone, int pairs, int clean, long firstSeed, int iterations,
      List<String> faults, double inertBelow) {
    public Options {
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

    /** 20 seeds alone, 5 per pair, 50 fault-free, 24 batches a run, every fault, inert below 2%. */
    public static Options defaults() {
      return new Options("h200", 20, 5, 50, 1, 24, List.copyOf(CAUSE_OF_FAULT.keySet()), 0.02);
    }

    public Options withSeeds(int alone, int pairs, int clean) {
      return new Options(preset, alone, pairs, clean, firstSeed, iterations, faults, inertBelow);
    }

    public Options withFaults(List<String> v) {
      return new Options(preset, alone, pairs, clean, firstSeed, iterations, v, inertBelow);
    }
  }

  /** The workload's size: a few thousand messages a batch, so that one run takes well under a second. */
  public static HftLobWorkload.Params params(long seed) {
    return new HftLobWorkload.Params(seed, 512, 120_000, 4096, 10, 128, 7, null);
  }

  /**
   * A well-tuned configuration, so that each fault has something to break: pinned host memory, stream-ordered pool
   * allocation that keeps its memory, asynchronous copies on their own streams, two compute streams, no graph.
   */
  public static ExecutionConfig tuned() {
    return ExecutionConfig.shipped().withHostMemory(HostMemoryKind.PINNED)
        .withAllocation(ExecutionConfig.Allocation.POOL, 1L << 30).withStreams(2, true, true);
  }

  /**
   * One analyzed run.
   *
   * @param jobNs the job's time: the sum of its iterations on the simulated clock
   * @param ranked the hypotheses' causes, best first
   */
  public record Run(String faults, long seed, long jobNs, List<Cause> ranked, List<Hypothesis> hypotheses) {
    public int rank(Cause c) {
      int i = ranked.indexOf(c);
      return i < 0 ? Integer.MAX_VALUE : i + 1;
    }
  }

  /** Runs hft-lob once on a fresh simulated device with {@code faults}, traces it into memory and analyzes it. */
  public static Run run(Options o, Path data, String faults, long seed) {
    List<TraceRecord> records = new ArrayList<>();
    TraceMeta[] meta = new TraceMeta[1];
    try (SimDevice d = SimDevice.open(SimSpec.preset(o.preset()), seed, faults)) {
      // the wall ticker stands still: the run ends after its iterations, the same on any machine
      Profiler.run(d, new HftLobWorkload(params(datasetSeed(seed))), tuned(), data, () -> 0L,
          new Profiler.Options(Duration.ofDays(1), o.iterations(), 1_000_000L), m -> {
            meta[0] = m;
            return records::add;
          });
    }
    long job = 0;
    for (TraceRecord r : records) {
      if (r instanceof MarkerRecord m && m.name().startsWith("iteration")) {
        job += m.endNs() - m.startNs();
      }
    }
    Analysis.Result a = Analysis.analyze(meta[0], records, Ceilings.forTrace(meta[0], null).spec());
    return new Run(faults, seed, job, a.hypotheses().stream().map(Hypothesis::cause).toList(), a.hypotheses());
  }

  /** Runs use one of a few generated datasets, so that seeds differ in their input as well as in the device noise. */
  static long datasetSeed(long seed) {
    return 20261201L + Math.floorMod(seed, 4);
  }

  /** Scores of one fault alone. */
  public record FaultScore(String fault, Cause cause, int runs, int top1, int top2, double slowdown,
      boolean inert, Map<Cause, Integer> topCauses) {}

  /** Scores of the pairs. */
  public record PairScore(int pairs, int runs, int scored, int top1, int top2, int bothTop2,
      List<String> worst) {}

  /** What the scoring found. */
  public record Report(Options options, List<FaultScore> faults, PairScore pairs, int cleanRuns,
      int falseAlarms, Map<Cause, Integer> falseAlarmCauses, int cleanAny, double secondsPerRun) {
    public int scoredRuns() {
      return faults.stream().filter(f -> !f.inert()).mapToInt(FaultScore::runs).sum();
    }

    public double top1() {
      return rate(faults.stream().filter(f -> !f.inert()).mapToInt(FaultScore::top1).sum(), scoredRuns());
    }

    public double top2() {
      return rate(faults.stream().filter(f -> !f.inert()).mapToInt(FaultScore::top2).sum(), scoredRuns());
    }
  }

  static double rate(int n, int of) {
    return of == 0 ? Double.NaN : (double) n / of;
  }

  /** Runs every case and scores it; {@code progress} gets one line per fault or pair. */
  public static Report score(Options o, Path data, PrintStream progress) {
    long wall0 = System.nanoTime();
    int runs = 0;
    long[] cleanNs = new long[o.alone()];
    for (int s = 0; s < o.alone(); s++) {
      cleanNs[s] = run(o, data, "", o.firstSeed() + s).jobNs();
      runs++;
    }
    List<FaultScore> scores = new ArrayList<>();
    Map<String, Boolean> inert = new LinkedHashMap<>();
    for (String f : o.faults()) {
      Cause c = CAUSE_OF_FAULT.get(f);
      int top1 = 0;
      int top2 = 0;
      double[] slow = new double[o.alone()];
      Map<Cause, Integer> tops = new LinkedHashMap<>();
      for (int s = 0; s < o.alone(); s++) {
        Run r = run(o, data, f, o.firstSeed() + s);
        runs++;
        slow[s] = (double) r.jobNs() / Math.max(1, cleanNs[s]) - 1;
        int rank = r.rank(c);
        top1 += rank == 1 ? 1 : 0;
        top2 += rank <= 2 ? 1 : 0;
        tops.merge(r.ranked().isEmpty() ? null : r.ranked().getFirst(), 1, Integer::sum);
      }
      double median = median(slow);
      boolean isInert = median < o.inertBelow();
      inert.put(f, isInert);
      FaultScore fs = new FaultScore(f, c, o.alone(), top1, top2, median, isInert, tops);
      scores.add(fs);
      if (progress != null) {
        progress.printf(Locale.ROOT, "%-20s top-1 %d/%d top-2 %d/%d slowdown %+.1f%%%s best %s%n", f, top1, o.alone(),
            top2, o.alone(), median * 100, isInert ? " (inert)" : "", tops);
      }
    }
    int pairRuns = 0;
    int scored = 0;
    int p1 = 0;
    int p2 = 0;
    int both2 = 0;
    int nPairs = 0;
    Map<String, Integer> misses = new LinkedHashMap<>();
    if (o.pairs() > 0) {
      for (int i = 0; i < o.faults().size(); i++) {
        for (int j = i + 1; j < o.faults().size(); j++) {
          nPairs++;
          String a = o.faults().get(i);
          String b = o.faults().get(j);
          List<Cause> injected = new ArrayList<>();
          if (!inert.get(a)) {
            injected.add(CAUSE_OF_FAULT.get(a));
          }
          if (!inert.get(b)) {
            injected.add(CAUSE_OF_FAULT.get(b));
          }
          for (int s = 0; s < o.pairs(); s++) {
            Run r = run(o, data, a + "," + b, o.firstSeed() + 1000 + s);
            runs++;
            pairRuns++;
            if (injected.isEmpty()) {
              continue;
            }
            scored++;
            boolean h1 = !r.ranked().isEmpty() && injected.contains(r.ranked().getFirst());
            int worst = injected.stream().mapToInt(r::rank).max().orElseThrow();
            boolean h2 = worst <= injected.size() + 1;
            p1 += h1 ? 1 : 0;
            p2 += h2 ? 1 : 0;
            both2 += worst <= injected.size() ? 1 : 0;
            if (!h1 || !h2) {
              misses.merge(a + "+" + b, 1, Integer::sum);
            }
          }
          if (progress != null && misses.containsKey(a + "+" + b)) {
            progress.printf(Locale.ROOT, "pair %-36s misses %d/%d%n", a + "+" + b, misses.get(a + "+" + b), o.pairs());
          }
        }
      }
    }
    List<String> worst = misses.entrySet().stream().sorted((x, y) -> y.getValue() - x.getValue()).limit(10)
        .map(e -> e.getKey() + " (" + e.getValue() + ")").toList();
    PairScore ps = new PairScore(nPairs, pairRuns, scored, p1, p2, both2, worst);
    int alarms = 0;
    int any = 0;
    Map<Cause, Integer> alarmCauses = new LinkedHashMap<>();
    for (int s = 0; s < o.clean(); s++) {
      Run r = run(o, data, "", o.firstSeed() + 5000 + s);
      runs++;
      boolean alarm = false;
      for (Cause c : r.ranked()) {
        if (DEVICE_CAUSES.contains(c)) {
          alarm = true;
          alarmCauses.merge(c, 1, Integer::sum);
        }
      }
      alarms += alarm ? 1 : 0;
      any += r.ranked().isEmpty() ? 0 : 1;
    }
    double secondsPerRun = (System.nanoTime() - wall0) / 1e9 / Math.max(1, runs);
    return new Report(o, scores, ps, o.clean(), alarms, alarmCauses, any, secondsPerRun);
  }

  static double median(double[] v) {
    double[] s = v.clone();
    Arrays.sort(s);
    return s.length == 0 ? Double.NaN : s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  }

  /** The report as a markdown table. */
  public static String markdown(Report r) {
    StringBuilder b = new StringBuilder();
    b.append("| fault | expected cause | runs | top-1 | top-2 | slowdown (median) | most often ranked first |\n");
    b.append("|---|---|---|---|---|---|---|\n");
    for (FaultScore f : r.faults()) {
      String best = f.topCauses().entrySet().stream().sorted((x, y) -> y.getValue() - x.getValue())
          .map(e -> (e.getKey() == null ? "nothing" : e.getKey().name()) + " " + e.getValue())
          .reduce((x, y) -> x + ", " + y).orElse("");
      b.append(String.format(Locale.ROOT, "| %s | %s | %d | %s | %s | %+.1f%% | %s |%n", f.fault(), f.cause().name(),
          f.runs(), f.inert() ? "inert" : pct(f.top1(), f.runs()), f.inert() ? "inert" : pct(f.top2(), f.runs()),
          f.slowdown() * 100, best));
    }
    b.append(String.format(Locale.ROOT, "| **all faults alone** (inert left out) | | %d | **%.1f%%** | **%.1f%%** | | |%n",
        r.scoredRuns(), r.top1() * 100, r.top2() * 100));
    PairScore p = r.pairs();
    if (p.runs() > 0) {
      b.append(String.format(Locale.ROOT, "| **pairs** (%d pairs × %d seeds; scored %d) | | %d | **%s** | **%s** "
          + "(both in top 2: %s) | | misses: %s |%n", p.pairs(), r.options().pairs(), p.scored(), p.runs(),
          pct(p.top1(), p.scored()), pct(p.top2(), p.scored()), pct(p.bothTop2(), p.scored()),
          p.worst().isEmpty() ? "none" : String.join(", ", p.worst())));
    }
    b.append(String.format(Locale.ROOT, "| **fault-free** | | %d | false alarms **%s** | | | device causes reported: %s;"
        + " runs with any hypothesis: %d |%n", r.cleanRuns(), pct(r.falseAlarms(), r.cleanRuns()),
        r.falseAlarmCauses().isEmpty() ? "none" : r.falseAlarmCauses().toString(), r.cleanAny()));
    return b.toString();
  }

  static String pct(int n, int of) {
    return of == 0 ? "n/a" : String.format(Locale.ROOT, "%.1f%% (%d/%d)", 100.0 * n / of, n, of);
  }

  public static void main(String[] args) throws IOException {
    Options o = Options.defaults();
    Path out = null;
    Path data = null;
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException("option " + a + " needs a value");
      }
      String v = args[++i];
      o = switch (a) {
        case "--alone" -> new Options(o.preset(), Integer.parseInt(v), o.pairs(), o.clean(), o.firstSeed(),
            o.iterations(), o.faults(), o.inertBelow());
        case "--pairs" -> new Options(o.preset(), o.alone(), Integer.parseInt(v), o.clean(), o.firstSeed(),
            o.iterations(), o.faults(), o.inertBelow());
        case "--clean" -> new Options(o.preset(), o.alone(), o.pairs(), Integer.parseInt(v), o.firstSeed(),
            o.iterations(), o.faults(), o.inertBelow());
        case "--iterations" -> new Options(o.preset(), o.alone(), o.pairs(), o.clean(), o.firstSeed(),
            Integer.parseInt(v), o.faults(), o.inertBelow());
        case "--seed" -> new Options(o.preset(), o.alone(), o.pairs(), o.clean(), Long.parseLong(v), o.iterations(),
            o.faults(), o.inertBelow());
        case "--preset" -> new Options(v, o.alone(), o.pairs(), o.clean(), o.firstSeed(), o.iterations(), o.faults(),
            o.inertBelow());
        case "--faults" -> o.withFaults(List.of(v.split(",")));
        case "--out" -> {
          out = Path.of(v);
          yield o;
        }
        case "--data" -> {
          data = Path.of(v);
          yield o;
        }
        default -> throw new IllegalArgumentException("unknown option '" + a + "': known are --alone, --pairs, "
            + "--clean, --iterations, --seed, --preset, --faults, --data, --out");
      };
    }
    Path dir = data != null ? data : Files.createTempDirectory("gitm-scoring");
    Report r = score(o, dir, System.err);
    String md = markdown(r);
    System.out.print(md);
    System.out.printf(Locale.ROOT, "%n%.3f s per run%n", r.secondsPerRun());
    if (out != null) {
      Files.writeString(out, md, StandardCharsets.UTF_8);
    }
  }
}
