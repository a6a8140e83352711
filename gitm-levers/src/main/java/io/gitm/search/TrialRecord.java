package io.gitm.search;

import io.gitm.levers.Setup;
import java.util.List;

/**
 * One trial of the agent, as journaled and reported: what was tried on top of which anchor, and the gate's verdict.
 * A list of these is also what a resumed search is given, so that a trial done before is not done again.
 *
 * @param index the trial's position in the search, from 0
 * @param kind a single lever, a pair, a bundle, a member check or subset of a combination, or the final confirmation
 * @param levers the ids of the levers tried (applied in this order on top of the anchor); for a confirmation, every
 *     kept lever; for a {@link Kind#MEMBER} check of one member, that member
 * @param anchorLevers the ids of the levers the setup it was measured against already had (for every kind but a
 *     member check, the agent's anchor: the levers kept before, in order); empty for a confirmation, whose anchor is
 *     the original setup; for a member check of one member, the anchor's levers and the combination's other members
 *     still held
 * @param candidate the setup measured against the anchor
 * @param predictedGain what the agent expected of the levers tried: the prediction for a single lever; for a pair,
 *     the product of each lever's prediction combined with its own inconclusive measurement; for a confirmation, the
 *     gain chained from the kept trials
 * @param basis where that expectation came from: {@code replay} or {@code prior} for a single lever, e.g.
 *     {@code replay+prior+measured} for a pair, {@code chained} for a confirmation
 * @param verdict the gate's verdict
 */
public record TrialRecord(int index, Kind kind, List<String> levers, List<String> anchorLevers, Setup candidate,
    double predictedGain, String basis, Verdict verdict) {
  public TrialRecord {
    if (index < 0 || kind == null || verdict == null || candidate == null) {
      throw new IllegalArgumentException("a trial record needs an index >= 0, a kind, a candidate and a verdict");
    }
    levers = List.copyOf(levers);
    anchorLevers = List.copyOf(anchorLevers);
    if (levers.isEmpty()) {
      throw new IllegalArgumentException("trial " + index + " names no lever");
    }
    basis = basis == null ? "" : basis;
  }

  /**
   * Whether the gate kept the candidate and, but for a confirmation, the agent's anchor moved to it: false for a
   * {@link Kind#MEMBER} check, whose passing only says that a member matters. The product of the gains of the kept
   * trials other than the confirmation is the agent's chained gain.
   */
  public boolean kept() {
    return verdict.kept() && kind != Kind.MEMBER;
  }

  /** What identifies a trial across a resume. */
  Key key() {
    return new Key(kind, levers, anchorLevers);
  }

  /** The kind of trial. */
  public enum Kind {
    /** One lever on top of the anchor. */
    SINGLE,
    /** Two levers that were each inconclusive alone, together on top of the anchor. */
    PAIR,
    /**
     * A lever that does not apply to the anchor, with the fewest other candidates that make it apply (applied
     * first), together on top of the anchor.
     */
    BUNDLE,
    /**
     * A check that a member of a passed combination (pair or bundle) matters: the combination's setup against the
     * same without that member ({@code levers} holds the member, {@code anchorLevers} the rest). A combination that
     * lost a member to these checks is also journaled with this kind, as its setup never became the anchor. Never
     * moves the anchor.
     */
    MEMBER,
    /**
     * What is left of a passed combination once the members that did not matter were dropped, on top of the anchor
     * the combination was tried on.
     */
    SUBSET,
    /** The original setup against the final anchor. */
    CONFIRMATION
  }

  record Key(Kind kind, List<String> levers, List<String> anchorLevers) {}
}
