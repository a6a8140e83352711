package io.gitm.analysis.attribution;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;

/**
 * The lost time of a trace, per cause: the only way a detector adds lost time. Each cause has one owner, the first
 * detector that writes it; the ledger refuses a write to a cause the running detector does not declare, or that
 * another detector owns. Evidence alone may be added to any cause's entry ({@link #note}).
 */
final class Ledger {
  private final Map<Cause, Lost> entries = new EnumMap<>(Cause.class);
  private final Map<Cause, Detector> owners = new EnumMap<>(Cause.class);
  private Detector running;

  /** Runs {@code d} on {@code in}; while it runs it is the only detector that may write. */
  void run(Detector d, Input in) {
    if (running != null) {
      throw new IllegalStateException(name(d) + " cannot run inside " + name(running));
    }
    running = d;
    try {
      d.detect(in, this);
    } finally {
      running = null;
    }
  }

  /**
   * The running detector's lost time for cause {@code c}, opened on its first use.
   *
   * @throws IllegalStateException when no detector runs, the running one does not declare {@code c}, or another
   *     detector owns it
   */
  Lost lost(Cause c) {
    if (running == null) {
      throw new IllegalStateException("lost time for " + c + " written outside a detector");
    }
    if (!running.causes().contains(c)) {
      throw new IllegalStateException(name(running) + " writes " + c + ", which it does not declare");
    }
    Detector owner = owners.putIfAbsent(c, running);
    if (owner != null && owner != running) {
      throw new IllegalStateException(c + " is owned by " + name(owner) + "; " + name(running) + " may not write it");
    }
    return entries.computeIfAbsent(c, k -> new Lost());
  }

  /** Whether cause {@code c} has an entry (a detector opened it). */
  boolean has(Cause c) {
    return entries.containsKey(c);
  }

  /** Adds evidence to cause {@code c}'s entry, without lost time; false when {@code c} has none. */
  boolean note(Cause c, Evidence e) {
    Lost l = entries.get(c);
    if (l != null) {
      l.evidence(e);
    }
    return l != null;
  }

  /** The entries, in {@link Cause} order, read-only. */
  Map<Cause, Lost> entries() {
    return Collections.unmodifiableMap(entries);
  }

  private static String name(Detector d) {
    return d.getClass().getSimpleName();
  }
}
