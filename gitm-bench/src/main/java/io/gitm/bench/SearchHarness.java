package io.gitm.bench;

import io.gitm.api.Ticker;
import io.gitm.job.Job;
import io.gitm.levers.Lever;
import io.gitm.levers.LeverContext;
import io.gitm.levers.SafetyClass;
import io.gitm.levers.Setup;
import io.gitm.rank.Candidate;
import io.gitm.search.Agent;
import io.gitm.search.Gate;
import io.gitm.search.TrialRecord;
import io.gitm.search.Verdict;
import io.gitm.stats.Sample;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
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
 * <p>In a synthetic scenario ({@link SyntheticScenario}) the speedups reported are the true ones of each method's
 * final setup.
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

    /** These settings with {@code g} for every method, the oracle's included. */
    public Settings withGate(Gate.Options g) {
      return new Settings(g, g, repeats, randomBudget, seed);
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
      return new Outcome(Sample.median(runs.stream().mapToDouble(Run::speedup).toArray()),
          Sample.median(runs.stream().mapToDouble(Run::remeasured).filter(Double::isFinite).toArray()),
          (int) Math.round(Sample.median(runs.stream().mapToDouble(Run::trials).toArray())),
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

  /**
   * What a method's gate decisions cost: how many trials were measured to a decision (both arms measured, so a gain
   * was computed: crashes, hangs and refused setups are left out), their measured pairs and their blocks (warm-up
   * blocks included), in all and among those whose true effect was clear ({@link #CLEAR}: the candidate at least
   * 10% better or worse than its arm, by the ground truth; none without one).
   */
  public record Cost(int trials, long pairs, long blocks, int clearTrials, long clearPairs, long clearBlocks) {
    /** A true effect at least this far from 1, either way, is clear. */
    static final double CLEAR = 1.10;
    static final Cost NONE = new Cost(0, 0, 0, 0, 0, 0);

    Cost plus(Verdict v, double trueEffect) {
      if (!v.complete()) {
        return this;
      }
      int pairs = v.anchorSamples().length;
      boolean clear = trueEffect >= CLEAR || trueEffect <= 1 / CLEAR;
      return new Cost(trials + 1, this.pairs + pairs, blocks + v.blocks(), clearTrials + (clear ? 1 : 0),
          clearPairs + (clear ? pairs : 0), clearBlocks + (clear ? v.blocks() : 0));
    }

    Cost plus(Cost c) {
      return new Cost(trials + c.trials, pairs + c.pairs, blocks + c.blocks, clearTrials + c.clearTrials,
          clearPairs + c.clearPairs, clearBlocks + c.clearBlocks);
    }

    double pairsPerTrial() {
      return trials == 0 ? Double.NaN : (double) pairs / trials;
    }

    double clearPairsPerTrial() {
      return clearTrials == 0 ? Double.NaN : (double) clearPairs / clearTrials;
    }

    double otherPairsPerTrial() {
      return trials == clearTrials ? Double.NaN : (double) (pairs - clearPairs) / (trials - clearTrials);
    }

    double blocksPerTrial() {
      return trials == 0 ? Double.NaN : (double) blocks / trials;
    }
  }

  /** One combination the oracle measured against the original setup. */
  public record Measured(List<String> levers, Verdict.Outcome outcome, double gain, double ciLow, double ciHigh,
      double pValue, double seconds, int pairs, int blocks) {
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
   * @param agentCost what the trials of all the agent's runs cost (re-measurements left out)
   * @param oracleCost what the oracle's trials cost
   */
  public record Comparison(Scenario scenario, Outcome agent, Outcome random, Outcome oracle,
      double randomAtAgentTrials, Map<Agent.StopReason, Integer> agentStops, List<Run> agentRuns,
      List<Run> randomRuns, Run oracleRun, List<Measured> oracleTrials, double agentSeconds, double randomSeconds,
      double oracleSeconds, Cost agentCost, Cost oracleCost) {
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
    Cost agentCost = Cost.NONE;
    Map<Agent.StopReason, Integer> stops = new TreeMap<>();
    for (int r = 0; r < settings.repeats(); r++) {
      Job job = s.jobs().get();
      try {
        Agent.Result result = new Agent(Ticker.system(), Agent.Options.defaults().withGate(settings.gate())
            .withTarget(s.target())).optimize(job, s.anchor(), candidates(s), s.context(), Long.MAX_VALUE,
            Agent.Listener.none(), List.of());
        Run run = agentRun(s, settings, job, result);
        agentRuns.add(run);
        agentCost = agentCost.plus(cost(s, result.trials()));
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
        Sample.median(atAgentTrials.stream().mapToDouble(d -> d).toArray()), stops, agentRuns, randomRuns, oracleRun,
        oracle.trials(), agentNanos / 1e9, randomNanos / 1e9, oracleNanos / 1e9, agentCost, oracle.cost());
  }

  /** What {@code trials} cost, each trial's true effect its candidate's true speedup over its arm's. */
  private static Cost cost(Scenario s, List<TrialRecord> trials) {
    Cost c = Cost.NONE;
    Map<String, Lever> byId = new HashMap<>();
    s.levers().forEach(l -> byId.put(l.id(), l));
    for (TrialRecord t : trials) {
      double effect = Double.NaN;
      if (s.truth() != null) {
        Setup arm = apply(s, t.anchorLevers().stream().map(byId::get).toList());
        effect = arm == null ? Double.NaN : s.truth().applyAsDouble(t.candidate()) / s.truth().applyAsDouble(arm);
      }
      c = c.plus(t.verdict(), effect);
    }
    return c;
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
  private record OracleRun(Run run, List<Measured> trials, Cost cost) {}

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
      Cost cost = Cost.NONE;
      for (int mask = 1; mask <= combinations; mask++) {
        List<Lever> subset = subset(s.levers(), mask);
        List<String> ids = subset.stream().map(Lever::id).toList();
        Setup candidate = apply(s, subset);
        if (candidate == null) {
          trials.add(new Measured(ids, Verdict.Outcome.SETUP_REFUSED, Double.NaN, Double.NaN, Double.NaN, Double.NaN,
              0, 0, 0));
          continue;
        }
        Verdict v = gate.judge(job, s.anchor(), candidate, safety(subset), tolerance(s));
        trials.add(new Measured(ids, v.outcome(), v.gain(), v.ciLow(), v.ciHigh(), v.pValue(), v.wallNanos() / 1e9,
            v.anchorSamples().length, v.blocks()));
        cost = cost.plus(v, s.truth() == null ? Double.NaN : s.truth().applyAsDouble(candidate));
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
          + " combinations", List.of()), trials, cost);
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

  /**
   * The anchor with {@code subset} applied in order, each lever seeing the setup it is applied to; null if one threw.
   */
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
        case "--fixed" -> settings = settings.withGate(settings.gate().fixed(Integer.parseInt(v)));
        default -> throw new IllegalArgumentException("unknown option " + a
            + " (known: --scenarios N, --only K, --seed S, --repeats R, --random-budget B, --fixed PAIRS; for a"
            + " real job: "
            + RealJobHarness.USAGE + ")");
      }
    }
    if (scenarios < 1 || only < 0 || only > scenarios) {
      throw new IllegalArgumentException("--scenarios must be >= 1 and --only within 1.." + scenarios);
    }
    settings = settings.withSeed(seed);
    System.out.printf(Locale.ROOT, "search harness: %d scenarios, seed %d, gate %s %d pairs + %d warm-up; agent and "
        + "random search: medians of %d runs each, random search at most %d trials a run%n%n", scenarios, seed,
        settings.gate().sequence().fixed() ? "fixed," : "sequential, at most", settings.gate().maxPairs(),
        settings.gate().warmupBlocks(), settings.repeats(), settings.randomBudget());
    System.out.println("| scenario | levers | target | oracle: speedup (trials) | agent: speedup (trials) "
        + "| agent / oracle: speedup, gain | agent trials / oracle's | trials to target: agent (runs reaching it), "
        + "random (runs reaching it) | random's speedup at the agent's trials | agent stops "
        + "| pairs per trial, agent: all, clear, other | pairs per trial, oracle: all, clear, other |");
    System.out.println("|---|---|---|---|---|---|---|---|---|---|---|---|");
    Cost agentCost = Cost.NONE;
    Cost oracleCost = Cost.NONE;
    List<Comparison> all = new ArrayList<>();
    Ticker wall = Ticker.system();
    long t0 = wall.nanos();
    for (int k = 0; k < scenarios; k++) {
      if (only > 0 && k + 1 != only) {
        continue;
      }
      double noise = k % 2 == 0 ? 0.02 : 0.04;
      Scenario s = SyntheticScenario.of(k + 1, seed * 1000 + k, noise);
      Comparison c = compare(s, settings);
      all.add(c);
      agentCost = agentCost.plus(c.agentCost());
      oracleCost = oracleCost.plus(c.oracleCost());
      System.out.printf(Locale.ROOT, "| %s | %s | %.0f%% | %.3f (%d) | %.3f (%d) | %.1f%%, %.1f%% | %.2f%% "
              + "| %s (%d/%d), %s (%d/%d) | %.3f | %s | %s | %s |%n", s.name(), s.description(), 100 * s.target(),
          c.oracle().speedup(), c.oracle().trials(), c.agent().speedup(), c.agent().trials(), 100 * c.speedupShare(),
          100 * c.gainShare(), 100 * c.trialShare(), reached(c.agent().trialsToTarget()), c.agent().reached(),
          c.agent().runs(), reached(c.random().trialsToTarget()), c.random().reached(), c.random().runs(),
          c.randomAtAgentTrials(), stops(c.agentStops()), perTrial(c.agentCost()), perTrial(c.oracleCost()));
    }
    System.out.printf(Locale.ROOT, "%nwall time %.1f s%n", (wall.nanos() - t0) / 1e9);
    long speedupMet = all.stream().filter(c -> c.speedupShare() >= 0.95).count();
    long gainMet = all.stream().filter(c -> c.gainShare() >= 0.95).count();
    long trialsMet = all.stream().filter(c -> c.trialShare() <= 0.15).count();
    long fasterMet = all.stream().filter(Comparison::fasterThanRandom).count();
    System.out.printf(Locale.ROOT, "goals (median runs): >= 95%% of the oracle's speedup in %d/%d (of its gain: "
        + "%d/%d); <= 15%% of its trials in %d/%d; target in <= 1/3 of random search's trials in %d/%d%n",
        speedupMet, all.size(), gainMet, all.size(), trialsMet, all.size(), fasterMet, all.size());
    System.out.printf(Locale.ROOT, "pairs per trial (blocks per trial), all scenarios: agent %s (%.2f) over %d"
        + " trials, %d with a clear effect; oracle %s (%.2f) over %d trials, %d with a clear effect%n",
        perTrial(agentCost), agentCost.blocksPerTrial(), agentCost.trials(), agentCost.clearTrials(),
        perTrial(oracleCost), oracleCost.blocksPerTrial(), oracleCost.trials(), oracleCost.clearTrials());
  }

  private static String perTrial(Cost c) {
    return String.format(Locale.ROOT, "%.2f, %.2f, %.2f", c.pairsPerTrial(), c.clearPairsPerTrial(),
        c.otherPairsPerTrial());
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
