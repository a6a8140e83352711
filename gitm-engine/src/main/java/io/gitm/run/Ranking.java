package io.gitm.run;

import io.gitm.analysis.attribution.Hypothesis;
import io.gitm.levers.Lever;
import io.gitm.levers.LeverContext;
import io.gitm.rank.Candidate;
import io.gitm.rank.Counterfactual;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.Set;

/**
 * What the rank phase decided, in the order the agent is given the levers: a resumed run takes it from the journal
 * instead of ranking again, so that it follows the interrupted search's path and reuses its trials (a fresh ranking
 * could differ: replay is skipped once the rank deadline has passed, and a resumed run starts past it).
 *
 * @param candidates each lever's expectation, best first
 * @param predictions the replay predictions, per lever id
 * @param replayModelError how far replay of the unchanged trace landed from the observed time (NaN: no replay)
 */
public record Ranking(List<Entry> candidates, Map<String, Counterfactual.Prediction> predictions,
    double replayModelError) {
  public Ranking {
    candidates = List.copyOf(candidates == null ? List.of() : candidates);
    predictions = predictions == null ? Map.of() : new LinkedHashMap<>(predictions);
  }

  /** One ranked lever: its id and what the agent expects of it ({@link Candidate}). */
  public record Entry(String lever, double predictedGain, double uncertainty, String basis) {}

  /** The ids of the levers ranked, in order. */
  Set<String> leverIds() {
    Set<String> ids = new LinkedHashSet<>();
    candidates.forEach(c -> ids.add(c.lever()));
    return ids;
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
      OptionalDouble own = l.expectedGain(context);
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
}
