package io.gitm.run;

import io.gitm.analysis.Analysis;
import io.gitm.analysis.attribution.Hypothesis;
import io.gitm.api.Ticker;
import io.gitm.device.DeviceInfo;
import io.gitm.device.HardwareSpec;
import io.gitm.job.Job;
import io.gitm.levers.Lever;
import io.gitm.levers.LeverContext;
import io.gitm.levers.Levers;
import io.gitm.levers.Setup;
import io.gitm.rank.Candidate;
import io.gitm.rank.Counterfactual;
import io.gitm.rank.Qualification;
import io.gitm.search.Agent;
import io.gitm.search.Gate;
import io.gitm.search.TrialRecord;
import io.gitm.sim.SimSpec;
import io.gitm.trace.TraceMeta;
import io.gitm.trace.TraceRecord;
import io.gitm.workload.WorkloadSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Phases 2 to 4 of a run, after the profile: attribute (the analysis of the profile's trace), rank (the applicable
 * levers, each with its gain predicted by counterfactual replay, or the library's prior), apply (the agent tries
 * them on the live job behind rollback gates). Phase 5, the report, is the caller's. Each phase may use the time up
 * to its deadline in the {@link PhasePlan}, so a phase that finishes early hands its time on; the apply phase also
 * takes the report phase's window but for a reserve ({@link #reportReserve}), since writing the report takes
 * seconds.
 */
public final class Optimizer {
  private Optimizer() {}

  /** What the caller is told as the run goes (progress display, journal). */
  public interface Events {
    void phaseStarted(Phase phase, Duration window);

    void phaseEnded(Phase phase, Duration used, String summary);

    void trialDone(TrialRecord trial);

    /** The rank phase's result, once, before the first trial: journaled so that a resumed run ranks the same. */
    default void ranked(Ranking ranking) {}

    /**
     * The agent starts a trial (its first run of the trial's setup is being opened).
     *
     * @param number the trial's number, from 1
     * @param what the levers tried, or what the trial measures
     */
    default void trialStarted(int number, String what) {}
  }

  /**
   * What the rank phase decided, in the order the agent is given the levers: a resumed run takes it from the journal
   * instead of ranking again, so that it follows the interrupted search's path and reuses its trials (a fresh ranking
   * could differ: replay is skipped once the rank deadline has passed, and a resumed run starts past it).
   *
   * @param candidates each lever's expectation, best first
   * @param predictions the replay predictions, per lever id
   * @param replayModelError how far replay of the unchanged trace landed from the observed time (NaN: no replay)
   */
  public record Ranking(List<Ranked> candidates, Map<String, Counterfactual.Prediction> predictions,
      double replayModelError) {
    public Ranking {
      candidates = List.copyOf(candidates == null ? List.of() : candidates);
      predictions = predictions == null ? Map.of() : new java.util.LinkedHashMap<>(predictions);
    }
  }

  /** One ranked lever: its id and what the agent expects of it ({@link Candidate}). */
  public record Ranked(String lever, double predictedGain, double uncertainty, String basis) {}

  /**
   * @param target the improvement to reach (0.15 = 15%)
   * @param blockIterations iterations of the workload per gate block
   * @param allowDeviceSettings whether class-C levers may be used (simulated device only)
   * @param onlyLevers when not empty, only these lever ids are considered
   */
  public record Options(double target, int blockIterations, Gate.Options gate, boolean allowDeviceSettings,
      List<String> onlyLevers, Duration expectedTrial) {
    public Options {
      onlyLevers = List.copyOf(onlyLevers == null ? List.of() : onlyLevers);
      expectedTrial = expectedTrial == null || expectedTrial.isNegative() ? Duration.ZERO : expectedTrial;
    }

    public Options(double target, int blockIterations, Gate.Options gate, boolean allowDeviceSettings,
        List<String> onlyLevers) {
      this(target, blockIterations, gate, allowDeviceSettings, onlyLevers, Duration.ZERO);
    }
  }

  /** What phases 2–4 produced. */
  /**
   * What attribute, rank and apply found and did.
   *
   * @param expectations per lever id, the facts its own expected gain was read from, in words
   *     ({@link Lever#expectationBasis}); levers without an estimate of their own are absent
   */
  public record Outcome(Analysis.Result analysis, List<Candidate> candidates, Map<String, Counterfactual.Prediction>
      predictions, double replayModelError, Qualification qualification, Agent.Result agent,
      Map<Phase, Duration> used, Map<String, String> notApplicable, Map<String, String> expectations,
      List<TrialRecord> earlierNotReused, boolean rankingReused) {
    public Outcome {
      earlierNotReused = List.copyOf(earlierNotReused == null ? List.of() : earlierNotReused);
    }
  }

