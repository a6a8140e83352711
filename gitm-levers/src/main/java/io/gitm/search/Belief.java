package io.gitm.search;

import io.gitm.rank.Candidate;
import org.hipparchus.distribution.continuous.NormalDistribution;

/**
 * What is believed of a lever's gain after its trial: its prediction and the trial's measurement combined by their
 * precision (normal approximations; the measurement's standard error read off its confidence interval).
 */
record Belief(double gain, double sd) {
  static Belief of(Candidate c, Verdict v, double confidence) {
    double z = new NormalDistribution(0, 1).inverseCumulativeProbability(0.5 + confidence / 2);
    double se = (v.ciHigh() - v.ciLow()) / (2 * z);
    if (!(se > 0) || !Double.isFinite(v.gain())) {
      return new Belief(c.predictedGain(), c.uncertainty());
    }
    if (c.uncertainty() == 0) {
      return new Belief(c.predictedGain(), 0);
    }
    double wp = 1 / (c.uncertainty() * c.uncertainty());
    double wm = 1 / (se * se);
    return new Belief((wp * c.predictedGain() + wm * v.gain()) / (wp + wm), Math.sqrt(1 / (wp + wm)));
  }

  /** The belief about both levers together, taken as independent. */
  Belief and(Belief other) {
    return new Belief(gain * other.gain, Math.hypot(sd * other.gain, other.sd * gain));
  }
}
