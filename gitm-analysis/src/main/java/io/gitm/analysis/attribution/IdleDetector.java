package io.gitm.analysis.attribution;

import static io.gitm.analysis.attribution.Thresholds.SLOW_ALLOC_NS;

import io.gitm.analysis.monitor.Monitor;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The device-idle time of the {@link IdlePartition} that is the allocator's (gaps the host spent in allocations and
 * frees that held it) and the launch-bound host's (gaps with the host not blocked in a driver call).
 */
final class IdleDetector implements Detector {
  private final IdlePartition idle;

  IdleDetector(IdlePartition idle) {
    this.idle = idle;
  }

  @Override
  public Set<Cause> causes() {
    return EnumSet.of(Cause.ALLOCATOR_STALL, Cause.LAUNCH_BOUND_HOST);
  }

  @Override
  public void detect(Input in, Ledger out) {
    HostCalls h = in.host();
    if (!idle.alloc.isEmpty()) {
      idle.alloc.addTo(out.lost(Cause.ALLOCATOR_STALL), in);
    }
    if (!idle.launch.isEmpty()) {
      Lost l = out.lost(Cause.LAUNCH_BOUND_HOST);
      idle.launch.addTo(l, in);
      Monitor.Idle m = in.monitor().idle();
      l.evidence(new Evidence("idle", String.format(Locale.ROOT,
          "the device idled %.2f ms in %d gaps longer than %.1f µs while the host was not blocked in a driver call"
              + " (the host spent %.2f ms in %d stretches outside any driver call; idle breakdown: kernel wait %.2f ms,"
              + " host wait %.2f ms, other %.2f ms)", idle.launchNs / 1e6, idle.launchGaps, idle.launchGap / 1e3,
          h.ownGapNs / 1e6, h.ownGaps, m.kernelWaitNs() / 1e6, m.hostWaitNs() / 1e6, m.otherNs() / 1e6),
          Map.of("gaps", idle.launchGaps, "idleNs", idle.launchNs, "hostOwnNs", h.ownGapNs)));
    }
    if (out.has(Cause.ALLOCATOR_STALL)) {
      out.lost(Cause.ALLOCATOR_STALL).evidence(new Evidence("trace", String.format(Locale.ROOT,
          "%d allocations/frees held the host (synchronizing, or over %d µs): %.1f µs each on average, %.2f ms in"
              + " all; the device idled %.2f ms around them", h.slowAllocs, SLOW_ALLOC_NS / 1000,
          h.slowAllocNs / Math.max(1, h.slowAllocs) / 1e3, h.slowAllocNs / 1e6, idle.allocNs / 1e6),
          Map.of("calls", h.slowAllocs, "callNs", h.slowAllocNs, "idleNs", idle.allocNs)));
    }
  }
}
