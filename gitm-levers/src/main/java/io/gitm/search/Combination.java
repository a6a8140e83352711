package io.gitm.search;

import io.gitm.levers.SafetyClass;
import io.gitm.rank.Candidate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** What a list of candidates tried together (a single, a pair, a bundle) adds up to. */
final class Combination {
  private Combination() {
  }

  static List<String> ids(List<Candidate> cs) {
    return cs.stream().map(Candidate::id).toList();
  }

  /** The strictest safety class among them (A when there are none). */
  static SafetyClass safety(List<Candidate> cs) {
    return cs.stream().map(c -> c.lever().safety()).max(Comparator.naturalOrder()).orElse(SafetyClass.A);
  }

  /** Their extra wall-clock cost per trial beyond running the job, in seconds (a bad cost counts as none). */
  static double extraCost(List<Candidate> cs) {
    double sum = 0;
    for (Candidate c : cs) {
      double s = c.lever().trialCostSeconds();
      sum += Double.isFinite(s) && s > 0 ? s : 0;
    }
    return sum;
  }

  /** Their predicted gains compounded. */
  static double predicted(List<Candidate> cs) {
    return cs.stream().mapToDouble(Candidate::predictedGain).reduce(1, (x, y) -> x * y);
  }

  /** Where their predictions come from, e.g. {@code replay+prior}. */
  static String basis(List<Candidate> cs) {
    return String.join("+", cs.stream().map(Candidate::basis).distinct().toList());
  }

  /** {@code cs} without {@code c}. */
  static List<Candidate> without(List<Candidate> cs, Candidate c) {
    List<Candidate> out = new ArrayList<>(cs);
    out.remove(c);
    return out;
  }
}
