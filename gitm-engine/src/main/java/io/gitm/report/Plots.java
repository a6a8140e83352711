package io.gitm.report;

import io.gitm.report.Report.KernelResidual;
import io.gitm.report.Report.Lane;
import io.gitm.report.Report.Series;
import io.gitm.report.Report.Span;
import io.gitm.report.Report.SpanKind;
import io.gitm.report.Report.Timeline;
import io.gitm.report.Report.Trial;
import io.gitm.report.Svg.Anchor;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The report's charts as HTML fragments (an inline SVG and the sentences that go with it). Each chart is bounded
 * whatever the size of its data: timelines merge spans too small to see and cap the streams drawn, the residual
 * chart caps its kernels, telemetry keeps each pixel column's minimum and maximum; a chart says so when it did.
 * A chart with no data is a sentence, never an empty SVG.
 */
final class Plots {
  private Plots() {}

  /** Width of the wide charts, pixels. */
  static final double WIDE = 1100;
  /** Width of one telemetry chart; two go side by side. */
  static final double NARROW = 540;
  /** Streams drawn per timeline at most; the busiest are kept. */
  static final int MAX_LANES = 24;
  /**
   * Marks drawn per stream at most. Merging alone bounds a stream to about one mark per pixel and a half; the cap
   * keeps a page with many streams small.
   */
  static final int MAX_MARKS_PER_LANE = 500;
  /** Kernels drawn in the residual chart at most; the furthest above their bound are kept. */
  static final int MAX_KERNELS = 30;
  /** Trials drawn in the trial chart at most (the first ones). */
  static final int MAX_TRIALS = 200;
  /** A span narrower than this many pixels merges with a neighbour closer than {@link #MERGE_GAP_PX}. */
  static final double SMALL_PX = 2;
  static final double MERGE_GAP_PX = 1;

  // ---------------------------------------------------------------- stream timelines

  /** Both timelines on one time scale, so that a shorter iteration shows as shorter. */
  static String timelines(Timeline before, Timeline after) {
    long span = Math.max(duration(before), duration(after));
    StringBuilder h = new StringBuilder();
    h.append(timeline("Before (shipped configuration)", before, span));
    h.append(timeline("After (kept levers)", after, span));
    if (before != null || after != null) {
      h.append("<p class=\"legend\"><span class=\"sw kernel\"></span>kernel <span class=\"sw copy\"></span>copy"
          + " <span class=\"sw other\"></span>other (host call, event, synchronization). Both timelines share one"
          + " time axis, each measured from its own first span. Hover a mark for what it holds.</p>");
    }
    return h.toString();
  }

  private static long duration(Timeline t) {
    if (t == null) {
      return 0;
    }
    long lo = Long.MAX_VALUE;
    long hi = Long.MIN_VALUE;
    for (Lane l : t.streams()) {
      for (Span s : l.spans()) {
        lo = Math.min(lo, s.startNs());
        hi = Math.max(hi, s.endNs());
      }
    }
    return lo == Long.MAX_VALUE ? 0 : hi - lo;
  }

  private static long origin(Timeline t) {
    long lo = Long.MAX_VALUE;
    for (Lane l : t.streams()) {
      for (Span s : l.spans()) {
        lo = Math.min(lo, s.startNs());
      }
    }
    return lo;
  }

  /** A drawn mark: one span, or neighbours too small to tell apart. */
  private static final class Mark {
    final double x0;
    double x1;
    int count;
    final String firstName;
    String lastName;
    long busyNs;
    long startNs;
    long endNs;
    final Map<SpanKind, Long> byKind = new EnumMap<>(SpanKind.class);
    final Map<SpanKind, Integer> countByKind = new EnumMap<>(SpanKind.class);

    Mark(Span s, double x0, double x1) {
      this.x0 = x0;
      this.x1 = x1;
      this.firstName = s.name();
      this.startNs = s.startNs();
      add(s, x1);
    }

