package io.gitm.search;

import io.gitm.api.Ticker;
import io.gitm.levers.SafetyClass;
import java.time.Duration;
import java.util.List;

/**
 * What a search may spend: the time left before its deadline, going by how long its trials took, and the class-B
 * output tolerance its kept levers have not used. Each kept class-B trial spends its measured output difference, so
 * that the final output stays within tolerance of the original's, not only of the previous anchor's.
 */
final class Allowance {
  private final Ticker ticker;
  private final long deadline;
  private final long expectedTrialNanos;
  private final double tolerance;
  private double toleranceLeft;
  private boolean outOfTime;
  /** When {@link #fits} last said no: the seconds the trial was expected to need, and those left. */
  private double shortNeeded = Double.NaN;
  private double shortLeft = Double.NaN;

  /**
   * @param deadline a reading of {@code ticker} by which the search must be over
   * @param expectedTrial how long a trial takes before any was measured
   * @param tolerance the output tolerance of the job (its workload's, else the agent's option)
   */
  Allowance(Ticker ticker, long deadline, Duration expectedTrial, double tolerance) {
    if (!(tolerance >= 0) || Double.isInfinite(tolerance)) {
      throw new IllegalArgumentException("the workload's output tolerance must be a finite number >= 0, got "
          + tolerance);
    }
    this.ticker = ticker;
    this.deadline = deadline;
    this.expectedTrialNanos = expectedTrial.toNanos();
    this.tolerance = tolerance;
    this.toleranceLeft = tolerance;
  }

  long deadline() {
    return deadline;
  }

  /** The whole tolerance: what the final setup may differ from the original by. */
  double tolerance() {
    return tolerance;
  }

  /** What a trial of {@code safety} may change the output by on top of the anchor: 0 unless class B. */
  double toleranceFor(SafetyClass safety) {
    return safety == SafetyClass.B ? toleranceLeft : 0;
  }

  /** Spends what a kept trial of {@code safety} changed the output by. */
  void spend(SafetyClass safety, Verdict v) {
    if (safety == SafetyClass.B && v.outputDifference() > 0) {
      toleranceLeft = Math.max(0, toleranceLeft - v.outputDifference());
    }
  }

  /**
   * Whether a trial costing {@code extraSeconds} beyond the job can end before the deadline, going by the longest
   * complete trial so far (else the longest, else the expected trial time).
   */
  boolean fits(List<TrialRecord> trials, double extraSeconds) {
    long longest = trials.stream().map(TrialRecord::verdict).filter(Verdict::complete)
        .mapToLong(Verdict::wallNanos).max()
        .orElse(trials.stream().mapToLong(t -> t.verdict().wallNanos()).max().orElse(expectedTrialNanos));
    long needed = saturatedAdd(longest, (long) (extraSeconds * 1e9));
    long now = ticker.nanos();
    boolean fits = now < deadline && deadline - now >= needed;
    if (!fits) {
      shortNeeded = needed / 1e9;
      shortLeft = (deadline - now) / 1e9;
    }
    return fits;
  }

  /** Marks that a trial was not started, or was cut, for want of time. */
  void runOut() {
    outOfTime = true;
  }

  boolean outOfTime() {
    return outOfTime;
  }

  /** The seconds the last trial that did not fit was expected to need (NaN when every one fitted). */
  double shortNeeded() {
    return shortNeeded;
  }

  /** The seconds that were left then. */
  double shortLeft() {
    return shortLeft;
  }

  private static long saturatedAdd(long a, long b) {
    long r = a + b;
    return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
  }
}
