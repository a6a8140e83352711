package io.gitm.trace;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Matches a trace's kernel executions to the work their launches declared, as {@link WorkRecord} says: by correlation
 * id where the record carries one (the simulator's), else by order — the n-th work record of a kernel name on a stream
 * belongs to the n-th execution of that name on that stream (CUPTI's executions, whose correlation ids the facade
 * cannot know at launch).
 */
public final class DeclaredWork {
  private DeclaredWork() {}

  /**
   * The order half: work records without a correlation id, queued per kernel name and stream in declaration order,
   * handed out to the kernels of that name and stream as they are polled, which must be in start order.
   */
  public static final class ByOrder {
    private final Map<String, ArrayDeque<WorkRecord>> queues = new HashMap<>();
    private boolean sorted = true;
    private long lastTime = Long.MIN_VALUE;

    public ByOrder() {}

    public void add(WorkRecord w) {
      queues.computeIfAbsent(key(w.kernel(), w.stream()), k -> new ArrayDeque<>()).add(w);
      sorted &= w.timeNs() >= lastTime;
      lastTime = Math.max(lastTime, w.timeNs());
    }

    public boolean isEmpty() {
      return queues.isEmpty();
    }

    /** The next declaration of {@code k}'s name on {@code k}'s stream, or null when none is left. */
    public @Nullable WorkRecord poll(KernelRecord k) {
      if (!sorted) {
        for (ArrayDeque<WorkRecord> q : queues.values()) {
          List<WorkRecord> l = new ArrayList<>(q);
          l.sort(Comparator.comparingLong(WorkRecord::timeNs));
          q.clear();
          q.addAll(l);
        }
        sorted = true;
      }
      ArrayDeque<WorkRecord> q = queues.get(key(k.name(), k.stream()));
      return q == null ? null : q.poll();
    }
  }

  /** The declared work of each kernel of {@code trace}; the function answers null for a kernel that declared none. */
  public static Function<KernelRecord, Work> of(Iterable<? extends TraceRecord> trace) {
    Map<Long, Work> byCorrelation = new HashMap<>();
    ByOrder byOrder = new ByOrder();
    List<KernelRecord> kernels = new ArrayList<>();
    for (TraceRecord r : trace) {
      if (r instanceof WorkRecord w) {
        if (w.correlationId() != 0) {
          byCorrelation.put(w.correlationId(), w.work());
        } else {
          byOrder.add(w);
        }
      } else if (r instanceof KernelRecord k) {
        kernels.add(k);
      }
    }
    if (byOrder.isEmpty()) {
      return k -> byCorrelation.get(k.correlationId());
    }
    kernels.sort(Comparator.comparingLong(KernelRecord::startNs).thenComparingLong(KernelRecord::correlationId));
    Map<KernelRecord, Work> matched = new HashMap<>();
    for (KernelRecord k : kernels) {
      Work w = byCorrelation.get(k.correlationId());
      if (w == null) {
        WorkRecord next = byOrder.poll(k);
        w = next == null ? null : next.work();
      }
      if (w != null) {
        matched.put(k, w);
      }
    }
    return matched::get;
  }

  private static String key(String kernel, int stream) {
    return kernel + '\u0000' + stream;
  }
}
