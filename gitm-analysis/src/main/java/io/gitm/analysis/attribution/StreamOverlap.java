package io.gitm.analysis.attribution;

import static io.gitm.analysis.attribution.Thresholds.CHUNKS;
import static io.gitm.analysis.attribution.Thresholds.MIN_EVENTS;
import static io.gitm.analysis.attribution.Thresholds.MIN_OPPORTUNITIES;
import static io.gitm.analysis.attribution.Thresholds.OVERLAP_MARGIN_NS;
import static io.gitm.analysis.attribution.Thresholds.RECENT;
import static io.gitm.analysis.attribution.Thresholds.SERIAL_RATE;

import io.gitm.planner.Graph;
import java.util.Arrays;
import java.util.List;

/**
 * How the work of different streams overlapped, for {@link SerializationDetector} and {@link ContentionDetector}.
 * First the planner's predicted-concurrent pairs (with no stream wait between them): how many did not overlap. When
 * too few broke to call the streams serialized, the operations in issue order: was each one, once ready while another
 * stream's work was running, able to run beside it; and was each kernel that would fit on the device beside a kernel
 * of another stream already running (their blocks within its multiprocessors) run beside it. Both are counted per
 * segment (an iteration when at least four are marked, else a window of the span), so that streams that stop
 * overlapping mid-run show.
 */
final class StreamOverlap {
  /** The predicted-concurrent pairs, and how many of them did not overlap. */
  final int pairs;
  final int broken;
  final boolean byIteration;
  final int segments;
  /**
   * Per segment: operations ready while another stream's work ran, how many of them ran beside it, and the rest's
   * lost overlap and the start of the first of them.
   */
  final int[] opportunities;
  final int[] overlapped;
  final double[] segmentLost;
  final long[] segmentAt;
  /**
   * Per segment: kernels that would fit beside a running kernel of another stream, how many ran beside it, and the
   * rest's lost overlap (with the short operations queued behind them on their stream).
   */
  final int[] fit;
  final int[] fitServed;
  final double[] fitLost;
  /** The device's multiprocessors, at least 1. */
  final int sms;
  /** Segments with an opportunity, those that (almost) never overlapped, and their opportunities. */
  final int judged;
  final int serial;
  final int serialOpportunities;
  /** Opportunities and overlapped operations over the whole run. */
  final int allOpportunities;
  final int allOverlapped;

  private StreamOverlap(int pairs, int broken, Walk w) {
    this.pairs = pairs;
    this.broken = broken;
    byIteration = w.byIteration;
    segments = w.opportunities.length;
    opportunities = w.opportunities;
    overlapped = w.overlapped;
    segmentLost = w.segmentLost;
    segmentAt = w.segmentAt;
    fit = w.fit;
    fitServed = w.fitServed;
    fitLost = w.fitLost;
    sms = w.sms;
    int j = 0;
    int s = 0;
    int so = 0;
    int ao = 0;
    int aov = 0;
    for (int seg = 0; seg < segments; seg++) {
      ao += opportunities[seg];
      aov += overlapped[seg];
      if (opportunities[seg] > 0) {
        j++;
        if (serial(seg)) {
          s++;
          so += opportunities[seg];
        }
      }
    }
    judged = j;
    serial = s;
    serialOpportunities = so;
    allOpportunities = ao;
    allOverlapped = aov;
  }

  static StreamOverlap of(Input in) {
    List<Graph.Node> nodes = in.graph().nodes();
    List<int[]> pairs = in.graph().concurrentPairs();
    int broken = 0;
    for (int[] p : pairs) {
      if (!overlap(nodes.get(p[0]), nodes.get(p[1]))) {
        broken++;
      }
    }
    Walk w = new Walk(in);
    if (!pairsBroken(broken, pairs.size())) {
      for (int idx : in.launchOrder()) {
        w.node(idx);
      }
    }
    return new StreamOverlap(pairs.size(), broken, w);
  }

  /** Whether two operations ran at the same time. */
  static boolean overlap(Graph.Node a, Graph.Node b) {
    return a.startNs() < b.endNs() && b.startNs() < a.endNs();
  }

  private static boolean pairsBroken(int broken, int pairs) {
    return broken > 0 && (double) broken / pairs >= 0.05;
  }

  /** Whether enough predicted-concurrent pairs did not overlap to call the streams serialized. */
  boolean pairsBroken() {
    return pairsBroken(broken, pairs);
  }

  /** Whether segment {@code seg} had opportunities and (almost) none of them overlapped. */
  boolean serial(int seg) {
    return opportunities[seg] > 0 && overlapped[seg] < SERIAL_RATE * opportunities[seg];
  }

  /** Whether the operations ready beside other streams' work (almost) never ran beside it in most segments. */
  boolean streamsSerialized() {
    return serial >= MIN_EVENTS && serialOpportunities >= MIN_OPPORTUNITIES && serial * 2 >= judged;
  }

  /** Whether either signature calls the streams serialized. */
  boolean serialized() {
    return pairsBroken() || streamsSerialized();
  }

  /** What a segment is, for people. */
  String segmentName() {
    return byIteration ? "iterations" : "windows of the span";
  }

  /** The walk over the operations in issue order, with the last few kernels and the end of each stream. */
  private static final class Walk {
    final Input in;
    final List<Graph.Node> nodes;
    final HostCalls h;
    final boolean byIteration;
    final int sms;
    final int[] opportunities;
    final int[] overlapped;
    final double[] segmentLost;
    final long[] segmentAt;
    final int[] fit;
    final int[] fitServed;
    final double[] fitLost;
    long[] keys = new long[8];
    long[] lastEnd = new long[8];
    // the last few kernels of each stream, to find one running when an operation was ready
    int[] recent = new int[8 * RECENT];
    int[] recentNext = new int[8];
    // per stream, the kernel of another stream its last operation waited behind, while short ones queue behind it
    long[] heldUntil = new long[8];
    long[] heldLength = new long[8];
    int[] heldSegment = new int[8];
    int streams;

