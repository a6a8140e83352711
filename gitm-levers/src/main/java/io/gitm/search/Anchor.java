package io.gitm.search;

import io.gitm.levers.Setup;
import io.gitm.rank.Candidate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Where a search stands: the setup it started from, the anchor (the last setup known to be good: the original, or
 * one that passed a gate), the levers the anchor holds in the order they were kept, and the chained gain (the product
 * of the gains their gates measured).
 */
final class Anchor {
  private final Setup original;
  private final List<Candidate> kept = new ArrayList<>();
  private Setup setup;
  private double chainedGain = 1;

  Anchor(Setup original) {
    this.original = original;
    this.setup = original;
  }

  Setup original() {
    return original;
  }

  Setup setup() {
    return setup;
  }

  /** The kept levers, in the order they were kept (a view). */
  List<Candidate> kept() {
    return Collections.unmodifiableList(kept);
  }

  List<String> ids() {
    return Combination.ids(kept);
  }

  boolean holds(Candidate c) {
    return kept.contains(c);
  }

  double chainedGain() {
    return chainedGain;
  }

  /** Whether the chained gain reaches {@code target} (a fraction: 0.15 = 15%). */
  boolean reached(double target) {
    return chainedGain >= 1 + target;
  }

  /** Moves to {@code to}, which holds {@code levers} on top of the anchor, as a gate measured {@code gain}. */
  void move(Setup to, List<Candidate> levers, double gain) {
    setup = to;
    kept.addAll(levers);
    chainedGain *= gain;
  }

  /** Back to the original: nothing kept. */
  void reset() {
    setup = original;
    kept.clear();
    chainedGain = 1;
  }
}
