package io.gitm.analysis.breakdown;

import io.gitm.analysis.breakdown.Breakdown.AnnotationTime;
import io.gitm.analysis.breakdown.Breakdown.StreamIdle;
import io.gitm.analysis.breakdown.Breakdown.TypeTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Two windows' breakdowns compared figure by figure, as HTA's TraceDiff compares operators: per step where both
 * windows are step ranges (so that windows of different lengths compare), else per window; the lost-time figures
 * (idle and its categories, non-compute time) that grew are ranked by how much.
 *
 * @param unit {@code step} or {@code window}
 * @param figures every figure of either side, in a fixed order (a figure one side lacks is 0 there)
 * @param lost the lost-time figures that grew, most added time first
 */
public record BreakdownDiff(String unit, List<Delta> figures, List<Delta> lost) {
  public BreakdownDiff {
    figures = List.copyOf(figures);
    lost = List.copyOf(lost);
  }

  /**
   * One figure on both sides, in nanoseconds per unit (shares for {@code comm/comp overlap}).
   *
   * @param lostTime whether more of it is time lost (idle, its categories, non-compute)
   */
  public record Delta(String figure, double baseline, double run, boolean lostTime) {
    public double change() {
      return run - baseline;
    }
  }

  public static BreakdownDiff compare(Breakdown baseline, Breakdown run) {
    boolean perStep = baseline.window().steps() > 0 && run.window().steps() > 0;
    double b = perStep ? baseline.window().steps() : 1;
    double r = perStep ? run.window().steps() : 1;
    Map<String, double[]> fig = new LinkedHashMap<>();
    Map<String, Boolean> lost = new LinkedHashMap<>();
    add(fig, lost, baseline, 0, b);
    add(fig, lost, run, 1, r);
    List<Delta> all = new ArrayList<>();
    fig.forEach((k, v) -> all.add(new Delta(k, v[0], v[1], lost.get(k))));
    List<Delta> grew = new ArrayList<>();
    for (Delta d : all) {
      if (d.lostTime() && d.change() > 0) {
        grew.add(d);
      }
    }
    grew.sort(Comparator.comparingDouble(Delta::change).reversed().thenComparing(Delta::figure));
    return new BreakdownDiff(perStep ? "step" : "window", all, grew);
  }

  private static void add(Map<String, double[]> fig, Map<String, Boolean> lost, Breakdown x, int side, double per) {
    Breakdown.Temporal t = x.temporal();
    put(fig, lost, "span", t.spanNs() / per, side, false);
    put(fig, lost, "idle", t.idleNs() / per, side, true);
    put(fig, lost, "compute", t.computeNs() / per, side, false);
    put(fig, lost, "non-compute", t.nonComputeNs() / per, side, true);
    for (TypeTime k : x.kernelTypes()) {
      put(fig, lost, "kernel type " + k.type(), k.ns() / per, side, false);
    }
    if (!Double.isNaN(x.commCompOverlap())) {
      put(fig, lost, "comm/comp overlap (share)", x.commCompOverlap(), side, false);
    }
    for (StreamIdle s : x.idle()) {
      String at = "device " + s.device() + " stream " + s.stream() + " ";
      put(fig, lost, at + "host wait", s.hostWaitNs() / per, side, true);
      put(fig, lost, at + "kernel wait", s.kernelWaitNs() / per, side, true);
      put(fig, lost, at + "other idle", s.otherNs() / per, side, true);
    }
    for (AnnotationTime a : x.annotations()) {
      put(fig, lost, "annotation " + a.name(), a.deviceNs() / per, side, false);
    }
  }

  private static void put(Map<String, double[]> fig, Map<String, Boolean> lost, String k, double v, int side,
      boolean isLost) {
    fig.computeIfAbsent(k, x -> new double[2])[side] += v;
    lost.put(k, isLost);
  }
}
