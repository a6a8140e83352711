package io.gitm.analysis.attribution;

import static io.gitm.analysis.attribution.Thresholds.COPY_FIXED_NS;
import static io.gitm.analysis.attribution.Thresholds.LINK_MIN_BYTES;
import static io.gitm.analysis.attribution.Thresholds.LINK_SLOW;

import io.gitm.planner.Planner;
import io.gitm.trace.CopyKind;
import io.gitm.trace.CopyRecord;
import io.gitm.trace.TraceRecord;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Host copies (at least {@link Thresholds#LINK_MIN_BYTES}) below {@link Thresholds#LINK_SLOW} of the calibrated rate
 * for their kind: the time beyond that rate (fixed cost included).
 */
final class HostLinkDetector implements Detector {
  @Override
  public Set<Cause> causes() {
    return EnumSet.of(Cause.HOST_LINK_DEGRADED);
  }

  @Override
  public void detect(Input in, Ledger out) {
    long n = 0;
    long slow = 0;
    double extra = 0;
    for (TraceRecord r : in.trace()) {
      if (r instanceof CopyRecord c && c.bytes() >= LINK_MIN_BYTES && c.durationNs() > 0
          && (c.kind() == CopyKind.HTOD || c.kind() == CopyKind.DTOH)) {
        n++;
        double expected = c.bytes() / Planner.copyRate(c, in.hw()) * 1e9 + COPY_FIXED_NS;
        if (c.durationNs() > expected / LINK_SLOW) {
          slow++;
          extra += c.durationNs() - expected;
          out.lost(Cause.HOST_LINK_DEGRADED).add(in, c.startNs(), c.durationNs() - expected);
        }
      }
    }
    if (out.has(Cause.HOST_LINK_DEGRADED)) {
      Lost l = out.lost(Cause.HOST_LINK_DEGRADED);
      l.certainty(n == 0 ? 0 : (double) slow / n);
      l.evidence(new Evidence("trace", String.format(Locale.ROOT,
          "%d of %d host copies of %d KiB or more ran below %.0f%% of the calibrated rate for their memory kind"
              + " (%.2f ms beyond it)", slow, n, LINK_MIN_BYTES / 1024, LINK_SLOW * 100, extra / 1e6),
          Map.of("slow", slow, "copies", n, "extraNs", extra)));
    }
  }
}
