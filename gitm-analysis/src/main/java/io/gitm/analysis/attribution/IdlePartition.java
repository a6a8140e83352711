package io.gitm.analysis.attribution;

import static io.gitm.analysis.attribution.HostCalls.ALLOC;
import static io.gitm.analysis.attribution.HostCalls.ISSUE;
import static io.gitm.analysis.attribution.HostCalls.PAGEABLE;
import static io.gitm.analysis.attribution.HostCalls.SYNC;
import static io.gitm.analysis.attribution.HostCalls.WARMUP;
import static io.gitm.analysis.attribution.Thresholds.TOUCH_NS;

import io.gitm.planner.Graph;
import java.util.Arrays;
import java.util.List;

/**
 * The device-idle partition: each gap between device operations (the tracer's own time taken out) goes to the
 * blocking host calls that overlap it or that the host returned from just before it, in proportion to their share of
 * the gap (the time from the last one's return to the gap's end, re-issuing work, goes to that one). A gap with the
 * host never blocked in it: when a blocking call earlier in the same iteration drained the device (no work issued
 * before that call was still running after it), the host's driver calls in the gap other than launches (frees,
 * allocations, copies to issue, event records: the pipeline refilling) are the last such call's cost; the rest of
 * the gap (the host's own code, launches) goes to the launch-bound host when the gap is longer than
 * {@link Thresholds#LAUNCH_GAP_LATENCIES} launch latencies. The part of the gap before a node that the job's ready
 * work waited behind another context ({@link Queued}) is taken out of the gap first: that time is not the host's.
 *
 * <p>Its parts go to three detectors: the allocator's and the launch-bound host's to {@link IdleDetector}, the
 * pageable copies' to {@link PageableDetector}, and the synchronizations' (with which calls drained the device) to
 * {@link SyncDetector}.
 */
final class IdlePartition {
  /** Gaps (their start, the time charged) charged to allocations and frees that held the host. */
  final Events alloc;
  /** Gaps charged to copies staged through pageable memory. */
  final Events pageable;
  /** Gaps with the host not blocked, longer than {@link #launchGap}. */
  final Events launch;
  final double allocNs;
  final double pageableNs;
  final long launchGaps;
  final double launchNs;
  /** The gap beyond which an unblocked host is launch-bound. */
  final double launchGap;
  /** Per synchronizing call (its ordinal), the device-idle time charged to it. */
  final double[] syncCost;
  /** Per host call: blocking, with all work issued before it finished when it returned. */
  final boolean[] drained;
  /** Per host call: blocking, with work issued before it still running when it returned. */
  final boolean[] leftBusy;

  private IdlePartition(Walk w) {
    alloc = w.alloc;
    pageable = w.pageable;
    launch = w.launch;
    allocNs = w.allocNs;
    pageableNs = w.pageableNs;
    launchGaps = w.launchGaps;
    launchNs = w.launchNs;
    launchGap = w.launchGap;
    syncCost = w.syncCost;
    drained = w.drained;
    leftBusy = w.leftBusy;
  }

  /** The partition of the trace's device-idle gaps; {@code queued[i]} is the queued time before node i. */
  static IdlePartition of(Input in, double[] queued) {
    HostCalls h = in.host();
    boolean[] drained = new boolean[h.calls];
    boolean[] leftBusy = new boolean[h.calls];
    drains(in, drained, leftBusy);
    Walk w = new Walk(h, drained, leftBusy, Thresholds.launchGap(in.hw().launchLatencyNs()));
    List<Graph.Node> nodes = in.graph().nodes();
    long curEnd = Long.MIN_VALUE;
    for (int ni = 0; ni < nodes.size(); ni++) {
      Graph.Node n = nodes.get(ni);
      long g1 = n.startNs();
      if (curEnd != Long.MIN_VALUE && g1 > curEnd) {
        long g0 = curEnd;
        double len = (g1 - g0) - h.overhead(g0, g1) - queued[ni];
        if (len > 0) {
          w.gap(g0, g1, len);
        }
      }
      curEnd = Math.max(curEnd, n.endNs());
    }
    return new IdlePartition(w);
  }

  /**
   * Per blocking host call, whether it drained the device (work issued before it was still running when it began,
   * and all of that work had finished when it returned) and whether it left the device busy (work issued before it
   * was still running when it returned: a wait for part of the work only). A call that found the device idle did
   * neither.
   */
  private static void drains(Input in, boolean[] drained, boolean[] leftBusy) {
    HostCalls h = in.host();
    List<Graph.Node> nodes = in.graph().nodes();
    int[] byLaunch = in.launchOrder();
    int q = 0;
    long maxEnd = Long.MIN_VALUE;
    for (int k = 0; k < h.calls; k++) {
      if (!h.blocking(k)) {
        continue;
      }
      while (q < byLaunch.length && nodes.get(byLaunch[q]).launchNs() < h.start[k]) {
        maxEnd = Math.max(maxEnd, nodes.get(byLaunch[q]).endNs());
        q++;
      }
      drained[k] = maxEnd > h.start[k] + TOUCH_NS && maxEnd <= h.end[k] + TOUCH_NS;
      leftBusy[k] = maxEnd > h.end[k] + TOUCH_NS;
    }
  }

  /** Events of lost time (when, how long), in the order they were found. */
  static final class Events {
    private long[] at = new long[16];
    private double[] ns = new double[16];
    private int size;

    private void add(long t, double d) {
      if (size == at.length) {
        at = Arrays.copyOf(at, size * 2);
        ns = Arrays.copyOf(ns, size * 2);
      }
      at[size] = t;
      ns[size++] = d;
    }