  /** The window the report phase keeps: a tenth of it, at least 5 s, at most its whole window. */
  public static Duration reportReserve(PhasePlan plan) {
    Duration w = plan.window(Phase.REPORT).length();
    Duration r = w.dividedBy(10);
    Duration min = Duration.ofSeconds(5);
    return r.compareTo(min) < 0 ? (w.compareTo(min) < 0 ? w : min) : r;
  }

  /**
   * Runs attribute, rank and apply.
   *
   * @param spec the managed workload's spec, or null for a process job
   * @param job the job the agent measures (the caller opens and closes it)
   * @param extraFacts facts the profile found beyond the trace's (e.g. a process job's busy processes)
   * @param replaySpec the device model counterfactual replay runs on, or null for none
   * @param startNanos the run's start on {@code wall}
   * @param completed trials of an interrupted earlier run (resume); empty otherwise
   * @param earlierRanking the interrupted run's ranking (resume), or null to rank afresh
   */
  public static Outcome run(WorkloadSpec spec, double outputTolerance, Job job, DeviceInfo info, TraceMeta meta,
      List<TraceRecord> trace, Map<String, Double> extraFacts, HardwareSpec hw, SimSpec replaySpec, PhasePlan plan,
      Ticker wall, long startNanos, Options options, Events events, List<TrialRecord> completed,
      Ranking earlierRanking) {
    Map<Phase, Duration> used = new EnumMap<>(Phase.class);

    // phase 2: attribute
    long t = wall.nanos();
    events.phaseStarted(Phase.ATTRIBUTE, plan.remaining(Phase.ATTRIBUTE, since(wall, startNanos)));
    Analysis.Result analysis = Analysis.analyze(meta, trace, hw);
    used.put(Phase.ATTRIBUTE, since(wall, t));
    events.phaseEnded(Phase.ATTRIBUTE, used.get(Phase.ATTRIBUTE), analysis.violations().size() + " violations, "
        + analysis.hypotheses().size() + " hypotheses" + (analysis.hypotheses().isEmpty() ? ""
            : "; top: " + analysis.hypotheses().getFirst().cause().label()));

    // phase 3: rank
    t = wall.nanos();
    events.phaseStarted(Phase.RANK, plan.remaining(Phase.RANK, since(wall, startNanos)));
    Setup shipped = Setup.shipped();
    Map<String, Double> facts = new HashMap<>(analysis.facts());
    facts.putAll(io.gitm.levers.TraceFacts.of(trace));
    facts.put(LeverContext.FACT_HOST_CPUS, (double) Runtime.getRuntime().availableProcessors());
    facts.putAll(extraFacts);
    LeverContext context = new LeverContext(spec, info, analysis.hypotheses(), facts,
        options.allowDeviceSettings(), shipped);
    Map<String, String> notApplicable = new java.util.LinkedHashMap<>();
    List<Lever> levers = new ArrayList<>();
    for (Lever l : Levers.candidates(context)) {
      if (!options.onlyLevers().isEmpty() && !options.onlyLevers().contains(l.id())) {
        continue;
      }
      if ((spec == null) != (l.scope() == Lever.Scope.PROCESS)) {
        // a process job takes only the levers a process accepts from outside; a managed job none of those
        continue;
      }
      // a lever that does not apply to the shipped setup may apply once another is kept (graph capture after
      // pinned memory and preallocation): the agent checks each against its anchor as the anchor moves
      levers.add(l);
    }
    Map<String, Lever> byId = new java.util.LinkedHashMap<>();
    levers.forEach(l -> byId.put(l.id(), l));
    Map<String, String> expectations = new java.util.LinkedHashMap<>();
    for (Lever l : levers) {
      l.expectationBasis(context).ifPresent(e -> expectations.put(l.id(), e));
    }
    // the counterfactual replay of the trace, prepared once on first use: by the ranking, then by the agent's trials
    Supplier<Optional<Counterfactual>> replay = once(() -> replaySpec == null ? Optional.<Counterfactual>empty()
        : Counterfactual.of(trace, replaySpec));
    Ranking ranking = earlierRanking != null && byId.keySet().equals(rankedIds(earlierRanking)) ? earlierRanking : null;
    boolean rankingReused = ranking != null;
    boolean replayed;
    if (ranking == null) {
      ranking = rank(levers, replay, analysis.hypotheses(), context, wall, startNanos,
          plan.deadline(Phase.RANK));
      replayed = replaySpec != null && !ranking.predictions().isEmpty();
      events.ranked(ranking);
    } else {
      replayed = !ranking.predictions().isEmpty();
    }
    List<Candidate> candidates = new ArrayList<>();
    for (Ranked r : ranking.candidates()) {
      Lever l = byId.get(r.lever());
      candidates.add(new Candidate(l, r.predictedGain(), r.uncertainty(), r.basis()));
    }
    Map<String, Counterfactual.Prediction> predictions = ranking.predictions();
    // levers that can never apply to this job (a knob the workload does not honour) move no floor and add no headroom
    Qualification q = Qualification.of(analysis, candidates.stream().filter(c -> {
      Lever.Applicability a = c.lever().check(context);
      return a == null || a.applies() || !a.never();
    }).toList(), options.target());
    used.put(Phase.RANK, since(wall, t));
    long applicable = levers.stream().filter(l -> l.check(context).applies()).count();
    events.phaseEnded(Phase.RANK, used.get(Phase.RANK), candidates.size() + " levers ranked (" + applicable
        + " apply to the shipped setup, the rest may once others are kept)"
        + (rankingReused ? " as the interrupted run ranked them" : "")
        + (replayed ? " by counterfactual replay" : replaySpec == null || trace.isEmpty() ? " by prior (no replay model)"
            : " by prior (replay skipped: no host calls in the trace, or past the rank deadline)")
        + "; " + q.summary());

    // phase 4: apply
    t = wall.nanos();
    Duration applyEnd = plan.budget().duration().minus(reportReserve(plan));
    events.phaseStarted(Phase.APPLY, applyEnd.minus(since(wall, startNanos)));
    Agent.Options ao = Agent.Options.defaults().withGate(options.gate()).withTarget(options.target())
        .withOutputTolerance(outputTolerance).withExpectedTrial(options.expectedTrial());
    Agent agent = new Agent(wall, ao, replayed ? onTop(replay, candidates) : null);
    Announcing announcing = new Announcing(job, shipped, candidates, context, events, completed);
    Agent.Result result = agent.optimize(announcing, shipped, candidates, context, startNanos + applyEnd.toNanos(),
        done -> {
          announcing.ended(done);
          events.trialDone(done);
        }, completed);
    used.put(Phase.APPLY, since(wall, t));
    notApplicable.putAll(result.notTried());
    events.phaseEnded(Phase.APPLY, used.get(Phase.APPLY), result.detail());
    return new Outcome(analysis, candidates, predictions, ranking.replayModelError(), q, result, used, notApplicable,
        expectations, notReused(completed, result.trials()), rankingReused);
  }

