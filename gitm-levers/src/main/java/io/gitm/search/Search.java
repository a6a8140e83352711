package io.gitm.search;

import io.gitm.job.Job;
import io.gitm.levers.Lever;
import io.gitm.levers.LeverContext;
import io.gitm.levers.SafetyClass;
import io.gitm.levers.Setup;
import io.gitm.rank.Candidate;
import io.gitm.search.Agent.Result;
import io.gitm.search.Agent.StopReason;
import io.gitm.search.Setups.Built;
import io.gitm.search.TrialRecord.Key;
import io.gitm.search.TrialRecord.Kind;
import io.gitm.search.Trials.Measured;
import io.gitm.search.Verdict.Arm;
import io.gitm.search.Verdict.Outcome;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.Set;

/**
 * One search of {@link Agent#optimize}, whose javadoc explains the algorithm: a controller whose state sits in named
 * parts. {@link Anchor} is where it stands, {@link Trials} what it ran (and may reuse), {@link Ledger} what the trials
 * taught it, {@link Roster} where each candidate stands, {@link Bundles} the deferred levers still to try with their
 * enablers, {@link Allowance} the time and output tolerance left, and {@link Stop} how it ends.
 */
final class Search {
  private final Job job;
  private final Agent.Options options;
  private final Gate gate;
  private final Agent.Predictor onTop;
  private final double minGain;
  /** Expected gain times the chance that it is real, per second of trial, best first. */
  private final Comparator<Candidate> order;

  final Setups setups;
  final Anchor anchor;
  final Allowance allowance;
  final Trials trials;
  final Ledger ledger = new Ledger();
  final Roster roster = new Roster();
  final Bundles bundles;
  final Stop stop = new Stop();

  Search(Agent agent, Job job, Setup anchor, List<Candidate> candidates, LeverContext context, long deadline,
      Agent.Listener listener, List<TrialRecord> completed) {
    this.job = job;
    this.options = agent.options();
    this.gate = agent.gate;
    this.onTop = agent.onTop;
    this.setups = new Setups(context);
    this.anchor = new Anchor(anchor);
    this.allowance = new Allowance(agent.ticker, deadline, options.expectedTrial(),
        setups.tolerance(options.outputTolerance()));
    this.trials = new Trials(completed, listener);
    this.bundles = new Bundles(setups, this.anchor, ledger);
    double min = options.gate().minGain();
    double trialSeconds = Math.max(1, options.expectedTrial().toNanos() / 1e9);
    this.minGain = min;
    this.order = Comparator.<Candidate>comparingDouble(
            c -> -(c.predictedGain() - 1) * c.chanceOfGain(min) / (trialSeconds + Combination.extraCost(List.of(c))))
        .thenComparing(c -> -c.predictedGain()).thenComparing(Candidate::id);
    enrol(candidates);
  }

