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
  /**
   * When {@link #plan} last found no plan: the seconds the smallest trial was expected to need, those left, and the
   * smallest trial's pairs.
   */
  private double shortNeeded = Double.NaN;
  private double shortLeft = Double.NaN;
  private int shortPairs;

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
   * The pairs a trial costing {@code extraSeconds} beyond the job can be planned for and still end before the
   * deadline: the gate's full plan ({@link Gate.Options#maxPairs()}) when it fits, else the most that fit down to the
   * gate's floor ({@link Gate.Options#floorPairs()}); 0 when not even the floor fits. A plan of {@code p} pairs runs
   * {@code 2 (p + w)} blocks with {@code w} warm-up blocks per arm, each taking the most seconds per block of the
   * trials so far (a trial's wall time over its blocks, so opening and closing count), else the expected trial time
   * over the blocks of the fixed design's {@link Gate.Options#pairs()}, which the expected trial time is of.
   */
  int plan(List<TrialRecord> trials, double extraSeconds, Gate.Options gate) {
    double perBlock = trials.stream().map(TrialRecord::verdict).filter(v -> v.blocks() > 0)
        .mapToDouble(v -> (double) v.wallNanos() / v.blocks()).max()
        .orElse(expectedTrialNanos / (2.0 * (gate.pairs() + gate.warmupBlocks())));
    long now = ticker.nanos();
    double left = (double) deadline - now;
    long extra = (long) (extraSeconds * 1e9);
    for (int p = gate.maxPairs(); p >= gate.floorPairs(); p--) {
      double needed = 2.0 * (p + gate.warmupBlocks()) * perBlock + extra;
      if (now < deadline && left >= needed) {
        return p;
      }
    }
    shortNeeded = (2.0 * (gate.floorPairs() + gate.warmupBlocks()) * perBlock + extra) / 1e9;
    shortLeft = left / 1e9;
    shortPairs = gate.floorPairs();
    return 0;
  }

  /** Marks that a trial was not started, or was cut, for want of time. */
  void runOut() {
    outOfTime = true;
  }

  boolean outOfTime() {
    return outOfTime;
  }

  /** The seconds the smallest trial was expected to need when the last one did not fit (NaN when every one did). */
  double shortNeeded() {
    return shortNeeded;
  }

  /** The seconds that were left then. */
  double shortLeft() {
    return shortLeft;
  }

  /** The pairs of the smallest trial then. */
  int shortPairs() {
    return shortPairs;
  }
}
