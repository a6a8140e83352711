package io.gitm.search;

import io.gitm.api.Ticker;
import io.gitm.job.Job;
import io.gitm.job.TrialFailure;
import io.gitm.job.Watchdog;
import io.gitm.levers.SafetyClass;
import io.gitm.levers.Setup;
import io.gitm.search.Verdict.Arm;
import io.gitm.search.Verdict.Outcome;
import io.gitm.stats.Bootstrap;
import io.gitm.stats.Interval;
import io.gitm.stats.RankTests;
import io.gitm.stats.Sample;
import io.gitm.stats.Sequential;
import io.gitm.stats.Sequential.Look;
import io.gitm.workload.OutputDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.Callable;

/**
 * The rollback gate: measures a candidate setup against its anchor on the live job and keeps the candidate only when
 * it is significantly better by a worthwhile margin and its output is equivalent.
 *
 * <p>Both setups are opened side by side and measured in interleaved blocks, counterbalanced pair by pair
 * (anchor-candidate, candidate-anchor, …, or in a seeded random order balanced within every two pairs where the job
 * asks for it: {@link Job#randomizedOrder()}) so that a drift of the machine over the trial weighs on both arms alike;
 * each arm first runs its warm-up blocks, which are discarded. Two setups that cannot be open at once (one needs the
 * device context opened differently: {@link Job#sideBySide}) are measured one session at a time instead, in
 * the order anchor, candidate, candidate, anchor, … with the pairs split over the sessions, each session opened,
 * warmed up and closed; a sequential gate looks after each session of both arms.
 *
 * <p>Block i of both arms runs the same input, so the arms are paired. The gain is oriented so that above 1 is
 * better, with a confidence interval at the options' confidence. The candidate is kept when the test below shows a
 * gain, the interval's lower bound is above 1 and the gain is at least 1 + the minimum gain, and its output is
 * equivalent to the anchor's after the same number of blocks: bit-identical for safety classes A and C, within the
 * tolerance for class B (where a job gives no values, bit-identical); values that are NaN or infinite in the
 * candidate's output but not in the anchor's are {@link Outcome#NAN_OUTPUT} in every class. The outputs are
 * compared when the trial stops, whatever the test decided.
 *
 * <p>The test is group-sequential ({@link Sequence}, the default): a trial is planned for at most {@link
 * Options#maxPairs()} pairs, the fixed design's {@link Options#pairs()} times the design's inflation (fewer when the
 * caller plans it smaller to fit its time), and looks at the pairs so far every {@link Sequence#lookEvery()} pairs and
 * after the last; {@link Interim} defines the looks. Each look is a t-test of the pairs' log-ratios ({@link
 * Sequential#look}) that may spend its share of alpha, the increment of the spending function {@code t^rho} of the
 * information fraction {@code t} (pairs so far over pairs planned); the trial stops at the first look that shows a gain
 * or a loss at its share, or whose upper confidence bound rules out the minimum gain (futility, with a beta spent
 * linearly). By Boole's inequality the chance of keeping a candidate that does not gain is at most alpha / 2, as for
 * the fixed design's two-sided test, whatever the dependence between the looks; {@code GateSequentialTest} shows by
 * simulation that the error rates hold and that a ×2 gain or a ×0.5 loss is decided in at most a third of the fixed
 * design's pairs. The gain is the geometric mean of the pairs' ratios, with the t-interval of the last look.
 *
 * <p>The fixed design ({@link Sequence#FIXED}) looks once, after all pairs: a two-sided Wilcoxon signed-rank test of
 * the pairs below alpha ({@link RankTests}; the unpaired Mann–Whitney U test is computed too and shown in the
 * verdict's detail). Its gain is the ratio of the two arms' medians, with a percentile interval from a paired
 * bootstrap (pairs resampled together, seeded from the options' seed and the samples, so a verdict is
 * reproducible). {@link Sample} and {@link Bootstrap} define them.
 *
 * <p>Every call into the job runs under a {@link Watchdog}: a block that does not return within the block timeout
 * is a {@link Outcome#HANG}, and anything the job throws becomes a rollback. Runs are always closed, on a best-effort
 * basis after a hang.
 */