    void add(Span s, double x) {
      count++;
      lastName = s.name();
      x1 = Math.max(x1, x);
      endNs = Math.max(endNs, s.endNs());
      busyNs += s.endNs() - s.startNs();
      byKind.merge(s.kind(), s.endNs() - s.startNs(), Long::sum);
      countByKind.merge(s.kind(), 1, Integer::sum);
    }

    SpanKind kind() {
      return byKind.entrySet().stream()
          .max(Comparator.<Map.Entry<SpanKind, Long>>comparingLong(Map.Entry::getValue)
              .thenComparing(e -> countByKind.get(e.getKey())))
          .orElseThrow().getKey();
    }
  }

  /** The timeline's margins and rows, pixels: the stream names sit left of the lanes, the time axis below. */
  private static final double LANE_LEFT = 160;
  private static final double LANE_RIGHT = 16;
  private static final double LANE_TOP = 8;
  private static final double LANE_HEIGHT = 18;
  private static final double LANE_GAP = 6;
  private static final double AXIS_HEIGHT = 30;

  private static String timeline(String title, Timeline t, long scaleNs) {
    StringBuilder h = new StringBuilder("<figure class=\"timeline\"><figcaption><strong>").append(Html.escape(title))
        .append("</strong>");
    if (t == null) {
      return h.append("</figcaption><p class=\"empty\">No timeline was captured for this configuration.</p></figure>")
          .toString();
    }
    h.append(": ").append(Html.escape(t.caption())).append("</figcaption>");
    long total = duration(t);
    List<Lane> lanes = new ArrayList<>();
    for (Lane l : t.streams()) {
      if (!l.spans().isEmpty()) {
        lanes.add(l);
      }
    }
    if (lanes.isEmpty()) {
      return h.append("<p class=\"empty\">The timeline holds no span.</p></figure>").toString();
    }
    int leftOut = 0;
    if (lanes.size() > MAX_LANES) {
      List<Lane> busiest = new ArrayList<>(lanes);
      busiest.sort(Comparator.comparingLong(Plots::busy).reversed());
      List<Lane> keep = busiest.subList(0, MAX_LANES);
      leftOut = lanes.size() - MAX_LANES;
      lanes.removeIf(l -> !keep.contains(l));
    }
    double plotW = WIDE - LANE_LEFT - LANE_RIGHT;
    double height = LANE_TOP + lanes.size() * (LANE_HEIGHT + LANE_GAP) + AXIS_HEIGHT;
    long origin = origin(t);
    double nsPerPx = Math.max(1, scaleNs) / plotW;
    Svg svg = new Svg(WIDE, height, "timeline", title + ": " + t.caption());
    timeAxis(svg, LANE_TOP + lanes.size() * (LANE_HEIGHT + LANE_GAP), plotW, nsPerPx, scaleNs);
    Drawn drawn = new Drawn();
    for (int i = 0; i < lanes.size(); i++) {
      lane(svg, lanes.get(i), LANE_TOP + i * (LANE_HEIGHT + LANE_GAP), plotW, origin, nsPerPx, drawn);
    }
    h.append(svg.end());
    List<String> said = new ArrayList<>();
    said.add(Fmt.f("%d streams, %s from the first span to the last", lanes.size() + leftOut, Fmt.ns(total)));
    if (drawn.marks < drawn.spans) {
      said.add(Fmt.f("%d spans drawn as %d marks: neighbouring spans under %.0f px wide and under %.0f px apart are"
          + " merged into one mark coloured by the kind that takes most of its time and shaded by how much of it is"
          + " busy", drawn.spans, drawn.marks, SMALL_PX, MERGE_GAP_PX));
    }
    if (drawn.capped > 0) {
      said.add(Fmt.f("%d spans past the first %d marks of a stream are not drawn", drawn.capped, MAX_MARKS_PER_LANE));
    }
    if (leftOut > 0) {
      said.add(Fmt.f("only the %d busiest streams are drawn; %d more are left out", MAX_LANES, leftOut));
    }
    h.append("<p class=\"note\">").append(Html.escape(String.join("; ", said))).append(".</p></figure>");
    return h.toString();
  }

