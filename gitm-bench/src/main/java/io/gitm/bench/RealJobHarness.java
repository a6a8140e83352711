package io.gitm.bench;

import io.gitm.api.Ticker;
import io.gitm.bench.SearchHarness.Comparison;
import io.gitm.bench.SearchHarness.Measured;
import io.gitm.bench.SearchHarness.Outcome;
import io.gitm.bench.SearchHarness.Run;
import io.gitm.bench.SearchHarness.Settings;
import io.gitm.device.Devices;
import io.gitm.search.Gate;
import io.gitm.store.RunStore;
import io.gitm.workloads.hft.HftLobWorkload;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import tools.jackson.databind.json.JsonMapper;

/**
 * The search harness on a real managed job ({@code SearchHarness --workload hft-lob ...}): prepares a
 * {@link ManagedScenario}, compares the agent, random search and the exhaustive oracle on it, and prints the
 * per-method table, the levers' predictions against what the oracle measured of each alone, and the wall time of
 * each method; {@code --json FILE} also writes every run and every oracle trial.
 *
 * <p>Without a ground truth each method is judged on measured gains: its own (the agent's confirmation gate,
 * random search's chained gates, the oracle's best of all its combinations) and, so that the three are judged alike,
 * its final setup re-measured once against the original by a gate of the agent's options after the method ended.
 * The target is, unless given, 80% of the oracle's best measured gain (rounded down to a percent), as the synthetic
 * scenarios take 80% of the best true gain; the oracle then runs first.
 */
final class RealJobHarness {
  private RealJobHarness() {}

  /** The options of the real-job mode, with their defaults. */
  static final String USAGE = "--workload hft-lob --device sim|nvidia [--faults SPEC] [--sim-seed S] "
      + "[--sim-preset h200|h100|a100] [--levers id,id,...] [--max-levers N (8)] [--block-iterations N (8)] "
      + "[--repeats R (5)] [--random-budget B (40)] [--seed S (1)] [--target PCT|oracle (oracle)] "
      + "[--gate-pairs N (8)] [--oracle-pairs N (the gate's)] [--profile-iterations N (40)] [--instruments N] "
      + "[--book-messages N] [--batch-messages N] [--json FILE]";

  /**
   * The parsed command line.
   *
   * @param target the target as a fraction, or NaN for 80% of the oracle's best gain
   */
  record Args(ManagedScenario.Options scenario, Settings settings, double target, Path json, Path tempData) {}

  static void run(String[] argv, PrintStream out, PrintStream err) {
    run(argv, System.getenv(), out, err);
  }

