package io.gitm.bench;

import io.gitm.api.Ticker;
import io.gitm.job.Job;
import io.gitm.job.TrialFailure;
import io.gitm.levers.Lever;
import io.gitm.levers.LeverContext;
import io.gitm.levers.LeverSpec;
import io.gitm.levers.SafetyClass;
import io.gitm.levers.Setup;
import io.gitm.rank.Candidate;
import io.gitm.search.Agent;
import io.gitm.search.Gate;
import io.gitm.search.TrialRecord;
import io.gitm.search.Verdict;
import io.gitm.workload.OutputDigest;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.DoubleUnaryOperator;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * The search harness: compares, over the same levers and the same rollback gate, the agent ({@link Agent}), random
 * search (random subsets of levers, each gated against the best so far) and the exhaustive oracle (every
 * combination gated against the original setup). A benchmark, not a test.
 *
 * <p>{@code java -cp gitm-bench/target/gitm-bench.jar io.gitm.bench.SearchHarness [--scenarios N] [--seed S]
 * [--only K] [--repeats R] [--random-budget B]} runs it on seeded synthetic scenarios and prints a Markdown table.
 * {@link #compare(Scenario, Settings)} takes any job and levers (a managed workload on the simulated device, say),
 * with or without a ground truth. {@code SearchHarness --workload hft-lob --device sim|nvidia ...} runs it on a real
 * managed job ({@link RealJobHarness}).
 *
 * <p>In a synthetic scenario the job's time is a fixed part plus three cause components; a lever scales one
 * component (below 1 helps, above 1 harms), levers on the same component compose multiplicatively (diminishing
 * returns), a pair may help only together, one lever is faster but changes the output, one may crash. Every block
 * has Gaussian noise. Speedups reported are the true ones of each method's final setup (known in a synthetic
 * scenario); the agent's predictions are the true single-lever gains with a 3% multiplicative error ("replay") for
 * about three levers in four, and an uninformative prior (1.05 ± 0.10) for the rest and for interacting pairs.
 */
public final class SearchHarness {
  private SearchHarness() {
  }

  /**
   * One comparison's input.
   *
   * @param jobs a fresh job for each method (each run of random search gets its own); a job that is
   *     {@link AutoCloseable} is closed when its method is done with it
   * @param anchor the setup the job ships with
   * @param levers every lever the methods may use
   * @param predictions the agent's candidates; levers without one get an uninformative prior (1.05 ± 0.10)
   * @param target the improvement asked for, as a fraction
   * @param truth the true improvement factor of a setup over the anchor, or null when unknown (a real job): the
   *     methods are then judged on measured gains
   */
  public record Scenario(String name, String description, Supplier<Job> jobs, Setup anchor, List<Lever> levers,
      List<Candidate> predictions, LeverContext context, double target, ToDoubleFunction<Setup> truth) {
    public Scenario {
      if (name == null || jobs == null || anchor == null || levers == null || predictions == null
          || context == null) {
        throw new IllegalArgumentException("a scenario needs a name, jobs, an anchor, levers, predictions, a context");
      }
      if (levers.isEmpty() || levers.size() > 20) {
        throw new IllegalArgumentException("the oracle enumerates every combination: 1..20 levers, got "
            + levers.size());
      }
      if (!(target > 0) || Double.isInfinite(target)) {
        throw new IllegalArgumentException("target must be a positive fraction, got " + target);
      }
      levers = List.copyOf(levers);
      predictions = List.copyOf(predictions);
      description = description == null ? "" : description;
    }

    /** This scenario asking for {@code t} instead. */
    public Scenario withTarget(double t) {
      return new Scenario(name, description, jobs, anchor, levers, predictions, context, t, truth);
    }
  }

  /**
   * How the comparison runs.
   *
   * @param gate the gate the agent and random search use (and, without a ground truth, the one that re-measures each
   *     method's final setup against the original)
   * @param oracleGate the gate the oracle measures every combination with: the same as {@code gate} unless made
   *     cheaper for a real job
   * @param repeats independent runs of the agent and of random search, each on a fresh job (fresh noise); each
   *     method is reported by the median of its runs
   * @param randomBudget trials each random-search run may use
   * @param seed seeds the random search
   */
  public record Settings(Gate.Options gate, Gate.Options oracleGate, int repeats, int randomBudget, long seed) {
    public Settings {
      if (gate == null || oracleGate == null || repeats < 1 || randomBudget < 1) {
        throw new IllegalArgumentException("settings need gate options, >= 1 repeat and a random budget >= 1");
      }
    }

