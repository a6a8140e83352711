package io.gitm.analysis.attribution;

import java.util.List;

/**
 * A ranked explanation of where time went.
 *
 * @param cause the cause, from the fixed taxonomy
 * @param effect estimated share of the job's time the cause costs (0.12 = 12% of the span), with its interval
 * @param pValue the smallest adjusted p-value among the tests behind it (1 when no test applies)
 * @param confidence 0..1, how sure the attribution is (combines the tests' significance and the effect's interval)
 * @param evidence what the claim rests on
 */
public record Hypothesis(Cause cause, double effect, double effectLow, double effectHigh, double pValue,
    double confidence, List<Evidence> evidence) {
  public Hypothesis {
    if (cause == null) {
      throw new IllegalArgumentException("a hypothesis names a cause");
    }
    evidence = List.copyOf(evidence);
  }

  /** Ranking score: expected effect weighted by confidence. */
  public double score() {
    return Math.max(0, effect) * confidence;
  }
}
