package io.gitm.search;

import io.gitm.rank.Candidate;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * A search's candidates by where they stand: usable (they applied to an anchor), deferred (they did not apply to the
 * first anchor but may to a later one, as graph capture after pinned memory and preallocation: checked again whenever
 * the anchor moves), and, for each candidate not tried, why not.
 */
final class Roster {
  private final List<Candidate> usable = new ArrayList<>();
  private final List<Candidate> deferred = new ArrayList<>();
  private final Map<String, String> notTried = new LinkedHashMap<>();

  /** A candidate that applies to the anchor. */
  void use(Candidate c) {
    usable.add(c);
  }

  /** A candidate that does not apply to the anchor, for reason {@code why}; checked again later when {@code retry}. */
  void defer(Candidate c, String why, boolean retry) {
    notTried.put(c.id(), why);
    if (retry) {
      deferred.add(c);
    }
  }

  /** The usable candidates, in the order they became usable. */
  List<Candidate> usable() {
    return usable;
  }

  /** The deferred candidates, in the order they were given. */
  List<Candidate> deferred() {
    return deferred;
  }

  boolean isDeferred(Candidate c) {
    return deferred.contains(c);
  }

  /** A deferred candidate that applies now: usable, and no longer among those not tried. */
  void admit(Candidate d) {
    deferred.remove(d);
    notTried.remove(d.id());
    usable.add(d);
  }

  /** The deferred candidates that are {@code ready}, admitted in their order. */
  List<Candidate> admitReady(Predicate<Candidate> ready) {
    List<Candidate> out = new ArrayList<>();
    for (Iterator<Candidate> it = deferred.iterator(); it.hasNext(); ) {
      Candidate d = it.next();
      if (ready.test(d)) {
        it.remove();
        notTried.remove(d.id());
        usable.add(d);
        out.add(d);
      }
    }
    return out;
  }

  /** A deferred candidate that a kept combination now holds. */
  void undefer(Candidate d) {
    deferred.remove(d);
  }

  /** Lever {@code id} was tried. */
  void tried(String id) {
    notTried.remove(id);
  }

  void notTried(String id, String why) {
    notTried.put(id, why);
  }

  void notTriedUnlessKnown(String id, String why) {
    notTried.putIfAbsent(id, why);
  }

  /** The candidates not tried, by lever id, with the reason, in the order they were found. */
  Map<String, String> notTried() {
    return notTried;
  }
}
