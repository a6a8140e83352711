package io.gitm.cli;

import io.gitm.api.Ticker;
import io.gitm.workload.Workload;
import java.time.Clock;
import java.util.function.UnaryOperator;

/**
 * What {@code gitm run} reads time from, and the built-in workload it runs: the host's monotonic clock, the system's
 * UTC clock and the workload as found, unless a test of this package put in place a clock that the workload's own
 * steps move, so that a run's outcome does not depend on the machine's speed.
 *
 * @param wall the clock the budget and its phases are measured on
 * @param clock the calendar time the journal and the reports are stamped with
 * @param workloads what runs in place of a built-in workload
 */
record RunClocks(Ticker wall, Clock clock, UnaryOperator<Workload> workloads) {
  static final RunClocks SYSTEM = new RunClocks(Ticker.system(), Clock.systemUTC(), w -> w);

  private static volatile RunClocks current = SYSTEM;

  /** The clocks a run started now uses. */
  static RunClocks current() {
    return current;
  }

  /** Runs started from now on use {@code clocks}. */
  static void use(RunClocks clocks) {
    current = clocks;
  }
}
