package io.gitm.analysis.attribution;

import java.util.Set;

/**
 * One detector of attribution: it measures the time its causes cost in a trace and writes it, with its evidence, to
 * the {@link Ledger}. A cause has one detector; a pass that only adds evidence to other detectors' causes declares
 * none.
 */
interface Detector {
  /** The causes this detector writes lost time to, and no other detector does. */
  Set<Cause> causes();

  /** Measures the causes' lost time in {@code in} and writes it to {@code out}. */
  void detect(Input in, Ledger out);
}