  /** @param env where {@code GITM_SCRATCH} is looked up */
  static void run(String[] argv, Map<String, String> env, PrintStream out, PrintStream err) {
    Ticker wall = Ticker.system();
    long t0 = wall.nanos();
    Instant started = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    Args args = parse(argv, env);
    try {
      ManagedScenario.Prepared p = ManagedScenario.prepare(args.scenario());
      Settings s = args.settings();
      out.printf(Locale.ROOT, "search harness on a real job: %s%n", p.scenario().description());
      out.printf(Locale.ROOT, "started %s; %d CPUs, Java %s; command: SearchHarness %s%n", started,
          Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"), String.join(" ", argv));
      out.printf(Locale.ROOT, "device %s [%s]%n", p.device().name(), p.device().kind().label());
      out.printf(Locale.ROOT, "profile %d iterations of the shipped setup, %.3g %s, p50 %.3f ms (tracing %s); "
          + "ceilings: %s; hypotheses: %s; replay of the unchanged trace %s; prepared in %.1f s%n",
          p.baseline().iterations(), p.baseline().throughput(), p.baseline().metric(), p.baseline().latency().p50(),
          p.baseline().tracing(), p.ceilings(), p.hypotheses().isEmpty() ? "none" : String.join(", ",
              p.hypotheses().stream().map(h -> String.format(Locale.ROOT, "%s (effect %.2f, confidence %.2f)",
                  h.cause().name().toLowerCase(Locale.ROOT), h.effect(), h.confidence())).toList()),
          Double.isNaN(p.replayModelError()) ? "not possible (no host calls in the trace)"
              : String.format(Locale.ROOT, "%.0f%% from the observed time", 100 * p.replayModelError()),
          p.seconds());
      out.printf(Locale.ROOT, "gates: agent and random search %d pairs + %d warm-up per arm; oracle %d pairs + %d "
          + "warm-up; agent and random search: %d runs each, random search at most %d trials a run%n%n",
          s.gate().pairs(), s.gate().warmupBlocks(), s.oracleGate().pairs(), s.oracleGate().warmupBlocks(),
          s.repeats(), s.randomBudget());
      out.flush();

      Comparison c = Double.isNaN(args.target())
          ? SearchHarness.compare(p.scenario(), s, RealJobHarness::targetFromOracle, err::println)
          : SearchHarness.compare(p.scenario().withTarget(args.target()), s, null, err::println);
      double seconds = (wall.nanos() - t0) / 1e9;
      out.print(table(c, s, Double.isNaN(args.target())));
      out.println();
      out.print(leverTable(p, c));
      out.println();
      out.print(bestCombinations(c, 5));
      out.printf(Locale.ROOT, "%nwall time %.1f s: preparation (profile, analysis, replay) %.1f s, agent %.1f s, "
          + "random search %.1f s, oracle %.1f s%n", seconds, p.seconds(), c.agentSeconds(), c.randomSeconds(),
          c.oracleSeconds());
      if (args.json() != null) {
        writeJson(args.json(), json(argv, started, seconds, p, c, s));
        out.println("raw results: " + args.json());
      }
    } finally {
      if (args.tempData() != null) {
        delete(args.tempData());
      }
    }
  }

  /** 80% of the oracle's best gain, rounded down to a percent; at least 1%. */
  static double targetFromOracle(double best) {
    return Math.max(0.01, Math.floor(80 * (best - 1)) / 100);
  }

  static Args parse(String[] argv, Map<String, String> env) {
    Map<String, String> a = new LinkedHashMap<>();
    for (int i = 0; i < argv.length; i++) {
      String k = argv[i];
      if (!k.startsWith("--")) {
        throw new IllegalArgumentException("expected an option, got '" + k + "'; usage: SearchHarness " + USAGE);
      }
      if (i + 1 >= argv.length) {
        throw new IllegalArgumentException("option " + k + " needs a value");
      }
      if (a.put(k.substring(2), argv[++i]) != null) {
        throw new IllegalArgumentException("option " + k + " is given twice");
      }
    }
    List<String> known = List.of("workload", "device", "faults", "sim-seed", "sim-preset", "levers", "max-levers",
        "block-iterations", "repeats", "random-budget", "seed", "target", "gate-pairs", "oracle-pairs",
        "profile-iterations", "instruments", "book-messages", "batch-messages", "json");
    for (String k : a.keySet()) {
      if (!known.contains(k)) {
        throw new IllegalArgumentException("unknown option --" + k + "; usage: SearchHarness " + USAGE);
      }
    }
    String workload = a.getOrDefault("workload", "");
    String device = a.getOrDefault("device", Devices.SIMULATED);
    Map<String, String> sim = new LinkedHashMap<>();
    if (device.equals(Devices.SIMULATED)) {
      sim.put("preset", a.getOrDefault("sim-preset", "h200"));
      sim.put("seed", Long.toString(longOption(a, "sim-seed", 1)));
      sim.put("faults", a.getOrDefault("faults", ""));
    } else if (a.containsKey("faults") || a.containsKey("sim-seed") || a.containsKey("sim-preset")) {
      throw new IllegalArgumentException("--faults, --sim-seed and --sim-preset apply to --device sim only");
    }
    HftLobWorkload.Params d = HftLobWorkload.Params.defaults();
    HftLobWorkload.Params params = d.withData(d.seed(), intOption(a, "instruments", d.instruments(), 1),
        intOption(a, "book-messages", d.bookMessages(), 0)).withBatchMessages(intOption(a, "batch-messages",
        d.batchMessages(), 1));
    List<String> levers = a.containsKey("levers") ? Arrays.stream(a.get("levers").split(",")).map(String::strip)
        .filter(x -> !x.isEmpty()).toList() : List.of();
    Gate.Options gate = Gate.Options.defaults().withPairs(intOption(a, "gate-pairs", 8, 2));
    Gate.Options oracleGate = gate.withPairs(intOption(a, "oracle-pairs", gate.pairs(), 2));
    Settings settings = new Settings(gate, oracleGate, intOption(a, "repeats", 5, 1),
        intOption(a, "random-budget", 40, 1), longOption(a, "seed", 1));
    double target = parseTarget(a.getOrDefault("target", "oracle"));
    Path json = a.containsKey("json") ? Path.of(a.get("json")) : null;
    Path data;
    Path temp = null;
    RunStore store = null;
    String scratch = env.get("GITM_SCRATCH");
    try {
      if (scratch != null && !scratch.isBlank()) {
        store = RunStore.open(RunStore.defaultRoot(env));
        data = store.datasets("hft");
      } else {
        temp = Files.createTempDirectory("gitm-harness-hft");
        data = temp;
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot make hft-lob's data folder: " + e.getMessage(), e);
    }
    try {
      ManagedScenario.Options o = new ManagedScenario.Options(workload, device, sim, params, levers,
          intOption(a, "max-levers", 8, 1), intOption(a, "block-iterations", 8, 4),
          intOption(a, "profile-iterations", 40, 2), data, store);
      return new Args(o, settings, target, json, temp);
    } catch (RuntimeException e) {
      if (temp != null) {
        delete(temp);
      }
      throw e;
    }
  }

  /** {@code oracle} (NaN), or a positive fraction written as {@code 15%} or {@code 0.15}. */
  static double parseTarget(String v) {
    if (v.equals("oracle")) {
      return Double.NaN;
    }
    boolean percent = v.endsWith("%");
    double t;
    try {
      t = Double.parseDouble(percent ? v.substring(0, v.length() - 1) : v) / (percent ? 100 : 1);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--target must be 'oracle' or a gain such as 15% or 0.15, got '" + v + "'");
    }
    if (!(t > 0) || Double.isInfinite(t)) {
      throw new IllegalArgumentException("--target must be a positive gain such as 15% or 0.15, got '" + v + "'");
    }
    return t;
  }

  private static int intOption(Map<String, String> a, String name, int otherwise, int min) {
    if (!a.containsKey(name)) {
      return otherwise;
    }
    int v;
    try {
      v = Integer.parseInt(a.get(name).strip());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--" + name + " must be a whole number, got '" + a.get(name) + "'");
    }
    if (v < min) {
      throw new IllegalArgumentException("--" + name + " must be at least " + min + ", got " + v);
    }
    return v;
  }

  private static long longOption(Map<String, String> a, String name, long otherwise) {
    try {
      return a.containsKey(name) ? Long.parseLong(a.get(name).strip()) : otherwise;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--" + name + " must be a whole number, got '" + a.get(name) + "'");
    }
  }

  // ------------------------------------------------------------------ tables

  /** The per-method table and the comparison with random search. */
  static String table(Comparison c, Settings s, boolean derivedTarget) {
    StringBuilder b = new StringBuilder();
    b.append(String.format(Locale.ROOT, "target %.0f%%%s%n%n", 100 * c.scenario().target(),
        derivedTarget ? " (80% of the oracle's best measured gain)" : ""));
    b.append("| method | speedup reached (its own measure) | re-measured against the original | trials "
        + "| % of the oracle's speedup (of its gain) | trials as % of the oracle's | trials to the target (runs "
        + "reaching it) | wall time |\n");
    b.append("|---|---|---|---|---|---|---|---|\n");
    row(b, "agent, median of " + s.repeats() + " runs", c.agent(), c, c.agentSeconds(), s.repeats());
    row(b, "random search, median of " + s.repeats() + " runs of at most " + s.randomBudget() + " trials",
        c.random(), c, c.randomSeconds(), s.repeats());
    row(b, "oracle, all " + c.oracle().trials() + " combinations, " + s.oracleGate().pairs() + " pairs each",
        c.oracle(), c, c.oracleSeconds(), 1);
    int agent = c.agent().trialsToTarget();
    int random = c.random().trialsToTarget();
    b.append(String.format(Locale.ROOT, "%ntrials to the target: agent %s, random search %s%s; random search's "
        + "speedup after the agent's %d trials: %.3f; the agent's runs stopped: %s; kept by its median run: %s%n",
        reached(agent), reached(random), agent > 0 && random > 0 ? String.format(Locale.ROOT,
            " (the agent needed %.0f%% of random search's trials)", 100.0 * agent / random) : "",
        c.agent().trials(), c.randomAtAgentTrials(), c.agentStops(), medianRun(c.agentRuns()).levers()));
    return b.toString();
  }

  private static void row(StringBuilder b, String name, Outcome o, Comparison c, double seconds, int runs) {
    Outcome oracle = c.oracle();
    b.append(String.format(Locale.ROOT, "| %s | %.3f | %s | %d | %.1f%% (%.1f%%) | %.1f%% | %s (%d/%d) | %.1f s%s |%n",
        name, o.speedup(), Double.isNaN(o.remeasured()) ? "-" : String.format(Locale.ROOT, "%.3f", o.remeasured()),
        o.trials(), 100 * o.speedup() / oracle.speedup(), 100 * (o.speedup() - 1) / (oracle.speedup() - 1),
        100.0 * o.trials() / oracle.trials(), reached(o.trialsToTarget()), o.reached(), o.runs(), seconds,
        runs > 1 ? String.format(Locale.ROOT, " (%.1f s a run)", seconds / runs) : ""));
  }

  /** Each lever: its prediction, whether it was chosen, and what the oracle measured of it alone. */
  static String leverTable(ManagedScenario.Prepared p, Comparison c) {
    Map<String, Measured> alone = new LinkedHashMap<>();
    for (Measured m : c.oracleTrials()) {
      if (m.levers().size() == 1) {
        alone.put(m.levers().getFirst(), m);
      }
    }
    StringBuilder b = new StringBuilder();
    b.append("| lever | predicted gain (basis) | chosen | measured alone by the oracle: gain (95% CI), outcome |\n");
    b.append("|---|---|---|---|\n");
    for (ManagedScenario.Choice ch : p.choices()) {
      Measured m = alone.get(ch.id());
      b.append(String.format(Locale.ROOT, "| `%s` | %+.1f%% ± %.1f%% (%s) | %s | %s |%n", ch.id(),
          100 * (ch.predictedGain() - 1), 100 * ch.uncertainty(), ch.basis(), ch.chosen() ? "yes" : "no: " + ch.why(),
          m == null ? "-" : Double.isNaN(m.gain()) ? m.outcome().name().toLowerCase(Locale.ROOT)
              : String.format(Locale.ROOT, "%+.1f%% (%+.1f%% .. %+.1f%%), %s", 100 * (m.gain() - 1),
                  100 * (m.ciLow() - 1), 100 * (m.ciHigh() - 1), m.outcome().name().toLowerCase(Locale.ROOT))));
    }
    return b.toString();
  }

  /** The oracle's best combinations by measured gain. */
  static String bestCombinations(Comparison c, int n) {
    List<Measured> sorted = new ArrayList<>(c.oracleTrials().stream().filter(m -> !m.outcome().failure()
        && !Double.isNaN(m.gain())).toList());
    sorted.sort(Comparator.comparingDouble(Measured::gain).reversed());
    long failed = c.oracleTrials().stream().filter(m -> m.outcome().failure()).count();
    StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "the oracle's best %d of %d combinations (%d "
        + "failed the gate: crash, changed output, refused):%n", Math.min(n, sorted.size()), c.oracleTrials().size(),
        failed));
    for (Measured m : sorted.subList(0, Math.min(n, sorted.size()))) {
      b.append(String.format(Locale.ROOT, "  %.3f (%.3f .. %.3f) %s: %s%n", m.gain(), m.ciLow(), m.ciHigh(),
          m.outcome().name().toLowerCase(Locale.ROOT), m.levers()));
    }
    return b.toString();
  }

