package io.gitm.analysis.attribution;

import static io.gitm.analysis.attribution.Thresholds.SLOW_ALLOC_NS;

import io.gitm.planner.Planner;
import io.gitm.trace.ApiCallRecord;
import io.gitm.trace.CopyRecord;
import io.gitm.trace.MarkerRecord;
import io.gitm.trace.OverheadRecord;
import io.gitm.trace.StateField;
import io.gitm.trace.StateSample;
import io.gitm.trace.TraceRecord;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * What the host did, gathered in one pass over the trace and read-only after: its driver calls in start order, each
 * with what it was doing ({@link #ISSUE}, {@link #LAUNCH}, {@link #ALLOC}, {@link #PAGEABLE}, {@link #SYNC}, or
 * {@link #WARMUP}: a stream-ordered pool growing to its working size in the first iterations, blocking but no cause);
 * the synchronizing calls; the iterations the job marked; the tracer's own intervals; the device-state samples in time
 * order; each device's other tenants.
 */
final class HostCalls {
  /** A call that issues work and does not block. */
  static final byte ISSUE = 0;
  /** An allocation or free that held the host. */
  static final byte ALLOC = 1;
  /** A copy staged through pageable memory. */
  static final byte PAGEABLE = 2;
  /** A wait for the device. */
  static final byte SYNC = 3;
  /** A kernel launch. */
  static final byte LAUNCH = 4;
  /** A stream-ordered pool's allocation while it grows to its working size. */
  static final byte WARMUP = 5;

  /** Per call, in start order: its start, its end, and what it was doing. */
  final long[] start;
  final long[] end;
  final byte[] cat;
  final int calls;
  /** Per synchronizing call, in start order: its start and its index among the calls. */
  final long[] syncStart;
  final int[] syncCall;
  final int syncs;
  /** The starts of the iterations the job marked, in order. */
  final long[] iterStart;
  /** Correlation ids of the copies from or to pageable memory, sorted. */
  final long[] pageable;
  final long launches;
  final long slowAllocs;
  final double slowAllocNs;
  /** Stretches of host time outside any driver call, within the span of the calls, and their sum. */
  final long ownGaps;
  final double ownGapNs;
  /** The tracer's own intervals, in start order. */
  final long[] overStart;
  final long[] overEnd;
  /** The state samples with a finite SM clock and clock-event reasons, in time order. */
  final List<StateSample> samples;
  /** Per device, its other tenants: from the samples holding {@link StateField#OTHER_PROCESSES}, whatever else. */
  final Map<Integer, Conditions.Tenants> tenants;
  /** The most retired pages plus remapped rows any sample reported. */
  final double retiredPages;

  private HostCalls(Scan s, Table t) {
    start = t.start;
    end = t.end;
    cat = t.cat;
    calls = t.calls;
    syncStart = Arrays.copyOf(t.syncStart, t.syncs);
    syncCall = Arrays.copyOf(t.syncCall, t.syncs);
    syncs = t.syncs;
    iterStart = s.iterations.stream().mapToLong(MarkerRecord::startNs).toArray();
    pageable = s.pageable;
    launches = t.launches;
    slowAllocs = t.slowAllocs;
    slowAllocNs = t.slowAllocNs;
    ownGaps = t.ownGaps;
    ownGapNs = t.ownGapNs;
    overStart = s.overhead.stream().mapToLong(OverheadRecord::startNs).toArray();
    overEnd = s.overhead.stream().mapToLong(OverheadRecord::endNs).toArray();
    samples = List.copyOf(s.clockSamples());
    tenants = Conditions.Tenants.of(s.tenantSamples);
    retiredPages = s.retiredPages;
  }

  static HostCalls of(List<? extends TraceRecord> trace) {
    Scan s = new Scan();
    trace.forEach(s::accept);
    s.finish();
    Table t = new Table(s.apiCalls, s.pageable, s.warmUntil());
    s.forEachCall(trace, t::add);
    return new HostCalls(s, t);
  }

  /** The ordinal of synchronizing call {@code k} (a call of category {@link #SYNC}). */
  int syncOf(int k) {
    return Arrays.binarySearch(syncCall, 0, syncs, k);
  }

  /** Whether call {@code k} held the host: an allocation, a pageable copy, a wait, or a growing pool. */
  boolean blocking(int k) {
    byte c = cat[k];
    return c == ALLOC || c == PAGEABLE || c == SYNC || c == WARMUP;
  }

  /** What a driver call was doing: stalling in the allocator, staging a pageable copy, waiting, or issuing work. */
  static byte category(ApiCallRecord a, long[] pageableCorrelations) {
    String n = a.name();
    return switch (a.kind()) {
      case SYNC -> n.contains("WaitEvent") ? ISSUE : SYNC;
      case ALLOC, FREE -> n.contains("Host") ? ISSUE
          : !n.contains("Async") || a.durationNs() > SLOW_ALLOC_NS ? ALLOC : ISSUE;
      case COPY -> Arrays.binarySearch(pageableCorrelations, a.correlationId()) >= 0 ? PAGEABLE
          : n.contains("Async") ? ISSUE : SYNC;
      case LAUNCH -> LAUNCH;
      default -> ISSUE;
    };
  }

  /** The tracer's own time within [from, to). */
  long overhead(long from, long to) {
    if (overStart.length == 0) {
      return 0;
    }
    int i = Arrays.binarySearch(overStart, from - 10_000_000L);
    i = i < 0 ? -i - 1 : i;
    long total = 0;
    long reached = from;
    for (; i < overStart.length && overStart[i] < to; i++) {
      long s = Math.max(reached, overStart[i]);
      long e = Math.min(to, overEnd[i]);
      if (e > s) {
        total += e - s;
        reached = e;
      }
    }
    return total;
  }

  /** The iteration holding time {@code t}, or -1 outside the marked iterations. */
  int iteration(long t) {
    int i = Arrays.binarySearch(iterStart, t);
    i = i >= 0 ? i : -i - 2;
    return i;
  }

  /** The records of a trace the host calls are built from, gathered in one pass. */
  private static final class Scan {
    int apiCalls;
    boolean sorted = true;
    long prevStart = Long.MIN_VALUE;
    long[] pageable = new long[16];
    int np;
    final List<StateSample> samples = new ArrayList<>();
    final List<StateSample> tenantSamples = new ArrayList<>();
    double retiredPages;
    final List<MarkerRecord> iterations = new ArrayList<>();
    final List<OverheadRecord> overhead = new ArrayList<>();

    void accept(TraceRecord r) {
      switch (r) {
        case ApiCallRecord a -> {
          apiCalls++;
          sorted &= a.startNs() >= prevStart;
          prevStart = a.startNs();
        }
        case CopyRecord c -> {
          if (Planner.pageable(c) && c.correlationId() != 0) {
            if (np == pageable.length) {
              pageable = Arrays.copyOf(pageable, np * 2);
            }
            pageable[np++] = c.correlationId();
          }
        }
        case StateSample s -> sample(s);
        case MarkerRecord m -> {
          if (m.name().startsWith("iteration")) {
            iterations.add(m);
          }
        }
        case OverheadRecord o -> overhead.add(o);
        default -> {
        }
      }
    }

    private void sample(StateSample s) {
      samples.add(s);
      if (Double.isFinite(s.get(StateField.OTHER_PROCESSES))) {
        tenantSamples.add(s);
      }
      double p = (s.has(StateField.RETIRED_PAGES) ? s.get(StateField.RETIRED_PAGES) : 0)
          + (s.has(StateField.REMAPPED_ROWS) ? s.get(StateField.REMAPPED_ROWS) : 0);
      if (p > retiredPages) {
        retiredPages = p;
      }
    }

    void finish() {
      pageable = Arrays.copyOf(pageable, np);
      Arrays.sort(pageable);
      iterations.sort(Comparator.comparingLong(MarkerRecord::startNs));
      overhead.sort(Comparator.comparingLong(OverheadRecord::startNs));
    }

    /**
     * Before this time an asynchronous allocation is warm-up: a stream-ordered pool grows to its working size in the
     * first iterations (one per buffer set in flight), which is not a stall.
     */
    long warmUntil() {
      int warmIterations = Math.max(2, iterations.size() / 10);
      return iterations.size() > warmIterations ? iterations.get(warmIterations).startNs() : Long.MIN_VALUE;
    }

    /** The calls in start order: as recorded (one host thread records them in order), else sorted. */
    void forEachCall(List<? extends TraceRecord> trace, Consumer<ApiCallRecord> add) {
      List<ApiCallRecord> api = sorted ? null : new ArrayList<>(apiCalls);
      for (TraceRecord r : trace) {
        if (r instanceof ApiCallRecord a) {
          if (sorted) {
            add.accept(a);
          } else {
            api.add(a);
          }
        }
      }
      if (!sorted) {
        api.sort(Comparator.comparingLong(ApiCallRecord::startNs));
        api.forEach(add);
      }
    }

    /** The samples that say what the clock did: a finite SM clock and clock-event reasons, in time order. */
    List<StateSample> clockSamples() {
      List<StateSample> out = new ArrayList<>(samples);
      out.removeIf(s -> !(s.has(StateField.SM_CLOCK) && s.has(StateField.CLOCK_EVENT_REASONS)
          && Double.isFinite(s.get(StateField.SM_CLOCK)) && Double.isFinite(s.get(StateField.CLOCK_EVENT_REASONS))));
      out.sort(Comparator.comparingLong(StateSample::timeNs));
      return out;
    }
  }

  /** The calls as they are added in start order, with what each was doing and the counts over them. */
  private static final class Table {
    final long[] start;
    final long[] end;
    final byte[] cat;
    final long[] pageable;
    final long warm;
    int calls;
    long[] syncStart = new long[64];
    int[] syncCall = new int[64];
    int syncs;
    long launches;
    long slowAllocs;
    double slowAllocNs;
    long ownGaps;
    double ownGapNs;
    long prevEnd = Long.MIN_VALUE;

    Table(int apiCalls, long[] pageable, long warm) {
      start = new long[apiCalls];
      end = new long[apiCalls];
      cat = new byte[apiCalls];
      this.pageable = pageable;
      this.warm = warm;
    }

    void add(ApiCallRecord a) {
      int i = calls++;
      start[i] = a.startNs();
      end[i] = a.endNs();
      byte c = category(a, pageable);
      if (c == ALLOC && a.startNs() < warm && a.name().contains("Async")) {
        c = WARMUP;
      }
      cat[i] = c;
      if (c == SYNC) {
        if (syncs == syncStart.length) {
          syncStart = Arrays.copyOf(syncStart, syncs * 2);
          syncCall = Arrays.copyOf(syncCall, syncs * 2);
        }
        syncStart[syncs] = a.startNs();
        syncCall[syncs++] = i;
      } else if (c == ALLOC) {
        slowAllocs++;
        slowAllocNs += a.durationNs();
      } else if (c == LAUNCH) {
        launches++;
      }
      if (prevEnd != Long.MIN_VALUE && a.startNs() > prevEnd) {
        ownGaps++;
        ownGapNs += a.startNs() - prevEnd;
      }
      prevEnd = Math.max(prevEnd, a.endNs());
    }
  }
}
