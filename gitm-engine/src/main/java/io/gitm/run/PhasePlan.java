package io.gitm.run;

import io.gitm.api.Budget;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * A budget cut into the five phases, after the run's set-up ({@link SetUp}: start-up, device, dataset), which the
 * phases do not share: they split what the budget has left in their proportions. A phase that finishes early hands
 * its unused time on to the next: {@link #deadline(Phase)} is measured from the run's start, so time saved early is
 * simply still there.
 */
public final class PhasePlan {
  /** One phase's window, as offsets from the run's start. */
  public record Window(Phase phase, Duration start, Duration end) {
    public Duration length() {
      return end.minus(start);
    }
  }

  private final Budget budget;
  private final Duration setUp;
  private final Map<Phase, Window> windows = new EnumMap<>(Phase.class);

  /** The whole budget split into the phases, with no set-up before them. */
  public PhasePlan(Budget budget) {
    this(budget, Duration.ZERO);
  }

  /**
   * What {@code budget} leaves after {@code setUp} split into the phases, the first starting when set-up ended (set-up
   * longer than the budget leaves every phase empty).
   */
  public PhasePlan(Budget budget, Duration setUp) {
    this.budget = budget;
    long total = budget.duration().toMillis();
    long at = Math.clamp(setUp.toMillis(), 0, total);
    this.setUp = Duration.ofMillis(at);
    long share = total - at;
    long first = at;
    int acc = 0;
    for (Phase p : Phase.values()) {
      acc += p.twentyFourths();
      long end = first + Math.round(share * acc / 24.0);
      windows.put(p, new Window(p, Duration.ofMillis(at), Duration.ofMillis(end)));
      at = end;
    }
  }

  /** The set-up before the phases, as far as the budget holds it. */
  public Duration setUp() {
    return setUp;
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