  /** What the lanes of one timeline drew: spans, the marks they became, spans left out past a lane's cap. */
  private static final class Drawn {
    long spans;
    long marks;
    long capped;
  }

  /** The grid lines, ticks and labels of the time axis along {@code axisY}. */
  private static void timeAxis(Svg svg, double axisY, double plotW, double nsPerPx, long scaleNs) {
    TimeUnit unit = TimeUnit.of(Math.max(1, scaleNs));
    for (double tick : niceTicks(0, Math.max(1, scaleNs), 10)) {
      double x = LANE_LEFT + tick / nsPerPx;
      svg.line(x, LANE_TOP, x, axisY, "grid");
      svg.line(x, axisY, x, axisY + 4, "axis");
      svg.text(x, axisY + 16, unit.format(tick), "tick", Anchor.MIDDLE);
    }
    svg.line(LANE_LEFT, axisY, LANE_LEFT + plotW, axisY, "axis");
    svg.text(LANE_LEFT + plotW, axisY + 28, "time since the first span (" + unit.symbol + ")", "axis-label",
        Anchor.END);
  }

  /** One stream's lane at {@code y}: its spans in start order, neighbours too small to tell apart merged. */
  private static void lane(Svg svg, Lane lane, double y, double plotW, long origin, double nsPerPx, Drawn drawn) {
    svg.rect(LANE_LEFT, y, plotW, LANE_HEIGHT, "lane", null);
    svg.text(LANE_LEFT - 8, y + LANE_HEIGHT - 5, shorten(lane.stream(), 22), "stream", Anchor.END,
        "stream " + lane.stream());
    List<Span> spans = new ArrayList<>(lane.spans());
    spans.sort(Comparator.comparingLong(Span::startNs).thenComparingLong(Span::endNs));
    List<Mark> marks = new ArrayList<>();
    Mark cur = null;
    for (int j = 0; j < spans.size(); j++) {
      Span s = spans.get(j);
      double x0 = LANE_LEFT + (s.startNs() - origin) / nsPerPx;
      double x1 = LANE_LEFT + (s.endNs() - origin) / nsPerPx;
      boolean small = x1 - x0 < SMALL_PX;
      if (cur != null && x0 - cur.x1 < MERGE_GAP_PX && (small || cur.x1 - cur.x0 < SMALL_PX)) {
        cur.add(s, x1);
        continue;
      }
      if (marks.size() == MAX_MARKS_PER_LANE) {
        drawn.capped += spans.size() - j;
        break;
      }
      cur = new Mark(s, x0, x1);
      marks.add(cur);
    }
    for (Mark m : marks) {
      double opacity = m.count == 1 ? 1 : Math.max(0.3, m.busyNs / (double) Math.max(1, m.endNs - m.startNs));
      svg.rect(m.x0, y + 1, Math.max(0.8, m.x1 - m.x0), LANE_HEIGHT - 2, opacity, "span " + css(m.kind()),
          tooltip(m, origin));
      drawn.spans += m.count;
    }
    drawn.marks += marks.size();
  }

  private static long busy(Lane l) {
    long b = 0;
    for (Span s : l.spans()) {
      b += s.endNs() - s.startNs();
    }
    return b;
  }

  private static String tooltip(Mark m, long origin) {
    String at = "at +" + Fmt.ns(m.startNs - origin);
    if (m.count == 1) {
      return m.firstName + " (" + m.kind().name().toLowerCase(Locale.ROOT) + ", " + Fmt.ns(m.busyNs) + ", "
          + at + ")";
    }
    StringBuilder kinds = new StringBuilder();
    m.countByKind.forEach((k, c) -> kinds.append(kinds.isEmpty() ? "" : ", ").append(c).append(' ')
        .append(k.name().toLowerCase(Locale.ROOT)));
    return m.count + " spans merged (" + kinds + "), busy " + Fmt.ns(m.busyNs) + " of " + Fmt.ns(m.endNs - m.startNs)
        + ", " + at + ": " + m.firstName + " … " + m.lastName;
  }

