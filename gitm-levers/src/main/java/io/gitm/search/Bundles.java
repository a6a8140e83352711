package io.gitm.search;

import io.gitm.rank.Candidate;
import io.gitm.search.Setups.Built;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The deferred levers still to try in a bundle with the enablers that make them apply (graph capture with
 * asynchronous copies, pinned memory and preallocation), and the search for the fewest enablers (at most
 * {@link Agent#MAX_ENABLERS}) that do. A bundle tries the enablers first: they may gain nothing alone.
 */
final class Bundles {
  private final List<Candidate> toBundle = new ArrayList<>();
  private final Setups setups;
  private final Anchor anchor;
  private final Ledger ledger;

  Bundles(Setups setups, Anchor anchor, Ledger ledger) {
    this.setups = setups;
    this.anchor = anchor;
    this.ledger = ledger;
  }

  /** Deferred levers to bundle. */
  void addAll(List<Candidate> deferred) {
    toBundle.addAll(deferred);
  }

  /**
   * The first of the levers still to bundle in {@code order}, once those banned or no longer deferred are dropped;
   * null when none is left.
   */
  Candidate next(Comparator<Candidate> order, Roster roster) {
    toBundle.removeIf(d -> ledger.banned(d) || !roster.isDeferred(d));
    return toBundle.stream().min(order).orElse(null);
  }

  void remove(Candidate d) {
    toBundle.remove(d);
  }

  /**
   * The fewest levers of {@code pool} (the first in its order among those of one size, at most
   * {@link Agent#MAX_ENABLERS}) that make {@code d} apply to the anchor, arranged so each applies, {@code d} last;
   * null when none do or the bundle is ruled out.
   */
  List<Candidate> enabling(Candidate d, List<Candidate> pool) {
    List<Candidate> levers = null;
    for (int size = 1; size <= Math.min(Agent.MAX_ENABLERS, pool.size()) && levers == null; size++) {
      levers = enabling(d, pool, size, 0, new ArrayList<>());
    }
    return levers;
  }

  private List<Candidate> enabling(Candidate d, List<Candidate> pool, int size, int from, List<Candidate> chosen) {
    if (chosen.size() == size) {
      Built b = setups.arrange(anchor.setup(), chosen);
      if (b == null || !setups.applies(d, b.setup())) {
        return null;
      }
      List<Candidate> levers = new ArrayList<>(b.order());
      levers.add(d);
      return ledger.blocked(levers, anchor.kept()) ? null : levers;
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
}
