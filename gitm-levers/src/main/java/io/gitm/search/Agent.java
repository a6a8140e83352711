package io.gitm.search;

import io.gitm.api.Ticker;
import io.gitm.job.Job;
import io.gitm.levers.Lever;
import io.gitm.levers.LeverContext;
import io.gitm.levers.SafetyClass;
import io.gitm.levers.Setup;
import io.gitm.rank.Candidate;
import io.gitm.search.TrialRecord.Kind;
import io.gitm.search.Verdict.Arm;
import io.gitm.search.Verdict.Outcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.hipparchus.distribution.continuous.NormalDistribution;

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
 * combinations). It stops at the deadline (a trial is not started when the longest trial
 * so far would end past it), or when the target is reached and nothing promising is left, or when nothing is left to
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
 */
public final class Agent {
  private final Ticker ticker;
  private final Options options;
  private final Gate gate;
  private final Predictor onTop;

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
    java.util.OptionalDouble gain(io.gitm.levers.Lever lever, List<io.gitm.levers.Lever> kept);
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
    return new Search(job, anchor, candidates, context, deadlineNanos, listener, completed).run();
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
      notTried = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(notTried));
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
   * @param expectedTrial the wall time one trial is expected to take before any was measured: weighs a lever's extra
   *     trial cost in the ranking and, when positive, keeps the first trial from starting too close to the deadline
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

  /** One search in progress: the anchor, what was kept, the trials so far. */
  private final class Search {
    private final Job job;
    private final Setup original;
    private final LeverContext context;
    private final long deadline;
    private final Listener listener;
    private final double tolerance;
    private final Map<TrialRecord.Key, TrialRecord> earlier = new HashMap<>();
    private final List<Candidate> usable = new ArrayList<>();
    /**
     * Candidates that do not apply to the first anchor but may to a later one (a lever whose precondition is another
     * lever, e.g. graph capture after pinned memory and preallocation): checked again whenever the anchor moves.
     */
    private final List<Candidate> deferred = new ArrayList<>();
    /**
     * Pairs and bundles already tried (their levers joined, and the anchor's): a later round does not repeat them on
     * the same anchor.
     */
    private final Set<List<String>> combinationsTried = new HashSet<>();
    /** Deferred candidates not yet tried in a bundle with the levers that make them apply. */
    private final List<Candidate> toBundle = new ArrayList<>();
    /** The levers of each trial whose candidate failed: no setup holding all of one of these is tried again. */
    private final Set<Set<String>> failedCombinations = new HashSet<>();
    /** Levers that ran alone on the anchor in a trial that did not fail. */
    private final Set<String> ranAlone = new HashSet<>();
    /** What each lever's last trial alone on the anchor measured. */
    private final Map<String, Double> aloneGain = new HashMap<>();
    /** This search's trials by key: a question asked again gets the first answer. */
    private final Map<TrialRecord.Key, TrialRecord> done = new HashMap<>();
    /** Pairs that were left untried because {@link Options#maxPairs()} were tried. */
    private int pairsLeftAtCap;
    private final Map<String, String> notTried = new LinkedHashMap<>();
    private final List<TrialRecord> trials = new ArrayList<>();
    private final List<Candidate> kept = new ArrayList<>();
    private final Set<String> banned = new HashSet<>();
    private final Map<Candidate, Belief> inconclusive = new LinkedHashMap<>();
    private Setup anchor;
    private double chainedGain = 1;
    private double toleranceLeft;
    private int reused;
    private int anchorFailures;
    private boolean outOfTime;
    /** When the last {@link #fits} said no: the seconds the trial was expected to need, and those left. */
    private double shortNeeded = Double.NaN;
    private double shortLeft = Double.NaN;
    private boolean skippedForTarget;
    private StopReason stopped;
    private String stopDetail = "";
    private String note = "";

    Search(Job job, Setup anchor, List<Candidate> candidates, LeverContext context, long deadline,
        Listener listener, List<TrialRecord> completed) {
      this.job = job;
      this.original = anchor;
      this.anchor = anchor;
      this.context = context;
      this.deadline = deadline;
      this.listener = listener;
      this.tolerance = context.workload() != null ? context.workload().outputTolerance() : options.outputTolerance();
      if (!(tolerance >= 0) || Double.isInfinite(tolerance)) {
        throw new IllegalArgumentException("the workload's output tolerance must be a finite number >= 0, got "
            + tolerance);
      }
      this.toleranceLeft = tolerance;
      for (TrialRecord t : completed) {
        if (t == null) {
          throw new IllegalArgumentException("completed trials hold a null entry");
        }
        if (earlier.put(t.key(), t) != null) {
          throw new IllegalArgumentException("completed trials hold trial " + t.levers() + " on " + t.anchorLevers()
              + " twice");
        }
      }
      Set<String> ids = new HashSet<>();
      for (Candidate c : candidates) {
        if (c == null) {
          throw new IllegalArgumentException("candidates hold a null entry");
        }
        if (!ids.add(c.id())) {
          throw new IllegalArgumentException("lever " + c.id() + " is a candidate twice");
        }
        String why = whyNot(c.lever());
        if (why == null) {
          usable.add(c);
        } else {
          notTried.put(c.id(), why);
          if (c.lever().safety() != null
              && (c.lever().safety() != SafetyClass.C || context.allowDeviceSettings())) {
            deferred.add(c);
          }
        }
      }
    }

    Result run() {
      if (usable.isEmpty()) {
        return result(StopReason.NO_CANDIDATES,
            notTried.isEmpty() ? "no candidate levers" : "no candidate lever applies");
      }
      double minGain = options.gate().minGain();
      double trialSeconds = Math.max(1, options.expectedTrial().toNanos() / 1e9);
      Comparator<Candidate> order = Comparator.<Candidate>comparingDouble(
              c -> -(c.predictedGain() - 1) * c.chanceOfGain(minGain) / (trialSeconds + extraCost(List.of(c))))
          .thenComparing(c -> -c.predictedGain()).thenComparing(Candidate::id);
      List<Candidate> ranked = new ArrayList<>(usable);
      ranked.sort(order);
      toBundle.addAll(deferred);
      singles(ranked, order, minGain);
      pairs();
      // pairs may have moved the anchor far enough for deferred levers to apply: more rounds of singles (and of the
      // pairs they open up) for them
      for (int round = 0; round < LATE_ROUNDS && stopped == null; round++) {
        List<Candidate> late = nowApplicable();
        if (late.isEmpty()) {
          break;
        }
        late.sort(order);
        singles(late, order, minGain);
        pairs();
      }
      confirm();
      if (stopped != null) {
        return result(stopped, stopDetail);
      }
      if (outOfTime) {
        if (trials.isEmpty() && Double.isFinite(shortNeeded)) {
          return result(StopReason.DEADLINE, String.format(java.util.Locale.ROOT, "no trial could have finished"
              + " before the deadline: a gate at this job's speed is expected to take about %.0f s and %.0f s were"
              + " left for applying; a larger --budget gives the gates room", shortNeeded, Math.max(0, shortLeft)));
        }
        return result(StopReason.DEADLINE, "the next trial could not have finished before the deadline"
            + left());
      }
      if (targetReached()) {
        return result(StopReason.TARGET_REACHED, "target " + percent(options.target()) + " reached"
            + (skippedForTarget ? "; the levers left were not promising" : "; nothing left to try") + left());
      }
      String left = left();
      return result(StopReason.EXHAUSTED, (left.isEmpty() ? "every candidate tried" : "nothing left that could be"
          + " tried" + left) + "; target " + percent(options.target()) + " not reached");
    }

    /**
     * What was left untried, for the stop line: the candidates never tried with the reason of each, the levers not
     * retried after a failure, and the pairs left at the cap; empty when nothing was left.
     */
    private String left() {
      List<String> parts = new ArrayList<>();
      if (!notTried.isEmpty()) {
        parts.add(notTried.size() + (notTried.size() == 1 ? " candidate" : " candidates") + " never tried: "
            + String.join("; ", notTried.entrySet().stream().map(e -> e.getKey() + " (" + e.getValue() + ")")
            .toList()));
      }
      if (!banned.isEmpty()) {
        parts.add("not tried again after a failed trial: " + String.join(", ", banned.stream().sorted().toList()));
      }
      if (pairsLeftAtCap > 0) {
        parts.add(pairsLeftAtCap + (pairsLeftAtCap == 1 ? " pair" : " pairs") + " of inconclusive levers left"
            + " untried at the cap of " + options.maxPairs() + " pairs");
      }
      return parts.isEmpty() ? "" : " (" + String.join("; ", parts) + ")";
    }

    /** Deferred candidates that apply to the anchor now, taken out of the deferred list. */
    private List<Candidate> nowApplicable() {
      List<Candidate> out = new ArrayList<>();
      for (java.util.Iterator<Candidate> it = deferred.iterator(); it.hasNext(); ) {
        Candidate d = it.next();
        if (!banned.contains(d.id()) && whyNot(d.lever()) == null) {
          it.remove();
          notTried.remove(d.id());
          usable.add(d);
          out.add(d);
        }
      }
      return out;
    }

    /**
     * Tries each of {@code ranked} alone, in order; levers that start to apply as the anchor moves join in. A
     * deferred lever is tried in a bundle with its missing enablers where its own rank would put it.
     */
    private void singles(List<Candidate> ranked, Comparator<Candidate> order, double minGain) {
      while (stopped == null) {
        toBundle.removeIf(d -> banned.contains(d.id()) || !deferred.contains(d));
        Candidate d = toBundle.stream().min(order).orElse(null);
        Candidate c = ranked.isEmpty() ? null : ranked.getFirst();
        if (c == null && d == null) {
          break;
        }
        Setup before = anchor;
        if (d != null && (c == null || order.compare(d, c) < 0)) {
          toBundle.remove(d);
          if (targetReached() && d.chanceOfGain(minGain) < options.promisingChance()) {
            skippedForTarget = true;
            continue;
          }
          bundle(d, order);
        } else {
          ranked.removeFirst();
          if (banned.contains(c.id()) || kept.contains(c)) {
            // a lever kept through a bundle or pair of an earlier step is on the anchor already
            continue;
          }
          if (targetReached() && c.chanceOfGain(minGain) < options.promisingChance()) {
            skippedForTarget = true;
            notTried.put(c.id(), "target reached and its chance of a gain is below "
                + percent(options.promisingChance()));
            continue;
          }
          attempt(Kind.SINGLE, List.of(c));
        }
        if (!anchor.equals(before) && !deferred.isEmpty()) {
          // the anchor moved: levers whose preconditions it now meets join the ranking
          ranked.addAll(nowApplicable());
          ranked.sort(order);
        }
      }
    }

    /**
     * A deferred lever together with the fewest candidates (at most {@link #MAX_ENABLERS}) that make it apply, the
     * enablers first; alone when the anchor now meets its precondition.
     */
    private void bundle(Candidate d, Comparator<Candidate> order) {
      if (whyNot(d.lever()) == null) {
        deferred.remove(d);
        notTried.remove(d.id());
        usable.add(d);
        attempt(Kind.SINGLE, List.of(d));
        return;
      }
      List<Candidate> pool = usable.stream().filter(c -> !kept.contains(c) && !banned.contains(c.id())
          && !deferred.contains(c)).sorted(order).toList();
      List<Candidate> levers = null;
      for (int size = 1; size <= Math.min(MAX_ENABLERS, pool.size()) && levers == null; size++) {
        levers = enabling(d, pool, size, 0, new ArrayList<>());
      }
      if (levers == null) {
        return;
      }
      if (!combinationsTried.add(List.of(String.join("+", ids(levers)), String.join("+", ids(kept))))) {
        return;
      }
      double predicted = levers.stream().mapToDouble(Candidate::predictedGain).reduce(1, (x, y) -> x * y);
      String basis = String.join("+", levers.stream().map(Candidate::basis).distinct().toList());
      if (attempt(Kind.BUNDLE, levers, predicted, basis) != null) {
        notTried.remove(d.id());
      }
      if (kept.contains(d)) {
        deferred.remove(d);
      }
    }

    /** The first {@code size} levers of {@code pool} (in its order) that make {@code d} apply, arranged, d last. */
    private List<Candidate> enabling(Candidate d, List<Candidate> pool, int size, int from, List<Candidate> chosen) {
      if (chosen.size() == size) {
        Built b = arrange(anchor, chosen);
        if (b == null || !applies(d, b.setup())) {
          return null;
        }
        List<Candidate> levers = new ArrayList<>(b.order());
        levers.add(d);
        return blocked(levers) ? null : levers;
      }
      for (int i = from; i < pool.size(); i++) {
        chosen.add(pool.get(i));
        List<Candidate> found = enabling(d, pool, size, i + 1, chosen);
        chosen.removeLast();
        if (found != null) {
          return found;
        }
      }
      return null;
    }

    /**
     * Levers that were inconclusive alone, tried two at a time. Pairs are ordered by their predictions (a gain that
     * only shows in combination leaves no trace in the single trials), then by what is believed of them after those
     * trials; once the target is reached, only pairs whose believed gain clears the gate's minimum are tried.
     */
    private void pairs() {
      List<Map.Entry<Candidate, Belief>> open = inconclusive.entrySet().stream()
          .filter(e -> !kept.contains(e.getKey()) && !banned.contains(e.getKey().id())).toList();
      record Pair(Candidate a, Candidate b, Belief belief) {}
      List<Pair> pairs = new ArrayList<>();
      for (int i = 0; i < open.size(); i++) {
        for (int j = i + 1; j < open.size(); j++) {
          pairs.add(new Pair(open.get(i).getKey(), open.get(j).getKey(),
              open.get(i).getValue().and(open.get(j).getValue())));
        }
      }
      // a deferred lever whose precondition an inconclusive one meets (graph capture needs asynchronous copies, which
      // alone gain little): the two together, the enabler first
      for (Map.Entry<Candidate, Belief> e : open) {
        Setup with;
        try {
          with = e.getKey().lever().apply(anchor, context.withSetup(anchor));
        } catch (RuntimeException ex) {
          continue;
        }
        if (with == null) {
          continue;
        }
        for (Candidate d : deferred) {
          if (!banned.contains(d.id()) && applies(d, with)) {
            pairs.add(new Pair(e.getKey(), d, e.getValue().and(new Belief(d.predictedGain(), d.uncertainty()))));
          }
        }
      }
      pairs.sort(Comparator.comparingDouble((Pair p) -> -p.a().predictedGain() * p.b().predictedGain())
          .thenComparingDouble(p -> -p.belief().gain()).thenComparing(p -> p.a().id()).thenComparing(p -> p.b().id()));
      double minGain = options.gate().minGain();
      int tried = 0;
      for (Pair p : pairs) {
        if (stopped != null) {
          break;
        }
        List<Candidate> levers = List.of(p.a(), p.b());
        if (kept.contains(p.a()) || kept.contains(p.b()) || blocked(levers)) {
          continue;
        }
        if (targetReached() && p.belief().gain() < 1 + minGain) {
          skippedForTarget = true;
          continue;
        }
        List<String> key = List.of(String.join("+", ids(levers)), String.join("+", ids(kept)));
        if (combinationsTried.contains(key)) {
          continue;
        }
        if (tried >= options.maxPairs()) {
          pairsLeftAtCap++;
          continue;
        }
        combinationsTried.add(key);
        String basis = p.a().basis() + "+" + p.b().basis() + "+measured";
        if (attempt(Kind.PAIR, levers, p.belief().gain(), basis) != null) {
          tried++;
          if (kept.contains(p.b())) {
            deferred.remove(p.b());
            notTried.remove(p.b().id());
          }
        }
      }
    }

    /** The original against the final anchor, when something was kept and there is time. */
    private void confirm() {
      if (!options.confirm() || kept.isEmpty() || stopped != null) {
        return;
      }
      TrialRecord.Key key = new TrialRecord.Key(Kind.CONFIRMATION, ids(kept), List.of());
      TrialRecord earlierTrial = earlier.remove(key);
      SafetyClass safety = safety(kept);
      TrialRecord t;
      if (earlierTrial != null && earlierTrial.candidate().equals(anchor)) {
        t = earlierTrial;
        reused++;
        trials.add(t);
      } else {
        if (!fits(kept)) {
          outOfTime = true;
          return;
        }
        Verdict v = gate.judge(job, original, anchor, safety, tolerance, deadline);
        t = new TrialRecord(trials.size(), Kind.CONFIRMATION, ids(kept), List.of(), anchor, chainedGain, "chained", v);
        trials.add(t);
        if (v.outcome() != Outcome.INTERRUPTED) {
          listener.trialDone(t);
        }
      }
      Verdict v = t.verdict();
      if (v.outcome() == Outcome.INTERRUPTED || Thread.currentThread().isInterrupted()) {
        stop(StopReason.INTERRUPTED, "interrupted during the confirmation");
        return;
      }
      boolean candidateFailed = v.outcome().failure() && v.failedArm() == Arm.CANDIDATE;
      if (candidateFailed || v.outcome() == Outcome.SLOWER || v.outcome() == Outcome.NOT_SIGNIFICANT) {
        String why = "the confirmation of " + ids(kept) + " against the original was " + v.outcome() + " ("
            + v.detail() + "); back to the original setup";
        anchor = original;
        kept.clear();
        chainedGain = 1;
        note = "; " + why;
      } else if (v.outcome() == Outcome.OUT_OF_BUDGET) {
        outOfTime = true;
      }
    }

    /**
     * Tries {@code levers} on top of the anchor (or reuses the earlier search's verdict), and moves the anchor when
     * the gate keeps them (a combination: those of its members that matter).
     *
     * @return the trial, or null when none was made (no time, or the setup holds a combination that failed before)
     */
    private TrialRecord attempt(Kind kind, List<Candidate> levers) {
      String basis = String.join("+", levers.stream().map(Candidate::basis).distinct().toList());
      if (kind == Kind.SINGLE && onTop != null && !kept.isEmpty()) {
        java.util.OptionalDouble g = onTop.gain(levers.getFirst().lever(), kept.stream().map(Candidate::lever)
            .toList());
        if (g.isPresent() && Double.isFinite(g.getAsDouble())) {
          return attempt(kind, levers, g.getAsDouble(), basis);
        }
      }
      return attempt(kind, levers, levers.stream().mapToDouble(Candidate::predictedGain).reduce(1, (x, y) -> x * y),
          basis);
    }

    private TrialRecord attempt(Kind kind, List<Candidate> levers, double predicted, String basis) {
      if (Thread.currentThread().isInterrupted()) {
        stop(StopReason.INTERRUPTED, "interrupted");
        return null;
      }
      if (blocked(levers)) {
        return null;
      }
      List<String> ids = ids(levers);
      List<String> anchorIds = ids(kept);
      Setup candidate = anchor;
      String refused = null;
      for (Candidate c : levers) {
        try {
          Lever.Applicability a = c.lever().check(context.withSetup(candidate));
          if (a != null && !a.applies()) {
            // the anchor moved since this trial was planned (preallocation ends the pool's threshold, graph capture
            // the overlap on a second stream): no trial, and no ban
            if (levers.size() == 1 && trials.stream().noneMatch(t -> t.levers().contains(c.id()))) {
              notTried.putIfAbsent(c.id(), "it does not apply on top of " + (kept.isEmpty() ? "the shipped setup"
                  : String.join(" + ", anchorIds)) + ": " + a.reason());
            }
            return null;
          }
          Setup next = c.lever().apply(candidate, context.withSetup(candidate));
          if (next == null) {
            refused = "lever " + c.id() + " made no setup";
            break;
          }
          candidate = next;
        } catch (RuntimeException e) {
          refused = "lever " + c.id() + " could not be applied: " + e.getMessage();
          break;
        }
      }
      if (refused == null && candidate.equals(anchor)) {
        refused = "lever" + (ids.size() > 1 ? "s " : " ") + String.join(", ", ids) + " changed nothing";
      }
      boolean combination = levers.size() > 1;
      List<TrialRecord.Key> keys = new ArrayList<>(List.of(new TrialRecord.Key(kind, ids, anchorIds)));
      if (combination) {
        keys.add(new TrialRecord.Key(Kind.MEMBER, ids, anchorIds));
      }
      Measured m = measure(keys, anchor, candidate, refused, levers);
      if (m == null) {
        return null;
      }
      if (combination && m.verdict().kept() && m.previous() == null) {
        return keepMembers(kind, levers, m, predicted, basis);
      }
      TrialRecord t = journal(kind, ids, anchorIds, m, predicted, basis);
      learn(t, levers);
      if (t.kept()) {
        adopt(t.candidate(), levers, t.verdict());
      }
      return t;
    }

    /**
     * A combination passed the gate: before the anchor moves, each member whose removal leaves a setup that can be
     * made is checked, weakest evidence first (what it measured alone, else its prediction): the setup with the
     * members still held against the same without it ({@link Kind#MEMBER}). A member is dropped unless the gate keeps
     * the setup with it (significantly better by the minimum gain); a member without which another one does not
     * apply (an enabler) stays while that one does. The last member left is checked against the anchor itself, and
     * when members were dropped what is left is gated against the anchor ({@link Kind#SUBSET}): only a set that
     * passed a gate against the anchor becomes the anchor. The combination itself is journaled after these checks,
     * as {@code kind} when all its members stayed (it becomes the anchor) and as {@link Kind#MEMBER} otherwise. When
     * there is no time left for the checks, the combination is kept whole, as its gate passed it.
     */
    private TrialRecord keepMembers(Kind kind, List<Candidate> levers, Measured passed, double predicted,
        String basis) {
      Setup start = anchor;
      List<String> startIds = ids(kept);
      List<Candidate> held = new ArrayList<>(levers);
      Setup heldSetup = passed.candidate();
      Set<Candidate> checked = new HashSet<>();
      TrialRecord subset = null;
      boolean unchecked = false;
      boolean failed = false;
      while (!held.isEmpty()) {
        if (stopped != null || Thread.currentThread().isInterrupted()) {
          unchecked = true;
          break;
        }
        Candidate member = null;
        Setup without = null;
        for (Candidate c : byEvidence(held)) {
          if (checked.contains(c)) {
            continue;
          }
          Built b = arrange(start, minus(held, c));
          if (b != null) {
            member = c;
            without = b.setup();
            break;
          }
        }
        if (member == null) {
          break;
        }
        checked.add(member);
        List<Candidate> rest = minus(held, member);
        Kind k = rest.isEmpty() ? Kind.SUBSET : Kind.MEMBER;
        List<String> armIds = new ArrayList<>(startIds);
        armIds.addAll(ids(rest));
        Measured m = measure(List.of(new TrialRecord.Key(k, List.of(member.id()), armIds)), without, heldSetup, null,
            held);
        if (m == null) {
          unchecked = true;
          break;
        }
        TrialRecord t = journal(k, List.of(member.id()), armIds, m, member.predictedGain(), member.basis());
        learn(t, held);
        Verdict v = t.verdict();
        if (v.outcome() == Outcome.INTERRUPTED || v.outcome() == Outcome.OUT_OF_BUDGET) {
          unchecked = true;
          break;
        }
        if (v.failedArm() == Arm.CANDIDATE && v.outcome().failure()) {
          failed = true;
          break;
        }
        if (v.kept()) {
          if (rest.isEmpty()) {
            subset = t;
          }
          continue;
        }
        if (v.failedArm() == Arm.ANCHOR) {
          // the setup without it failed: it stays
          continue;
        }
        held = rest;
        heldSetup = without;
      }
      boolean whole = held.size() == levers.size() || (unchecked && subset == null);
      if (!failed && !whole && !held.isEmpty() && subset == null && stopped == null) {
        Measured m = measure(List.of(new TrialRecord.Key(Kind.SUBSET, ids(held), startIds)), start, heldSetup, null,
            held);
        if (m == null) {
          whole = true;
          unchecked = true;
        } else {
          TrialRecord t = journal(Kind.SUBSET, ids(held), startIds, m, held.stream()
              .mapToDouble(Candidate::predictedGain).reduce(1, (x, y) -> x * y), basis);
          learn(t, held);
          if (t.verdict().outcome() == Outcome.INTERRUPTED || t.verdict().outcome() == Outcome.OUT_OF_BUDGET) {
            whole = true;
            unchecked = true;
          } else if (t.kept()) {
            subset = t;
          }
        }
      }
      if (failed || stopped == StopReason.INTERRUPTED) {
        whole = false;
        subset = null;
      }
      TrialRecord combination = journal(whole ? kind : Kind.MEMBER, ids(levers), startIds, passed, predicted, basis);
      learn(combination, levers);
      if (whole) {
        adopt(passed.candidate(), levers, passed.verdict());
        if (unchecked && levers.size() > 1) {
          note += "; " + String.join("+", ids(levers)) + " kept whole: no time to check that each member matters";
        }
      } else if (subset != null) {
        adopt(subset.candidate(), held, subset.verdict());
      }
      return combination;
    }

    /** {@code levers} ordered by the evidence that they help, weakest first: measured alone, else predicted. */
    private List<Candidate> byEvidence(List<Candidate> levers) {
      return levers.stream().sorted(Comparator.<Candidate>comparingDouble(
          c -> aloneGain.getOrDefault(c.id(), c.predictedGain())).thenComparing(Candidate::id)).toList();
    }

    /**
     * The verdict of {@code candidate} against {@code arm}: the one this search already has under one of
     * {@code keys}, else the earlier search's (when it measured the same setup), else a new gate.
     *
     * @return the verdict, or null when the trial could not have finished before the deadline
     */
    private Measured measure(List<TrialRecord.Key> keys, Setup arm, Setup candidate, String refused,
        List<Candidate> levers) {
      for (TrialRecord.Key key : keys) {
        TrialRecord d = done.get(key);
        if (d != null && d.candidate().equals(refused == null ? candidate : arm)) {
          return new Measured(d.verdict(), d.candidate(), false, d);
        }
      }
      for (TrialRecord.Key key : keys) {
        TrialRecord e = earlier.get(key);
        if (e != null && refused == null && e.candidate().equals(candidate)) {
          earlier.remove(key);
          return new Measured(e.verdict(), e.candidate(), true, null);
        }
      }
      if (refused != null) {
        return new Measured(Verdict.refused(refused), arm, false, null);
      }
      if (!fits(levers)) {
        outOfTime = true;
        return null;
      }
      SafetyClass s = safety(levers);
      return new Measured(gate.judge(job, arm, candidate, s, s == SafetyClass.B ? toleranceLeft : 0, deadline),
          candidate, false, null);
    }

    /** Adds a trial to the search's list and tells the listener (unless it was reused or interrupted). */
    private TrialRecord journal(Kind kind, List<String> ids, List<String> armIds, Measured m, double predicted,
        String basis) {
      if (m.previous() != null) {
        return m.previous();
      }
      TrialRecord t = new TrialRecord(trials.size(), kind, ids, armIds, m.candidate(), predicted, basis, m.verdict());
      trials.add(t);
      done.put(t.key(), t);
      if (m.reused()) {
        reused++;
      } else if (m.verdict().outcome() != Outcome.INTERRUPTED) {
        listener.trialDone(t);
      }
      return t;
    }

    /** Moves the anchor to {@code setup}, which has {@code levers} on top of the anchor, as {@code v} measured. */
    private void adopt(Setup setup, List<Candidate> levers, Verdict v) {
      anchor = setup;
      kept.addAll(levers);
      chainedGain *= v.gain();
      if (safety(levers) == SafetyClass.B && v.outputDifference() > 0) {
        toleranceLeft = Math.max(0, toleranceLeft - v.outputDifference());
      }
    }

    /**
     * Learns from a trial whose candidate held {@code levers} on top of its arm. A failure of the candidate (crash,
     * hang, OOM, device error, NaN, changed output, refused setup) rules out the combination of its levers for the
     * rest of the search, and bans each of its levers unless the trial had more than one and that one had run alone
     * before without failing.
     */
    private void learn(TrialRecord t, List<Candidate> levers) {
      Verdict v = t.verdict();
      if (t.kind() != Kind.MEMBER) {
        if (v.failedArm() == Arm.ANCHOR) {
          if (++anchorFailures >= 2) {
            stop(StopReason.ANCHOR_FAILED, "the anchor failed in " + anchorFailures + " trials in a row, last: "
                + v.outcome() + " (" + v.detail() + ")");
          }
        } else {
          anchorFailures = 0;
        }
      }
      if (v.failedArm() == Arm.CANDIDATE && v.outcome().failure()) {
        failedCombinations.add(Set.copyOf(ids(levers)));
        for (Candidate c : levers) {
          if (levers.size() == 1 || !ranAlone.contains(c.id())) {
            banned.add(c.id());
          }
        }
      } else if (levers.size() == 1 && t.kind() != Kind.MEMBER && v.complete()) {
        ranAlone.add(levers.getFirst().id());
        aloneGain.put(levers.getFirst().id(), v.gain());
      }
      if (t.kind() == Kind.SINGLE && v.outcome().inconclusive() && v.ciHigh() > 1 && (v.gain() >= 1
          || levers.getFirst().chanceOfGain(options.gate().minGain()) >= options.promisingChance())) {
        inconclusive.put(levers.getFirst(), Belief.of(levers.getFirst(), v, options.gate().confidence()));
      }
      if (v.outcome() == Outcome.INTERRUPTED) {
        stop(StopReason.INTERRUPTED, "interrupted during trial " + (t.index() + 1) + " (" + String.join("+", t.levers())
            + "), which is not counted");
      } else if (v.outcome() == Outcome.OUT_OF_BUDGET) {
        outOfTime = true;
        stop(StopReason.DEADLINE, "trial " + (t.index() + 1) + " was cut at the deadline: " + v.detail());
      }
    }

    /**
     * Whether a setup of the anchor plus {@code levers} is ruled out: it holds a banned lever, or a combination
     * whose trial failed.
     */
    private boolean blocked(List<Candidate> levers) {
      if (levers.stream().anyMatch(c -> banned.contains(c.id()))) {
        return true;
      }
      Set<String> with = new HashSet<>(ids(kept));
      with.addAll(ids(levers));
      return failedCombinations.stream().anyMatch(with::containsAll);
    }

    /**
     * {@code levers} applied on top of {@code from}, each once its precondition holds (in their order where several
     * do), or null when some never applies or cannot be applied.
     */
    private Built arrange(Setup from, List<Candidate> levers) {
      List<Candidate> left = new ArrayList<>(levers);
      List<Candidate> order = new ArrayList<>();
      Setup s = from;
      while (!left.isEmpty()) {
        Setup next = null;
        Candidate used = null;
        for (Candidate c : left) {
          if (applies(c, s)) {
            try {
              next = c.lever().apply(s, context.withSetup(s));
            } catch (RuntimeException e) {
              next = null;
            }
            if (next != null) {
              used = c;
              break;
            }
          }
        }
        if (used == null) {
          return null;
        }
        left.remove(used);
        order.add(used);
        s = next;
      }
      return new Built(s, order);
    }

    private boolean applies(Candidate c, Setup on) {
      try {
        Lever.Applicability a = c.lever().check(context.withSetup(on));
        return a != null && a.applies();
      } catch (RuntimeException e) {
        return false;
      }
    }

    /** Whether a trial of {@code levers} can end before the deadline, going by the trials measured so far. */
    private boolean fits(List<Candidate> levers) {
      long longest = trials.stream().map(TrialRecord::verdict).filter(Verdict::complete)
          .mapToLong(Verdict::wallNanos).max()
          .orElse(trials.stream().mapToLong(t -> t.verdict().wallNanos()).max()
              .orElse(options.expectedTrial().toNanos()));
      long needed = saturatedAdd(longest, (long) (extraCost(levers) * 1e9));
      long now = ticker.nanos();
      boolean fits = now < deadline && deadline - now >= needed;
      if (!fits) {
        shortNeeded = needed / 1e9;
        shortLeft = (deadline - now) / 1e9;
      }
      return fits;
    }

    private String whyNot(Lever lever) {
      try {
        if (lever.safety() == null) {
          return "it declares no safety class";
        }
        if (lever.safety() == SafetyClass.C && !context.allowDeviceSettings()) {
          return "it changes device settings (class C), which needs --allow-device-settings";
        }
        Lever.Applicability a = lever.check(context.withSetup(anchor));
        if (a == null) {
          return "its precondition check gave no answer";
        }
        return a.applies() ? null : "it does not apply: " + a.reason();
      } catch (RuntimeException e) {
        return "its precondition check failed: " + e.getMessage();
      }
    }

    private boolean targetReached() {
      return chainedGain >= 1 + options.target();
    }

    private void stop(StopReason reason, String detail) {
      if (stopped == null) {
        stopped = reason;
        stopDetail = detail;
      }
    }

    private Result result(StopReason reason, String detail) {
      String gain = String.format(Locale.ROOT, "; kept %s, chained gain %.4f", ids(kept), chainedGain);
      return new Result(original, anchor, ids(kept), trials, chainedGain, reason, detail + note + gain, notTried,
          reused);
    }
  }

  /** A verdict for a trial: its candidate setup, whether the earlier search's, and the trial when this search's. */
  private record Measured(Verdict verdict, Setup candidate, boolean reused, TrialRecord previous) {}

  /** Levers applied one after another: the setup and the order they were applied in. */
  private record Built(Setup setup, List<Candidate> order) {}

  private static List<Candidate> minus(List<Candidate> levers, Candidate c) {
    List<Candidate> out = new ArrayList<>(levers);
    out.remove(c);
    return out;
  }

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

  private static List<String> ids(List<Candidate> cs) {
    return cs.stream().map(Candidate::id).toList();
  }

  private static SafetyClass safety(List<Candidate> cs) {
    return cs.stream().map(c -> c.lever().safety()).max(Comparator.naturalOrder()).orElse(SafetyClass.A);
  }

  private static double extraCost(List<Candidate> cs) {
    double sum = 0;
    for (Candidate c : cs) {
      double s = c.lever().trialCostSeconds();
      sum += Double.isFinite(s) && s > 0 ? s : 0;
    }
    return sum;
  }

  private static long saturatedAdd(long a, long b) {
    long r = a + b;
    return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
  }

  private static String percent(double fraction) {
    return String.format(Locale.ROOT, "%.0f%%", 100 * fraction);
  }
}