  private static String css(SpanKind k) {
    return switch (k) {
      case KERNEL -> "kernel";
      case COPY -> "copy";
      case OTHER -> "other";
    };
  }

  // ---------------------------------------------------------------- residuals against the roofline

  static String residuals(List<KernelResidual> all) {
    if (all.isEmpty()) {
      return "<p class=\"empty\">No kernel was compared with the roofline in this run, so there are no residuals to"
          + " chart.</p>";
    }
    List<KernelResidual> rows = new ArrayList<>(all);
    rows.sort(Comparator.comparingDouble(Plots::excess).reversed().thenComparing(KernelResidual::kernel));
    int leftOut = Math.max(0, rows.size() - MAX_KERNELS);
    rows = rows.subList(0, Math.min(MAX_KERNELS, rows.size()));
    double lo = Double.MAX_VALUE;
    double hi = 0;
    for (KernelResidual k : rows) {
      for (double v : new double[] {k.observedMeanNs(), k.lowerBoundNs(), k.upperBoundNs()}) {
        if (v > 0) {
          lo = Math.min(lo, v);
          hi = Math.max(hi, v);
        }
      }
    }
    if (hi == 0) {
      lo = 1;
      hi = 10;
    }
    double decLo = Math.floor(Math.log10(lo / 1.2));
    double decHi = Math.ceil(Math.log10(hi * 1.2));
    if (decHi - decLo < 1) {
      decHi = decLo + 1;
    }
    double left = 300;
    double right = 150;
    double top = 8;
    double rowH = 22;
    double axisH = 34;
    double plotW = WIDE - left - right;
    double height = top + rows.size() * rowH + axisH;
    double axisY = top + rows.size() * rowH;
    final double dLo = decLo;
    final double dHi = decHi;
    java.util.function.DoubleUnaryOperator x = v -> left + (Math.log10(Math.max(v, Math.pow(10, dLo))) - dLo)
        / (dHi - dLo) * plotW;
    Svg svg = new Svg(WIDE, height, "residuals", "Per-kernel observed time against the roofline bounds");
    for (double d = decLo; d <= decHi; d++) {
      double base = Math.pow(10, d);
      svg.line(x.applyAsDouble(base), top, x.applyAsDouble(base), axisY, "grid");
      svg.text(x.applyAsDouble(base), axisY + 16, decade(d), "tick", Anchor.MIDDLE);
      if (d < decHi && decHi - decLo <= 3) {
        for (int m : new int[] {2, 5}) {
          svg.line(x.applyAsDouble(base * m), top, x.applyAsDouble(base * m), axisY, "grid minor");
        }
      }
    }
    svg.line(left, axisY, left + plotW, axisY, "axis");
    svg.text(left + plotW, axisY + 30, "mean kernel time, log scale", "axis-label", Anchor.END);
    for (int i = 0; i < rows.size(); i++) {
      KernelResidual k = rows.get(i);
      double y = top + i * rowH;
      double mid = y + rowH / 2;
      if (i % 2 == 0) {
        svg.rect(0, y, WIDE, rowH, "stripe", null);
      }
      svg.text(left - 8, mid + 4, shorten(k.kernel(), 40), "kernel-name", Anchor.END, k.kernel());
      double xl = x.applyAsDouble(k.lowerBoundNs());
      double xu = x.applyAsDouble(k.upperBoundNs());
      String bounds = "roofline bounds of " + k.kernel() + ": " + Fmt.ns(k.lowerBoundNs()) + " to "
          + Fmt.ns(k.upperBoundNs());
      svg.rect(xl, mid - 5, Math.max(2, xu - xl), 10, "band", bounds);
      svg.line(xl, mid - 7, xl, mid + 7, "bound");
      svg.line(xu, mid - 7, xu, mid + 7, "bound");
      String cls = k.observedMeanNs() > k.upperBoundNs() ? "over"
          : k.observedMeanNs() < k.lowerBoundNs() ? "under" : "within";
      String where = switch (cls) {
        case "over" -> k.upperBoundNs() > 0 ? Fmt.f("%.2f× upper bound", k.observedMeanNs() / k.upperBoundNs())
            : "above a zero bound";
        case "under" -> "below lower bound";
        default -> "within bounds";
      };
      svg.circle(x.applyAsDouble(k.observedMeanNs()), mid, 5, "obs " + cls, k.kernel() + ": mean "
          + Fmt.ns(k.observedMeanNs()) + " over " + k.count() + " launches, " + where);
      svg.text(left + plotW + 10, mid + 4, where, "note-" + cls, Anchor.START);
    }
    StringBuilder h = new StringBuilder(svg.end());
    h.append("<p class=\"legend\"><span class=\"sw band\"></span>predicted bounds (roofline lower bound to upper bound)"
        + " <span class=\"dot over\"></span>observed mean above the upper bound"
        + " <span class=\"dot within\"></span>within"
        + " <span class=\"dot under\"></span>below the lower bound (the model or the measurement is off). Kernels are"
        + " ordered by how far their mean lies above the upper bound.");
    if (leftOut > 0) {
      h.append(Html.escape(Fmt.f(" Only the %d kernels furthest above their bound are drawn; %d more are left out.",
          MAX_KERNELS, leftOut)));
    }
    return h.append("</p>").toString();
  }