public final class Gate {
  /** The gain is a ratio. */
  private static final String GAIN_UNIT = "×";

  private final Ticker ticker;
  private final Options options;
  /** Trials judged so far: each randomized order is seeded from the options' seed and this count. */
  private long trials;

  public Gate(Ticker ticker, Options options) {
    if (ticker == null || options == null) {
      throw new IllegalArgumentException("a gate needs a ticker and options");
    }
    this.ticker = ticker;
    this.options = options;
  }

  public Options options() {
    return options;
  }

  /** {@link #judge(Job, Setup, Setup, SafetyClass, double, long, int)} with no deadline and the full plan. */
  public Verdict judge(Job job, Setup anchor, Setup candidate, SafetyClass safety, double tolerance) {
    return judge(job, anchor, candidate, safety, tolerance, Long.MAX_VALUE);
  }

  /**
   * Measures {@code candidate} against {@code anchor} on {@code job}.
   *
   * @param safety the safety class of the lever(s) that made the candidate: how its output is compared
   * @param tolerance largest relative difference of output values allowed under class B
   * @param deadlineNanos a reading of the gate's ticker after which no block starts (a block is not started when
   *     the slowest block so far would end past it); the trial is then {@link Outcome#OUT_OF_BUDGET}
   * @return the verdict; never throws for anything the job does
   */
  public Verdict judge(Job job, Setup anchor, Setup candidate, SafetyClass safety, double tolerance,
      long deadlineNanos) {
    return judge(job, anchor, candidate, safety, tolerance, deadlineNanos, options.maxPairs());
  }

  /**
   * {@link #judge(Job, Setup, Setup, SafetyClass, double, long)} planned for {@code pairs} pairs instead of the
   * options' full plan: a trial planned smaller to fit the time left, with less power, which its verdict says.
   *
   * @param pairs the planned pairs, from {@link Options#floorPairs()} to {@link Options#maxPairs()}
   */
  public Verdict judge(Job job, Setup anchor, Setup candidate, SafetyClass safety, double tolerance,
      long deadlineNanos, int pairs) {
    if (pairs < options.floorPairs() || pairs > options.maxPairs()) {
      throw new IllegalArgumentException("a gate of these options plans " + options.floorPairs() + " to "
          + options.maxPairs() + " pairs, got " + pairs);
    }
    if (job == null || anchor == null || candidate == null || safety == null) {
      throw new IllegalArgumentException("a gate needs a job, an anchor, a candidate and a safety class");
    }
    if (!(tolerance >= 0) || Double.isInfinite(tolerance)) {
      throw new IllegalArgumentException("output tolerance must be a finite number >= 0, got " + tolerance);
    }
    // a job whose own runs disagree cannot show a bit-identical output: it is compared within its tolerance
    SafetyClass compared = safety != SafetyClass.B && !job.reproducibleOutput() ? SafetyClass.B : safety;
    try (Trial trial = new Trial(job, deadlineNanos, pairs)) {
      if (compared != safety) {
        trial.equivalenceNote = "; outputs compared within the tolerance " + tolerance + ", not bit for bit: the"
            + " job's own output differs from run to run as shipped";
      }
      try {
        return job.sideBySide(anchor, candidate)
            ? trial.sideBySide(anchor, candidate, compared, tolerance)
            : trial.oneAtATime(anchor, candidate, compared, tolerance);
      } catch (Stop stop) {
        return trial.verdict(stop.outcome, stop.arm, stop.getMessage(), Double.NaN);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return trial.verdict(Outcome.INTERRUPTED, Arm.NONE, "stopped by request", Double.NaN);
      }
    }
  }

  /** One gate trial in progress: the watchdog, the samples so far, the looks taken, the time spent. */
  private final class Trial implements AutoCloseable {
    /** How the outputs were compared, when not as the lever's safety class says; empty otherwise. */
    private String equivalenceNote = "";
    private final Job job;
    private final long deadline;
    private final long start;
    private final int planned;
    private final Watchdog watchdog;
    /** The coin of a randomized pair order; null for alternation. */
    private final java.util.SplittableRandom order;
    private boolean evenFirst;
    /** The sequential test's looks; null for the fixed design. */
    private final Interim interim;
    /** What a look stopped the trial with; null while none did. */
    private Outcome decided;
    private final List<Double> anchorSamples = new ArrayList<>();
    private final List<Double> candidateSamples = new ArrayList<>();
    private int blocks;
    private long slowestBlock;
    private Stats stats;

