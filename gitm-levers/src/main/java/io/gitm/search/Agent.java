package io.gitm.search;

import io.gitm.api.Ticker;
import io.gitm.job.Job;
import io.gitm.levers.Lever;
import io.gitm.levers.LeverContext;
import io.gitm.levers.Setup;
import io.gitm.rank.Candidate;
import io.gitm.search.TrialRecord.Kind;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * The agent that applies levers to a live job: a controller whose anchor is the last setup known to be good and
 * whose veto is the {@link Gate}.
 *
 * <p>It ranks the candidates by expected gain times the chance that the gain is real, per unit of trial cost, and
 * tries them one at a time on top of the current anchor, so that the levers it keeps accumulate. A candidate that does
 * not apply to the anchor (graph capture before asynchronous copies, pinned memory and preallocation) is tried, where
 * its own rank puts it, in a bundle with the fewest other candidates (at most {@link #MAX_ENABLERS}) that make it
 * apply, these first: its enablers may gain nothing alone. After that pass it tries, two at a time (at most
 * {@link Options#maxPairs()}), the levers whose trial was inconclusive but did not rule out a gain (a lever may help
 * only in combination with another): those whose interval reaches above 1 and that either measured above 1 or were
 * predicted a fair chance of a gain ({@link Options#promisingChance()}).
 *
 * <p>A combination (pair or bundle) that passes the gate is not kept whole before each member is shown to matter: each
 * member is dropped unless the combination is significantly better (by the gate) than the same without it, weakest
 * member first; an enabler stays while a member that needs it does; when members were dropped, what is left is gated
 * against the anchor and kept only if it passes. So a lever that rides along with one that helps is not kept, and each
 * kept lever's claim rests on a gate that measured it.
 *
 * <p>A trial whose candidate crashed, hung, ran out of memory, failed the device, produced NaN, changed the output or
 * could not be set up rules out, for the rest of the search, every setup that holds all of that trial's levers; and
 * each of its levers is never tried again unless the trial held several and that lever had run alone before without
 * failing (a lever that never ran alone cannot be cleared of the failure; one that did is still tried in other
 * combinations); a lever whose output changed or held NaN alone rules out, untried, the levers that make the same change
 * to arithmetic by another route ({@link io.gitm.levers.Lever#numerics}: TF32 set in the process or through an
 * environment variable). It stops at the deadline: a trial whose gate's full plan would end past it is planned for fewer
 * pairs, down to the gate's floor, and says so in its verdict; one whose smallest plan would end past it is not
 * started (the trials' time goes by the slowest block so far, before any by the expected trial time). It also stops
 * when the target is reached and nothing promising is left, or when nothing is left to
 * try; the stop line names the candidates never tried with the reason, the levers not tried again after a failure and
 * the pairs left at the cap.
 * When time allows it then confirms the result with one more gate, the original setup against the final one: a
 * replication on fresh blocks. A final setup that this confirmation does not find significantly better (it may be
 * better by less than the minimum gain), or finds failing, is given up for the original: after many trials one of
 * them passes the gate by chance now and then, and the confirmation keeps such a chance pass from being the result.
 *
 * <p>The anchor only ever moves to a setup that passed the gate, so the job is never left worse than it was.
 *
 * <p>Class-B levers move the output a little each; the agent lets each kept class-B trial spend part of the
 * workload's tolerance (its measured output difference) and gives the next class-B trial only what is left, so that
 * the final output stays within tolerance of the original's, not only of the previous anchor's.
 *
 * <p>A search can be resumed: given the trials of an interrupted search, the agent replays its decisions, reusing
 * each earlier trial's verdict (and the anchor it produced) instead of running it again.
 *
 * <p>Each call of {@link #optimize} runs one {@code Search}, a controller whose state sits in named parts: the
 * anchor, the trials, the ledger of what they taught, the roster of candidates, the bundles of deferred levers with
 * their enablers, the allowance of time and tolerance, and how the search stops.
 */
public final class Agent {
  final Ticker ticker;
  final Gate gate;
  /** Predicts a lever's gain on top of kept levers; null when trials carry the levers' own predictions. */
  final Predictor onTop;
  private final Options options;

  /** Rounds of singles and pairs for levers that start to apply only after the first round's anchor. */
  static final int LATE_ROUNDS = 3;

  /** The most other candidates tried together with a deferred lever to make it apply. */
  static final int MAX_ENABLERS = 3;

  public Agent(Ticker ticker, Options options) {
    this(ticker, options, null);
  }

  /**
   * An agent whose trials of one lever on top of kept levers carry {@code onTop}'s prediction for that context (when
   * it has one) instead of the lever's prediction on the job as profiled: the same saving is a larger share of a job
   * the kept levers already made faster.
   */
  public Agent(Ticker ticker, Options options, Predictor onTop) {
    if (ticker == null || options == null) {
      throw new IllegalArgumentException("an agent needs a ticker and options");
    }
    this.ticker = ticker;
    this.options = options;
    this.gate = new Gate(ticker, options.gate());
    this.onTop = onTop;
  }

  /** A lever's predicted gain (a speed ratio) on top of kept levers, or empty where it cannot tell. */
  @FunctionalInterface
  public interface Predictor {
    OptionalDouble gain(Lever lever, List<Lever> kept);
  }

  public Options options() {
    return options;
  }

  /**
   * Searches for a better setup of {@code job}.
   *
   * @param anchor the setup the job runs under now (its shipped setup): the first anchor
   * @param candidates the levers to try, with their predictions; ids must be unique
   * @param context what levers check their preconditions against and where the output tolerance comes from (the
   *     workload's; {@link Options#outputTolerance()} when there is no workload)
   * @param deadlineNanos a reading of the agent's ticker by which the search must be over
   * @param listener told of every trial run (not of the ones reused from {@code completed}) as soon as it is done
   * @param completed trials of an earlier, interrupted search of the same job; empty for a fresh search
   */
  public Result optimize(Job job, Setup anchor, List<Candidate> candidates, LeverContext context,
      long deadlineNanos, Listener listener, List<TrialRecord> completed) {
    if (job == null || anchor == null || candidates == null || context == null || listener == null
        || completed == null) {
      throw new IllegalArgumentException(
          "the agent needs a job, an anchor, candidates, a context, a listener and completed trials (may be empty)");
    }
    return new Search(this, job, anchor, candidates, context, deadlineNanos, listener, completed).run();
  }

  /** Told of each trial as soon as it is done, so that the caller can journal it and show progress. */
  @FunctionalInterface
  public interface Listener {
    void trialDone(TrialRecord trial);

    static Listener none() {
      return t -> {};
    }
  }

  /** Why the search ended. */
  public enum StopReason {
    /** The target was reached and nothing promising was left to try. */
    TARGET_REACHED,
    /** Nothing was left that could be tried (the detail names what was left untried and why). */
    EXHAUSTED,
    /** The next trial could not have finished before the deadline. */
    DEADLINE,
    /** No candidate applies. */
    NO_CANDIDATES,
    /** The anchor itself failed in consecutive trials: nothing can be measured against it. */
    ANCHOR_FAILED,
    /** The thread running the search was interrupted. */
    INTERRUPTED
  }

  /**
   * The outcome of a search.
   *
   * @param original the setup the search started from
   * @param anchor the setup to run the job under: the original, or one that passed the gate
   * @param keptLevers the ids of the levers {@code anchor} has, in the order they were kept
   * @param trials every trial, in order, reused ones included
   * @param chainedGain the product of the kept trials' measured gains: the improvement of {@code anchor} over
   *     {@code original} as the chain of gates measured it (1 when nothing was kept)
   * @param stopReason why the search ended
   * @param detail one line for people about how it ended
   * @param notTried candidates that were not tried at all, by lever id, with the reason
   * @param reusedTrials how many of {@code trials} were reused from the earlier search
   */
  public record Result(Setup original, Setup anchor, List<String> keptLevers, List<TrialRecord> trials,
      double chainedGain, StopReason stopReason, String detail, Map<String, String> notTried, int reusedTrials) {
    public Result {
      keptLevers = List.copyOf(keptLevers);
      trials = List.copyOf(trials);
      notTried = Collections.unmodifiableMap(new LinkedHashMap<>(notTried));
    }

    /** The final gate of the original setup against the final one, when there was time for it. */
    public Optional<TrialRecord> confirmation() {
      return trials.stream().filter(t -> t.kind() == Kind.CONFIRMATION).reduce((a, b) -> b);
    }

    /**
     * The improvement of {@code anchor} over {@code original}: as the confirmation measured it directly when it
     * ran to the end, else {@link #chainedGain()}; 1 when the anchor is the original.
     */
    public double totalGain() {
      if (anchor.equals(original)) {
        return 1;
      }
      return confirmation().map(TrialRecord::verdict).filter(Verdict::complete).map(Verdict::gain)
          .orElse(chainedGain);
    }

    /** Whether the target was reached, going by {@link #totalGain()}. */
    public boolean reached(double target) {
      return totalGain() >= 1 + target;
    }
  }

  /**
   * How the agent searches.
   *
   * @param gate how each trial is measured and decided
   * @param target the improvement to reach, as a fraction (0.15 = 15%)
   * @param outputTolerance the class-B output tolerance for a job without a workload spec (a process job); a
   *     managed workload's own tolerance is used otherwise
   * @param expectedTrial the wall time one trial of the gate's fixed design ({@link Gate.Options#pairs()}) is
   *     expected to take before any was measured: weighs a lever's extra trial cost in the ranking and, when
   *     positive, plans the first trial to end before the deadline
   * @param promisingChance the chance of a real gain (at least the gate's minimum) below which an untried lever is
   *     not promising: such levers are skipped once the target is reached
   * @param maxPairs the most pair trials of the second pass (bundles of a deferred lever with its enablers, and the
   *     checks of a passed combination's members, are not counted)
   * @param confirm whether to end with a confirmation gate of the original against the final setup (when time
   *     allows); a final setup it does not find significantly better is given up for the original
   */
  public record Options(Gate.Options gate, double target, double outputTolerance, Duration expectedTrial,
      double promisingChance, int maxPairs, boolean confirm) {
    public Options {
      if (gate == null) {
        throw new IllegalArgumentException("agent options need gate options");
      }
      if (!(target >= 0) || Double.isInfinite(target)) {
        throw new IllegalArgumentException("target must be a finite fraction >= 0, got " + target);
      }
      if (!(outputTolerance >= 0) || Double.isInfinite(outputTolerance)) {
        throw new IllegalArgumentException("output tolerance must be a finite number >= 0, got " + outputTolerance);
      }
      if (expectedTrial == null || expectedTrial.isNegative()) {
        throw new IllegalArgumentException("expected trial time must be >= 0, got " + expectedTrial);
      }
      if (!(promisingChance >= 0 && promisingChance <= 1)) {
        throw new IllegalArgumentException("promising chance must be in [0, 1], got " + promisingChance);
      }
      if (maxPairs < 0) {
        throw new IllegalArgumentException("max pairs must be >= 0, got " + maxPairs);
      }
    }

    /**
     * Default gate options, target 15%, output tolerance 0 for process jobs, no expected trial time, promising
     * chance 0.1, at most 15 pairs, confirmation on.
     */
    public static Options defaults() {
      return new Options(Gate.Options.defaults(), 0.15, 0, Duration.ZERO, 0.1, 15, true);
    }

    public Options withGate(Gate.Options g) {
      return new Options(g, target, outputTolerance, expectedTrial, promisingChance, maxPairs, confirm);
    }

    public Options withTarget(double t) {
      return new Options(gate, t, outputTolerance, expectedTrial, promisingChance, maxPairs, confirm);
    }

    public Options withOutputTolerance(double t) {
      return new Options(gate, target, t, expectedTrial, promisingChance, maxPairs, confirm);
    }

    public Options withExpectedTrial(Duration d) {
      return new Options(gate, target, outputTolerance, d, promisingChance, maxPairs, confirm);
    }

    public Options withPromisingChance(double p) {
      return new Options(gate, target, outputTolerance, expectedTrial, p, maxPairs, confirm);
    }

    public Options withMaxPairs(int n) {
      return new Options(gate, target, outputTolerance, expectedTrial, promisingChance, n, confirm);
    }

    public Options withConfirm(boolean c) {
      return new Options(gate, target, outputTolerance, expectedTrial, promisingChance, maxPairs, c);
    }
  }
}