  /** 10^d nanoseconds as a label: {@code 100 ns}, {@code 1 µs}, {@code 10 ms}. */
  static String decade(double d) {
    int e = (int) d;
    String[] units = {"ns", "µs", "ms", "s"};
    if (e < 0) {
      return Fmt.num(Math.pow(10, e)) + " ns";
    }
    int u = Math.min(3, e / 3);
    return Fmt.num(Math.pow(10, e - 3 * u)) + " " + units[u];
  }

  private static double excess(KernelResidual k) {
    return k.upperBoundNs() > 0 ? k.observedMeanNs() / k.upperBoundNs() : k.observedMeanNs() > 0 ? Double.MAX_VALUE : 0;
  }

  // ---------------------------------------------------------------- telemetry

  static String telemetry(List<Series> series) {
    if (series.isEmpty()) {
      return "<p class=\"empty\">No device telemetry was recorded in this run, so there is no series to chart.</p>";
    }
    StringBuilder h = new StringBuilder("<div class=\"series-grid\">");
    for (Series s : series) {
      h.append(series(s));
    }
    return h.append("</div>").toString();
  }

  private static String series(Series stored) {
    double largest = stored.v().stream().mapToDouble(Math::abs).max().orElse(0);
    Series s = Quantity.of(stored, largest).apply(stored);
    StringBuilder h = new StringBuilder("<figure class=\"series\"><figcaption><strong>").append(Html.escape(s.field()))
        .append("</strong>").append(s.unit().isBlank() ? "" : " (" + Html.escape(s.unit()) + ")");
    int n = s.t().size();
    if (n == 0) {
      return h.append("</figcaption><p class=\"empty\">No sample was recorded.</p></figure>").toString();
    }
    double vMin = Double.MAX_VALUE;
    double vMax = -Double.MAX_VALUE;
    double sum = 0;
    for (double v : s.v()) {
      vMin = Math.min(vMin, v);
      vMax = Math.max(vMax, v);
      sum += v;
    }
    h.append(": min ").append(Html.escape(Fmt.num(vMin))).append(", mean ").append(Html.escape(Fmt.num(sum / n)))
        .append(", max ").append(Html.escape(Fmt.num(vMax))).append(unitSuffix(s)).append(" over ").append(n)
        .append(" samples</figcaption>");
    double t0 = s.t().getFirst();
    double t1 = s.t().getLast();
    if (t1 <= t0) {
      t1 = t0 + 1;
    }
    double pad = (vMax - vMin) * 0.08;
    double yLo = vMin - (pad == 0 ? Math.max(1, Math.abs(vMin) * 0.05) : pad);
    double yHi = vMax + (pad == 0 ? Math.max(1, Math.abs(vMax) * 0.05) : pad);
    double left = 64;
    double right = 12;
    double top = 8;
    double plotH = 120;
    double axisH = 32;
    double plotW = NARROW - left - right;
    Svg svg = new Svg(NARROW, top + plotH + axisH, "telemetry", s.field() + " over time");
    final double ft0 = t0;
    final double ft1 = t1;
    java.util.function.DoubleUnaryOperator x = t -> left + (t - ft0) / (ft1 - ft0) * plotW;
    java.util.function.DoubleUnaryOperator y = v -> top + (yHi - v) / (yHi - yLo) * plotH;
    List<Double> yTicks = niceTicks(yLo, yHi, 5);
    for (double tick : yTicks) {
      svg.line(left, y.applyAsDouble(tick), left + plotW, y.applyAsDouble(tick), "grid");
      svg.text(left - 6, y.applyAsDouble(tick) + 4, tickLabel(tick, yTicks), "tick", Anchor.END);
    }
    List<Double> tTicks = niceTicks(t0, t1, 6);
    for (double tick : tTicks) {
      svg.line(x.applyAsDouble(tick), top + plotH, x.applyAsDouble(tick), top + plotH + 4, "axis");
      svg.text(x.applyAsDouble(tick), top + plotH + 16, tickLabel(tick, tTicks), "tick", Anchor.MIDDLE);
    }
    svg.line(left, top + plotH, left + plotW, top + plotH, "axis");
    svg.line(left, top, left, top + plotH, "axis");
    svg.text(left + plotW, top + plotH + 30, "seconds since the first sample, on the trace clock", "axis-label",
        Anchor.END);
    svg.text(4, top + plotH + 30, "↑ " + s.field() + (s.unit().isBlank() ? "" : ", " + s.unit()), "axis-label",
        Anchor.START);
    boolean reduced = false;
    if (n == 1) {
      svg.circle(x.applyAsDouble(s.t().getFirst()), y.applyAsDouble(s.v().getFirst()), 3, "point", null);
    } else if (n <= 2 * plotW) {
      double[] xs = new double[n];
      double[] ys = new double[n];
      for (int i = 0; i < n; i++) {
        xs[i] = x.applyAsDouble(s.t().get(i));
        ys[i] = y.applyAsDouble(s.v().get(i));
      }
      svg.polyline(xs, ys, n, "series-line");
    } else {
      reduced = true;
      int cols = (int) Math.ceil(plotW);
      double[] xs = new double[cols * 2];
      double[] ys = new double[cols * 2];
      int k = 0;
      int i = 0;
      for (int c = 0; c < cols && i < n; c++) {
        double colEnd = ft0 + (c + 1) * (ft1 - ft0) / cols;
        double lo = Double.MAX_VALUE;
        double hi = -Double.MAX_VALUE;
        int firstI = i;
        while (i < n && (s.t().get(i) <= colEnd || c == cols - 1)) {
          lo = Math.min(lo, s.v().get(i));
          hi = Math.max(hi, s.v().get(i));
          i++;
        }
        if (i == firstI) {
          continue;
        }
        double cx = left + c + 0.5;
        boolean minFirst = s.v().get(firstI) <= s.v().get(i - 1);
        xs[k] = cx;
        ys[k++] = y.applyAsDouble(minFirst ? lo : hi);
        xs[k] = cx;
        ys[k++] = y.applyAsDouble(minFirst ? hi : lo);
      }
      svg.polyline(xs, ys, k, "series-line");
    }
    h.append(svg.end());
    if (reduced) {
      h.append("<p class=\"note\">").append(n).append(" samples drawn as each pixel column's minimum and maximum.</p>");
    }
    return h.append("</figure>").toString();
  }