    Trial(Job job, long deadline, int planned) {
      this.job = job;
      this.order = job.randomizedOrder() ? new java.util.SplittableRandom(options.seed() + 31L * trials++) : null;
      this.deadline = deadline;
      this.start = ticker.nanos();
      this.planned = planned;
      this.watchdog = new Watchdog(options.blockTimeout());
      this.interim = options.sequence().fixed() ? null : new Interim(options, planned, job.higherIsBetter());
    }

    /**
     * Whether pair {@code i} runs the anchor first: alternating (anchor first in even pairs), or, for a job that asks
     * for a randomized order, a seeded coin per two pairs that decides which of them runs the anchor first, so that
     * every two pairs stay balanced (as Coz randomizes its experiments) while no fixed rhythm can line up with a
     * periodic phase of the job.
     */
    private boolean anchorFirst(int i) {
      if (order == null) {
        return i % 2 == 0;
      }
      if (i % 2 == 0) {
        evenFirst = order.nextBoolean();
      }
      return (i % 2 == 0) == evenFirst;
    }

    /** Takes a look when the design has one after the pairs so far; whether it stopped the trial. */
    private boolean look(boolean sessionEnd) {
      int k = anchorSamples.size();
      // a session of one pair (a small plan split over sessions) gives no test yet: the first look waits for two
      if (interim == null || decided != null || k < 2 || !(sessionEnd || interim.looksAt(k))) {
        return decided != null;
      }
      Stats s = Stats.sequential(anchorSamples, candidateSamples, options, job.higherIsBetter());
      decided = interim.look(unbox(anchorSamples), unbox(candidateSamples), s.gain,
          s.gain.estimate() >= 1 + options.minGain());
      return decided != null;
    }

    Verdict sideBySide(Setup anchor, Setup candidate, SafetyClass safety, double tolerance)
        throws Stop, InterruptedException {
      Job.Run a = null;
      Job.Run c = null;
      try {
        a = open(anchor, Arm.ANCHOR);
        c = open(candidate, Arm.CANDIDATE);
        for (int w = 0; w < options.warmupBlocks(); w++) {
          block(a, Arm.ANCHOR, "warm-up block " + (w + 1));
          block(c, Arm.CANDIDATE, "warm-up block " + (w + 1));
        }
        for (int i = 0; i < planned; i++) {
          String label = "block " + (i + 1);
          if (anchorFirst(i)) {
            anchorSamples.add(block(a, Arm.ANCHOR, label));
            candidateSamples.add(block(c, Arm.CANDIDATE, label));
          } else {
            candidateSamples.add(block(c, Arm.CANDIDATE, label));
            anchorSamples.add(block(a, Arm.ANCHOR, label));
          }
          if (look(false)) {
            break;
          }
        }
        OutputDigest da = output(a, Arm.ANCHOR);
        OutputDigest dc = output(c, Arm.CANDIDATE);
        return decide(List.of(da), List.of(dc), safety, tolerance);
      } finally {
        watchdog.closeQuietly(c);
        watchdog.closeQuietly(a);
      }
    }

    Verdict oneAtATime(Setup anchor, Setup candidate, SafetyClass safety, double tolerance)
        throws Stop, InterruptedException {
      int sessions = sessions();
      List<OutputDigest> anchorOutputs = new ArrayList<>();
      List<OutputDigest> candidateOutputs = new ArrayList<>();
      for (int k = 0; k < sessions && decided == null; k++) {
        int size = planned / sessions + (k < planned % sessions ? 1 : 0);
        boolean anchorFirst = k % 2 == 0;
        for (int side = 0; side < 2; side++) {
          boolean isAnchor = (side == 0) == anchorFirst;
          OutputDigest d = session(isAnchor ? anchor : candidate, isAnchor ? Arm.ANCHOR : Arm.CANDIDATE, size,
              isAnchor ? anchorSamples : candidateSamples, k);
          (isAnchor ? anchorOutputs : candidateOutputs).add(d);
        }
        look(true);
      }
      return decide(anchorOutputs, candidateOutputs, safety, tolerance);
    }

