package io.gitm.cli;

import io.gitm.analysis.attribution.Cause;
import io.gitm.analysis.breakdown.Breakdown;
import io.gitm.analysis.breakdown.Breakdown.AnnotationTime;
import io.gitm.analysis.breakdown.Breakdown.QueueLength;
import io.gitm.analysis.breakdown.Breakdown.StreamIdle;
import io.gitm.analysis.breakdown.Breakdown.TypeTime;
import io.gitm.analysis.breakdown.BreakdownDiff;
import io.gitm.analysis.breakdown.Ties;
import io.gitm.analysis.breakdown.Window;
import io.gitm.levers.Lever;
import io.gitm.levers.Levers;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The window and the breakdowns of {@code gitm analyze}: its text section and its {@code --json} fields. */
final class BreakdownOutput {
  /** Annotations and streams the text lists; --json has them all. */
  static final int LISTED = 8;

  private BreakdownOutput() {}

  /** The ids of the catalogue's levers that address {@code c}. */
  static List<String> levers(Cause c) {
    List<String> out = new ArrayList<>();
    for (Lever l : Levers.all()) {
      if (l.addresses().contains(c)) {
        out.add(l.id());
      }
    }
    return out;
  }

  static Map<String, Object> window(Window w) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("spec", w.spec());
    m.put("description", w.description());
    m.put("fromNs", w.fromNs() == Long.MIN_VALUE ? null : w.fromNs());
    m.put("toNs", w.toNs() == Long.MAX_VALUE ? null : w.toNs());
    m.put("steps", w.steps());
    return m;
  }

  static Map<String, Object> json(Breakdown b) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("window", b.window().spec());
    m.put("ops", b.ops());
    Breakdown.Temporal t = b.temporal();
    Map<String, Object> temporal = new LinkedHashMap<>();
    temporal.put("spanNs", t.spanNs());
    temporal.put("idleNs", t.idleNs());
    temporal.put("computeNs", t.computeNs());
    temporal.put("nonComputeNs", t.nonComputeNs());
    temporal.put("idleShare", t.idleShare());
    temporal.put("computeShare", t.computeShare());
    temporal.put("nonComputeShare", t.nonComputeShare());
    m.put("temporal", temporal);
    m.put("kernelTypes", b.kernelTypes());
    m.put("commCompOverlap", Double.isNaN(b.commCompOverlap()) ? null : b.commCompOverlap());
    m.put("kernelWaitThresholdNs", Breakdown.KERNEL_WAIT_THRESHOLD_NS);
    m.put("idle", b.idle());
    List<Map<String, Object>> qs = new ArrayList<>();
    for (QueueLength q : b.queues()) {
      Map<String, Object> x = new LinkedHashMap<>();
      x.put("device", q.device());
      x.put("stream", q.stream());
      x.put("samples", q.samples());
      x.put("mean", q.mean());
      x.put("std", Double.isNaN(q.std()) ? null : q.std());
      x.put("min", q.min());
      x.put("p25", q.p25());
      x.put("p50", q.p50());
      x.put("p75", q.p75());
      x.put("max", q.max());
      qs.add(x);
    }
    m.put("queueLength", qs);
    m.put("annotations", b.annotations());
    return m;
  }

  static List<Map<String, Object>> ties(List<Ties.Tie> ties) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (Ties.Tie t : ties) {
      Map<String, Object> x = new LinkedHashMap<>();
      x.put("figure", t.figure());
      x.put("ns", t.ns());
      x.put("share", t.share());
      x.put("of", t.of());
      x.put("candidates", t.candidates().stream().map(Cause::name).toList());
      List<Map<String, Object>> found = new ArrayList<>();
      for (Ties.Found f : t.found()) {
        found.add(Map.of("rank", f.rank(), "cause", f.cause().name(), "effect", f.effect()));
      }
      x.put("found", found);
      x.put("levers", t.levers());
      x.put("summary", t.summary());
      out.add(x);
    }
    return out;
  }

  static Map<String, Object> json(BreakdownDiff d) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("unit", d.unit());
    m.put("figures", deltas(d.figures()));
    m.put("lost", deltas(d.lost()));
    return m;
  }

  private static List<Map<String, Object>> deltas(List<BreakdownDiff.Delta> ds) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (BreakdownDiff.Delta x : ds) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("figure", x.figure());
      m.put("baseline", x.baseline());
      m.put("run", x.run());
      m.put("change", x.change());
      m.put("lostTime", x.lostTime());
      out.add(m);
    }
    return out;
  }

  static void print(PrintWriter out, Breakdown b, List<Ties.Tie> ties) {
    out.println();
    out.println("breakdowns (HTA's definitions, exact ns; window " + b.window().spec() + ", " + b.ops()
        + " device operations)");
    Breakdown.Temporal t = b.temporal();
    out.printf(Locale.ROOT, "  temporal      span %.3f ms: idle %.3f ms (%.2f%%), compute %.3f ms (%.2f%%), non-compute"
        + " %.3f ms (%.2f%%)%n", ms(t.spanNs()), ms(t.idleNs()), 100 * t.idleShare(), ms(t.computeNs()),
        100 * t.computeShare(), ms(t.nonComputeNs()), 100 * t.nonComputeShare());
    List<String> types = new ArrayList<>();
    for (TypeTime k : b.kernelTypes()) {
      types.add(String.format(Locale.ROOT, "%s %.3f ms (%.1f%%)", k.type(), ms(k.ns()), 100 * k.share()));
    }
    out.println("  kernel types  " + (types.isEmpty() ? "none" : String.join(", ", types)));
    out.println("  comm/comp     " + (Double.isNaN(b.commCompOverlap()) ? "no communication kernels"
        : String.format(Locale.ROOT, "%.2f%% of communication time overlaps computation", 100 * b.commCompOverlap())));
    for (StreamIdle s : b.idle().subList(0, Math.min(LISTED, b.idle().size()))) {
      out.printf(Locale.ROOT, "  idle          device %d stream %d: %.3f ms = host wait %.3f + kernel wait %.3f (gaps"
          + " < %.0f µs) + other %.3f ms, %d gaps%n", s.device(), s.stream(), ms(s.totalNs()), ms(s.hostWaitNs()),
          ms(s.kernelWaitNs()), Breakdown.KERNEL_WAIT_THRESHOLD_NS / 1e3, ms(s.otherNs()), s.gaps());
    }
    for (QueueLength q : b.queues().subList(0, Math.min(LISTED, b.queues().size()))) {
      out.printf(Locale.ROOT, "  queue length  device %d stream %d: mean %.2f, min %d, quartiles %.2f / %.2f / %.2f,"
          + " max %d (%d change points)%n", q.device(), q.stream(), q.mean(), q.min(), q.p25(), q.p50(), q.p75(),
          q.max(), q.samples());
    }
    int more = Math.max(0, b.idle().size() - LISTED);
    if (more > 0) {
      out.println("  (" + more + " more streams in --json)");
    }
    for (AnnotationTime a : b.annotations().subList(0, Math.min(LISTED, b.annotations().size()))) {
      out.printf(Locale.ROOT, "  annotation    %-32s %d ops (%d kernels), %.3f ms (%.1f%%)%n", Terminal.safe(a.name()),
          a.ops(), a.kernels(), ms(a.deviceNs()), 100 * a.share());
    }
    if (b.annotations().size() > LISTED) {
      out.println("  (" + (b.annotations().size() - LISTED) + " more annotations in --json)");
    }
    out.println();
    out.println("breakdowns and the ranked causes");
    for (Ties.Tie x : ties) {
      out.println("  - " + Terminal.safe(x.summary()));
    }
  }

  static void print(PrintWriter out, BreakdownDiff d) {
    out.println();
    out.println("breakdowns against the baseline (per " + d.unit() + "; lost time that grew, most first)");
    if (d.lost().isEmpty()) {
      out.println("  none: no idle or non-compute time grew");
    }
    int i = 1;
    for (BreakdownDiff.Delta x : d.lost()) {
      out.printf(Locale.ROOT, "  %d. %-40s %+.3f ms (%.3f → %.3f ms)%n", i++, Terminal.safe(x.figure()),
          ms(x.change()), ms(x.baseline()), ms(x.run()));
    }
    out.println("  every figure is in --json under differential.breakdowns");
  }

  private static double ms(double ns) {
    return ns / 1e6;
  }
}