  private static String unitSuffix(Series s) {
    return s.unit().isBlank() || s.unit().equals("count") ? "" : " " + Html.escape(s.unit());
  }

  // ---------------------------------------------------------------- trial history

  static String trials(List<Trial> all) {
    if (all.isEmpty()) {
      return "<p class=\"empty\">No lever was tried in this run, so there is no trial history to chart.</p>";
    }
    List<Trial> trials = all.subList(0, Math.min(MAX_TRIALS, all.size()));
    double lo = 0;
    double hi = 0;
    for (Trial t : trials) {
      lo = Math.min(lo, t.predictedDelta() - t.predictedUncertainty());
      hi = Math.max(hi, t.predictedDelta() + t.predictedUncertainty());
      if (t.measuredDelta() != null) {
        lo = Math.min(lo, t.measuredDelta().low());
        hi = Math.max(hi, t.measuredDelta().high());
      }
    }
    if (hi - lo < 0.01) {
      hi += 0.005;
      lo -= 0.005;
    }
    double pad = (hi - lo) * 0.08;
    lo -= pad;
    hi += pad;
    double left = 70;
    double right = 16;
    double top = 10;
    double plotH = 260;
    double axisH = 36;
    double plotW = WIDE - left - right;
    double slot = plotW / trials.size();
    Svg svg = new Svg(WIDE, top + plotH + axisH, "trials", "Trial history: predicted and measured gain of each trial");
    final double fLo = lo;
    final double fHi = hi;
    java.util.function.DoubleUnaryOperator y = v -> top + (fHi - v) / (fHi - fLo) * plotH;
    for (double tick : niceTicks(lo, hi, 6)) {
      svg.line(left, y.applyAsDouble(tick), left + plotW, y.applyAsDouble(tick), "grid");
      svg.text(left - 6, y.applyAsDouble(tick) + 4, Fmt.pct(tick), "tick", Anchor.END);
    }
    svg.line(left, y.applyAsDouble(0), left + plotW, y.applyAsDouble(0), "zero");
    svg.line(left, top, left, top + plotH, "axis");
    svg.line(left, top + plotH, left + plotW, top + plotH, "axis");
    int labelEvery = (int) Math.ceil(trials.size() / (plotW / 28));
    double off = Math.min(10, slot * 0.2);
    double cap = Math.min(6, slot * 0.15);
    for (int i = 0; i < trials.size(); i++) {
      Trial t = trials.get(i);
      double cx = left + (i + 0.5) * slot;
      if (i % labelEvery == 0) {
        svg.text(cx, top + plotH + 16, "#" + t.index(), "tick", Anchor.MIDDLE);
      }
      String levers = String.join(", ", t.levers());
      double py = y.applyAsDouble(t.predictedDelta());
      svg.line(cx - off, y.applyAsDouble(t.predictedDelta() - t.predictedUncertainty()), cx - off,
          y.applyAsDouble(t.predictedDelta() + t.predictedUncertainty()), "pred-bar");
      svg.diamond(cx - off, py, 5, "pred", "trial " + t.index() + " (" + levers + "): predicted "
          + Fmt.pct(t.predictedDelta()) + " ± " + Fmt.share(t.predictedUncertainty()));
      String verdict = t.verdict() == Report.Verdict.KEPT ? "kept" : "rolled";
      if (t.measuredDelta() == null) {
        svg.text(cx + off, y.applyAsDouble(0) + 5, "×", "unmeasured", Anchor.MIDDLE,
            "trial " + t.index() + " (" + levers + "): not measured, rolled back: " + t.reason());
        continue;
      }
      Report.Estimate m = t.measuredDelta();
      double yl = y.applyAsDouble(m.low());
      double yh = y.applyAsDouble(m.high());
      svg.line(cx + off, yl, cx + off, yh, "ci " + verdict);
      svg.line(cx + off - cap, yl, cx + off + cap, yl, "ci " + verdict);
      svg.line(cx + off - cap, yh, cx + off + cap, yh, "ci " + verdict);
      svg.circle(cx + off, y.applyAsDouble(m.value()), 5, "meas " + verdict, "trial " + t.index() + " (" + levers
          + "): measured " + Fmt.pctCi(m) + ", p " + Fmt.p(t.pValue()) + ", " + t.verdict().label() + ": "
          + t.reason());
    }
    svg.text(left + plotW, top + plotH + 32, "trial, in the order tried", "axis-label", Anchor.END);
    StringBuilder h = new StringBuilder(svg.end());
    h.append("<p class=\"legend\"><span class=\"diamond\"></span>predicted gain ± uncertainty (counterfactual replay)"
        + " <span class=\"dot kept\"></span>measured, kept <span class=\"dot rolled\"></span>measured, rolled back"
        + " (bars: 95% confidence interval) <span class=\"cross\">×</span>not measured.");
    if (all.size() > trials.size()) {
      h.append(Html.escape(Fmt.f(" Only the first %d of %d trials are drawn; the table lists all.", trials.size(),
          all.size())));
    }
    return h.append("</p>").toString();
  }

