package io.gitm.agents;

import io.gitm.kernels.Setup;
import java.util.List;

/**
 * One trial of the agent, as journaled and reported: what was tried on top of which anchor, and the gate's verdict.
 * A list of these is also what a resumed search is given, so that a trial done before is not done again.
 *
 * @param index the trial's position in the search, from 0
 * @param kind a single lever, a pair, or the final confirmation
 * @param levers the ids of the levers tried (applied in this order on top of the anchor); for a confirmation, every
 *     kept lever
 * @param anchorLevers the ids of the levers the anchor already had (kept before, in order); empty for a
 *     confirmation, whose anchor is the original setup
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

  public boolean kept() {
    return verdict.kept();
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
    /** The original setup against the final anchor. */
    CONFIRMATION
  }

  record Key(Kind kind, List<String> levers, List<String> anchorLevers) {}
}