    /**
     * Sessions per arm of a trial measured one at a time: the options' exclusive sessions; for a sequential gate whose
     * sessions run no warm-up block (a process job, each block a fresh process), so that a session costs no more than
     * opening it, at least one per look, so that every look can stop the trial.
     */
    private int sessions() {
      int sessions = Math.min(options.exclusiveSessions(), planned);
      if (interim == null || options.warmupBlocks() > 0) {
        return sessions;
      }
      int every = options.sequence().lookEvery();
      return Math.max(sessions, (planned + every - 1) / every);
    }

    private OutputDigest session(Setup setup, Arm arm, int size, List<Double> samples, int k)
        throws Stop, InterruptedException {
      Job.Run run = null;
      try {
        run = open(setup, arm);
        for (int w = 0; w < options.warmupBlocks(); w++) {
          block(run, arm, "warm-up block " + (w + 1) + " of session " + (k + 1));
        }
        for (int i = 0; i < size; i++) {
          samples.add(block(run, arm, "block " + (samples.size() + 1)));
        }
        return output(run, arm);
      } finally {
        watchdog.closeQuietly(run);
      }
    }

    private Job.Run open(Setup setup, Arm arm) throws Stop, InterruptedException {
      String what = "opening the " + name(arm);
      checkDeadline(what);
      Job.Run run = call(arm, what, () -> job.open(setup));
      if (run == null) {
        throw new Stop(Outcome.CRASH, arm, what + " returned no run");
      }
      return run;
    }

    private double block(Job.Run run, Arm arm, String label) throws Stop, InterruptedException {
      String what = label + " of the " + name(arm);
      long begin = checkDeadline(what);
      double value = call(arm, what, run::block);
      blocks++;
      slowestBlock = Math.max(slowestBlock, ticker.nanos() - begin);
      if (!(value > 0) || Double.isInfinite(value)) {
        throw new Stop(Outcome.CRASH, arm, what + " reported a metric of " + value
            + "; a metric must be a positive finite number");
      }
      return value;
    }

    private OutputDigest output(Job.Run run, Arm arm) throws Stop, InterruptedException {
      String what = "the output of the " + name(arm);
      OutputDigest d = call(arm, what, run::output);
      if (d == null || d.sha256() == null) {
        throw new Stop(Outcome.CRASH, arm, what + " is missing (no digest)");
      }
      return d;
    }

    private long checkDeadline(String what) throws Stop {
      long now = ticker.nanos();
      if (deadline != Long.MAX_VALUE && (now >= deadline || deadline - now < slowestBlock)) {
        throw new Stop(Outcome.OUT_OF_BUDGET, Arm.NONE,
            "the deadline left no time for " + what + " after " + blocks + " blocks");
      }
      return now;
    }

    private <T> T call(Arm arm, String what, Callable<T> body)
        throws Stop, InterruptedException {
      try {
        return watchdog.call(what, body);
      } catch (TrialFailure f) {
        throw new Stop(Outcome.of(f.kind()), arm, f.getMessage() == null ? f.kind().name() : f.getMessage());
      }
    }

    private Verdict decide(List<OutputDigest> anchorOutputs, List<OutputDigest> candidateOutputs, SafetyClass safety,
        double tolerance) {
      stats = interim == null ? Stats.of(anchorSamples, candidateSamples, options, job.higherIsBetter())
          : Stats.sequential(anchorSamples, candidateSamples, options, job.higherIsBetter());
      double worst = 0;
      for (int k = 0; k < anchorOutputs.size(); k++) {
        Equivalence e = Equivalence.of(anchorOutputs.get(k), candidateOutputs.get(k), safety, tolerance);
        if (e.outcome() != null) {
          return verdict(e.outcome(), Arm.CANDIDATE, e.detail() + equivalenceNote + "; measured " + stats.describe(),
              e.difference());
        }
        worst = Math.max(worst, e.difference());
      }
      Outcome outcome = interim == null ? stats.outcome(options)
          : decided == null ? Outcome.NOT_SIGNIFICANT : decided;
      String why = switch (outcome) {
        case KEPT -> "better: ";
        case SLOWER -> "significantly worse: ";
        case NOT_SIGNIFICANT -> "no significant difference: ";
        case BELOW_MIN_GAIN -> "better by less than the minimum gain of "
            + String.format(Locale.ROOT, "%.1f%%", 100 * options.minGain()) + ": ";
        default -> throw new IllegalStateException("not a measured outcome: " + outcome);
      };
      return verdict(outcome, Arm.NONE, why + stats.describe() + sequential() + equivalenceNote, worst);
    }

