package io.gitm.search;

import io.gitm.job.TrialFailure;
import java.util.Arrays;
import java.util.Objects;

/**
 * What a rollback gate decided about one candidate setup against its anchor, with everything a report needs to
 * show why.
 *
 * @param outcome kept, or why the candidate was rolled back
 * @param detail one line for people: the figures behind the outcome, or the failure's message
 * @param failedArm which arm's failure decided the outcome ({@link Arm#NONE} when both arms were measured)
 * @param anchorSamples the anchor's metric per measured block (warm-up blocks left out), in the order measured
 * @param candidateSamples the candidate's metric per measured block; sample {@code i} of both arms form pair
 *     {@code i}
 * @param anchorMedian median of the anchor's samples (NaN when none were measured)
 * @param candidateMedian median of the candidate's samples (NaN when none were measured)
 * @param ratio candidate median / anchor median, in the metric's own direction
 * @param gain the improvement factor, above 1 when the candidate is better: for a sequential gate the geometric mean
 *     of the pairs' ratios, oriented (inverted when lower is better); for the fixed design {@code ratio} when higher
 *     is better, {@code 1 / ratio} when lower is better
 * @param ciLow lower bound of the confidence interval of {@code gain}: a sequential gate's t-interval of its last
 *     look, the fixed design's seeded paired bootstrap
 * @param ciHigh upper bound of that interval
 * @param pValue the two-sided p-value of the decision's test (NaN when not measured): for a sequential gate the
 *     weighted Bonferroni p-value of its looks' t-tests ({@link Interim}), for the fixed design the Wilcoxon
 *     signed-rank test's of the paired samples; the signed-rank and the unpaired Mann–Whitney U p-values are in
 *     {@code detail}
 * @param outputDifference largest relative difference between the two arms' output values (0 when bit-identical,
 *     NaN when the outputs were not compared)
 * @param blocks blocks run in all, both arms, warm-up blocks included
 * @param wallNanos wall time of the whole trial on the gate's ticker, opening and closing included
 * @param plan the pairs the trial was planned for and the looks it took; null when nothing was planned (a refused
 *     setup) or the verdict was journaled before plans were
 */
