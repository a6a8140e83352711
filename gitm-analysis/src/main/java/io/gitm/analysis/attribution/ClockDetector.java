package io.gitm.analysis.attribution;

import static io.gitm.analysis.attribution.Thresholds.MIN_DEFICIT;

import io.gitm.planner.Graph;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Clock causes from the state samples: for each sample interval with a throttle reason set and the SM clock below
 * its boost clock, each kernel's part of the interval's kernel-busy time times the share of its time the lowered
 * clock cost it ({@link #clockShare}) is lost, split evenly between the causes whose reason bits are set
 * ({@link Input.Clock#causes}); each kernel's part is one event.
 */
final class ClockDetector implements Detector {
  /**
   * A kernel's shape: its name, its grid, and its declared bytes and lower bound (which follow from its declared work):
   * the same launch of the same code.
   */
  record ShapeKey(String name, long blocks, long bytes, double lowerNs) {
    static ShapeKey of(Graph.Node n) {
      return new ShapeKey(n.name(), n.blocks(), n.predictedBytes(), n.lowerNs());
    }
  }

  @Override
  public Set<Cause> causes() {
    return EnumSet.of(Cause.CLOCK_DROP, Cause.THERMAL_THROTTLING, Cause.POWER_THROTTLING, Cause.POWER_BRAKE);
  }

  @Override
  public void detect(Input in, Ledger out) {
    Input.Clock clock = in.clock();
    if (clock.time().length < 2) {
      return;
    }
    List<Graph.Node> nodes = in.graph().nodes();
    Map<ShapeKey, Double> atSpeed = atSpeed(in);
    Map<Cause, long[]> counts = new EnumMap<>(Cause.class);
    Map<Cause, Double> deficitSum = new EnumMap<>(Cause.class);
    long[] judged = new long[2];
    int k = 0;
    long[] time = clock.time();
    for (int i = 0; i + 1 < time.length; i++) {
      long t0 = time[i];
      long t1 = time[i + 1];
      double deficit = clock.deficit()[i];
      List<Cause> causes = Input.Clock.causes(clock.bits()[i]);
      while (k < nodes.size() && nodes.get(k).endNs() <= t0) {
        k++;
      }
      if (causes.isEmpty() || deficit < MIN_DEFICIT) {
        continue;
      }
      // kernel-busy time in [t0, t1): the union of kernel intervals (nodes are in start order), one event per kernel's
      // share of it, so that a run of few sample intervals still has events to test
      long reached = t0;
      for (int j = k; j < nodes.size() && nodes.get(j).startNs() < t1; j++) {
        Graph.Node n = nodes.get(j);
        if (n.kind() == Graph.Kind.KERNEL) {
          long s = Math.max(reached, n.startNs());
          long e = Math.min(t1, n.endNs());
          if (e > s) {
            double share = clockShare(n, deficit, atSpeed, judged);
            for (Cause c : causes) {
              out.lost(c).add(in, s, (e - s) * share / causes.size());
            }
            reached = e;
          }
        }
      }
      for (Cause c : causes) {
        counts.computeIfAbsent(c, x -> new long[1])[0]++;
        deficitSum.merge(c, deficit, Double::sum);
      }
    }
    for (Map.Entry<Cause, long[]> e : counts.entrySet()) {
      if (out.has(e.getKey())) {
        out.lost(e.getKey()).evidence(evidence(e.getKey(), e.getValue()[0], deficitSum.get(e.getKey()), clock,
            judged));
      }
    }
  }

  /** What the samples showed of cause {@code c}: {@code n} throttled intervals, their summed deficit. */
  private static Evidence evidence(Cause c, long n, double deficitSum, Input.Clock clock, long[] judged) {
    int samples = clock.time().length;
    return new Evidence("telemetry", String.format(Locale.ROOT,
        "%d of %d state samples show clock-event reasons of %s, with the SM clock %.0f%% below %.0f MHz on average;"
            + " the time lost per throttled kernel: %d against the same kernel's executions at speed (its time beyond"
            + " their median, at most the deficit), %d with none at speed as its whole time times the deficit (an"
            + " upper bound)", n, samples, c.label(), deficitSum / n * 100, clock.boost(), judged[0], judged[1]),
        Map.of("samples", n, "of", samples, "meanDeficit", deficitSum / n, "againstAtSpeed", judged[0], "wholeTime",
            judged[1]));
  }

  /**
   * The median duration of each kernel shape's executions that started in a sample interval at speed: the samples at
   * both its ends show the SM clock within {@link Thresholds#MIN_DEFICIT} of the boost clock (a sample taken while the
   * device idled, at its idle clock, says nothing of the clock once work arrived; a clock that is lowered between two
   * samples shows only in the second).
   */
  static Map<ShapeKey, Double> atSpeed(Input in) {
    Input.Clock clock = in.clock();
    return in.kernelMedians(n -> {
      int i = clock.at(n.startNs());
      return i >= 0 && i + 1 < clock.time().length && clock.deficit()[i] < MIN_DEFICIT
          && clock.deficit()[i + 1] < MIN_DEFICIT;
    }, ShapeKey::of);
  }

  /**
   * The share of kernel {@code n}'s time that a clock {@code deficit} below the boost clock cost it, at most the
   * deficit (a kernel all of whose time scales with the clock takes {@code 1 / (1 - deficit)} as long, so it lost
   * {@code deficit} of its time): its time beyond the median of the same shape's executions at speed, which leaves out
   * what does not scale with the SM clock (bytes at the memory's bandwidth, the fixed cost of a launch). Without such
   * an execution, the deficit: an upper bound. The planner's bound is not used: at low occupancy a kernel its roofline
   * calls bandwidth-bound still scales with the clock. {@code judged} counts the two ways.
   */
  static double clockShare(Graph.Node n, double deficit, Map<ShapeKey, Double> atSpeed, long[] judged) {
    double dur = n.durationNs();
    if (dur <= 0) {
      return 0;
    }
    Double ref = atSpeed.get(ShapeKey.of(n));
    if (ref != null) {
      judged[0]++;
      return Math.clamp((dur - ref) / dur, 0, deficit);
    }
    judged[1]++;
    return deficit;
  }
}
