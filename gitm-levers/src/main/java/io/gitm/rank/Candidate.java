package io.gitm.rank;

import io.gitm.levers.Lever;
import org.hipparchus.distribution.continuous.NormalDistribution;

/**
 * A lever the agent may try, with what the ranking stage expects of it.
 *
 * @param lever the lever
 * @param predictedGain the expected improvement factor of the job's metric under this lever alone (1.12 = 12%
 *     better, oriented so that above 1 is better whatever the metric's direction)
 * @param uncertainty the standard deviation of that prediction, in the same units (0 = certain)
 * @param basis where the prediction comes from, e.g. {@code replay} (counterfactual replay of the trace) or
 *     {@code prior} (the library's prior for the attributed cause)
 */
public record Candidate(Lever lever, double predictedGain, double uncertainty, String basis) {
  public Candidate {
    if (lever == null) {
      throw new IllegalArgumentException("a candidate needs a lever");
    }
    if (!(predictedGain > 0) || Double.isInfinite(predictedGain)) {
      throw new IllegalArgumentException("predicted gain of " + lever.id() + " must be a positive factor, got "
          + predictedGain);
    }
    if (!(uncertainty >= 0) || Double.isInfinite(uncertainty)) {
      throw new IllegalArgumentException("uncertainty of " + lever.id() + " must be a finite number >= 0, got "
          + uncertainty);
    }
    if (basis == null || basis.isBlank()) {
      throw new IllegalArgumentException("the prediction for " + lever.id() + " needs a basis (replay, prior)");
    }
  }

  public static Candidate replay(Lever lever, double predictedGain, double uncertainty) {
    return new Candidate(lever, predictedGain, uncertainty, "replay");
  }

  public static Candidate prior(Lever lever, double predictedGain, double uncertainty) {
    return new Candidate(lever, predictedGain, uncertainty, "prior");
  }

  public String id() {
    return lever.id();
  }

  /**
   * The chance that the lever's true gain is at least {@code 1 + minGain}, the prediction taken as normal with the
   * given uncertainty.
   */
  public double chanceOfGain(double minGain) {
    double threshold = 1 + minGain;
    if (uncertainty == 0) {
      return predictedGain >= threshold ? 1 : 0;
    }
    return 1 - new NormalDistribution(predictedGain, uncertainty).cumulativeProbability(threshold);
  }
}
