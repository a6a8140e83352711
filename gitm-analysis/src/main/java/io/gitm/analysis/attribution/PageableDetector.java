package io.gitm.analysis.attribution;

import io.gitm.planner.Planner;
import io.gitm.trace.CopyRecord;
import io.gitm.trace.TraceRecord;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Copies from or to pageable memory: the device-idle time the {@link IdlePartition} charged to the host blocked in
 * them, and the time each copy took beyond the same bytes at the pinned rate.
 */
final class PageableDetector implements Detector {
  private final IdlePartition idle;

  PageableDetector(IdlePartition idle) {
    this.idle = idle;
  }

  @Override
  public Set<Cause> causes() {
    return EnumSet.of(Cause.PAGEABLE_COPIES);
  }

  @Override
  public void detect(Input in, Ledger out) {
    if (!idle.pageable.isEmpty()) {
      Lost l = out.lost(Cause.PAGEABLE_COPIES);
      idle.pageable.addTo(l, in);
      l.evidence(new Evidence("idle", String.format(Locale.ROOT,
          "the device idled %.2f ms while the host was blocked in copies staged through pageable memory",
          idle.pageableNs / 1e6), Map.of("idleNs", idle.pageableNs)));
    }
    long n = 0;
    double extra = 0;
    long bytes = 0;
    for (TraceRecord r : in.trace()) {
      if (r instanceof CopyRecord c && Planner.pageable(c)) {
        double atPinned = c.bytes() / Planner.copyRate(c.kind(), false, in.hw()) * 1e9;
        double atPageable = c.bytes() / Planner.copyRate(c.kind(), true, in.hw()) * 1e9;
        double e = Math.max(0, Math.min(c.durationNs() - atPinned, atPageable - atPinned));
        n++;
        bytes += c.bytes();
        extra += e;
        out.lost(Cause.PAGEABLE_COPIES).add(in, c.startNs(), e);
      }
    }
    if (n > 0) {
      out.lost(Cause.PAGEABLE_COPIES).evidence(new Evidence("trace", String.format(Locale.ROOT,
          "%d copies from/to pageable host memory (%.1f MiB): %.2f ms beyond the same copies at the calibrated pinned"
              + " rate; each blocks the host until it ends", n, bytes / 1048576.0, extra / 1e6),
          Map.of("copies", n, "bytes", bytes, "extraNs", extra)));
    }
  }
}