    Walk(Input in) {
      this.in = in;
      nodes = in.graph().nodes();
      h = in.host();
      byIteration = h.iterStart.length >= 4;
      int segments = byIteration ? h.iterStart.length : CHUNKS;
      opportunities = new int[segments];
      overlapped = new int[segments];
      segmentLost = new double[segments];
      segmentAt = new long[segments];
      fit = new int[segments];
      fitServed = new int[segments];
      fitLost = new double[segments];
      sms = Math.max(1, in.hw().multiprocessors());
      Arrays.fill(recent, -1);
      Arrays.fill(heldSegment, -1);
    }

    void node(int idx) {
      Graph.Node n = nodes.get(idx);
      long key = ((long) n.device() << 32) | (n.stream() & 0xffffffffL);
      int s = stream(key);
      long ready = Math.max(n.launchNs(), lastEnd[s]);
      boolean justHeld = false;
      long other = Long.MIN_VALUE;
      for (int o = 0; o < streams; o++) {
        if (o != s && (keys[o] >>> 32) == (key >>> 32) && lastEnd[o] > other) {
          other = lastEnd[o];
        }
      }
      // a copy staged through pageable memory is the host's to overlap, not the streams' (PAGEABLE_COPIES)
      boolean staged = n.kind() == Graph.Kind.COPY && Arrays.binarySearch(h.pageable, n.correlationId()) >= 0;
      if (other != Long.MIN_VALUE && other - OVERLAP_MARGIN_NS > ready && !staged) {
        int seg = byIteration ? h.iteration(n.launchNs()) : in.chunk(n.launchNs());
        if (seg >= 0) {
          justHeld = opportunity(n, s, seg, ready, other);
        }
      }
      if (heldSegment[s] >= 0 && !justHeld) {
        if (n.launchNs() < heldUntil[s] && n.startNs() >= heldUntil[s] - OVERLAP_MARGIN_NS
            && n.durationNs() < heldLength[s] / 2) {
          fitLost[heldSegment[s]] += n.durationNs();
        } else {
          heldSegment[s] = -1;
        }
      }
      lastEnd[s] = Math.max(lastEnd[s], n.endNs());
      if (n.kind() == Graph.Kind.KERNEL) {
        recent[s * RECENT + recentNext[s]] = idx;
        recentNext[s] = (recentNext[s] + 1) % RECENT;
      }
    }

    /** Counts an operation ready beside another stream's work; true when it now holds its stream behind a kernel. */
    private boolean opportunity(Graph.Node n, int s, int seg, long ready, long other) {
      opportunities[seg]++;
      boolean served = n.startNs() + OVERLAP_MARGIN_NS < other;
      if (served) {
        overlapped[seg]++;
      } else {
        segmentLost[seg] += Math.min(n.durationNs(), other - ready);
        segmentAt[seg] = segmentAt[seg] == 0 ? n.startNs() : segmentAt[seg];
      }
      Graph.Node k = n.kind() == Graph.Kind.KERNEL ? runningBeside(n, s, ready) : null;
      if (k == null) {
        return false;
      }
      boolean beside = n.startNs() + OVERLAP_MARGIN_NS < k.endNs();
      fit[seg]++;
      fitServed[seg] += beside ? 1 : 0;
      if (beside) {
        return false;
      }
      // this operation and the short ones queued behind it on its stream ran after the kernel instead of beside it
      fitLost[seg] += Math.min(n.durationNs(), k.endNs() - ready);
      heldUntil[s] = k.endNs();
      heldLength[s] = k.durationNs();
      heldSegment[s] = seg;
      return true;
    }

    /** A kernel of another stream already running when kernel {@code n} was ready, that it would fit beside. */
    private Graph.Node runningBeside(Graph.Node n, int s, long ready) {
      for (int o = 0; o < streams; o++) {
        for (int r = 0; o != s && r < RECENT; r++) {
          int ci = recent[o * RECENT + r];
          Graph.Node c = ci < 0 ? null : nodes.get(ci);
          if (c != null && c.device() == n.device() && c.startNs() <= ready
              && c.endNs() - OVERLAP_MARGIN_NS > ready && n.blocks() + c.blocks() <= sms) {
            return c;
          }
        }
      }
      return null;
    }

    /** The index of the stream with {@code key}, added when new. */
    private int stream(long key) {
      int s = 0;
      while (s < streams && keys[s] != key) {
        s++;
      }
      if (s == streams) {
        if (streams == keys.length) {
          keys = Arrays.copyOf(keys, streams * 2);
          lastEnd = Arrays.copyOf(lastEnd, streams * 2);
          recent = Arrays.copyOf(recent, streams * 2 * RECENT);
          Arrays.fill(recent, streams * RECENT, recent.length, -1);
          recentNext = Arrays.copyOf(recentNext, streams * 2);
          heldUntil = Arrays.copyOf(heldUntil, streams * 2);
          heldLength = Arrays.copyOf(heldLength, streams * 2);
          heldSegment = Arrays.copyOf(heldSegment, streams * 2);
          Arrays.fill(heldSegment, streams, streams * 2, -1);
        }
        keys[s] = key;
        lastEnd[s] = Long.MIN_VALUE;
        streams++;
      }
      return s;
    }
  }
}
