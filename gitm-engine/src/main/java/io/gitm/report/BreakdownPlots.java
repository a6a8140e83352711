package io.gitm.report;

import io.gitm.report.BreakdownChart.Part;
import io.gitm.report.BreakdownChart.Queue;
import io.gitm.report.BreakdownChart.StreamIdle;
import java.util.List;

/**
 * The report's breakdown charts: the temporal breakdown and each stream's idle time as stacked bars on one time axis
 * in milliseconds, the queue length of each stream on an axis of operations, and the ties to the ranked causes.
 */
final class BreakdownPlots {
  private static final double WIDTH = 760;
  private static final double LEFT = 170;
  private static final double RIGHT = 20;
  private static final double ROW = 24;
  private static final double TOP = 10;
  private static final double AXIS = 44;
  /** Streams charted; the JSON report has them all. */
  static final int MAX_STREAMS = 12;

  private BreakdownPlots() {}

  static String of(BreakdownChart b) {
    if (b == null) {
      return "<p class=\"empty\">No trace of the shipped configuration was captured, so there is nothing to break"
          + " down.</p>";
    }
    StringBuilder h = new StringBuilder("<p>Window: ").append(Html.escape(b.window())).append(". Kernel types: ");
    for (int i = 0; i < b.kernelTypes().size(); i++) {
      Part p = b.kernelTypes().get(i);
      h.append(i == 0 ? "" : ", ").append(Html.escape(p.name())).append(' ').append(Fmt.f("%.3f ms", p.ns() / 1e6));
    }
    h.append(b.kernelTypes().isEmpty() ? "none" : "").append(". Communication overlapped by computation: ")
        .append(b.commCompOverlap() == null ? "no communication kernels" : Fmt.f("%.2f%%", 100 * b.commCompOverlap()))
        .append(".</p>\n");
    h.append(bars(b)).append(queues(b.queues())).append(path(b.criticalPath()));
    if (!b.ties().isEmpty()) {
      h.append("<ul class=\"ties\">");
      for (String t : b.ties()) {
        h.append("<li>").append(Html.escape(t)).append("</li>");
      }
      h.append("</ul>\n");
    }
    return h.toString();
  }

  /** The critical path's length, its shares by edge kind and the items with most time on it. */
  static String path(BreakdownChart.PathChart p) {
    if (p == null) {
      return "";
    }
    StringBuilder h = new StringBuilder("<p>Critical path: ").append(Fmt.f("%.3f ms", p.lengthNs() / 1e6))
        .append(" over a window of ").append(Fmt.f("%.3f ms", p.windowNs() / 1e6))
        .append(p.hostOperations() ? "" : " (no host operations in the trace: API calls only)").append(".</p>\n")
        .append("<table><tr><th>edge kind</th><th>ms</th><th>share</th></tr>");
    long length = Math.max(1, p.lengthNs());
    for (Part k : p.byKind()) {
      h.append("<tr><td>").append(Html.escape(k.name())).append("</td><td>").append(Fmt.f("%.3f", k.ns() / 1e6))
          .append("</td><td>").append(Fmt.f("%.1f%%", 100.0 * k.ns() / length)).append("</td></tr>");
    }
    h.append("</table>\n<table><tr><th>on the path</th><th>kind</th><th>times</th><th>ms</th></tr>");
    for (BreakdownChart.PathItem i : p.top()) {
      h.append("<tr><td>").append(Html.escape(i.name())).append("</td><td>").append(Html.escape(i.kind()))
          .append("</td><td>").append(i.count()).append("</td><td>").append(Fmt.f("%.3f", i.ns() / 1e6))
          .append("</td></tr>");
    }
    return h.append("</table>\n").toString();
  }

