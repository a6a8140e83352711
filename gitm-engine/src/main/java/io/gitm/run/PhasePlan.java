package io.gitm.run;

import io.gitm.api.Budget;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * A budget cut into the five phases. A phase that finishes early hands its unused time on to the next:
 * {@link #deadline(Phase, Duration)} is measured from the run's start, so time saved early is simply still there.
 */
public final class PhasePlan {
  /** One phase's window, as offsets from the run's start. */
  public record Window(Phase phase, Duration start, Duration end) {
    public Duration length() {
      return end.minus(start);
    }
  }

  private final Budget budget;
  private final Map<Phase, Window> windows = new EnumMap<>(Phase.class);

  public PhasePlan(Budget budget) {
    this.budget = budget;
    long total = budget.duration().toMillis();
    long at = 0;
    int acc = 0;
    for (Phase p : Phase.values()) {
      acc += p.twentyFourths();
      long end = Math.round(total * acc / 24.0);
      windows.put(p, new Window(p, Duration.ofMillis(at), Duration.ofMillis(end)));
      at = end;
    }
  }

  public Budget budget() {
    return budget;
  }

  public Window window(Phase p) {
    return windows.get(p);
  }

  public List<Window> windows() {
    return new ArrayList<>(windows.values());
  }

  /** When {@code phase} must end, from the run's start; unused time of earlier phases is included. */
  public Duration deadline(Phase phase) {
    return windows.get(phase).end();
  }

  /**
   * Time left for {@code phase} when {@code elapsed} has passed since the run's start: the phase may use everything
   * up to its deadline, including what earlier phases did not use.
   */
  public Duration remaining(Phase phase, Duration elapsed) {
    Duration left = deadline(phase).minus(elapsed);
    return left.isNegative() ? Duration.ZERO : left;
  }
}