  private static Run medianRun(List<Run> runs) {
    List<Run> sorted = new ArrayList<>(runs);
    sorted.sort(Comparator.comparingDouble(Run::speedup));
    return sorted.get((sorted.size() - 1) / 2);
  }

  private static String reached(int trials) {
    return trials < 0 ? "not reached" : Integer.toString(trials);
  }

  // ------------------------------------------------------------------ raw results

  static Map<String, Object> json(String[] argv, Instant started, double seconds, ManagedScenario.Prepared p,
      Comparison c, Settings s) {
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("command", "SearchHarness " + String.join(" ", argv));
    doc.put("started", started.toString());
    doc.put("wallSeconds", seconds);
    doc.put("cpus", Runtime.getRuntime().availableProcessors());
    doc.put("java", System.getProperty("java.version"));
    doc.put("device", Map.of("name", p.device().name(), "kind", p.device().kind().name(), "backend",
        p.device().backend(), "driver", String.valueOf(p.device().driverVersion())));
    doc.put("scenario", c.scenario().description());
    doc.put("target", c.scenario().target());
    doc.put("settings", Map.of("gatePairs", s.gate().pairs(), "oraclePairs", s.oracleGate().pairs(), "warmupBlocks",
        s.gate().warmupBlocks(), "repeats", s.repeats(), "randomBudget", s.randomBudget(), "seed", s.seed()));
    Map<String, Object> profile = new LinkedHashMap<>();
    profile.put("iterations", p.baseline().iterations());
    profile.put("throughput", p.baseline().throughput());
    profile.put("metric", p.baseline().metric());
    profile.put("p50Ms", p.baseline().latency().p50());
    profile.put("tracing", p.baseline().tracing());
    profile.put("ceilings", p.ceilings());
    profile.put("hypotheses", p.hypotheses().stream().map(h -> Map.of("cause", h.cause().name(), "effect",
        h.effect(), "confidence", h.confidence())).toList());
    profile.put("replayModelError", finite(p.replayModelError()));
    profile.put("seconds", p.seconds());
    doc.put("profile", profile);
    doc.put("levers", p.choices().stream().map(ch -> {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("id", ch.id());
      m.put("basis", ch.basis());
      m.put("predictedGain", ch.predictedGain());
      m.put("uncertainty", ch.uncertainty());
      m.put("chosen", ch.chosen());
      m.put("why", ch.why());
      return m;
    }).toList());
    doc.put("notApplicable", p.notApplicable());
    Map<String, Object> methods = new LinkedHashMap<>();
    methods.put("agent", method(c.agent(), c.agentRuns(), c.agentSeconds()));
    methods.put("random", method(c.random(), c.randomRuns(), c.randomSeconds()));
    methods.put("oracle", method(c.oracle(), List.of(c.oracleRun()), c.oracleSeconds()));
    doc.put("methods", methods);
    doc.put("randomAtAgentTrials", finite(c.randomAtAgentTrials()));
    doc.put("agentStops", c.agentStops());
    doc.put("oracleTrials", c.oracleTrials().stream().map(m -> {
      Map<String, Object> x = new LinkedHashMap<>();
      x.put("levers", m.levers());
      x.put("outcome", m.outcome().name());
      x.put("gain", finite(m.gain()));
      x.put("ciLow", finite(m.ciLow()));
      x.put("ciHigh", finite(m.ciHigh()));
      x.put("pValue", finite(m.pValue()));
      x.put("seconds", m.seconds());
      return x;
    }).toList());
    return doc;
  }