    boolean isEmpty() {
      return size == 0;
    }

    /** Adds every event to {@code l}, in order. */
    void addTo(Lost l, Input in) {
      for (int i = 0; i < size; i++) {
        l.add(in, at[i], ns[i]);
      }
    }
  }

  /** The walk over the gaps in start order, and where it stands among the host's calls. */
  private static final class Walk {
    final HostCalls h;
    final boolean[] drained;
    final boolean[] leftBusy;
    final double launchGap;
    final double[] syncCost;
    final Events alloc = new Events();
    final Events pageable = new Events();
    final Events launch = new Events();
    double allocNs;
    double pageableNs;
    long launchGaps;
    double launchNs;
    // the first call that may touch the next gap, and the last call that drained the device
    int j;
    int lastDrain = -1;
    int drainGaps;
    // the current gap: per category the time charged, the synchronizations in it and their weights
    final double[] w = new double[6];
    int ns;
    int[] syncCall = new int[16];
    double[] syncWeight = new double[16];
    int last;
    int drainer;
    long lastEnd;
    double refill;

    Walk(HostCalls h, boolean[] drained, boolean[] leftBusy, double launchGap) {
      this.h = h;
      this.drained = drained;
      this.leftBusy = leftBusy;
      this.launchGap = launchGap;
      this.syncCost = new double[h.syncs];
    }

    /** Partitions the gap [g0, g1), {@code len} of it the host's. */
    void gap(long g0, long g1, double len) {
      advance(g0);
      weigh(g0, g1);
      double charged = 0;
      if (last >= 0) {
        // the device drained while the host was blocked: re-issuing work after the call is the cost of the call the
        // host was in when the device went idle (or the last one, when none was)
        charged = g1 - Math.max(g0, lastEnd);
        if (drainer >= 0) {
          last = drainer;
        }
      } else if (lastDrain >= 0 && refilling(g0)) {
        // the pipeline is refilling after a drain in the same iteration (without iteration markers: the first gap
        // after it): a short gap is the drain's cost, a longer one only for the host's non-launch driver calls
        charged = len <= launchGap ? len : Math.min(len, refill);
        last = lastDrain;
      }
      drainGaps++;
      if (last >= 0 && charged > 0) {
        w[h.cat[last]] += charged;
        if (h.cat[last] == SYNC) {
          sync(h.syncOf(last), charged);
        }
      }
      split(g0, len);
    }

    /** Moves past the calls that ended before the gap, noting the last one that drained the device. */
    private void advance(long g0) {
      while (j < h.calls && h.end[j] < g0 - TOUCH_NS) {
        if (drained[j] && (lastDrain < 0 || h.end[j] >= h.end[lastDrain])) {
          lastDrain = j;
          drainGaps = 0;
        }
        j++;
      }
    }

    /** Whether the gap at {@code g0} is the pipeline refilling after the last drain. */
    private boolean refilling(long g0) {
      return h.iterStart.length >= 2
          ? h.iteration(h.end[lastDrain]) == h.iteration(g0) && h.iteration(g0) >= 0 : drainGaps == 0;
    }

    /** The blocking calls' overlap with the gap, per category, and the host's issuing time in it. */
    private void weigh(long g0, long g1) {
      Arrays.fill(w, 0);
      ns = 0;
      last = -1;
      drainer = -1;
      lastEnd = Long.MIN_VALUE;
      refill = 0;
      for (int k = j; k < h.calls && h.start[k] < g1; k++) {
        byte c = h.cat[k];
        double o = Math.max(0, Math.min(h.end[k], g1) - Math.max(h.start[k], g0));
        if (!h.blocking(k)) {
          refill += c == ISSUE ? o : 0;
          continue;
        }
        if (h.end[k] < g0 - TOUCH_NS) {
          continue;
        }
        w[c] += o;
        if (c == SYNC) {
          sync(h.syncOf(k), o);
        }
        if (h.end[k] <= g1 && h.end[k] > lastEnd) {
          lastEnd = h.end[k];
          last = k;
        }
        if (h.start[k] <= g0 && (drainer < 0 || h.end[k] > h.end[drainer])) {
          drainer = k;
        }
      }
    }

    private void sync(int ordinal, double weight) {
      if (ns == syncCall.length) {
        syncCall = Arrays.copyOf(syncCall, ns * 2);
        syncWeight = Arrays.copyOf(syncWeight, ns * 2);
      }
      syncCall[ns] = ordinal;
      syncWeight[ns++] = weight;
    }

    /** Splits the gap between the blocking calls' categories and the launch-bound host. */
    private void split(long g0, double len) {
      double total = w[ALLOC] + w[PAGEABLE] + w[SYNC] + w[WARMUP];
      // a gap the host was blocked in is the blocking calls'; after a drain only the refill is theirs
      double blocked = total == 0 ? 0 : lastEnd != Long.MIN_VALUE ? len : Math.min(len, total);
      if (blocked > 0) {
        double a = blocked * w[ALLOC] / total;
        double p = blocked * w[PAGEABLE] / total;
        allocNs += a;
        pageableNs += p;
        if (a > 0) {
          alloc.add(g0, a);
        }
        if (p > 0) {
          pageable.add(g0, p);
        }
        for (int s = 0; s < ns; s++) {
          syncCost[syncCall[s]] += blocked * syncWeight[s] / total;
        }
      }
      double free = len - blocked;
      if (free > 0 && len > launchGap) {
        launchGaps++;
        launchNs += free;
        launch.add(g0, free);
      }
    }
  }
}