public record Verdict(Outcome outcome, String detail, Arm failedArm, double[] anchorSamples,
    double[] candidateSamples, double anchorMedian, double candidateMedian, double ratio, double gain, double ciLow,
    double ciHigh, double pValue, double outputDifference, int blocks, long wallNanos, Plan plan) {

  /** A verdict with no plan. */
  public Verdict(Outcome outcome, String detail, Arm failedArm, double[] anchorSamples, double[] candidateSamples,
      double anchorMedian, double candidateMedian, double ratio, double gain, double ciLow, double ciHigh,
      double pValue, double outputDifference, int blocks, long wallNanos) {
    this(outcome, detail, failedArm, anchorSamples, candidateSamples, anchorMedian, candidateMedian, ratio, gain,
        ciLow, ciHigh, pValue, outputDifference, blocks, wallNanos, null);
  }

  public Verdict {
    if (outcome == null || failedArm == null) {
      throw new IllegalArgumentException("a verdict needs an outcome and a failed arm (NONE when none failed)");
    }
    detail = detail == null ? "" : detail;
    anchorSamples = anchorSamples == null ? new double[0] : anchorSamples.clone();
    candidateSamples = candidateSamples == null ? new double[0] : candidateSamples.clone();
  }

  /** A rollback decided before anything ran: the candidate setup could not be made. */
  static Verdict refused(String detail) {
    return new Verdict(Outcome.SETUP_REFUSED, detail, Arm.CANDIDATE, null, null, Double.NaN, Double.NaN, Double.NaN,
        Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, 0, 0);
  }

  /** Whether the candidate passed: it becomes the new anchor. */
  public boolean kept() {
    return outcome == Outcome.KEPT;
  }

  @Override
  public double[] anchorSamples() {
    return anchorSamples.clone();
  }

  @Override
  public double[] candidateSamples() {
    return candidateSamples.clone();
  }

  /**
   * Whether both arms ran all their blocks, so that the gain and its interval were computed (also when the output
   * then failed the equivalence check).
   */
  public boolean complete() {
    return !Double.isNaN(gain);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Verdict v && v.outcome == outcome && v.detail.equals(detail) && v.failedArm == failedArm
        && Arrays.equals(v.anchorSamples, anchorSamples) && Arrays.equals(v.candidateSamples, candidateSamples)
        && Double.compare(v.anchorMedian, anchorMedian) == 0 && Double.compare(v.candidateMedian, candidateMedian) == 0
        && Double.compare(v.ratio, ratio) == 0 && Double.compare(v.gain, gain) == 0
        && Double.compare(v.ciLow, ciLow) == 0 && Double.compare(v.ciHigh, ciHigh) == 0
        && Double.compare(v.pValue, pValue) == 0 && Double.compare(v.outputDifference, outputDifference) == 0
        && v.blocks == blocks && v.wallNanos == wallNanos && Objects.equals(v.plan, plan);
  }

  @Override
  public int hashCode() {
    return ((outcome.hashCode() * 31 + Arrays.hashCode(anchorSamples)) * 31 + Arrays.hashCode(candidateSamples)) * 31
        + Long.hashCode(wallNanos);
  }

  @Override
  public String toString() {
    return "Verdict[" + outcome + (failedArm == Arm.NONE ? "" : " (" + failedArm.name().toLowerCase() + ")")
        + ", gain " + gain + " [" + ciLow + ", " + ciHigh + "], p " + pValue + ", " + blocks + " blocks: " + detail
        + "]";
  }

  /**
   * What a trial was planned for.
   *
   * @param pairs the pairs it was planned for: the gate's full plan, or fewer to fit the time left
   * @param fullPairs the gate's full plan
   * @param looks the looks the trial took at its pairs (1 for the fixed design)
   */
  public record Plan(int pairs, int fullPairs, int looks) {
    /** Whether the trial was planned smaller than the gate's full plan, so with less power. */
    public boolean reduced() {
      return pairs < fullPairs;
    }
  }

  /** The gate's decision. Every value but {@link #KEPT} is a rollback and names its reason. */
  public enum Outcome {
    /** Significantly better by at least the minimum gain, with equivalent output. */
    KEPT,
    /** Significantly worse: the confidence interval of the gain lies below 1 and the test agrees. */
    SLOWER,
    /** The data do not show a difference (interval reaches 1, or the test's p-value is not below alpha). */
    NOT_SIGNIFICANT,
    /** Significantly better, but by less than the minimum gain worth a change. */
    BELOW_MIN_GAIN,
    /** The output differs from the anchor's beyond what the lever's safety class allows. */
    OUTPUT_CHANGED,
    CRASH,
    HANG,
    OUT_OF_MEMORY,
    /** The candidate's output holds NaN or infinite values where the anchor's does not. */
    NAN_OUTPUT,
    DEVICE_ERROR,
    SETUP_REFUSED,
    /** The trial was cut at its deadline before it had all its blocks. */
    OUT_OF_BUDGET,
    /**
     * The trial was cut by a request to stop (Ctrl-C): it measured nothing, is not journaled, and a resumed run tries
     * it again.
     */
    INTERRUPTED;

    /** Whether this is a failure of the setup (it did not run properly or changed the output), not a measurement. */
    public boolean failure() {
      return switch (this) {
        case OUTPUT_CHANGED, CRASH, HANG, OUT_OF_MEMORY, NAN_OUTPUT, DEVICE_ERROR, SETUP_REFUSED -> true;
        case KEPT, SLOWER, NOT_SIGNIFICANT, BELOW_MIN_GAIN, OUT_OF_BUDGET, INTERRUPTED -> false;
      };
    }

    /** Whether the measurement neither showed a worthwhile gain nor ruled one out. */
    public boolean inconclusive() {
      return this == NOT_SIGNIFICANT || this == BELOW_MIN_GAIN;
    }

    static Outcome of(TrialFailure.Kind kind) {
      return switch (kind) {
        case CRASH -> CRASH;
        case HANG -> HANG;
        case OUT_OF_MEMORY -> OUT_OF_MEMORY;
        case DEVICE_ERROR -> DEVICE_ERROR;
        case NAN_OUTPUT -> NAN_OUTPUT;
        case SETUP_REFUSED -> SETUP_REFUSED;
      };
    }
  }

  /** One side of a trial. */
  public enum Arm {
    /** Neither arm failed. */
    NONE,
    ANCHOR,
    CANDIDATE
  }
}
