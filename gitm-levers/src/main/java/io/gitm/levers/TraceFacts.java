package io.gitm.levers;

import io.gitm.trace.ApiCallRecord;
import io.gitm.trace.KernelRecord;
import io.gitm.trace.TraceRecord;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Lever facts read off a captured trace that the attribution's own facts do not carry. */
public final class TraceFacts {
  private TraceFacts() {
  }

  /**
   * {@link LeverContext#FACT_HOST_THREADS}: the distinct host threads that issued API calls (each wants a CPU while
   * it launches and waits); {@link LeverContext#FACT_SHARED_MEMORY_KERNELS}: kernel executions with static or dynamic
   * shared memory. A fact the trace cannot show (no API calls, no kernels) is left out, so it stays unknown.
   */
  public static Map<String, Double> of(List<TraceRecord> trace) {
    if (trace == null) {
      throw new IllegalArgumentException("no trace to read lever facts from");
    }
    Set<Long> threads = new HashSet<>();
    long kernels = 0;
    long shared = 0;
    for (TraceRecord r : trace) {
      if (r instanceof ApiCallRecord a) {
        threads.add(a.threadId());
      } else if (r instanceof KernelRecord k) {
        kernels++;
        if (k.staticSharedBytes() > 0 || k.dynamicSharedBytes() > 0) {
          shared++;
        }
      }
    }
    Map<String, Double> f = new HashMap<>();
    if (!threads.isEmpty()) {
      f.put(LeverContext.FACT_HOST_THREADS, (double) threads.size());
    }
    if (kernels > 0) {
      f.put(LeverContext.FACT_SHARED_MEMORY_KERNELS, (double) shared);
    }
    return f;
  }
}