  private static Map<String, Object> method(Outcome o, List<Run> runs, double seconds) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("speedup", o.speedup());
    m.put("remeasured", finite(o.remeasured()));
    m.put("trials", o.trials());
    m.put("trialsToTarget", o.trialsToTarget());
    m.put("reached", o.reached());
    m.put("seconds", seconds);
    m.put("runs", runs.stream().map(r -> {
      Map<String, Object> x = new LinkedHashMap<>();
      x.put("speedup", r.speedup());
      x.put("remeasured", finite(r.remeasured()));
      x.put("trialCount", r.trials());
      x.put("trialsToTarget", r.trialsToTarget());
      x.put("levers", r.levers());
      x.put("detail", r.detail());
      if (!r.log().isEmpty()) {
        x.put("trials", r.log());
      }
      return x;
    }).toList());
    return m;
  }

  /** JSON has no NaN: null stands for a figure that could not be measured. */
  private static Double finite(double v) {
    return Double.isFinite(v) ? v : null;
  }

  private static void writeJson(Path file, Map<String, Object> doc) {
    try {
      Path dir = file.toAbsolutePath().getParent();
      if (dir != null) {
        Files.createDirectories(dir);
      }
      Files.writeString(file, JsonMapper.builder().build().writerWithDefaultPrettyPrinter().writeValueAsString(doc));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
    }
  }

  private static void delete(Path dir) {
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(x -> x.toFile().delete());
    } catch (IOException e) {
      // a temporary folder left behind is harmless
    }
  }
}
