package io.gitm.levers;

import io.gitm.analysis.attribution.Cause;
import io.gitm.workload.Knob;
import java.util.Set;

/**
 * An L2 access-policy window over the workload's hot buffer (its choice; hft-lob: the price levels), marked
 * persisting, so that repeated reads hit L2 instead of device memory. The window asked for is three quarters of the
 * device's L2; the workload caps it at the buffer's size and the backend the persisting part at the device's limit.
 * The window is a stream attribute set on the job's own streams, so the lever applies only once the job runs on them
 * (it does not move the job off the legacy default stream itself). Replay does not model it: the trace does not say
 * which bytes a kernel read from the window.
 */
record L2PersistWindow() implements Lever {
  private static final LeverSpec SPEC = new LeverSpec("l2-persist-window",
      "mark the workload's hot buffer as persisting in L2 (access-policy window)",
      Set.of(Cause.MEMORY_BOUND_BELOW_ROOFLINE, Cause.EXCESS_TRAFFIC, Cause.MEMORY_DEGRADED), SafetyClass.A,
      Scope.MANAGED);

  @Override
  public LeverSpec spec() {
    return SPEC;
  }

  @Override
  public Applicability check(LeverContext c) {
    Applicability no = Checks.honours(c, Knob.L2_PERSIST);
    if (no == null) {
      no = Checks.capability(c, 8.0, "an L2 persisting window");
    }
    if (no != null) {
      return no;
    }
    if (c.device().l2CacheBytes() <= 0) {
      return Applicability.no(c.device().name() + " reports no L2 cache size");
    }
    var cfg = c.setup().config();
    if (cfg.streams() < 2 && !cfg.copyComputeOverlap() && !cfg.graphCapture()) {
      return Applicability.no("the window is set on the job's own streams, and this setup runs on the legacy "
          + "default stream: apply streams-2, copy-compute-overlap or graph-capture first");
    }
    if (cfg.l2PersistBytes() > 0) {
      return Applicability.no("an L2 window of " + c.setup().config().l2PersistBytes() + " bytes is already set");
    }
    return Applicability.yes("no L2 window is set");
  }

  @Override
  public Setup apply(Setup s, LeverContext c) {
    if (c.device() == null || c.device().l2CacheBytes() <= 0) {
      throw new IllegalArgumentException("l2-persist-window needs the device's L2 size");
    }
    return s.withConfig(s.config().withL2PersistBytes(c.device().l2CacheBytes() / 4L * 3));
  }
}