  /** Sorts the candidates into those that apply to the first anchor and those deferred. */
  private void enrol(List<Candidate> candidates) {
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
        roster.use(c);
      } else {
        SafetyClass safety = c.lever().safety();
        roster.defer(c, why, safety != null && (safety != SafetyClass.C || setups.allowDeviceSettings()));
      }
    }
  }

  Result run() {
    if (roster.usable().isEmpty()) {
      return result(StopReason.NO_CANDIDATES,
          roster.notTried().isEmpty() ? "no candidate levers" : "no candidate lever applies");
    }
    List<Candidate> ranked = new ArrayList<>(roster.usable());
    ranked.sort(order);
    bundles.addAll(roster.deferred());
    singles(ranked);
    pairs();
    // pairs may have moved the anchor far enough for deferred levers to apply: more rounds of singles (and of the
    // pairs they open up) for them
    for (int round = 0; round < Agent.LATE_ROUNDS && !stop.stopped(); round++) {
      List<Candidate> late = nowApplicable();
      if (late.isEmpty()) {
        break;
      }
      late.sort(order);
      singles(late);
      pairs();
    }
    confirm();
    return finish();
  }

  /* --------------- Singles and bundles --------------- */

  /**
   * Tries each of {@code ranked} alone, in order; levers that start to apply as the anchor moves join in. A
   * deferred lever is tried in a bundle with its missing enablers where its own rank would put it.
   */
  private void singles(List<Candidate> ranked) {
    while (!stop.stopped()) {
      Candidate d = bundles.next(order, roster);
      Candidate c = ranked.isEmpty() ? null : ranked.getFirst();
      if (c == null && d == null) {
        break;
      }
      Setup before = anchor.setup();
      if (d != null && (c == null || order.compare(d, c) < 0)) {
        bundles.remove(d);
        if (targetReached() && d.chanceOfGain(minGain) < options.promisingChance()) {
          stop.skippedForTarget();
          continue;
        }
        bundle(d);
      } else {
        ranked.removeFirst();
        String sameNumerics = ledger.sameNumericsFailed(c);
        if (sameNumerics == null) {
          sameNumerics = sameNumericsKept(c);
        }
        if (sameNumerics != null) {
          roster.notTried(c.id(), sameNumerics);
          continue;
        }
        if (ledger.banned(c) || anchor.holds(c)) {
          // a lever kept through a bundle or pair of an earlier step is on the anchor already
          continue;
        }
        if (targetReached() && c.chanceOfGain(minGain) < options.promisingChance()) {
          stop.skippedForTarget();
          roster.notTried(c.id(), "target reached and its chance of a gain is below "
              + percent(options.promisingChance()));
          continue;
        }
        attempt(Kind.SINGLE, List.of(c));
      }
      if (!anchor.setup().equals(before) && !roster.deferred().isEmpty()) {
        // the anchor moved: levers whose preconditions it now meets join the ranking
        ranked.addAll(nowApplicable());
        ranked.sort(order);
      }
    }
  }

  /** Deferred candidates that apply to the anchor now, taken out of the deferred list. */
  private List<Candidate> nowApplicable() {
    return roster.admitReady(d -> !ledger.banned(d) && whyNot(d.lever()) == null);
  }

  /**
   * A deferred lever together with the fewest candidates (at most {@link Agent#MAX_ENABLERS}) that make it apply,
   * the enablers first; alone when the anchor now meets its precondition.
   */
  private void bundle(Candidate d) {
    if (whyNot(d.lever()) == null) {
      roster.admit(d);
      attempt(Kind.SINGLE, List.of(d));
      return;
    }
    List<Candidate> pool = roster.usable().stream().filter(c -> !anchor.holds(c) && !ledger.banned(c)
        && !roster.isDeferred(c)).sorted(order).toList();
    List<Candidate> levers = bundles.enabling(d, pool);
    if (levers == null) {
      return;
    }
    if (!ledger.markTried(Ledger.key(levers, anchor.kept()))) {
      return;
    }
    if (attempt(Kind.BUNDLE, levers, Combination.predicted(levers), Combination.basis(levers)) != null) {
      roster.tried(d.id());
    }
    if (anchor.holds(d)) {
      roster.undefer(d);
    }
  }

  /* --------------- Pairs --------------- */

  /** Two levers tried together, with what is believed of their gain together. */
  private record Pair(Candidate a, Candidate b, Belief belief) {
  }

  /**
   * Levers that were inconclusive alone, tried two at a time. Pairs are ordered by their predictions (a gain that
   * only shows in combination leaves no trace in the single trials), then by what is believed of them after those
   * trials; once the target is reached, only pairs whose believed gain clears the gate's minimum are tried.
   */
  private void pairs() {
    int tried = 0;
    for (Pair p : pairsToTry()) {
      if (stop.stopped()) {
        break;
      }
      List<Candidate> levers = List.of(p.a(), p.b());
      if (anchor.holds(p.a()) || anchor.holds(p.b()) || blocked(levers)) {
        continue;
      }
      if (targetReached() && p.belief().gain() < 1 + minGain) {
        stop.skippedForTarget();
        continue;
      }
      List<String> key = Ledger.key(levers, anchor.kept());
      if (ledger.tried(key)) {
        continue;
      }
      if (tried >= options.maxPairs()) {
        ledger.leftAtCap();
        continue;
      }
      ledger.markTried(key);
      String basis = p.a().basis() + "+" + p.b().basis() + "+measured";
      if (attempt(Kind.PAIR, levers, p.belief().gain(), basis) != null) {
        tried++;
        if (anchor.holds(p.b())) {
          roster.undefer(p.b());
          roster.tried(p.b().id());
        }
      }
    }
  }

  /** The pairs of open inconclusive levers, and of each with a deferred lever it makes apply, in trial order. */
  private List<Pair> pairsToTry() {
    List<Map.Entry<Candidate, Belief>> open = ledger.open(anchor::holds);
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
        with = e.getKey().lever().apply(anchor.setup(), setups.on(anchor.setup()));
      } catch (RuntimeException ex) {
        continue;
      }
      if (with == null) {
        continue;
      }
      for (Candidate d : roster.deferred()) {
        if (!ledger.banned(d) && setups.applies(d, with)) {
          pairs.add(new Pair(e.getKey(), d, e.getValue().and(new Belief(d.predictedGain(), d.uncertainty()))));
        }
      }
    }
    pairs.sort(Comparator.comparingDouble((Pair p) -> -p.a().predictedGain() * p.b().predictedGain())
        .thenComparingDouble(p -> -p.belief().gain()).thenComparing(p -> p.a().id()).thenComparing(p -> p.b().id()));
    return pairs;
  }

  /* --------------- Confirmation and the result --------------- */

  /** The original against the final anchor, when something was kept and there is time. */
  private void confirm() {
    if (!options.confirm() || anchor.kept().isEmpty() || stop.stopped()) {
      return;
    }
    List<String> ids = anchor.ids();
    TrialRecord earlierTrial = trials.takeEarlier(new Key(Kind.CONFIRMATION, ids, List.of()));
    SafetyClass safety = Combination.safety(anchor.kept());
    TrialRecord t;
    if (earlierTrial != null && earlierTrial.candidate().equals(anchor.setup())) {
      t = earlierTrial;
      trials.reuse(t);
    } else {
      int pairs = plan(anchor.kept());
      if (pairs == 0) {
        allowance.runOut();
        return;
      }
      Verdict v = gate.judge(job, anchor.original(), anchor.setup(), safety, allowance.tolerance(),
          allowance.deadline(), pairs);
      t = trials.confirmation(ids, anchor.setup(), anchor.chainedGain(), v);
    }
    Verdict v = t.verdict();
    if (v.outcome() == Outcome.INTERRUPTED || Thread.currentThread().isInterrupted()) {
      stop.stop(StopReason.INTERRUPTED, "interrupted during the confirmation");
      return;
    }
    boolean candidateFailed = v.outcome().failure() && v.failedArm() == Arm.CANDIDATE;
    if (candidateFailed || v.outcome() == Outcome.SLOWER || v.outcome() == Outcome.NOT_SIGNIFICANT) {
      String why = "the confirmation of " + ids + " against the original was " + v.outcome() + " ("
          + v.detail() + "); back to the original setup";
      anchor.reset();
      stop.gaveUp(why);
    } else if (v.outcome() == Outcome.OUT_OF_BUDGET) {
      allowance.runOut();
    }
  }

  /** The result, with the line that says why the search ended. */
  private Result finish() {
    if (stop.stopped()) {
      return result(stop.reason(), stop.detail());
    }
    if (allowance.outOfTime()) {
      if (trials.isEmpty() && Double.isFinite(allowance.shortNeeded())) {
        return result(StopReason.DEADLINE, String.format(Locale.ROOT, "no trial could have finished"
            + " before the deadline: the smallest gate (%d pairs) at this job's speed is expected to take about"
            + " %.0f s and %.0f s were left for applying; a larger --budget gives the gates room",
            allowance.shortPairs(), allowance.shortNeeded(), Math.max(0, allowance.shortLeft())));
      }
      return result(StopReason.DEADLINE, "the next trial could not have finished before the deadline"
          + left());
    }
    if (targetReached()) {
      return result(StopReason.TARGET_REACHED, "target " + percent(options.target()) + " reached"
          + (stop.skippedAnyForTarget() ? "; the levers left were not promising" : "; nothing left to try")
          + left());
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
    Map<String, String> notTried = roster.notTried();
    if (!notTried.isEmpty()) {
      parts.add(notTried.size() + (notTried.size() == 1 ? " candidate" : " candidates") + " never tried: "
          + String.join("; ", notTried.entrySet().stream().map(e -> e.getKey() + " (" + e.getValue() + ")")
          .toList()));
    }
    List<String> banned = ledger.bannedIds();
    if (!banned.isEmpty()) {
      parts.add("not tried again after a failed trial: " + String.join(", ", banned));
    }
    int leftAtCap = ledger.pairsLeftAtCap();
    if (leftAtCap > 0) {
      parts.add(leftAtCap + (leftAtCap == 1 ? " pair" : " pairs") + " of inconclusive levers left"
          + " untried at the cap of " + options.maxPairs() + " pairs");
    }
    return parts.isEmpty() ? "" : " (" + String.join("; ", parts) + ")";
  }

  private Result result(StopReason reason, String detail) {
    String gain = String.format(Locale.ROOT, "; kept %s, chained gain %.4f", anchor.ids(), anchor.chainedGain());
    return new Result(anchor.original(), anchor.setup(), anchor.ids(), trials.all(), anchor.chainedGain(), reason,
        detail + stop.notes() + gain, roster.notTried(), trials.reused());
  }

  /* --------------- Trials --------------- */

  /**
   * Tries {@code levers} on top of the anchor (or reuses the earlier search's verdict), and moves the anchor when
   * the gate keeps them (a combination: those of its members that matter).
   *
   * @return the trial, or null when none was made (no time, or the setup holds a combination that failed before)
   */
  private TrialRecord attempt(Kind kind, List<Candidate> levers) {
    String basis = Combination.basis(levers);
    if (kind == Kind.SINGLE && onTop != null && !anchor.kept().isEmpty()) {
      OptionalDouble g = onTop.gain(levers.getFirst().lever(), anchor.kept().stream().map(Candidate::lever)
          .toList());
      if (g.isPresent() && Double.isFinite(g.getAsDouble())) {
        return attempt(kind, levers, g.getAsDouble(), basis);
      }
    }
    return attempt(kind, levers, Combination.predicted(levers), basis);
  }

  private TrialRecord attempt(Kind kind, List<Candidate> levers, double predicted, String basis) {
    if (Thread.currentThread().isInterrupted()) {
      stop.stop(StopReason.INTERRUPTED, "interrupted");
      return null;
    }
    if (blocked(levers)) {
      return null;
    }
    List<String> ids = Combination.ids(levers);
    List<String> anchorIds = anchor.ids();
    Staged staged = stage(levers, anchorIds);
    if (staged == null) {
      return null;
    }
    Setup candidate = staged.setup();
    String refused = staged.refused();
    if (refused == null && candidate.equals(anchor.setup())) {
      refused = "lever" + (ids.size() > 1 ? "s " : " ") + String.join(", ", ids) + " changed nothing";
    }
    boolean combination = levers.size() > 1;
    List<Key> keys = new ArrayList<>(List.of(new Key(kind, ids, anchorIds)));
    if (combination) {
      keys.add(new Key(Kind.MEMBER, ids, anchorIds));
    }
    Measured m = measure(keys, anchor.setup(), candidate, refused, levers);
    if (m == null) {
      return null;
    }
    if (combination && m.verdict().kept() && m.previous() == null) {
      return keepMembers(kind, levers, m, predicted, basis);
    }
    TrialRecord t = trials.journal(kind, ids, anchorIds, m, predicted, basis);
    learn(t, levers);
    if (t.kept()) {
      adopt(t.candidate(), levers, t.verdict());
    }
    return t;
  }

  /**
   * A candidate setup: {@code setup}, or as far as it got when a lever could not be applied, and why not
   * ({@code refused}; null when it was made).
   */
  private record Staged(Setup setup, String refused) {
  }

  /**
   * {@code levers} applied on top of the anchor in their order; null when one of them no longer applies (the
   * anchor moved since the trial was planned: no trial, and no ban).
   */
  private Staged stage(List<Candidate> levers, List<String> anchorIds) {
    Setup candidate = anchor.setup();
    for (Candidate c : levers) {
      try {
        Lever.Applicability a = c.lever().check(setups.on(candidate));
        if (a != null && !a.applies()) {
          // preallocation ends the pool's threshold, graph capture the overlap on a second stream
          if (levers.size() == 1 && !trials.anyWith(c.id())) {
            roster.notTriedUnlessKnown(c.id(), "it does not apply on top of " + (anchor.kept().isEmpty()
                ? "the shipped setup" : String.join(" + ", anchorIds)) + ": " + a.reason());
          }
          return null;
        }
        Setup next = c.lever().apply(candidate, setups.on(candidate));
        if (next == null) {
          return new Staged(candidate, "lever " + c.id() + " made no setup");
        }
        candidate = next;
      } catch (RuntimeException e) {
        return new Staged(candidate, "lever " + c.id() + " could not be applied: " + e.getMessage());
      }
    }
    return new Staged(candidate, null);
  }

  /**
   * The verdict of {@code candidate} against {@code arm}: the one this search already has under one of
   * {@code keys}, else the earlier search's (when it measured the same setup), else a new gate.
   *
   * @return the verdict, or null when the trial could not have finished before the deadline
   */
  private Measured measure(List<Key> keys, Setup arm, Setup candidate, String refused, List<Candidate> levers) {
    Measured known = trials.known(keys, arm, candidate, refused);
    if (known != null) {
      return known;
    }
    if (refused != null) {
      return new Measured(Verdict.refused(refused), arm, false, null);
    }
    int pairs = plan(levers);
    if (pairs == 0) {
      allowance.runOut();
      return null;
    }
    SafetyClass s = Combination.safety(levers);
    return new Measured(gate.judge(job, arm, candidate, s, allowance.toleranceFor(compared(s)), allowance.deadline(),
        pairs),
        candidate, false, null);
  }

  /* --------------- Members of a passed combination --------------- */

  /** The checks of a passed combination's members so far: what is still held, and how the checks ended. */
  private static final class Members {
    List<Candidate> held;
    Setup heldSetup;
    final Set<Candidate> checked = new HashSet<>();
    /** The trial of what is held against the anchor itself, when one passed. */
    TrialRecord subset;
    /** The checks were cut short (stopped, interrupted, out of time). */
    boolean unchecked;
    /** A setup with what is held failed. */
    boolean failed;

    Members(List<Candidate> held, Setup heldSetup) {
      this.held = new ArrayList<>(held);
      this.heldSetup = heldSetup;
    }
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
    Setup start = anchor.setup();
    List<String> startIds = anchor.ids();
    Members m = new Members(levers, passed.candidate());
    checkMembers(m, start, startIds);
    boolean whole = m.held.size() == levers.size() || (m.unchecked && m.subset == null);
    if (!m.failed && !whole && !m.held.isEmpty() && m.subset == null && !stop.stopped()
        && !gateHeld(m, start, startIds, basis)) {
      whole = true;
      m.unchecked = true;
    }
    if (m.failed || stop.reason() == StopReason.INTERRUPTED) {
      whole = false;
      m.subset = null;
    }
    TrialRecord combination = trials.journal(whole ? kind : Kind.MEMBER, Combination.ids(levers), startIds, passed,
        predicted, basis);
    learn(combination, levers);
    if (whole) {
      adopt(passed.candidate(), levers, passed.verdict());
      if (m.unchecked && levers.size() > 1) {
        stop.note(String.join("+", Combination.ids(levers)) + " kept whole: no time to check that each member"
            + " matters");
      }
    } else if (m.subset != null) {
      adopt(m.subset.candidate(), m.held, m.subset.verdict());
    }
    return combination;
  }

  /** Checks the members of {@code m} one at a time, from {@code start} (the anchor), until none is left to check. */
  private void checkMembers(Members m, Setup start, List<String> startIds) {
    while (!m.held.isEmpty()) {
      if (stop.stopped() || Thread.currentThread().isInterrupted()) {
        m.unchecked = true;
        return;
      }
      Candidate member = null;
      Setup without = null;
      for (Candidate c : ledger.byEvidence(m.held)) {
        if (m.checked.contains(c)) {
          continue;
        }
        Built b = setups.arrange(start, Combination.without(m.held, c));
        if (b != null) {
          member = c;
          without = b.setup();
          break;
        }
      }
      if (member == null) {
        return;
      }
      m.checked.add(member);
      if (!checkMember(m, member, without, startIds)) {
        return;
      }
    }
  }

  /**
   * The setup with what {@code m} holds against the same without {@code member} ({@code without}); drops the
   * member unless the gate keeps it.
   *
   * @return whether the checks go on
   */
  private boolean checkMember(Members m, Candidate member, Setup without, List<String> startIds) {
    List<Candidate> rest = Combination.without(m.held, member);
    Kind k = rest.isEmpty() ? Kind.SUBSET : Kind.MEMBER;
    List<String> armIds = new ArrayList<>(startIds);
    armIds.addAll(Combination.ids(rest));
    Measured measured = measure(List.of(new Key(k, List.of(member.id()), armIds)), without, m.heldSetup, null,
        m.held);
    if (measured == null) {
      m.unchecked = true;
      return false;
    }
    TrialRecord t = trials.journal(k, List.of(member.id()), armIds, measured, member.predictedGain(),
        member.basis());
    learn(t, m.held);
    Verdict v = t.verdict();
    if (v.outcome() == Outcome.INTERRUPTED || v.outcome() == Outcome.OUT_OF_BUDGET) {
      m.unchecked = true;
      return false;
    }
    if (v.failedArm() == Arm.CANDIDATE && v.outcome().failure()) {
      m.failed = true;
      return false;
    }
    if (v.kept()) {
      if (rest.isEmpty()) {
        m.subset = t;
      }
      return true;
    }
    if (v.failedArm() == Arm.ANCHOR) {
      // the setup without it failed: it stays
      return true;
    }
    m.held = rest;
    m.heldSetup = without;
    return true;
  }

  /**
   * What {@code m} still holds after members were dropped, gated against the anchor ({@link Kind#SUBSET}).
   *
   * @return false when the gate could not run to the end (no time, interrupted)
   */
  private boolean gateHeld(Members m, Setup start, List<String> startIds, String basis) {
    Measured measured = measure(List.of(new Key(Kind.SUBSET, Combination.ids(m.held), startIds)), start,
        m.heldSetup, null, m.held);
    if (measured == null) {
      return false;
    }
    TrialRecord t = trials.journal(Kind.SUBSET, Combination.ids(m.held), startIds, measured,
        Combination.predicted(m.held), basis);
    learn(t, m.held);
    if (t.verdict().outcome() == Outcome.INTERRUPTED || t.verdict().outcome() == Outcome.OUT_OF_BUDGET) {
      return false;
    }
    if (t.kept()) {
      m.subset = t;
    }
    return true;
  }

  /* --------------- Learning and moving the anchor --------------- */

  /** Moves the anchor to {@code setup}, which has {@code levers} on top of the anchor, as {@code v} measured. */
  private void adopt(Setup setup, List<Candidate> levers, Verdict v) {
    anchor.move(setup, levers, v.gain());
    allowance.spend(compared(Combination.safety(levers)), v);
  }

  /**
   * Learns from a trial whose candidate held {@code levers} on top of its arm ({@link Ledger#learn}), and stops the
   * search when the anchor failed twice in a row, the trial was interrupted or it was cut at the deadline.
   */
  private void learn(TrialRecord t, List<Candidate> levers) {
    Verdict v = t.verdict();
    if (t.kind() != Kind.MEMBER) {
      int failures = ledger.anchorTrial(v);
      if (failures >= 2) {
        stop.stop(StopReason.ANCHOR_FAILED, "the anchor failed in " + failures + " trials in a row, last: "
            + v.outcome() + " (" + v.detail() + ")");
      }
    }
    ledger.learn(t, levers, options);
    if (v.outcome() == Outcome.INTERRUPTED) {
      stop.stop(StopReason.INTERRUPTED, "interrupted during trial " + (t.index() + 1) + " ("
          + String.join("+", t.levers()) + "), which is not counted");
    } else if (v.outcome() == Outcome.OUT_OF_BUDGET) {
      allowance.runOut();
      stop.stop(StopReason.DEADLINE, "trial " + (t.index() + 1) + " was cut at the deadline: " + v.detail());
    }
  }

  private boolean blocked(List<Candidate> levers) {
    return ledger.blocked(levers, anchor.kept());
  }

  /**
   * The pairs a trial of {@code levers} is planned for so that it ends before the deadline, going by the trials
   * measured so far: the gate's full plan, fewer when only fewer fit, 0 when not even the gate's floor does.
   */
  private int plan(List<Candidate> levers) {
    return allowance.plan(trials.all(), Combination.extraCost(levers), gate.options());
  }

  private String whyNot(Lever lever) {
    return setups.whyNot(lever, anchor.setup());
  }

  /** Why {@code c} has nothing to add to the anchor, or null: a kept lever already makes its change to arithmetic. */
  private String sameNumericsKept(Candidate c) {
    for (Candidate k : anchor.kept()) {
      for (String n : c.lever().numerics()) {
        if (k.lever().numerics().contains(n)) {
          return "its arithmetic (" + n + ") is already " + k.id() + "'s, kept";
        }
      }
    }
    return null;
  }

  private boolean targetReached() {
    return anchor.reached(options.target());
  }

  private static String percent(double fraction) {
    return String.format(Locale.ROOT, "%.0f%%", 100 * fraction);
  }

  /**
   * The class a trial's outputs are compared as: class B (within the tolerance) for every lever of a job whose own
   * runs disagree ({@link Job#reproducibleOutput()}), whose output no lever can keep bit-identical.
   */
  private SafetyClass compared(SafetyClass s) {
    return s != SafetyClass.B && !job.reproducibleOutput() ? SafetyClass.B : s;
  }
}