    /** What the sequential test did, and what a plan smaller than the full one costs; empty for the fixed design. */
    private String sequential() {
      if (interim == null) {
        return "";
      }
      String s = "; sequential: " + interim.why() + String.format(Locale.ROOT, ", adjusted p %.3g",
          interim.adjustedP());
      if (planned < options.maxPairs()) {
        double at = interim.detectable(planned);
        double full = interim.detectable(options.maxPairs());
        s += "; planned " + planned + " of " + options.maxPairs() + " pairs for the time left, so less power"
            + (Double.isNaN(at) ? "" : String.format(Locale.ROOT, ": 80%% power only at a gain of about ×%.3f"
            + " (×%.3f with all %d)", at, full, options.maxPairs()));
      }
      return s;
    }

    Verdict verdict(Outcome outcome, Arm arm, String detail, double difference) {
      double[] a = unbox(anchorSamples);
      double[] c = unbox(candidateSamples);
      Stats s = stats == null ? Stats.none(a, c) : stats;
      double p = interim == null || stats == null ? s.pValue : interim.adjustedP();
      return new Verdict(outcome, detail, arm, a, c, s.anchorMedian, s.candidateMedian, s.ratio, s.gain.estimate(),
          s.gain.low(), s.gain.high(), p, difference, blocks, ticker.nanos() - start,
          new Verdict.Plan(planned, options.maxPairs(), interim == null ? 1 : Math.max(1, interim.looks())));
    }

    @Override
    public void close() {
      watchdog.close();
    }
  }

  private static String name(Arm arm) {
    return arm == Arm.ANCHOR ? "anchor" : "candidate";
  }

  private static double[] unbox(List<Double> values) {
    return values.stream().mapToDouble(Double::doubleValue).toArray();
  }

  /** Ends a trial early with an outcome; carries no stack trace. */
  private static final class Stop extends Exception {
    final Outcome outcome;
    final Arm arm;

    Stop(Outcome outcome, Arm arm, String detail) {
      super(detail, null, false, false);
      this.outcome = outcome;
      this.arm = arm;
    }
  }

  /**
   * The comparison of two outputs after the same number of blocks.
   *
   * @param outcome null when equivalent, else why not
   */
  private record Equivalence(Outcome outcome, double difference, String detail) {
    static Equivalence of(OutputDigest anchor, OutputDigest candidate, SafetyClass safety, double tolerance) {
      double[] a = anchor.values();
      double[] c = candidate.values();
      double difference = anchor.maxRelativeDifference(candidate);
      if (newNonFinite(a, c)) {
        return new Equivalence(Outcome.NAN_OUTPUT, difference,
            "the candidate's output holds NaN or infinite values the anchor's does not");
      }
      if (safety == SafetyClass.B && (anchor.fixedSha256() != null || candidate.fixedSha256() != null)
          && !Objects.equals(anchor.fixedSha256(), candidate.fixedSha256())) {
        return new Equivalence(Outcome.OUTPUT_CHANGED, difference,
            "the output's non-numeric part differs (shape, dtype, layout or text; fixed sha256 "
                + abbreviate(String.valueOf(anchor.fixedSha256())) + " vs "
                + abbreviate(String.valueOf(candidate.fixedSha256())) + ")");
      }
      if (safety == SafetyClass.B && (a.length > 0 || c.length > 0)) {
        if (difference > tolerance) {
          return new Equivalence(Outcome.OUTPUT_CHANGED, difference,
              String.format(Locale.ROOT, "output differs by %.3g (relative), beyond the tolerance %.3g", difference,
                  tolerance));
        }
        return new Equivalence(null, difference, "");
      }
      if (!anchor.sha256().equals(candidate.sha256())) {
        return new Equivalence(Outcome.OUTPUT_CHANGED, difference, "output is not bit-identical (sha256 "
            + abbreviate(anchor.sha256()) + " vs " + abbreviate(candidate.sha256()) + ") under safety class " + safety);
      }
      return new Equivalence(null, 0, "");
    }

