package io.gitm.run;

import io.gitm.analysis.Analysis;
import io.gitm.analysis.attribution.Hypothesis;
import io.gitm.levers.Lever;
import io.gitm.levers.LeverContext;
import io.gitm.levers.Levers;
import io.gitm.levers.Setup;
import io.gitm.levers.TraceFacts;
import io.gitm.rank.Candidate;
import io.gitm.rank.Counterfactual;
import io.gitm.rank.Qualification;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Phase 3, rank: the levers that can reach the target, each with its gain predicted by counterfactual replay of the
 * trace while the rank deadline allows, else by the library's prior; and whether the target is reachable with them.
 * A resumed run takes the interrupted run's ranking when it ranked the same levers.
 */
final class RankStep {
  private RankStep() {}

  static Ranked run(RunLoop.Request req, Profiled p, Analysis.Result analysis, PhaseLog log) {
    RunClock clock = log.clock();
    long t = clock.wall().nanos();
    log.started(Phase.RANK, clock.remaining(Phase.RANK));
    Setup shipped = Setup.shipped();
    LeverContext context = req.job().leverContext(p.info(), analysis.hypotheses(), facts(p, analysis), shipped);
    List<Lever> levers = levers(req, context);
    Map<String, Lever> byId = new LinkedHashMap<>();
    levers.forEach(l -> byId.put(l.id(), l));
    Map<String, String> expectations = new LinkedHashMap<>();
    for (Lever l : levers) {
      l.expectationBasis(context).ifPresent(e -> expectations.put(l.id(), e));
    }
    Supplier<Optional<Counterfactual>> replay = once(() -> p.replaySpec()
        .flatMap(spec -> Counterfactual.of(p.records(), spec)));
    Ranking ranking = p.resume().ranking().filter(r -> byId.keySet().equals(r.leverIds())).orElse(null);
    boolean reused = ranking != null;
    boolean replayed;
    if (ranking == null) {
      ranking = rank(levers, replay, analysis.hypotheses(), context, clock);
      replayed = p.replaySpec().isPresent() && !ranking.predictions().isEmpty();
      log.ranked(ranking);
    } else {
      replayed = !ranking.predictions().isEmpty();
    }
    List<Candidate> candidates = new ArrayList<>();
    for (Ranking.Entry r : ranking.candidates()) {
      candidates.add(new Candidate(byId.get(r.lever()), r.predictedGain(), r.uncertainty(), r.basis()));
    }
    // levers that can never apply to this job (a knob the workload does not honour) move no floor and add no headroom
    Qualification q = Qualification.of(analysis, candidates.stream().filter(c -> {
      Lever.Applicability a = c.lever().check(context);
      return a == null || a.applies() || !a.never();
    }).toList(), req.target().fraction());
    Ranked ranked = new Ranked(context, shipped, candidates, ranking, q, expectations, reused, replayed, replay);
    log.ended(Phase.RANK, clock.since(t), summary(ranked, levers, p));
    return ranked;
  }

  /** The facts the levers read: the analysis', the trace's, the host's, and the profile's own (which win). */
  private static Map<String, Double> facts(Profiled p, Analysis.Result analysis) {
    Map<String, Double> facts = new HashMap<>(analysis.facts());
    facts.putAll(TraceFacts.of(p.records()));
    facts.put(LeverContext.FACT_HOST_CPUS, (double) Runtime.getRuntime().availableProcessors());
    facts.putAll(p.profile().facts());
    return facts;
  }

  /** The levers the agent may try: those asked for (all when none was) that can reach the target. */
  private static List<Lever> levers(RunLoop.Request req, LeverContext context) {
    List<Lever> levers = new ArrayList<>();
    for (Lever l : Levers.candidates(context)) {
      if (!req.levers().isEmpty() && !req.levers().contains(l.id())) {
        continue;
      }
      if (!req.job().admits(l)) {
        // a process job takes only the levers a process accepts from outside; a managed job none of those
        continue;
      }
      // a lever that does not apply to the shipped setup may apply once another is kept (graph capture after
      // pinned memory and preallocation): the agent checks each against its anchor as the anchor moves
      levers.add(l);
    }
    return levers;
  }

  private static String summary(Ranked r, List<Lever> levers, Profiled p) {
    long applicable = levers.stream().filter(l -> l.check(r.context()).applies()).count();
    return r.candidates().size() + " levers ranked (" + applicable
        + " apply to the shipped setup, the rest may once others are kept)"
        + (r.reused() ? " as the interrupted run ranked them" : "")
        + (r.replayed() ? " by counterfactual replay" : p.replaySpec().isEmpty() || p.records().isEmpty()
            ? " by prior (no replay model)"
            : " by prior (replay skipped: no host calls in the trace, or past the rank deadline)")
        + "; " + r.qualification().summary();
  }

  /**
   * Ranks {@code levers}: by counterfactual replay of the trace while the rank deadline allows, else by prior; best
   * first (a stable sort: ties keep the levers' order).
   */
  static Ranking rank(List<Lever> levers, Supplier<Optional<Counterfactual>> replay, List<Hypothesis> hypotheses,
      LeverContext context, RunClock clock) {
    Map<String, Counterfactual.Prediction> predictions = new LinkedHashMap<>();
    List<Ranking.Entry> ranked = new ArrayList<>();
    for (Lever l : levers) {
      Counterfactual.Prediction p = null;
      Optional<Counterfactual> cf = clock.before(Phase.RANK) ? replay.get() : Optional.empty();
      if (cf.isPresent()) {
        p = cf.get().predict(l);
        predictions.put(l.id(), p);
      }
      if (p != null && p.modelled()) {
        ranked.add(new Ranking.Entry(l.id(), Math.max(0.05, 1 + p.gain()), Math.max(0.005, p.uncertainty()),
            "replay"));
      } else {
        double prior = Ranking.prior(l, hypotheses, context);
        ranked.add(new Ranking.Entry(l.id(), 1 + prior, Math.max(0.02, prior), "prior"));
      }
    }
    ranked.sort(Comparator.comparingDouble(Ranking.Entry::predictedGain).reversed());
    return new Ranking(ranked, predictions, predictions.isEmpty() ? Double.NaN
        : replay.get().map(Counterfactual::modelError).orElse(Double.NaN));
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
}