    /** Settings whose oracle uses the same gate as the other methods. */
    public Settings(Gate.Options gate, int repeats, int randomBudget, long seed) {
      this(gate, gate, repeats, randomBudget, seed);
    }

    public static Settings defaults() {
      return new Settings(Gate.Options.defaults(), 21, 400, 1);
    }

    public Settings withRepeats(int r) {
      return new Settings(gate, oracleGate, r, randomBudget, seed);
    }

    public Settings withRandomBudget(int b) {
      return new Settings(gate, oracleGate, repeats, b, seed);
    }

    public Settings withSeed(long s) {
      return new Settings(gate, oracleGate, repeats, randomBudget, s);
    }

    public Settings withOracleGate(Gate.Options g) {
      return new Settings(gate, g, repeats, randomBudget, seed);
    }
  }

  /**
   * What one method reached: the medians over its runs.
   *
   * @param speedup the true improvement factor of the final setup (measured, when the truth is unknown)
   * @param remeasured without a ground truth, the final setup's gain measured once more against the original by a
   *     gate of its own after the method ended (NaN with a ground truth, or when every re-measurement failed)
   * @param trials gate trials used
   * @param trialsToTarget trials after which the setup first met the target; -1 when the median run never did
   *     (runs that never did count as never)
   * @param reached how many runs met the target
   * @param runs how many runs there were
   */
  public record Outcome(double speedup, double remeasured, int trials, int trialsToTarget, int reached, int runs) {
    static Outcome median(List<Run> runs) {
      int[] toTarget = runs.stream().mapToInt(r -> r.trialsToTarget() < 0 ? Integer.MAX_VALUE : r.trialsToTarget())
          .sorted().toArray();
      int m = toTarget[(toTarget.length - 1) / 2];
      return new Outcome(SearchHarness.median(runs.stream().mapToDouble(Run::speedup).toArray()),
          SearchHarness.median(runs.stream().mapToDouble(Run::remeasured).filter(Double::isFinite).toArray()),
          (int) Math.round(SearchHarness.median(runs.stream().mapToDouble(Run::trials).toArray())),
          m == Integer.MAX_VALUE ? -1 : m, (int) runs.stream().filter(r -> r.trialsToTarget() >= 0).count(),
          runs.size());
    }
  }

  /**
   * One run of one method.
   *
   * @param speedup as in {@link Outcome#speedup()}
   * @param remeasured as in {@link Outcome#remeasured()}, for this run
   * @param levers the levers of the final setup
   * @param detail one line on how the run ended
   * @param log the agent's trials, one line each (empty for the other methods)
   */
  public record Run(double speedup, double remeasured, int trials, int trialsToTarget, List<String> levers,
      String detail, List<String> log) {
    public Run {
      levers = List.copyOf(levers);
      log = List.copyOf(log);
    }
  }

  /** One combination the oracle measured against the original setup. */
  public record Measured(List<String> levers, Verdict.Outcome outcome, double gain, double ciLow, double ciHigh,
      double pValue, double seconds) {
    public Measured {
      levers = List.copyOf(levers);
    }
  }

  /**
   * A scenario's comparison.
   *
   * @param randomAtAgentTrials the median speedup random search had after as many trials as the agent's median run
   * @param agentStops why the agent's runs stopped, by reason
   * @param oracleTrials every combination the oracle measured, in the order measured
   * @param agentSeconds wall time of all the agent's runs (re-measurements included), likewise for the others
   */
  public record Comparison(Scenario scenario, Outcome agent, Outcome random, Outcome oracle,
      double randomAtAgentTrials, Map<Agent.StopReason, Integer> agentStops, List<Run> agentRuns,
      List<Run> randomRuns, Run oracleRun, List<Measured> oracleTrials, double agentSeconds, double randomSeconds,
      double oracleSeconds) {
    /** Agent speedup / oracle speedup. */
    public double speedupShare() {
      return agent.speedup() / oracle.speedup();
    }

    /** Agent gain / oracle gain, gains being speedup - 1: the stricter reading. */
    public double gainShare() {
      return (agent.speedup() - 1) / (oracle.speedup() - 1);
    }

    public double trialShare() {
      return (double) agent.trials() / oracle.trials();
    }

    /** Whether the agent's median run met the target in at most a third of random search's median trials. */
    public boolean fasterThanRandom() {
      return agent.trialsToTarget() > 0
          && (random.trialsToTarget() < 0 || 3L * agent.trialsToTarget() <= random.trialsToTarget());
    }
  }