  /** One bar for the temporal breakdown, then one per stream of its idle time, on a common axis in ms. */
  static String bars(BreakdownChart b) {
    List<StreamIdle> streams = b.streams().subList(0, Math.min(MAX_STREAMS, b.streams().size()));
    int rows = 1 + streams.size();
    double height = TOP + rows * ROW + AXIS;
    Svg svg = new Svg(WIDTH, height, "breakdown", "Temporal breakdown of the window and idle time per stream, in ms");
    double scale = Math.max(1, b.spanNs());
    double plotW = WIDTH - LEFT - RIGHT;
    double y = TOP;
    stack(svg, "temporal", y, plotW, scale, new long[] {b.idleNs(), b.computeNs(), b.nonComputeNs()},
        new String[] {"idle", "compute", "non-compute"}, new String[] {"bd-idle", "bd-compute", "bd-noncompute"});
    for (StreamIdle s : streams) {
      y += ROW;
      stack(svg, s.stream() + " idle", y, plotW, scale, new long[] {s.hostWaitNs(), s.kernelWaitNs(), s.otherNs()},
          new String[] {"host wait", "kernel wait", "other"}, new String[] {"bd-host", "bd-kernel", "bd-other"});
    }
    axis(svg, TOP + rows * ROW + 4, plotW, b.spanNs() / 1e6, "time in the window (ms)");
    String legend = "<p class=\"legend\"><span class=\"sw bd-idle\"></span>idle<span class=\"sw bd-compute\"></span>"
        + "compute<span class=\"sw bd-noncompute\"></span>non-compute<span class=\"sw bd-host\"></span>host wait"
        + "<span class=\"sw bd-kernel\"></span>kernel wait<span class=\"sw bd-other\"></span>other idle</p>";
    return svg.end() + legend;
  }

  private static void stack(Svg svg, String label, double y, double plotW, double scale, long[] ns, String[] names,
      String[] css) {
    svg.text(LEFT - 8, y + ROW * 0.65, Plots.shorten(label, 24), "stream", Svg.Anchor.END, label);
    double x = LEFT;
    for (int i = 0; i < ns.length; i++) {
      double w = plotW * ns[i] / scale;
      svg.rect(x, y + 4, w, ROW - 8, css[i], names[i] + ": " + Fmt.f("%.3f ms", ns[i] / 1e6));
      x += w;
    }
  }

  private static void axis(Svg svg, double y, double plotW, double max, String label) {
    svg.line(LEFT, y, LEFT + plotW, y, "axis");
    List<Double> ticks = Plots.niceTicks(0, Math.max(max, 1e-9), 6);
    for (double t : ticks) {
      if (t > max * (1 + 1e-9)) {
        continue;
      }
      double x = LEFT + plotW * (max == 0 ? 0 : t / max);
      svg.line(x, y, x, y + 4, "axis");
      svg.text(x, y + 16, Plots.tickLabel(t, ticks), "tick", Svg.Anchor.MIDDLE);
    }
    svg.text(LEFT + plotW / 2, y + 34, label, "axis-label", Svg.Anchor.MIDDLE);
  }

  /** Each stream's mean queue length as a bar, its median as a tick and its most as a dot. */
  static String queues(List<Queue> all) {
    if (all.isEmpty()) {
      return "<p class=\"empty\">No operation was launched by a queueing call, so there is no queue length.</p>";
    }
    List<Queue> qs = all.subList(0, Math.min(MAX_STREAMS, all.size()));
    double height = TOP + qs.size() * ROW + AXIS;
    Svg svg = new Svg(WIDTH, height, "queues", "Queue length per stream: mean, median and most operations queued");
    double plotW = WIDTH - LEFT - RIGHT;
    int most = 1;
    for (Queue q : qs) {
      most = Math.max(most, q.max());
    }
    double y = TOP;
    for (Queue q : qs) {
      svg.text(LEFT - 8, y + ROW * 0.65, Plots.shorten(q.stream(), 24), "stream", Svg.Anchor.END, q.stream());
      svg.rect(LEFT, y + 6, plotW * q.mean() / most, ROW - 12, "bd-queue", Fmt.f("mean %.2f operations", q.mean()));
      double xm = LEFT + plotW * q.median() / most;
      svg.line(xm, y + 2, xm, y + ROW - 2, "bd-median");
      svg.circle(LEFT + plotW * q.max() / most, y + ROW / 2, 4, "bd-max", "most: " + q.max() + " operations");
      y += ROW;
    }
    axis(svg, y + 4, plotW, most, "operations queued on the stream (launched, not yet started)");
    return svg.end() + "<p class=\"legend\"><span class=\"sw bd-queue\"></span>mean (bar), median (line), most"
        + " (dot)</p>";
  }
}