    private static boolean newNonFinite(double[] a, double[] c) {
      if (a.length == c.length) {
        for (int i = 0; i < c.length; i++) {
          if (!Double.isFinite(c[i]) && Double.isFinite(a[i])) {
            return true;
          }
        }
        return false;
      }
      return Arrays.stream(c).anyMatch(v -> !Double.isFinite(v)) && Arrays.stream(a).allMatch(Double::isFinite);
    }

    private static String abbreviate(String sha) {
      return sha.length() > 12 ? sha.substring(0, 12) : sha;
    }
  }

  /**
   * The two arms' statistics: medians, the gain with its interval (the fixed design's bootstrap interval of the ratio
   * of medians, or a sequential gate's t-interval of the geometric mean of the pairs' ratios), the rank tests.
   */
  private record Stats(double anchorMedian, double candidateMedian, double ratio, Interval gain, double pValue,
      double mannWhitneyP, int pairs) {

    static Stats none(double[] a, double[] c) {
      return new Stats(Sample.median(a), Sample.median(c), Double.NaN, Interval.none(GAIN_UNIT), Double.NaN,
          Double.NaN, 0);
    }

    static Stats of(List<Double> anchor, List<Double> candidate, Options options, boolean higherIsBetter) {
      double[] a = unbox(anchor);
      double[] c = unbox(candidate);
      double ma = Sample.median(a);
      double mc = Sample.median(c);
      Interval gain = Bootstrap.paired(a, c, (x, y) -> {
        double r = Sample.median(y) / Sample.median(x);
        return higherIsBetter ? r : 1 / r;
      }, options.resamples(), options.confidence(), options.seed(), GAIN_UNIT);
      // block i of both arms ran the same input batches, so the arms are paired: the decision is the paired rank
      // test (Wilcoxon signed-rank, exact for up to 30 pairs); the unpaired Mann–Whitney U, which the input's
      // batch-to-batch variation drowns, is reported beside it
      return new Stats(ma, mc, mc / ma, gain, RankTests.signedRankP(a, c), RankTests.mannWhitneyP(a, c), a.length);
    }

    /**
     * A sequential gate's statistics: the gain is the geometric mean of the pairs' ratios, {@code exp} of the mean
     * log-ratio, with the t-interval of the look ({@link Sequential#look}) at the options' confidence.
     */
    static Stats sequential(List<Double> anchor, List<Double> candidate, Options options, boolean higherIsBetter) {
      double[] a = unbox(anchor);
      double[] c = unbox(candidate);
      Look l = Sequential.look(a, c, a.length, higherIsBetter);
      double half = l.standardError() == 0 ? 0
          : Sequential.quantile(1 - (1 - options.confidence()) / 2, l.df()) * l.standardError();
      Interval gain = new Interval(Math.exp(l.estimate()), Math.exp(l.estimate() - half),
          Math.exp(l.estimate() + half), options.confidence(), GAIN_UNIT);
      double ma = Sample.median(a);
      double mc = Sample.median(c);
      return new Stats(ma, mc, mc / ma, gain, RankTests.signedRankP(a, c), RankTests.mannWhitneyP(a, c), a.length);
    }

    Outcome outcome(Options options) {
      boolean significant = pValue < options.alpha();
      if (significant && gain.below(1)) {
        return Outcome.SLOWER;
      }
      if (!significant || !gain.above(1)) {
        return Outcome.NOT_SIGNIFICANT;
      }
      return gain.estimate() < 1 + options.minGain() ? Outcome.BELOW_MIN_GAIN : Outcome.KEPT;
    }

    String describe() {
      return String.format(Locale.ROOT, "gain %.4f (%.0f%% CI %.4f–%.4f), signed-rank p %.3g (Mann–Whitney p %.3g),"
          + " %d pairs", gain.estimate(), 100 * gain.confidence(), gain.low(), gain.high(), pValue, mannWhitneyP,
          pairs);
    }
  }

