package io.gitm.run;

import io.gitm.api.Ticker;
import java.time.Duration;
import java.util.Objects;

/**
 * A run's budget on the wall clock: the phase plan, the ticker the run reads, and the reading on it at which the run
 * started (earlier than now for a resumed run, by the time the interrupted run had used).
 *
 * @param startNanos the run's start, a reading of {@code wall}
 */
public record RunClock(PhasePlan plan, Ticker wall, long startNanos) {
  public RunClock {
    Objects.requireNonNull(plan, "plan");
    Objects.requireNonNull(wall, "wall");
  }

  /** Wall time since the run started; never negative. */
  public Duration elapsed() {
    return Duration.ofNanos(Math.max(0, wall.nanos() - startNanos));
  }

  /** Wall time since {@code reading}, an earlier reading of {@code wall}; never negative. */
  public Duration since(long reading) {
    return Duration.ofNanos(Math.max(0, wall.nanos() - reading));
  }

  /** {@link #elapsed()} in seconds. */
  public double elapsedSeconds() {
    return elapsed().toNanos() / 1e9;
  }

  /** Time left for {@code phase} now: up to its deadline, including what earlier phases did not use. */
  public Duration remaining(Phase phase) {
    return plan.remaining(phase, elapsed());
  }

  /** Whether {@code phase}'s deadline is still ahead. */
  public boolean before(Phase phase) {
    return elapsed().compareTo(plan.deadline(phase)) < 0;
  }

  /** The reading of {@code wall} at {@code fromStart} after the run's start. */
  public long nanosAt(Duration fromStart) {
    return startNanos + fromStart.toNanos();
  }

  /** Budget left now (negative once it is overrun). */
  public Duration budgetLeft() {
    return plan.budget().duration().minus(elapsed());
  }

  /** How far past its budget the run is now, in seconds (negative while time is left). */
  public double overrunSeconds() {
    return elapsedSeconds() - plan.budget().duration().toMillis() / 1000.0;
  }
}
