package io.gitm.analysis.attribution;

import io.gitm.planner.Graph;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Work of the job that was ready to run while the device ran none of the job's work: the signature of another context
 * holding the device. Without MPS, the GPU time-slices between processes; while another process's slice runs, the
 * job's kernels wait in their queues and the job's trace shows a device that is idle with work pending.
 *
 * <p>A device operation is <b>ready</b> when the host call that issued it has returned and the operation before it on
 * its stream has ended. For each gap in which none of the job's operations ran, the operation that ends the gap waited
 * ready for {@code start − max(gap start, ready)}; beyond an allowance of {@link Thresholds#LAUNCH_GAP_LATENCIES}
 * launch latencies (the time a ready operation needs to start) that wait is <b>queued time</b>. Copies are left out
 * (a copy staged through pageable memory starts only when the host has staged its first chunk, which is host work),
 * and so are operations whose issuing call is not in the trace.
 *
 * <p>A kernel running when the other context's slice begins is paused until it ends (compute preemption): its record
 * spans the other's slice. A kernel is <b>held</b> when it lasted more than twice the median of the trace's kernels
 * of the same name and grid (not their declared work, which may vary with the data), and more than the allowance
 * beyond it; the time beyond the median is held time, charged as queued time is, but only where the samples saw
 * another process: without the field a cold start, a lowered clock or data-dependent work look the same.
 *
 * <p>Queued time is charged to {@link Cause#CONTENTION} ({@link ContentionDetector}) when the state samples say
 * another process had a context on the device in that sample interval
 * ({@link io.gitm.trace.StateField#OTHER_PROCESSES}), with certainty {@link ContentionDetector#CERTAINTY_SEEN}; when
 * the trace's samples do not hold the field (traces without NVML process samples: imported Kineto traces, older
 * traces), with certainty {@link ContentionDetector#CERTAINTY_UNSEEN}; when they hold it and no other process was
 * there, not at all (the evidence says how much waited unexplained). Charged queued time is taken out of the
 * device-idle partition ({@link IdlePartition}), so that it is not also charged to the host call that waited through
 * it.
 */
final class Queued {
  private Queued() {}

  /**
   * Queued time per graph node (indexed as {@code graph.nodes()}), and what it was charged to.
   *
   * @param charged per node, the queued time before it that is contention's (0 where none)
   * @param unexplained queued time while the samples said no other process was on the device
   * @param seen whether the trace's samples hold the other-process field
   * @param held per node, the held time of a kernel that is contention's (0 where none)
   * @param heldNs their sum, over {@code heldKernels} kernels
   * @param heldUnexplained held time while the samples said no other process was on the device, over
   *     {@code heldUnexplainedKernels} kernels
   */
  record Waits(double[] charged, double chargedNs, long chargedGaps, double unexplained, long unexplainedGaps,
      boolean seen, double[] held, double heldNs, long heldKernels, double heldUnexplained,
      long heldUnexplainedKernels) {

    /** What waited, what was charged, and why. */
    Evidence evidence() {
      String who = seen
          ? "the state samples saw another process with a context on the device then"
          : "the trace's state samples do not say whether another process was on the device (no other-process field)";
      String heldText = heldKernels == 0 ? "" : String.format(Locale.ROOT,
          ", and %d kernels lasted over twice their median, %.2f ms beyond it (held while another context ran)",
          heldKernels, heldNs / 1e6);
      String rest = unexplainedGaps + heldUnexplainedKernels == 0 ? "" : String.format(Locale.ROOT,
          "; %.2f ms more in %d gaps and %d held kernels while the samples saw no other process (not charged)",
          (unexplained + heldUnexplained) / 1e6, unexplainedGaps, heldUnexplainedKernels);
      return new Evidence("queue", String.format(Locale.ROOT,
          "the job's ready work waited %.2f ms in %d gaps while the device ran none of the job's work (beyond the time"
              + " a ready operation needs to start)%s: %s%s", chargedNs / 1e6, chargedGaps, heldText, who, rest),
          Map.ofEntries(Map.entry("queuedNs", chargedNs), Map.entry("gaps", chargedGaps),
              Map.entry("heldNs", heldNs), Map.entry("heldKernels", heldKernels),
              Map.entry("unexplainedNs", unexplained), Map.entry("unexplainedGaps", unexplainedGaps),
              Map.entry("heldUnexplainedNs", heldUnexplained),
              Map.entry("heldUnexplainedKernels", heldUnexplainedKernels), Map.entry("otherProcessField", seen)));
    }
  }

  /** Queued time in gaps: per node, what is contention's, its sum and count, and what waited unexplained. */
  private record Gaps(double[] charged, double chargedNs, long chargedGaps, double unexplained, long unexplainedGaps) {}

  /** Held time of kernels: per node, what is contention's, its sum and count, and what was held unexplained. */
  private record Held(double[] held, double heldNs, long heldKernels, double heldUnexplained,
      long heldUnexplainedKernels) {}

  /** Kernels of one name and grid. */
  private record Launch(String name, long blocks) {
    static Launch of(Graph.Node n) {
      return new Launch(n.name(), n.blocks());
    }
  }

  /** Measures the queued time of every gap in the job's device activity, and the held time of its kernels. */
  static Waits measure(Input in) {
    double allowance = Thresholds.launchGap(in.hw().launchLatencyNs());
    Map<Integer, Conditions.Tenants> tenants = in.host().tenants;
    boolean seen = !tenants.isEmpty();
    Gaps g = gaps(in, allowance, tenants, seen);
    Held h = held(in, allowance, tenants, seen);
    return new Waits(g.charged(), g.chargedNs(), g.chargedGaps(), g.unexplained(), g.unexplainedGaps(), seen,
        h.held(), h.heldNs(), h.heldKernels(), h.heldUnexplained(), h.heldUnexplainedKernels());
  }

  private static Gaps gaps(Input in, double allowance, Map<Integer, Conditions.Tenants> tenants, boolean seen) {
    List<Graph.Node> nodes = in.graph().nodes();
    HostCalls h = in.host();
    double[] charged = new double[nodes.size()];
    long[] streamKey = new long[8];
    long[] streamEnd = new long[8];
    int streams = 0;
    double chargedNs = 0;
    long chargedGaps = 0;
    double unexplained = 0;
    long unexplainedGaps = 0;
    long curEnd = Long.MIN_VALUE;
    for (int i = 0; i < nodes.size(); i++) {
      Graph.Node n = nodes.get(i);
      long key = ((long) n.device() << 32) ^ (n.stream() & 0xffffffffL);
      int si = 0;
      while (si < streams && streamKey[si] != key) {
        si++;
      }
      if (si == streams) {
        if (streams == streamKey.length) {
          streamKey = Arrays.copyOf(streamKey, streams * 2);
          streamEnd = Arrays.copyOf(streamEnd, streams * 2);
        }
        streamKey[streams] = key;
        streamEnd[streams++] = Long.MIN_VALUE;
      }
      long before = streamEnd[si];
      streamEnd[si] = Math.max(before, n.endNs());
      long g0 = curEnd;
      curEnd = Math.max(curEnd, n.endNs());
      if (g0 == Long.MIN_VALUE || n.startNs() <= g0 || n.kind() == Graph.Kind.COPY) {
        continue;
      }
      long issued = issuedAt(h, n.launchNs());
      if (issued == Long.MIN_VALUE) {
        continue;
      }
      long ready = Math.max(issued, before);
      double waited = n.startNs() - Math.max(g0, ready) - h.overhead(Math.max(g0, ready), n.startNs());
      double queued = waited - allowance;
      if (queued <= 0) {
        continue;
      }
      Conditions.Tenants t = tenants.get(n.device());
      if (!seen || (t != null && t.sharedAt(Math.max(g0, ready)))) {
        charged[i] = queued;
        chargedNs += queued;
        chargedGaps++;
      } else {
        unexplained += queued;
        unexplainedGaps++;
      }
    }
    return new Gaps(charged, chargedNs, chargedGaps, unexplained, unexplainedGaps);
  }

  private static Held held(Input in, double allowance, Map<Integer, Conditions.Tenants> tenants, boolean seen) {
    List<Graph.Node> nodes = in.graph().nodes();
    double[] held = new double[nodes.size()];
    double heldNs = 0;
    long heldKernels = 0;
    double heldUnexplained = 0;
    long heldUnexplainedKernels = 0;
    Map<Launch, Double> medians = seen ? in.kernelMedians(n -> true, Launch::of) : Map.of();
    for (int i = 0; seen && i < nodes.size(); i++) {
      Graph.Node n = nodes.get(i);
      if (n.kind() != Graph.Kind.KERNEL) {
        continue;
      }
      double median = medians.get(Launch.of(n));
      double beyond = n.durationNs() - median;
      if (beyond <= median || beyond <= allowance) {
        continue;
      }
      Conditions.Tenants t = tenants.get(n.device());
      if (t != null && t.sharedAt(n.startNs())) {
        held[i] = beyond;
        heldNs += beyond;
        heldKernels++;
      } else {
        heldUnexplained += beyond;
        heldUnexplainedKernels++;
      }
    }
    return new Held(held, heldNs, heldKernels, heldUnexplained, heldUnexplainedKernels);
  }

  /** The host call that issued an operation launched at {@code launchNs}: its end, or MIN_VALUE when not traced. */
  private static long issuedAt(HostCalls h, long launchNs) {
    int k = Arrays.binarySearch(h.start, 0, h.calls, launchNs);
    if (k < 0) {
      return Long.MIN_VALUE;
    }
    while (k > 0 && h.start[k - 1] == launchNs) {
      k--;
    }
    long end = h.end[k];
    while (k + 1 < h.calls && h.start[k + 1] == launchNs) {
      end = Math.min(end, h.end[++k]);
    }
    return end;
  }
}
