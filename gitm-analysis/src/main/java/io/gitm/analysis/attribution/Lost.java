package io.gitm.analysis.attribution;

import static io.gitm.analysis.attribution.Thresholds.CHUNKS;
import static io.gitm.analysis.attribution.Thresholds.MIN_EFFECT;
import static io.gitm.analysis.attribution.Thresholds.MIN_EVENTS;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.hipparchus.distribution.continuous.TDistribution;

/**
 * Time a cause cost, as a sum of events (a gap, a kernel, a sample interval), with the evidence behind it and how
 * specific the signature is (0..1). The test treats the events' costs as draws: the total's standard error is
 * {@code sqrt(k) * sd}; a one-sided t-test ({@code k - 1} degrees of freedom) asks whether the total exceeds
 * {@link Thresholds#MIN_EFFECT} of the span. Fewer than {@link Thresholds#MIN_EVENTS} events are never significant.
 * A {@link Ledger} opens one per cause, for the cause's detector only.
 */
final class Lost {
  private final double[] perChunk = new double[CHUNKS];
  private final List<Evidence> evidence = new ArrayList<>();
  private double certainty = 1;
  private long events;
  private double sum;
  private double mean;
  private double m2;

  /** Adds an event of {@code ns} at time {@code at}; nothing when {@code ns} is not positive. */
  void add(Input in, long at, double ns) {
    if (ns > 0) {
      perChunk[in.chunk(at)] += ns;
      events++;
      sum += ns;
      double d = ns - mean;
      mean += d / events;
      m2 += d * (ns - mean);
    }
  }

  void evidence(Evidence e) {
    evidence.add(e);
  }

  List<Evidence> evidence() {
    return Collections.unmodifiableList(evidence);
  }

  /** How specific the signature is (0..1); 1 until the detector says otherwise. */
  double certainty() {
    return certainty;
  }

  void certainty(double c) {
    certainty = c;
  }

  long events() {
    return events;
  }

  double total() {
    return sum;
  }

  double sd() {
    return events < 2 ? 0 : Math.sqrt(m2 / (events - 1));
  }

  double pValue(double spanNs) {
    if (events < MIN_EVENTS || sum <= MIN_EFFECT * spanNs) {
      return 1;
    }
    double se = Math.sqrt(events) * sd();
    if (se == 0) {
      return 0;
    }
    double t = (sum - MIN_EFFECT * spanNs) / se;
    return 1 - new TDistribution(events - 1).cumulativeProbability(t);
  }

  /** The 95% interval of the effect (share of the span). */
  double[] interval(double spanNs) {
    double half = events < 2 ? 0
        : new TDistribution(events - 1).inverseCumulativeProbability(0.975) * Math.sqrt(events) * sd();
    return new double[] {(sum - half) / spanNs, (sum + half) / spanNs};
  }

  /** How many of the windows hold lost time. */
  int windows() {
    int w = 0;
    for (double x : perChunk) {
      w += x > 0 ? 1 : 0;
    }
    return w;
  }
}
