package io.gitm.analysis.attribution;

import io.gitm.planner.Graph;
import io.gitm.stats.Granger;
import io.gitm.stats.MultipleTesting;
import io.gitm.trace.ApiCallRecord;
import io.gitm.trace.ApiKind;
import io.gitm.trace.CopyRecord;
import io.gitm.trace.StateField;
import io.gitm.trace.StateSample;
import io.gitm.trace.TraceRecord;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The Granger matrix of a trace: every telemetry series the trace holds × every residual series, one {@link Granger}
 * test per pair (ADF-based differencing, lag order by BIC, F-test), with Benjamini–Hochberg ({@link MultipleTesting})
 * across all the pairs that could be tested.
 *
 * <p>The series are binned per sample interval: interval i runs from state sample i to sample i + 1 (the samples
 * {@link Input.Clock} keeps: those with an SM clock and clock-event reasons).
 *
 * <ul>
 *   <li>Telemetry, from the state samples (the value at the interval's start; a missing value carries the last one
 *       forward): SM clock, power, temperature, throttle reasons (1 when a reason bit that lowers the clock is set),
 *       memory in use, neighbour SM use (the SM utilization of the device's other processes,
 *       {@link StateField#OTHER_SM_UTILIZATION}). From the host's driver calls: host API gaps (host time in the
 *       interval outside any driver call, within the span of the traced calls), allocator calls (time in allocation
 *       and free calls), and from the copy records copy activity (device time of copies in the interval, summed over
 *       copies).
 *   <li>Residuals: kernel slowness (mean of duration over predicted upper bound, {@code 1 + residual/upper} from the
 *       monitor's residuals, of the kernels that started in the interval; carried forward through intervals without
 *       one) and device idle (the interval's time with no device operation running).
 * </ul>
 *
 * <p>A series the trace does not hold (no sample has the field, no allocation call, no copy) is listed as absent and
 * not tested. Each telemetry series names the causes a significant pair is evidence for ({@link Series#causes}).
 * Cost: one pass over the trace, the nodes and the host calls to bin them, then at most 18 Granger tests of as many
 * points as sample intervals.
 *
 * <p>As a detector it runs after the causes' detectors and adds no lost time: it adds the matrix as evidence to the
 * causes they found.
 */
final class GrangerMatrix implements Detector {
  /** The false discovery rate across the pairs. */
  static final double Q = Thresholds.ALPHA;

  /** A telemetry series and the causes a Granger effect of it on a residual is evidence for. */
  enum Series {
    SM_CLOCK("SM clock", EnumSet.of(Cause.CLOCK_DROP, Cause.THERMAL_THROTTLING, Cause.POWER_THROTTLING,
        Cause.POWER_BRAKE)),
    POWER("power", EnumSet.of(Cause.POWER_THROTTLING)),
    TEMPERATURE("temperature", EnumSet.of(Cause.THERMAL_THROTTLING)),
    THROTTLE_REASONS("throttle reasons", EnumSet.of(Cause.CLOCK_DROP, Cause.THERMAL_THROTTLING,
        Cause.POWER_THROTTLING, Cause.POWER_BRAKE)),
    MEMORY_USED("memory in use", EnumSet.of(Cause.ALLOCATOR_STALL)),
    HOST_GAPS("host API gaps", EnumSet.of(Cause.LAUNCH_BOUND_HOST)),
    ALLOCATOR_CALLS("allocator calls", EnumSet.of(Cause.ALLOCATOR_STALL)),
    COPY_ACTIVITY("copy activity", EnumSet.of(Cause.PAGEABLE_COPIES)),
    NEIGHBOUR_SM_USE("neighbour SM use", EnumSet.of(Cause.CONTENTION));

    final String label;
    final Set<Cause> causes;

    Series(String label, Set<Cause> causes) {
      this.label = label;
      this.causes = causes;
    }
  }

  /** A residual series. */
  enum Residual {
    KERNEL_SLOWNESS("kernel slowness"),
    DEVICE_IDLE("device idle");

    final String label;

    Residual(String label) {
      this.label = label;
    }
  }

  /**
   * One tested pair.
   *
   * @param adjusted the Benjamini–Hochberg adjusted p-value over the pairs tested (NaN when the test could not run)
   * @param significant whether the adjusted p-value is at most {@link #Q}
   */
  record Pair(Series x, Residual y, Granger.Result result, double adjusted, boolean significant) {}

  /**
   * The matrix.
   *
   * @param bins the number of sample intervals
   * @param pairs every pair of a present telemetry series and a residual, tested or not
   * @param absent the telemetry series the trace does not hold
   * @param tested how many pairs could be tested (the m of the adjustment)
   */
  record Matrix(int bins, List<Pair> pairs, List<Series> absent, int tested) {
    /** The significant pairs. */
    List<Pair> significant() {
      return pairs.stream().filter(Pair::significant).toList();
    }
  }

  @Override
  public Set<Cause> causes() {
    return Set.of();
  }

  /**
   * Builds the matrix and adds it as evidence ({@link #addEvidence}), when a hypothesis has a cause that a telemetry
   * series names (else there is nothing to add it to) and the trace has two usable state samples.
   */
  @Override
  public void detect(Input in, Ledger out) {
    boolean any = false;
    for (Series s : Series.values()) {
      for (Cause c : s.causes) {
        any |= out.has(c);
      }
    }
    Matrix m = any ? of(in) : null;
    if (m != null) {
      addEvidence(m, out);
    }
  }

  /** The matrix for a trace, or null when it has fewer than two usable state samples (no interval to bin by). */
  static Matrix of(Input in) {
    long[] time = in.clock().time();
    if (time.length < 2) {
      return null;
    }
    int bins = time.length - 1;
    List<Series> absent = new ArrayList<>();
    Map<Series, double[]> telemetry = telemetry(in, time, absent);
    Map<Residual, double[]> residuals = new LinkedHashMap<>();
    residuals.put(Residual.KERNEL_SLOWNESS, slowness(in, time));
    residuals.put(Residual.DEVICE_IDLE, idle(in.graph().nodes(), time));

    List<Series> xs = new ArrayList<>(telemetry.keySet());
    List<Residual> ys = new ArrayList<>(residuals.keySet());
    Granger.Result[] results = new Granger.Result[xs.size() * ys.size()];
    double[] p = new double[results.length];
    int k = 0;
    for (Series x : xs) {
      for (Residual y : ys) {
        Granger.Result g = Granger.test(telemetry.get(x), residuals.get(y));
        results[k] = g;
        p[k++] = g.testable() ? g.pValue() : Double.NaN;
      }
    }
    MultipleTesting.Adjusted adj = MultipleTesting.benjaminiHochberg(p, Q);
    List<Pair> pairs = new ArrayList<>(results.length);
    k = 0;
    for (Series x : xs) {
      for (Residual y : ys) {
        pairs.add(new Pair(x, y, results[k], adj.adjusted(k), adj.rejected(k)));
        k++;
      }
    }
    return new Matrix(bins, pairs, absent, adj.tested());
  }

  /** The telemetry series the trace holds, in {@link Series} order; those it does not hold go to {@code absent}. */
  private static Map<Series, double[]> telemetry(Input in, long[] time, List<Series> absent) {
    int bins = time.length - 1;
    Map<Series, double[]> telemetry = new LinkedHashMap<>();
    List<StateSample> samples = in.host().samples;
    field(samples, StateField.SM_CLOCK, bins, Series.SM_CLOCK, telemetry, absent);
    field(samples, StateField.POWER, bins, Series.POWER, telemetry, absent);
    field(samples, StateField.TEMPERATURE, bins, Series.TEMPERATURE, telemetry, absent);
    double[] throttled = new double[bins];
    for (int i = 0; i < bins; i++) {
      throttled[i] = Input.Clock.causes(in.clock().bits()[i]).isEmpty() ? 0 : 1;
    }
    telemetry.put(Series.THROTTLE_REASONS, throttled);
    field(samples, StateField.MEMORY_USED, bins, Series.MEMORY_USED, telemetry, absent);
    HostCalls h = in.host();
    if (h.calls > 0) {
      telemetry.put(Series.HOST_GAPS, hostGaps(h, time));
    } else {
      absent.add(Series.HOST_GAPS);
    }
    double[] allocs = new double[bins];
    double[] copies = new double[bins];
    boolean anyAlloc = false;
    boolean anyCopy = false;
    for (TraceRecord r : in.trace()) {
      if (r instanceof ApiCallRecord a && (a.kind() == ApiKind.ALLOC || a.kind() == ApiKind.FREE)) {
        anyAlloc = true;
        spread(allocs, time, a.startNs(), a.endNs());
      } else if (r instanceof CopyRecord c) {
        anyCopy = true;
        spread(copies, time, c.startNs(), c.endNs());
      }
    }
    if (anyAlloc) {
      telemetry.put(Series.ALLOCATOR_CALLS, allocs);
    } else {
      absent.add(Series.ALLOCATOR_CALLS);
    }
    if (anyCopy) {
      telemetry.put(Series.COPY_ACTIVITY, copies);
    } else {
      absent.add(Series.COPY_ACTIVITY);
    }
    field(samples, StateField.OTHER_SM_UTILIZATION, bins, Series.NEIGHBOUR_SM_USE, telemetry, absent);
    return telemetry;
  }

  /**
   * Adds the matrix as evidence to each hypothesis whose cause a telemetry series names: one piece per pair of such a
   * series (its test, adjusted p-value and whether it is significant, or why it could not be tested) and one summary.
   */
  static void addEvidence(Matrix m, Ledger out) {
    for (Cause cause : out.entries().keySet()) {
      List<Pair> mine = m.pairs().stream().filter(pr -> pr.x().causes.contains(cause)).toList();
      if (mine.isEmpty()) {
        continue;
      }
      long significant = mine.stream().filter(Pair::significant).count();
      out.note(cause, new Evidence("granger", String.format(Locale.ROOT,
          "Granger matrix over %d sample intervals: %d telemetry × residual pairs, %d testable, Benjamini–Hochberg"
              + " at q=%.2f across them; %d of the %d pairs whose telemetry bears on %s are significant%s",
          m.bins(), m.pairs().size(), m.tested(), Q, significant, mine.size(), cause.label(), m.absent().isEmpty() ? ""
              : "; not in the trace: " + String.join(", ", m.absent().stream().map(s -> s.label).toList())),
          Map.of("intervals", m.bins(), "pairs", m.pairs().size(), "tested", m.tested(), "significant", significant,
              "absent", m.absent().stream().map(s -> s.label).toList())));
      for (Pair pr : mine) {
        out.note(cause, evidence(pr, m.tested()));
      }
    }
  }

  /** One pair as evidence. */
  static Evidence evidence(Pair pr, int tested) {
    Granger.Result g = pr.result();
    String name = "Granger test, " + pr.x().label + " → " + pr.y().label + " per sample interval: ";
    Map<String, Object> data = new LinkedHashMap<>();
    data.put("x", pr.x().label);
    data.put("y", pr.y().label);
    data.put("testable", g.testable());
    if (!g.testable()) {
      data.put("reason", g.reason());
      return new Evidence("granger", name + "not testable (" + g.reason() + ")", data);
    }
    data.put("lag", g.lag());
    if (Double.isFinite(g.fStatistic())) {
      data.put("f", g.fStatistic());
    } else {
      data.put("fInfinite", true);
    }
    data.put("p", g.pValue());
    data.put("pAdjusted", pr.adjusted());
    data.put("significant", pr.significant());
    data.put("xDifferences", g.xDifferences());
    data.put("yDifferences", g.yDifferences());
    return new Evidence("granger", String.format(Locale.ROOT,
        "%sF=%.3g at lag %d, p=%.3g (BH-adjusted %.3g over %d pairs): %s%s", name, g.fStatistic(), g.lag(),
        g.pValue(), pr.adjusted(), tested, pr.significant() ? "significant" : "not significant",
        g.reason().isBlank() ? "" : "; " + g.reason()), data);
  }

  /** A state field per interval (the value at its start), or absent when no sample holds a finite value of it. */
  private static void field(List<StateSample> samples, StateField f, int bins, Series s, Map<Series, double[]> out,
      List<Series> absent) {
    double[] v = new double[bins];
    double last = Double.NaN;
    int first = -1;
    for (int i = 0; i < bins; i++) {
      StateSample x = samples.get(i);
      double d = x.has(f) ? x.get(f) : Double.NaN;
      if (Double.isFinite(d)) {
        last = d;
        if (first < 0) {
          first = i;
        }
      }
      v[i] = last;
    }
    if (first < 0) {
      absent.add(s);
      return;
    }
    // before the first value: that value (the series starts where the trace first reports it)
    Arrays.fill(v, 0, first, v[first]);
    out.put(s, v);
  }

  /** The interval holding t, or -1 before the first; {@code time.length - 1} at or after the last sample. */
  private static int bin(long[] time, long t) {
    int i = Arrays.binarySearch(time, t);
    return i >= 0 ? i : -i - 2;
  }

  /** Adds the part of [s, e) inside each interval to {@code acc}. */
  private static void spread(double[] acc, long[] time, long s, long e) {
    int bins = acc.length;
    for (int i = Math.max(0, bin(time, s)); i < bins && time[i] < e; i++) {
      long a = Math.max(s, time[i]);
      long b = Math.min(e, time[i + 1]);
      if (b > a) {
        acc[i] += b - a;
      }
    }
  }

  /** Host time per interval outside any driver call, within the span of the traced calls. */
  private static double[] hostGaps(HostCalls h, long[] time) {
    double[] acc = new double[time.length - 1];
    long reached = Long.MIN_VALUE;
    for (int k = 0; k < h.calls; k++) {
      if (reached != Long.MIN_VALUE && h.start[k] > reached) {
        spread(acc, time, reached, h.start[k]);
      }
      reached = Math.max(reached, h.end[k]);
    }
    return acc;
  }

  /** Mean of duration over upper bound of the kernels that started in each interval, carried forward (1 at first). */
  private static double[] slowness(Input in, long[] time) {
    int bins = time.length - 1;
    double[] sum = new double[bins];
    int[] count = new int[bins];
    double[] residual = in.monitor().residualNs();
    for (Graph.Node n : in.graph().nodes()) {
      if (n.kind() != Graph.Kind.KERNEL || !(n.upperNs() > 0) || n.index() >= residual.length) {
        continue;
      }
      int i = bin(time, n.startNs());
      double r = residual[n.index()];
      if (i >= 0 && i < bins && Double.isFinite(r)) {
        sum[i] += 1 + r / n.upperNs();
        count[i]++;
      }
    }
    double last = 1;
    for (int i = 0; i < bins; i++) {
      last = count[i] > 0 ? sum[i] / count[i] : last;
      sum[i] = last;
    }
    return sum;
  }

  /** Time per interval with no device operation running (the nodes are in start order). */
  private static double[] idle(List<Graph.Node> nodes, long[] time) {
    double[] busy = new double[time.length - 1];
    long reached = Long.MIN_VALUE;
    for (Graph.Node n : nodes) {
      long s = Math.max(reached, n.startNs());
      if (n.endNs() > s) {
        spread(busy, time, s, n.endNs());
        reached = n.endNs();
      }
    }
    for (int i = 0; i < busy.length; i++) {
      busy[i] = (time[i + 1] - time[i]) - busy[i];
    }
    return busy;
  }
}