  public static Comparison compare(Scenario s, Settings settings) {
    return compare(s, settings, null, line -> {});
  }

  /**
   * @param targetFromOracle when not null, the oracle runs first and the scenario's target becomes this function of
   *     the oracle's speedup (for a real job, whose best gain is not known beforehand); else the agent runs first,
   *     then the oracle, then random search
   * @param progress told a line after each run (and every few oracle trials)
   */
  static Comparison compare(Scenario s, Settings settings, DoubleUnaryOperator targetFromOracle,
      Consumer<String> progress) {
    Ticker wall = Ticker.system();
    OracleRun oracle = null;
    long oracleNanos = 0;
    if (targetFromOracle != null) {
      long t = wall.nanos();
      oracle = oracle(s, settings, progress);
      oracleNanos = wall.nanos() - t;
      s = s.withTarget(targetFromOracle.applyAsDouble(oracle.run().speedup()));
      progress.accept(String.format(Locale.ROOT, "target %.0f%%, from the oracle's best %.3f", 100 * s.target(),
          oracle.run().speedup()));
    }
    long t = wall.nanos();
    List<Run> agentRuns = new ArrayList<>();
    Map<Agent.StopReason, Integer> stops = new TreeMap<>();
    for (int r = 0; r < settings.repeats(); r++) {
      Job job = s.jobs().get();
      try {
        Agent.Result result = new Agent(Ticker.system(), Agent.Options.defaults().withGate(settings.gate())
            .withTarget(s.target())).optimize(job, s.anchor(), candidates(s), s.context(), Long.MAX_VALUE,
            Agent.Listener.none(), List.of());
        Run run = agentRun(s, settings, job, result);
        agentRuns.add(run);
        stops.merge(result.stopReason(), 1, Integer::sum);
        progress.accept(String.format(Locale.ROOT, "agent run %d/%d: %.3f (re-measured %.3f) in %d trials, %s",
            r + 1, settings.repeats(), run.speedup(), run.remeasured(), run.trials(), run.detail()));
        if (r == 0 && Boolean.getBoolean("gitm.harness.verbose")) {
          for (TrialRecord tr : result.trials()) {
            System.err.printf(Locale.ROOT, "  %s #%d %s %s on %s: %s (predicted %.3f %s; true %.3f)%n", s.name(),
                tr.index(), tr.kind(), tr.levers(), tr.anchorLevers(), tr.verdict().outcome(), tr.predictedGain(),
                tr.basis(), s.truth() == null ? Double.NaN : s.truth().applyAsDouble(tr.candidate()));
          }
        }
      } finally {
        close(job);
      }
    }
    Outcome agent = Outcome.median(agentRuns);
    long agentNanos = wall.nanos() - t;
    if (oracle == null) {
      t = wall.nanos();
      oracle = oracle(s, settings, progress);
      oracleNanos = wall.nanos() - t;
    }
    Run best = oracle.run();
    int all = oracle.trials().size();
    Run oracleRun = new Run(best.speedup(), best.remeasured(), all, best.speedup() >= 1 + s.target() ? all : -1,
        best.levers(), best.detail(), List.of());
    t = wall.nanos();
    List<Run> randomRuns = new ArrayList<>();
    List<Double> atAgentTrials = new ArrayList<>();
    for (int r = 0; r < settings.repeats(); r++) {
      Run run = random(s, settings, settings.seed() * 7919 + r, agent.trials(), atAgentTrials);
      randomRuns.add(run);
      progress.accept(String.format(Locale.ROOT, "random run %d/%d: %.3f (re-measured %.3f) in %d trials, %s",
          r + 1, settings.repeats(), run.speedup(), run.remeasured(), run.trials(), run.detail()));
    }
    long randomNanos = wall.nanos() - t;
    return new Comparison(s, agent, Outcome.median(randomRuns), Outcome.median(List.of(oracleRun)),
        median(atAgentTrials.stream().mapToDouble(d -> d).toArray()), stops, agentRuns, randomRuns, oracleRun,
        oracle.trials(), agentNanos / 1e9, randomNanos / 1e9, oracleNanos / 1e9);
  }

