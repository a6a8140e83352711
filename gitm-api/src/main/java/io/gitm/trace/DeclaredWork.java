package io.gitm.trace;

import io.gitm.device.Work;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Matches a trace's kernel executions to the work their launches declared, as {@link WorkRecord} says: by correlation
 * id where the record carries one (the simulator's), else by order — the n-th work record of a kernel name on a stream
 * belongs to the n-th execution of that name on that stream (CUPTI's executions, whose correlation ids the facade
 * cannot know at launch).
 */
public final class DeclaredWork {
  private DeclaredWork() {}

  /** The declared work of each kernel of {@code trace}; the function answers null for a kernel that declared none. */
  public static Function<KernelRecord, Work> of(Iterable<? extends TraceRecord> trace) {
    Map<Long, Work> byCorrelation = new HashMap<>();
    Map<String, ArrayDeque<WorkRecord>> byOrder = new HashMap<>();
    List<KernelRecord> kernels = new ArrayList<>();
    for (TraceRecord r : trace) {
      if (r instanceof WorkRecord w) {
        if (w.correlationId() != 0) {
          byCorrelation.put(w.correlationId(), w.work());
        } else {
          byOrder.computeIfAbsent(key(w.kernel(), w.stream()), k -> new ArrayDeque<>()).add(w);
        }
      } else if (r instanceof KernelRecord k) {
        kernels.add(k);
      }
    }
    if (byOrder.isEmpty()) {
      return k -> byCorrelation.get(k.correlationId());
    }
    byOrder.values().forEach(q -> {
      List<WorkRecord> sorted = new ArrayList<>(q);
      sorted.sort(Comparator.comparingLong(WorkRecord::timeNs));
      q.clear();
      q.addAll(sorted);
    });
    kernels.sort(Comparator.comparingLong(KernelRecord::startNs).thenComparingLong(KernelRecord::correlationId));
    Map<KernelRecord, Work> matched = new HashMap<>();
    for (KernelRecord k : kernels) {
      Work w = byCorrelation.get(k.correlationId());
      if (w == null) {
        ArrayDeque<WorkRecord> q = byOrder.get(key(k.name(), k.stream()));
        WorkRecord next = q == null ? null : q.poll();
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
