package io.gitm.analysis.attribution;

import static io.gitm.analysis.attribution.Thresholds.CHUNKS;
import static io.gitm.analysis.attribution.Thresholds.MIN_DEFICIT;

import io.gitm.analysis.monitor.Monitor;
import io.gitm.device.HardwareSpec;
import io.gitm.planner.Graph;
import io.gitm.stats.Sample;
import io.gitm.trace.ClockReason;
import io.gitm.trace.StateField;
import io.gitm.trace.StateSample;
import io.gitm.trace.TraceRecord;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * What every detector reads: the trace, its graph, the monitor's result and the device's spec; the span from the
 * first issued operation to the last end; the host's calls; the graph's nodes in launch order; the SM clock over time.
 * Built once per trace, then read-only.
 */
record Input(List<? extends TraceRecord> trace, Graph graph, Monitor.Result monitor, HardwareSpec hw, long from,
    long to, HostCalls host, int[] launchOrder, Clock clock) {

  /** The input for a trace whose graph has at least one node. */
  static Input of(List<? extends TraceRecord> trace, Graph graph, Monitor.Result monitor, HardwareSpec hw) {
    long from = Long.MAX_VALUE;
    long to = Long.MIN_VALUE;
    for (Graph.Node n : graph.nodes()) {
      from = Math.min(from, Math.min(n.launchNs(), n.startNs()));
      to = Math.max(to, n.endNs());
    }
    HostCalls host = HostCalls.of(trace);
    return new Input(trace, graph, monitor, hw, from, to, host, graph.launchOrder(), Clock.of(host.samples, hw));
  }

  /** The window of the span ({@link Thresholds#CHUNKS} of them) holding time {@code t}. */
  int chunk(long t) {
    long span = Math.max(1, to - from);
    int c = (int) ((t - from) * (double) CHUNKS / span);
    return Math.clamp(c, 0, CHUNKS - 1);
  }

  /** The median duration of the kernels {@code include} accepts, per {@code key}. */
  <K> Map<K, Double> kernelMedians(Predicate<Graph.Node> include, Function<Graph.Node, K> key) {
    Map<K, long[]> durations = new HashMap<>();
    for (Graph.Node n : graph.nodes()) {
      if (n.kind() != Graph.Kind.KERNEL || !include.test(n)) {
        continue;
      }
      // [count, durations...]
      K k = key.apply(n);
      long[] d = durations.computeIfAbsent(k, x -> new long[5]);
      if (d[0] + 1 == d.length) {
        d = Arrays.copyOf(d, d.length * 2);
        durations.put(k, d);
      }
      d[(int) ++d[0]] = n.durationNs();
    }
    Map<K, Double> median = new HashMap<>();
    for (Map.Entry<K, long[]> e : durations.entrySet()) {
      long[] d = e.getValue();
      int m = (int) d[0];
      median.put(e.getKey(), Sample.median(Arrays.stream(d, 1, m + 1).asDoubleStream().toArray()));
    }
    return median;
  }

  /**
   * The SM clock's deficit (share below the boost clock) and clock-event reasons over time, from the state samples
   * with both: sample interval i runs from sample i to sample i + 1.
   */
  record Clock(long[] time, double[] deficit, int[] bits, double boost) {
    static Clock of(List<StateSample> s, HardwareSpec hw) {
      double boost = hw.smClockMHz() > 0 ? hw.smClockMHz() : 0;
      for (StateSample x : s) {
        boost = Math.max(boost, x.get(StateField.SM_CLOCK));
      }
      long[] t = new long[s.size()];
      double[] d = new double[s.size()];
      int[] b = new int[s.size()];
      for (int i = 0; i < t.length; i++) {
        StateSample x = s.get(i);
        t[i] = x.timeNs();
        b[i] = (int) x.get(StateField.CLOCK_EVENT_REASONS);
        d[i] = boost > 0 ? Math.max(0, 1 - x.get(StateField.SM_CLOCK) / boost) : 0;
      }
      return new Clock(t, d, b, boost);
    }

    /** The sample interval holding {@code t}: the last sample at or before it, or -1. */
    int at(long t) {
      int i = Arrays.binarySearch(time, t);
      return i >= 0 ? i : -i - 2;
    }

    /** Whether the clock was lowered by a throttle (not idle) at {@code t}; unknown counts as not. */
    boolean slowAt(long t) {
      int i = at(t);
      return i >= 0 && i + 1 < time.length && deficit[i] >= MIN_DEFICIT && !causes(bits[i]).isEmpty();
    }

    /**
     * The causes named by a set of clock-event reason bits: power brake (0x80), thermal (0x20, 0x40), power cap
     * (0x4), clock setting (0x2); the hardware-slowdown bit 0x8 alone, which NVML sets with both HW thermal and power
     * brake, counts as the power brake. Empty when no bit explains a slowdown (idle 0x1, sync boost, display).
     */
    static List<Cause> causes(int bits) {
      List<Cause> c = new ArrayList<>(2);
      if ((bits & ClockReason.HW_POWER_BRAKE_SLOWDOWN) != 0) {
        c.add(Cause.POWER_BRAKE);
      }
      if ((bits & (ClockReason.SW_THERMAL_SLOWDOWN | ClockReason.HW_THERMAL_SLOWDOWN)) != 0) {
        c.add(Cause.THERMAL_THROTTLING);
      }
      if ((bits & ClockReason.SW_POWER_CAP) != 0) {
        c.add(Cause.POWER_THROTTLING);
      }
      if ((bits & ClockReason.APPLICATIONS_CLOCKS_SETTING) != 0) {
        c.add(Cause.CLOCK_DROP);
      }
      if (c.isEmpty() && (bits & ClockReason.HW_SLOWDOWN) != 0) {
        c.add(Cause.POWER_BRAKE);
      }
      return c;
    }
  }
}