  private static List<Candidate> candidates(Scenario s) {
    Map<String, Candidate> predicted = new HashMap<>();
    s.predictions().forEach(c -> predicted.put(c.id(), c));
    return s.levers().stream().map(l -> predicted.getOrDefault(l.id(), Candidate.prior(l, 1.05, 0.10))).toList();
  }

  private static Run agentRun(Scenario s, Settings settings, Job job, Agent.Result result) {
    double final_ = s.truth() == null ? result.totalGain() : s.truth().applyAsDouble(result.anchor());
    int toTarget = -1;
    if (final_ >= 1 + s.target()) {
      double chained = 1;
      for (TrialRecord t : result.trials()) {
        if (!t.kept() || t.kind() == TrialRecord.Kind.CONFIRMATION) {
          continue;
        }
        chained *= t.verdict().gain();
        double reachedGain = s.truth() == null ? chained : s.truth().applyAsDouble(t.candidate());
        if (reachedGain >= 1 + s.target()) {
          toTarget = t.index() + 1;
          break;
        }
      }
    }
    List<Lever> kept = s.levers().stream().filter(l -> result.keptLevers().contains(l.id())).toList();
    List<String> log = result.trials().stream().map(t -> String.format(Locale.ROOT, "#%d %s %s on %s, predicted "
        + "%.3f (%s): %s: %s", t.index(), t.kind().name().toLowerCase(Locale.ROOT), t.levers(), t.anchorLevers(),
        t.predictedGain(), t.basis(), t.verdict().outcome().name().toLowerCase(Locale.ROOT), t.verdict().detail()))
        .toList();
    return new Run(final_, remeasure(s, settings, job, result.anchor(), kept), result.trials().size(), toTarget,
        result.keptLevers(), result.stopReason().name().toLowerCase(Locale.ROOT).replace('_', ' ') + ", kept "
            + result.keptLevers(), log);
  }

  /** The result of the oracle: its best combination and every trial. */
  private record OracleRun(Run run, List<Measured> trials) {}

  /**
   * Every non-empty combination gated against the original; the best one that stayed safe (by its true speedup, or
   * without a ground truth by its measured gain, which is then re-measured once).
   */
  private static OracleRun oracle(Scenario s, Settings settings, Consumer<String> progress) {
    Gate gate = new Gate(Ticker.system(), settings.oracleGate());
    Job job = s.jobs().get();
    try {
      int n = s.levers().size();
      int combinations = (1 << n) - 1;
      double best = 1;
      int bestMask = 0;
      Setup bestSetup = s.anchor();
      List<Measured> trials = new ArrayList<>();
      for (int mask = 1; mask <= combinations; mask++) {
        List<Lever> subset = subset(s.levers(), mask);
        List<String> ids = subset.stream().map(Lever::id).toList();
        Setup candidate = apply(s, subset);
        if (candidate == null) {
          trials.add(new Measured(ids, Verdict.Outcome.SETUP_REFUSED, Double.NaN, Double.NaN, Double.NaN, Double.NaN,
              0));
          continue;
        }
        Verdict v = gate.judge(job, s.anchor(), candidate, safety(subset), tolerance(s));
        trials.add(new Measured(ids, v.outcome(), v.gain(), v.ciLow(), v.ciHigh(), v.pValue(), v.wallNanos() / 1e9));
        if (!v.outcome().failure()) {
          double speedup = s.truth() == null ? v.gain() : s.truth().applyAsDouble(candidate);
          if (speedup > best) {
            best = speedup;
            bestMask = mask;
            bestSetup = candidate;
          }
        }
        if (s.truth() == null && (mask % 32 == 0 || mask == combinations)) {
          progress.accept(String.format(Locale.ROOT, "oracle %d/%d combinations, best so far %.3f %s", mask,
              combinations, best, ids(subset(s.levers(), bestMask))));
        }
      }
      List<Lever> bestLevers = subset(s.levers(), bestMask);
      double remeasured = remeasure(s, settings, job, bestSetup, bestLevers);
      return new OracleRun(new Run(best, remeasured, combinations, -1, ids(bestLevers), "best of " + combinations
          + " combinations", List.of()), trials);
    } finally {
      close(job);
    }
  }

