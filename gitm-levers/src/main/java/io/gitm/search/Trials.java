package io.gitm.search;

import io.gitm.levers.Setup;
import io.gitm.search.Agent.Listener;
import io.gitm.search.TrialRecord.Key;
import io.gitm.search.TrialRecord.Kind;
import io.gitm.search.Verdict.Outcome;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A search's trials: every one in order (reused ones included), this search's by key (a question asked again gets
 * the first answer), the trials of an earlier, interrupted search not reused yet, and the listener told of each new
 * one.
 */
final class Trials {
  private final List<TrialRecord> all = new ArrayList<>();
  private final Map<Key, TrialRecord> done = new HashMap<>();
  private final Map<Key, TrialRecord> earlier = new HashMap<>();
  private final Listener listener;
  private int reused;

  Trials(List<TrialRecord> completed, Listener listener) {
    this.listener = listener;
    for (TrialRecord t : completed) {
      if (t == null) {
        throw new IllegalArgumentException("completed trials hold a null entry");
      }
      if (earlier.put(t.key(), t) != null) {
        throw new IllegalArgumentException("completed trials hold trial " + t.levers() + " on " + t.anchorLevers()
            + " twice");
      }
    }
  }

  /** Every trial so far, in order (a view). */
  List<TrialRecord> all() {
    return Collections.unmodifiableList(all);
  }

  boolean isEmpty() {
    return all.isEmpty();
  }

  /** How many of the trials were reused from the earlier search. */
  int reused() {
    return reused;
  }

  /** Whether some trial so far held lever {@code id}. */
  boolean anyWith(String id) {
    return all.stream().anyMatch(t -> t.levers().contains(id));
  }

  /**
   * The verdict already known for {@code candidate} against {@code arm} under one of {@code keys}: this search's
   * (for a refused setup, the one on the same arm), else the earlier search's when it measured the same setup, which
   * is then used up; null when neither has one.
   */
  Measured known(List<Key> keys, Setup arm, Setup candidate, String refused) {
    for (Key key : keys) {
      TrialRecord d = done.get(key);
      if (d != null && d.candidate().equals(refused == null ? candidate : arm)) {
        return new Measured(d.verdict(), d.candidate(), false, d);
      }
    }
    for (Key key : keys) {
      TrialRecord e = earlier.get(key);
      if (e != null && refused == null && e.candidate().equals(candidate)) {
        earlier.remove(key);
        return new Measured(e.verdict(), e.candidate(), true, null);
      }
    }
    return null;
  }

  /** The earlier search's trial under {@code key}, used up; null when it has none. */
  TrialRecord takeEarlier(Key key) {
    return earlier.remove(key);
  }

  /** Appends the earlier search's trial {@code t} as it was. */
  void reuse(TrialRecord t) {
    reused++;
    all.add(t);
  }

  /** Appends the confirmation this search ran of the levers {@code ids}, and tells the listener. */
  TrialRecord confirmation(List<String> ids, Setup candidate, double chainedGain, Verdict v) {
    TrialRecord t = new TrialRecord(all.size(), Kind.CONFIRMATION, ids, List.of(), candidate, chainedGain, "chained",
        v);
    all.add(t);
    if (v.outcome() != Outcome.INTERRUPTED) {
      listener.trialDone(t);
    }
    return t;
  }

  /**
   * Adds a trial to the list and tells the listener (unless it was reused or interrupted); a verdict this search
   * already journaled is its trial, not added again.
   */
  TrialRecord journal(Kind kind, List<String> ids, List<String> armIds, Measured m, double predicted, String basis) {
    if (m.previous() != null) {
      return m.previous();
    }
    TrialRecord t = new TrialRecord(all.size(), kind, ids, armIds, m.candidate(), predicted, basis, m.verdict());
    all.add(t);
    done.put(t.key(), t);
    if (m.reused()) {
      reused++;
    } else if (m.verdict().outcome() != Outcome.INTERRUPTED) {
      listener.trialDone(t);
    }
    return t;
  }

  /**
   * A verdict for a trial: its candidate setup, whether the earlier search's, and the trial when this search's.
   */
  record Measured(Verdict verdict, Setup candidate, boolean reused, TrialRecord previous) {
  }
}
