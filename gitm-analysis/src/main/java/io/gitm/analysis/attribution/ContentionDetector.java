package io.gitm.analysis.attribution;

import static io.gitm.analysis.attribution.Thresholds.MIN_EVENTS;

import io.gitm.analysis.attribution.KernelDetector.Judged;
import io.gitm.planner.Graph;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Another tenant holding part of the device, from three signatures, in this order:
 *
 * <ul>
 *   <li>kernels of different streams whose blocks fit the device's multiprocessors together never ran together
 *       ({@link StreamOverlap}) while copies still ran beside kernels, when the streams were not serialized
 *       altogether: the device has fewer multiprocessors than it reports;
 *   <li>compute-bound kernels that fill the device, beyond their upper bound while the clock was at speed and no bytes
 *       were in excess ({@link KernelDetector#judge});
 *   <li>the job's ready work queued behind another context ({@link Queued}).
 * </ul>
 *
 * <p>Its certainty: the slow kernels' share when there are any, else the multiprocessors' signature's; then the queued
 * work's ({@link #CERTAINTY_SEEN} or {@link #CERTAINTY_UNSEEN}) when the others found no lost time, else the larger
 * of the two.
 */
final class ContentionDetector implements Detector {
  /** How sure a contention hypothesis from queued time is when the samples saw another process. */
  static final double CERTAINTY_SEEN = 0.9;
  /** How sure it is when the trace cannot say whether another process was there. */
  static final double CERTAINTY_UNSEEN = 0.5;

  private final StreamOverlap overlap;
  private final Queued.Waits waits;

  ContentionDetector(StreamOverlap overlap, Queued.Waits waits) {
    this.overlap = overlap;
    this.waits = waits;
  }

  @Override
  public Set<Cause> causes() {
    return EnumSet.of(Cause.CONTENTION);
  }

  @Override
  public void detect(Input in, Ledger out) {
    fewerMultiprocessors(in, out);
    slowFullKernels(in, out);
    queued(in, out);
  }

  /** Kernels that fit the device together never ran together while copies still ran beside kernels. */
  private void fewerMultiprocessors(Input in, Ledger out) {
    StreamOverlap o = overlap;
    if (o.serialized()) {
      return;
    }
    int fitJudged = 0;
    int fitNever = 0;
    int fitAll = 0;
    for (int seg = 0; seg < o.segments; seg++) {
      fitAll += o.fit[seg];
      if (o.fit[seg] > 0) {
        fitJudged++;
        fitNever += o.fitServed[seg] == 0 ? 1 : 0;
      }
    }
    if (!(fitNever >= MIN_EVENTS && fitNever * 2 >= fitJudged && o.allOverlapped > 0)) {
      return;
    }
    Lost c = out.lost(Cause.CONTENTION);
    for (int seg = 0; seg < o.segments; seg++) {
      if (o.fit[seg] > 0 && o.fitServed[seg] == 0) {
        c.add(in, o.segmentAt[seg], o.fitLost[seg]);
      }
    }
    c.certainty(0.6 * fitNever / fitJudged);
    c.evidence(new Evidence("trace", String.format(Locale.ROOT,
        "in %d of %d %s, kernels of different streams whose blocks fit the device's %d multiprocessors together never"
            + " ran together (%d such kernels in all), while %d operations did run beside other streams' work:"
            + " fewer multiprocessors were available than the device has", fitNever, fitJudged, o.segmentName(),
        o.sms, fitAll, o.allOverlapped), Map.of("segments", fitJudged, "never", fitNever, "kernels", fitAll)));
  }

  /** Compute-bound kernels that fill the device, beyond their upper bound with the clock at speed. */
  private static void slowFullKernels(Input in, Ledger out) {
    boolean retired = in.host().retiredPages > 0;
    int sms = Math.max(1, in.hw().multiprocessors());
    long full = 0;
    long slowFull = 0;
    double contention = 0;
    for (Graph.Node n : in.graph().nodes()) {
      if (n.kind() != Graph.Kind.KERNEL || KernelDetector.judge(in, n, retired, sms) != Judged.FILLS_DEVICE) {
        continue;
      }
      full++;
      long dur = n.durationNs();
      if (dur > n.upperNs()) {
        slowFull++;
        contention += dur - KernelDetector.expectedNs(n);
        out.lost(Cause.CONTENTION).add(in, n.startNs(), dur - KernelDetector.expectedNs(n));
      }
    }
    if (slowFull > 0) {
      Lost c = out.lost(Cause.CONTENTION);
      c.certainty(Math.min(1, slowFull / (double) Math.max(1, full)) * 0.8);
      c.evidence(new Evidence("invariant", String.format(Locale.ROOT,
          "%d of %d compute-bound kernels that fill the device ran beyond their upper bound with the SM clock at speed"
              + " (%.2f ms beyond the model): fewer multiprocessors than the device has were available", slowFull, full,
          contention / 1e6), Map.of("slow", slowFull, "of", full, "beyondNs", contention)));
    }
  }

  /** The queued time that is contention's, with its evidence; only the evidence when none is. */
  private void queued(Input in, Ledger out) {
    Queued.Waits w = waits;
    if (w.chargedGaps() == 0 && w.heldKernels() == 0) {
      if (w.unexplainedGaps() + w.heldUnexplainedKernels() > 0 && out.has(Cause.CONTENTION)) {
        out.lost(Cause.CONTENTION).evidence(w.evidence());
      }
      return;
    }
    List<Graph.Node> nodes = in.graph().nodes();
    Lost c = out.lost(Cause.CONTENTION);
    boolean fresh = c.events() == 0;
    for (int i = 0; i < nodes.size(); i++) {
      if (w.charged()[i] > 0) {
        c.add(in, nodes.get(i).startNs(), w.charged()[i]);
      }
      if (w.held()[i] > 0) {
        c.add(in, nodes.get(i).startNs(), w.held()[i]);
      }
    }
    double certainty = w.seen() ? CERTAINTY_SEEN : CERTAINTY_UNSEEN;
    c.certainty(fresh ? certainty : Math.max(c.certainty(), certainty));
    c.evidence(w.evidence());
  }
}