  /**
   * Random search: each trial draws a subset not drawn before (each lever in with probability 1/2) and gates it
   * against the best setup so far, which it replaces when kept.
   */
  private static Run random(Scenario s, Settings settings, long seed, int agentTrials, List<Double> atAgent) {
    Gate gate = new Gate(Ticker.system(), settings.gate());
    Job job = s.jobs().get();
    try {
      SplittableRandom random = new SplittableRandom(seed);
      int n = s.levers().size();
      Set<Integer> drawn = new HashSet<>();
      int bestMask = 0;
      Setup best = s.anchor();
      double bestSpeedup = 1;
      double chained = 1;
      int toTarget = -1;
      int trials = 0;
      for (; trials < settings.randomBudget() && drawn.size() < (1 << n) - 1; trials++) {
        if (trials == agentTrials) {
          atAgent.add(bestSpeedup);
        }
        int mask;
        do {
          mask = random.nextInt(1 << n);
        } while (mask == 0 || !drawn.add(mask));
        List<Lever> subset = subset(s.levers(), mask);
        Setup candidate = apply(s, subset);
        if (candidate == null) {
          continue;
        }
        List<Lever> changed = subset(s.levers(), mask ^ bestMask);
        Verdict v = gate.judge(job, best, candidate, safety(changed), tolerance(s));
        if (v.kept()) {
          best = candidate;
          bestMask = mask;
          chained *= v.gain();
          bestSpeedup = s.truth() == null ? chained : s.truth().applyAsDouble(candidate);
          if (toTarget < 0 && bestSpeedup >= 1 + s.target()) {
            toTarget = trials + 1;
          }
        }
      }
      if (trials <= agentTrials) {
        atAgent.add(bestSpeedup);
      }
      List<Lever> bestLevers = subset(s.levers(), bestMask);
      return new Run(bestSpeedup, remeasure(s, settings, job, best, bestLevers), trials, toTarget, ids(bestLevers),
          "kept " + ids(bestLevers), List.of());
    } finally {
      close(job);
    }
  }

  /**
   * Without a ground truth: a method's final setup gated once more against the original, on the method's own job,
   * with the agent's gate; its gain, 1 when the final setup is the original, NaN when the gate could not measure it.
   * With a ground truth: NaN (nothing is run).
   */
  private static double remeasure(Scenario s, Settings settings, Job job, Setup fin, List<Lever> levers) {
    if (s.truth() != null) {
      return Double.NaN;
    }
    if (fin.equals(s.anchor())) {
      return 1;
    }
    Verdict v = new Gate(Ticker.system(), settings.gate()).judge(job, s.anchor(), fin, safety(levers), tolerance(s));
    return v.outcome().failure() || !v.complete() ? Double.NaN : v.gain();
  }

  private static double tolerance(Scenario s) {
    return s.context().workload() == null ? 0 : s.context().workload().outputTolerance();
  }

  private static void close(Job job) {
    if (job instanceof AutoCloseable c) {
      try {
        c.close();
      } catch (Exception e) {
        throw new IllegalStateException("closing the job failed: " + e.getMessage(), e);
      }
    }
  }

  private static List<String> ids(List<Lever> levers) {
    return levers.stream().map(Lever::id).toList();
  }

  private static List<Lever> subset(List<Lever> levers, int mask) {
    List<Lever> out = new ArrayList<>();
    for (int i = 0; i < levers.size(); i++) {
      if ((mask & 1 << i) != 0) {
        out.add(levers.get(i));
      }
    }
    return out;
  }

  /** The anchor with {@code subset} applied in order, each lever seeing the setup it is applied to; null if one threw. */
  private static Setup apply(Scenario s, List<Lever> subset) {
    Setup setup = s.anchor();
    for (Lever l : subset) {
      try {
        setup = l.apply(setup, s.context().withSetup(setup));
      } catch (RuntimeException e) {
        return null;
      }
    }
    return setup;
  }

  private static SafetyClass safety(List<Lever> levers) {
    return levers.stream().map(Lever::safety).max(Enum::compareTo).orElse(SafetyClass.A);
  }