  /**
   * How a gate looks at its pairs on the way.
   *
   * @param lookEvery pairs between two looks of a side-by-side trial (a trial measured one session at a time looks
   *     after each session of both arms); 0 for the fixed design: one look after all pairs, decided by the
   *     signed-rank test and the bootstrap interval
   * @param spendingPower {@code rho} of the spending function {@code t^rho} that shares alpha out over the looks
   * @param futility the most chance that a candidate whose true gain is the minimum gain is stopped for futility
   *     (0: never stopped for futility)
   * @param inflation the most pairs a trial plans, as a multiple of the fixed design's ({@link Options#pairs()},
   *     rounded up): the spending leaves the last look less than all of alpha, and the extra pairs give back the
   *     fixed design's power at a modest gain (1 for the fixed design)
   */
  public record Sequence(int lookEvery, double spendingPower, double futility, double inflation) {
    /** The fixed design: no look before the last pair. */
    public static final Sequence FIXED = new Sequence(0, 1, 0, 1);

    public Sequence {
      if (lookEvery < 0) {
        throw new IllegalArgumentException("pairs between looks must be >= 0 (0: the fixed design), got "
            + lookEvery);
      }
      if (!(spendingPower > 0) || Double.isInfinite(spendingPower)) {
        throw new IllegalArgumentException("the spending power must be a finite number > 0, got " + spendingPower);
      }
      if (!(futility >= 0 && futility < 1)) {
        throw new IllegalArgumentException("the futility rate must be in [0, 1), got " + futility);
      }
      if (!(inflation >= 1 && inflation <= 4)) {
        throw new IllegalArgumentException("the inflation must be in [1, 4], got " + inflation);
      }
    }

    /**
     * A look every 2 pairs (an anchor-first and a candidate-first pair), {@code t^1.5} spending, futility 0.2, up to
     * 1.25 times the fixed design's pairs.
     */
    public static Sequence defaults() {
      return new Sequence(2, 1.5, 0.2, 1.25);
    }

    public boolean fixed() {
      return lookEvery == 0;
    }
  }