  /**
   * Predictions of a lever on top of the kept levers, by counterfactual replay of the trace with their changes. Only
   * levers ranked by replay are asked.
   */
  static Agent.Predictor onTop(Supplier<Optional<Counterfactual>> replay, List<Candidate> candidates) {
    java.util.Set<String> modelled = new java.util.HashSet<>();
    candidates.stream().filter(c -> c.basis().equals("replay")).forEach(c -> modelled.add(c.id()));
    return (lever, kept) -> {
      Optional<Counterfactual> cf = modelled.contains(lever.id()) ? replay.get() : Optional.empty();
      Counterfactual.Prediction p = cf.map(c -> c.predictOnTop(lever, kept)).orElse(null);
      return p != null && p.modelled() ? java.util.OptionalDouble.of(Math.max(0.05, 1 + p.gain()))
          : java.util.OptionalDouble.empty();
    };
  }

  /** {@code s}'s value, computed on the first call only. */
  static <T> Supplier<T> once(Supplier<T> s) {
    return new Supplier<>() {
      private T value;

      @Override
      public synchronized T get() {
        if (value == null) {
          value = s.get();
        }
        return value;
      }
    };
  }

  /**
   * Ranks {@code levers}: by counterfactual replay of the trace while the rank deadline allows, else by prior; best
   * first (a stable sort: ties keep the levers' order).
   */
  static Ranking rank(List<Lever> levers, Supplier<Optional<Counterfactual>> replay, List<Hypothesis> hypotheses,
      LeverContext context, Ticker wall, long startNanos, Duration rankDeadline) {
    Map<String, Counterfactual.Prediction> predictions = new java.util.LinkedHashMap<>();
    List<Ranked> ranked = new ArrayList<>();
    for (Lever l : levers) {
      Counterfactual.Prediction p = null;
      Optional<Counterfactual> cf = since(wall, startNanos).compareTo(rankDeadline) < 0 ? replay.get()
          : Optional.empty();
      if (cf.isPresent()) {
        p = cf.get().predict(l);
        predictions.put(l.id(), p);
      }
      if (p != null && p.modelled()) {
        ranked.add(new Ranked(l.id(), Math.max(0.05, 1 + p.gain()), Math.max(0.005, p.uncertainty()), "replay"));
      } else {
        double prior = prior(l, hypotheses, context);
        ranked.add(new Ranked(l.id(), 1 + prior, Math.max(0.02, prior), "prior"));
      }
    }
    ranked.sort(Comparator.comparingDouble(Ranked::predictedGain).reversed());
    return new Ranking(ranked, predictions, predictions.isEmpty() ? Double.NaN
        : replay.get().map(Counterfactual::modelError).orElse(Double.NaN));
  }