  static double median(double[] values) {
    if (values.length == 0) {
      return Double.NaN;
    }
    double[] v = values.clone();
    Arrays.sort(v);
    return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Synthetic scenarios

  /** The roles a synthetic lever plays. */
  enum Role {
    HELPFUL, PAIRED, HARMFUL, CORRUPTING, CRASHING, NEUTRAL
  }

  /**
   * A synthetic lever's ground truth.
   *
   * @param component the cause component it scales (0..2)
   * @param factor what it multiplies that component by (a paired lever: 1 alone)
   */
  record Effect(Role role, int component, double factor) {}

  /**
   * A synthetic job's time model: {@code fixed + sum of components, each scaled by the factors of the levers on
   * it}, and by a pair's joint factor when both of the pair are applied.
   */
  record Model(double fixed, double[] components, Map<String, Effect> effects, Set<String> pair, int pairComponent,
      double pairFactor, double noise) {
    double time(Set<String> levers) {
      double t = fixed;
      double[] c = components.clone();
      for (String id : levers) {
        Effect e = effects.get(id);
        if (e != null) {
          c[e.component()] *= e.factor();
        }
      }
      if (!pair.isEmpty() && levers.containsAll(pair)) {
        c[pairComponent] *= pairFactor;
      }
      for (double x : c) {
        t += x;
      }
      return t;
    }

    double speedup(Set<String> levers) {
      return time(Set.of()) / time(levers);
    }

    boolean safe(Set<String> levers) {
      return levers.stream().map(effects::get)
          .noneMatch(e -> e.role() == Role.CORRUPTING || e.role() == Role.CRASHING);
    }
  }

  /** A lever that marks its id in the configuration's kernel variants, where a {@link ModelJob} reads it. */
  record MarkerLever(String id) implements Lever {
    static final String PREFIX = "lever:";

    @Override
    public LeverSpec spec() {
      return new LeverSpec(id, "synthetic lever " + id, Set.of(), SafetyClass.A, Scope.MANAGED);
    }

    @Override
    public Applicability check(LeverContext context) {
      return Applicability.yes("synthetic");
    }

    @Override
    public Setup apply(Setup setup, LeverContext context) {
      TreeMap<String, String> variants = new TreeMap<>(setup.config().kernelVariants());
      variants.put(PREFIX + id, "on");
      return setup.withConfig(setup.config().withKernelVariants(variants));
    }

    static Set<String> marked(Setup setup) {
      Set<String> ids = new TreeSet<>();
      setup.config().kernelVariants().keySet().stream().filter(k -> k.startsWith(PREFIX))
          .forEach(k -> ids.add(k.substring(PREFIX.length())));
      return ids;
    }
  }

  /** A job whose metric (items/s, higher is better) follows a {@link Model}, with noise per block. */
  static final class ModelJob implements Job {
    private final Model model;
    private final long seed;
    private final AtomicInteger runs = new AtomicInteger();

    ModelJob(Model model, long seed) {
      this.model = model;
      this.seed = seed;
    }

    @Override
    public String metric() {
      return "items/s";
    }

    @Override
    public boolean higherIsBetter() {
      return true;
    }

    @Override
    public Run open(Setup setup) {
      Set<String> levers = MarkerLever.marked(setup);
      double rate = 1 / model.time(levers);
      SplittableRandom random = new SplittableRandom(seed * 1_000_003L + runs.incrementAndGet());
      boolean crashes = levers.stream().anyMatch(id -> model.effects().get(id).role() == Role.CRASHING);
      List<String> corrupting = levers.stream()
          .filter(id -> model.effects().get(id).role() == Role.CORRUPTING).toList();
      return new Run() {
        private int blocks;

        @Override
        public double block() throws TrialFailure {
          if (crashes) {
            throw new TrialFailure(TrialFailure.Kind.CRASH, "synthetic crash");
          }
          blocks++;
          return rate * Math.max(0.05, 1 + model.noise() * random.nextGaussian());
        }

        @Override
        public OutputDigest output() {
          return new OutputDigest(sha256("blocks=" + blocks + ";corrupted=" + corrupting), new double[] {blocks});
        }

        @Override
        public void close() {}
      };
    }
  }

  /** A seeded synthetic scenario of 10 to 14 levers. */
  static Scenario synthetic(int number, long seed, double noise) {
    Random random = new Random(seed);
    int n = 10 + random.nextInt(5);
    double[] components = {0.30, 0.20, 0.15};
    double fixed = 1 - Arrays.stream(components).sum();
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      ids.add(String.format(Locale.ROOT, "L%02d", i));
    }
    Collections.shuffle(ids, random);
    Map<String, Effect> effects = new HashMap<>();
    int next = 0;
    boolean withPair = random.nextBoolean();
    int helpful = 2 + random.nextInt(3) - (withPair ? 1 : 0);
    for (int i = 0; i < Math.max(1, helpful); i++) {
      effects.put(ids.get(next++), new Effect(Role.HELPFUL, random.nextInt(3), 0.3 + 0.45 * random.nextDouble()));
    }
    Set<String> pair = new LinkedHashSet<>();
    int pairComponent = random.nextInt(3);
    if (withPair) {
      for (int i = 0; i < 2; i++) {
        String id = ids.get(next++);
        pair.add(id);
        effects.put(id, new Effect(Role.PAIRED, pairComponent, 1));
      }
    }
    int harmful = 2 + random.nextInt(2);
    for (int i = 0; i < harmful; i++) {
      effects.put(ids.get(next++), new Effect(Role.HARMFUL, random.nextInt(3), 1.1 + 0.3 * random.nextDouble()));
    }
    effects.put(ids.get(next++), new Effect(Role.CORRUPTING, random.nextInt(3), 0.4));
    if (random.nextBoolean()) {
      effects.put(ids.get(next++), new Effect(Role.CRASHING, random.nextInt(3), 1));
    }
    while (next < n) {
      effects.put(ids.get(next++), new Effect(Role.NEUTRAL, random.nextInt(3), 1));
    }
    Model model = new Model(fixed, components, Map.copyOf(effects), Set.copyOf(pair), pairComponent, 0.5, noise);

    List<String> sorted = new ArrayList<>(ids);
    Collections.sort(sorted);
    List<Lever> levers = sorted.stream().<Lever>map(MarkerLever::new).toList();
    List<Candidate> predictions = new ArrayList<>();
    for (Lever l : levers) {
      Effect e = effects.get(l.id());
      boolean replayed = e.role() != Role.PAIRED && e.role() != Role.CRASHING && random.nextDouble() < 0.75;
      if (replayed) {
        double alone = model.speedup(Set.of(l.id()));
        predictions.add(Candidate.replay(l, alone * Math.exp(0.03 * random.nextGaussian()), 0.04));
      } else {
        predictions.add(Candidate.prior(l, 1.05, 0.10));
      }
    }
    double best = bestSafe(model, sorted);
    double target = Math.floor(80 * (best - 1)) / 100;
    Map<Role, Integer> counts = new TreeMap<>();
    effects.values().forEach(e -> counts.merge(e.role(), 1, Integer::sum));
    String description = n + " levers " + counts.toString().toLowerCase(Locale.ROOT) + ", noise "
        + Math.round(noise * 100) + "%";
    long jobSeed = seed * 31 + 7;
    AtomicInteger jobs = new AtomicInteger();
    return new Scenario("synthetic-" + number, description, () -> new ModelJob(model, jobSeed + jobs.incrementAndGet()),
        Setup.shipped(), levers, predictions, new LeverContext(null, null, List.of(), Map.of(), false), target,
        setup -> model.speedup(MarkerLever.marked(setup)));
  }

