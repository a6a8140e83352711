package io.gitm.analysis.attribution;

import static io.gitm.analysis.attribution.Thresholds.ALPHA;
import static io.gitm.analysis.attribution.Thresholds.CHUNKS;
import static io.gitm.analysis.attribution.Thresholds.MIN_EFFECT;
import static io.gitm.analysis.attribution.Thresholds.MIN_EVENTS;

import io.gitm.analysis.monitor.Monitor;
import io.gitm.device.HardwareSpec;
import io.gitm.planner.Graph;
import io.gitm.stats.MultipleTesting;
import io.gitm.trace.TraceRecord;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Causal attribution: turns the monitor's residuals and the trace's conditions into ranked hypotheses in the fixed
 * {@link Cause} taxonomy. A pure function of the records, the graph and the monitor's result: it reads only what a
 * trace holds (never a simulated device's ground truth), and needs no record that a real trace lacks
 * ({@code TrafficRecord}s and work records sharpen it when present).
 *
 * <p>Each cause has one {@link Detector} that measures the time the cause cost ("lost" time) as a sum of events
 * (device-idle gaps, kernels, sample intervals, synchronizations) and writes it to the {@link Ledger}, which refuses a
 * second writer of a cause. The effect is the lost time over the span; its interval and p-value treat the events'
 * costs as draws (a one-sided t-test that the total exceeds {@link Thresholds#MIN_EFFECT} of the span, at least
 * {@link Thresholds#MIN_EVENTS} events); p-values are adjusted by Benjamini–Hochberg ({@link MultipleTesting}) across
 * the tested causes. Hypotheses are ranked by effect times confidence. As evidence, each hypothesis carries the pairs
 * of the {@link GrangerMatrix} (telemetry × residual series) whose telemetry bears on its cause, and the doubly robust
 * effects of the per-kernel {@link Conditions} that belong to it; a significant first-launch effect is the cold-start
 * detector.
 *
 * <p>Device-idle time is partitioned, never counted twice ({@link IdlePartition}): each gap in which no device
 * operation ran goes to the blocking host calls that overlap it or that the host returned from just before it
 * (allocations and frees that stalled, pageable copies, synchronizations; in proportion to their share of the gap,
 * plus the re-issue time after the last of them), or, when the host was not blocked at all and the gap is longer than
 * {@link Thresholds#LAUNCH_GAP_LATENCIES} launch latencies, to the launch-bound host. The detectors are described in
 * {@code docs/attribution.md}.
 */
public final class Attribution {
  private Attribution() {}

  /** Ranked hypotheses (best first) for a captured trace. */
  public static List<Hypothesis> attribute(List<? extends TraceRecord> trace, Graph graph, Monitor.Result monitor,
      HardwareSpec hw) {
    if (graph.nodes().isEmpty()) {
      return List.of();
    }
    Input in = Input.of(trace, graph, monitor, hw);
    Ledger ledger = new Ledger();
    for (Detector d : detectors(in)) {
      ledger.run(d, in);
    }
    return rank(in, ledger.entries());
  }

  /**
   * The detectors in the order they run: one per cause (or group of causes), then the passes that read what they all
   * found (the Granger matrix, then the per-kernel conditions with the cold start). What more than one of them needs
   * is measured first and handed to each: the queued waits (taken out of the idle gaps, charged to contention), the
   * idle partition (for the allocator and the launch-bound host, pageable copies and synchronizations) and the
   * streams' overlap (for serialization and contention).
   */
  static List<Detector> detectors(Input in) {
    Queued.Waits waits = Queued.measure(in);
    IdlePartition idle = IdlePartition.of(in, waits.charged());
    StreamOverlap overlap = StreamOverlap.of(in);
    return List.of(
        new IdleDetector(idle),
        new SyncDetector(idle),
        new PageableDetector(idle),
        new SerializationDetector(overlap),
        new ContentionDetector(overlap, waits),
        new ClockDetector(),
        new KernelDetector(),
        new HostLinkDetector(),
        new GrangerMatrix(),
        new Conditions());
  }

  static List<Hypothesis> rank(Input in, Map<Cause, Lost> lost) {
    // the family of tests: causes whose detector found enough events to be tested at all
    List<Cause> causes = new ArrayList<>();
    for (Map.Entry<Cause, Lost> e : lost.entrySet()) {
      if (e.getValue().events() >= MIN_EVENTS) {
        causes.add(e.getKey());
      }
    }
    double span = Math.max(1, in.to() - in.from());
    double[] p = new double[causes.size()];
    for (int i = 0; i < p.length; i++) {
      p[i] = lost.get(causes.get(i)).pValue(span);
    }
    double[] adj = MultipleTesting.benjaminiHochberg(p, ALPHA).adjusted();
    List<Hypothesis> out = new ArrayList<>();
    for (int i = 0; i < causes.size(); i++) {
      Lost l = lost.get(causes.get(i));
      double summed = l.total() / span;
      double effect = Math.min(1, summed);
      if (effect < MIN_EFFECT || adj[i] > ALPHA || l.certainty() <= 0) {
        continue;
      }
      double[] ci = l.interval(span);
      double width = ci[1] - ci[0];
      double confidence = Math.clamp((1 - adj[i]) * l.certainty() / (1 + width / Math.max(effect, 1e-9) / 4), 0, 1);
      List<Evidence> ev = new ArrayList<>(l.evidence());
      ev.add(new Evidence("test", String.format(Locale.ROOT,
          "lost time: %s in %d events (in %d of %d windows of the span); one-sided t-test that it"
              + " exceeds %.1f%% of the span: p=%.3g (BH-adjusted %.3g)", share(summed), l.events(), l.windows(),
          CHUNKS, MIN_EFFECT * 100, p[i], adj[i]), Map.of("events", l.events(), "windows", l.windows(), "p", p[i],
          "pAdjusted", adj[i], "summedShare", summed)));
      out.add(new Hypothesis(causes.get(i), effect, Math.clamp(ci[0], 0, effect), Math.clamp(ci[1], effect, 1),
          adj[i], confidence, ev));
    }
    out.sort(Comparator.comparingDouble(Hypothesis::score).reversed());
    return out;
  }

  /**
   * A cause's lost time as a share of the span, the job's wall time from its first issued operation to its last end.
   * Events on streams that ran at once overlap, so their sum can pass the span: the share is then capped at the
   * whole span and the sum is said beside it.
   */
  static String share(double summed) {
    return summed <= 1 ? String.format(Locale.ROOT, "%.2f%% of the span", summed * 100)
        : String.format(Locale.ROOT, "the whole span (its events overlap across streams: summed, %.0f%% of the span)",
            summed * 100);
  }
}