  private static java.util.Set<String> rankedIds(Ranking r) {
    java.util.Set<String> ids = new java.util.LinkedHashSet<>();
    r.candidates().forEach(c -> ids.add(c.lever()));
    return ids;
  }

  /** The earlier trials the resumed search did not come to (same kind, levers and anchor), in their order. */
  static List<TrialRecord> notReused(List<TrialRecord> completed, List<TrialRecord> trials) {
    List<TrialRecord> out = new ArrayList<>();
    for (TrialRecord e : completed) {
      boolean found = trials.stream().anyMatch(t -> t.kind() == e.kind() && t.levers().equals(e.levers())
          && t.anchorLevers().equals(e.anchorLevers()) && t.verdict().equals(e.verdict()));
      if (!found) {
        out.add(e);
      }
    }
    return out;
  }

  /**
   * A lever's expected gain without a replay model: the effect of the attributed causes it addresses (what removing
   * that lost time would give), else a small prior so it is still tried when time allows.
   */
  public static double prior(Lever l, List<Hypothesis> hypotheses) {
    return prior(l, hypotheses, null);
  }

  /** As above, but a lever's own estimate from the facts ({@link Lever#expectedGain}) comes first. */
  public static double prior(Lever l, List<Hypothesis> hypotheses, LeverContext context) {
    if (context != null) {
      java.util.OptionalDouble own = l.expectedGain(context);
      if (own.isPresent()) {
        return own.getAsDouble();
      }
    }
    double lost = 0;
    for (Hypothesis h : hypotheses) {
      if (l.addresses().contains(h.cause())) {
        lost += h.effect() * h.confidence();
      }
    }
    lost = Math.min(0.9, lost);
    return lost > 0 ? 1 / (1 - lost) - 1 : 0.01;
  }

  /**
   * The job as the agent sees it, telling {@link Events#trialStarted} when a trial opens its first run of a setup
   * other than the anchor: the trial's number follows the last one done, and its levers are the candidate whose
   * setup on the anchor is the one opened (a pair or a confirmation is named as such).
   */
  private static final class Announcing implements Job {
    private final Job job;
    private final Setup shipped;
    private final List<Candidate> candidates;
    private final LeverContext context;
    private final Events events;
    private Setup anchor;
    private int done;
    private boolean announced;

    Announcing(Job job, Setup shipped, List<Candidate> candidates, LeverContext context, Events events,
        List<TrialRecord> completed) {
      this.job = job;
      this.shipped = shipped;
      this.anchor = shipped;
      this.candidates = candidates;
      this.context = context;
      this.events = events;
      completed.forEach(this::ended);
    }

    synchronized void ended(TrialRecord t) {
      done = Math.max(done, t.index() + 1);
      announced = false;
      if (t.kind() != TrialRecord.Kind.CONFIRMATION && t.kept()) {
        anchor = t.candidate();
      }
    }

    @Override
    public String metric() {
      return job.metric();
    }

    @Override
    public boolean higherIsBetter() {
      return job.higherIsBetter();
    }

    @Override
    public Run open(Setup setup) throws io.gitm.job.TrialFailure {
      String what = null;
      synchronized (this) {
        if (!announced && !setup.equals(anchor)) {
          announced = true;
          what = describe(setup);
        }
      }
      if (what != null) {
        events.trialStarted(done + 1, what);
      }
      return job.open(setup);
    }

    private String describe(Setup setup) {
      if (setup.equals(shipped)) {
        return "confirmation of the kept levers against the shipped setup";
      }
      for (Candidate c : candidates) {
        try {
          if (setup.equals(c.lever().apply(anchor, context.withSetup(anchor)))) {
            return c.id();
          }
        } catch (RuntimeException e) {
          // a lever that cannot apply to the anchor is not the one being tried
        }
      }
      return "a pair of levers";
    }
  }

  static Duration since(Ticker wall, long t) {
    return Duration.ofNanos(Math.max(0, wall.nanos() - t));
  }
}