  /**
   * How a gate measures and decides.
   *
   * @param pairs measured blocks per arm of the fixed design; a sequential gate plans up to {@link #maxPairs()};
   *     block {@code i} of both arms form a pair
   * @param warmupBlocks blocks each arm runs first (each session, when measured one at a time), then discards
   * @param exclusiveSessions sessions per arm when the two setups cannot be open at once
   * @param alpha the two-sided significance level of the decision's test
   * @param confidence the gain interval's confidence level
   * @param minGain the smallest improvement worth keeping, as a fraction (0.02 = 2%)
   * @param resamples bootstrap resamples (the fixed design's)
   * @param blockTimeout the watchdog's deadline for each call into the job (opening, a block, the output, closing)
   * @param seed the bootstrap's seed
   * @param sequence how the gate looks at its pairs on the way ({@link Sequence#FIXED}: only at the end)
   */
  public record Options(int pairs, int warmupBlocks, int exclusiveSessions, double alpha, double confidence,
      double minGain, int resamples, Duration blockTimeout, long seed, Sequence sequence) {
    public Options {
      if (sequence == null) {
        throw new IllegalArgumentException("gate options need a sequence (Sequence.FIXED for the fixed design)");
      }
      if (pairs < 1 || pairs > 10_000) {
        throw new IllegalArgumentException("pairs must be 1..10000, got " + pairs);
      }
      if (!(alpha > 0 && alpha < 1)) {
        throw new IllegalArgumentException("alpha must be in (0, 1), got " + alpha);
      }
      if (pairs < floorPairs(alpha, sequence)) {
        throw new IllegalArgumentException(sequence.fixed() ? "with " + pairs + " pairs the signed-rank test cannot"
            + " reach p < " + alpha + " (its smallest p is " + String.format(Locale.ROOT, "%.3g",
            2 / Math.pow(2, pairs)) + "); use more pairs" : "a sequential gate needs 2 pairs or more, got " + pairs);
      }
      if (warmupBlocks < 0 || warmupBlocks > 1000) {
        throw new IllegalArgumentException("warm-up blocks must be 0..1000, got " + warmupBlocks);
      }
      if (exclusiveSessions < 1) {
        throw new IllegalArgumentException("exclusive sessions must be >= 1, got " + exclusiveSessions);
      }
      if (!(confidence > 0.5 && confidence < 1)) {
        throw new IllegalArgumentException("confidence must be in (0.5, 1), got " + confidence);
      }
      if (!(minGain >= 0) || Double.isInfinite(minGain)) {
        throw new IllegalArgumentException("minimum gain must be a finite fraction >= 0, got " + minGain);
      }
      if (resamples < 100 || resamples > 1_000_000) {
        throw new IllegalArgumentException("bootstrap resamples must be 100..1000000, got " + resamples);
      }
      if (blockTimeout == null || blockTimeout.isNegative() || blockTimeout.isZero()) {
        throw new IllegalArgumentException("block timeout must be positive, got " + blockTimeout);
      }
    }

    /**
     * Sequential, 8 pairs (at most 10 with the default inflation), 1 warm-up block, 2 sessions per arm when
     * exclusive, alpha 0.05, 95% interval, 2% minimum gain, 2000 resamples, 2 minutes per block.
     */
    public static Options defaults() {
      return new Options(8, 1, 2, 0.05, 0.95, 0.02, 2000, Duration.ofMinutes(2), 0x5eed_9a7eL,
          Sequence.defaults());
    }

    /** The most pairs a trial plans: {@link #pairs()} times the sequence's inflation, rounded up. */
    public int maxPairs() {
      return (int) Math.ceil(pairs * sequence.inflation() - 1e-9);
    }

    /**
     * The fewest pairs a trial can be planned for and still reach significance: for the fixed design, the fewest
     * whose smallest signed-rank p is below alpha; for a sequential one, 2 (a look's t-test can reach any p).
     */
    public int floorPairs() {
      return floorPairs(alpha, sequence);
    }

    private static int floorPairs(double alpha, Sequence sequence) {
      if (!sequence.fixed()) {
        return 2;
      }
      int n = 1;
      while (!(2 / Math.pow(2, n) < alpha)) {
        n++;
      }
      return n;
    }

    public Options withPairs(int n) {
      return new Options(n, warmupBlocks, exclusiveSessions, alpha, confidence, minGain, resamples, blockTimeout,
          seed, sequence);
    }

    public Options withWarmupBlocks(int n) {
      return new Options(pairs, n, exclusiveSessions, alpha, confidence, minGain, resamples, blockTimeout, seed,
          sequence);
    }

    public Options withExclusiveSessions(int n) {
      return new Options(pairs, warmupBlocks, n, alpha, confidence, minGain, resamples, blockTimeout, seed,
          sequence);
    }

    public Options withAlpha(double a) {
      return new Options(pairs, warmupBlocks, exclusiveSessions, a, confidence, minGain, resamples, blockTimeout,
          seed, sequence);
    }

    public Options withMinGain(double g) {
      return new Options(pairs, warmupBlocks, exclusiveSessions, alpha, confidence, g, resamples, blockTimeout,
          seed, sequence);
    }

    public Options withResamples(int n) {
      return new Options(pairs, warmupBlocks, exclusiveSessions, alpha, confidence, minGain, n, blockTimeout, seed,
          sequence);
    }

    public Options withBlockTimeout(Duration d) {
      return new Options(pairs, warmupBlocks, exclusiveSessions, alpha, confidence, minGain, resamples, d, seed,
          sequence);
    }

    public Options withSeed(long s) {
      return new Options(pairs, warmupBlocks, exclusiveSessions, alpha, confidence, minGain, resamples, blockTimeout,
          s, sequence);
    }

    public Options withSequence(Sequence q) {
      return new Options(pairs, warmupBlocks, exclusiveSessions, alpha, confidence, minGain, resamples, blockTimeout,
          seed, q);
    }

    /** The fixed design of {@code n} pairs: one look, after all of them. */
    public Options fixed(int n) {
      return new Options(n, warmupBlocks, exclusiveSessions, alpha, confidence, minGain, resamples, blockTimeout,
          seed, Sequence.FIXED);
    }
  }
}