  private static double bestSafe(Model model, List<String> ids) {
    double best = 1;
    for (int mask = 1; mask < 1 << ids.size(); mask++) {
      Set<String> s = new HashSet<>();
      for (int i = 0; i < ids.size(); i++) {
        if ((mask & 1 << i) != 0) {
          s.add(ids.get(i));
        }
      }
      if (model.safe(s)) {
        best = Math.max(best, model.speedup(s));
      }
    }
    return best;
  }

  private static String sha256(String s) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  // ---------------------------------------------------------------------------------------------------------------
  // The program

  /**
   * Seeded synthetic scenarios, or with {@code --workload} a real managed job ({@link RealJobHarness#USAGE}).
   */
  public static void main(String[] args) {
    if (Arrays.asList(args).contains("--workload")) {
      RealJobHarness.run(args, System.out, System.err);
      return;
    }
    int scenarios = 8;
    int only = 0;
    long seed = 1;
    Settings settings = Settings.defaults();
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException("option " + a + " needs a value");
      }
      String v = args[++i];
      switch (a) {
        case "--scenarios" -> scenarios = Integer.parseInt(v);
        case "--only" -> only = Integer.parseInt(v);
        case "--seed" -> seed = Long.parseLong(v);
        case "--repeats" -> settings = settings.withRepeats(Integer.parseInt(v));
        case "--random-budget" -> settings = settings.withRandomBudget(Integer.parseInt(v));
        default -> throw new IllegalArgumentException("unknown option " + a
            + " (known: --scenarios N, --only K, --seed S, --repeats R, --random-budget B; for a real job: "
            + RealJobHarness.USAGE + ")");
      }
    }
    if (scenarios < 1 || only < 0 || only > scenarios) {
      throw new IllegalArgumentException("--scenarios must be >= 1 and --only within 1.." + scenarios);
    }
    settings = settings.withSeed(seed);
    System.out.printf(Locale.ROOT, "search harness: %d scenarios, seed %d, gate %d pairs + %d warm-up; agent and "
        + "random search: medians of %d runs each, random search at most %d trials a run%n%n", scenarios, seed,
        settings.gate().pairs(), settings.gate().warmupBlocks(), settings.repeats(), settings.randomBudget());
    System.out.println("| scenario | levers | target | oracle: speedup (trials) | agent: speedup (trials) "
        + "| agent / oracle: speedup, gain | agent trials / oracle's | trials to target: agent (runs reaching it), "
        + "random (runs reaching it) | random's speedup at the agent's trials | agent stops |");
    System.out.println("|---|---|---|---|---|---|---|---|---|---|");
    List<Comparison> all = new ArrayList<>();
    long t0 = System.nanoTime();
    for (int k = 0; k < scenarios; k++) {
      if (only > 0 && k + 1 != only) {
        continue;
      }
      double noise = k % 2 == 0 ? 0.02 : 0.04;
      Scenario s = synthetic(k + 1, seed * 1000 + k, noise);
      Comparison c = compare(s, settings);
      all.add(c);
      System.out.printf(Locale.ROOT, "| %s | %s | %.0f%% | %.3f (%d) | %.3f (%d) | %.1f%%, %.1f%% | %.2f%% "
              + "| %s (%d/%d), %s (%d/%d) | %.3f | %s |%n", s.name(), s.description(), 100 * s.target(),
          c.oracle().speedup(), c.oracle().trials(), c.agent().speedup(), c.agent().trials(), 100 * c.speedupShare(),
          100 * c.gainShare(), 100 * c.trialShare(), reached(c.agent().trialsToTarget()), c.agent().reached(),
          c.agent().runs(), reached(c.random().trialsToTarget()), c.random().reached(), c.random().runs(),
          c.randomAtAgentTrials(), stops(c.agentStops()));
    }
    System.out.printf(Locale.ROOT, "%nwall time %.1f s%n", (System.nanoTime() - t0) / 1e9);
    long speedupMet = all.stream().filter(c -> c.speedupShare() >= 0.95).count();
    long gainMet = all.stream().filter(c -> c.gainShare() >= 0.95).count();
    long trialsMet = all.stream().filter(c -> c.trialShare() <= 0.15).count();
    long fasterMet = all.stream().filter(Comparison::fasterThanRandom).count();
    System.out.printf(Locale.ROOT, "goals (median runs): >= 95%% of the oracle's speedup in %d/%d (of its gain: "
        + "%d/%d); <= 15%% of its trials in %d/%d; target in <= 1/3 of random search's trials in %d/%d%n",
        speedupMet, all.size(), gainMet, all.size(), trialsMet, all.size(), fasterMet, all.size());
  }

  private static String stops(Map<Agent.StopReason, Integer> stops) {
    List<String> parts = new ArrayList<>();
    stops.forEach((reason, n) -> parts.add(reason.name().toLowerCase(Locale.ROOT).replace('_', ' ') + " " + n));
    return String.join(", ", parts);
  }

  private static String reached(int trials) {
    return trials < 0 ? "not reached" : Integer.toString(trials);
  }
}
