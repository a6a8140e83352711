package io.gitm.search;

import io.gitm.rank.Candidate;
import io.gitm.search.TrialRecord.Kind;
import io.gitm.search.Verdict.Arm;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * What a search has learned from its trials: the combinations whose candidate failed (no setup holding all of one is
 * tried again) and the levers banned for it, which levers ran alone on an anchor without failing and what they
 * measured, the levers whose single trial was inconclusive without ruling out a gain (with what is believed of them),
 * the pairs and bundles already tried on an anchor, and how often the anchor itself failed in a row.
 *
 * <p>A failure of a trial's candidate (crash, hang, OOM, device error, NaN, changed output, refused setup) bans each
 * of its levers unless the trial held several and that one had run alone before without failing: a lever that never
 * ran alone cannot be cleared of the failure; one that did is still tried in other combinations. A lever whose output
 * changed or held NaN alone also rules out the levers that make the same change to arithmetic by another route
 * ({@link io.gitm.levers.Lever#numerics}).
 */
final class Ledger {
  private final Set<Set<String>> failedCombinations = new HashSet<>();
  private final Set<String> banned = new HashSet<>();
  private final Set<String> ranAlone = new HashSet<>();
  private final Map<String, Double> aloneGain = new HashMap<>();
  private final Map<Candidate, Belief> inconclusive = new LinkedHashMap<>();
  /** Pairs and bundles tried, as their levers joined and the anchor's: not repeated on the same anchor. */
  private final Set<List<String>> combinationsTried = new HashSet<>();
  /** Changes to arithmetic ({@link io.gitm.levers.Lever#numerics}) ruled out, with the trial's lever and outcome. */
  private final Map<String, String> failedNumerics = new LinkedHashMap<>();
  private int pairsLeftAtCap;
  private int anchorFailures;

  /** What {@link #combinationsTried} knows {@code levers} tried on an anchor holding {@code kept} by. */
  static List<String> key(List<Candidate> levers, List<Candidate> kept) {
    return List.of(String.join("+", Combination.ids(levers)), String.join("+", Combination.ids(kept)));
  }

  boolean banned(Candidate c) {
    return banned.contains(c.id()) || sameNumericsFailed(c) != null;
  }

  /**
   * Why {@code c} is ruled out by another lever's failed trial of the same arithmetic, or null: a lever that makes a
   * change another made ({@link io.gitm.levers.Lever#numerics}) when that one's output changed or held NaN alone.
   */
  String sameNumericsFailed(Candidate c) {
    if (banned.contains(c.id())) {
      return null;
    }
    for (String n : c.lever().numerics()) {
      String why = failedNumerics.get(n);
      if (why != null) {
        return why;
      }
    }
    return null;
  }

  /** The banned levers' ids, sorted. */
  List<String> bannedIds() {
    return banned.stream().sorted().toList();
  }

  /**
   * Whether a setup of an anchor holding {@code kept} plus {@code levers} is ruled out: it holds a banned lever, or a
   * combination whose trial failed.
   */
  boolean blocked(List<Candidate> levers, List<Candidate> kept) {
    if (levers.stream().anyMatch(this::banned)) {
      return true;
    }
    Set<String> with = new HashSet<>(Combination.ids(kept));
    with.addAll(Combination.ids(levers));
    return failedCombinations.stream().anyMatch(with::containsAll);
  }

  /** Counts a trial against the anchor: the anchor's failures in a row, 0 when it did not fail this time. */
  int anchorTrial(Verdict v) {
    if (v.failedArm() == Arm.ANCHOR) {
      return ++anchorFailures;
    }
    anchorFailures = 0;
    return 0;
  }

  /** Learns from trial {@code t}, whose candidate held {@code levers} on top of its arm. */
  void learn(TrialRecord t, List<Candidate> levers, Agent.Options options) {
    Verdict v = t.verdict();
    if (v.failedArm() == Arm.CANDIDATE && v.outcome().failure()) {
      failedCombinations.add(Set.copyOf(Combination.ids(levers)));
      for (Candidate c : levers) {
        if (levers.size() == 1 || !ranAlone.contains(c.id())) {
          banned.add(c.id());
        }
      }
      if (levers.size() == 1 && (v.outcome() == Verdict.Outcome.OUTPUT_CHANGED
          || v.outcome() == Verdict.Outcome.NAN_OUTPUT)) {
        for (String n : levers.getFirst().lever().numerics()) {
          failedNumerics.putIfAbsent(n, "its arithmetic (" + n + ") is " + levers.getFirst().id() + "'s, whose output "
              + (v.outcome() == Verdict.Outcome.NAN_OUTPUT ? "held NaN" : "changed beyond the tolerance"));
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
  }

  /** {@code levers} ordered by the evidence that they help, weakest first: measured alone, else predicted. */
  List<Candidate> byEvidence(List<Candidate> levers) {
    return levers.stream().sorted(Comparator.<Candidate>comparingDouble(
        c -> aloneGain.getOrDefault(c.id(), c.predictedGain())).thenComparing(Candidate::id)).toList();
  }

  /** The inconclusive levers still open (not {@code held}, not banned), in the order their trials ran. */
  List<Map.Entry<Candidate, Belief>> open(Predicate<Candidate> held) {
    return inconclusive.entrySet().stream().filter(e -> !held.test(e.getKey()) && !banned(e.getKey())).toList();
  }

  boolean tried(List<String> key) {
    return combinationsTried.contains(key);
  }

  /** Notes the combination under {@code key} as tried; false when it was already. */
  boolean markTried(List<String> key) {
    return combinationsTried.add(key);
  }

  /** Counts a pair left untried because the cap of pair trials was reached. */
  void leftAtCap() {
    pairsLeftAtCap++;
  }

  int pairsLeftAtCap() {
    return pairsLeftAtCap;
  }
}
