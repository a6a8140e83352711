package io.gitm.analysis.attribution;

import static io.gitm.analysis.attribution.HostCalls.LAUNCH;

import io.gitm.planner.Graph;
import java.util.Arrays;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Host synchronizations beyond what the job needs. A job that pipelines (work on two or more streams, and waits
 * that left the device busy) needs no wait that drains the device: every draining synchronization is excess.
 * Otherwise, with iteration markers, the job's own synchronizations are the ones at the same place in at least half
 * of the iterations after the first — the same number of launches since the iteration began, or the same number
 * before it ends (a job repeats its structure every iteration) —; the rest are excess. Without markers the need is
 * one per 100 launches (the cheapest). Each excess one costs the device-idle time the {@link IdlePartition} charged to
 * it, or the overlap its drain destroyed ({@link #refill}).
 */
final class SyncDetector implements Detector {
  private final IdlePartition idle;

  SyncDetector(IdlePartition idle) {
    this.idle = idle;
  }

  /** Which synchronizations are excess, how many the job needs, and the rule that says so. */
  private record Need(boolean[] excess, long needed, String rule) {}

  @Override
  public Set<Cause> causes() {
    return EnumSet.of(Cause.SYNCHRONOUS_HOST_CALLS);
  }

  @Override
  public void detect(Input in, Ledger out) {
    HostCalls h = in.host();
    if (h.syncs == 0) {
      return;
    }
    int draining = 0;
    int busy = 0;
    for (int s = 0; s < h.syncs; s++) {
      draining += idle.drained[h.syncCall[s]] ? 1 : 0;
      busy += idle.leftBusy[h.syncCall[s]] ? 1 : 0;
    }
    Need need = need(in, draining, busy);
    long n = 0;
    double total = 0;
    Lost l = null;
    List<Graph.Node> nodes = in.graph().nodes();
    for (int s = 0; s < h.syncs; s++) {
      if (need.excess()[s]) {
        n++;
        double cost = Math.max(idle.syncCost[s], idle.drained[h.syncCall[s]] ? refill(h, nodes, h.syncCall[s]) : 0);
        total += cost;
        if (cost > 0) {
          l = out.lost(Cause.SYNCHRONOUS_HOST_CALLS);
          l.add(in, h.syncStart[s], cost);
        }
      }
    }
    if (l != null) {
      l.certainty(Math.min(1, n / (double) h.syncs * 2));
      l.evidence(new Evidence("trace", String.format(Locale.ROOT,
          "%d host synchronizations where the job needs %s: %d excess, %d of them draining the device, which then"
              + " idled %.2f ms", h.syncs, need.rule(), n, draining, total / 1e6), Map.of("syncs", h.syncs, "needed",
          need.needed(), "excess", n, "draining", draining, "idleNs", total)));
    }
  }

  /** The rule that fits the job, and the synchronizations it calls excess. */
  private Need need(Input in, int draining, int busy) {
    HostCalls h = in.host();
    boolean[] excess = new boolean[h.syncs];
    int iterations = h.iterStart.length;
    if (busy > 0 && streams(in.graph()) >= 2) {
      for (int s = 0; s < h.syncs; s++) {
        excess[s] = idle.drained[h.syncCall[s]];
      }
      return new Need(excess, h.syncs - draining, "no wait that drains the device (it pipelines over several"
          + " streams, and " + busy + " of its waits left the device busy)");
    }
    if (iterations >= 2) {
      long needed = recurring(h, excess);
      return new Need(excess, needed, "those at the same place (launches since the iteration began, or before it"
          + " ended) in at least half of the iterations after the first: " + needed + " of them, "
          + (needed % iterations == 0 ? String.valueOf(needed / iterations)
              : String.format(Locale.ROOT, "%.1f", needed / (double) iterations)) + " per iteration");
    }
    long needed = Math.max(1, h.launches / 100);
    if (h.syncs > needed) {
      Integer[] order = new Integer[h.syncs];
      for (int s = 0; s < h.syncs; s++) {
        order[s] = s;
      }
      Arrays.sort(order, Comparator.comparingDouble(s -> idle.syncCost[s]));
      for (int r = (int) needed; r < h.syncs; r++) {
        excess[order[r]] = true;
      }
    }
    return new Need(excess, needed, "one per 100 launches");
  }

  /**
   * Marks as excess the synchronizations inside marked iterations that do not recur: a synchronization's place is the
   * number of launches in its iteration before it, and the number after it; a place held by a synchronization in at
   * least half of the iterations after the first (at least two) is the job's own. Returns how many are needed.
   */
  static long recurring(HostCalls h, boolean[] excess) {
    int iterations = h.iterStart.length;
    int[] launchesBefore = new int[h.calls + 1];
    for (int k = 0; k < h.calls; k++) {
      launchesBefore[k + 1] = launchesBefore[k] + (h.cat[k] == LAUNCH ? 1 : 0);
    }
    int[] first = iterationLaunches(h, launchesBefore);
    int[] iter = new int[h.syncs];
    long[] fromStart = new long[h.syncs];
    long[] toEnd = new long[h.syncs];
    Map<Long, Set<Integer>> heldBy = new HashMap<>();
    int skip = iterations > 2 ? 1 : 0;
    for (int s = 0; s < h.syncs; s++) {
      int i = h.iteration(h.syncStart[s]);
      iter[s] = i;
      if (i < 0) {
        continue;
      }
      int k = h.syncCall[s];
      // places as keys: launches since the start (even keys), launches to the end (odd keys)
      fromStart[s] = 2L * (launchesBefore[k] - first[i]);
      toEnd[s] = 2L * (first[i + 1] - launchesBefore[k]) + 1;
      if (i >= skip) {
        heldBy.computeIfAbsent(fromStart[s], x -> new HashSet<>()).add(i);
        heldBy.computeIfAbsent(toEnd[s], x -> new HashSet<>()).add(i);
      }
    }
    int quorum = Math.max(2, (iterations - skip + 1) / 2);
    long needed = 0;
    for (int s = 0; s < h.syncs; s++) {
      boolean own = iter[s] < 0 || heldBy.getOrDefault(fromStart[s], Set.of()).size() >= quorum
          || heldBy.getOrDefault(toEnd[s], Set.of()).size() >= quorum;
      excess[s] = !own;
      needed += own ? 1 : 0;
    }
    return needed;
  }

  /** Per iteration (and one past the last), the launches before its first call. */
  private static int[] iterationLaunches(HostCalls h, int[] launchesBefore) {
    int iterations = h.iterStart.length;
    int[] first = new int[iterations + 1];
    for (int i = 0; i <= iterations; i++) {
      int lo = 0;
      int hi = h.calls;
      long t = i < iterations ? h.iterStart[i] : Long.MAX_VALUE;
      while (lo < hi) {
        int mid = (lo + hi) >>> 1;
        if (h.start[mid] < t) {
          lo = mid + 1;
        } else {
          hi = mid;
        }
      }
      first[i] = launchesBefore[lo];
    }
    return first;
  }

  /**
   * How long the device took to get ahead of the host again after call {@code k} drained it: from the call's return
   * to the start of the first operation still running when the host next blocked (the work queued while the host
   * refilled the pipeline ran alone instead of beside the drained work), at most the time the host was blocked.
   */
  static double refill(HostCalls h, List<Graph.Node> nodes, int k) {
    long r = h.end[k];
    long next = Long.MAX_VALUE;
    for (int c = k + 1; c < h.calls; c++) {
      if (h.blocking(c)) {
        next = h.start[c];
        break;
      }
    }
    int lo = 0;
    int hi = nodes.size();
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (nodes.get(mid).startNs() < r) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    for (int i = lo; i < nodes.size() && i < lo + 256 && nodes.get(i).startNs() < next; i++) {
      if (nodes.get(i).endNs() >= next) {
        return Math.min(h.end[k] - h.start[k], nodes.get(i).startNs() - r);
      }
    }
    return 0;
  }

  /** How many streams ran device operations (0, 1, or 2 for two or more). */
  static int streams(Graph g) {
    long first = Long.MIN_VALUE;
    for (Graph.Node n : g.nodes()) {
      long key = ((long) n.device() << 32) | (n.stream() & 0xffffffffL);
      if (first == Long.MIN_VALUE) {
        first = key;
      } else if (key != first) {
        return 2;
      }
    }
    return first == Long.MIN_VALUE ? 0 : 1;
  }
}