  // ---------------------------------------------------------------- helpers

  /** Tick values on a 1-2-5 grid covering {@code [lo, hi]} with about {@code target} ticks. */
  static List<Double> niceTicks(double lo, double hi, int target) {
    double range = hi - lo;
    if (!(range > 0)) {
      return List.of(lo);
    }
    double raw = range / Math.max(1, target);
    double mag = Math.pow(10, Math.floor(Math.log10(raw)));
    double step = raw / mag < 1.5 ? mag : raw / mag < 3.5 ? 2 * mag : raw / mag < 7.5 ? 5 * mag : 10 * mag;
    List<Double> ticks = new ArrayList<>();
    for (long i = (long) Math.ceil(lo / step - 1e-9); i * step <= hi + step * 1e-9; i++) {
      ticks.add(i == 0 ? 0 : i * step);
    }
    return ticks;
  }

  /** A tick's label with as many decimals as the step between {@code ticks} needs: 2.4, 2.6 rather than 2.400. */
  static String tickLabel(double v, List<Double> ticks) {
    if (ticks.size() < 2) {
      return Fmt.num(v);
    }
    double step = Math.abs(ticks.get(1) - ticks.get(0));
    int decimals = (int) Math.max(0, Math.min(9, -Math.floor(Math.log10(step) + 1e-9)));
    return Fmt.f("%." + decimals + "f", v);
  }

  /** A name cut to {@code max} characters with an ellipsis; the caller shows the whole in a tooltip. */
  static String shorten(String s, int max) {
    if (s.codePointCount(0, s.length()) <= max) {
      return s;
    }
    return s.substring(0, s.offsetByCodePoints(0, max - 1)) + "…";
  }

  /** The unit a time axis is labeled in. */
  private record TimeUnit(String symbol, double ns) {
    static TimeUnit of(long spanNs) {
      if (spanNs >= 5_000_000_000L) {
        return new TimeUnit("s", 1e9);
      }
      if (spanNs >= 5_000_000L) {
        return new TimeUnit("ms", 1e6);
      }
      if (spanNs >= 5_000L) {
        return new TimeUnit("µs", 1e3);
      }
      return new TimeUnit("ns", 1);
    }

    String format(double valueNs) {
      return Fmt.num(valueNs / ns);
    }
  }
}
