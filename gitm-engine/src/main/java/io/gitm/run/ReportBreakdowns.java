package io.gitm.run;

import io.gitm.analysis.attribution.Cause;
import io.gitm.analysis.attribution.Hypothesis;
import io.gitm.analysis.breakdown.Breakdown;
import io.gitm.analysis.breakdown.Ties;
import io.gitm.analysis.breakdown.Window;
import io.gitm.analysis.critical.CriticalPath;
import io.gitm.analysis.critical.Edge;
import io.gitm.levers.Lever;
import io.gitm.levers.Levers;
import io.gitm.report.BreakdownChart;
import io.gitm.trace.HostOpRecord;
import io.gitm.trace.TraceRecord;
import java.util.ArrayList;
import java.util.List;

/**
 * The report's breakdowns: those of the shipped configuration's trace in its default window, tied to the causes, and
 * the critical path of the same window.
 */
final class ReportBreakdowns {
  /** The annotations the report lists; the rest are summed into one. */
  static final int ANNOTATIONS = 10;
  /** The items of the critical path the report lists. */
  static final int PATH_ITEMS = 5;

  private ReportBreakdowns() {}

  /** The breakdown chart of {@code trace}; null when it holds no device operation. */
  static BreakdownChart of(List<TraceRecord> trace, List<Hypothesis> ranked) {
    Window w = Window.of(null, trace);
    Breakdown b = Breakdown.of(w, trace);
    if (b.ops() == 0) {
      return null;
    }
    List<BreakdownChart.Part> types = new ArrayList<>();
    b.kernelTypes().forEach(t -> types.add(new BreakdownChart.Part(t.type(), t.ns())));
    List<BreakdownChart.StreamIdle> streams = new ArrayList<>();
    for (Breakdown.StreamIdle s : b.idle()) {
      streams.add(new BreakdownChart.StreamIdle(name(s.device(), s.stream()), s.hostWaitNs(), s.kernelWaitNs(),
          s.otherNs()));
    }
    List<BreakdownChart.Queue> queues = new ArrayList<>();
    for (Breakdown.QueueLength q : b.queues()) {
      queues.add(new BreakdownChart.Queue(name(q.device(), q.stream()), q.mean(), q.p50(), q.max()));
    }
    List<BreakdownChart.Part> annotations = new ArrayList<>();
    long rest = 0;
    for (Breakdown.AnnotationTime a : b.annotations()) {
      if (annotations.size() < ANNOTATIONS) {
        annotations.add(new BreakdownChart.Part(a.name(), a.deviceNs()));
      } else {
        rest += a.deviceNs();
      }
    }
    if (rest > 0) {
      annotations.add(new BreakdownChart.Part("(the other annotations)", rest));
    }
    List<String> ties = Ties.of(b, ranked, ReportBreakdowns::levers).stream().map(Ties.Tie::summary).toList();
    Breakdown.Temporal t = b.temporal();
    return new BreakdownChart(w.description(), t.spanNs(), t.idleNs(), t.computeNs(), t.nonComputeNs(), types,
        Double.isNaN(b.commCompOverlap()) ? null : b.commCompOverlap(), streams, queues, annotations, ties,
        path(trace, w));
  }

  /** The critical path of window {@code w} of {@code trace}; null when the window holds no event for it. */
  static BreakdownChart.PathChart path(List<TraceRecord> trace, Window w) {
    CriticalPath.Result p = CriticalPath.clipped(trace, w.fromNs(), w.toNs());
    if (p.events() == 0) {
      return null;
    }
    List<BreakdownChart.Part> kinds = new ArrayList<>();
    for (Edge k : Edge.values()) {
      kinds.add(new BreakdownChart.Part(k.name(), p.byKind().getOrDefault(k, 0L)));
    }
    List<BreakdownChart.PathItem> top = new ArrayList<>();
    for (CriticalPath.Item i : p.top().subList(0, Math.min(PATH_ITEMS, p.top().size()))) {
      top.add(new BreakdownChart.PathItem(i.name(), i.kind().name(), i.count(), i.ns()));
    }
    return new BreakdownChart.PathChart(p.toNs() - p.fromNs(), p.lengthNs(),
        trace.stream().anyMatch(r -> r instanceof HostOpRecord), kinds, top);
  }

  private static String name(int device, int stream) {
    return "device " + device + " stream " + stream;
  }

  private static List<String> levers(Cause c) {
    List<String> out = new ArrayList<>();
    for (Lever l : Levers.all()) {
      if (l.addresses().contains(c)) {
        out.add(l.id());
      }
    }
    return out;
  }
}
